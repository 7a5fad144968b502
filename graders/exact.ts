// Deterministic answer checks: must_include matching, LoCoMo-style token F1 and
// abstention detection. No model is involved, so these are exact and repeatable.
import { containsPhrase, normalizeText, stem } from '../core/text.js';

/** True when every `mustInclude` entry has at least one alternative in `answer` (normalised match). */
export function mustIncludePass(answer: string, mustInclude: string[][]): boolean {
  return mustInclude.every((alternatives) => alternatives.some((phrase) => containsPhrase(answer, phrase)));
}

// LoCoMo's normalize_answer drops these four words before counting tokens.
const DROPPED_WORDS = new Set(['a', 'an', 'the', 'and']);

/**
 * Tokens as LoCoMo counts them: normalised, articles and "and" dropped, lightly stemmed.
 * LoCoMo runs a Porter stemmer; the `answer` stem keeps only its plural and -ing/-ed
 * steps, which is enough for short factual answers and keeps the score easy to compute by hand.
 */
export function answerTokens(text: string): string[] {
  return normalizeText(text)
    .split(' ')
    .filter((w) => w.length > 0 && !DROPPED_WORDS.has(w))
    .map((w) => stem(w, 'answer'));
}

/** Token-overlap F1 between an answer and the reference (0 when either side has no tokens). */
export function tokenF1(answer: string, reference: string): number {
  const predicted = answerTokens(answer);
  const gold = answerTokens(reference);
  if (predicted.length === 0 || gold.length === 0) return 0;
  const remaining = new Map<string, number>();
  for (const t of gold) remaining.set(t, (remaining.get(t) ?? 0) + 1);
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
  const recall = common / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

// Phrasings of "I was not told that". Matched on normalised text, so apostrophes are plain `'`.
const ABSTENTION_PATTERNS: RegExp[] = [
  /\b(i|we) (do not|don't|dont) (know|have|recall|see)\b/,
  /\b(i'm|i am|im) (not sure|not aware|unsure|unable to (tell|say|determine|find))\b/,
  /\b(cannot|can't|cant|can not|could not|couldn't) (tell|say|determine|find|know|recall|see)\b/,
  /\b(was|were|is|has|have|had)( not|n't) (been )?(mentioned|given|provided|stated|specified|shared|said|told|discussed|included|recorded)\b/,
  /\b(never|not) (been )?(mentioned|given|provided|stated|specified|shared|said|told|discussed)\b/,
  /\b(did not|didn't|didnt|have not|haven't|has not|hasn't|never) (mention|say|tell|give|share|provide|specify|state)\b/,
  /\bno (information|record|mention|details?|data|indication)\b/,
  /\b(not|isn't|is not) (in|part of) (the|our|this) (conversation|context|history|record)\b/,
  // Bare "unknown" is too broad ("error: unknown host" is a claim); it must be what the answer asserts.
  /\b(is|are|was|were|remains?) (still )?unknown\b/,
  /^unknown\b/,
  /\bnot (known|available)\b/,
];

/** True when the answer says the information is unknown or was never given. */
export function isAbstention(answer: string): boolean {
  const text = normalizeText(answer);
  if (text.length === 0) return false;
  return ABSTENTION_PATTERNS.some((re) => re.test(text));
}
