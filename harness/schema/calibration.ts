// Judge-calibration files as schemas (format: datasets/calibration/README.md):
// a conversation excerpt in transcript form (`source:` turns, facts) and the
// human-labelled summaries of it; and, under answers/, probes with
// human-labelled answers to them.
import { z } from 'zod';
import { isRecord } from '../../core/record.js';
import { PROBE_KINDS } from '../../core/types.js';
import { ANSWER_LABELS, type CalibrationLabels } from '../../graders/calibrate.js';
import { quote } from '../../core/errors.js';
import { choice, eachDuplicateId, freeform, int, list, map, report, text, typeError, uniqueIds, whenValid, word } from './fields.js';
import type { YamlFormat } from './issues.js';
import { conversationLabels, factsSchema, messageTurnSchema, phrase } from './turns.js';

export const CALIBRATION_FORMAT: YamlFormat = {
  root: 'the calibration file',
  rules: [
    ...conversationLabels('source', 'source turn'),
    { path: ['summaries', '#'], label: ({ n }) => `summary ${n}` },
    { path: ['summaries', '#', 'labels'], label: ({ up }) => `labels of ${up(1)}` },
  ],
};

function verdict(): z.ZodType<boolean, unknown> {
  const word = z.enum(['pass', 'fail'], {
    error: (iss) => (iss.input === undefined ? undefined : `{label} must be pass or fail, not ${typeof iss.input === 'string' ? quote(iss.input) : '{found}'}`),
  });
  return word.transform((v) => v === 'pass');
}

const labelsSchema = map({
  /** States the facts a handover needs (latest values). */
  coverage: verdict(),
  /** Nothing invented or contradicted. */
  faithfulness: verdict(),
  /** Changed facts given with their latest value as current. */
  temporal: verdict(),
  /** Every cookbook heading present and within the word limit. */
  format: verdict(),
  /** 1 useless or misleading … 5 complete, faithful, well-formed. */
  overall: int({ min: 1, max: 5 }),
}).transform((labels): CalibrationLabels => labels);

const summarySchema = map({
  id: word(),
  /** Free label: good | vague | wrong | format … */
  category: word().optional(),
  text: text({ nonEmpty: true }),
  labels: labelsSchema,
  note: text().optional(),
  meta: freeform().optional(),
});

/** A calibration file's keys; parse it inside `conversationFacts.run` (turns are `source:`). */
export const calibrationSchema = map({
  id: word().optional(),
  title: text().optional(),
  /** The turns the summaries replace. */
  source: list(messageTurnSchema, { nonEmpty: true }),
  facts: factsSchema.default(() => []),
  summaries: list(summarySchema, { nonEmpty: true }).superRefine(...uniqueIds('summaries', 'summary')),
  meta: freeform().optional(),
});

// ---------------------------------------------------------------------------
// Labelled answers (datasets/calibration/answers/*.yaml)

export const ANSWER_CALIBRATION_FORMAT: YamlFormat = {
  root: 'the answer calibration file',
  rules: [
    { path: ['probes', '#'], label: ({ id, n }) => (id ? `probe ${quote(id)}` : `probe ${n}`) },
    { path: ['probes', '#', 'answers', '#'], label: ({ id, n, up }) => `${id ? `answer ${quote(id)}` : `answer ${n}`} of ${up(2)}` },
    { path: ['probes', '#', 'must_include', '#'], label: ({ up }) => `an entry of "must_include" in ${up(2)}` },
  ],
};

/** As in transcripts: a list whose entries are a phrase or a list of alternatives (any of). */
const mustIncludeSchema = list(
  z.union([phrase('{label}'), list(phrase('{label}'), { nonEmpty: true })], { error: typeError('text or a list of alternatives') }),
).transform((entries) => entries.map((e) => (typeof e === 'string' ? [e] : e)));

const labelledAnswerSchema = map({
  id: word(),
  label: choice(ANSWER_LABELS),
  text: text({ nonEmpty: true }),
  note: text().optional(),
});

// Abstaining is right only where the conversation never gave the answer, and
// a stale value or a wrong abstention needs a known answer: a label that
// contradicts its probe's kind would count in the wrong rate.
function labelProblem(label: string, kind: string): string | undefined {
  if (label === 'abstain-right' && kind !== 'abstention') return `label abstain-right needs an abstention probe, not ${kind}`;
  if ((label === 'abstain-wrong' || label === 'stale') && kind === 'abstention') return `label ${label} needs a probe whose answer is known, not an abstention probe`;
  return undefined;
}

const labelledProbeSchema = map({
  id: word(),
  kind: choice(PROBE_KINDS),
  question: text({ nonEmpty: true }),
  /** The reference answer the judge compares with. */
  answer: text({ nonEmpty: true }),
  must_include: mustIncludeSchema.default(() => []),
  answers: list(labelledAnswerSchema, { nonEmpty: true }),
  note: text().optional(),
}).superRefine((p, rctx) => {
  p.answers.forEach((a, i) => {
    const problem = labelProblem(a.label, p.kind);
    if (problem) report(rctx, { path: ['answers', i, 'label'], message: `{label-1}: ${problem}` });
  });
}, whenValid('kind', 'answers'));

/** An answer calibration file's keys. */
export const answerCalibrationSchema = map({
  id: word().optional(),
  title: text().optional(),
  probes: list(labelledProbeSchema, { nonEmpty: true })
    .superRefine(...uniqueIds('probes', 'probe'))
    .superRefine(uniqueAnswerIds, { when: (payload) => Array.isArray(payload.value) }),
  meta: freeform().optional(),
});

/** Answer ids are unique within their probe; checked from the list of probes so "first defined at" can name the full path. */
function uniqueAnswerIds(probes: unknown[], rctx: z.core.$RefinementCtx<unknown[]>): void {
  probes.forEach((probe, i) => {
    if (!isRecord(probe) || !Array.isArray(probe.answers)) return;
    eachDuplicateId(probe.answers, (id, j, earlier) =>
      report(rctx, { path: [i, 'answers', j, 'id'], message: `duplicate answer id ${quote(id)} in {label-3} (first defined at {first})`, first: ['probes', i, 'answers', earlier, 'id'] }),
    );
  });
}
