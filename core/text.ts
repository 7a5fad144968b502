// The one text normalisation used for `must_include`, fact presence and the
// offline reader: case, surrounding punctuation and repeated white space are ignored.
// Also the one stemmer and the one word counter; where callers need different
// results, that is a named mode of the one function, not a second copy.
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
  if (normPhrase.length === 0) return false;
  let from = 0;
  for (;;) {
    const at = normText.indexOf(normPhrase, from);
    if (at < 0) return false;
    const before = at === 0 || normText[at - 1] === ' ' || versionPrefix(normText[at - 1], normPhrase);
    const end = at + normPhrase.length;
    const after = end === normText.length || normText[end] === ' ';
    if (before && after) return true;
    from = at + 1;
  }
}

// `1.0.3` counts inside `v1.0.3` and `4417` inside `#4417`-style prefixes, but `10` never inside `100`.
function versionPrefix(prev: string, phrase: string): boolean {
  return /\p{L}/u.test(prev) && /^\p{N}/u.test(phrase);
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
 * How far `stem` strips. The two callers want different things and their scores
 * depend on it, so the difference is a named choice rather than two stemmers:
 * - `reader`: the offline reader only needs related words to collide, so it strips a
 *   plural, then `-ing`/`-ed`, then a final `e` (`code`, `codes`, `coded`, `coding`
 *   all become `cod`). Over-stemming costs it nothing.
 * - `answer`: token F1 of an answer against its reference strips at most one suffix and
 *   undoubles a consonant (`resetting` → `reset`), so a stem stays a readable word and a
 *   score can be checked by hand. It keeps `-is` words (`analysis`, `this`) whole.
 */
export type StemMode = 'reader' | 'answer';

/** Light suffix stemming of one lower-case word. Words with a digit and words of up to three letters are kept as they are. */
export function stem(word: string, mode: StemMode): string {
  if (/\d/.test(word) || word.length <= 3) return word;
  if (mode === 'answer') return word.endsWith('s') ? singular(word, mode) : stripVerbEnding(word, mode);
  const w = stripVerbEnding(singular(word, mode), mode);
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

function singular(word: string, mode: StemMode): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (mode === 'reader' && word.length > 4 && word.endsWith('sses')) return word.slice(0, -2);
  const keep = mode === 'reader' ? /(ss|us)$/ : /(ss|us|is)$/;
  return word.endsWith('s') && !keep.test(word) ? word.slice(0, -1) : word;
}

function stripVerbEnding(word: string, mode: StemMode): string {
  let w = word;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else return word;
  return mode === 'answer' ? undouble(w) : w;
}

// "resetting" → "resett" → "reset"; "called" keeps "call" because "ll" is a real ending.
function undouble(word: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(word) && !/(ll|ss|zz)$/.test(word) ? word.slice(0, -1) : word;
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
