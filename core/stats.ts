// Small, dependency-free statistics for reports, diffs and gates.
//
// Probe outcomes are not independent: probes of one transcript share a
// context and tend to pass or fail together. Intervals and tests that compare
// means therefore resample whole transcripts (cluster bootstrap) rather than
// single probes. Every bootstrap uses a fixed-seed PRNG so a report is
// reproducible byte for byte.
import type { z } from 'zod';
import { Z_ALPHA, designEffect, iccOneWay } from './power.js';
import { seededRandom } from './random.js';
import type { rateSchema } from './schema/run.js';

export interface Interval {
  low: number;
  high: number;
}

export interface MeanInterval extends Interval {
  mean: number;
}

export interface PairedResult {
  /** Mean of candidate minus mean of base. */
  diff: number;
  /** How many clusters (transcripts) the pairs come from. */
  clusters: number;
  /** Percentile interval of the difference; unset when the test is inconclusive. */
  low?: number;
  high?: number;
  /** Two-sided bootstrap p-value for "no difference"; unset when the test is inconclusive. */
  p?: number;
  /** Why the bootstrap gives no interval or p-value (too few clusters). */
  inconclusive?: string;
}

/**
 * Fewest clusters (transcripts) a cluster bootstrap is trusted with. Below 6,
 * no exact test at the cluster level can reach p < 0.05 at all — even every
 * one of 5 transcripts moving the same way has a two-sided sign-test p of
 * 2 / 2^5 = 0.0625 — yet the bootstrap reports p = 0 whenever every cluster
 * moved the same way (with one cluster, always), and its interval shrinks to
 * the spread of a handful of values. So with fewer clusters it reports
 * nothing and callers use an exact unclustered test instead.
 */
export const MIN_CLUSTERS = 6;

export interface BootstrapOptions {
  iterations?: number;
  seed?: number;
  /** Two-sided coverage; 0.95 by default. */
  level?: number;
}

/** The level every significance verdict in reports, diffs and gates uses (after adjustment for multiple tests). */
export const SIGNIFICANCE_LEVEL = 0.05;

const DEFAULT_ITERATIONS = 2000;
const DEFAULT_SEED = 20240601;

export { seededRandom };

/** Wilson score interval for a binomial proportion (better than the normal interval near 0 and 1). */
export function wilson(successes: number, n: number, z = Z_ALPHA): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** A share with its 95% Wilson interval, as a calibration records it (rate and ci null when n is 0). */
export type Rate = z.output<typeof rateSchema>;

/**
 * `12.5% [4.3, 31.0] (3/24)`, or `n/a (0 graded)` with no graded item: the one
 * wording of a calibration rate, so the calibrate command and the report
 * header print the same text.
 */
export function formatRate(r: Rate): string {
  if (r.rate === null || r.ci === null) return 'n/a (0 graded)';
  const p = (x: number): string => (100 * x).toFixed(1);
  return `${p(r.rate)}% [${p(r.ci[0])}, ${p(r.ci[1])}] (${r.count}/${r.n})`;
}

/**
 * How `quantileOfSorted` picks a value:
 * - `nearest-rank`: an observed value (the smallest with at least q of the values at or
 *   below it), so a latency p95 is a time some request really took.
 * - `linear`: interpolates between order statistics (type 7, the default of numpy and R),
 *   which moves smoothly with q — what a bootstrap percentile interval needs.
 */
export type QuantileMethod = 'nearest-rank' | 'linear';

/** The q-quantile (q in 0–1) of values already sorted ascending; NaN for an empty list. */
export function quantileOfSorted(sorted: number[], q: number, method: QuantileMethod): number {
  if (sorted.length === 0) return NaN;
  if (method === 'nearest-rank') return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The median of unsorted values (the mean of the two middle ones for an even count); NaN for an empty list. */
export function median(values: readonly number[]): number {
  return quantileOfSorted([...values].sort((a, b) => a - b), 0.5, 'linear');
}

/** Nearest-rank percentile (q in 0–1) of unsorted values; undefined for an empty list. */
export function percentile(values: number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  return quantileOfSorted([...values].sort((a, b) => a - b), q, 'nearest-rank');
}

export function mean(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Two-sided percentile interval of bootstrap draws with coverage `level` (sorts `draws` in place). */
function percentileInterval(draws: number[], level: number): Interval {
  draws.sort((a, b) => a - b);
  const alpha = 1 - level;
  return { low: quantileOfSorted(draws, alpha / 2, 'linear'), high: quantileOfSorted(draws, 1 - alpha / 2, 'linear') };
}

interface ClusterTotals {
  sums: number[];
  counts: number[];
}

// Per-cluster totals, so each bootstrap draw costs O(clusters) rather than O(observations).
function totals(clusters: number[][]): ClusterTotals {
  return { sums: clusters.map((c) => c.reduce((a, b) => a + b, 0)), counts: clusters.map((c) => c.length) };
}

function pooledMean(t: ClusterTotals, picks: number[]): number {
  let sum = 0;
  let count = 0;
  for (const i of picks) {
    sum += t.sums[i];
    count += t.counts[i];
  }
  return count === 0 ? NaN : sum / count;
}

function resample(n: number, rand: () => number): number[] {
  const picks = new Array<number>(n);
  for (let i = 0; i < n; i++) picks[i] = Math.floor(rand() * n);
  return picks;
}

/**
 * 95% CI of a mean of outcomes (e.g. per-probe 0/1) grouped into clusters
 * (transcripts): percentile cluster bootstrap. Each draw resamples whole
 * clusters with replacement and takes the pooled mean of their outcomes.
 * With a single cluster the bootstrap cannot see between-cluster variance, so
 * the Wilson interval of the pooled outcomes is returned instead.
 */
export function clusteredMeanCI(clusters: number[][], options: BootstrapOptions = {}): MeanInterval | undefined {
  const nonEmpty = clusters.filter((c) => c.length > 0);
  const all: number[] = nonEmpty.flat();
  if (all.length === 0) return undefined;
  const total = all.reduce((a, b) => a + b, 0);
  const m = total / all.length;
  if (nonEmpty.length === 1) {
    const binary = all.every((v) => v === 0 || v === 1);
    if (binary) return { mean: m, ...wilson(total, all.length) };
    return { mean: m, low: m, high: m };
  }
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  const rand = seededRandom(options.seed ?? DEFAULT_SEED);
  const t = totals(nonEmpty);
  const draws: number[] = [];
  for (let i = 0; i < iterations; i++) draws.push(pooledMean(t, resample(nonEmpty.length, rand)));
  return { mean: m, ...percentileInterval(draws, options.level ?? 0.95) };
}

function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * Exact two-sided McNemar test: given b pairs that went pass→fail and c that
 * went fail→pass, under "no change" the discordant pairs split as
 * Binomial(b + c, 1/2). p = min(1, 2 · P(X ≤ min(b, c))).
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

export interface PairedObservation {
  cluster: string;
  base: number;
  cand: number;
}

function groupPairs(pairs: PairedObservation[]): number[][] {
  const byCluster = new Map<string, number[]>();
  for (const p of pairs) {
    const list = byCluster.get(p.cluster) ?? [];
    list.push(p.cand - p.base);
    byCluster.set(p.cluster, list);
  }
  return [...byCluster.values()];
}

/**
 * Paired bootstrap clustered by `cluster` for the difference of means
 * (candidate − base) of paired observations. Whole clusters are resampled;
 * the CI is the percentile interval and the two-sided p-value is
 * 2 · min(share of draws ≤ 0, share ≥ 0), capped at 1. When every observed
 * difference is 0 the p-value is 1. With fewer than MIN_CLUSTERS clusters the
 * result is inconclusive: no interval, no p-value, and the reason.
 */
export function pairedBootstrap(pairs: PairedObservation[], options: BootstrapOptions = {}): PairedResult | undefined {
  if (pairs.length === 0) return undefined;
  const clusters = groupPairs(pairs);
  const diffs = clusters.flat();
  const diff = diffs.reduce((a, b) => a + b, 0) / diffs.length;
  if (clusters.length < MIN_CLUSTERS) {
    return { diff, clusters: clusters.length, inconclusive: `${clusters.length} of at least ${MIN_CLUSTERS} transcripts needed for a clustered test` };
  }
  if (diffs.every((d) => d === 0)) return { diff: 0, clusters: clusters.length, low: 0, high: 0, p: 1 };
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  const rand = seededRandom(options.seed ?? DEFAULT_SEED);
  const t = totals(clusters);
  const draws: number[] = [];
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let i = 0; i < iterations; i++) {
    const d = pooledMean(t, resample(clusters.length, rand));
    draws.push(d);
    if (d <= 0) atOrBelow++;
    if (d >= 0) atOrAbove++;
  }
  const p = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / iterations);
  return { diff, clusters: clusters.length, ...percentileInterval(draws, options.level ?? 0.95), p };
}

/**
 * Exact two-sided sign test on paired values: ties are dropped and the
 * remaining pairs split up/down as Binomial(n, 1/2) under "no change" — the
 * same distribution as McNemar's discordant pairs. Used for means when there
 * are too few clusters for the bootstrap; it needs no assumption about the
 * size of the differences, only their direction.
 */
export function signTest(pairs: { base: number; cand: number }[]): number {
  const down = pairs.filter((p) => p.cand < p.base).length;
  const up = pairs.filter((p) => p.cand > p.base).length;
  return mcnemarExact(down, up);
}

/**
 * Holm's step-down adjustment for a family of p-values, returned in input
 * order: sorted ascending, the i-th smallest (from 0) is multiplied by
 * (m − i), made non-decreasing and capped at 1. It controls the chance of any
 * false "significant" in the family at the level used, under any dependence
 * between the tests, and never rejects less than Bonferroni.
 */
export function holm(pValues: number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** A binomial rate's interval widened for clustering. */
export interface ClusteredRate extends MeanInterval {
  /** Intraclass correlation estimated from the clusters, clamped to [0, 1]. */
  icc: number;
  /** 1 + (mean cluster size − 1) · icc. */
  designEffect: number;
  /** Observations / design effect: how many independent outcomes the data are worth. */
  effectiveN: number;
}

/**
 * The intraclass correlation of outcomes grouped in clusters (one-way ANOVA,
 * clamped to [0, 1]; see iccOneWay), or 0 where there is nothing to estimate
 * from (one cluster, no cluster of two): with no evidence of clustering the
 * outcomes are taken as independent.
 */
export function intraclassCorrelation(clusters: number[][]): number {
  return iccOneWay(clusters) ?? 0;
}

/**
 * 95% interval of a pass rate of 0/1 outcomes grouped in clusters: the Wilson
 * score interval at the effective sample size n / design effect, with design
 * effect 1 + (m̄ − 1) · ICC (m̄ the mean cluster size). Unlike a cluster
 * bootstrap it does not collapse to a point when every outcome is the same
 * (all pass or all fail) or when there are few clusters, and it needs no
 * random draws.
 */
export function clusteredWilson(clusters: number[][], z = Z_ALPHA): ClusteredRate | undefined {
  const groups = clusters.filter((c) => c.length > 0);
  const n = groups.reduce((a, c) => a + c.length, 0);
  if (n === 0) return undefined;
  const passed = groups.reduce((a, c) => a + c.reduce((x, y) => x + y, 0), 0);
  const rate = passed / n;
  const icc = intraclassCorrelation(groups);
  const effect = designEffect(n / groups.length, icc);
  const effectiveN = n / effect;
  return { mean: rate, ...wilson(rate * effectiveN, effectiveN, z), icc, designEffect: effect, effectiveN };
}

/** Per-probe repeat counts for pass^N: n graded repeats, c of them passed. */
export interface RepeatCount {
  n: number;
  c: number;
}

/**
 * pass^N as in tau-bench: the chance that N independent tries of a probe all
 * pass, estimated without bias per probe as C(c, N) / C(n, N) and averaged
 * over probes. Probes with fewer than N graded repeats are skipped.
 */
export function passHatN(counts: RepeatCount[], N: number): number | undefined {
  const usable = counts.filter((x) => x.n >= N && N >= 1);
  if (usable.length === 0) return undefined;
  let total = 0;
  for (const { n, c } of usable) {
    let ratio = 1;
    // C(c,N)/C(n,N) = Π_{i<N} (c−i)/(n−i); becomes 0 once c < N.
    for (let i = 0; i < N; i++) ratio *= Math.max(0, c - i) / (n - i);
    total += ratio;
  }
  return total / usable.length;
}
