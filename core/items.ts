// Conversions between transcript turns and Agents SDK input items, and the
// one place that knows how to read text out of an item.
import type { AgentInputItem, MessageTurn, Turn } from './types.js';

type AnyRecord = Record<string, unknown>;

function asRecord(value: unknown): AnyRecord | undefined {
  return typeof value === 'object' && value !== null ? (value as AnyRecord) : undefined;
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
  return at ? `[${at}] ${text}` : text;
}

/** Items of one message turn: user, tool call/result pairs in order, assistant. */
function messageTurnItems(turn: MessageTurn, turnNumber: number): AgentInputItem[] {
  const items: AgentInputItem[] = [userMessage(stampedText(turn.user, turn.at))];
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
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const item of items) {
    const id = callIdOf(item);
    if (!id) continue;
    if (itemType(item) === 'function_call') calls.add(id);
    if (itemType(item) === 'function_call_result') results.add(id);
  }
  return items.filter((item) => {
    const id = callIdOf(item);
    const type = itemType(item);
    if (!id) return true;
    if (type === 'function_call_result') return calls.has(id);
    if (type === 'function_call') return results.has(id);
    return true;
  });
}

/** Indices of items that start a turn (user messages). */
export function turnStarts(items: AgentInputItem[]): number[] {
  const starts: number[] = [];
  items.forEach((item, i) => {
    if (isUserMessage(item)) starts.push(i);
  });
  return starts;
}
