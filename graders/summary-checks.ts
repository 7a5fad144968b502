// Deterministic checks every summary gets, with no model: fact coverage,
// identifiers the source never mentions, length, headings and stale facts.
import { itemLabel, itemText, turnItems } from '../core/items.js';
import {
  containsNormalized,
  countWords,
  factPresentInNormalized,
  NormalizedSegments,
  normalizeText,
} from '../core/text.js';
import type { Fact, MadeSummary, SummaryChecks, Transcript, Turn } from '../core/types.js';

export interface SummaryCheckOptions {
  /** Word limit the summary is held to (the summarizer's `word_limit`). */
  wordLimit: number;
  /** Required headings; parsed from the summary's system prompt when omitted. */
  headings?: string[];
}

/** `ROLE: text` lines of one turn (1-based `n`), as `renderTurns` writes them. */
function turnLines(turn: Turn, n: number): string[] {
  const lines: string[] = [];
  for (const item of turnItems(turn, n)) {
    const text = itemText(item).trim();
    if (text) lines.push(`${itemLabel(item)}: ${text}`);
  }
  return lines;
}

/**
 * The 1-based turns `range` selects among `count`, as `first..last` (empty when
 * first > last). A NaN bound excludes nothing, as a `n < from || n > to` test reads it.
 */
function turnSpan(range: [number, number], count: number): [number, number] {
  const first = Number.isNaN(range[0]) ? 1 : Math.max(1, Math.ceil(range[0]));
  const last = Number.isNaN(range[1]) ? count : Math.min(count, Math.floor(range[1]));
  return [first, last];
}

/** `ROLE: text` lines of the real turns in `range` (1-based, inclusive), untrimmed. */
export function renderTurns(transcript: Transcript, range: [number, number]): string {
  const [first, last] = turnSpan(range, transcript.turns.length);
  const lines: string[] = [];
  for (let n = first; n <= last; n++) lines.push(...turnLines(transcript.turns[n - 1], n));
  return lines.join('\n');
}

/** What a summary may draw on: the covered turns in full plus the exact input the summarizer got. */
export function summarySource(transcript: Transcript, summary: MadeSummary): string {
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
  const norm = normalizeText(summaryText);
  const stale: string[] = [];
  for (const f of facts) {
    const next = f.supersededBy ? byId.get(f.supersededBy) : undefined;
    if (!next || !inRange(f.turn, range) || !inRange(next.turn, range)) continue;
    if (factPresentInNormalized(norm, f) && !factPresentInNormalized(norm, next)) stale.push(f.id);
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
  return looseOfNormalized(normalizeText(text));
}

/** `loose` of a text already passed through `normalizeText` (the source's turns are normalised once for both forms). */
function looseOfNormalized(norm: string): string {
  return norm
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .replace(/(?<=\p{N})(?=\p{L})|(?<=\p{L})(?=\p{N})/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Where identifiers are looked up: the source normalised, and in its `loose` form. */
interface SourceLookup {
  hasNorm(phrase: string): boolean;
  hasLoose(phrase: string): boolean;
}

function stringLookup(source: string): SourceLookup {
  const normSource = normalizeText(source);
  const looseSource = looseOfNormalized(normSource);
  return {
    hasNorm: (phrase) => containsNormalized(normSource, phrase),
    hasLoose: (phrase) => containsNormalized(looseSource, phrase),
  };
}

/**
 * True when the source supports `token`: a normalised match, a match with inner
 * punctuation and letter/digit joins ignored (so "10:32" is found in
 * "2025-03-02T10:32:00Z"; digits must still match in full), the number
 * without a letter prefix ("v1.0.3" against "1.0.3"), or a small number the source
 * spells out ("3rd" against "third").
 */
function supported(token: string, source: SourceLookup): boolean {
  const norm = normalizeText(token);
  if (source.hasNorm(norm) || source.hasLoose(loose(token))) return true;
  const bare = /^[a-z]{1,2}(\d[\w.:-]*)$/i.exec(norm);
  if (bare && source.hasNorm(bare[1])) return true;
  const small = /^(\d{1,2})(st|nd|rd|th|x)?$/.exec(norm);
  if (small) {
    const n = Number(small[1]);
    const words = [NUMBER_WORDS[n], ORDINAL_WORDS[n]].filter((w): w is string => Boolean(w));
    return words.some((w) => source.hasNorm(w));
  }
  return false;
}

function identifierCheck(summaryText: string, source: SourceLookup): { checked: number; unsupported: string[] } {
  const ids = identifiersIn(summaryText);
  return { checked: ids.length, unsupported: ids.filter((t) => !supported(t, source)) };
}

/** Identifiers in the summary that never appear in the source (likely hallucinations), and how many were checked. */
export function unsupportedIdentifiers(summaryText: string, source: string): { checked: number; unsupported: string[] } {
  return identifierCheck(summaryText, stringLookup(source));
}

/**
 * A transcript's turns, normalised once (plain and `loose`) and indexed, so that the
 * many summaries of one transcript, each covering a longer prefix, never normalise
 * or rescan that prefix again. `request.user` differs per summary; the last one is
 * kept because a summary is checked more than once in a row (checks, then the judge).
 */
interface TranscriptSource {
  turns: readonly Turn[];
  turnCount: number;
  norm: NormalizedSegments;
  loose: NormalizedSegments;
  lastUser?: { text: string; norm: string; loose: string };
}

// Keyed by the transcript object: transcripts are not edited once loaded, and a
// replaced or resized `turns` array is noticed and rebuilt.
const sources = new WeakMap<Transcript, TranscriptSource>();

function transcriptSource(transcript: Transcript): TranscriptSource {
  const hit = sources.get(transcript);
  if (hit && hit.turns === transcript.turns && hit.turnCount === transcript.turns.length) return hit;
  // One turn's lines normalise to the same words as they do inside any longer rendering:
  // normalisation never reaches across a line break.
  const norm = transcript.turns.map((turn, i) => normalizeText(turnLines(turn, i + 1).join('\n')));
  const built: TranscriptSource = {
    turns: transcript.turns,
    turnCount: transcript.turns.length,
    norm: new NormalizedSegments(norm),
    loose: new NormalizedSegments(norm.map(looseOfNormalized)),
  };
  sources.set(transcript, built);
  return built;
}

function normalizedUser(source: TranscriptSource, user: string): { norm: string; loose: string } {
  if (source.lastUser?.text !== user) {
    const norm = normalizeText(user);
    source.lastUser = { text: user, norm, loose: looseOfNormalized(norm) };
  }
  return source.lastUser;
}

/** `summarySource` as an index look-up: the covered turns from the transcript's index, then `request.user`. */
function summaryLookup(transcript: Transcript, summary: MadeSummary): SourceLookup {
  const source = transcriptSource(transcript);
  const [first, last] = turnSpan(summary.coveredTurns, source.turnCount);
  const from = first - 1;
  const to = Math.max(from, last);
  const user = normalizedUser(source, summary.request.user);
  return {
    hasNorm: (phrase) => source.norm.contains(from, to, phrase, user.norm),
    hasLoose: (phrase) => source.loose.contains(from, to, phrase, user.loose),
  };
}

/**
 * `unsupportedIdentifiers(summary.text, summarySource(transcript, summary))`, in time
 * for the summary and its `request.user` only: the covered turns come from an index
 * built once per transcript.
 */
export function summaryIdentifiers(transcript: Transcript, summary: MadeSummary): { checked: number; unsupported: string[] } {
  return identifierCheck(summary.text, summaryLookup(transcript, summary));
}

/** All deterministic checks of one summary against its transcript. */
export function checkSummary(transcript: Transcript, summary: MadeSummary, options: SummaryCheckOptions): SummaryChecks {
  const range = summary.coveredTurns;
  const due = dueFacts(transcript.facts, range);
  const normText = normalizeText(summary.text);
  const kept = due.filter((f) => factPresentInNormalized(normText, f)).map((f) => f.id);
  const keptSet = new Set(kept);
  // Bullets are not words: a summary is not over its limit for being formatted as a list.
  const words = countWords(summary.text, 'words');
  const headings = options.headings ?? parsePromptHeadings(summary.request.system);
  return {
    factCoverage: due.length === 0 ? 1 : kept.length / due.length,
    factsKept: kept,
    factsMissing: due.filter((f) => !keptSet.has(f.id)).map((f) => f.id),
    unsupported: summaryIdentifiers(transcript, summary).unsupported,
    words,
    wordLimit: options.wordLimit,
    overLimit: words > options.wordLimit,
    headingsMissing: missingHeadings(summary.text, headings),
    staleFacts: staleFacts(transcript.facts, range, summary.text),
  };
}
