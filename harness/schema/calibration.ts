// A judge-calibration file as a schema (format: datasets/calibration/README.md):
// a conversation excerpt in transcript form (`source:` turns, facts) and the
// human-labelled summaries of it.
import { z } from 'zod';
import type { CalibrationLabels } from '../../graders/calibrate.js';
import { quote } from '../yaml-source.js';
import { freeform, int, list, map, text, word } from './fields.js';
import type { YamlFormat } from './issues.js';
import { conversationLabels, factsSchema, messageTurnSchema, uniqueIds } from './turns.js';

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
