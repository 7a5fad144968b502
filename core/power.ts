// What a suite can detect, and where a run's variance comes from.
//
// After Miller, "Adding Error Bars to Evals" (2024). Probes of one transcript
// share a context and pass or fail together, so k transcripts of m̄ outcomes
// each carry less information than k·m̄ independent outcomes: the variance of
// a mean grows by the design effect DE = 1 + (m̄ − 1)·ICC, where ICC is the
// intra-transcript correlation of outcomes.
//
// The comparison planned for is paired (two strategies on the same probes),
// but the standard error used is the conservative unpaired form
//
//   SE = sqrt(2 · p(1 − p) · DE / n),   n = k · m̄ outcomes per strategy,
//
// i.e. the pairing correlation ρ_pair is taken as 0. Before a run the
// correlation between two strategies' outcomes on a probe is unknown and
// differs from pair to pair; a positive ρ_pair only shrinks the SE by
// sqrt(1 − ρ_pair), so assuming 0 never claims the suite detects an effect it
// cannot. Both arms are given the baseline's variance p(1 − p).
//
//   MDE = (z_0.975 + z_0.80) · SE        (two-sided α = 0.05, 80% power)
import type { ProbeKind, ProbeRecord, RunResult } from './types.js';
import { PROBE_KINDS } from './types.js';

/** z_{0.975}: two-sided α = 0.05; also the z of every 95% interval in core/stats.ts. */
export const Z_ALPHA = 1.959963984540054;
/** z_{0.80}: 80% power. */
const Z_POWER = 0.8416212335729143;
export const Z_SUM = Z_ALPHA + Z_POWER;

/** p(1 − p) is largest at 0.5, so an unknown accuracy never flatters the MDE. */
export const WORST_CASE_ACCURACY = 0.5;

/**
 * The ICC assumed before any run. Probes of one conversation share the
 * strategy's view of it, so a lost detail tends to fail several of them. The
 * bundled suite with the offline reader shows 0–0.05; 0.2 is deliberately
 * higher, so a plan made before any run errs towards "needs more transcripts".
 */
export const DEFAULT_ICC = 0.2;

export interface Design {
  /** k: transcripts (clusters). */
  transcripts: number;
  /** m̄: graded outcomes per transcript (probes × repeats). */
  perTranscript: number;
  /** p: the baseline's accuracy, strictly between 0 and 1. */
  accuracy: number;
  icc: number;
}

export function designEffect(perTranscript: number, icc: number): number {
  return 1 + (perTranscript - 1) * icc;
}

/** SE of a difference of two accuracies: sqrt(2·p(1−p)·DE / (k·m̄)). */
export function differenceSE(d: Design): number {
  const n = d.transcripts * d.perTranscript;
  if (n <= 0) return Infinity;
  const p = d.accuracy;
  return Math.sqrt((2 * p * (1 - p) * designEffect(d.perTranscript, d.icc)) / n);
}

/** The smallest accuracy difference (0–1) found at two-sided α = 0.05 with 80% power. */
export function minimumDetectableEffect(d: Design): number {
  return Z_SUM * differenceSE(d);
}

/**
 * Transcripts (of m̄ outcomes each) needed for an MDE of `effect` (0–1):
 * k = ⌈ 2·p(1−p)·DE·(z_0.975 + z_0.80)² / (m̄·effect²) ⌉.
 */
export function transcriptsNeeded(effect: number, d: Omit<Design, 'transcripts'>): number {
  const p = d.accuracy;
  const k = (2 * p * (1 - p) * designEffect(d.perTranscript, d.icc) * Z_SUM ** 2) / (d.perTranscript * effect ** 2);
  return Math.max(1, Math.ceil(k - 1e-9));
}

/**
 * Repeats of every probe needed for an MDE of `effect` with the same
 * transcripts, counting each repeat as one more outcome of its transcript
 * (m̄ → m̄·r): SE² = 2p(1−p)·[ICC + (1 − ICC)/(m̄·r)] / k. Repeats of one probe
 * agree more than different probes do, so this is a lower bound. Undefined
 * when no number of repeats gets there: SE² never falls below 2p(1−p)·ICC/k.
 */
export function repeatsNeeded(effect: number, d: Design): number | undefined {
  const a = (2 * d.accuracy * (1 - d.accuracy)) / d.transcripts;
  const target = (effect / Z_SUM) ** 2;
  if (target <= a * d.icc) return undefined;
  const r = (a * (1 - d.icc)) / (d.perTranscript * (target - a * d.icc));
  return Math.max(1, Math.ceil(r - 1e-9));
}

/** The MDE repeats alone can approach but never reach: (z_0.975 + z_0.80)·sqrt(2p(1−p)·ICC/k). */
export function repeatsFloor(d: Design): number {
  return Z_SUM * Math.sqrt((2 * d.accuracy * (1 - d.accuracy) * d.icc) / d.transcripts);
}

function sumOf(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function meanOf(values: number[]): number {
  return sumOf(values) / values.length;
}

/** (y − ȳ)² for each value of one group, its mean taken once rather than per element. */
function squaredDeviations(group: number[]): number[] {
  const m = meanOf(group);
  return group.map((y) => (y - m) ** 2);
}

function squaresAroundMean(group: number[]): number {
  return sumOf(squaredDeviations(group));
}

/**
 * ICC by one-way ANOVA over clusters of unequal size (each cluster's mean is
 * its pass rate):
 *   MSB = Σ nᵢ(ȳᵢ − ȳ)² / (k − 1),  MSW = Σᵢ Σⱼ (yᵢⱼ − ȳᵢ)² / (N − k),
 *   n₀ = (N − Σ nᵢ² / N) / (k − 1),  ICC = (MSB − MSW) / (MSB + (n₀ − 1)·MSW),
 * clamped to [0, 1]. The estimate can fall below 0 (clusters more alike than
 * chance) or, with tiny samples, above 1; a design effect below 1 would claim
 * clustering makes the data worth more than independent outcomes. Undefined
 * with fewer than two clusters or no cluster of two outcomes; 0 when every
 * outcome is the same (nothing varies).
 */
export function iccOneWay(clusters: number[][]): number | undefined {
  const groups = clusters.filter((c) => c.length > 0);
  const k = groups.length;
  const total = sumOf(groups.map((g) => g.length));
  if (k < 2 || total - k < 1) return undefined;
  const grand = sumOf(groups.map(sumOf)) / total;
  const msb = sumOf(groups.map((g) => g.length * (meanOf(g) - grand) ** 2)) / (k - 1);
  // One running sum over every outcome in cluster order, not a sum of per-cluster sums: the accuracy interval
  // (clusteredWilson) is computed with this order, and its bounds reach summary.csv at full precision.
  const msw = sumOf(groups.flatMap(squaredDeviations)) / (total - k);
  const n0 = (total - sumOf(groups.map((g) => g.length ** 2)) / total) / (k - 1);
  const denominator = msb + (n0 - 1) * msw;
  if (denominator <= 0) return 0;
  return Math.min(1, Math.max(0, (msb - msw) / denominator));
}

// ---------- from a run's records ----------

/** 1 for a passed probe record, 0 otherwise: an errored record counts as not passed, as in accuracy. */
export function outcomeOf(r: ProbeRecord): number {
  const errored = r.error !== undefined || r.judge?.verdict === 'error';
  return !errored && r.passed === true ? 1 : 0;
}

/**
 * Accuracy for the formulas: (passes + 1) / (n + 2). A baseline that passed
 * every probe has p(1 − p) = 0 and would claim any difference is detectable;
 * one pseudo-pass and one pseudo-fail keep p strictly inside (0, 1).
 */
export function smoothedAccuracy(passes: number, n: number): number {
  return (passes + 1) / (n + 2);
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/**
 * Outcomes grouped by transcript, for the ICC; `owed` adds, per transcript, answers it owes
 * and never made, each a 0 (a finished run counts them as not passed).
 */
export function outcomesByTranscript(records: ProbeRecord[], owed: ReadonlyMap<string, number> = new Map()): number[][] {
  const groups = new Map([...groupBy(records, (r) => r.transcript)].map(([id, list]) => [id, list.map(outcomeOf)]));
  for (const [id, n] of owed) groups.set(id, [...(groups.get(id) ?? []), ...new Array<number>(n).fill(0)]);
  return [...groups.values()];
}

/** k, m̄ (records per transcript), smoothed p and the given ICC of some probe records; undefined for none. */
function designOf(records: ProbeRecord[], icc: number): Design | undefined {
  if (records.length === 0) return undefined;
  const transcripts = new Set(records.map((r) => r.transcript)).size;
  const passes = sumOf(records.map(outcomeOf));
  return { transcripts, perTranscript: records.length / transcripts, accuracy: smoothedAccuracy(passes, records.length), icc };
}

/**
 * One design per probe kind present. The ICC is the whole run's: a kind has
 * few probes per transcript, too few to estimate its own.
 */
function designsByKind(records: ProbeRecord[], icc: number): Partial<Record<ProbeKind, Design>> {
  const out: Partial<Record<ProbeKind, Design>> = {};
  for (const kind of PROBE_KINDS) {
    const design = designOf(records.filter((r) => r.kind === kind), icc);
    if (design) out[kind] = design;
  }
  return out;
}

/** The strategy a run's power is measured against: its baseline when that has probes, else the first that has. */
function referenceStrategy(run: RunResult): string | undefined {
  const withProbes = new Set(run.probes.map((r) => r.strategy));
  if (run.info.baseline && withProbes.has(run.info.baseline)) return run.info.baseline;
  return run.info.strategies.map((s) => s.id).find((id) => withProbes.has(id)) ?? run.probes[0]?.strategy;
}

// ---------- variance components ----------

/**
 * Nested components of one strategy's probe outcomes, y = μ + transcript +
 * probe-in-transcript + answer sample, estimated by the method of moments:
 *   σ²_answer     = pooled variance between repeats of the same probe;
 *   σ²_probe      = max(0, S²_probe − σ²_answer / r_h),
 *                   S²_probe = variance of probe means around their transcript's mean;
 *   σ²_transcript = max(0, S²_transcript − σ²_probe / m_h − σ²_answer / (m_h · r_h)),
 *                   S²_transcript = variance of transcript means (means of probe means);
 * r_h and m_h are the harmonic means of repeats per probe and probes per
 * transcript (exact for a balanced suite).
 */
export interface VarianceSplit {
  transcript: number;
  probe: number;
  /** Between repeats of the same probe: undefined when no probe was repeated. */
  answer: number | undefined;
  transcripts: number;
  probesPerTranscript: number;
  repeatsPerProbe: number;
}

/** Each component's share of the variance of the run's mean accuracy: σ²_t/k, σ²_p/(k·m), σ²_a/(k·m·r). */
export interface VarianceShares {
  transcript: number;
  probe: number;
  answer: number;
}

function harmonicMean(values: number[]): number {
  return values.length / sumOf(values.map((v) => 1 / v));
}

function sampleVariance(values: number[]): number | undefined {
  if (values.length < 2) return undefined;
  return squaresAroundMean(values) / (values.length - 1);
}

/** Sum of squares around each group's mean over the summed degrees of freedom; undefined with none. */
function pooledVariance(groups: number[][]): number | undefined {
  const df = sumOf(groups.map((g) => g.length - 1));
  if (df < 1) return undefined;
  return sumOf(groups.map(squaresAroundMean)) / df;
}

/** Outcomes as transcript → probe → repeats. */
function nest(records: ProbeRecord[]): number[][][] {
  return [...groupBy(records, (r) => r.transcript).values()].map((list) => [...groupBy(list, (r) => r.probe).values()].map((p) => p.map(outcomeOf)));
}

/** Undefined with fewer than two transcripts: nothing then separates transcripts from chance. */
export function varianceSplit(records: ProbeRecord[]): VarianceSplit | undefined {
  const nested = nest(records);
  if (nested.length < 2) return undefined;
  const probes = nested.flat();
  const r = harmonicMean(probes.map((p) => p.length));
  const m = harmonicMean(nested.map((t) => t.length));
  const answer = pooledVariance(probes);
  const probeMeans = nested.map((t) => t.map(meanOf));
  const withinAnswer = answer ?? 0;
  const probe = Math.max(0, (pooledVariance(probeMeans) ?? 0) - withinAnswer / r);
  const transcriptMeans = probeMeans.map(meanOf);
  const transcript = Math.max(0, (sampleVariance(transcriptMeans) ?? 0) - probe / m - withinAnswer / (m * r));
  return { transcript, probe, answer, transcripts: nested.length, probesPerTranscript: m, repeatsPerProbe: r };
}

/** Shares (summing to 1) of the variance of the mean; all 0 when nothing varies. */
export function varianceShares(s: VarianceSplit): VarianceShares {
  const k = s.transcripts;
  const parts = {
    transcript: s.transcript / k,
    probe: s.probe / (k * s.probesPerTranscript),
    answer: (s.answer ?? 0) / (k * s.probesPerTranscript * s.repeatsPerProbe),
  };
  const total = parts.transcript + parts.probe + parts.answer;
  if (total === 0) return { transcript: 0, probe: 0, answer: 0 };
  return { transcript: parts.transcript / total, probe: parts.probe / total, answer: parts.answer / total };
}

// ---------- a run's own power ----------

export interface RunPower {
  /** The strategy whose records set k, m̄, p and ICC (see referenceStrategy). */
  strategy: string;
  /** That strategy's probe records, for the variance split of the same records. */
  records: ProbeRecord[];
  icc: number;
  /** False when the run could not estimate the ICC (one transcript) and DEFAULT_ICC stands in. */
  iccEstimated: boolean;
  overall: Design;
  byKind: Partial<Record<ProbeKind, Design>>;
}

/** What a run can detect, from its reference strategy's own k, m̄, p and ICC; undefined without probe records. */
export function runPower(run: RunResult): RunPower | undefined {
  const strategy = referenceStrategy(run);
  if (strategy === undefined) return undefined;
  const records = run.probes.filter((r) => r.strategy === strategy);
  const estimated = iccOneWay(outcomesByTranscript(records));
  const icc = estimated ?? DEFAULT_ICC;
  const overall = designOf(records, icc);
  if (!overall) return undefined;
  return { strategy, records, icc, iccEstimated: estimated !== undefined, overall, byKind: designsByKind(records, icc) };
}
