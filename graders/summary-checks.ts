// Deterministic checks every summary gets, with no model: fact coverage,
// identifiers the source never mentions, length, headings and stale facts.
import { itemLabel, itemText, turnItems } from '../core/items.js';
import { containsNormalized, countWords, factPresentIn, normalizeText } from '../core/text.js';
import type { Fact, SummaryChecks, SummaryRecord, Transcript } from '../core/types.js';

export interface SummaryCheckOptions {
  /** Word limit the summary is held to (the summarizer's `word_limit`). */
  wordLimit: number;
  /** Required headings; parsed from the summary's system prompt when omitted. */
  headings?: string[];
}

/** `ROLE: text` lines of the real turns in `range` (1-based, inclusive), untrimmed. */
export function renderTurns(transcript: Transcript, range: [number, number]): string {
  const lines: string[] = [];
  transcript.turns.forEach((turn, i) => {
    const n = i + 1;
    if (n < range[0] || n > range[1]) return;
    for (const item of turnItems(turn, n)) {
      const text = itemText(item).trim();
      if (text) lines.push(`${itemLabel(item)}: ${text}`);
    }
  });
  return lines.join('\n');
}

/** What a summary may draw on: the covered turns in full plus the exact input the summarizer got. */
export function summarySource(transcript: Transcript, summary: SummaryRecord): string {
  return [renderTurns(transcript, summary.coveredTurns), summary.request.user].filter(Boolean).join('\n');
}

function inRange(turn: number, range: [number, number]): boolean {
  return turn >= range[0] && turn <= range[1];
}

/**
 * Facts a summary of `range` should state: those first stated in the range, minus
 * superseded facts whose replacement is also in the range (only the latest value is due).
 */
export function dueFacts(facts: Fact[], range: [number, number]): Fact[] {
  const byId = new Map(facts.map((f) => [f.id, f]));
  return facts.filter((f) => {
    if (!inRange(f.turn, range)) return false;
    const next = f.supersededBy ? byId.get(f.supersededBy) : undefined;
    return !(next && inRange(next.turn, range));
  });
}

/** Superseded facts the summary states while their (covered) replacement is absent. */
export function staleFacts(facts: Fact[], range: [number, number], summaryText: string): string[] {
  const byId = new Map(facts.map((f) => [f.id, f]));
  const stale: string[] = [];
  for (const f of facts) {
    const next = f.supersededBy ? byId.get(f.supersededBy) : undefined;
    if (!next || !inRange(f.turn, range) || !inRange(next.turn, range)) continue;
    if (factPresentIn(summaryText, f) && !factPresentIn(summaryText, next)) stale.push(f.id);
  }
  return stale;
}

/**
 * Required headings of a prompt: lines that start with a bullet (•, ▪, ◦) or a
 * markdown heading mark and end with ":" — the cookbook prompt writes
 * "• Product & Environment:". Returned without the bullet and colon.
 */
export function parsePromptHeadings(prompt: string): string[] {
  const headings: string[] = [];
  for (const line of prompt.split(/\r?\n/)) {
    const m = /^\s*(?:[•▪◦]|#{1,6})\s*(.+?)\s*:\s*$/u.exec(line);
    if (m) headings.push(m[1]);
  }
  return headings;
}

export function missingHeadings(summaryText: string, headings: string[]): string[] {
  const norm = normalizeText(summaryText);
  return headings.filter((h) => !containsNormalized(norm, normalizeText(h)));
}

/**
 * Identifier-like tokens: anything with a digit (versions, codes, numbers, times),
 * e-mail addresses, and upper-case codes joined by - or _ (e.g. "RX-ALPHA").
 */
export function identifiersIn(text: string): string[] {
  const found = new Set<string>();
  // Slashes, brackets and separators split tokens: "49.8/50" is two numbers, "lookup(RX-1" names RX-1.
  for (const raw of text.split(/[\s/()[\]{},;|=]+/)) {
    const token = raw.replace(/^[^\p{L}\p{N}#]+|[^\p{L}\p{N}]+$/gu, '');
    if (!token) continue;
    if (/\d/.test(token) || token.includes('@') || /^[A-Z]{2,}[-_][A-Z0-9_-]+$/.test(token)) found.add(token);
  }
  return [...found];
}

const NUMBER_WORDS = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
];
const ORDINAL_WORDS = [
  '', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth',
];

// Punctuation ignored and letters split from digits, so "2025-04-02" is found in "2025-04-02T08:14".
function loose(text: string): string {
  return normalizeText(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .replace(/(?<=\p{N})(?=\p{L})|(?<=\p{L})(?=\p{N})/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * True when the source supports `token`: a normalised match, a match with inner
 * punctuation and letter/digit joins ignored (so "10:32" is found in
 * "2025-03-02T10:32:00Z"; digits must still match in full), the number
 * without a letter prefix ("v1.0.3" against "1.0.3"), or a small number the source
 * spells out ("3rd" against "third").
 */
function supported(token: string, normSource: string, looseSource: string): boolean {
  const norm = normalizeText(token);
  if (containsNormalized(normSource, norm) || containsNormalized(looseSource, loose(token))) return true;
  const bare = /^[a-z]{1,2}(\d[\w.:-]*)$/i.exec(norm);
  if (bare && containsNormalized(normSource, bare[1])) return true;
  const small = /^(\d{1,2})(st|nd|rd|th|x)?$/.exec(norm);
  if (small) {
    const n = Number(small[1]);
    const words = [NUMBER_WORDS[n], ORDINAL_WORDS[n]].filter((w): w is string => Boolean(w));
    return words.some((w) => containsNormalized(normSource, w));
  }
  return false;
}

/** Identifiers in the summary that never appear in the source (likely hallucinations), and how many were checked. */
export function unsupportedIdentifiers(summaryText: string, source: string): { checked: number; unsupported: string[] } {
  const normSource = normalizeText(source);
  const looseSource = loose(source);
  const ids = identifiersIn(summaryText);
  return { checked: ids.length, unsupported: ids.filter((t) => !supported(t, normSource, looseSource)) };
}

/** All deterministic checks of one summary against its transcript. */
export function checkSummary(transcript: Transcript, summary: SummaryRecord, options: SummaryCheckOptions): SummaryChecks {
  const range = summary.coveredTurns;
  const due = dueFacts(transcript.facts, range);
  const kept = due.filter((f) => factPresentIn(summary.text, f)).map((f) => f.id);
  const keptSet = new Set(kept);
  // Bullets are not words: a summary is not over its limit for being formatted as a list.
  const words = countWords(summary.text, 'words');
  const headings = options.headings ?? parsePromptHeadings(summary.request.system);
  return {
    factCoverage: due.length === 0 ? 1 : kept.length / due.length,
    factsKept: kept,
    factsMissing: due.filter((f) => !keptSet.has(f.id)).map((f) => f.id),
    unsupported: unsupportedIdentifiers(summary.text, summarySource(transcript, summary)).unsupported,
    words,
    wordLimit: options.wordLimit,
    overLimit: words > options.wordLimit,
    headingsMissing: missingHeadings(summary.text, headings),
    staleFacts: staleFacts(transcript.facts, range, summary.text),
  };
}
