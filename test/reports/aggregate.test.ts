import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, accuracyByTag, baselineComparisons, compareProbes, isMetricName, judgeLabel, metricDef, metricValue, modelLabel, runNotice, stageErrors, summarize, summarizeStrategy, turnLatencies } from '../../reports/aggregate.js';
import { bareProbeRecord, bulkRun, sampleRun, withSummaryJudgeErrors } from '../helpers/sample-run.js';
import type { ProbeRecord, SummaryRecord } from '../../core/types.js';

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

  it('counts probes, accuracy over attempted (an error counts as not passed), kinds, F1 and pass^2', () => {
    const { full, summ } = byId;
    const trim = byId['trim-2'];
    expect([full.probes, full.attempted, full.graded, full.passed, full.failed, full.errors]).toEqual([10, 10, 10, 9, 1, 0]);
    expect(full.accuracy).toBeCloseTo(0.9, 12);
    expect(full.accuracyGraded).toBeCloseTo(0.9, 12);
    expect(full.accuracyByKind).toEqual({ recall: 1, update: 1, temporal: 1, 'multi-hop': 1, abstention: 0.5 });
    expect(full.meanF1).toBeCloseTo(9.25 / 10, 12);
    expect(full.passHatN).toBeCloseTo(4 / 5, 12);
    // trim-2's p3 repeat 2 errored in the answer call.
    expect([trim.probes, trim.attempted, trim.graded, trim.passed, trim.failed, trim.errors]).toEqual([10, 10, 9, 7, 2, 1]);
    expect([trim.answerErrors, trim.answerJudgeErrors]).toEqual([1, 0]);
    expect(trim.accuracy).toBeCloseTo(7 / 10, 12);
    expect(trim.accuracyGraded).toBeCloseTo(7 / 9, 12);
    expect(trim.accuracyByKind).toEqual({ recall: 0, update: 1, temporal: 0.5, 'multi-hop': 1, abstention: 1 });
    expect(trim.attemptedByKind.temporal).toBe(2);
    expect(trim.gradedByKind.temporal).toBe(1);
    expect(trim.meanF1).toBeCloseTo(7.5 / 10, 12); // the errored answer scores 0: it never leaves the mean
    expect(trim.passHatN).toBeCloseTo(3 / 5, 12); // p3's errored repeat is not a pass, so p3 fails pass^2
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
    expect(full.attribution).toEqual({ trimmed: 0, 'lost-in-summary': 0, 'present-but-missed': 0, 'abstain-fail': 1, error: 0, opaque: 0, unknown: 0 });
    expect(trim.attribution).toMatchObject({ trimmed: 2, error: 1 });
    expect(summ.attribution).toMatchObject({ 'lost-in-summary': 1, 'present-but-missed': 2 });
    expect([full.inputTokens, full.outputTokens]).toEqual([6 * 410 + 4 * 160, 50]);
    expect([trim.inputTokens, trim.outputTokens]).toEqual([5 * 210 + 4 * 160, 45]);
    expect(summ.inputTokens).toBe(6 * 170 + 4 * 160);
    expect(full.cost).toBeCloseTo(0.01, 12);
    expect(trim.cost).toBeCloseTo(0.009, 12);
    expect(full.latencyMean).toBeCloseTo(5300 / 9, 9);
    expect([full.latencyP50, full.latencyP95]).toEqual([600, 1000]);
    // trim-2's failed answer call (300 ms) is not an answer's latency.
    expect(trim.latencyMean).toBeCloseTo((2650 - 300) / 8, 9);
    expect([trim.latencyP50, trim.latencyP95]).toEqual([250, 500]);
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
    expect([summ.unsupportedClaims, summ.driftLost, summ.judged, summ.judgeErrors]).toEqual([1, 1, 2, 0]);
    expect(summ.summariesAttempted).toBe(3);
    expect(full.summariesMade).toBe(0);
    expect(full.judgeOverall).toBeUndefined();
  });

  it('never counts an error as a pass, even if a record claims both', () => {
    const run = sampleRun();
    const rec = run.probes.find((p) => p.strategy === 'full')!;
    rec.error = 'timeout';
    rec.passed = true;
    const full = summarize(run)[0];
    expect([full.attempted, full.graded, full.passed, full.errors]).toEqual([10, 9, 8, 1]);
    expect(full.accuracy).toBeCloseTo(8 / 10, 12);
  });

  it('keeps errored probes in the accuracy denominator and its interval', () => {
    // 30 of 100 answers fail: accuracy must drop to 0.7, not stay at 1 over the 70 graded.
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 10, probesPer: 10, passes: (_s, _t, p) => (p < 3 ? 'error' : true) });
    const a = summarize(run)[0];
    expect([a.attempted, a.graded, a.errors, a.answerErrors]).toEqual([100, 70, 30, 30]);
    expect(a.accuracy).toBeCloseTo(0.7, 12);
    expect(a.accuracyGraded).toBe(1);
    expect(a.accuracyHigh!).toBeLessThan(1);
    expect(a.accuracyLow!).toBeLessThanOrEqual(0.7);
  });

  it('counts the answers a finished run owed and never made as not passed; a run still going owes none yet', () => {
    // 4 transcripts × 5 probes, all passed, but transcript bt3's answers were never made (its job stopped).
    const whole = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 4, probesPer: 5, passes: () => true });
    const run = { ...whole, probes: whole.probes.filter((p) => p.transcript !== 'bt3') };
    const failed = summarize({ ...run, info: { ...run.info, status: 'failed' } })[0];
    expect([failed.attempted, failed.unattempted, failed.passed]).toEqual([15, 5, 15]);
    expect(failed.accuracy).toBeCloseTo(15 / 20, 12);
    // The interval counts them too: a whole transcript of 0s cannot leave the upper bound at 1.
    expect(failed.accuracyHigh!).toBeLessThan(1);
    expect(failed.accuracyLow!).toBeLessThanOrEqual(0.75);
    const interrupted = summarize({ ...run, info: { ...run.info, status: 'interrupted' } })[0];
    expect([interrupted.unattempted, interrupted.accuracy]).toEqual([0, 1]);
    // A shard owes only its own jobs.
    const shard = { index: 1, count: 2, jobs: ['a::bt0', 'a::bt1', 'a::bt2'] };
    expect(summarize({ ...run, info: { ...run.info, status: 'failed', shard } })[0].unattempted).toBe(0);
  });

  it('gives an all-pass strategy a Wilson interval at the effective sample size, not a zero-width one', () => {
    // 40 of 40 pass across 10 transcripts: no variance, so ICC 0, design effect 1: Wilson(40, 40) = [0.9124, 1].
    const a = summarize(bulkRun({ runId: 'r', strategies: ['a'], transcripts: 10, probesPer: 4, passes: () => true }))[0];
    expect(a.accuracyLow!).toBeCloseTo(0.912378, 6);
    expect(a.accuracyHigh!).toBeCloseTo(1, 12);
    // Whole transcripts pass or fail (ICC 1): design effect 4, so 40 probes count as 10 outcomes, 5 of them passes.
    const b = summarize(bulkRun({ runId: 'r', strategies: ['a'], transcripts: 10, probesPer: 4, passes: (_s, t) => t < 5 }))[0];
    expect(b.accuracyLow!).toBeCloseTo(0.236593, 6);
    expect(b.accuracyHigh!).toBeCloseTo(0.763407, 6);
  });

  it('gives a run whose every probe errored an accuracy of 0, not no value', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 3, passes: () => 'error' });
    const a = summarize(run)[0];
    expect([a.accuracy, a.accuracyGraded, a.errors]).toEqual([0, undefined, 6]);
  });

  it('tells answer errors from answer-judge errors', () => {
    const full = summarize(sampleRun({ outcomes: { full: ['pass', 'judge-error', 'pass', 'error', 'pass', 'pass', 'pass', 'judge-error', 'pass', 'fail'] } }))[0];
    expect([full.attempted, full.graded, full.passed, full.failed, full.errors, full.answerErrors, full.answerJudgeErrors]).toEqual([10, 7, 6, 1, 3, 1, 2]);
    expect(full.accuracy).toBeCloseTo(6 / 10, 12);
    expect(full.accuracyGraded).toBeCloseTo(6 / 7, 12);
  });

  it('counts summary-judge failures as judge errors, not as zero errors', () => {
    const summ = summarize(withSummaryJudgeErrors(sampleRun()))[2];
    expect([summ.summariesAttempted, summ.summariesMade, summ.summaryErrors, summ.judged, summ.judgeErrors]).toEqual([3, 2, 1, 0, 2]);
    expect(summ.judgeOverall).toBeUndefined();
  });
});

describe('answerable and reader gap', () => {
  const byId = Object.fromEntries(summarize(sampleRun()).map((r) => [r.strategy, r]));

  it('splits the misses: not answerable (the strategy lost it) vs answerable and not passed (the reader missed it)', () => {
    const { full, summ } = byId;
    const trim = byId['trim-2'];
    // full keeps every fact; its one miss is q2r2, an abstention probe naming no facts (answerable).
    expect([full.answerable, full.answerableKnown, full.readerGap, full.answerableErrors]).toEqual([10, 10, 1, 0]);
    expect([full.answerableRate, full.readerGapRate]).toEqual([1, 0.1]);
    // trim-2 lost f1 for both p1 repeats (not answerable); p3r2 errored with its fact in view: missed, still in the denominator.
    expect([trim.answerable, trim.answerableKnown, trim.readerGap, trim.answerableErrors]).toEqual([8, 10, 1, 1]);
    expect(trim.answerableRate).toBeCloseTo(0.8, 12);
    expect(trim.readerGapRate).toBeCloseTo(1 / 8, 12);
    // summ's three failures all had their facts in view: the reader missed them.
    expect([summ.answerable, summ.readerGap]).toEqual([10, 3]);
    expect(summ.readerGapRate).toBeCloseTo(0.3, 12);
  });

  it('breaks the reader gap down by kind, over answerable probes of each kind only', () => {
    const trim = byId['trim-2'];
    expect(trim.readerGapByKind).toEqual({ update: 0, temporal: 0.5, 'multi-hop': 0, abstention: 0 });
    expect(trim.answerableByKind.recall).toBeUndefined(); // both recall probes were not answerable
    expect([trim.answerableByKind.temporal, trim.readerMissedByKind.temporal]).toEqual([2, 1]);
    expect(byId.summ.readerGapByKind).toMatchObject({ update: 0.5, 'multi-hop': 1 });
    expect(byId.full.readerGapByKind.abstention).toBe(0.5);
  });

  it('counts an answerable probe whose answer or judge errored as missed', () => {
    const full = summarize(sampleRun({ outcomes: { full: ['pass', 'judge-error', 'pass', 'error', 'pass', 'pass', 'pass', 'judge-error', 'pass', 'fail'] } }))[0];
    expect([full.answerable, full.answerableErrors, full.readerGap]).toEqual([10, 3, 4]);
    expect(full.readerGapRate).toBeCloseTo(0.4, 12);
  });

  it('leaves probes with an unknown answerable (null) out of both rates', () => {
    const run = sampleRun();
    // A record written before the field existed, or a non-abstention probe naming no facts.
    for (const p of run.probes) if (p.strategy === 'trim-2' && p.probe === 'p1') p.answerable = null;
    const trim = summarize(run)[1];
    expect([trim.answerable, trim.answerableKnown, trim.readerGap]).toEqual([8, 8, 1]);
    expect(trim.answerableRate).toBe(1);
    for (const p of run.probes) p.answerable = null;
    const none = summarize(run)[0];
    expect([none.answerable, none.answerableKnown, none.answerableRate, none.readerGapRate]).toEqual([0, 0, undefined, undefined]);
    expect(none.readerGapByKind).toEqual({});
  });

  it('gives both rates a clustered interval around them', () => {
    // Wilson's upper end at a rate of 1 is 1 up to rounding.
    const ulp = 1e-12;
    for (const r of Object.values(byId)) {
      expect(r.answerableLow!).toBeLessThanOrEqual(r.answerableRate! + ulp);
      expect(r.answerableHigh!).toBeGreaterThanOrEqual(r.answerableRate! - ulp);
      expect(r.readerGapLow!).toBeLessThanOrEqual(r.readerGapRate! + ulp);
      expect(r.readerGapHigh!).toBeGreaterThanOrEqual(r.readerGapRate! - ulp);
    }
    expect(byId.full.answerableLow!).toBeLessThan(1);
    expect(byId['trim-2'].readerGapHigh!).toBeLessThan(1);
    expect(summarizeStrategy(sampleRun(), 'trim-2', false).readerGapLow).toBeUndefined();
  });

  it('knows no cost, cached or not, for a strategy whose every answer errored', () => {
    const down = bulkRun({ runId: 'down', strategies: ['s'], transcripts: 2, probesPer: 2, passes: () => 'error' });
    for (const p of down.probes) p.costCached = 0;
    const s = summarizeStrategy(down, 's');
    expect([s.cost, s.costCached]).toEqual([undefined, undefined]);
  });

  it('counts each probe once in the answerable interval: repeats share the context, and copies would narrow it', () => {
    const once = bulkRun({ runId: 'once', strategies: ['s'], transcripts: 8, probesPer: 3, passes: () => true });
    const thrice = bulkRun({ runId: 'thrice', strategies: ['s'], transcripts: 8, probesPer: 3, passes: () => true });
    thrice.probes = thrice.probes.flatMap((p) => [1, 2, 3].map((repeat) => ({ ...p, repeat })));
    const a = summarizeStrategy(once, 's');
    const b = summarizeStrategy(thrice, 's');
    expect(b.answerableRate).toBe(1);
    expect(b.answerableLow).toBeCloseTo(a.answerableLow as number, 12);
  });
});

describe('stageErrors', () => {
  it('counts each stage over the items that reached it, with the first message', () => {
    const run = sampleRun({ outcomes: { full: ['pass', 'judge-error', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'error'] } });
    run.probes[9].error = 'connection reset';
    expect(stageErrors(run)).toEqual([
      // 30 probes; full q2r2 and trim-2 p3r2 failed to answer, and full's records come first.
      { stage: 'answer', errors: 2, attempted: 30, firstError: 'connection reset' },
      { stage: 'answer-judge', errors: 1, attempted: 28, firstError: 'judge: judge returned no JSON' },
      { stage: 'summarizer', errors: 1, attempted: 3, firstError: 'summarizer timed out' },
      { stage: 'summary-judge', errors: 0, attempted: 2 },
    ]);
  });

  it('reads records written before errorStage existed: a judge verdict of error is a judge error', () => {
    const run = sampleRun();
    const rec = run.probes[0];
    Object.assign(rec, { judge: { verdict: 'error', reason: 'rate limited', model: 'x' }, passed: undefined });
    const judge = stageErrors(run)[1];
    expect([judge.errors, judge.firstError]).toEqual([1, 'rate limited']);
    expect(stageErrors(run)[0].errors).toBe(1); // only trim-2's answer error
  });

  it('counts a record never graded, with no error said, as a grading error, as accuracy does', () => {
    const run = sampleRun();
    const rec = run.probes[0];
    Object.assign(rec, { passed: undefined, judge: undefined });
    const judge = stageErrors(run)[1];
    expect(judge.errors).toBe(1);
    expect(summarize(run)[0].errors).toBe(1);
  });

  it('shows 96 of 96 summary-judge failures as 96 errors', () => {
    const run = withSummaryJudgeErrors(bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 48, probesPer: 1, passes: () => true, summaryOverall: () => 4 }));
    expect(stageErrors(run)[3]).toEqual({ stage: 'summary-judge', errors: 96, attempted: 96, firstError: 'HTTP 401 from judge: invalid api key' });
    const a = summarize(run)[0];
    expect([a.judged, a.judgeErrors]).toEqual([0, 48]);
  });
});

describe('runNotice', () => {
  it('is absent for complete runs and names the status and reason otherwise', () => {
    expect(runNotice(sampleRun().info)).toBeUndefined();
    const info = { ...sampleRun({ status: 'incomplete' }).info, failure: '30 of 100 probe answers errored.' };
    expect(runNotice(info)).toEqual({ label: 'INCOMPLETE', reason: '30 of 100 probe answers errored.' });
    expect(runNotice(sampleRun({ status: 'failed' }).info)?.label).toBe('FAILED');
    expect(runNotice(sampleRun({ status: 'interrupted' }).info)?.label).toBe('INTERRUPTED');
  });
});

describe('metricValue', () => {
  const run = sampleRun();
  it('reads named metrics', () => {
    expect(metricValue(run, 'trim-2', 'probe.accuracy')).toBeCloseTo(7 / 10, 12);
    expect(metricValue(run, 'trim-2', 'probe.accuracy_graded')).toBeCloseTo(7 / 9, 12);
    expect(metricValue(run, 'trim-2', 'probe.errors')).toBe(1);
    expect(metricValue(run, 'trim-2', 'probe.answer_errors')).toBe(1);
    expect(metricValue(run, 'trim-2', 'probe.judge_errors')).toBe(0);
    expect(metricValue(run, 'summ', 'summary.errors')).toBe(1);
    expect(metricValue(run, 'summ', 'summary.judge.errors')).toBe(0);
    expect(metricValue(run, 'trim-2', 'probe.accuracy.recall')).toBe(0);
    expect(metricValue(run, 'trim-2', 'facts.critical_dropped')).toBe(1);
    expect(metricValue(run, 'summ', 'summary.judge.overall')).toBe(3);
    expect(metricValue(run, 'summ', 'summary.count')).toBe(2);
    expect(metricValue(run, 'summ', 'summary.checks.unsupported')).toBe(1);
    expect(metricValue(run, 'full', 'latency.p50')).toBe(600);
    expect(metricValue(run, 'full', 'probe.pass_hat_n')).toBeCloseTo(0.8, 12);
    expect(metricValue(run, 'full', 'summary.judge.overall')).toBeUndefined();
    expect(metricValue(run, 'trim-2', 'probe.answerable')).toBeCloseTo(0.8, 12);
    expect(metricValue(run, 'trim-2', 'probe.reader_gap')).toBeCloseTo(1 / 8, 12);
    expect(metricValue(run, 'summ', 'probe.reader_gap')).toBeCloseTo(0.3, 12);
  });
  it('lists every documented name and rejects others', () => {
    for (const name of ['probe.accuracy', 'probe.accuracy.multi-hop', 'probe.f1', 'probe.pass_hat_n', 'probe.errors', 'context.mean_tokens', 'context.peak_tokens', 'context.compression', 'facts.retention', 'facts.critical_dropped', 'summary.count', 'summary.judge.overall', 'summary.judge.coverage', 'summary.judge.faithfulness', 'summary.judge.score', 'summary.checks.coverage', 'summary.checks.unsupported', 'cost.total', 'latency.p50', 'probe.accuracy_graded', 'probe.answer_errors', 'probe.judge_errors', 'summary.errors', 'summary.judge.errors', 'probe.answerable', 'probe.reader_gap']) {
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

describe('metric support', () => {
  const support = (run: ReturnType<typeof sampleRun>, strategy: string, metric: string) => metricDef(metric)!.support(summarizeStrategy(run, strategy, false));
  const run = sampleRun();

  it('states what each metric rests on and what it could not measure', () => {
    expect(support(run, 'trim-2', 'probe.accuracy')).toEqual({ measured: 9, errors: 1, unit: 'probes' });
    expect(support(run, 'trim-2', 'probe.accuracy.temporal')).toEqual({ measured: 1, errors: 1, unit: 'probes' });
    expect(support(run, 'trim-2', 'probe.accuracy.recall')).toEqual({ measured: 2, errors: 0, unit: 'probes' });
    // A figure over the items that did not error is not measured while any errored: it could only read better.
    expect(support(run, 'trim-2', 'cost.total')).toEqual({ measured: 0, errors: 1, unit: 'probes', none: '1 error left its item out of the cost, which could only read better without them' });
    expect(support(run, 'trim-2', 'probe.accuracy_graded').none).toMatch(/^1 error left its item out of the graded accuracy/);
    expect(support(run, 'trim-2', 'latency.p50').measured).toBe(0);
    expect(support(run, 'full', 'cost.total')).toEqual({ measured: 10, errors: 0, unit: 'probes' });
    expect(support(run, 'trim-2', 'context.mean_tokens')).toEqual({ measured: 6, errors: 0, unit: 'turns' });
    expect(support(run, 'summ', 'summary.judge.overall')).toMatchObject({ measured: 0, errors: 1, unit: 'summaries' });
    expect(support(run, 'summ', 'summary.checks.coverage')).toMatchObject({ measured: 0, errors: 1, unit: 'summaries' });
    expect(support(run, 'full', 'summary.judge.overall')).toEqual({ measured: 0, errors: 0, unit: 'summaries' });
  });

  it('gives error counts their attempts as support, with nothing missing', () => {
    expect(support(run, 'trim-2', 'probe.errors')).toEqual({ measured: 10, errors: 0, unit: 'probes' });
    expect(support(run, 'trim-2', 'probe.judge_errors')).toEqual({ measured: 9, errors: 0, unit: 'probes' });
    expect(support(run, 'summ', 'summary.errors')).toEqual({ measured: 3, errors: 0, unit: 'summaries' });
    expect(support(run, 'summ', 'summary.judge.errors')).toEqual({ measured: 2, errors: 0, unit: 'summaries' });
    for (const name of ['probe.errors', 'probe.answer_errors', 'probe.judge_errors', 'summary.errors', 'summary.judge.errors']) {
      expect(metricDef(name)!.higherIsBetter, name).toBe(false);
    }
  });

  it('puts summary-judge failures into the judge means\' support', () => {
    const broken = withSummaryJudgeErrors(sampleRun());
    expect(support(broken, 'summ', 'summary.judge.score')).toEqual({ measured: 0, errors: 3, unit: 'summaries' });
    expect(metricValue(broken, 'summ', 'summary.judge.errors')).toBe(2);
  });

  it('measures probe.answerable over probes with a known answerable and probe.reader_gap over answerable ones, errors named', () => {
    expect(support(run, 'trim-2', 'probe.answerable')).toEqual({ measured: 10, errors: 0, unit: 'probes' });
    // 8 answerable, one of them errored: 7 graded, 1 error (it is in the rate as missed).
    expect(support(run, 'trim-2', 'probe.reader_gap')).toEqual({ measured: 7, errors: 1, unit: 'probes' });
    const unknown = sampleRun();
    for (const p of unknown.probes) p.answerable = null;
    expect(support(unknown, 'full', 'probe.answerable')).toEqual({ measured: 0, errors: 0, unit: 'probes' });
    expect(metricDef('probe.answerable')).toMatchObject({ higherIsBetter: true, binary: false });
    // A gap is bad: a `max:` gate bounds it.
    expect(metricDef('probe.reader_gap')).toMatchObject({ higherIsBetter: false, binary: false });
    expect(metricDef('probe.reader_gap')!.description).toBe('answerable probes not passed / answerable probes (an errored answerable probe counts as missed)');
  });

  it('names the denominator in the accuracy description', () => {
    expect(metricDef('probe.accuracy')!.description).toBe('passed / attempted probes (an errored probe counts as not passed)');
  });
});

describe('baselineComparisons', () => {
  // a is the baseline (the first strategy); b fails 12 probes a passes (McNemar p = 2/4096), c fails one (p = 1).
  const run = bulkRun({
    runId: 'r',
    strategies: ['a', 'b', 'c'],
    transcripts: 10,
    probesPer: 4,
    passes: (s, t, p) => (s === 'b' ? !(p < 2 && t < 6) : !(s === 'c' && t === 0 && p === 0)),
  });

  it('tests each strategy against the baseline with McNemar, Holm-adjusted across the run', () => {
    const by = baselineComparisons(run);
    expect([...by.keys()]).toEqual(['b', 'c']);
    const b = by.get('b')!;
    expect(b).toMatchObject({ baseline: 'a', sharedProbes: 40, significant: true });
    expect(b.delta).toBeCloseTo(-12 / 40, 12);
    expect(b.p).toBeCloseTo(2 / 4096, 12);
    expect(b.pHolm).toBeCloseTo(4 / 4096, 12);
    expect(by.get('c')).toMatchObject({ p: 1, pHolm: 1, significant: false });
  });

  it('is on every summary row but the baseline, and absent without a baseline strategy', () => {
    const rows = summarize(run);
    expect(rows.map((r) => r.vsBaseline?.significant)).toEqual([undefined, true, false]);
    const none = { ...run, info: { ...run.info, baseline: undefined } };
    expect(baselineComparisons(none).size).toBe(0);
  });
});

describe('accuracyByTag', () => {
  it('is passed / attempted per strategy on the transcripts with each tag, a transcript counting under each of its tags', () => {
    const run = sampleRun();
    run.info.transcripts[0] = { ...run.info.transcripts[0], tags: ['support', 'long'] };
    const { tags, strategies } = accuracyByTag(run);
    expect(tags).toEqual(['long', 'shopping', 'support']);
    for (const { strategy, byTag } of strategies) {
      const rows = summarizeStrategy(run, strategy, false);
      const mine = (t: string) => run.probes.filter((r) => r.strategy === strategy && r.transcript === t);
      const passed = (t: string) => mine(t).filter((r) => r.passed && !r.error && r.judge?.verdict !== 'error').length;
      expect(byTag.support).toEqual({ attempted: mine('t1').length, passed: passed('t1'), accuracy: passed('t1') / mine('t1').length });
      expect(byTag.long).toEqual(byTag.support);
      expect(byTag.shopping.attempted).toBe(mine('t2').length);
      expect(byTag.support.passed + byTag.shopping.passed).toBe(rows.passed);
    }
  });

  it('lists no tags for a run whose transcripts have none', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 1, passes: () => true });
    expect(accuracyByTag(run).tags).toEqual([]);
  });
});

describe('turn latency', () => {
  const probe = (afterTurn: number, latencyMs: number, extra: Partial<ProbeRecord> = {}): ProbeRecord =>
    bareProbeRecord({ strategy: 's', transcript: 't', probe: `p${afterTurn}-${latencyMs}`, reference: 'x', afterTurn, latencyMs, ...extra });
  const summary = (turn: number, durationMs: number): SummaryRecord => ({
    strategy: 's', transcript: 't', turn, coveredTurns: [1, turn - 1], index: turn, summarizer: 'offline-extractive',
    text: 'sum', usage: { inputTokens: 1, outputTokens: 1 }, durationMs,
  });

  it('adds the summarizer calls made on a turn to its answers; a summarizer-only turn counts alone; cache hits do not', () => {
    const probes = [probe(2, 100), probe(4, 200), probe(4, 300), probe(5, 50, { cached: true })];
    // Turn 4 summarised twice (40 + 60 ms); turn 3 summarised with no probe (25 ms); turn 2 made no summary.
    const summaries = [summary(4, 40), summary(4, 60), summary(3, 25)];
    // 100, 200 + 100, 300 + 100, and 25 for turn 3 alone.
    expect(turnLatencies(probes, summaries).sort((a, b) => a - b)).toEqual([25, 100, 300, 400]);
  });
});

describe('compareProbes', () => {
  const rec = (strategy: string, probe: string, passed: boolean, repeat = 1, error?: string) =>
    bareProbeRecord({ strategy, transcript: `t-${probe}`, probe, reference: 'x', repeat, passed, ...(error ? { error, errorStage: 'answer' as const } : {}) });
  const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

  it('counts an errored probe as not passed: answers that errored are flips, not dropped pairs', () => {
    const base = ids.map((p) => rec('base', p, true));
    const cand = ids.map((p) => rec('cand', p, false, 1, 'HTTP 500'));
    const paired = compareProbes(base, cand);
    expect(paired.pairs).toHaveLength(8);
    expect([paired.passToFail, paired.failToPass]).toEqual([8, 0]);
    expect(paired.mcnemarP).toBeLessThan(0.05);
    expect(paired.bootstrap?.high).toBeLessThan(0);
  });

  it('counts an errored repeat as a repeat not passed', () => {
    const base = ids.flatMap((p) => [rec('base', p, true, 1), rec('base', p, true, 2)]);
    const cand = ids.flatMap((p) => [rec('cand', p, true, 1), rec('cand', p, false, 2, 'HTTP 500')]);
    const paired = compareProbes(base, cand);
    expect(paired.pairs.every((p) => p.cand.rate === 0.5)).toBe(true);
    expect(paired.passToFail).toBe(8);
    expect(paired.delta).toBe(-0.5);
  });

  it('with repeats, a probe moves when its pass rate does: one repeat in three lost on every probe is a significant drop', () => {
    const repeats = (who: string, passes: (repeat: number) => boolean) => ids.flatMap((p) => [1, 2, 3].map((n) => rec(who, p, passes(n), n)));
    const paired = compareProbes(
      repeats('base', () => true),
      repeats('cand', (n) => n !== 3),
    );
    // A majority vote would count every probe as passed in both: no flip, p = 1.
    expect([paired.passToFail, paired.failToPass]).toEqual([8, 0]);
    expect(paired.mcnemarP).toBeCloseTo(2 / 256, 12);
    expect(paired.delta).toBeCloseTo(-1 / 3, 12);
    // A tie is a rate of 0.5, not a failure: half a repeat lost, not the whole probe.
    const tie = compareProbes(repeats('base', () => true).filter((r) => r.repeat < 3), repeats('cand', (n) => n === 1).filter((r) => r.repeat < 3));
    expect(tie.delta).toBe(-0.5);
  });
});
