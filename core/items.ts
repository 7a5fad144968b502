// Conversions between transcript turns and Agents SDK input items, and the
// one place that knows how to read text out of an item.
import type { AgentInputItem, MessageTurn, ToolCall, Turn } from './types.js';

type AnyRecord = Record<string, unknown>;

function asRecord(value: unknown): AnyRecord | undefined {
  return typeof value === 'object' && value !== null ? (value as AnyRecord) : undefined;
}

/** `get_order({"id":"A-17"})`: a call as the model wrote it, in reports and token counts. */
export function callText(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  return `${call.name}(${call.arguments})`;
}

export function userMessage(text: string): AgentInputItem {
  return { type: 'message', role: 'user', content: text };
}

export function assistantMessage(text: string): AgentInputItem {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

export function systemMessage(text: string): AgentInputItem {
  return { type: 'message', role: 'system', content: text };
}

/**
 * A turn's timestamp is shown to the model as a `[at] ` prefix of the user
 * message, as chat products do; otherwise temporal questions that rely on
 * `at:` could never be answered from the context.
 */
export function stampedText(text: string, at: string | undefined): string {
  return at ? `${STAMP_OPEN}${at}${STAMP_CLOSE} ${text}` : text;
}

const STAMP_OPEN = '[';
const STAMP_CLOSE = ']';

/**
 * The header line an imported benchmark session starts with (`[Session 3: 8 May, 2023]`,
 * or `[Session 3]` when the session has no date): strategies see message text only, not
 * `at:`, so the date must be in the text. Importers write it with this function so that
 * `withoutScaffolding` recognises exactly what they write.
 */
export function sessionHeader(session: number, date?: string): string {
  return date === undefined || date.length === 0 ? `[Session ${session}]` : `[Session ${session}: ${date}]`;
}

/**
 * Canonical `D<session>:<line>` for a LoCoMo dialogue id written leniently
 * (`D1:3:5`, `(D1: 3)`, `d1:03`); undefined when it is not one. The importer
 * files turns under these ids and attribution looks evidence up by them.
 */
export function normalizeDiaId(raw: string): string | undefined {
  const m = /^D(\d+):(\d+)/i.exec(raw.replace(/[\s()[\]]/g, ''));
  return m ? `D${Number(m[1])}:${Number(m[2])}` : undefined;
}

/** The line an imported question starts with to give the date it is asked on (`[Current date: 2023/05/30 (Tue) 23:40]`). */
export function currentDateLine(date: string): string {
  return `[Current date: ${date}]`;
}

// What sessionHeader and currentDateLine write: the label, then a colon and a date with no bracket or line break in it.
const SESSION_HEADER = /\[Session \d+(?:: [^[\]\n]*)?\]/g;
const CURRENT_DATE = /\[Current date: [^[\]\n]*\]/g;
// What stampedText writes for an ISO 8601 `at:` (the form the docs ask for and the importers write):
// `[2023-05-08T13:56:00] `, with or without time, seconds, fraction or zone. Date.parse alone would
// not do: it reads "41877", "ticket 4471" and "INC-2024" as dates, and those are real content.
const STAMP = /\[\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?\] ?/g;

/**
 * `text` without the scaffolding memeval and its importers put into a conversation,
 * wherever it stands: timestamp prefixes as `stampedText` writes them for an
 * ISO 8601 `at:` (`[2023-05-08T13:56:00] `, `[2025-03-02T10:32:00Z] `,
 * `[2025-03-02] `; an `at:` written otherwise, e.g. "May 8, 2023", is not
 * recognised), session headers as `sessionHeader` writes them (`[Session 3: 8 May, 2023]`,
 * `[Session 3]`) and question date lines as `currentDateLine` writes them
 * (`[Current date: 2023/05/30 (Tue) 23:40]`). Grading reads answers through it: a
 * reader that copies a header answers nothing, even when the header holds the
 * number the question asks for. Nothing else changes, so the remaining text
 * grades exactly as before.
 */
export function withoutScaffolding(text: string): string {
  if (!text.includes(STAMP_OPEN)) return text;
  return text
    .replace(SESSION_HEADER, '')
    .replace(CURRENT_DATE, '')
    .replace(STAMP, '');
}

/**
 * The user text of a turn with its stamp, made once per turn: every strategy replays the
 * turn, and the same string each time is looked up in the token and fact memos without
 * being read again (a new string is hashed and compared whole). Checked against the turn,
 * in case it was changed in between.
 */
const stampedUser = new WeakMap<MessageTurn, { user: string; at: string | undefined; text: string }>();

function stampedUserText(turn: MessageTurn): string {
  const hit = stampedUser.get(turn);
  if (hit && hit.user === turn.user && hit.at === turn.at) return hit.text;
  const text = stampedText(turn.user, turn.at);
  stampedUser.set(turn, { user: turn.user, at: turn.at, text });
  return text;
}

/** Items of one message turn: user, tool call/result pairs in order, assistant. */
function messageTurnItems(turn: MessageTurn, turnNumber: number): AgentInputItem[] {
  const items: AgentInputItem[] = [userMessage(stampedUserText(turn))];
  turn.toolCalls.forEach((call, i) => {
    // Call ids must be unique within a conversation so results pair with their calls.
    const callId = `call_t${turnNumber}_${i + 1}`;
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    items.push({ type: 'function_call', callId, name: call.name, arguments: args });
    items.push({ type: 'function_call_result', callId, name: call.name, status: 'completed', output: call.output });
  });
  if (turn.assistant !== undefined) items.push(assistantMessage(turn.assistant));
  return items;
}

/** The SDK items a transcript turn replays as (1-based `turnNumber`). */
export function turnItems(turn: Turn, turnNumber: number): AgentInputItem[] {
  if (turn.kind === 'items') return turn.items.map((item) => structuredClone(item));
  return messageTurnItems(turn, turnNumber);
}

export function itemRole(item: AgentInputItem): string | undefined {
  const role = asRecord(item)?.role;
  return typeof role === 'string' ? role : undefined;
}

export function itemType(item: AgentInputItem): string {
  const rec = asRecord(item) ?? {};
  if (typeof rec.type === 'string') return rec.type;
  return typeof rec.role === 'string' ? 'message' : 'unknown';
}

/** The item types a model request carries (harness/models/openai.ts): messages, tool calls and their results, a server's compaction. */
const SENT_TYPES = new Set(['message', 'function_call', 'function_call_result', 'compaction']);

/** Whether a request carries the item: reasoning (a model's private state) and other item types never reach a model. */
export function isSent(item: AgentInputItem): boolean {
  return SENT_TYPES.has(itemType(item));
}

/**
 * The items of a view a model is sent. What is measured (tokens, facts present,
 * answerable) and what a probe is asked with are these: measured on items the
 * model never sees, a miss would be put down to the reader.
 */
export function sentItems(items: AgentInputItem[]): AgentInputItem[] {
  return items.every(isSent) ? items : items.filter(isSent);
}

/** A user message starts a turn (the cookbook's definition). */
export function isUserMessage(item: AgentInputItem): boolean {
  return itemRole(item) === 'user' && itemType(item) === 'message';
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    const rec = asRecord(part);
    if (rec && typeof rec.text === 'string') texts.push(rec.text);
    else if (rec && typeof rec.refusal === 'string') texts.push(rec.refusal);
  }
  return texts.join('\n');
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const rec = asRecord(output);
  if (rec && typeof rec.text === 'string') return rec.text;
  return partsText(output);
}

/** Human-readable text of an item: what a reader (or a fact check) can see in it. */
export function itemText(item: AgentInputItem): string {
  const rec = asRecord(item) ?? {};
  switch (itemType(item)) {
    case 'message':
      return partsText(rec.content);
    case 'function_call':
      return `${String(rec.name ?? '')}(${String(rec.arguments ?? '')})`;
    case 'function_call_result':
      return outputText(rec.output);
    case 'reasoning':
      return partsText(rec.content);
    default:
      return partsText(rec.content);
  }
}

/** `ROLE: text` label used in summarizer inputs and offline contexts. */
export function itemLabel(item: AgentInputItem): string {
  const type = itemType(item);
  if (type === 'function_call') return 'TOOL_CALL';
  if (type === 'function_call_result') return 'TOOL';
  if (type === 'reasoning') return 'REASONING';
  return (itemRole(item) ?? 'assistant').toUpperCase();
}

export function callIdOf(item: AgentInputItem): string | undefined {
  const callId = asRecord(item)?.callId;
  return typeof callId === 'string' ? callId : undefined;
}

/**
 * Drops tool results whose call is not in `items`, and calls whose result is missing.
 * The SDK forwards such orphans and real APIs reject them.
 */
export function dropOrphanToolItems(items: AgentInputItem[]): AgentInputItem[] {
  const { calls, results } = callIds(items);
  return items.filter((item) => {
    const id = callIdOf(item);
    const type = itemType(item);
    if (!id) return true;
    if (type === 'function_call_result') return calls.has(id);
    if (type === 'function_call') return results.has(id);
    return true;
  });
}

/** The call ids of the function calls and of the results in `items`. */
function callIds(items: readonly AgentInputItem[]): { calls: Set<string>; results: Set<string> } {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const item of items) {
    const id = callIdOf(item);
    if (!id) continue;
    if (itemType(item) === 'function_call') calls.add(id);
    if (itemType(item) === 'function_call_result') results.add(id);
  }
  return { calls, results };
}

/** Whether a function call of `items` has no result among them yet. */
export function awaitsResult(items: readonly AgentInputItem[]): boolean {
  const { calls, results } = callIds(items);
  for (const id of calls) if (!results.has(id)) return true;
  return false;
}

/** Indices of items that start a turn (user messages). */
export function turnStarts(items: AgentInputItem[]): number[] {
  const starts: number[] = [];
  items.forEach((item, i) => {
    if (isUserMessage(item)) starts.push(i);
  });
  return starts;
}
