// Exact token counts, as tiktoken gives them: o200k texts are split by the
// encoding's own pre-tokenising pattern and each new piece is counted by
// byte-pair merge over the rank table the build writes (core/rank-table.ts);
// tiktoken itself counts what the table cannot (cl100k, long pieces, no
// table). Every distinct text and piece is counted once and memoised, so
// replaying a transcript costs time linear in its length.
import { createRequire } from 'node:module';
import type { Tiktoken, TiktokenEncoding } from 'tiktoken';
import { itemLabel, itemText } from './items.js';
import { BoundedMemo } from './memo.js';
import { isAscii, LINES_FROM } from './text.js';
import { countPiece, loadRankTable, type RankTable } from './rank-table.js';
import type { AgentInputItem, ToolDefinition } from './types.js';

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

/**
 * tiktoken is loaded on the first text the rank table cannot count (a cl100k
 * model, a huge piece): loading it costs 20 ms and 20 MB that most runs never
 * need. Counting is synchronous, so it is required (its CommonJS build).
 */
function encoderFor(encoding: TiktokenEncoding): Tiktoken {
  let enc = encoders.get(encoding);
  if (!enc) {
    const { get_encoding } = createRequire(import.meta.url)('tiktoken') as typeof import('tiktoken');
    enc = get_encoding(encoding);
    encoders.set(encoding, enc);
  }
  return enc;
}

const sharedCounters = new Map<TiktokenEncoding, TokenCounter>();

/** null once the table was found missing or stale (see core/rank-table.ts). */
let o200kRanks: RankTable | null | undefined;

/**
 * Pieces up to this many UTF-8 bytes are counted from the rank table, whose
 * merge grows with the square of a piece's length; longer pieces (a huge hash
 * or base64 blob) are rare and go to tiktoken.
 */
const TABLE_PIECE_MAX = 4096;

/**
 * o200k_base's pre-tokenising pattern. tiktoken encodes each piece the pattern
 * matches on its own, so a text's count is the sum of its pieces' counts, and
 * each piece, matched alone, is matched whole (alternatives without look-ahead
 * that failed on the longer text fail on the piece too; the look-ahead one only
 * gains at its end, where it takes the same run of spaces). Words and
 * punctuation recur across texts, so counting by piece encodes most of a new
 * text (a summary, a compaction) not at all.
 *
 * Written for JavaScript's regex engine, it must split exactly as tiktoken's
 * Rust one does: \s is spelled out as Unicode's White_Space (JavaScript's \s
 * also takes U+FEFF and misses U+0085), and the case-insensitive contractions
 * (?i:'s|'t|…) are spelled out with every case fold, long s (U+017F) included.
 * The tests check it against tiktoken on the bundled datasets and on random
 * text from letters, marks, digits, spaces and symbols of many scripts.
 */
const WS = String.raw`\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
const CONTRACTION = String.raw`(?:'[sS\u017f]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?`;
const UPPER = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`;
const LOWER = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`;
const O200K_PIECES = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}*${LOWER}+${CONTRACTION}`,
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}+${LOWER}*${CONTRACTION}`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^${WS}\p{L}\p{N}]+[\r\n/]*`,
    String.raw`[${WS}]*[\r\n]+`,
    String.raw`[${WS}]+(?![^${WS}])`,
    String.raw`[${WS}]+`,
  ].join('|'),
  'uy',
);

/**
 * The same pattern restricted to ASCII text, where its classes are exact: \p{L}
 * is [A-Za-z] (upper [A-Z], lower [a-z], no marks), \p{N} is [0-9], white
 * space is [\t\n\v\f\r ]. Most text is ASCII, and this form runs faster.
 */
const O200K_ASCII_PIECES =
  /[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?:'(?:[sStTmMdD]|[rR][eE]|[vV][eE]|[lL][lL]))?|[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?:'(?:[sStTmMdD]|[rR][eE]|[vV][eE]|[lL][lL]))?|[0-9]{1,3}| ?[^\t\n\v\f\r A-Za-z0-9]+[\r\n/]*|[\t\n\v\f\r ]*[\r\n]+|[\t\n\v\f\r ]+(?![^\t\n\v\f\r ])|[\t\n\v\f\r ]+/y;
const LONE_SURROGATE = /\p{Cs}/u;

/** One character of white space as the pattern means it (WS). */
const SPACE = new RegExp(`[${WS}]`);
const isSpace = (ch: string) => SPACE.test(ch);

/**
 * Whether a piece of the o200k_base and cl100k_base patterns must end at `at`,
 * just after a newline, whatever came before it, so that the text on each side
 * splits into the same pieces alone as together. In both patterns a newline is
 * only ever taken by a piece that ends in newlines (a white-space run ending in
 * one, or a punctuation run with the newlines, or in o200k the slashes, right
 * after it), and a letter or digit never joins a piece that holds a newline.
 * So the piece ends at `at` when what follows is neither a slash nor white
 * space, or is spaces and tabs up to something that is not white space (the
 * run ending in the newline is then matched whole by `\s*[\r\n]+`, and the
 * spaces start a piece of their own).
 */
function pieceEndsAt(text: string, at: number): boolean {
  if (at >= text.length) return false;
  const first = text[at];
  if (!isSpace(first)) return first !== '/';
  let i = at;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i < text.length && !isSpace(text[i]);
}

/**
 * The first or last space of `text` that follows a character other than white space
 * (so a piece starts there, see labelledLine); -1 when there is none.
 */
function pieceSpace(text: string, which: 'first' | 'last'): number {
  if (which === 'first') {
    let at = text.indexOf(' ', 1);
    while (at > 0 && isSpace(text[at - 1])) at = text.indexOf(' ', at + 1);
    return at;
  }
  let at = text.lastIndexOf(' ');
  while (at > 0 && isSpace(text[at - 1])) at = text.lastIndexOf(' ', at - 1);
  return at > 0 ? at : -1;
}

/** A line `${label}: ${body}`, with its text (see TokenCounter.labelledLines). */
export interface LabelledLine {
  label: string;
  body: string;
  /** `${label}: ${body}` */
  text: string;
}

/** Distinct pieces remembered per memo generation (a vocabulary, so it rarely fills). */
const MAX_PIECES = 100_000;

/**
 * Distinct texts (and lines of long texts) remembered per memo generation. A
 * run meets each transcript's texts while that transcript's strategies replay
 * it side by side, so a bound keeps memory flat over a large suite and costs
 * almost no hits.
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
  private readonly textCache = new BoundedMemo<string, number>(MAX_TEXTS);
  private readonly pieceCache = new BoundedMemo<string, number>(MAX_PIECES);
  private readonly itemCache = new WeakMap<object, number>();
  private readonly toolsCache = new WeakMap<object, number>();

  constructor(model?: string) {
    this.encoding = encodingForModel(model);
  }

  /** Tokens of a plain string. */
  text(text: string): number {
    if (text.length === 0) return 0;
    return this.textCache.through(text, () => (text.length >= LINES_FROM ? this.byLines(text) : this.count(text)));
  }

  private count(text: string): number {
    return this.encoding === 'o200k_base' ? this.byPieces(text) : this.encode(text);
  }

  /**
   * A long text's count as the sum of its lines', each remembered: summaries
   * and compactions repeat most lines of the one before. Lines are cut only
   * where a piece of the pre-tokenising pattern must end (see pieceEndsAt).
   */
  private byLines(text: string): number {
    let total = 0;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
      if (!pieceEndsAt(text, nl + 1)) continue;
      total += this.line(text.slice(start, nl + 1));
      start = nl + 1;
    }
    return start === 0 ? this.count(text) : total + this.line(text.slice(start));
  }

  private line(line: string): number {
    return this.textCache.through(line, () => this.count(line));
  }

  private encode(text: string): number {
    // Special-token text in user data must count as ordinary text, never throw.
    this.enc ??= encoderFor(this.encoding);
    return this.enc.encode_ordinary(text).length;
  }

  /** One o200k piece's count: from the rank table when there is one, else from tiktoken. */
  private encodePiece(piece: string): number {
    if (piece.length <= TABLE_PIECE_MAX) {
      if (o200kRanks === undefined) o200kRanks = loadRankTable() ?? null;
      if (o200kRanks && Buffer.byteLength(piece) <= TABLE_PIECE_MAX) return countPiece(o200kRanks, piece);
    }
    return this.encode(piece);
  }

  /** A text's count as the sum of its pieces' (see O200K_PIECES). */
  private byPieces(text: string): number {
    const ascii = isAscii(text);
    // tiktoken sees a lone surrogate as U+FFFD, which the pattern would class differently.
    if (!ascii && LONE_SURROGATE.test(text)) return this.encode(text);
    const pattern = ascii ? O200K_ASCII_PIECES : O200K_PIECES;
    let total = 0;
    let at = 0;
    while (at < text.length) {
      pattern.lastIndex = at;
      // test() rather than exec(): a sticky match leaves its end in lastIndex, and no match array is made per piece.
      // The pattern matches any text through to its end; should it ever not, count the text whole.
      if (!pattern.test(text) || pattern.lastIndex === at) return this.encode(text);
      const piece = text.slice(at, pattern.lastIndex);
      // Not `through`: a closure per piece would be the loop's main allocation.
      let n = this.pieceCache.get(piece);
      if (n === undefined) {
        n = this.encodePiece(piece);
        this.pieceCache.set(piece, n);
      }
      total += n;
      at = pattern.lastIndex;
    }
    return total;
  }

  /**
   * Tokens of the lines' texts joined by newlines, where each line is `${label}: ${body}`
   * (a summarizer's input, which repeats every message's text under its role), from
   * the counts of each body (already counted as the message's text) and of its first
   * and last words, without tokenising the lines (see labelledLine). When a line does
   * not start where a piece must start (see pieceEndsAt), the joined text is counted.
   */
  labelledLines(lines: readonly LabelledLine[]): number {
    let total = 0;
    for (let i = 0; i < lines.length; i++) {
      const newline = i + 1 < lines.length;
      if (newline && !pieceEndsAt(lines[i + 1].text, 0)) return this.text(lines.map((l) => l.text).join('\n'));
      total += this.labelledLine(lines[i], newline);
    }
    return total;
  }

  /**
   * `${label}: ${body}`, with a newline after it when `newline`, as the sum of parts
   * counted alone. A piece of either encoding's pattern holds a space only at its start or
   * inside a run of white space, and matches looking ahead only; so a space after a
   * character that is not white space always starts a piece, and the text on each side
   * splits alone as it does together. The line is cut at the space after the colon and
   * at the body's first and last such spaces: the head gains the space before it, the
   * tail the newline after it, and the body between them counts as in the body alone.
   */
  private labelledLine({ label, body }: LabelledLine, newline: boolean): number {
    const first = pieceSpace(body, 'first');
    if (first < 0) return this.text(`${label}:`) + this.text(` ${body}${newline ? '\n' : ''}`);
    const head = body.slice(0, first);
    let total = this.text(`${label}:`) + this.text(` ${head}`) - this.text(head) + this.text(body);
    if (newline) {
      const tail = body.slice(pieceSpace(body, 'last'));
      total += this.text(`${tail}\n`) - this.text(tail);
    }
    return total;
  }

  /**
   * Tokens a message costs in a request when its text counts `textTokens`: the
   * framing of its role (`user`, `system`, `tool`, …) added, without building the
   * message (as `item` counts one).
   */
  framed(role: string, textTokens: number): number {
    return MESSAGE_OVERHEAD + this.text(role.toLowerCase()) + textTokens;
  }

  /** Tokens one item costs in a request: its role/name framing plus its text. */
  item(item: AgentInputItem): number {
    const key = item as object;
    const hit = this.itemCache.get(key);
    if (hit !== undefined) return hit;
    const n = this.framed(itemLabel(item), this.text(itemText(item)));
    this.itemCache.set(key, n);
    return n;
  }

  /** Tokens of a whole request: instructions, every item, the tools offered and the reply priming. */
  request(instructions: string | undefined, items: AgentInputItem[], tools?: readonly ToolDefinition[]): number {
    let total = REPLY_PRIMING;
    if (instructions) total += this.framed('system', this.text(instructions));
    for (const item of items) total += this.item(item);
    if (tools?.length) total += this.tools(tools);
    return total;
  }

  /**
   * Tokens the tool definitions add to a request. Providers bill them as input but do not
   * publish how they render them; their JSON text is a close stand-in. The same list goes with
   * every probe of a transcript, so it is counted once per list.
   */
  tools(tools: readonly ToolDefinition[]): number {
    const hit = this.toolsCache.get(tools);
    if (hit !== undefined) return hit;
    const n = tools.reduce((sum, tool) => sum + MESSAGE_OVERHEAD + this.text(JSON.stringify(tool)), 0);
    this.toolsCache.set(tools, n);
    return n;
  }

  /** Number of distinct texts remembered (for tests and the benchmark). */
  get distinctTexts(): number {
    return this.textCache.size;
  }
}
