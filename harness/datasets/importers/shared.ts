// Rules both benchmark importers share, so LoCoMo and LongMemEval transcripts
// are graded the same way.
import { sessionHeader } from '../../../core/items.js';
import { containsNormalized, containsPhrase, countWords, normalizeText } from '../../../core/text.js';
import type { Fact, MessageTurn, Transcript } from '../../../core/types.js';

/** Answers up to this many words get a `must_include`; longer ones are left to the judge,
 * because a free-form sentence is almost never repeated word for word. */
export const SHORT_ANSWER_WORDS = 5;

/** A problem with one record of the input; the importer reports them together. */
export interface RecordProblem {
  /** Where in the input, e.g. `[3].qa[12]`. */
  where: string;
  reason: string;
}

/** Benchmarks store some answers as numbers or lists; the transcript wants text. */
export function answerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(answerText).filter((p): p is string => p !== undefined && p.length > 0);
    return parts.length > 0 ? parts.join(', ') : undefined;
  }
  return undefined;
}

/** `[[answer]]` for a short answer, nothing for a long one (see SHORT_ANSWER_WORDS). */
export function shortAnswerMustInclude(answer: string): string[][] {
  const words = countWords(answer, 'runs');
  return words > 0 && words <= SHORT_ANSWER_WORDS ? [[answer]] : [];
}

/** The text a fact must be found in: everything said in the turn. */
export function turnText(turn: MessageTurn): string {
  return turn.assistant === undefined ? turn.user : `${turn.user}\n${turn.assistant}`;
}

/** True when `answer` is stated in `text` (the harness's own matching rule). */
export function answerStatedIn(text: string, answer: string): boolean {
  return answer.trim().length > 0 && containsPhrase(text, answer);
}

/** A file-name-safe, id-safe form of a benchmark identifier. */
export function safeId(raw: string): string {
  const cleaned = raw
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return cleaned.length > 0 ? cleaned : 'unnamed';
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** Local date-time as ISO 8601 without a zone: the benchmarks give none, and inventing UTC would be wrong. */
export function isoLocal(year: number, month: number, day: number, hour: number, minute: number): string | undefined {
  const d = new Date(Date.UTC(year, month - 1, day, hour, minute));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  if (hour > 23 || minute > 59) return undefined;
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:00`;
}

export function monthNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  if (lower.length < 3) return undefined;
  const index = MONTHS.findIndex((m) => m.startsWith(lower));
  return index < 0 ? undefined : index + 1;
}

/** The input does not have the benchmark's shape; `where` says which record (e.g. `[3].qa`). */
export class SchemaError extends Error {
  constructor(
    readonly where: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'SchemaError';
  }
}

/** First turn text of a session: the header line, then what was said. */
export function withHeader(header: string, text: string): string {
  return text.length > 0 ? `${header}\n${text}` : header;
}

/**
 * A session's header line. When the date was read, it travels as `at:` (which memeval
 * shows as a `[date]` prefix), so the header names only the session; an unreadable date
 * has no `at:` and goes into the header instead. Either way the date appears once.
 */
export function sessionHeaderFor(session: number, rawDate: string | undefined, at: string | undefined): string {
  return sessionHeader(session, at === undefined ? rawDate?.trim() : undefined);
}

/**
 * A derived fact is too generic to track when its phrase is said in at least
 * this many turns of its conversation. Facts are the answer's exact words, and
 * presence is checked by those words anywhere in the context: "family" said in
 * 36 turns is "kept" whenever any one of them is, so counting it would credit a
 * strategy with retention it did not earn. A count, not a share, so a short and
 * a long conversation are judged alike: five separate turns already make the
 * phrase a topic of the conversation rather than the one statement the question
 * points at.
 */
export const GENERIC_FACT_MIN_TURNS = 5;

/** How many turn texts (each already through normalizeText) state `phrase`, by the harness's own matching rule (`answerStatedIn`). */
export function turnsStating(normalizedTurns: readonly string[], phrase: string): number {
  const p = normalizeText(phrase);
  if (p.length === 0) return 0;
  return normalizedTurns.filter((text) => containsNormalized(text, p)).length;
}

/**
 * Splits derived facts into those worth tracking and those too generic (see
 * GENERIC_FACT_MIN_TURNS). A generic fact keeps its record, with
 * `meta.generic: true` and `meta.turns` (how many turns state it), so the
 * transcript says what was left out and why.
 */
export function splitGenericFacts(facts: readonly Fact[], turns: readonly MessageTurn[], minTurns = GENERIC_FACT_MIN_TURNS): { kept: Fact[]; generic: Fact[] } {
  // Normalised once: a LoCoMo conversation has hundreds of turns and facts.
  const texts = turns.map((t) => normalizeText(turnText(t)));
  const kept: Fact[] = [];
  const generic: Fact[] = [];
  for (const fact of facts) {
    const count = turnsStating(texts, fact.text);
    if (count >= minTurns) generic.push({ ...fact, meta: { ...fact.meta, generic: true, turns: count } });
    else kept.push(fact);
  }
  return { kept, generic };
}

/** The transcript meta key generic facts are recorded under (read by run-info and the import summary). */
export const GENERIC_FACTS_KEY = 'generic_facts';

/** How many facts of an imported transcript were too generic to track. */
export function genericFactCount(t: Pick<Transcript, 'meta'>): number {
  const list = t.meta?.[GENERIC_FACTS_KEY];
  return Array.isArray(list) ? list.length : 0;
}
