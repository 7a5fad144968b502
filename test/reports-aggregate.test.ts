import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, isMetricName, judgeLabel, metricValue, modelLabel, summarize } from '../reports/aggregate.js';
import { sampleRun } from './helpers/sample-run.js';

// Every expected number below is worked out by hand from test/helpers/sample-run.ts.
describe('summarize', () => {
  const rows = summarize(sampleRun());
  const byId = Object.fromEntries(rows.map((r) => [r.strategy, r]));

  it('has one row per strategy in config order', () => {
    expect(rows.map((r) => r.strategy)).toEqual(['full', 'trim-2', 'summ']);
    expect(byId.full.use).toBe('full-history');
  });

  it('computes token pressure and fact retention', () => {
    const { full, summ } = byId;
    const trim = byId['trim-2'];
    expect([full.transcripts, full.turns]).toEqual([2, 6]);
    expect(full.meanContextTokens).toBe(200); // (100+200+300+400+50+150)/6
    expect(full.peakContextTokens).toBe(400);
    expect(full.meanFullTokens).toBe(200);
    expect(full.compression).toBe(1);
    expect(full.factRetention).toBe(1);
    expect(trim.meanContextTokens).toBe(150); // 900/6
    expect(trim.peakContextTokens).toBe(200);
    expect(trim.compression).toBeCloseTo(0.75, 12);
    expect(trim.factRetention).toBeCloseTo((4 + 2 / 3 + 2 / 4) / 6, 12);
    expect(trim.criticalDrops).toBe(1); // t1×f1, dropped at turns 3 and 4
    expect(trim.turnsWithCriticalDrop).toBe(2);
    expect(summ.meanContextTokens).toBe(135); // 810/6
    expect(summ.compression).toBeCloseTo(0.675, 12);
    expect(summ.factRetention).toBeCloseTo((4 + 2 / 3 + 3 / 4) / 6, 12);
    expect(summ.criticalDrops).toBe(0);
  });

  it('counts probes, accuracy with errors excluded, kinds, F1 and pass^2', () => {
    const { full, summ } = byId;
    const trim = byId['trim-2'];
    expect([full.probes, full.graded, full.passed, full.errors]).toEqual([10, 10, 9, 0]);
    expect(full.accuracy).toBeCloseTo(0.9, 12);
    expect(full.accuracyByKind).toEqual({ recall: 1, update: 1, temporal: 1, 'multi-hop': 1, abstention: 0.5 });
    expect(full.meanF1).toBeCloseTo(9.25 / 10, 12);
    expect(full.passHatN).toBeCloseTo(4 / 5, 12);
    expect([trim.probes, trim.graded, trim.passed, trim.errors]).toEqual([10, 9, 7, 1]);
    expect(trim.accuracy).toBeCloseTo(7 / 9, 12);
    expect(trim.accuracyByKind).toEqual({ recall: 0, update: 1, temporal: 1, 'multi-hop': 1, abstention: 1 });
    expect(trim.meanF1).toBeCloseTo(7.5 / 9, 12);
    expect(trim.passHatN).toBeCloseTo(3 / 4, 12); // p3 has one graded repeat, so it is skipped
    expect(summ.accuracy).toBeCloseTo(0.7, 12);
    expect(summ.accuracyByKind).toEqual({ recall: 1, update: 0.5, temporal: 1, 'multi-hop': 0, abstention: 1 });
    expect(summ.meanF1).toBeCloseTo(7.75 / 10, 12);
    expect(summ.passHatN).toBeCloseTo(3 / 5, 12);
    for (const r of rows) {
      expect(r.accuracyLow!).toBeLessThanOrEqual(r.accuracy!);
      expect(r.accuracyHigh!).toBeGreaterThanOrEqual(r.accuracy!);
    }
  });

  it('counts attribution, tokens, cost and latency (cache hits excluded)', () => {
    const { full, summ } = byId;
    const trim = byId['trim-2'];
    expect(full.attribution).toEqual({ trimmed: 0, 'lost-in-summary': 0, 'present-but-missed': 0, 'abstain-fail': 1, error: 0 });
    expect(trim.attribution).toMatchObject({ trimmed: 2, error: 1 });
    expect(summ.attribution).toMatchObject({ 'lost-in-summary': 1, 'present-but-missed': 2 });
    expect([full.inputTokens, full.outputTokens]).toEqual([6 * 410 + 4 * 160, 50]);
    expect([trim.inputTokens, trim.outputTokens]).toEqual([5 * 210 + 4 * 160, 45]);
    expect(summ.inputTokens).toBe(6 * 170 + 4 * 160);
    expect(full.cost).toBeCloseTo(0.01, 12);
    expect(trim.cost).toBeCloseTo(0.009, 12);
    expect(full.latencyMean).toBeCloseTo(5300 / 9, 9);
    expect([full.latencyP50, full.latencyP95]).toEqual([600, 1000]);
    expect(trim.latencyMean).toBeCloseTo(2650 / 9, 9);
    expect([trim.latencyP50, trim.latencyP95]).toEqual([300, 500]);
    expect([summ.latencyP50, summ.latencyP95]).toEqual([1500, 1900]);
  });

  it('summarises summaries: judge means over judged ones, checks and drift', () => {
    const { full, summ } = byId;
    expect([summ.summariesMade, summ.summaryErrors, summ.summaryTokensIn, summ.summaryTokensOut]).toEqual([2, 1, 600, 100]);
    expect(summ.judgeOverall).toBe(3);
    expect(summ.judgeCoverage).toBeCloseTo(0.65, 12);
    expect(summ.judgeFaithfulness).toBeCloseTo(0.8, 12);
    expect(summ.judgeScore).toBeCloseTo(0.65, 12);
    expect(summ.checksCoverage).toBeCloseTo(0.75, 12);
    expect([summ.unsupportedClaims, summ.driftLost, summ.judged]).toEqual([1, 1, 2]);
    expect(full.summariesMade).toBe(0);
    expect(full.judgeOverall).toBeUndefined();
  });

  it('never counts an error as a pass, even if a record claims both', () => {
    const run = sampleRun();
    const rec = run.probes.find((p) => p.strategy === 'full')!;
    rec.error = 'timeout';
    rec.passed = true;
    const full = summarize(run)[0];
    expect([full.graded, full.passed, full.errors]).toEqual([9, 8, 1]);
  });
});

describe('metricValue', () => {
  const run = sampleRun();
  it('reads named metrics', () => {
    expect(metricValue(run, 'trim-2', 'probe.accuracy')).toBeCloseTo(7 / 9, 12);
    expect(metricValue(run, 'trim-2', 'probe.accuracy.recall')).toBe(0);
    expect(metricValue(run, 'trim-2', 'facts.critical_dropped')).toBe(1);
    expect(metricValue(run, 'summ', 'summary.judge.overall')).toBe(3);
    expect(metricValue(run, 'summ', 'summary.count')).toBe(2);
    expect(metricValue(run, 'summ', 'summary.checks.unsupported')).toBe(1);
    expect(metricValue(run, 'full', 'latency.p50')).toBe(600);
    expect(metricValue(run, 'full', 'probe.pass_hat_n')).toBeCloseTo(0.8, 12);
    expect(metricValue(run, 'full', 'summary.judge.overall')).toBeUndefined();
  });
  it('lists every documented name and rejects others', () => {
    for (const name of ['probe.accuracy', 'probe.accuracy.multi-hop', 'probe.f1', 'probe.pass_hat_n', 'probe.errors', 'context.mean_tokens', 'context.peak_tokens', 'context.compression', 'facts.retention', 'facts.critical_dropped', 'summary.count', 'summary.judge.overall', 'summary.judge.coverage', 'summary.judge.faithfulness', 'summary.judge.score', 'summary.checks.coverage', 'summary.checks.unsupported', 'cost.total', 'latency.p50']) {
      expect(METRIC_NAMES).toContain(name);
    }
    expect(isMetricName('probe.accuracy.bogus')).toBe(false);
    expect(() => metricValue(run, 'full', 'nope')).toThrow(/unknown metric/);
  });
  it('labels the offline model and judge as not LLMs', () => {
    expect(judgeLabel('offline')).toBe('offline (built-in rule-based grader, not an LLM)');
    expect(modelLabel('offline')).toBe('offline (built-in extractive reader, not an LLM)');
    expect(modelLabel('openai:gpt-4.1-mini')).toBe('openai:gpt-4.1-mini');
  });
});
