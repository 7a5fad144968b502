import { describe, expect, it } from 'vitest';
import { MIN_CLUSTERS, clusteredMeanCI, clusteredWilson, holm, intraclassCorrelation, mcnemarExact, pairedBootstrap, passHatN, percentile, quantileOfSorted, seededRandom, signTest, wilson } from '../../core/stats.js';

// Exact binomial tail with BigInt Pascal rows: an independent route to the McNemar p-value.
function pascalRow(n: number): bigint[] {
  let row = [1n];
  for (let i = 0; i < n; i++) row = [1n, ...row.slice(1).map((v, k) => v + row[k]), 1n];
  return row;
}

function mcnemarByPascal(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const row = pascalRow(n);
  const k = Math.min(b, c);
  let tail = 0n;
  for (let i = 0; i <= k; i++) tail += row[i];
  const p = (2 * Number(tail)) / 2 ** n;
  return Math.min(1, p);
}

describe('wilson', () => {
  it('matches tabulated 95% intervals', () => {
    const a = wilson(8, 10);
    expect(a.low).toBeCloseTo(0.4902, 4);
    expect(a.high).toBeCloseTo(0.9433, 4);
    const b = wilson(0, 10);
    expect(b.low).toBe(0);
    expect(b.high).toBeCloseTo(0.2775, 4);
    const c = wilson(50, 100);
    expect(c.low).toBeCloseTo(0.4038, 4);
    expect(c.high).toBeCloseTo(0.5962, 4);
  });
  it('is the whole range with no data', () => {
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('mcnemarExact', () => {
  it('matches hand-computed values', () => {
    expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 12); // 2 · 1/32
    expect(mcnemarExact(1, 6)).toBeCloseTo(0.125, 12); // 2 · 8/128
    expect(mcnemarExact(2, 10)).toBeCloseTo((2 * 79) / 4096, 12);
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 1)).toBe(1);
  });
  it('agrees with an exact BigInt computation over a grid', () => {
    for (let b = 0; b <= 30; b += 3) {
      for (let c = 0; c <= 40; c += 4) {
        expect(mcnemarExact(b, c)).toBeCloseTo(mcnemarByPascal(b, c), 10);
      }
    }
  });
  it('is symmetric and stays finite for large counts', () => {
    expect(mcnemarExact(7, 19)).toBe(mcnemarExact(19, 7));
    const p = mcnemarExact(400, 520);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.001);
  });
});

describe('passHatN', () => {
  it('averages C(c,N)/C(n,N) over probes', () => {
    // 3 of 4 → C(3,2)/C(4,2) = 3/6; 4 of 4 → 1; 1 of 4 → 0.
    expect(passHatN([{ n: 4, c: 3 }, { n: 4, c: 4 }, { n: 4, c: 1 }], 2)).toBeCloseTo(0.5, 12);
    // N = 1 is plain accuracy averaged per probe.
    expect(passHatN([{ n: 4, c: 3 }, { n: 2, c: 1 }], 1)).toBeCloseTo((0.75 + 0.5) / 2, 12);
    // Probes with fewer repeats than N are skipped.
    expect(passHatN([{ n: 1, c: 1 }, { n: 3, c: 0 }], 2)).toBe(0);
    expect(passHatN([{ n: 1, c: 1 }], 2)).toBeUndefined();
  });
});

describe('percentile', () => {
  it('uses nearest rank', () => {
    expect(percentile([4, 1, 3, 2], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
    expect(percentile([], 0.5)).toBeUndefined();
  });
});

describe('quantileOfSorted', () => {
  const sorted = [1, 2, 3, 4];
  it('nearest-rank returns an observed value', () => {
    expect([0, 0.25, 0.5, 0.51, 1].map((q) => quantileOfSorted(sorted, q, 'nearest-rank'))).toEqual([1, 1, 2, 3, 4]);
  });
  it('linear interpolates between order statistics (numpy default)', () => {
    expect([0, 0.25, 0.5, 0.9, 1].map((q) => quantileOfSorted(sorted, q, 'linear'))).toEqual([1, 1.75, 2.5, 3.7, 4]);
  });
  it('is NaN for an empty list', () => {
    expect(quantileOfSorted([], 0.5, 'linear')).toBeNaN();
    expect(quantileOfSorted([], 0.5, 'nearest-rank')).toBeNaN();
  });
});

describe('clusteredMeanCI', () => {
  it('is reproducible and brackets the mean', () => {
    const clusters = [[1, 1, 0], [1, 1, 1, 1], [0, 0], [1, 0, 1]];
    const a = clusteredMeanCI(clusters)!;
    const b = clusteredMeanCI(clusters)!;
    expect(a).toEqual(b);
    expect(a.mean).toBeCloseTo(8 / 12, 12);
    expect(a.low).toBeLessThanOrEqual(a.mean);
    expect(a.high).toBeGreaterThanOrEqual(a.mean);
  });
  it('is wider than Wilson when outcomes move together within a transcript', () => {
    const clusters = [...Array(5)].map(() => Array(10).fill(1)).concat([...Array(5)].map(() => Array(10).fill(0)));
    const ci = clusteredMeanCI(clusters)!;
    const w = wilson(50, 100);
    expect(ci.high - ci.low).toBeGreaterThan(w.high - w.low);
  });
  it('falls back to Wilson for a single transcript', () => {
    const ci = clusteredMeanCI([[1, 1, 1, 1, 1, 1, 1, 1, 0, 0]])!;
    const w = wilson(8, 10);
    expect(ci.low).toBeCloseTo(w.low, 12);
    expect(ci.high).toBeCloseTo(w.high, 12);
  });
  it('is undefined without outcomes', () => {
    expect(clusteredMeanCI([[], []])).toBeUndefined();
  });
});

describe('pairedBootstrap', () => {
  it('reports no difference as p = 1', () => {
    const pairs = [...Array(MIN_CLUSTERS)].map((_, i) => ({ cluster: `t${i}`, base: i % 2, cand: i % 2 }));
    expect(pairedBootstrap(pairs)).toEqual({ diff: 0, clusters: MIN_CLUSTERS, low: 0, high: 0, p: 1 });
  });
  it('is inconclusive, with no p-value or interval, below the minimum number of transcripts', () => {
    // One transcript that dropped everywhere: every draw is the same, which used to read as p = 0.
    const one = pairedBootstrap([0, 1, 2, 3].map((i) => ({ cluster: 'only', base: 1, cand: i === 0 ? 1 : 0 })))!;
    expect(one.diff).toBeCloseTo(-0.75, 12);
    expect(one.p).toBeUndefined();
    expect(one.low).toBeUndefined();
    expect(one.inconclusive).toBe(`1 of at least ${MIN_CLUSTERS} transcripts needed for a clustered test`);
    const five = pairedBootstrap([...Array(MIN_CLUSTERS - 1)].map((_, i) => ({ cluster: `t${i}`, base: 1, cand: 0 })))!;
    expect(five.p).toBeUndefined();
    const six = pairedBootstrap([...Array(MIN_CLUSTERS)].map((_, i) => ({ cluster: `t${i}`, base: 1, cand: 0 })))!;
    expect(six.p).toBe(0);
  });
  it('finds a consistent drop across many transcripts significant', () => {
    const pairs = [];
    for (let t = 0; t < 12; t++) for (let i = 0; i < 5; i++) pairs.push({ cluster: `t${t}`, base: 1, cand: i < 3 ? 0 : 1 });
    const r = pairedBootstrap(pairs)!;
    expect(r.diff).toBeCloseTo(-0.6, 12);
    expect(r.high).toBeLessThan(0);
    expect(r.p).toBeLessThan(0.05);
  });
  it('does not call a one-probe wobble significant', () => {
    const pairs = [];
    for (let t = 0; t < 10; t++) for (let i = 0; i < 4; i++) pairs.push({ cluster: `t${t}`, base: 1, cand: t === 3 && i === 0 ? 0 : 1 });
    const r = pairedBootstrap(pairs)!;
    expect(r.p).toBeGreaterThan(0.05);
    expect(r.low).toBeLessThan(0);
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = [...Array(100)].map(() => a());
    expect(xs).toEqual([...Array(100)].map(() => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('signTest', () => {
  it('is the exact binomial test on the directions of the pairs, ties dropped', () => {
    // 5 down, 0 up, 1 tie: 2 · (1/2)^5.
    const pairs = [3, 3, 3, 3, 3].map((b) => ({ base: b, cand: b - 1 })).concat([{ base: 2, cand: 2 }]);
    expect(signTest(pairs)).toBeCloseTo(0.0625, 12);
    expect(signTest([{ base: 5, cand: 3 }])).toBe(1);
    expect(signTest([])).toBe(1);
  });
});

describe('holm', () => {
  it('matches a hand computation, in input order', () => {
    // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → kept non-decreasing: 0.06.
    const adjusted = holm([0.01, 0.04, 0.03, 0.005]);
    const expected = [0.03, 0.06, 0.06, 0.02];
    adjusted.forEach((p, i) => expect(p).toBeCloseTo(expected[i], 12));
  });
  it('caps at 1, leaves a single test alone and handles an empty family', () => {
    expect(holm([0.6, 0.7])).toEqual([1, 1]);
    expect(holm([0.03])).toEqual([0.03]);
    expect(holm([])).toEqual([]);
  });
});

describe('intraclassCorrelation and clusteredWilson', () => {
  // A = 1111, B = 1100, C = 0000: N = 12, k = 3, grand mean 0.5.
  // MSB = (4·0.25 + 0 + 4·0.25) / 2 = 1; MSW = (0 + 4·0.25 + 0) / 9 = 1/9; n0 = (12 − 48/12) / 2 = 4.
  // ICC = (1 − 1/9) / (1 + 3 · 1/9) = 2/3; design effect = 1 + (4 − 1) · 2/3 = 3; effective n = 12 / 3 = 4.
  const clusters = [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0]];

  it('estimates the ICC by one-way ANOVA', () => {
    expect(intraclassCorrelation(clusters)).toBeCloseTo(2 / 3, 12);
  });
  it('is the Wilson interval of 2 passes in 4 effective outcomes', () => {
    const r = clusteredWilson(clusters)!;
    expect(r.mean).toBeCloseTo(0.5, 12);
    expect(r.designEffect).toBeCloseTo(3, 12);
    expect(r.effectiveN).toBeCloseTo(4, 12);
    // p = 0.5, n = 4, z² = 3.8415: centre 0.5, half-width z·√(0.0625 + z²/64) / (1 + z²/4) = 0.34996.
    expect(r.low).toBeCloseTo(0.150039, 6);
    expect(r.high).toBeCloseTo(0.849961, 6);
  });
  it('clamps a negative ICC (clusters more alike than chance) to 0', () => {
    const alike = [[1, 0], [1, 0], [1, 0]];
    expect(intraclassCorrelation(alike)).toBe(0);
    expect(clusteredWilson(alike)!.designEffect).toBe(1);
  });
  it('does not collapse when every probe passes or every probe fails', () => {
    const allPass = [...Array(10)].map(() => [1, 1, 1]);
    const pass = clusteredWilson(allPass)!;
    expect(pass.mean).toBe(1);
    expect(pass.low).toBeCloseTo(0.886487, 6); // Wilson(30, 30): no variance, so ICC 0 and n = 30.
    expect(pass.high).toBeCloseTo(1, 12);
    const fail = clusteredWilson(allPass.map((c) => c.map(() => 0)))!;
    expect(fail.low).toBe(0);
    expect(fail.high).toBeCloseTo(1 - 0.886487, 6);
    // The bootstrap it replaces for accuracy collapsed here.
    const boot = clusteredMeanCI(allPass)!;
    expect(boot.high - boot.low).toBe(0);
  });
  it('is undefined without outcomes and plain Wilson for one transcript', () => {
    expect(clusteredWilson([[], []])).toBeUndefined();
    const one = clusteredWilson([[1, 1, 1, 1, 1, 1, 1, 1, 0, 0]])!;
    expect(one.low).toBeCloseTo(wilson(8, 10).low, 12);
  });
});
