// Exact token counts with tiktoken. Every distinct item text is encoded once and
// memoised, so replaying a transcript costs time linear in its length.
import { get_encoding, type Tiktoken, type TiktokenEncoding } from 'tiktoken';
import { itemLabel, itemText } from './items.js';
import type { AgentInputItem } from './types.js';

/**
 * Per-message framing the chat format adds around each message (role and
 * separators), and the tokens that prime the reply. These match OpenAI's
 * published counting recipe for chat messages; the replay checks them against
 * provider-reported usage (probes.csv shows both).
 */
export const MESSAGE_OVERHEAD = 3;
export const REPLY_PRIMING = 3;

/** Picks the encoding a model name uses; o200k_base for current and unknown models. */
export function encodingForModel(model: string | undefined): TiktokenEncoding {
  const name = (model ?? '').replace(/^[a-z-]+:/, '').toLowerCase();
  if (/^(gpt-4(?!o|\.1|\.5)|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(name)) return 'cl100k_base';
  return 'o200k_base';
}

const encoders = new Map<TiktokenEncoding, Tiktoken>();

function encoderFor(encoding: TiktokenEncoding): Tiktoken {
  let enc = encoders.get(encoding);
  if (!enc) {
    enc = get_encoding(encoding);
    encoders.set(encoding, enc);
  }
  return enc;
}

const sharedCounters = new Map<TiktokenEncoding, TokenCounter>();

/**
 * o200k_base's pre-tokenising pattern restricted to ASCII text, where its
 * Unicode classes are exact: \p{L} is [A-Za-z] (upper [A-Z], lower [a-z], no
 * marks), \p{N} is [0-9], \s is [\t\n\v\f\r ], and (?i:'s|'t|…) is spelled
 * out. tiktoken encodes each piece the pattern matches on its own, so a text's
 * count is the sum of its pieces' counts, and each piece, matched alone, is
 * matched whole (alternatives without look-ahead that failed on the longer
 * text fail on the piece too; the look-ahead one only gains at its end, where
 * it takes the same run of spaces). Words recur across texts, so counting by
 * piece encodes most of a new text (a summary, a compaction) not at all.
 * Texts with any non-ASCII character are encoded whole.
 */
const O200K_ASCII_PIECES =
  /[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?:'(?:[sStTmMdD]|[rR][eE]|[vV][eE]|[lL][lL]))?|[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?:'(?:[sStTmMdD]|[rR][eE]|[vV][eE]|[lL][lL]))?|[0-9]{1,3}| ?[^\t\n\v\f\r A-Za-z0-9]+[\r\n/]*|[\t\n\v\f\r ]*[\r\n]+|[\t\n\v\f\r ]+(?![^\t\n\v\f\r ])|[\t\n\v\f\r ]+/y;
const NON_ASCII = /[^\x00-\x7f]/;

/** Distinct pieces remembered before the memo starts afresh (a vocabulary, so it rarely does). */
const MAX_PIECES = 200_000;

/**
 * Distinct texts remembered before the memo starts afresh. A run meets each
 * transcript's texts while that transcript's strategies replay it side by side,
 * so a bound keeps memory flat over a large suite and costs almost no hits.
 */
const MAX_TEXTS = 20_000;

export class TokenCounter {
  /**
   * The process's counter for a model's encoding. Replay and the offline
   * model count the same texts (the view, then the request built from it);
   * one shared counter encodes each distinct text once for both.
   */
  static shared(model?: string): TokenCounter {
    const encoding = encodingForModel(model);
    let counter = sharedCounters.get(encoding);
    if (!counter) {
      counter = new TokenCounter(model);
      sharedCounters.set(encoding, counter);
    }
    return counter;
  }

  readonly encoding: TiktokenEncoding;
  /** Built on the first text to encode: its tables take a third of a second, which a run's first line need not wait for. */
  private enc: Tiktoken | undefined;
  private readonly textCache = new Map<string, number>();
  private readonly pieceCache = new Map<string, number>();
  private readonly itemCache = new WeakMap<object, number>();

  constructor(model?: string) {
    this.encoding = encodingForModel(model);
  }

  /** Tokens of a plain string. */
  text(text: string): number {
    if (text.length === 0) return 0;
    let n = this.textCache.get(text);
    if (n === undefined) {
      n = this.encoding === 'o200k_base' && !NON_ASCII.test(text) ? this.byPieces(text) : this.encode(text);
      if (this.textCache.size >= MAX_TEXTS) this.textCache.clear();
      this.textCache.set(text, n);
    }
    return n;
  }

  private encode(text: string): number {
    // Special-token text in user data must count as ordinary text, never throw.
    this.enc ??= encoderFor(this.encoding);
    return this.enc.encode_ordinary(text).length;
  }

  /** An ASCII text's count as the sum of its pieces' (see O200K_ASCII_PIECES). */
  private byPieces(text: string): number {
    let total = 0;
    let at = 0;
    while (at < text.length) {
      O200K_ASCII_PIECES.lastIndex = at;
      const piece = O200K_ASCII_PIECES.exec(text)?.[0];
      // The pattern matches any ASCII text through to its end; should it ever not, count the text whole.
      if (!piece) return this.encode(text);
      let n = this.pieceCache.get(piece);
      if (n === undefined) {
        n = this.encode(piece);
        if (this.pieceCache.size >= MAX_PIECES) this.pieceCache.clear();
        this.pieceCache.set(piece, n);
      }
      total += n;
      at += piece.length;
    }
    return total;
  }

  /** Tokens one item costs in a request: its role/name framing plus its text. */
  item(item: AgentInputItem): number {
    const key = item as object;
    const hit = this.itemCache.get(key);
    if (hit !== undefined) return hit;
    const n = MESSAGE_OVERHEAD + this.text(itemLabel(item).toLowerCase()) + this.text(itemText(item));
    this.itemCache.set(key, n);
    return n;
  }

  /** Tokens of a whole request: instructions, every item and the reply priming. */
  request(instructions: string | undefined, items: AgentInputItem[]): number {
    let total = REPLY_PRIMING;
    if (instructions) total += MESSAGE_OVERHEAD + this.text('system') + this.text(instructions);
    for (const item of items) total += this.item(item);
    return total;
  }

  /** Number of distinct texts remembered (for tests and the benchmark). */
  get distinctTexts(): number {
    return this.textCache.size;
  }
}
