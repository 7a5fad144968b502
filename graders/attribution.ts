// Why a probe was answered wrongly: the strategy lost a needed fact (cut, or
// summarised away), or the fact was there and the model missed it.
import { factPresentIn } from '../core/text.js';
import type { Attribution, Fact, ProbeKind, ProbeRecord, SummaryRecord } from '../core/types.js';

/** A summary that was part of the context the model saw, and the real turns it stands for. */
export interface SummaryInView {
  coveredTurns: [number, number];
  text: string;
}

export interface AttributionInput {
  kind: ProbeKind;
  /** True when the answer was graded correct; nothing is attributed then. */
  passed: boolean;
  /** Set when the answer or judge call failed. */
  error?: string;
  /** Ids of the facts the probe depends on (`probe.facts`). */
  factsNeeded: string[];
  /** Ids of the facts present in the context the model was sent. */
  factsPresent: string[];
  /** The transcript's facts (to know the turn each fact was stated in). */
  facts: Fact[];
  /** Summaries in the context at probe time (empty for strategies that never summarise). */
  summaries: SummaryInView[];
}

/**
 * Classifies a wrong answer; undefined for a correct one.
 * Order: a failed call is `error`; an abstention probe answered with a claim is
 * `abstain-fail`; when every needed fact was in the context it is
 * `present-but-missed`. Otherwise a missing fact decides: if any missing fact's
 * turn was cut with no summary standing for it the answer is `trimmed` (the
 * cruder loss wins); if every missing fact sits in a summarised turn whose
 * summary text lacks it, `lost-in-summary`.
 */
export function attribute(input: AttributionInput): Attribution | undefined {
  if (input.error) return 'error';
  if (input.passed) return undefined;
  if (input.kind === 'abstention') return 'abstain-fail';
  const present = new Set(input.factsPresent);
  const missing = input.factsNeeded.filter((id) => !present.has(id));
  if (missing.length === 0) return 'present-but-missed';
  const byId = new Map(input.facts.map((f) => [f.id, f]));
  let lostInSummary = false;
  for (const id of missing) {
    const fact = byId.get(id);
    const covering = fact ? input.summaries.filter((s) => covers(s, fact.turn)) : [];
    if (covering.length === 0) return 'trimmed';
    // The presence scan says the fact is absent; a summary that does state it means the scan saw it elsewhere.
    if (fact && covering.every((s) => !factPresentIn(s.text, fact))) lostInSummary = true;
  }
  return lostInSummary ? 'lost-in-summary' : 'present-but-missed';
}

/** What `answerableOf` reads: the probe's kind, the facts it names, and those absent from the context sent. */
export interface AnswerableInput {
  kind: ProbeKind;
  /** Ids of the facts the probe depends on (`probe.facts`). */
  factsNeeded: readonly string[];
  /** Ids of needed facts absent from the context the model was sent. */
  factsMissing: readonly string[];
}

/**
 * `answerable`: every fact the probe needs is present in the context that was
 * sent. True when the probe names facts and none is missing; for an abstention
 * probe that names no facts, true (nothing is needed: the right answer is to
 * say it was never given); for any other probe that names no facts, null
 * (unknown: nothing says what it needs), left out of answerable-based rates.
 * It reads only the context, never the answer, so it is known even when the
 * answer model errored — which is what lets it split "the strategy lost it"
 * from "the reader missed it" for any model.
 */
export function answerableOf(input: AnswerableInput): boolean | null {
  if (input.factsNeeded.length > 0) return input.factsMissing.length === 0;
  return input.kind === 'abstention' ? true : null;
}

/** `attribute` for a graded probe record: a failed call or a judge error counts as `error`. */
export function attributeProbe(record: ProbeRecord, facts: Fact[], summaries: SummaryInView[]): Attribution | undefined {
  const judgeError = record.judge?.verdict === 'error' ? `judge: ${record.judge.reason}` : undefined;
  return attribute({
    kind: record.kind,
    passed: record.passed === true,
    error: record.error ?? judgeError,
    factsNeeded: record.factsNeeded,
    factsPresent: record.factsPresent,
    facts,
    summaries,
  });
}

function covers(summary: SummaryInView, turn: number): boolean {
  return turn >= summary.coveredTurns[0] && turn <= summary.coveredTurns[1];
}

/**
 * The summaries a strategy's context held when a probe was asked after `afterTurn`:
 * the newest successful summary made at or before that turn. Each new summary
 * replaces the previous one (the previous summary is part of what it compresses),
 * so only the newest stands in the context.
 */
export function summariesInView(records: SummaryRecord[], strategy: string, transcript: string, afterTurn: number): SummaryInView[] {
  let newest: SummaryRecord | undefined;
  for (const r of records) {
    if (r.strategy !== strategy || r.transcript !== transcript || r.error || r.turn > afterTurn) continue;
    if (!newest || r.index > newest.index) newest = r;
  }
  return newest ? [{ coveredTurns: newest.coveredTurns, text: newest.text }] : [];
}
