// Why a probe was answered wrongly: the strategy lost a needed fact (cut, or
// summarised away), or the fact was there and the model missed it.
import { normalizeDiaId } from '../core/items.js';
import { factPresentIn } from '../core/text.js';
import type { Attribution, Fact, Probe, ProbeKind, ProbeRecord, SummaryRecord, Turn } from '../core/types.js';

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
  /** Ids of needed facts in a span a server compacted into an opaque item (neither present nor missing). */
  factsOpaque?: readonly string[];
  /** The transcript's facts (to know the turn each fact was stated in). */
  facts: Fact[];
  /** Summaries in the context at probe time (empty for strategies that never summarise). */
  summaries: SummaryInView[];
  /**
   * Turns the probe's evidence was said in (`evidenceTurnsOf`), read only when it
   * names no facts. Without `view` they cannot be placed and count as none.
   */
  evidenceTurns?: readonly number[];
  /** Where the turns of the conversation stood in the context sent (the replay's `cutSpans`, `summarizedTurns` and `opaqueUpTo`). */
  view?: TurnsInView;
}

/** Turns `first` to `last` (1-based, both included). */
export type TurnSpan = readonly [first: number, last: number];

/** Turns whose items were absent from the context, and turns a summary in the context stands for. */
export interface TurnsInView {
  /**
   * The turns cut, as runs of turns in ascending order: a view keeps a few
   * runs of a long conversation, so a probe's record stays the size of its view.
   */
  cutSpans: readonly TurnSpan[];
  summarizedTurns: readonly number[];
  /** Cut turns up to this one were compacted by a server into an opaque item in the context (`openai-compaction`); 0 or absent: none. */
  opaqueUpTo?: number;
}

/** Whether `turn` lies in one of the ascending `spans`. */
export function inSpans(spans: readonly TurnSpan[], turn: number): boolean {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid][1] < turn) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.length && spans[lo][0] <= turn;
}

/**
 * Classifies a wrong answer; undefined for a correct one.
 * Order: a failed call is `error`; an abstention probe answered with a claim is
 * `abstain-fail`; when every needed fact was in the context it is
 * `present-but-missed`. Otherwise a missing fact decides: if any missing fact's
 * turn was cut with no summary standing for it the answer is `trimmed` (the
 * cruder loss wins); if every missing fact sits in a summarised turn whose
 * summary text lacks it, `lost-in-summary`. A missing fact in a span the server
 * compacted into an opaque item makes it `opaque` (unless another fact was
 * trimmed): what that item holds cannot be read, so no loss is guessed.
 * A probe that names no facts is judged by the turns of its evidence instead
 * (`attributeByEvidence`); with no evidence either, nothing says what it needed,
 * and it is `unknown` rather than a guess.
 */
export function attribute(input: AttributionInput): Attribution | undefined {
  if (input.error) return 'error';
  if (input.passed) return undefined;
  if (input.kind === 'abstention') return 'abstain-fail';
  if (input.factsNeeded.length === 0) return attributeByEvidence(input.evidenceTurns ?? [], input.view);
  const present = new Set(input.factsPresent);
  const missing = input.factsNeeded.filter((id) => !present.has(id));
  if (missing.length === 0) return 'present-but-missed';
  const byId = new Map(input.facts.map((f) => [f.id, f]));
  const opaque = new Set(input.factsOpaque ?? []);
  let lostInSummary = false;
  let unreadable = false;
  for (const id of missing) {
    if (opaque.has(id)) {
      unreadable = true;
      continue;
    }
    const fact = byId.get(id);
    const covering = fact ? input.summaries.filter((s) => covers(s, fact.turn)) : [];
    if (covering.length === 0) return 'trimmed';
    // The presence scan says the fact is absent; a summary that does state it means the scan saw it elsewhere.
    if (fact && covering.every((s) => !factPresentIn(s.text, fact))) lostInSummary = true;
  }
  if (unreadable) return 'opaque';
  return lostInSummary ? 'lost-in-summary' : 'present-but-missed';
}

/**
 * Attribution from where the evidence turns stood: every one in the context is
 * `present-but-missed`; one cut with no summary in the context standing for it
 * is `trimmed` (the cruder loss wins, as for facts); cut ones all stood for by a
 * summary are `lost-in-summary`; cut ones that are not trimmed but some compacted
 * into an opaque item are `opaque`. No evidence, or no view to place it in, is `unknown`.
 */
export function attributeByEvidence(evidenceTurns: readonly number[], view: TurnsInView | undefined): Attribution {
  if (evidenceTurns.length === 0 || view === undefined) return 'unknown';
  const summarized = new Set(view.summarizedTurns);
  const lost = evidenceTurns.filter((t) => inSpans(view.cutSpans, t));
  if (lost.length === 0) return 'present-but-missed';
  const opaque = (t: number) => t <= (view.opaqueUpTo ?? 0);
  if (lost.some((t) => !summarized.has(t) && !opaque(t))) return 'trimmed';
  return lost.some(opaque) ? 'opaque' : 'lost-in-summary';
}

/**
 * The turns (1-based, ascending, at or before the probe's `after_turn`) the
 * probe's `meta` names as its evidence, in the forms the importers write:
 * - `evidence_turns`: turn numbers (LongMemEval: the turns of `has_answer`
 *   messages that do not state the answer word for word);
 * - `evidence`: dialogue ids (LoCoMo `D1:3`), found in the turns' `meta.dia_ids`,
 *   compared leniently (`D1:03`, `(D1: 3)` and `d1:3` are one id);
 * - `answer_session_ids` (LongMemEval), when neither of the above resolves:
 *   every turn of those sessions, a session running from the turn whose
 *   `meta.session_id` names it to the next turn that names one.
 * Empty when the meta names no evidence or none of it is found.
 */
export function evidenceTurnsOf(probe: Pick<Probe, 'afterTurn' | 'meta'>, turns: readonly Turn[]): number[] {
  const meta = probe.meta ?? {};
  const found = new Set<number>([...numbersIn(meta.evidence_turns), ...diaIdTurns(stringsIn(meta.evidence), turns)]);
  if (found.size === 0) for (const t of sessionTurns(stringsIn(meta.answer_session_ids), turns)) found.add(t);
  return [...found].filter((t) => Number.isInteger(t) && t >= 1 && t <= Math.min(probe.afterTurn, turns.length)).sort((a, b) => a - b);
}

function numbersIn(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

function stringsIn(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
}

/** `D<session>:<line>` for a dialogue id written leniently, as the LoCoMo importer reads evidence; the id itself otherwise. */
function canonicalDiaId(raw: string): string {
  return normalizeDiaId(raw) ?? raw.trim();
}

function diaIdTurns(ids: string[], turns: readonly Turn[]): number[] {
  if (ids.length === 0) return [];
  // One evidence entry may pack several ids ("D8:6; D9:17").
  const wanted = new Set(ids.flatMap((id) => id.split(/[;,]|\s+(?=D)/i)).map(canonicalDiaId).filter((id) => id.length > 0));
  const out: number[] = [];
  turns.forEach((turn, i) => {
    if (stringsIn(turn.meta?.dia_ids).some((id) => wanted.has(canonicalDiaId(id)))) out.push(i + 1);
  });
  return out;
}

function sessionTurns(ids: string[], turns: readonly Turn[]): number[] {
  if (ids.length === 0) return [];
  const wanted = new Set(ids);
  const out: number[] = [];
  let current: string | undefined;
  turns.forEach((turn, i) => {
    const id = turn.meta?.session_id;
    if (typeof id === 'string' || typeof id === 'number') current = String(id);
    if (current !== undefined && wanted.has(current)) out.push(i + 1);
  });
  return out;
}

/** What `answerableOf` reads: the probe's kind, the facts it names, and those absent from the context sent. */
export interface AnswerableInput {
  kind: ProbeKind;
  /** Ids of the facts the probe depends on (`probe.facts`). */
  factsNeeded: readonly string[];
  /** Ids of needed facts absent from the context the model was sent. */
  factsMissing: readonly string[];
  /** Ids of needed facts inside a span a server compacted: whether the context holds them cannot be read. */
  factsOpaque?: readonly string[];
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
  // A needed fact the server compacted may or may not be there: unknown, not a yes.
  if (input.factsOpaque?.length) return null;
  if (input.factsNeeded.length > 0) return input.factsMissing.length === 0;
  return input.kind === 'abstention' ? true : null;
}

/**
 * `attribute` for a graded probe record: a failed call or a judge error counts as `error`.
 * A record naming no facts is placed by its `evidenceTurns` in `view`; without a view it is `unknown`.
 */
export function attributeProbe(record: ProbeRecord, facts: Fact[], summaries: SummaryInView[], view?: TurnsInView): Attribution | undefined {
  const judgeError = record.judge?.verdict === 'error' ? `judge: ${record.judge.reason}` : undefined;
  return attribute({
    kind: record.kind,
    passed: record.passed === true,
    error: record.error ?? judgeError,
    factsNeeded: record.factsNeeded,
    factsPresent: record.factsPresent,
    factsOpaque: record.factsOpaque,
    facts,
    summaries,
    evidenceTurns: record.evidenceTurns,
    view,
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
