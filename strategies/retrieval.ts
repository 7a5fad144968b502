// Retrieval memory, the RAG/Mem0-style baseline memory papers compare against:
// the newest turns stay verbatim, and dropped turns that match the newest user
// message (BM25 over Porter-stemmed words, or the cosine similarity of their
// embeddings) are recalled into a token budget,
// placed before the kept turns in their original order between two plain user
// marker messages (no system or developer role, as compaction presents its
// summary). The stored history stays full; only the view changes.
//
// Each turn is tokenised and counted once, when it falls out of the kept
// window, so a replay does work in proportion to its length plus, per view,
// the postings of the newest message's words.
//
// Views are computed synchronously, embedding is not: with `scorer: embeddings`
// each add first embeds the turns that just left the kept window and the newest
// user message (the query), and keeps the vectors, so the view only looks them up.
// A failed embedding call is recorded as a failed summary (as a summarizer
// failure is), an error of the run; the turns it left without a vector are not
// recalled.
import { msSince } from '../core/model.js';
import { dropOrphanToolItems, isSent, isUserMessage, itemText, sentItems, userMessage } from '../core/items.js';
import { porterStem } from '../core/porter.js';
import { isStopWord, normalizeText } from '../core/text.js';
import type { TokenCounter } from '../core/tokens.js';
import type { AgentInputItem } from '../core/types.js';
import { failedSummary, MemoryStrategy } from './base.js';
import { num, optionalNum, type Embedder, type StrategyDefinition, type StrategyOptions } from './registry.js';

/** Opens the recalled turns; the model must not read them as the recent conversation. */
export const RECALL_HEADER = 'Earlier turns of this conversation, recalled as relevant to the latest message (other earlier turns are not shown):';
/** Closes the recalled turns. */
export const RECALL_END = 'End of recalled turns. The recent conversation follows.';

/** The request line of a failed embedding call's record (there is no summary prompt). */
export const EMBEDDING_SHADOW = 'Embed the turns that left the kept window and the newest user message (POST /embeddings).';

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

/** A full-history range [start, end) of one turn. */
interface Span {
  start: number;
  end: number;
}

/** One dropped turn as an index holds it. */
interface Doc extends Span {
  length: number;
  tokens: number;
}

/** Dropped turns, scored against the newest user message. Only grows: a turn is added once. */
interface TurnIndex {
  readonly docs: readonly Doc[];
  add(doc: Omit<Doc, 'length'>, items: readonly AgentInputItem[]): void;
  /** Document numbers with a positive score against the newest user message, best first; a tie goes to the newer turn. */
  rank(query: AgentInputItem): number[];
}

/** Best first; a tie goes to the newer (higher-numbered) turn. */
function bestFirst(scores: Iterable<[number, number]>): number[] {
  return [...scores].sort((a, b) => b[1] - a[1] || b[0] - a[0]).map(([doc]) => doc);
}

/** A BM25 index that only grows: documents are added once, never rescored from text. */
class Bm25Index implements TurnIndex {
  readonly docs: Doc[] = [];
  /** term → (doc number, term frequency) pairs, doc numbers ascending. */
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private totalLength = 0;

  add(doc: Omit<Doc, 'length'>, items: readonly AgentInputItem[]): void {
    const terms = items.flatMap((item) => retrievalTerms(itemText(item)));
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

  rank(item: AgentInputItem): number[] {
    const query = retrievalTerms(itemText(item));
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
    return bestFirst(scores);
  }
}

/** A vector scaled to length 1, so a dot product is the cosine similarity; undefined for a zero vector. */
function unit(vector: readonly number[]): Float64Array | undefined {
  let squares = 0;
  for (const x of vector) squares += x * x;
  const norm = Math.sqrt(squares);
  if (!(norm > 0)) return undefined;
  return Float64Array.from(vector, (x) => x / norm);
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) sum += a[i] * b[i];
  return sum;
}

/**
 * Turns scored by the cosine similarity of their embeddings with the query's.
 * Vectors are looked up by text in `vectors`, which the strategy fills (async)
 * before it adds or ranks; a text without one (a failed call) scores nothing.
 */
class EmbeddingIndex implements TurnIndex {
  readonly docs: Doc[] = [];
  private readonly docVectors: (Float64Array | undefined)[] = [];

  constructor(private readonly vectors: ReadonlyMap<string, Float64Array>) {}

  add(doc: Omit<Doc, 'length'>, items: readonly AgentInputItem[]): void {
    const text = turnText(items);
    this.docs.push({ ...doc, length: text.length });
    this.docVectors.push(this.vectors.get(text));
  }

  rank(item: AgentInputItem): number[] {
    const query = this.vectors.get(turnText([item]));
    if (!query) return [];
    const scores: [number, number][] = [];
    this.docVectors.forEach((vector, doc) => {
      const score = vector ? dot(query, vector) : 0;
      if (score > 0) scores.push([doc, score]);
    });
    return bestFirst(scores);
  }
}

/** What is embedded for a turn's items, or for the newest user message: their texts as one. */
export function turnText(items: readonly AgentInputItem[]): string {
  return items
    .filter(isSent)
    .map(itemText)
    .filter((text) => text.trim() !== '')
    .join('\n');
}

export class RetrievalStrategy extends MemoryStrategy {
  readonly settings: RetrievalSettings;
  private readonly counter: TokenCounter;
  private readonly embedder: Embedder | undefined;
  private readonly markers = { open: userMessage(RECALL_HEADER), close: userMessage(RECALL_END) };
  /** History indices of user messages, kept as items arrive. */
  private starts: number[] = [];
  private scanned = 0;
  /** Unit vectors by text, kept across a pop or clear: a text embeds alike every time. */
  private readonly vectors = new Map<string, Float64Array>();
  private index: TurnIndex;
  /** Position in `starts` of the first turn start not yet indexed. */
  private cursor = 0;

  /** With an `embedder`, turns are scored by embeddings (`scorer: embeddings`); without, by BM25. */
  constructor(settings: RetrievalSettings, ctx: { counter: TokenCounter }, sessionId?: string, embedder?: Embedder) {
    super(sessionId);
    this.settings = { ...settings, keepLastTurns: Math.max(1, Math.floor(settings.keepLastTurns)) };
    this.counter = ctx.counter;
    this.embedder = embedder;
    this.index = this.newIndex();
  }

  private newIndex(): TurnIndex {
    return this.embedder ? new EmbeddingIndex(this.vectors) : new Bm25Index();
  }

  protected view(): AgentInputItem[] {
    this.scan();
    const keepFrom = this.keepFrom();
    const kept = this.history.slice(keepFrom);
    if (keepFrom === 0) return dropOrphanToolItems(kept);
    this.indexTurns(this.droppedTurns(keepFrom));
    const recalled = this.recall();
    if (recalled.length === 0) return dropOrphanToolItems(kept);
    return dropOrphanToolItems([this.markers.open, ...recalled, this.markers.close, ...kept]);
  }

  /**
   * With embeddings, the turns that just left the kept window and the newest user
   * message are embedded now, so the next view finds their vectors.
   */
  protected override async afterAdd(): Promise<void> {
    if (!this.embedder) return;
    this.scan();
    const keepFrom = this.keepFrom();
    if (keepFrom === 0) return;
    const turns = this.droppedTurns(keepFrom);
    const texts = [...turns.map(({ start, end }) => turnText(this.history.slice(start, end))), turnText([this.query()])];
    await this.embed(this.embedder, texts);
    // Indexed now, whatever the call's outcome: droppedTurns moved on past these turns.
    this.indexTurns(turns);
  }

  /** Embeds the texts without a vector yet; a failed call is recorded, never passed over. */
  private async embed(embedder: Embedder, texts: string[]): Promise<void> {
    const wanted = [...new Set(texts)].filter((text) => text !== '' && !this.vectors.has(text));
    if (wanted.length === 0) return;
    const started = performance.now();
    const outcome = await embedder.embed(wanted);
    if (!outcome.ok) {
      this.events.push(failedSummary(this.history.length - 1, outcome.error, msSince(started), EMBEDDING_SHADOW));
      return;
    }
    wanted.forEach((text, i) => {
      const vector = unit(outcome.value[i]);
      if (vector) this.vectors.set(text, vector);
    });
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
   * The turns that fell out of the kept window since the last were indexed; the
   * caller must index them all (the cursor has moved past them). Items before the
   * first user message (if any) form a turn of their own.
   */
  private droppedTurns(keepFrom: number): Span[] {
    const turns: Span[] = [];
    let from = this.index.docs.at(-1)?.end ?? 0;
    while (from < keepFrom) {
      while (this.cursor < this.starts.length && this.starts[this.cursor] <= from) this.cursor++;
      const end = Math.min(this.starts[this.cursor] ?? keepFrom, keepFrom);
      turns.push({ start: from, end });
      from = end;
    }
    return turns;
  }

  private indexTurns(turns: readonly Span[]): void {
    for (const { start, end } of turns) {
      // Only what a request carries is indexed and counted: a reasoning item is never recalled.
      const items = sentItems(this.history.slice(start, end));
      const tokens = items.reduce((sum, item) => sum + this.counter.item(item), 0);
      this.index.add({ start, end, tokens }, items);
    }
  }

  /** The newest user message: what the dropped turns are scored against. */
  private query(): AgentInputItem {
    return this.history[this.starts[this.starts.length - 1]];
  }

  /** Items of the best-matching dropped turns that fit the budget, in history order. */
  private recall(): AgentInputItem[] {
    const { maxRecallTokens, maxRecalledTurns } = this.settings;
    let left = maxRecallTokens - this.counter.item(this.markers.open) - this.counter.item(this.markers.close);
    const chosen: Doc[] = [];
    for (const n of this.index.rank(this.query())) {
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
  protected override historyRemoved(): void {
    this.starts = [];
    this.scanned = 0;
    this.index = this.newIndex();
    this.cursor = 0;
  }
}

/** The embedder of `scorer: embeddings`; undefined for BM25. */
function embedderOf(options: StrategyOptions, ctx: { embedder?(spec: string): Embedder }): Embedder | undefined {
  if (options.scorer !== 'embeddings') return undefined;
  const spec = options.embedding_model;
  if (typeof spec !== 'string') throw new Error('option embedding_model is not a string');
  if (!ctx.embedder) throw new Error('retrieval with scorer: embeddings needs a run that can call a server; this replay has none');
  return ctx.embedder(spec);
}

export const retrieval: StrategyDefinition = {
  use: 'retrieval',
  doc:
    'Keeps the last keep_last_n_turns user turns verbatim and recalls dropped turns that match the newest user message ' +
    '(scorer bm25: BM25, k1 1.2, b 0.75, over Porter-stemmed words; scorer embeddings: cosine similarity of embedding_model vectors; ' +
    'ties go to the newer turn) into max_recall_tokens, placed before the kept turns in their original order between two user marker messages.',
  options: {
    keep_last_n_turns: { type: 'int', required: true, min: 1, doc: 'Newest user turns kept verbatim.' },
    max_recall_tokens: { type: 'int', required: true, min: 1, doc: 'Token budget of the recalled turns, their two marker messages included.' },
    max_recalled_turns: { type: 'int', min: 1, doc: 'At most this many turns recalled (default: as many as fit the budget).' },
    scorer: { type: 'string', values: ['bm25', 'embeddings'], default: 'bm25', doc: 'How dropped turns are scored against the newest user message: bm25 (local) or embeddings (embedding_model).' },
    embedding_model: {
      type: 'embedding-model',
      doc: 'With scorer: embeddings, the model behind an OpenAI-compatible /v1/embeddings endpoint, e.g. openai:text-embedding-3-small or <provider>:<name>.',
    },
  },
  check(options) {
    if (options.scorer === 'embeddings' && options.embedding_model === undefined) {
      return ['scorer: embeddings needs option embedding_model (e.g. openai:text-embedding-3-small or <provider>:<name>)'];
    }
    if (options.scorer !== 'embeddings' && options.embedding_model !== undefined) {
      return ['embedding_model is only used with scorer: embeddings; set scorer: embeddings or remove it'];
    }
    return [];
  },
  create: (options, ctx) =>
    new RetrievalStrategy(
      {
        keepLastTurns: num(options, 'keep_last_n_turns'),
        maxRecallTokens: num(options, 'max_recall_tokens'),
        maxRecalledTurns: optionalNum(options, 'max_recalled_turns'),
      },
      ctx,
      undefined,
      embedderOf(options, ctx),
    ),
};
