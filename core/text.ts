// The one text normalisation used for fact presence and the offline reader: case,
// surrounding punctuation and repeated white space are ignored. Answers are graded with
// `normalizeAnswer`, the official scorers' normalisation, which is deliberately stricter.
// Also the reader's stemmer and stop words, and the one word counter (its callers' rules are named modes).
import { BoundedMemo } from './memo.js';
import { porterStem } from './porter.js';
import type { Fact } from './types.js';

/** Lower-cases, turns punctuation runs into single spaces and trims. Keeps inner `.`/`-`/`:`
 * between alphanumerics, so `v1.0.3`, `RX-88812` and `10:32` survive intact. */
export function normalizeText(text: string): string {
  return text.length >= LINES_FROM && text.includes('\n') ? normalizeByLines(text) : normalizeLine(text);
}

function normalizeLine(text: string): string {
  return isAscii(text) ? normalizeAscii(text) : normalizeUnicode(text);
}

/**
 * Texts at least this long are normalised here, and counted in core/tokens.ts, line by
 * line, each line's result remembered: long texts (summaries, compactions) repeat most
 * lines of the one before, while short ones are cheaper to handle whole.
 */
export const LINES_FROM = 256;
const lineForms = new BoundedMemo<string, string>(20_000);

/**
 * A long text's form from its lines' forms, each remembered: summaries and
 * compactions repeat most lines of the one before. The same form as the whole
 * text's: no step of normalisation reaches across a newline (NFKC composes
 * nothing over it, lower-casing's final-sigma context stops at it, and it is
 * neither letter nor digit to the punctuation rule), and it becomes the single
 * space that joins the lines' forms.
 */
function normalizeByLines(text: string): string {
  let out = '';
  for (const line of text.split('\n')) {
    const form = lineForms.through(line, () => normalizeLine(line));
    if (form) out = out ? `${out} ${form}` : form;
  }
  return out;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Whether every character is ASCII: the text forms that take a faster path there (normalising, counting tokens, fact lookups). */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/**
 * `normalizeText` for ASCII text, which most text is: NFKC and the quote
 * mapping change nothing there, and once lower-cased the only letters are
 * a-z, so the patterns need no Unicode classes (they run several times faster).
 */
function normalizeAscii(text: string): string {
  return text.toLowerCase().replace(ASCII_EDGE_PUNCTUATION, ' ').replace(ASCII_SPACES, ' ').trim();
}

// The patterns of the hot helpers here, made once rather than on every call (replace() starts a
// global pattern from the text's start whatever its lastIndex, so sharing one is safe).
const ASCII_EDGE_PUNCTUATION = /(?<![a-z0-9])[^a-z0-9\t\n\v\f\r ]+|[^a-z0-9\t\n\v\f\r ]+(?![a-z0-9])/g;
const ASCII_SPACES = /[\t\n\v\f\r ]+/g;
const CURLY_QUOTES = /[\u2018\u2019]/g;
const EDGE_PUNCTUATION = /(?<![\p{L}\p{N}])[^\p{L}\p{N}\s]+|[^\p{L}\p{N}\s]+(?![\p{L}\p{N}])/gu;
const SPACES = /\s+/g;
const LETTER = /\p{L}/u;
const LEADING_NUMBER = /^\p{N}/u;

/** Exported for the test that checks the ASCII form against it. */
export function normalizeUnicode(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(CURLY_QUOTES, "'").replace(EDGE_PUNCTUATION, ' ').replace(SPACES, ' ').trim();
}

/** True when `phrase` occurs in `text` on word boundaries (a letter may prefix a number), after normalising both. */
export function containsPhrase(text: string, phrase: string): boolean {
  const p = normalizeText(phrase);
  if (p.length === 0) return false;
  return containsNormalized(normalizeText(text), p);
}

/** Same as `containsPhrase` for already-normalised inputs (hot path of the replay). */
export function containsNormalized(normText: string, normPhrase: string): boolean {
  return nextOccurrence(normText, normPhrase, 0) >= 0;
}

/** Every position where `normPhrase` occurs in `normText` on the word boundaries `containsNormalized` uses. */
export function occurrencesNormalized(normText: string, normPhrase: string): number[] {
  const found: number[] = [];
  for (let at = nextOccurrence(normText, normPhrase, 0); at >= 0; at = nextOccurrence(normText, normPhrase, at + 1)) {
    found.push(at);
  }
  return found;
}

function nextOccurrence(normText: string, normPhrase: string, from: number): number {
  if (normPhrase.length === 0) return -1;
  for (let at = normText.indexOf(normPhrase, from); at >= 0; at = normText.indexOf(normPhrase, at + 1)) {
    const before = at === 0 || normText[at - 1] === ' ' || versionPrefix(normText[at - 1], normPhrase);
    const end = at + normPhrase.length;
    const after = end === normText.length || normText[end] === ' ';
    if (before && after) return at;
  }
  return -1;
}

// `1.0.3` counts inside `v1.0.3` and `4417` inside `#4417`-style prefixes, but `10` never inside `100`.
function versionPrefix(prev: string, phrase: string): boolean {
  return LETTER.test(prev) && LEADING_NUMBER.test(phrase);
}

/**
 * Answer normalisation of the SQuAD and LoCoMo scorers, used to grade answers (token F1 and
 * `must_include`): lower case, ASCII punctuation deleted (`U.S.` → `us`, `e-mail` → `email`),
 * the words a/an/the/and dropped (LoCoMo drops "and" as well as the articles), single spaces.
 * On top of that, numbers are written one way, so a correct number is not failed for its format:
 * - an all-zero fraction goes, and commas are punctuation: `1,200` = `1200` = `1200.0`;
 * - `$` is punctuation and `%` is too, and `percent`/`per cent` after a number is read as `%`,
 *   so `$1,200` = `1200` and `15%` = `15 percent` = `15` (a unit never blocks a match);
 * - a sign is kept: `-5`, `−5` and `minus 5` are `-5`, never `5`;
 * - a decimal point between digits is kept, so `1.5` is not `15` and `v1.0.3` stays whole.
 * Other (non-ASCII) punctuation, such as a dash, becomes a space.
 */
export function normalizeAnswer(text: string): string {
  const marked = canonicalNumbers(
    text.normalize('NFKC').toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(MINUS_SIGNS, '-'),
  );
  return marked
    .replace(/[^\p{L}\p{N}\s]+/gu, (run: string, at: number) => punctuationReplacement(marked, run, at))
    .split(/\s+/)
    .filter((w) => w.length > 0 && !ANSWER_DROPPED_WORDS.has(w))
    .join(' ');
}

const ANSWER_DROPPED_WORDS = new Set(['a', 'an', 'the', 'and']);
// U+2212 minus, figure dash, en dash, small and full-width hyphen-minus: all read as a minus sign before a digit.
const MINUS_SIGNS = /[\u2212\u2012\u2013\ufe63\uff0d]/g;

function canonicalNumbers(text: string): string {
  return text
    .replace(/\b(?:minus|negative) (?=\d)/g, '-')
    .replace(/(?<![\p{L}\p{N}.])(\d+)\.0+(?!\d|\.\d)/gu, '$1')
    .replace(/(\d) ?(?:percent|per cent)\b/g, '$1%');
}

// Python's string.punctuation (what the official scorers delete) is exactly the ASCII range below.
// A run of two or more marks separates words instead: `{"order":"BC-1"}` must not become one
// word `orderbc1` (the official scorers never see JSON; our offline reader answers with it).
function punctuationReplacement(text: string, run: string, at: number): string {
  const prev = text[at - 1] ?? ' ';
  const next = text[at + run.length] ?? ' ';
  const sign = run.endsWith('-') && /\d/.test(next) && (run.length > 1 || !/[\p{L}\p{N}]/u.test(prev));
  if (run.length > 1) return sign ? ' -' : ' ';
  if (sign) return run;
  if (run === '.' && /\d/.test(prev) && /\d/.test(next)) return run;
  return /[!-/:-@[-`{-~]/.test(run) ? '' : ' ';
}

/** The phrasings that count as a fact being present. */
export function factPhrases(fact: Fact): string[] {
  return [fact.text, ...fact.aliases];
}

/** True when any phrasing of `fact` occurs in the (raw) text. */
export function factPresentIn(text: string, fact: Fact): boolean {
  return factPresentInNormalized(normalizeText(text), fact);
}

/** `factPresentIn` for a text already passed through `normalizeText`: one normalisation serves every fact. */
export function factPresentInNormalized(normText: string, fact: Fact): boolean {
  return factPhrases(fact).some((p) => containsNormalized(normText, normalizeText(p)));
}

const NO_POSITIONS = new Int32Array(0);

/** Index of the first element of the ascending `sorted` that is at least `value` (how many are below it): a binary search. */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Text up to (not including) the `count`-th space: the first `count` words of a normalised text. */
function leadingWords(normText: string, count: number): string {
  let end = -1;
  for (let i = 0; i < count; i++) {
    end = normText.indexOf(' ', end + 1);
    if (end < 0) return normText;
  }
  return normText.slice(0, end);
}

// A normalised phrase has single inner spaces and none at its ends; any other
// phrase can never match in normalised text (it has no double or edge spaces).
function isCanonicalPhrase(phrase: string): boolean {
  return phrase.length > 0 && phrase[0] !== ' ' && phrase[phrase.length - 1] !== ' ' && !phrase.includes('  ');
}

// Suffixes can be as long as their word; past 64 characters the key is the
// head and the length, and candidates are verified, so keys stay short on any input.
function suffixKey(suffix: string): string {
  return suffix.length <= 64 ? suffix : `${suffix.slice(0, 64)}\u0000${suffix.length}`;
}

/** Grows an Int32Array by doubling, for word streams of unknown length. */
class IntList {
  private data = new Int32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  done(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * `containsNormalized` over one long normalised text kept as segments (say, one per
 * transcript turn), asked about many phrases and many ranges of segments. Joining a
 * range and scanning it costs the range's length on every question, which made
 * checks against ever longer prefixes quadratic; here the words are indexed once and
 * a question costs a binary search (plus one pass over the text per distinct
 * multi-word phrase, for its rarest word).
 *
 * Segments and `after` must be normalised (`normalizeText` output or finer: single
 * spaces, none at either end). Then a match is a run of whole words, except that
 * its first word may be the end of a longer word when a letter precedes a number
 * (the `versionPrefix` rule), and that is what the index answers.
 */
export class NormalizedSegments {
  private readonly vocab = new Map<string, number>();
  private readonly words: string[] = [];
  /** Word id at each word position of the whole text. */
  private readonly ids: Int32Array;
  /** First word position of each segment, and the total at the end. */
  private readonly segmentStart: Int32Array;
  /** Positions of word id i: `byWord[byWordStart[i] .. byWordStart[i + 1])`, ascending. */
  private readonly byWordStart: Int32Array;
  private readonly byWord: Int32Array;
  /** Number-initial suffixes that follow a letter inside a word, to the words holding them; built on first use. */
  private suffixOwners: Map<string, number[]> | undefined;
  /** Ascending start positions of each phrase asked about. */
  private readonly starts = new Map<string, Int32Array>();

  constructor(segments: readonly string[]) {
    const ids = new IntList();
    const counts: number[] = [];
    this.segmentStart = new Int32Array(segments.length + 1);
    segments.forEach((segment, i) => {
      this.segmentStart[i] = ids.length;
      if (segment.length === 0) return;
      for (const word of segment.split(' ')) {
        let id = this.vocab.get(word);
        if (id === undefined) {
          id = this.words.length;
          this.vocab.set(word, id);
          this.words.push(word);
          counts.push(0);
        }
        counts[id] += 1;
        ids.push(id);
      }
    });
    this.segmentStart[segments.length] = ids.length;
    this.ids = ids.done();
    this.byWordStart = new Int32Array(this.words.length + 1);
    for (let id = 0; id < counts.length; id++) this.byWordStart[id + 1] = this.byWordStart[id] + counts[id];
    this.byWord = new Int32Array(this.ids.length);
    const fill = this.byWordStart.slice(0, -1);
    this.ids.forEach((id, at) => (this.byWord[fill[id]++] = at));
  }

  get segmentCount(): number {
    return this.segmentStart.length - 1;
  }

  /**
   * Same as `containsNormalized([...segments.slice(from, to), after].filter((s) => s !== '').join(' '), normPhrase)`
   * (`from`/`to` are 0-based segment indices, `to` exclusive).
   */
  contains(from: number, to: number, normPhrase: string, after = ''): boolean {
    if (!isCanonicalPhrase(normPhrase)) return false;
    const first = Math.min(Math.max(from, 0), this.segmentCount);
    const lo = this.segmentStart[first];
    const hi = this.segmentStart[Math.min(Math.max(to, first), this.segmentCount)];
    const words = normPhrase.split(' ').length;
    if (lo < hi && this.inRange(normPhrase, words, lo, hi)) return true;
    if (after.length === 0) return false;
    if (containsNormalized(after, normPhrase)) return true;
    if (words < 2 || lo >= hi) return false;
    // A match may start in the range's last words and run on into `after`.
    const tail: string[] = [];
    for (let at = Math.max(lo, hi - (words - 1)); at < hi; at++) tail.push(this.words[this.ids[at]]);
    return containsNormalized(`${tail.join(' ')} ${leadingWords(after, words - 1)}`, normPhrase);
  }

  private inRange(phrase: string, words: number, lo: number, hi: number): boolean {
    const starts = this.startsOf(phrase);
    const i = lowerBound(starts, lo);
    // Every match of the phrase spans the same number of words, so the first start at or after lo decides.
    return i < starts.length && starts[i] + words <= hi;
  }

  private startsOf(phrase: string): Int32Array {
    let hit = this.starts.get(phrase);
    if (!hit) {
      hit = this.findStarts(phrase);
      this.starts.set(phrase, hit);
    }
    return hit;
  }

  private positions(id: number): Int32Array {
    return this.byWord.subarray(this.byWordStart[id], this.byWordStart[id + 1]);
  }

  private findStarts(phrase: string): Int32Array {
    const parts = phrase.split(' ');
    if (parts.length === 1) return this.singleWordStarts(phrase);
    // Every part after the first is a whole word: walk the rarest one's positions.
    const rest: number[] = [];
    for (const part of parts.slice(1)) {
      const id = this.vocab.get(part);
      if (id === undefined) return NO_POSITIONS;
      rest.push(id);
    }
    let anchor = 0;
    rest.forEach((id, i) => {
      if (this.positions(id).length < this.positions(rest[anchor]).length) anchor = i;
    });
    const found: number[] = [];
    for (const at of this.positions(rest[anchor])) {
      const start = at - anchor - 1;
      if (start < 0 || start + parts.length > this.ids.length) continue;
      if (!rest.every((id, i) => this.ids[start + 1 + i] === id)) continue;
      if (this.firstWordMatches(this.ids[start], parts[0], phrase)) found.push(start);
    }
    return Int32Array.from(found);
  }

  /** The first word of a match is the phrase's first word, or ends with it after a letter when the phrase starts with a number. */
  private firstWordMatches(id: number, first: string, phrase: string): boolean {
    const word = this.words[id];
    if (word === first) return true;
    return word.length > first.length && word.endsWith(first) && versionPrefix(word[word.length - first.length - 1], phrase);
  }

  private singleWordStarts(word: string): Int32Array {
    const id = this.vocab.get(word);
    const own = id === undefined ? NO_POSITIONS : this.positions(id);
    if (!/^\p{N}/u.test(word)) return own;
    const owners = (this.suffixIndex().get(suffixKey(word)) ?? []).filter((o) => this.firstWordMatches(o, word, word));
    if (owners.length === 0) return own;
    const lists = [own, ...owners.map((o) => this.positions(o))];
    const merged = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const list of lists) {
      merged.set(list, at);
      at += list.length;
    }
    return merged.sort();
  }

  private suffixIndex(): Map<string, number[]> {
    if (this.suffixOwners) return this.suffixOwners;
    const index = new Map<string, number[]>();
    this.words.forEach((word, id) => {
      for (let k = 1; k < word.length; k++) {
        const code = word.charCodeAt(k);
        // Only 0-9 are numbers in ASCII; the regex decides everything else.
        if (code < 128 && (code < 48 || code > 57)) continue;
        const suffix = word.slice(k);
        if (!versionPrefix(word[k - 1], suffix)) continue;
        const key = suffixKey(suffix);
        const owners = index.get(key);
        if (owners) owners.push(id);
        else index.set(key, [id]);
      }
    });
    this.suffixOwners = index;
    return index;
  }
}

/**
 * Words that name nothing a question asks about (articles, pronouns, auxiliaries, asking
 * verbs such as "tell" or "remember"): the offline reader and retrieval scoring skip them.
 * Lower-case words as `normalizeText` writes them.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto over under about across among within as is are was were be been being ' +
    'am do does did done doing have has had having i me my mine myself we us our ours you your yours he him his she her hers it its ' +
    'they them their theirs this that these those there here what which who whom whose when where why how all any both each few more ' +
    'other some such no nor not only own same so than too very can could will would shall should may might must just also again ' +
    'now ever still yet please tell told say said says mention mentioned remember recall know knew think thought anything ' +
    'something everything one ok okay yes yeah hi hello thanks thank s t d ll m re ve get got let lets many much long whole per ca wo up'
  ).split(/\s+/),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/**
 * Light suffix stemming of one lower-case word, for the offline reader: related
 * words only need to collide, so it strips a plural, then `-ing`/`-ed`, then a
 * final `e` (`code`, `codes`, `coded`, `coding` all become `cod`); over-stemming
 * costs it nothing. Words with a digit and words of up to three letters are kept
 * as they are. (Answers are graded with the Porter stemmer, core/porter.ts, as
 * the official LoCoMo scorer does.)
 */
export function stem(word: string): string {
  if (/\d/.test(word) || word.length <= 3) return word;
  const w = stripVerbEnding(singular(word));
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('sses')) return word.slice(0, -2);
  return word.endsWith('s') && !/(ss|us)$/.test(word) ? word.slice(0, -1) : word;
}

function stripVerbEnding(word: string): string {
  if (word.length > 4 && word.endsWith('ied')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return undouble(word.slice(0, -3));
  if (word.length > 4 && word.endsWith('ed')) return undouble(word.slice(0, -2));
  return word;
}

/** "scanned" → "scan", "planning" → "plan" (as "scans", "plans"); "called", "passed" keep theirs. */
function undouble(word: string): string {
  return /([b-df-hj-km-np-rtv-xz])\1$/.test(word) && !/(ll|ss|zz)$/.test(word) ? word.slice(0, -1) : word;
}

/**
 * What `countWords` counts. The callers measure different things, so the rule is explicit:
 * - `runs`: every white-space separated run, bullets and dashes included — the space a
 *   text takes (the offline summarizer's word budget, the length of a benchmark answer).
 * - `words`: only runs holding a letter or digit — what a reader would call words, so
 *   `•` and `-` bullets are free (the summary check against a prompt's word limit).
 */
export type WordRule = 'runs' | 'words';

export function countWords(text: string, rule: WordRule): number {
  const runs = text.split(WORD_SPACES).filter((w) => w.length > 0);
  return rule === 'runs' ? runs.length : runs.filter((w) => LETTER_OR_DIGIT.test(w)).length;
}

const WORD_SPACES = /\s+/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Tokens as the LoCoMo scorer counts them: `normalizeAnswer`, then the Porter stem (NLTK's default `PorterStemmer()` mode) of
 * every token, so "running"/"runs" and "connection"/"connected" count as the same word.
 */
export function answerTokens(text: string): string[] {
  const normalized = normalizeAnswer(text);
  return normalized.length === 0 ? [] : normalized.split(' ').map(porterStem);
}

/** Python's `string.punctuation`: what LoCoMo's normalize_answer deletes (and nothing else). */
const PYTHON_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
/** `\b(a|an|the|and)\b` as Python reads it on a str: a word character is a letter, a number of any script, or "_". */
const LOCOMO_ARTICLE = /(?<![\p{L}\p{N}_])(?:a|an|the|and)(?![\p{L}\p{N}_])/gu;
/** What Python's str.split() splits on: Unicode whitespace, and the separators \x1c–\x1f. */
const PYTHON_SPACE = /[\s\x1c-\x1f]+/u;

/**
 * LoCoMo's normalize_answer (task_eval/evaluation.py) as written: commas out, lower case, ASCII
 * punctuation deleted, articles and "and" out, whitespace collapsed. Other characters stay as
 * they are: a curly apostrophe, a dash or an ellipsis is part of its word there, and so here.
 */
export function locomoNormalize(text: string): string {
  let kept = '';
  for (const ch of text.replace(/,/g, '').toLowerCase()) if (!PYTHON_PUNCTUATION.has(ch)) kept += ch;
  return kept.replace(LOCOMO_ARTICLE, ' ').split(PYTHON_SPACE).filter(Boolean).join(' ');
}

function locomoTokens(text: string): string[] {
  const normalized = locomoNormalize(text);
  return normalized.length === 0 ? [] : normalized.split(' ').map(porterStem);
}

/**
 * Token F1 as LoCoMo's evaluation computes it (its normalize_answer, Porter stems, each gold
 * token matched at most as often as it occurs); 0 when either side has no tokens. Every
 * figure memeval calls LoCoMo's official F1 is this one: `1200.0` is not `1200` here, as there.
 */
export function officialF1(prediction: string, gold: string): number {
  return overlapF1(locomoTokens(prediction), locomoTokens(gold));
}

/**
 * memeval's own token F1 (a probe record's `f1`, the offline judge): LoCoMo's way of counting
 * over `normalizeAnswer`'s tokens, which write a number one way (`1200.0` = `1,200`, a sign
 * kept: `-5` is not `5`) and read typographic punctuation as ASCII.
 */
export function answerF1(prediction: string, gold: string): number {
  return overlapF1(answerTokens(prediction), answerTokens(gold));
}

/** F1 of two token lists, each reference token matched at most as often as it occurs; 0 when either is empty. */
function overlapF1(predicted: string[], reference: string[]): number {
  if (predicted.length === 0 || reference.length === 0) return 0;
  const remaining = new Map<string, number>();
  for (const t of reference) remaining.set(t, (remaining.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of predicted) {
    const left = remaining.get(t) ?? 0;
    if (left > 0) {
      common++;
      remaining.set(t, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / reference.length;
  return (2 * precision * recall) / (precision + recall);
}
