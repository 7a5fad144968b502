// The one abstraction every strategy shares. A strategy is an Agents SDK
// `Session`: it stores the full history and decides, in `view()`, what the
// model sees. The same object works in `run(agent, input, { session })`.
import { randomUUID } from 'node:crypto';
import type { AgentInputItem, Session } from '@openai/agents';
import type { Usage } from '../core/types.js';

/** What a summarizer returns for one prefix of the conversation. */
export interface SummaryOutput {
  /** The synthetic user line that precedes the summary (keeps the dialogue natural). */
  userShadow: string;
  summary: string;
  /** Exact request (system prompt, user content) the summarizer built. */
  request: { system: string; user: string };
  usage: Usage;
  durationMs: number;
  /** USD of the call, when the strategy prices it (server compaction); summarizers leave it out. */
  cost?: number;
  promptPath?: string;
  promptHash?: string;
}

/** Compresses a prefix of the conversation into text. */
export interface Summarizer {
  /** Label for reports, e.g. `offline-extractive` or `openai:gpt-4.1-mini`. */
  readonly label: string;
  summarize(items: AgentInputItem[]): Promise<SummaryOutput>;
}

/** A summarisation a strategy performed, with the items it replaced. */
export interface SummaryEvent {
  /** Index (0-based) into the full history of the first and last item replaced. */
  firstItem: number;
  lastItem: number;
  output: SummaryOutput;
  error?: string;
  /** The server compacted the items into one only it can read: no text stands for them, so nothing is graded. */
  opaque?: true;
}

/** The event for a summariser call that failed over items 0..lastItem; the view keeps those items. */
export function failedSummary(lastItem: number, error: unknown, durationMs: number, userShadow: string): SummaryEvent {
  return {
    firstItem: 0,
    lastItem,
    output: { userShadow, summary: '', request: { system: '', user: '' }, usage: { inputTokens: 0, outputTokens: 0 }, durationMs },
    error: error instanceof Error ? error.message : String(error),
  };
}

/**
 * The start of the history a server compacted into items only it can read
 * (`openai-compaction`): their tokens are the API's count, and the facts of the
 * compacted span can be neither found nor ruled out in the view.
 */
export interface OpaqueSpan {
  /** Full-history index of the last item compacted (the span runs from item 0). */
  lastItem: number;
  /** How many items at the start of the view the compaction produced. */
  viewItems: number;
  /** Tokens of those items, as the API reported them. */
  apiTokens: number;
}

/**
 * The view as a change from the one described before it: the previous view's
 * first `kept` items (the same objects), then `added`.
 */
export interface ViewChange {
  kept: number;
  added: AgentInputItem[];
}

/** How many leading items two views share (the same objects at the same places). */
export function sharedPrefix(a: readonly AgentInputItem[], b: readonly AgentInputItem[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Items the harness must never see dropped (e.g. those stating a critical fact). */
export type ProtectPredicate = (item: AgentInputItem) => boolean;

export abstract class MemoryStrategy implements Session {
  /** Full history, in order. Never trimmed: only the view is. */
  protected history: AgentInputItem[] = [];
  /** Summaries made so far, oldest first. */
  readonly events: SummaryEvent[] = [];
  private readonly sessionId: string;
  /** The view `viewChange` last described (what the default compares with). */
  private lastDescribed: readonly AgentInputItem[] = [];

  constructor(sessionId?: string) {
    this.sessionId = sessionId ?? randomUUID();
  }

  /** What the model is sent, oldest first. */
  protected abstract view(): AgentInputItem[];

  /** Called after items were appended to `history`; strategies that compact do so here. */
  protected async afterAdd(): Promise<void> {}

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = this.view();
    if (limit === undefined || limit === null) return items;
    if (limit <= 0) return [];
    return items.slice(-limit);
  }

  /**
   * The view `getItems()` would return now, as a change from the one the
   * previous call described (the first call: from an empty view). A replay
   * measures every turn's view; a strategy whose view grows with the history
   * overrides this, so that a turn costs what changed in it rather than the
   * history's length. The default builds the view and compares it item by item.
   */
  viewChange(): ViewChange {
    const view = this.view();
    const kept = sharedPrefix(view, this.lastDescribed);
    this.lastDescribed = view;
    return { kept, added: view.slice(kept) };
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    this.history.push(...items);
    await this.afterAdd();
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const item = this.history.pop();
    this.historyRemoved();
    return item;
  }

  async clearSession(): Promise<void> {
    this.history = [];
    this.events.length = 0;
    this.historyRemoved();
  }

  /**
   * Called after items were removed from `history` (popItem, clearSession): a strategy that
   * indexes the history as it grows drops its index here, to rebuild it on the next view.
   */
  protected historyRemoved(): void {}

  /** The span of the view a server compacted, if any; strategies that compact locally have none. */
  opaqueSpan(): OpaqueSpan | undefined {
    return undefined;
  }

  /** The untrimmed history (for fact accounting and debugging). */
  getHistory(): readonly AgentInputItem[] {
    return this.history;
  }
}
