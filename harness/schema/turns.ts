// The parts of a conversation file that transcripts and calibration files
// share (docs/transcript-format.md): message turns, tool calls and facts.
// Raw `items:` turns are in items.ts, so reading calibration files does not
// load the Agents SDK.
import { basename } from 'node:path';
import { z } from 'zod';
import { isRecord } from '../../core/record.js';
import { normalizeAnswer, normalizeText } from '../../core/text.js';
import type { Fact, MessageTurn, ToolCallSpec } from '../../core/types.js';
import { quote } from '../../core/errors.js';
import { writtenText, type Path } from '../yaml-source.js';
import { Scope, bool, freeform, int, list, map, report, text, typeError, uniqueIds, whenValid, word } from './fields.js';
import type { LabelRule } from './issues.js';

/** What a file's fields are checked against, read from its data before it is validated. */
export interface ConversationFacts {
  /** Undefined when the turns themselves are unusable: nothing is then out of range. */
  turnCount?: number;
  /** Fact ids and the turn each fact is stated in (when that turn is a whole number). */
  factTurns: ReadonlyMap<string, number | undefined>;
  /** Tool calls and results of raw `items:`, in file order, for pairing them. */
  calls: readonly CallSeen[];
  /** The transcript's `tools:` by name, with each one's declared argument names (undefined: none declared). */
  tools: ReadonlyMap<string, ReadonlySet<string> | undefined>;
}

/** A function_call or function_call_result of a raw item. */
export interface CallSeen {
  id: string;
  kind: 'call' | 'result';
  /** 1-based. */
  turn: number;
  path: Path;
}

/** Set while one transcript or calibration file is parsed; see `Scope`. */
export const conversationFacts = new Scope<ConversationFacts>();

/** Reads the turn count and fact ids of still unchecked data; `turnsKey` is `turns` (transcripts) or `source` (calibration). */
export function factsOf(data: unknown, turnsKey: string): ConversationFacts {
  const top = isRecord(data) ? data : {};
  const turns = top[turnsKey];
  const facts = Array.isArray(top.facts) ? top.facts.filter(isRecord) : [];
  const factTurns = new Map<string, number | undefined>();
  for (const fact of facts) {
    // As the schema will read the id: text, or a plain number or boolean as written.
    const id = writtenText(fact, 'id');
    if (id !== undefined && !factTurns.has(id)) factTurns.set(id, Number.isSafeInteger(fact.turn) ? (fact.turn as number) : undefined);
  }
  return { turnCount: Array.isArray(turns) && turns.length > 0 ? turns.length : undefined, factTurns, calls: callsOf(turns, turnsKey), tools: toolArguments(top.tools) };
}

/** The names of the tools a transcript offers, and each one's declared argument names (undefined: not declared). */
function toolArguments(tools: unknown): Map<string, Set<string> | undefined> {
  const out = new Map<string, Set<string> | undefined>();
  if (!Array.isArray(tools)) return out;
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string') continue;
    const props = isRecord(tool.parameters) && isRecord(tool.parameters.properties) ? tool.parameters.properties : undefined;
    out.set(tool.name, props ? new Set(Object.keys(props)) : undefined);
  }
  return out;
}

/** Calls and results with a usable id (`callId`, or `call_id` as pasted from the Responses API, not both). */
function callsOf(turns: unknown, turnsKey: string): CallSeen[] {
  if (!Array.isArray(turns)) return [];
  return turns.flatMap((turn, i) => {
    if (!isRecord(turn) || 'user' in turn || !Array.isArray(turn.items)) return [];
    return turn.items.flatMap((item, j): CallSeen[] => {
      if (!isRecord(item) || (Object.hasOwn(item, 'callId') && Object.hasOwn(item, 'call_id'))) return [];
      const kind = item.type === 'function_call' ? 'call' : item.type === 'function_call_result' ? 'result' : undefined;
      const id = item.callId ?? item.call_id;
      return kind && typeof id === 'string' && id.trim() !== '' ? [{ id, kind, turn: i + 1, path: [turnsKey, i, 'items', j] }] : [];
    });
  });
}

/** Labels of the shared parts; `turns` is the key holding the turns, `turn` how one is named. */
export function conversationLabels(turns: string, turn: string): LabelRule[] {
  return [
    { path: [turns, '#'], label: ({ n }) => `${turn} ${n}` },
    { path: [turns, '#', 'tool_calls', '#'], label: ({ n, up }) => `tool call ${n} of ${up(2)}` },
    { path: ['facts', '#'], label: ({ id, n }) => (id ? `fact ${quote(id)}` : `fact ${n}`) },
  ];
}

/** "… is outside the 3 turns", or nothing when `turn` is in range (or the turns are unusable). */
export function turnRangeProblem(turn: number, subject: string): string | undefined {
  const { turnCount } = conversationFacts.get();
  if (turnCount === undefined || (turn >= 1 && turn <= turnCount)) return undefined;
  const turns = turnCount === 1 ? 'the 1 turn' : `the ${turnCount} turns`;
  return `${subject} is outside ${turns} (turns are numbered 1 to ${turnCount})`;
}

/** Text that must match replies or contexts: one without letters or digits normalises to nothing and never could. */
export function phrase(where: string): z.ZodString {
  return text({ nonEmpty: true }).superRefine((value, rctx) => {
    if (value.trim() === '') return;
    if (normalizeText(value) === '') report(rctx, { message: `${quote(value)} in ${where} has no letters or digits, so it can never match` });
    // Matching drops these words (core/text.ts normalizeAnswer): an entry of nothing else matches nothing.
    else if (normalizeAnswer(value) === '') report(rctx, { message: `${quote(value)} in ${where} has only the words "a", "an", "the" and "and", which matching ignores, so it can never match` });
  });
}

// ---------------------------------------------------------------- message turns

const toolCallSchema = map({
  name: word()
    .refine((name) => name.trim() !== '', '{label} must not be empty')
    .superRefine((name, rctx) => {
      // With a `tools:` block, the conversation's own calls must use the tools offered: a model
      // shown a call to a tool it cannot call is shown a conversation no agent could have had.
      const { tools } = conversationFacts.get();
      if (tools.size > 0 && !tools.has(name)) {
        report(rctx, { message: `{label} calls ${quote(name)}, which is not a tool of this transcript (its tools are ${[...tools.keys()].map((t) => quote(t)).join(', ')})` });
      }
    }),
  /** Arguments as the transcript wrote them; sent to the model as a JSON string. */
  arguments: z
    .union([freeform(), word()], { error: typeError('a mapping or a JSON string') })
    .superRefine((args, rctx) => {
      if (typeof args === 'string' && !isJsonObject(args)) report(rctx, { message: `{label} is text that is not a JSON object: ${quote(args.length > 40 ? `${args.slice(0, 40)}…` : args)} (write a mapping, or the JSON the call sent)` });
    })
    .default(() => ({})),
  output: text(),
}).transform((call): ToolCallSpec => call);

/** A call's arguments as the API sends them: a JSON object. */
function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

function timestamp(): z.ZodString {
  return text().superRefine((at, rctx) => {
    // Date.parse reads "12345" as a year and rolls "2025-02-30" over to March 2.
    if (Number.isNaN(Date.parse(at)) || /^\s*\d+\s*$/.test(at)) {
      report(rctx, { message: `{label} is not a date and time: ${quote(at)} (use ISO 8601, e.g. 2025-03-02T10:32:00Z)` });
      return;
    }
    const problem = calendarProblem(at);
    if (problem) report(rctx, { message: `{label} ${quote(at)} is not a real date: ${problem}` });
  });
}

const ISO_DAY = /^\s*(\d{4})-(\d{2})-(\d{2})/;

/** What is impossible about an ISO 8601 date's day ("February 2025 has 28 days"); undefined for a real one or another format. */
function calendarProblem(at: string): string | undefined {
  const m = ISO_DAY.exec(at);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) return `${new Date(Date.UTC(year, month - 1, 1)).toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} ${year} has ${days} days`;
  return undefined;
}

/** The fields of a `user:` turn; a transcript's turn may hold `items:` instead. */
export const MESSAGE_FIELDS = {
  user: text(),
  assistant: text().optional(),
  tool_calls: list(toolCallSchema).optional(),
  at: timestamp().optional(),
  meta: freeform().optional(),
};

type MessageFields = { user: string; assistant?: string; tool_calls?: ToolCallSpec[]; at?: string; meta?: Record<string, unknown> };

export function toMessageTurn(t: MessageFields): MessageTurn {
  return dropUndefined({ kind: 'message', user: t.user, assistant: t.assistant, toolCalls: t.tool_calls ?? [], at: t.at, meta: t.meta });
}

export const messageTurnSchema = map(MESSAGE_FIELDS).transform(toMessageTurn);

/** A file without `id:` goes by its name: `datasets/router.yaml` is "router". */
export function defaultTranscriptId(file: string): string {
  return basename(file).replace(/\.ya?ml$/i, '');
}

/** Leaves out fields nobody wrote, so records and reports show only what the file holds. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------- facts

const factSchema = map({
  id: text({ nonEmpty: true }),
  text: phrase('"text" of {label-1}'),
  aliases: list(phrase('"aliases" of {label-2}')).default(() => []),
  /** 1-based turn where the fact is first stated. */
  turn: int().superRefine((turn, rctx) => {
    const problem = turnRangeProblem(turn, `{label-1} turn ${turn}`);
    if (problem) report(rctx, { message: problem });
  }),
  critical: bool().default(false),
  superseded_by: text({ nonEmpty: true }).optional(),
  meta: freeform().optional(),
})
  .superRefine((f, rctx) => {
    if (f.superseded_by === undefined) return;
    const path = ['superseded_by'];
    if (f.superseded_by === f.id) report(rctx, { path, message: `fact ${quote(f.id)} is superseded by itself` });
    else if (!conversationFacts.get().factTurns.has(f.superseded_by)) {
      report(rctx, { path, message: `fact ${quote(f.id)} is superseded_by ${quote(f.superseded_by)}, which is not a fact in this transcript` });
    }
  }, whenValid('id', 'superseded_by'))
  .transform(
    (f): Fact => dropUndefined({ id: f.id, text: f.text, aliases: f.aliases, turn: f.turn, critical: f.critical, supersededBy: f.superseded_by, meta: f.meta }),
  );

export const factsSchema = list(factSchema)
  .superRefine(...uniqueIds('facts', 'fact'))
  .superRefine((facts, rctx) => {
    // A chain that comes back to its start ("a" superseded by "b", "b" by "a") leaves no fact
    // current: both would stop counting as due, and retention would read perfect.
    const next = new Map(facts.map((f) => [f.id, f.supersededBy]));
    facts.forEach((f, i) => {
      // Superseded by itself is reported with the fact.
      if (f.supersededBy === f.id) return;
      const seen = new Set([f.id]);
      for (let at = f.supersededBy; at !== undefined; at = next.get(at)) {
        if (at === f.id) {
          report(rctx, { path: [i, 'superseded_by'], message: `fact ${quote(f.id)} is superseded in a circle (${[...seen, f.id].map((id) => quote(id)).join(' → ')}): one of them must be the current fact` });
          break;
        }
        if (seen.has(at)) break;
        seen.add(at);
      }
    });
  });
