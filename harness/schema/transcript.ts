// A transcript file as a schema (docs/transcript-format.md is the contract):
// turns, facts and probes, with probes checked against the facts and turns
// of the same file, and tool calls in raw items paired with their results.
import { z } from 'zod';
import { isRecord } from '../../core/record.js';
import { PROBE_KINDS, type ArgumentRule, type ExpectedCall, type Fact, type Probe, type ToolDefinition, type Turn } from '../../core/types.js';
import { itemText, turnItems } from '../../core/items.js';
import { factPresentIn } from '../../core/text.js';
import { quote } from '../../core/errors.js';
import { normaliseArgument } from '../../graders/tool-calls.js';
import { choice, freeform, int, list, map, report, text, typeError, uniqueIds, whenValid, word } from './fields.js';
import type { YamlFormat } from './issues.js';
import { itemsSchema } from './items.js';
import { MESSAGE_FIELDS, conversationFacts, conversationLabels, dropUndefined, factsSchema, phrase, toMessageTurn, turnRangeProblem, type CallSeen } from './turns.js';

export const TRANSCRIPT_FORMAT: YamlFormat = {
  root: 'the transcript',
  rules: [
    ...conversationLabels('turns', 'turn'),
    { path: ['turns', '#', 'items', '#'], label: ({ n, up }) => `item ${n} of ${up(2)}` },
    { path: ['probes', '#'], label: ({ id, n }) => (id ? `probe ${quote(id)}` : `probe ${n}`) },
    { path: ['probes', '#', 'must_include', '#'], label: ({ up }) => `an entry of "must_include" in ${up(2)}` },
    { path: ['probes', '#', 'must_include', '#', '#'], label: ({ up }) => `an alternative in "must_include" of ${up(3)}` },
    { path: ['probes', '#', 'expect_call'], label: ({ up }) => `"expect_call" of ${up(1)}` },
    { path: ['probes', '#', 'expect_call', 'arguments', '*'], label: ({ key, up }) => `argument ${quote(key)} of ${up(3)}` },
    { path: ['tools', '#'], label: ({ n }) => `tool ${n}` },
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

/** A raw-items call made by `turn` whose result comes only after it, described; undefined when none is pending then. */
function pendingCall(turn: number): string | undefined {
  const seen = conversationFacts.get().calls;
  let byTurn = pendingByTurn.get(seen);
  if (!byTurn) pendingByTurn.set(seen, (byTurn = pendingCalls(seen)));
  return byTurn.get(turn);
}

/** Per transcript, once: a probe each turn would otherwise rebuild the call index (16,000 turns took minutes). */
const pendingByTurn = new WeakMap<readonly CallSeen[], Map<number, string>>();

/** For each turn during which a raw-items call awaits its result, the first such call, described. */
function pendingCalls(seen: readonly CallSeen[]): Map<number, string> {
  const resultTurn = new Map(seen.filter((c) => c.kind === 'result').map((c) => [c.id, c.turn]));
  const out = new Map<number, string>();
  for (const c of seen) {
    const until = c.kind === 'call' ? (resultTurn.get(c.id) ?? 0) : 0;
    for (let t = c.turn; t < until; t++) if (!out.has(t)) out.set(t, `function_call ${quote(c.id)} of turn ${c.turn} has its result only in turn ${until}`);
  }
  return out;
}

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

// ---------------------------------------------------------------- tools

/** What the Responses and Chat Completions APIs accept as a function name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const toolSchema = map(
  {
    name: word().refine((name) => TOOL_NAME.test(name), '{label} must be 1 to 64 letters, digits, "_" or "-" (as the APIs require a tool name)'),
    description: text().optional(),
    /** JSON Schema of the arguments; an object schema, as the APIs require. */
    parameters: freeform()
      .superRefine((schema, rctx) => {
        if (schema.type !== 'object') report(rctx, { message: '{label} must be a JSON Schema of type "object" (add `type: object`)' });
        if ('properties' in schema && !isRecord(schema.properties)) report(rctx, { path: ['properties'], message: '{label} must be a mapping of argument names to JSON Schemas' });
      })
      .default(() => ({ type: 'object', properties: {} })),
  },
  { expected: 'a mapping (name:, description:, parameters:)' },
).transform((t): ToolDefinition => dropUndefined({ name: t.name, description: t.description, parameters: t.parameters }));

const toolsSchema = list(toolSchema).superRefine(
  (tools, rctx) => {
    const first = new Map<unknown, number>();
    tools.forEach((tool, i) => {
      const name = isRecord(tool) ? tool.name : undefined;
      if (typeof name !== 'string') return;
      const earlier = first.get(name);
      if (earlier === undefined) first.set(name, i);
      else report(rctx, { path: [i, 'name'], message: `duplicate tool name ${quote(name)} (first defined at {first})`, first: ['tools', earlier, 'name'] });
    });
  },
  { when: (payload) => Array.isArray(payload.value) },
);

// ---------------------------------------------------------------- probes

/** `must_include`: a string (one entry), or a list whose entries are a string or a list of alternatives (any of). */
function mustInclude(): z.ZodType<string[][], unknown> {
  const alternatives = list(phrase('"must_include" of {label-3}'), { nonEmpty: true, emptyMessage: '{label} is an empty list (it could never be satisfied)' });
  const entry = z.union([phrase('"must_include" of {label-2}'), alternatives], { error: typeError('text or a list of alternatives') });
  const entries = list(entry).transform((all) => all.map((e) => (typeof e === 'string' ? [e] : e)));
  const single = phrase('"must_include" of {label-1}').transform((e) => [[e]]);
  return z.union([single, entries], { error: typeError('text or a list') });
}

/**
 * One expected argument: a plain value matches after answer normalisation;
 * `{ exact: v }`, `{ normalised: v }`, `{ one_of: [..] }` or `{ any: true }` say how.
 */
const argumentRule = z
  .unknown()
  .superRefine((value, rctx) => {
    const problem = argumentRuleProblem(value);
    if (problem) report(rctx, { message: problem });
  })
  .transform((value): ArgumentRule => toArgumentRule(value));

const RULE_KEYS = ['exact', 'normalised', 'normalized', 'one_of', 'any'];

function argumentRuleProblem(value: unknown): string | undefined {
  if (isScalar(value)) return unmatchable(value);
  if (!isRecord(value)) return '{label} must be a value, or a mapping with one of exact, normalised, one_of, any';
  const keys = Object.keys(value);
  if (keys.length !== 1 || !RULE_KEYS.includes(keys[0])) {
    return `{label} must have exactly one of exact, normalised, one_of, any (found ${keys.map((k) => quote(k)).join(', ') || 'none'}); write a structured value as { exact: ... }`;
  }
  const rule = value[keys[0]];
  if (keys[0] === 'any' && rule !== true) return '{label}: "any" must be true';
  if (keys[0] === 'one_of' && !(Array.isArray(rule) && rule.length > 0 && rule.every(isScalar))) return '{label}: "one_of" must be a non-empty list of values';
  if ((keys[0] === 'normalised' || keys[0] === 'normalized') && !isScalar(rule)) return `{label}: ${quote(keys[0])} must be a value (text, a number or true/false)`;
  if (keys[0] === 'one_of') return (rule as unknown[]).map(unmatchable).find((p) => p !== undefined);
  if (keys[0] === 'normalised' || keys[0] === 'normalized') return unmatchable(rule);
  return undefined;
}

/** A compared value with no letter or digit normalises to nothing, so no argument could ever match it. */
function unmatchable(value: unknown): string | undefined {
  return normaliseArgument(value) === undefined ? `{label}: ${quote(String(value))} has no letters or digits, so no argument can match it (use { exact: ... })` : undefined;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function toArgumentRule(value: unknown): ArgumentRule {
  if (isScalar(value)) return { rule: 'normalised', value: String(value) };
  const [key, rule] = Object.entries(value as Record<string, unknown>)[0];
  if (key === 'exact') return { rule: 'exact', value: rule };
  if (key === 'one_of') return { rule: 'one-of', values: (rule as unknown[]).map(String) };
  if (key === 'any') return { rule: 'any' };
  return { rule: 'normalised', value: String(rule) };
}

/** `expect_call`: `none` (answer without calling a tool), or the call expected (`name`, `arguments`). */
const expectCall = z.union(
  [
    z.literal('none').transform(() => null),
    map(
      { name: word(), arguments: z.record(z.string(), argumentRule, { error: typeError('a mapping of argument names to values') }).default(() => ({})) },
      { expected: 'a mapping (name:, arguments:)' },
    ),
  ],
  { error: typeError('"none" or a mapping (name:, arguments:)') },
);

/** The reference answer of a probe that expects a call, as reports show it: `run_sql(host=db-prod-7, query=<any>)`. */
export function describeCall(call: ExpectedCall): string {
  const args = Object.entries(call.arguments).map(([name, rule]) => `${name}=${describeRule(rule)}`);
  return `${call.name}(${args.join(', ')})`;
}

function describeRule(rule: ArgumentRule): string {
  if (rule.rule === 'any') return '<any>';
  if (rule.rule === 'one-of') return rule.values.join(' | ');
  return typeof rule.value === 'string' ? rule.value : JSON.stringify(rule.value);
}

const probeSchema = map({
  id: text({ nonEmpty: true }),
  /** 1-based: the probe is asked after this turn was replayed. */
  after_turn: int().superRefine((turn, rctx) => {
    const pending = pendingCall(turn);
    if (pending) report(rctx, { message: `{label-1} after_turn ${turn} is asked while ${pending}: the request would carry a call with no result, which the APIs reject` });
    const problem = turnRangeProblem(turn, `{label-1} after_turn ${turn}`);
    if (problem) report(rctx, { message: problem });
  }),
  question: text({ nonEmpty: true }),
  /** Required, except for a tool probe that expects a call (its answer is the call). */
  answer: text().optional(),
  must_include: mustInclude().default(() => []),
  facts: list(text({ nonEmpty: true })).default(() => []),
  kind: choice(PROBE_KINDS).default('recall'),
  expect_call: expectCall.optional(),
  meta: freeform().optional(),
})
  .superRefine((p, rctx) => {
    if (p.kind === 'tool' && p.expect_call === undefined) report(rctx, { message: '{label} is kind: tool but has no "expect_call" (the call expected, or `none`)' });
    if (p.kind !== 'tool' && p.expect_call !== undefined) report(rctx, { path: ['expect_call'], atKey: true, message: `{label-1} has "expect_call" but kind ${p.kind}; use kind: tool` });
    if (p.answer === undefined && (p.kind !== 'tool' || p.expect_call === null)) report(rctx, { message: '{label} is missing "answer"' });
  }, whenValid('kind', 'expect_call', 'answer'))
  .superRefine((p, rctx) => {
    if (p.expect_call === undefined) return;
    const tools = conversationFacts.get().tools;
    if (tools.size === 0) {
      // Without tools the model cannot call one, so "no call" would pass every time without measuring anything.
      report(rctx, { path: ['expect_call'], atKey: true, message: '{label-1} is kind: tool, but the transcript offers no "tools:" to call' });
      return;
    }
    if (p.expect_call === null) return;
    const { name } = p.expect_call;
    if (!tools.has(name)) {
      const offered = [...tools.keys()].map((t) => quote(t)).join(', ');
      report(rctx, { path: ['expect_call', 'name'], message: `{label-2} expects a call to ${quote(name)}, which is not a tool of this transcript (the transcript's tools are ${offered})` });
      return;
    }
    const declared = tools.get(name);
    for (const arg of Object.keys(p.expect_call.arguments).filter((a) => declared && !declared.has(a))) {
      report(rctx, { path: ['expect_call', 'arguments', arg], atKey: true, message: `{label-3} expects argument ${quote(arg)}, which tool ${quote(name)} does not declare (it has ${[...(declared ?? [])].map((a) => quote(a)).join(', ') || 'none'})` });
    }
  }, whenValid('expect_call'))
  .superRefine((p, rctx) => {
    const { factTurns } = conversationFacts.get();
    // Each problem at its own entry of the list, not at the list.
    p.facts.forEach((id, i) => {
      if (!factTurns.has(id)) report(rctx, { path: ['facts', i], message: `{label-2} names fact ${quote(id)}, which is not a fact in this transcript` });
    });
  }, whenValid('facts'))
  .superRefine((p, rctx) => {
    if (p.kind === 'abstention') return;
    p.facts.forEach((id, i) => {
      const turn = conversationFacts.get().factTurns.get(id);
      if (turn !== undefined && turn > p.after_turn) {
        report(rctx, { path: ['facts', i], message: `{label-2} after_turn ${p.after_turn} depends on fact ${quote(id)}, which is only stated in turn ${turn}` });
      }
    });
  }, whenValid('facts', 'after_turn', 'kind'))
  .transform(
    (p): Probe =>
      dropUndefined({
        id: p.id,
        afterTurn: p.after_turn,
        question: p.question,
        answer: p.answer ?? (p.expect_call ? describeCall(p.expect_call) : ''),
        mustInclude: p.must_include,
        facts: p.facts,
        kind: p.kind,
        expectCall: p.expect_call,
        meta: p.meta,
      }),
  );

// ---------------------------------------------------------------- the transcript

/** A transcript file's keys; parse it inside `conversationFacts.run`. The loader adds `file` and the default id. */
export const transcriptSchema = map(
  {
    id: text({ nonEmpty: true }).optional(),
    title: text().optional(),
    tags: list(text({ nonEmpty: true })).default(() => []),
    system: text().optional(),
    /** Tools offered to the model with every probe, as the Responses and Chat Completions APIs take them. */
    tools: toolsSchema.optional(),
    turns: list(turnSchema, { nonEmpty: true }),
    facts: factsSchema.default(() => []),
    probes: list(probeSchema)
      .superRefine(...uniqueIds('probes', 'probe'))
      .default(() => []),
    /** Free-form user notes, allowed under `meta:` anywhere in a transcript. */
    meta: freeform().optional(),
  },
  { expected: 'a mapping (id:, turns:, facts:, probes:)' },
)
  .superRefine((_data, rctx) => checkCallPairs(rctx), { when: (payload) => isRecord(payload.value) })
  .superRefine((data, rctx) => checkFactsStated(data.turns, data.facts, rctx), whenValid('turns', 'facts'));

/**
 * Every fact must be stated, in its text or an alias, in the turn it names: retention and
 * `answerable` find a fact by those words, so a fact its turn never says would read as lost
 * from the full history itself (a critical one failing a `facts.critical_dropped` gate).
 */
function checkFactsStated(turns: readonly Turn[], facts: readonly Fact[], rctx: z.core.$RefinementCtx): void {
  facts.forEach((fact, i) => {
    const turn = turns[fact.turn - 1];
    if (turn === undefined) return;
    const said = turnItems(turn, fact.turn).map(itemText).join('\n');
    if (factPresentIn(said, fact)) return;
    const named = fact.aliases.length > 0 ? 'its text or an alias' : 'its text';
    report(rctx, {
      path: ['facts', i, 'text'],
      message: `fact ${quote(fact.id)}: turn ${fact.turn} does not state ${named} (a fact is found by those words as written, so it would read as lost even from the full history): fix its "turn", or give the words the turn uses as "aliases"`,
    });
  });
}
