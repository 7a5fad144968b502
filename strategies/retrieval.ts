// Retrieval memory, the RAG/Mem0-style baseline memory papers compare against:
// the newest turns stay verbatim, and dropped turns that match the newest user
// message (BM25 over Porter-stemmed words) are recalled into a token budget,
// placed before the kept turns in their original order between two plain user
// marker messages (no system or developer role, as compaction presents its
// summary). The stored history stays full; only the view changes.
//
// Each turn is tokenised and counted once, when it falls out of the kept
// window, so a replay does work in proportion to its length plus, per view,
// the postings of the newest message's words.
import { dropOrphanToolItems, isUserMessage, itemText, userMessage } from '../core/items.js';
import { porterStem } from '../core/porter.js';
import { isStopWord, normalizeText } from '../core/text.js';
import type { TokenCounter } from '../core/tokens.js';
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy } from './base.js';
import { num, optionalNum, type StrategyDefinition } from './registry.js';

/** Opens the recalled turns; the model must not read them as the recent conversation. */
export const RECALL_HEADER = 'Earlier turns of this conversation, recalled as relevant to the latest message (other earlier turns are not shown):';
/** Closes the recalled turns. */
export const RECALL_END = 'End of recalled turns. The recent conversation follows.';

/** Standard BM25 parameters (Robertson et al.; Lucene's defaults). */
const K1 = 1.2;
const B = 0.75;

export interface RetrievalSettings {
  /** Newest user turns always kept verbatim. */
  keepLastTurns: number;
  /** Tokens the recalled block (markers included) may take. */
  maxRecallTokens: number;
  /** At most this many turns recalled; unlimited when undefined. */
  maxRecalledTurns?: number;
}

/**
 * Stemmed content words of a text: normalised, stop words skipped, Porter-stemmed.
 * A compound such as `db-orders-16a` also yields its parts, so "orders" finds it.
 */
export function retrievalTerms(text: string): string[] {
  const terms: string[] = [];
  for (const raw of normalizeText(text).split(' ')) {
    const word = raw.replace(/'s$/, '');
    if (word.length === 0 || isStopWord(word)) continue;
    terms.push(porterStem(word));
    if (!/[-.:/]/.test(word)) continue;
    for (const part of word.split(/[-.:/]+/)) if (part.length > 1 && !isStopWord(part)) terms.push(porterStem(part));
  }
  return terms;
}

/** One dropped turn as the index holds it. */
interface Doc {
  /** Full-history range [start, end). */
  start: number;
  end: number;
  length: number;
  tokens: number;
}

/** A BM25 index that only grows: documents are added once, never rescored from text. */
class Bm25Index {
  readonly docs: Doc[] = [];
  /** term → (doc number, term frequency) pairs, doc numbers ascending. */
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private totalLength = 0;

  add(doc: Omit<Doc, 'length'>, terms: readonly string[]): void {
    const n = this.docs.length;
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    for (const [term, count] of tf) {
      const list = this.postings.get(term);
      if (list) list.push({ doc: n, tf: count });
      else this.postings.set(term, [{ doc: n, tf: count }]);
    }
    this.docs.push({ ...doc, length: terms.length });
    this.totalLength += terms.length;
  }

  /** Documents with a positive score, best first; a tie goes to the newer turn. */
  rank(query: readonly string[]): number[] {
    const total = this.docs.length;
    if (total === 0) return [];
    const avgLength = this.totalLength / total || 1;
    const scores = new Map<number, number>();
    for (const term of new Set(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (total - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = K1 * (1 - B + (B * this.docs[doc].length) / avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    return [...scores.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]).map(([doc]) => doc);
  }
}

export class RetrievalStrategy extends MemoryStrategy {
  readonly settings: RetrievalSettings;
  private readonly counter: TokenCounter;
  private readonly markers = { open: userMessage(RECALL_HEADER), close: userMessage(RECALL_END) };
  /** History indices of user messages, kept as items arrive. */
  private starts: number[] = [];
  private scanned = 0;
  private index = new Bm25Index();
  /** Position in `starts` of the first turn start not yet indexed. */
  private cursor = 0;

  constructor(settings: RetrievalSettings, ctx: { counter: TokenCounter }, sessionId?: string) {
    super(sessionId);
    this.settings = { ...settings, keepLastTurns: Math.max(1, Math.floor(settings.keepLastTurns)) };
    this.counter = ctx.counter;
  }

  protected view(): AgentInputItem[] {
    this.scan();
    const keepFrom = this.keepFrom();
    const kept = this.history.slice(keepFrom);
    if (keepFrom === 0) return dropOrphanToolItems(kept);
    this.indexUpTo(keepFrom);
    const recalled = this.recall();
    if (recalled.length === 0) return dropOrphanToolItems(kept);
    return dropOrphanToolItems([this.markers.open, ...recalled, this.markers.close, ...kept]);
  }

  /** Records the turn starts of items added since the last view. */
  private scan(): void {
    for (; this.scanned < this.history.length; this.scanned++) if (isUserMessage(this.history[this.scanned])) this.starts.push(this.scanned);
  }

  /** Where the kept turns begin; 0 (keep everything) with fewer turns than the limit. */
  private keepFrom(): number {
    const at = this.starts.length - this.settings.keepLastTurns;
    return at > 0 ? this.starts[at] : 0;
  }

  /**
   * Indexes the turns that fell out of the kept window since the last view.
   * Items before the first user message (if any) form a turn of their own.
   */
  private indexUpTo(keepFrom: number): void {
    let from = this.index.docs.at(-1)?.end ?? 0;
    while (from < keepFrom) {
      while (this.cursor < this.starts.length && this.starts[this.cursor] <= from) this.cursor++;
      const end = Math.min(this.starts[this.cursor] ?? keepFrom, keepFrom);
      const items = this.history.slice(from, end);
      const tokens = items.reduce((sum, item) => sum + this.counter.item(item), 0);
      this.index.add({ start: from, end, tokens }, items.flatMap((item) => retrievalTerms(itemText(item))));
      from = end;
    }
  }

  /** Items of the best-matching dropped turns that fit the budget, in history order. */
  private recall(): AgentInputItem[] {
    const query = retrievalTerms(itemText(this.history[this.starts[this.starts.length - 1]]));
    const { maxRecallTokens, maxRecalledTurns } = this.settings;
    let left = maxRecallTokens - this.counter.item(this.markers.open) - this.counter.item(this.markers.close);
    const chosen: Doc[] = [];
    for (const n of this.index.rank(query)) {
      if (maxRecalledTurns !== undefined && chosen.length >= maxRecalledTurns) break;
      const doc = this.index.docs[n];
      // A long turn that does not fit must not block shorter relevant ones after it.
      if (doc.tokens > left) continue;
      chosen.push(doc);
      left -= doc.tokens;
    }
    chosen.sort((a, b) => a.start - b.start);
    return chosen.flatMap((doc) => this.history.slice(doc.start, doc.end));
  }

  /** Removing from the history invalidates the indexes; they are rebuilt from the start. */
  private forget(): void {
    this.starts = [];
    this.scanned = 0;
    this.index = new Bm25Index();
    this.cursor = 0;
  }

  override async popItem(): Promise<AgentInputItem | undefined> {
    const item = await super.popItem();
    this.forget();
    return item;
  }

  override async clearSession(): Promise<void> {
    await super.clearSession();
    this.forget();
  }
}

export const retrieval: StrategyDefinition = {
  use: 'retrieval',
  doc:
    'Keeps the last keep_last_n_turns user turns verbatim and recalls dropped turns that match the newest user message ' +
    '(BM25, k1 1.2, b 0.75, over Porter-stemmed words; ties go to the newer turn) into max_recall_tokens, ' +
    'placed before the kept turns in their original order between two user marker messages.',
  options: {
    keep_last_n_turns: { type: 'int', required: true, min: 1, doc: 'Newest user turns kept verbatim.' },
    max_recall_tokens: { type: 'int', required: true, min: 1, doc: 'Token budget of the recalled turns, their two marker messages included.' },
    max_recalled_turns: { type: 'int', min: 1, doc: 'At most this many turns recalled (default: as many as fit the budget).' },
  },
  create: (options, ctx) =>
    new RetrievalStrategy(
      {
        keepLastTurns: num(options, 'keep_last_n_turns'),
        maxRecallTokens: num(options, 'max_recall_tokens'),
        maxRecalledTurns: optionalNum(options, 'max_recalled_turns'),
      },
      ctx,
    ),
};
