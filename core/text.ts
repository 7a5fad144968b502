// The one text normalisation used for fact presence and the offline reader: case,
// surrounding punctuation and repeated white space are ignored. Answers are graded with
// `normalizeAnswer`, the official scorers' normalisation, which is deliberately stricter.
// Also the reader's stemmer and the one word counter (its callers' rules are named modes).
import type { Fact } from './types.js';

/** Lower-cases, turns punctuation runs into single spaces and trims. Keeps inner `.`/`-`/`:`
 * between alphanumerics, so `v1.0.3`, `RX-88812` and `10:32` survive intact. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/(?<![\p{L}\p{N}])[^\p{L}\p{N}\s]+|[^\p{L}\p{N}\s]+(?![\p{L}\p{N}])/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
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
  return /\p{L}/u.test(prev) && /^\p{N}/u.test(phrase);
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
  const norm = normalizeText(text);
  return factPhrases(fact).some((p) => containsNormalized(norm, normalizeText(p)));
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
  const runs = text.split(/\s+/).filter((w) => w.length > 0);
  return rule === 'runs' ? runs.length : runs.filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}
