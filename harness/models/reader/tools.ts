// The offline model's rule for requests that carry tools: choose the tool whose name and
// description best match the request, fill its arguments from identifiers in the request and
// its context, and call it; or answer from the context with the reader when the question asks
// what something was and the context holds it. The rule is stated in the README ("Tool probes").
import { callIdOf, itemText, itemType } from '../../../core/items.js';
import { isRecord } from '../../../core/record.js';
import { normalizeText, stem } from '../../../core/text.js';
import type { AgentInputItem, ToolDefinition } from '../../../core/types.js';
import { type ReaderContext, type Unit, parseJson } from './context.js';
import { type EarlierCall, type Parameter, fillArguments, parametersOf, questionSource, fieldsOf, valueKey } from './arguments.js';
import { findSpans } from './spans.js';
import { contentStems, nameWords, stemsOf } from './words.js';

/** How much a question word counts when it is a word of a tool's name, its description, or one of its parameters. */
const NAME_WEIGHT = 2;
const DESCRIPTION_WEIGHT = 1;
const PARAMETER_WEIGHT = 0.5;
/** A word matched through its family (SYNONYMS) counts this much of a word matched as itself. */
const FAMILY_WEIGHT = 0.5;
/**
 * The least score a tool must reach to be chosen: one word of its name, or two of its description
 * (one of a parameter's adds half). A request that shares one description word with a tool is
 * not a request for it ("check the *order* of the slides" is no order lookup).
 */
export const MIN_TOOL_SCORE = 1.5;

// Verbs people use for the same action; a tool's name uses one of them ("pull up" for `lookup_device`).
const FAMILIES: string[][] = [
  ['get', 'fetch', 'look', 'lookup', 'pull', 'retrieve', 'show', 'find', 'check', 'view', 'read', 'see', 'display', 'open', 'search', 'query', 'list', 'describe', 'inspect', 'status'],
  ['restart', 'reboot', 'bounce', 'cycle', 'reload', 'reset', 'kick'],
  ['run', 'execute', 'exec', 'launch', 'start', 'trigger', 'kick'],
  ['stop', 'halt', 'kill', 'shut', 'shutdown', 'pause', 'suspend'],
  ['create', 'open', 'file', 'add', 'new', 'raise', 'log', 'submit', 'make', 'book', 'schedule'],
  ['delete', 'remove', 'drop', 'cancel', 'revoke', 'close', 'void'],
  ['update', 'change', 'set', 'modify', 'edit', 'adjust', 'move', 'reassign', 'assign', 'fix', 'correct', 'amend', 'switch', 'toggle', 'turn', 'enable', 'disable', 'flip'],
  ['send', 'email', 'notify', 'message', 'mail', 'text', 'ping', 'alert'],
  ['refund', 'reimburse', 'credit', 'return'],
  ['deploy', 'release', 'ship', 'rollout', 'roll'],
  ['rollback', 'revert', 'undo', 'downgrade'],
  ['scale', 'resize', 'grow', 'shrink'],
  ['log', 'logs', 'journal', 'trace'],
  ['ticket', 'issue', 'incident', 'case'],
  ['order', 'purchase'],
  ['customer', 'client', 'account', 'user'],
];
const FAMILY_OF = new Map<string, Set<string>>();
for (const family of FAMILIES) {
  const stems = family.map(stem);
  for (const s of stems) FAMILY_OF.set(s, new Set([...(FAMILY_OF.get(s) ?? []), ...stems]));
}

type Field = 'name' | 'description' | 'parameters';

interface ToolTerms {
  tool: ToolDefinition;
  params: Parameter[];
  /** The stems of the tool's name, description and parameters, with the weight each counts. */
  fields: [Field, Set<string>, number][];
}

function termsOf(tool: ToolDefinition): ToolTerms {
  const params = parametersOf(tool.parameters);
  const properties = isRecord(tool.parameters.properties) ? tool.parameters.properties : {};
  const paramText = Object.entries(properties)
    .map(([name, spec]) => `${nameWords(name)} ${isRecord(spec) && typeof spec.description === 'string' ? spec.description : ''}`)
    .join(' ');
  return {
    tool,
    params,
    fields: [
      ['name', contentStems(nameWords(tool.name)), NAME_WEIGHT],
      ['description', contentStems(tool.description ?? ''), DESCRIPTION_WEIGHT],
      ['parameters', contentStems(paramText), PARAMETER_WEIGHT],
    ],
  };
}

/**
 * The question's words that can name a tool: content stems without the values it states (the
 * stems of "ORD-58213" or "web-03.prod" name an order or a host, not a tool).
 */
function requestStems(question: string): Set<string> {
  const out = contentStems(question);
  for (const span of findSpans(question)) {
    if (span.type === 'name' || span.type === 'number' || span.type === 'quantity') continue;
    for (const s of contentStems(span.text)) out.delete(s);
  }
  for (const s of out) if (/\d/.test(s)) out.delete(s);
  return out;
}

export interface ToolChoice {
  terms: ToolTerms;
  /** The sum of the question words' weights in the tool. */
  score: number;
  /** The same, each word weighted by its rarity among the tools: what the tools are ranked by. */
  weighted: number;
  /** The question's words found in the tool's name (a tie goes to the tool with more). */
  nameHits: number;
}

/** How far a word counts toward a tool, with the weight of the field it is found in, or through its family at FAMILY_WEIGHT of that. */
function wordScore(word: string, t: ToolTerms): { score: number; field?: Field } {
  for (const [field, words, weight] of t.fields) if (words.has(word)) return { score: weight, field };
  const family = FAMILY_OF.get(word);
  if (!family) return { score: 0 };
  for (const [field, words, weight] of t.fields) for (const f of family) if (words.has(f)) return { score: weight * FAMILY_WEIGHT, field };
  return { score: 0 };
}

/**
 * The tool the question asks for. Each question word scores its weight in the tool (name 2,
 * description 1, parameters 0.5; through its family half that); a tool whose words reach
 * MIN_TOOL_SCORE, not from its parameters alone, may be chosen. Among those, the best score with
 * each word weighted by its rarity among the tools wins (a word every tool has tells them apart
 * least); a tie goes to the higher plain score, then more words of the name, then the tool
 * declared first.
 */
export function chooseTool(question: string, tools: readonly ToolDefinition[]): ToolChoice | undefined {
  const words = [...requestStems(question)];
  const all = tools.map(termsOf);
  // Each word is scored once per tool; its rarity is the share of tools it scores in.
  const hits = all.map((terms) => words.map((word) => wordScore(word, terms)));
  const rarity = words.map((_, w) => {
    const df = hits.filter((h) => h[w].score > 0).length;
    return df === 0 ? 0 : Math.log(1 + all.length / df) / Math.log(1 + all.length);
  });
  let best: ToolChoice | undefined;
  for (const [t, terms] of all.entries()) {
    const choice: ToolChoice = { terms, score: 0, weighted: 0, nameHits: 0 };
    let named = false;
    for (const [w, hit] of hits[t].entries()) {
      if (hit.score === 0) continue;
      choice.score += hit.score;
      choice.weighted += hit.score * rarity[w];
      if (hit.field === 'name' && hit.score === NAME_WEIGHT) choice.nameHits++;
      if (hit.field !== 'parameters') named = true;
    }
    // Parameters alone do not choose a tool: "my order number" names an argument, not an action.
    if (!named || choice.score < MIN_TOOL_SCORE - EPSILON) continue;
    if (!best || better(choice, best)) best = choice;
  }
  return best;
}

const EPSILON = 1e-9;

function better(a: ToolChoice, b: ToolChoice): boolean {
  if (Math.abs(a.weighted - b.weighted) > EPSILON) return a.weighted > b.weighted;
  if (Math.abs(a.score - b.score) > EPSILON) return a.score > b.score;
  return a.nameHits > b.nameHits;
}

// ---------------------------------------------------------------------------
// The form of the question

// Verbs that ask to be told, not to act: "can you tell me which host…" is a question about the context.
const TELLING = /^(?:tell|remind|recall|remember|say|explain|confirm|repeat|describe|summari[sz]e|clarify)$/;
const ASKING_START = /^(?:what|what's|whats|which|who|who's|whom|whose|when|where|where's|why|how|is|are|was|were|did|do|does|has|have|had|am|should|shall|may|might|must|i|i'm|i've|my|we|our|it|it's|its|the|this|that|there|these|those|any|thanks|thank|ok|okay|great|yes|no|sure|hi|hello|hey|sorry|also|and|but|so|just|btw|for|in|on|at|after|before|since|during|from|about|regarding|as|if|once|until|while|by)$/;

/**
 * Where the verb of a request to act ends in the question, or undefined when it asks what
 * something is. A request: an imperative ("Restart nginx on web-03", "Please pull up order
 * 4471"), "can/could/would you <verb>", "I need you to / go ahead and / let's <verb>", or
 * "I need/want/would like <something>" — unless the verb asks to be told ("can you remind me").
 */
export function requestVerb(question: string): { verb: string; end: number } | undefined {
  const text = question.replace(/[\u2018\u2019]/g, "'");
  const first = sentenceVerb(text);
  if (first && FAMILY_OF.has(stem(first.verb))) return first;
  // A request often follows what prompted it ("My screen timed out. Pull her up again."): a later
  // sentence that starts with a known action verb is the request.
  for (const m of text.matchAll(/[.!?]\s+(?=\S)/g)) {
    const start = (m.index ?? 0) + m[0].length;
    const later = sentenceVerb(text.slice(start));
    if (later && FAMILY_OF.has(stem(later.verb))) return { verb: later.verb, end: start + later.end };
  }
  return first;
}

/** The request verb at the start of one sentence (see requestVerb). */
function sentenceVerb(text: string): { verb: string; end: number } | undefined {
  const lead = /^\s*(?:(?:ok(?:ay)?|great|thanks|thank you|cool|right|alright|now|so|and|also|then)\b[,!.]?\s*)*(?:please\s+)?/i.exec(text)?.[0] ?? '';
  const rest = text.slice(lead.length);
  const modal = /^(?:can|could|would|will)\s+you\s+(?:please\s+|just\s+|quickly\s+)?([a-z]+)/i.exec(rest);
  const asked = /^(?:i\s+need\s+you\s+to|i'd\s+like\s+you\s+to|i\s+want\s+you\s+to|go\s+ahead\s+and|let's|lets|time\s+to|you\s+(?:can|should|may)|please)\s+([a-z]+)/i.exec(rest);
  const wanted = /^(?:i|we)\s+(?:need|want|would\s+like|'d\s+like)\s+(?:to\s+(?:see|get|have|know)\s+|to\s+)?([a-z]+)/i.exec(rest);
  const m = modal ?? asked ?? wanted;
  if (m) {
    const verb = m[1].toLowerCase();
    if (TELLING.test(verb)) return undefined;
    return { verb, end: lead.length + m[0].length };
  }
  const first = /^([a-z]+(?:'[a-z]+)?)/i.exec(rest);
  if (!first) return undefined;
  const verb = first[1].toLowerCase();
  if (ASKING_START.test(verb) || TELLING.test(verb)) return undefined;
  // An imperative names an action; a statement or a question ending in "?" after a noun does not start with a verb.
  return { verb, end: lead.length + first[0].length };
}

// The request asks for the work to be done again, not for what it found: "once more", "re-run", "refresh".
const AGAIN = /\b(?:again|once more|one more time|re-?(?:run|check|fetch|query|pull|try|load|start|send|open)\w*|refresh\w*|fresh|up[- ]to[- ]date|latest|another (?:look|check|run))\b/i;
// A question about the state of things now, which the conversation can be behind on.
const LIVE = /\b(?:now|right now|currently|current|at the moment|live|still|as of today|these days)\b/i;

// ---------------------------------------------------------------------------
// Calls already in the context

/** A placeholder that stands for a result a strategy dropped ("[result of lookup(…) removed]"). */
const PLACEHOLDER = /^\s*\[[^\]]*\b(?:removed|omitted|masked|elided|cleared|truncated|hidden|dropped)\b[^\]]*\]\s*$/i;

interface ContextCalls {
  /** Each call by the index of its item. */
  byItem: Map<number, EarlierCall>;
  /** Calls whose result is in the context, readable (not a placeholder), with the index of the result's item. */
  answered: { call: EarlierCall; item: number }[];
  /** Calls whose result a strategy replaced with a placeholder: made, then lost. */
  lost: { call: EarlierCall; item: number }[];
}

/** A call's arguments as an object: parsed from the JSON text a model writes (empty: none). */
function argumentsOf(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'string') return isRecord(raw) ? raw : undefined;
  if (raw.trim() === '') return {};
  const parsed = parseJson(raw);
  return isRecord(parsed) ? parsed : undefined;
}

/** The calls of a context and which of them have a readable result, in one pass. */
function contextCalls(items: readonly AgentInputItem[]): ContextCalls {
  const byItem = new Map<number, EarlierCall>();
  const byId = new Map<string, EarlierCall>();
  const answered: { call: EarlierCall; item: number }[] = [];
  const lost: { call: EarlierCall; item: number }[] = [];
  items.forEach((item, i) => {
    const type = itemType(item);
    if (type === 'function_call') {
      const rec = item as Record<string, unknown>;
      const args = argumentsOf(rec.arguments);
      if (typeof rec.name !== 'string' || !args) return;
      const call = { name: rec.name, args };
      byItem.set(i, call);
      const id = callIdOf(item);
      if (id) byId.set(id, call);
    } else if (type === 'function_call_result') {
      const id = callIdOf(item);
      const call = id ? byId.get(id) : undefined;
      const text = itemText(item);
      if (!call) return;
      if (text.trim().length > 0 && !PLACEHOLDER.test(text)) answered.push({ call, item: i });
      else lost.push({ call, item: i });
    }
  });
  return { byItem, answered, lost };
}

/** How deep into a result's JSON its fields are read: a record, its lists, their records. */
const FIELD_DEPTH = 3;

function collectFields(value: unknown, depth: number, out: Map<string, string[]>): void {
  if (depth > FIELD_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) collectFields(v, depth + 1, out);
    return;
  }
  if (!isRecord(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out.set(k, [...(out.get(k) ?? []), v]);
    else collectFields(v, depth + 1, out);
  }
}

/** The string fields of the readable JSON results in the context, by key. */
function resultFields(items: readonly AgentInputItem[], calls: ContextCalls): Map<string, string[]> {
  const out = new Map<string, string[]>();
  // A result that is not JSON is read as text: it shows no shapes.
  for (const { item } of calls.answered) collectFields(parseJson(itemText(items[item])), 0, out);
  return out;
}

/**
 * The item of the newest result of an answered call of the same tool whose arguments include
 * every argument given here (values compared normalised), or undefined.
 */
function answeredAt(name: string, args: Record<string, unknown>, results: ContextCalls['answered']): number | undefined {
  const same = ({ call: c }: { call: EarlierCall }) => c.name === name && Object.entries(args).every(([k, v]) => Object.hasOwn(c.args, k) && valueKey(c.args[k]) === valueKey(v));
  return results.findLast(same)?.item;
}

/** The held result sharing the most words with the question, the newest on a tie. */
function closestResult(question: string, held: ContextCalls['answered'], items: readonly AgentInputItem[]): number {
  const asked = contentStems(question);
  let best = { item: held[held.length - 1].item, shared: -1 };
  for (let i = held.length - 1; i >= 0; i--) {
    const stems = stemsOf(itemText(items[held[i].item]));
    const shared = [...asked].filter((w) => stems.has(w)).length;
    if (shared > best.shared) best = { item: held[i].item, shared };
  }
  return best.item;
}

/** The statements of one item of the context (a result's records), oldest first. */
function unitsOf(ctx: ReaderContext, item: number): Unit[] {
  return ctx.units.filter((u) => u.item === item);
}

/** The context narrowed to one result: what the reader reads first for a question about it. */
export function resultContext(ctx: ReaderContext, item: number): ReaderContext {
  return { ...ctx, units: unitsOf(ctx, item) };
}

/**
 * The value a result files under a key the question names whole ("Which *carrier* delivered
 * it?" → `carrier: DHL`), when the question does not already state it; the first such field
 * of the newest record. Undefined when no key is named.
 */
export function fieldAnswer(question: string, ctx: ReaderContext, item: number): string | undefined {
  const asked = contentStems(question);
  const said = normalizeText(question);
  for (const unit of unitsOf(ctx, item).reverse()) {
    for (const { key, value } of fieldsOf(unit.text)) {
      const keyStems = [...stemsOf(key)];
      if (keyStems.length === 0 || !keyStems.every((k) => asked.has(k))) continue;
      const v = value.trim();
      if (v.length > 0 && !said.includes(normalizeText(v))) return v;
    }
  }
  return undefined;
}

/** At most this many words of a result are given back when a request is answered from it. */
const RESULT_WORDS = 60;

/** A result already in the context, as the reader reads it (records of JSON or a table, else its sentences). */
export function resultText(ctx: ReaderContext, item: number): string {
  const text = unitsOf(ctx, item).map((u) => u.text).join('; ');
  const words = text.split(/\s+/);
  return words.length > RESULT_WORDS ? `${words.slice(0, RESULT_WORDS).join(' ')} …` : text;
}

// ---------------------------------------------------------------------------
// The decision

export interface ToolCallPlan {
  name: string;
  /** The arguments as a JSON object text, in the order the schema declares them. */
  arguments: string;
}

/** What the offline model does with a request that carries tools. */
export type ToolDecision =
  | { action: 'call'; call: ToolCallPlan }
  /** Answer with the reader (no tool fits, or the context already holds the result). */
  | { action: 'answer' }
  /** A request whose call was already answered in the context: the reply is that result (`resultText`). */
  | { action: 'recall'; item: number }
  /** A question about a result in the context: the reader answers from that result, else from the whole context. */
  | { action: 'answer-from'; item: number }
  /** Answer with the reader; if it does not know, make this call. */
  | { action: 'answer-or-call'; call: ToolCallPlan }
  /** A request for a tool whose required arguments the conversation never gave. */
  | { action: 'missing'; tool: string; missing: string[] };

/**
 * The rule (README, "Tool probes"): a request to act that a tool matches is a call, unless the
 * very same call already has its result in the context and the request does not ask for it
 * again; a question about what something is or was is answered from the context, and becomes
 * a call only when the reader does not know (or it asks for the state now and no such call was
 * answered). A call needs every required argument; a request missing one says which.
 */
export function decideTool(question: string, ctx: ReaderContext, items: readonly AgentInputItem[], tools: readonly ToolDefinition[]): ToolDecision {
  const choice = chooseTool(question, tools);
  if (!choice) return { action: 'answer' };
  const verb = requestVerb(question);
  const calls = contextCalls(items);
  const { terms } = choice;
  const filled = fillArguments(terms.params, {
    question: questionSource(question, ctx.today),
    units: ctx.units,
    calls: calls.byItem,
    tool: terms.tool.name,
    verbEnd: verb?.end,
    resultFields: resultFields(items, calls),
  });
  if (filled.missing.length > 0) return verb ? { action: 'missing', tool: terms.tool.name, missing: filled.missing } : { action: 'answer' };
  const call = { name: terms.tool.name, arguments: JSON.stringify(filled.args) };
  const known = answeredAt(call.name, filled.args, calls.answered);
  if (verb) return known !== undefined && !AGAIN.test(question) ? { action: 'recall', item: known } : { action: 'call', call };
  if (known !== undefined) return { action: 'answer-from', item: known };
  // The result was fetched and then dropped from the context: what it said is no longer known.
  const lost = answeredAt(call.name, filled.args, calls.lost) !== undefined;
  // A question, not a request, about a tool whose results the context holds asks what they said:
  // arguments read from its words ("the *July* leave") are no new request.
  const held = calls.answered.filter((a) => a.call.name === call.name);
  const live = LIVE.test(question);
  if (!lost && held.length > 0 && !live) return { action: 'answer-from', item: closestResult(question, held, items) };
  return lost || live ? { action: 'call', call } : { action: 'answer-or-call', call };
}

/** The reply to a request for a tool whose required arguments were never given: what is missing, asked of no one. */
export function missingReply(tool: string, missing: string[]): string {
  const names = missing.map((m) => nameWords(m)).join(' and ');
  return `I can't call ${tool} yet: the ${names} ${missing.length > 1 ? 'were' : 'was'} not given in our conversation.`;
}
