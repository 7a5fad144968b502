// Drift between successive summaries of one transcript by one strategy: facts a
// re-summary dropped, facts whose value moved on, and updates that were undone
// (context poisoning: the summary went back to a superseded value).
import { factPresentInNormalized, normalizeText } from '../core/text.js';
import type { Fact, SummaryDrift, SummaryRecord, Transcript } from '../core/types.js';

/** Facts that replace `fact`, nearest first (follows `superseded_by` chains). */
function newerVersions(fact: Fact, byId: Map<string, Fact>): Fact[] {
  const chain: Fact[] = [];
  const seen = new Set([fact.id]);
  let next = fact.supersededBy ? byId.get(fact.supersededBy) : undefined;
  while (next && !seen.has(next.id)) {
    chain.push(next);
    seen.add(next.id);
    next = next.supersededBy ? byId.get(next.supersededBy) : undefined;
  }
  return chain;
}

/** Facts that `fact` replaces, directly or through a chain. */
function olderVersions(fact: Fact, facts: Fact[], byId: Map<string, Fact>): Fact[] {
  return facts.filter((f) => newerVersions(f, byId).some((n) => n.id === fact.id));
}

/**
 * Compares a summary with the previous one. Entries of `changed` and `reverted`
 * read `from→to` (fact ids): `changed` when an old value gave way to a newer one,
 * `reverted` when a newer value gave way to an older one. `lost` lists facts the
 * previous summary stated that the new one states in no version.
 */
export function summaryDrift(transcript: Transcript, previous: SummaryRecord, current: SummaryRecord): SummaryDrift {
  const facts = transcript.facts;
  const byId = new Map(facts.map((f) => [f.id, f]));
  // Each summary normalised once for all its facts, not once per fact.
  const prevNorm = normalizeText(previous.text);
  const nowNorm = normalizeText(current.text);
  const inPrev = new Set(facts.filter((f) => factPresentInNormalized(prevNorm, f)).map((f) => f.id));
  const inNow = new Set(facts.filter((f) => factPresentInNormalized(nowNorm, f)).map((f) => f.id));
  const drift: SummaryDrift = { lost: [], changed: [], reverted: [] };
  for (const fact of facts) {
    if (!inPrev.has(fact.id) || inNow.has(fact.id)) continue;
    const newer = newerVersions(fact, byId).find((f) => inNow.has(f.id));
    const older = olderVersions(fact, facts, byId).find((f) => inNow.has(f.id));
    if (newer) drift.changed.push(`${fact.id}→${newer.id}`);
    else if (older) drift.reverted.push(`${fact.id}→${older.id}`);
    else drift.lost.push(fact.id);
  }
  return drift;
}

/** Drift of each summary against the one before it (records of one strategy and transcript, any order). */
export function driftSeries(transcript: Transcript, records: SummaryRecord[]): { index: number; drift: SummaryDrift }[] {
  const ordered = records.filter((r) => !r.error).sort((a, b) => a.index - b.index);
  const out: { index: number; drift: SummaryDrift }[] = [];
  for (let i = 1; i < ordered.length; i++) {
    out.push({ index: ordered[i].index, drift: summaryDrift(transcript, ordered[i - 1], ordered[i]) });
  }
  return out;
}

export interface DriftAggregate {
  strategy: string;
  /** Summaries compared with a previous one. */
  transitions: number;
  lost: number;
  changed: number;
  reverted: number;
  /** Transitions that lost or reverted anything. */
  transitionsWithLoss: number;
}

/** Per-strategy totals over the `grades.drift` of summary records. */
export function aggregateDrift(records: SummaryRecord[]): DriftAggregate[] {
  const by = new Map<string, DriftAggregate>();
  for (const r of records) {
    const d = r.grades?.drift;
    if (!d) continue;
    let agg = by.get(r.strategy);
    if (!agg) {
      agg = { strategy: r.strategy, transitions: 0, lost: 0, changed: 0, reverted: 0, transitionsWithLoss: 0 };
      by.set(r.strategy, agg);
    }
    agg.transitions++;
    agg.lost += d.lost.length;
    agg.changed += d.changed.length;
    agg.reverted += d.reverted.length;
    if (d.lost.length + d.reverted.length > 0) agg.transitionsWithLoss++;
  }
  return [...by.values()].sort((a, b) => a.strategy.localeCompare(b.strategy));
}
