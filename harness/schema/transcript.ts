// A transcript file as a schema (docs/transcript-format.md is the contract):
// turns, facts and probes, with probes checked against the facts and turns
// of the same file, and tool calls in raw items paired with their results.
import { z } from 'zod';
import { isRecord } from '../../core/record.js';
import { PROBE_KINDS, type Probe, type Turn } from '../../core/types.js';
import { quote } from '../../core/errors.js';
import { choice, freeform, int, list, map, report, text, typeError, uniqueIds, whenValid } from './fields.js';
import type { YamlFormat } from './issues.js';
import { itemsSchema } from './items.js';
import { MESSAGE_FIELDS, conversationFacts, conversationLabels, dropUndefined, factsSchema, phrase, toMessageTurn, turnRangeProblem } from './turns.js';

export const TRANSCRIPT_FORMAT: YamlFormat = {
  root: 'the transcript',
  rules: [
    ...conversationLabels('turns', 'turn'),
    { path: ['turns', '#', 'items', '#'], label: ({ n, up }) => `item ${n} of ${up(2)}` },
    { path: ['probes', '#'], label: ({ id, n }) => (id ? `probe ${quote(id)}` : `probe ${n}`) },
    { path: ['probes', '#', 'must_include', '#'], label: ({ up }) => `an entry of "must_include" in ${up(2)}` },
    { path: ['probes', '#', 'must_include', '#', '#'], label: ({ up }) => `an alternative in "must_include" of ${up(3)}` },
  ],
};

// ---------------------------------------------------------------- turns

/** Keys only a `user:` turn may have. */
const USER_ONLY_KEYS = ['assistant', 'tool_calls', 'at'] as const;

const turnSchema = map(
  {
    user: MESSAGE_FIELDS.user.optional(),
    assistant: MESSAGE_FIELDS.assistant,
    tool_calls: MESSAGE_FIELDS.tool_calls,
    at: MESSAGE_FIELDS.at,
    /** Raw Agents SDK input items, verbatim: the escape hatch. */
    items: itemsSchema.optional(),
    meta: MESSAGE_FIELDS.meta,
  },
  { expected: 'a mapping with "user" or "items"' },
)
  .superRefine(
    (t, rctx) => {
      if (!('user' in t) && !('items' in t)) report(rctx, { message: '{label} has neither "user" nor "items"' });
      else if ('user' in t && 'items' in t) report(rctx, { path: ['items'], atKey: true, message: '{label-1} has both "user" and "items"; use one' });
      else if ('items' in t) {
        for (const key of USER_ONLY_KEYS.filter((k) => k in t)) {
          report(rctx, { path: [key], atKey: true, message: '{label} is only allowed with "user", not with "items"' });
        }
      }
    },
    { when: (payload) => isRecord(payload.value) },
  )
  .transform((t): Turn => (t.items ? dropUndefined({ kind: 'items', items: t.items, meta: t.meta }) : toMessageTurn({ ...t, user: t.user ?? '' })));

/** APIs reject a tool result without its call and a call without its result. */
function checkCallPairs(rctx: z.core.$RefinementCtx): void {
  const seen = conversationFacts.get().calls;
  const resultIds = new Set(seen.filter((c) => c.kind === 'result').map((c) => c.id));
  const callIds = new Set<string>();
  for (const { id, kind, turn, path } of seen) {
    const found = { path: [...path] };
    if (kind === 'result') {
      if (!callIds.has(id)) report(rctx, { ...found, message: `function_call_result ${quote(id)} in turn ${turn} has no earlier function_call with that callId` });
      continue;
    }
    if (callIds.has(id)) report(rctx, { ...found, message: `function_call id ${quote(id)} in turn ${turn} is used twice` });
    callIds.add(id);
    if (!resultIds.has(id)) report(rctx, { ...found, message: `function_call ${quote(id)} in turn ${turn} has no function_call_result with that callId` });
  }
}

// ---------------------------------------------------------------- probes

/** `must_include`: a string (one entry), or a list whose entries are a string or a list of alternatives (any of). */
function mustInclude(): z.ZodType<string[][], unknown> {
  const alternatives = list(phrase('"must_include" of {label-3}'), { nonEmpty: true, emptyMessage: '{label} is an empty list (it could never be satisfied)' });
  const entry = z.union([phrase('"must_include" of {label-2}'), alternatives], { error: typeError('text or a list of alternatives') });
  const entries = list(entry).transform((all) => all.map((e) => (typeof e === 'string' ? [e] : e)));
  const single = phrase('"must_include" of {label-1}').transform((e) => [[e]]);
  return z.union([single, entries], { error: typeError('text or a list') });
}

const probeSchema = map({
  id: text({ nonEmpty: true }),
  /** 1-based: the probe is asked after this turn was replayed. */
  after_turn: int().superRefine((turn, rctx) => {
    const problem = turnRangeProblem(turn, `{label-1} after_turn ${turn}`);
    if (problem) report(rctx, { message: problem });
  }),
  question: text({ nonEmpty: true }),
  answer: text(),
  must_include: mustInclude().default(() => []),
  facts: list(text({ nonEmpty: true })).default(() => []),
  kind: choice(PROBE_KINDS).default('recall'),
  meta: freeform().optional(),
})
  .superRefine((p, rctx) => {
    const { factTurns } = conversationFacts.get();
    for (const id of p.facts.filter((f) => !factTurns.has(f))) {
      report(rctx, { path: ['facts'], message: `{label-1} names fact ${quote(id)}, which is not a fact in this transcript` });
    }
  }, whenValid('facts'))
  .superRefine((p, rctx) => {
    if (p.kind === 'abstention') return;
    for (const id of p.facts) {
      const turn = conversationFacts.get().factTurns.get(id);
      if (turn !== undefined && turn > p.after_turn) {
        report(rctx, { path: ['facts'], message: `{label-1} after_turn ${p.after_turn} depends on fact ${quote(id)}, which is only stated in turn ${turn}` });
      }
    }
  }, whenValid('facts', 'after_turn', 'kind'))
  .transform(
    (p): Probe =>
      dropUndefined({ id: p.id, afterTurn: p.after_turn, question: p.question, answer: p.answer, mustInclude: p.must_include, facts: p.facts, kind: p.kind, meta: p.meta }),
  );

// ---------------------------------------------------------------- the transcript

/** A transcript file's keys; parse it inside `conversationFacts.run`. The loader adds `file` and the default id. */
export const transcriptSchema = map(
  {
    id: text({ nonEmpty: true }).optional(),
    title: text().optional(),
    tags: list(text({ nonEmpty: true })).default(() => []),
    system: text().optional(),
    turns: list(turnSchema, { nonEmpty: true }),
    facts: factsSchema.default(() => []),
    probes: list(probeSchema)
      .superRefine(...uniqueIds('probes', 'probe'))
      .default(() => []),
    /** Free-form user notes, allowed under `meta:` anywhere in a transcript. */
    meta: freeform().optional(),
  },
  { expected: 'a mapping (id:, turns:, facts:, probes:)' },
).superRefine((_data, rctx) => checkCallPairs(rctx), { when: (payload) => isRecord(payload.value) });
