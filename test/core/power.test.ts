// Power and variance components: every expected value is worked out by hand.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ICC,
  Z_SUM,
  designEffect,
  differenceSE,
  iccOneWay,
  minimumDetectableEffect,
  repeatsFloor,
  repeatsNeeded,
  runPower,
  smoothedAccuracy,
  transcriptsNeeded,
  varianceShares,
  varianceSplit,
} from '../../core/power.js';
import type { ProbeKind, ProbeRecord } from '../../core/types.js';
import { bulkRun } from '../helpers/sample-run.js';

/** A graded probe record; `outcomes[t][q][r]` is transcript t, probe q, repeat r. */
function records(outcomes: number[][][], strategy = 's', kind: ProbeKind = 'recall'): ProbeRecord[] {
  return outcomes.flatMap((probes, t) =>
    probes.flatMap((repeats, q) =>
      repeats.map((y, r) => ({
        strategy, transcript: `t${t}`, probe: `p${q}`, kind, afterTurn: 1, repeat: r + 1, question: '?', reference: 'x',
        contextTokens: 10, contextItems: 1, factsNeeded: [], factsPresent: [], factsMissing: [], answerable: null, model: 'offline',
        answer: y ? 'x' : 'y', passed: y === 1, judge: { verdict: y ? ('pass' as const) : ('fail' as const), reason: '', model: 'offline' },
      })),
    ),
  );
}

describe('minimum detectable effect', () => {
  // k = 10 transcripts, m̄ = 4, p = 0.5, ICC = 0.2:
  // DE = 1 + 3·0.2 = 1.6; SE = √(2·0.25·1.6 / 40) = √0.02 = 0.1414214;
  // MDE = (1.959964 + 0.841621) · 0.1414214 = 2.801585 · 0.1414214 = 0.396206.
  const design = { transcripts: 10, perTranscript: 4, accuracy: 0.5, icc: 0.2 };

  it('uses the design effect 1 + (m̄ − 1)·ICC and the unpaired SE', () => {
    expect(designEffect(4, 0.2)).toBeCloseTo(1.6, 12);
    expect(differenceSE(design)).toBeCloseTo(0.1414214, 6);
    expect(Z_SUM).toBeCloseTo(2.801585, 6);
    expect(minimumDetectableEffect(design)).toBeCloseTo(0.396206, 5);
  });

  it('finds the transcripts needed for an effect (the inverse)', () => {
    // k = 2·0.25·1.6·2.801585² / (4·0.05²) = 6.279103 / 0.01 = 627.9 → 628.
    expect(transcriptsNeeded(0.05, design)).toBe(628);
    expect(minimumDetectableEffect({ ...design, transcripts: 628 })).toBeLessThanOrEqual(0.05);
    expect(minimumDetectableEffect({ ...design, transcripts: 627 })).toBeGreaterThan(0.05);
  });

  it('finds the repeats needed, and says when repeats alone cannot get there', () => {
    // Floor with endless repeats: 2.801585 · √(2·0.25·0.2 / 10) = 2.801585 · 0.1 = 0.2801585.
    expect(repeatsFloor(design)).toBeCloseTo(0.2801585, 6);
    expect(repeatsNeeded(0.25, design)).toBeUndefined();
    // Target SE² = (0.35 / 2.801585)² = 0.0156075; a = 0.05; r = 0.05·0.8 / (4·(0.0156075 − 0.01)) = 1.7834 → 2.
    expect(repeatsNeeded(0.35, design)).toBe(2);
    expect(minimumDetectableEffect({ ...design, perTranscript: 8 })).toBeLessThanOrEqual(0.35);
  });

  it('keeps a perfect baseline from claiming every difference is detectable', () => {
    expect(smoothedAccuracy(20, 20)).toBeCloseTo(21 / 22, 12);
    expect(minimumDetectableEffect({ ...design, accuracy: smoothedAccuracy(40, 40) })).toBeGreaterThan(0);
  });
});

describe('iccOneWay', () => {
  it('matches a hand-worked one-way ANOVA', () => {
    // Means 0.75 and 0.25, grand 0.5: MSB = 8·0.0625 / 1 = 0.5; MSW = 1.5 / 6 = 0.25; n₀ = (8 − 32/8) / 1 = 4;
    // ICC = (0.5 − 0.25) / (0.5 + 3·0.25) = 0.2.
    expect(iccOneWay([[1, 1, 1, 0], [0, 0, 0, 1]])).toBeCloseTo(0.2, 12);
  });

  it('clamps to [0, 1] and needs two clusters', () => {
    expect(iccOneWay([[1, 1], [0, 0]])).toBe(1);
    expect(iccOneWay([[1, 0], [1, 0]])).toBe(0);
    expect(iccOneWay([[1, 1, 1, 1], [1, 1]])).toBe(0);
    expect(iccOneWay([[1, 0, 1]])).toBeUndefined();
  });
});

describe('varianceSplit', () => {
  it('puts everything between transcripts when whole transcripts pass or fail', () => {
    const split = varianceSplit(records([[[1, 1], [1, 1]], [[1, 1], [1, 1]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]]));
    // Transcript means 1, 1, 0, 0: S² = 4·0.25 / 3 = 1/3; nothing varies inside a transcript.
    expect(split).toMatchObject({ probe: 0, answer: 0, transcripts: 4, probesPerTranscript: 2, repeatsPerProbe: 2 });
    expect(split?.transcript).toBeCloseTo(1 / 3, 12);
    expect(varianceShares(split!)).toEqual({ transcript: 1, probe: 0, answer: 0 });
  });

  it('puts everything in answer sampling when only repeats disagree', () => {
    const split = varianceSplit(records([[[1, 0], [0, 1]], [[1, 0], [1, 0]]]));
    // Every probe is (1, 0): pooled within-probe variance 0.5 over 4 df → 0.5; probe and transcript means all 0.5.
    expect(split).toMatchObject({ transcript: 0, probe: 0, answer: 0.5 });
    expect(varianceShares(split!)).toEqual({ transcript: 0, probe: 0, answer: 1 });
  });

  it('puts everything between probes when probes differ but repeats agree', () => {
    const split = varianceSplit(records([[[1, 1], [0, 0]], [[1, 1], [0, 0]]]));
    // Probe means 1, 0 in each transcript: S²_probe = (0.25 + 0.25)·2 / 2 = 0.5, σ²_answer = 0.
    expect(split).toMatchObject({ transcript: 0, probe: 0.5, answer: 0 });
  });

  it('splits a mixed run as worked out by hand', () => {
    // t0: (1,1) (1,0); t1: (0,0) (0,1). σ²_answer = (0 + 0.5 + 0 + 0.5) / 4 = 0.25.
    // Probe means 1, 0.5 | 0, 0.5 around 0.75 | 0.25: S²_probe = 0.25 / 2 = 0.125 → σ²_probe = 0.125 − 0.25/2 = 0.
    // Transcript means 0.75, 0.25: S² = 0.125 → σ²_transcript = 0.125 − 0 − 0.25/4 = 0.0625.
    // Shares of the variance of the mean: 0.0625/2 = 0.03125 and 0.25/8 = 0.03125 → half and half.
    const split = varianceSplit(records([[[1, 1], [1, 0]], [[0, 0], [0, 1]]]))!;
    expect(split.answer).toBeCloseTo(0.25, 12);
    expect(split.probe).toBe(0);
    expect(split.transcript).toBeCloseTo(0.0625, 12);
    const shares = varianceShares(split);
    expect(shares.transcript).toBeCloseTo(0.5, 12);
    expect(shares.answer).toBeCloseTo(0.5, 12);
  });

  it('leaves answer sampling unmeasured without repeats, and needs two transcripts', () => {
    expect(varianceSplit(records([[[1], [0]], [[1], [1]]]))?.answer).toBeUndefined();
    expect(varianceSplit(records([[[1, 0], [0, 1]]]))).toBeUndefined();
  });
});

describe('runPower', () => {
  it("measures the run's baseline with its own k, m̄, smoothed p and ICC", () => {
    // Baseline s passes everything but transcript 0: 16 of 20, p = 17/22; clusters all-0 or all-1 → ICC 1.
    const run = bulkRun({ runId: 'r', strategies: ['s', 't'], transcripts: 5, probesPer: 4, passes: (s, t) => s === 't' || t > 0 });
    const power = runPower(run)!;
    expect(power.strategy).toBe('s');
    expect(power.iccEstimated).toBe(true);
    expect(power.overall).toEqual({ transcripts: 5, perTranscript: 4, accuracy: 17 / 22, icc: 1 });
    expect(power.byKind.recall?.transcripts).toBe(5);
  });

  it('falls back to the default ICC with one transcript', () => {
    const run = bulkRun({ runId: 'r', strategies: ['s'], transcripts: 1, probesPer: 4, passes: (_s, _t, p) => p > 0 });
    expect(runPower(run)).toMatchObject({ icc: DEFAULT_ICC, iccEstimated: false });
  });
});
