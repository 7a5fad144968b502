// The one text normalisation used for `must_include`, fact presence and the
// offline reader: case, surrounding punctuation and repeated white space are ignored.
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
