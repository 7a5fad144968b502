import { describe, expect, it } from 'vitest';
import { calibrate, type CalibrationItem, type SummaryGrader } from '../../graders/calibrate.js';
import { accuracy, cohenKappa, kappaInterval } from '../../graders/kappa.js';
import type { SummaryJudgement, SummaryRecord, Transcript } from '../../core/types.js';

describe('cohenKappa', () => {
  it('binary: po 0.8, pe 0.5 → 0.6', () => {
    const a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1];
    expect(accuracy(a, b)).toBeCloseTo(0.8, 12);
    expect(cohenKappa(a, b)).toBeCloseTo(0.6, 12);
  });
  it('three categories: po 4/6, pe 12/36 → 0.5', () => {
    expect(cohenKappa(['x', 'x', 'y', 'y', 'z', 'z'], ['x', 'y', 'y', 'y', 'z', 'x'])).toBeCloseTo(0.5, 12);
  });
  it('is NaN when both raters are constant and equal', () => {
    expect(cohenKappa([1, 1, 1], [1, 1, 1])).toBeNaN();
  });
  it('bootstrap interval is reproducible and brackets the estimate', () => {
    const a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1];
    const one = kappaInterval(a, b);
    expect(kappaInterval(a, b)).toEqual(one);
    expect(one.low).toBeLessThan(0.6);
    expect(one.high).toBeGreaterThan(0.6);
    expect(one.high).toBeLessThanOrEqual(1);
    expect(kappaInterval(a, b, 2000, 7)).not.toEqual(one);
  });
});

const transcript: Transcript = { id: 't', tags: [], turns: [], facts: [], probes: [], file: 'mem.yaml' };
function item(i: number, labels: CalibrationItem['labels']): CalibrationItem {
  const summary: SummaryRecord = {
    strategy: 'calibration',
    transcript: 't',
    turn: 1,
    coveredTurns: [1, 1],
    index: 1,
    summarizer: 'human',
    request: { system: '', user: '' },
    text: `summary-${i}`,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
  return { id: `t/${i}`, file: 'mem.yaml', transcript, summary, labels };
}

/** Replies from a table keyed by summary text: a deterministic judge with known agreement. */
class TableJudge implements SummaryGrader {
  readonly name = 'table';
  readonly modelId = 'table-judge';
  constructor(private readonly table: Map<string, SummaryJudgement>) {}
  async grade({ summary }: { summary: SummaryRecord }): Promise<SummaryJudgement> {
    const j = this.table.get(summary.text);
    if (!j) throw new Error('no row');
    return j;
  }
}

function judgement(cov: boolean, temporal: boolean, overall: number, error?: string): SummaryJudgement {
  return {
    model: 'table-judge',
    coverage: cov ? 0.9 : 0.5,
    faithfulness: 1,
    temporal: temporal ? 1 : 0,
    format: 1,
    overall,
    score: cov ? 0.9 : 0.5,
    invented: [],
    reasons: {},
    error,
  };
}

describe('calibrate', () => {
  const P = true;
  const F = false;
  const humanCov = [P, P, P, P, P, F, F, F, F, F];
  const judgeCov = [P, P, P, P, F, F, F, F, F, P];
  const humanTemporal = [P, P, P, P, P, P, P, P, F, F];
  const humanOverall = [5, 5, 4, 4, 3, 2, 2, 1, 1, 1];
  const judgeOverall = [5, 4, 4, 3, 3, 2, 1, 1, 1, 4];
  const items = humanCov.map((c, i) =>
    item(i, { coverage: c, faithfulness: true, temporal: humanTemporal[i], format: true, overall: humanOverall[i] }),
  );
  items.push(item(10, { coverage: true, faithfulness: true, temporal: true, format: true, overall: 5 }));
  const table = new Map<string, SummaryJudgement>(judgeCov.map((c, i) => [`summary-${i}`, judgement(c, true, judgeOverall[i])]));
  table.set('summary-10', { ...judgement(false, false, 0), error: 'judge call failed: HTTP 500' });

  it('reports accuracy and kappa per criterion, computed by hand', async () => {
    const report = await calibrate(new TableJudge(table), items);
    expect(report.judge).toBe('table-judge');
    expect(report.items).toBe(11);
    expect(report.errors).toBe(1);
    const by = Object.fromEntries(report.criteria.map((c) => [c.criterion, c]));
    // coverage: po = 8/10, pe = .5·.5 + .5·.5 → (0.8 − 0.5)/0.5
    expect(by.coverage).toMatchObject({ n: 10, agree: 8, accuracy: 0.8, kappa: 0.6, humanPass: 5, judgePass: 5 });
    expect(by.coverage.ci?.[0]).toBeLessThan(0.6);
    expect(by.coverage.ci?.[1]).toBeGreaterThan(0.6);
    // faithfulness: both always pass → kappa undefined
    expect(by.faithfulness).toMatchObject({ accuracy: 1, kappa: null, ci: null });
    // temporal: po = .8, pe = .8·1 + .2·0 = .8 → 0
    expect(by.temporal).toMatchObject({ accuracy: 0.8, kappa: 0 });
    // overall good = ≥ 4: po = .8, pe = .4·.4 + .6·.6 = .52 → .28/.48
    expect(by.overall.accuracy).toBe(0.8);
    expect(by.overall.kappa).toBeCloseTo(0.28 / 0.48, 4);
    expect(report.overallScale).toEqual({ meanAbsoluteError: 0.6, exact: 0.6, withinOne: 0.9 });
    expect(report.results[10]).toMatchObject({ id: 't/10', error: 'judge call failed: HTTP 500' });
    expect(report.results[10].judge).toBeUndefined();
  });
});
