// Agreement statistics for judge calibration: accuracy, Cohen's kappa and a
// bootstrap confidence interval that is reproducible (fixed-seed generator).
import { seededRandom } from '../core/random.js';
import { quantileOfSorted } from '../core/stats.js';

/** Cohen's kappa of two raters over paired categorical labels; NaN when chance agreement is 1 (both raters constant and equal). */
export function cohenKappa<T>(a: T[], b: T[]): number {
  if (a.length !== b.length) throw new Error('cohenKappa needs paired labels');
  const n = a.length;
  if (n === 0) return Number.NaN;
  const countA = new Map<T, number>();
  const countB = new Map<T, number>();
  let agree = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    countA.set(a[i], (countA.get(a[i]) ?? 0) + 1);
    countB.set(b[i], (countB.get(b[i]) ?? 0) + 1);
  }
  const po = agree / n;
  let pe = 0;
  for (const [label, ca] of countA) pe += (ca / n) * ((countB.get(label) ?? 0) / n);
  if (pe >= 1) return Number.NaN;
  return (po - pe) / (1 - pe);
}

export function accuracy<T>(a: T[], b: T[]): number {
  if (a.length === 0) return Number.NaN;
  return a.filter((x, i) => x === b[i]).length / a.length;
}

export { seededRandom };

export interface Interval {
  low: number;
  high: number;
  /** Resamples that gave a defined kappa (a resample with one constant label on both sides has none). */
  resamples: number;
}

export const BOOTSTRAP_SEED = 20240601;
export const BOOTSTRAP_RESAMPLES = 2000;

/**
 * Percentile bootstrap 95% interval of Cohen's kappa: items are resampled with
 * replacement `resamples` times from a fixed seed, so a report is reproducible.
 * Undefined resamples are skipped; the interval is NaN when none is defined.
 */
export function kappaInterval<T>(a: T[], b: T[], resamples = BOOTSTRAP_RESAMPLES, seed = BOOTSTRAP_SEED): Interval {
  const n = a.length;
  const random = seededRandom(seed);
  const values: number[] = [];
  const ra: T[] = new Array(n);
  const rb: T[] = new Array(n);
  for (let r = 0; r < resamples && n > 0; r++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      ra[i] = a[j];
      rb[i] = b[j];
    }
    const k = cohenKappa(ra, rb);
    if (!Number.isNaN(k)) values.push(k);
  }
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN, resamples: 0 };
  values.sort((x, y) => x - y);
  // Type 7 (linear), as R and numpy default.
  return { low: quantileOfSorted(values, 0.025, 'linear'), high: quantileOfSorted(values, 0.975, 'linear'), resamples: values.length };
}
