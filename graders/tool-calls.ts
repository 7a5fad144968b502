// Tool-call grading: the rules the field uses (BFCL's AST checker, DeepEval's
// tool correctness), stated in docs/transcript-format.md. A `kind: tool` probe
// expects a call (right tool, then each expected argument by its rule) or no
// call (answer from memory). Two continuity counters apply to every probe: a
// call that repeats one already made in the conversation, and an answer that
// asks the user for a value the user already gave.
import { isRecord } from '../core/record.js';
import { itemText } from '../core/items.js';
import { containsPhrase } from '../core/text.js';
import type { ArgumentRule, ExpectedCall, Fact, Probe, ToolCall, ToolGrade, Turn } from '../core/types.js';

/** A call's arguments as a value: the JSON object it wrote, or undefined when it is not one. */
export function argumentsOf(call: { arguments: string | Record<string, unknown> }): Record<string, unknown> | undefined {
  if (typeof call.arguments !== 'string') return call.arguments;
  if (call.arguments.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A plain decimal number as an argument may carry it: `20`, `20.00`, `-3.5`, `1,250` (thousands commas). */
const PLAIN_NUMBER = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;

/**
 * A scalar argument's value as the `normalised` and `one_of` rules compare it: case and Unicode
 * form folded, runs of spaces one space and none beside punctuation (`Leopoldstrasse 244 ,Munich`
 * = `leopoldstrasse 244,munich`) or between digits, which only group them (`SK 604 118 273`, as
 * the user said it, = `SK 604118273`, as a booking system wrote it back), a plain number as its
 * value (`20.00` = `20`). Punctuation itself
 * is kept: arguments are identifiers more often than prose, and `app-eu-17`, `app-eu1-7` and
 * `appeu17` name different things. Undefined for a non-scalar or a value with no letter or digit,
 * which matches nothing.
 */
export function normaliseArgument(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = String(value).normalize('NFKC').trim().replace(/\s+/g, ' ').replace(/(?<=\p{N}) (?=\p{N})/gu, '');
  if (PLAIN_NUMBER.test(text)) return String(Number(text.replace(/,/g, '')));
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  return text.toLowerCase().replace(/ ?([^\p{L}\p{N} ]) ?/gu, '$1');
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Whether `actual` (undefined: the call left the argument out) satisfies `rule`. */
export function matchArgument(rule: ArgumentRule, actual: unknown): boolean {
  if (actual === undefined || actual === null) return false;
  switch (rule.rule) {
    case 'any':
      return true;
    case 'exact':
      return deepEqual(rule.value, actual);
    case 'normalised': {
      const got = normaliseArgument(actual);
      return got !== undefined && got === normaliseArgument(rule.value);
    }
    case 'one-of': {
      const got = normaliseArgument(actual);
      return got !== undefined && rule.values.some((v) => normaliseArgument(v) === got);
    }
  }
}

function shown(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

function describeExpected(rule: ArgumentRule): string {
  if (rule.rule === 'any') return 'any value';
  if (rule.rule === 'one-of') return `one of ${rule.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return JSON.stringify(rule.value);
}

/** The call graded: the first call to the expected tool, else the first call. */
function gradedCall(expected: ExpectedCall, calls: readonly ToolCall[]): ToolCall | undefined {
  return calls.find((c) => c.name === expected.name) ?? calls[0];
}

/**
 * Grades the calls an answer made against what a tool probe expects. For an
 * expected call: right tool; argument accuracy (matched / expected, 0 for a
 * wrong tool or arguments that are not a JSON object); exact call (right tool,
 * every argument matched); extra calls (every call but the graded one). For
 * no call expected: right when no call was made; every call is extra.
 */
export function gradeToolCalls(expected: ExpectedCall | null, calls: readonly ToolCall[]): ToolGrade {
  if (expected === null) {
    const first = calls[0];
    const mismatches = first ? [`called ${first.name} where no call was expected`] : [];
    return { expected: null, called: first?.name ?? null, rightTool: !first, argsMatched: 0, argsExpected: 0, exactCall: !first, extraCalls: calls.length, mismatches };
  }
  const rules = Object.entries(expected.arguments);
  const call = gradedCall(expected, calls);
  const base = { expected: expected.name, called: call?.name ?? null, argsExpected: rules.length, extraCalls: call ? calls.length - 1 : 0 };
  if (!call) return { ...base, rightTool: false, argsMatched: 0, exactCall: false, mismatches: [`no call; expected ${expected.name}`] };
  if (call.name !== expected.name) return { ...base, rightTool: false, argsMatched: 0, exactCall: false, mismatches: [`called ${call.name}; expected ${expected.name}`] };
  const args = argumentsOf(call);
  if (!args) return { ...base, rightTool: true, argsMatched: 0, exactCall: false, mismatches: [`arguments are not a JSON object: ${call.arguments.slice(0, 80)}`] };
  const mismatches = rules.filter(([name, rule]) => !matchArgument(rule, args[name])).map(([name, rule]) => `${name}: expected ${describeExpected(rule)}, got ${shown(args[name])}`);
  const argsMatched = rules.length - mismatches.length;
  return { ...base, rightTool: true, argsMatched, exactCall: mismatches.length === 0, mismatches };
}

/** One line for the judge column: what was right and what was not. */
export function toolGradeReason(grade: ToolGrade): string {
  if (grade.expected === null) return grade.rightTool ? 'no call, as expected' : grade.mismatches[0];
  if (!grade.rightTool) return grade.mismatches[0];
  const args = `${grade.argsMatched}/${grade.argsExpected} arguments`;
  return grade.exactCall ? `right tool, ${args}` : `right tool, ${args}; ${grade.mismatches.join('; ')}`;
}

/** A call's identity for spotting repeats: the tool and its arguments, each scalar normalised. */
function callKey(call: { name: string; arguments: string | Record<string, unknown> }): string {
  const args = argumentsOf(call);
  if (!args) return `${call.name}\u0000${typeof call.arguments === 'string' ? call.arguments : ''}`;
  const entries = Object.keys(args)
    .sort()
    .map((k) => [k, normaliseArgument(args[k]) ?? JSON.stringify(args[k])]);
  return `${call.name}\u0000${JSON.stringify(entries)}`;
}

/**
 * How many of `calls` repeat a call of `earlier` (the conversation's calls up to
 * the probe): the same tool with the same arguments, each scalar normalised.
 * `expected` is skipped: a call the probe asks for is not a repeat.
 */
export function repeatedCalls(
  calls: readonly ToolCall[],
  earlier: readonly { name: string; arguments: string | Record<string, unknown> }[],
  expected?: ToolCall,
): number {
  if (calls.length === 0 || earlier.length === 0) return 0;
  const made = new Set(earlier.map(callKey));
  return calls.filter((c) => c !== expected && made.has(callKey(c))).length;
}

/** The graded call of a tool probe that expects one and got the right tool (never counted as a repeat). */
export function expectedCallMade(expected: ExpectedCall | null | undefined, calls: readonly ToolCall[]): ToolCall | undefined {
  return expected ? calls.find((c) => c.name === expected.name) : undefined;
}

/**
 * Phrases that ask the user for information: a request ("could you provide",
 * "please share", "can you tell me", "what is your") or a sentence ending in a
 * question mark that addresses the user ("you", "your").
 */
const REQUEST = /\b(?:(?:could|can|would|will) you (?:please )?(?:provide|share|send|give|tell|confirm|remind|let me know|specify|paste|check)|please (?:provide|share|send|give|tell|confirm|remind|specify|paste|let me know)|(?:what|which) (?:is|was|are|were) (?:your|the) |do you (?:know|have|remember)|remind me (?:of|what|which)|i(?:'ll| will| would)? need (?:your|the|to know))/i;

/** Whether the answer asks the user for information instead of giving it. */
export function asksUser(answer: string): boolean {
  if (REQUEST.test(answer)) return true;
  return answer.split(/(?<=[.!?])\s+/).some((sentence) => sentence.trim().endsWith('?') && /\byou(?:r)?\b/i.test(sentence));
}

/** The calls a transcript made up to and including turn `afterTurn` (tool_calls of message turns, function_call items of raw turns). */
export function callsUpTo(turns: readonly Turn[], afterTurn: number): { name: string; arguments: string | Record<string, unknown> }[] {
  return turns.slice(0, afterTurn).flatMap((turn) => {
    if (turn.kind === 'message') return turn.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }));
    return turn.items.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: item.arguments }] : []));
  });
}

/** The text of the user's messages up to and including turn `afterTurn`. */
function userTextUpTo(turns: readonly Turn[], afterTurn: number): string[] {
  return turns.slice(0, afterTurn).flatMap((turn) => {
    if (turn.kind === 'message') return [turn.user];
    return turn.items.flatMap((item) => ('role' in item && item.role === 'user' ? [itemText(item)] : []));
  });
}

/** The values a probe needs: its facts' phrasings and, for an expected call, the argument values it checks. */
function neededValues(probe: Probe, facts: readonly Fact[]): string[][] {
  const byId = new Map(facts.map((f) => [f.id, f]));
  const fromFacts = probe.facts.flatMap((id) => {
    const fact = byId.get(id);
    return fact ? [[fact.text, ...fact.aliases]] : [];
  });
  const fromCall = Object.values(probe.expectCall?.arguments ?? {}).flatMap((rule): string[][] => {
    if (rule.rule === 'normalised') return [[rule.value]];
    if (rule.rule === 'one-of') return [rule.values];
    if (rule.rule === 'exact' && (typeof rule.value === 'string' || typeof rule.value === 'number')) return [[String(rule.value)]];
    return [];
  });
  return [...fromFacts, ...fromCall];
}

/** Whether the user stated, up to the probe, a value the probe needs (a re-ask of it is a continuity failure). */
export function userGaveNeededValue(probe: Probe, transcript: { turns: readonly Turn[]; facts: readonly Fact[] }): boolean {
  const needed = neededValues(probe, transcript.facts);
  if (needed.length === 0) return false;
  const said = userTextUpTo(transcript.turns, probe.afterTurn);
  return needed.some((phrasings) => phrasings.some((p) => said.some((text) => containsPhrase(text, p))));
}
