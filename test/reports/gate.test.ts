import { describe, expect, it } from 'vitest';
import type { GateConfig } from '../../harness/config.js';
import type { RunResult } from '../../core/types.js';
import { evaluateGates, runFailure } from '../../reports/gate.js';
import { bulkRun, sampleRun } from '../helpers/sample-run.js';

function gate(partial: Partial<GateConfig> & Pick<GateConfig, 'metric'>): GateConfig {
  return { strategy: '*', where: 'memeval.config.yaml:10:5', ...partial };
}

const allPass = () => bulkRun({ runId: 'base', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: () => true });
const broadDrop = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s === 't' || !(p < 2 && t < 6) });
const wobble = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && t === 0 && p === 0) });

describe('evaluateGates', () => {
  const run = sampleRun();

  it('checks min and max per strategy, "*" expanding to every strategy, saying what was measured', () => {
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 }), gate({ metric: 'context.mean_tokens', max: 140 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['full:pass', 'full:fail', 'trim-2:fail', 'summ:pass']);
    expect(results[0].message).toBe('full probe.accuracy = 0.9 over 10 probes ≥ min 0.8');
    expect(results[1].message).toBe('full context.mean_tokens = 200 over 6 turns > max 140 — FAIL');
    expect(results[1].notEvaluated).toBeUndefined();
  });

  it('evaluates a metric that has errors beside data, naming the error count', () => {
    // trim-2 has one errored probe among ten: 7 passed of 10 attempted.
    const trim = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })])[0];
    expect(trim.status).toBe('fail');
    expect(trim.value).toBeCloseTo(0.7, 12);
    expect(trim.support).toEqual({ measured: 9, errors: 1, unit: 'probes' });
    expect(trim.message).toBe('trim-2 probe.accuracy = 0.7 (10 probes: 9 graded, 1 errored) < min 0.8 — FAIL');
    const lenient = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.5 })])[0];
    expect(lenient.status).toBe('pass');
    expect(lenient.message).toBe('trim-2 probe.accuracy = 0.7 (10 probes: 9 graded, 1 errored) ≥ min 0.5');
  });

  it('fails a gate on a metric with no data, saying it could not be evaluated', () => {
    const r = evaluateGates(run, [gate({ metric: 'summary.judge.overall', strategy: 'full', min: 3 })])[0];
    expect(r.status).toBe('fail');
    expect(r.notEvaluated).toBe('no data (no summaries measured)');
    expect(r.message).toBe('full summary.judge.overall: no data (no summaries measured) — FAIL');
  });

  it('fails a gate whose data all errored, with the error count, even when the bound would hold', () => {
    const judgeDown = sampleRun();
    for (const s of judgeDown.summaries) if (s.grades?.judge) s.grades.judge.error = 'HTTP 429 from judge';
    // min 0 would pass any number, so only "not evaluated" can fail it.
    const r = evaluateGates(judgeDown, [gate({ metric: 'summary.judge.overall', strategy: 'summ', min: 0 })])[0];
    expect(r.status).toBe('fail');
    expect(r.message).toBe('summ summary.judge.overall: no graded summaries (3 errors) — FAIL');
    const probesDown = bulkRun({ runId: 'x', strategies: ['s', 't'], transcripts: 2, probesPer: 3, passes: (s) => (s === 's' ? 'error' : true) });
    const acc = evaluateGates(probesDown, [gate({ metric: 'probe.accuracy', strategy: 's', max: 1 })])[0];
    expect(acc.status).toBe('fail');
    expect(acc.notEvaluated).toBe('no graded probes (6 errors)');
  });

  it('fails a gate on a figure that leaves errored items out while any errored, even when the bound would hold', () => {
    // summ: one summary failed to be made; its judge mean is over the two that were.
    const r = evaluateGates(sampleRun(), [gate({ metric: 'summary.judge.overall', strategy: 'summ', min: 0 })])[0];
    expect(r.status).toBe('fail');
    expect(r.notEvaluated).toBe('1 error left its item out of the mean score, which could only read better without them');
    const latency = evaluateGates(sampleRun(), [gate({ metric: 'latency.p50', strategy: 'trim-2', max: 1e9 })])[0];
    expect(latency.status).toBe('fail');
  });

  it('compares with the baseline strategy by default, skipping the baseline itself', () => {
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.05 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['trim-2:fail', 'summ:fail']);
    expect(results[0].baseline).toBeCloseTo(0.9, 12);
    expect(results[0].drop).toBeCloseTo(0.2, 12);
    expect(results[0].message).toBe('trim-2 probe.accuracy = 0.7 (10 probes: 9 graded, 1 errored) dropped 0.2 vs baseline strategy full (0.9 → 0.7), more than max_drop 0.05 — FAIL');
    const lenient = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.25 })]);
    expect(lenient.every((r) => r.status === 'pass')).toBe(true);
    // Lower is better for tokens: a rise is a drop in quality.
    const tokens = evaluateGates(run, [gate({ metric: 'context.mean_tokens', strategy: 'summ', max_drop: 0 })])[0];
    expect(tokens.status).toBe('pass');
    expect(tokens.drop).toBe(135 - 200);
  });

  it('fails unevaluated a max_drop gate on the baseline strategy itself (--baseline naming the gated strategy)', () => {
    const run = bulkRun({ runId: 'b', strategies: ['s', 't'], transcripts: 4, probesPer: 2, passes: () => true });
    const r = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 't', max_drop: 0.05 })], { baselineStrategy: 't' })[0];
    expect(r.status).toBe('fail');
    expect(r.message).toContain('is the baseline strategy itself');
  });

  it('writes a value below four decimals with its significant digits, never as a 0 beside its bound', () => {
    const run = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 1, probesPer: 1, passes: () => true });
    for (const p of run.probes) p.cost = 0.00003;
    const r = evaluateGates(run, [gate({ metric: 'cost.total', strategy: 's', max: 0.00001 })])[0];
    expect(r.status).toBe('fail');
    expect(r.message).toContain('s cost.total = 0.00003 over 1 probes > max 0.00001');
  });

  it('with significant: true, passes a drop McNemar cannot tell from noise', () => {
    // t loses three probes and gains one against s over 40 pairs: b = 3, c = 1, p = 0.625.
    const noisy = bulkRun({ runId: 'n', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => (s === 's' ? !(t === 9 && p === 0) : !(p === 1 && t < 3)) });
    const r = evaluateGates(noisy, [gate({ metric: 'probe.accuracy', strategy: 't', max_drop: 0.01, significant: true })], { baselineStrategy: 's' })[0];
    expect(r.status).toBe('pass');
    expect(r.test).toBe('mcnemar');
    expect(r.pValue).toBeCloseTo(0.625, 12);
    expect(r.message).toContain('not significant');
  });

  it('with significant: true, fails a drop past max_drop that its test could never find significant', () => {
    // By majority of repeats the sample run pairs 5 probes: McNemar's smallest p is then 2/32, above 0.05.
    const r = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'summ', max_drop: 0.05, significant: true })])[0];
    expect(r.status).toBe('fail');
    expect(r.message).toBe(
      'summ probe.accuracy: dropped 0.2 vs baseline strategy full (0.9 → 0.7), more than max_drop 0.05, and whether that is significant cannot be told: with 5 shared probes its test cannot reach p < 0.05 (the smallest p it could give is 0.0625) — FAIL',
    );
    // No shared probe at all: nothing to test, never a pass.
    const other = bulkRun({ runId: 'o', strategies: ['s'], transcripts: 10, probesPer: 4, passes: () => false });
    for (const p of other.probes) p.transcript = `other-${p.transcript}`;
    const disjoint = evaluateGates(other, [gate({ metric: 'probe.accuracy', strategy: 's', max_drop: 0.01, vs: 'baseline-run', significant: true })], { baselineRun: allPass() })[0];
    expect(disjoint.status).toBe('fail');
    // Within max_drop it is measured fine, whatever the test could do.
    const within = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'summ', max_drop: 0.25, significant: true })])[0];
    expect(within.status).toBe('pass');
  });

  it('fails a baseline-run gate when the runs measured other transcripts, or other versions of them', () => {
    const g = gate({ metric: 'probe.accuracy', strategy: 's', max_drop: 0.5, vs: 'baseline-run' });
    const fewer = bulkRun({ runId: 'few', strategies: ['s', 't'], transcripts: 8, probesPer: 4, passes: () => true });
    const r = evaluateGates(fewer, [g], { baselineRun: allPass() })[0];
    expect(r.status).toBe('fail');
    expect(r.notEvaluated).toBe('baseline run base measured other transcripts (2 only there: bt8, bt9; 0 only in this run), so its s is not the same measurement');
    const base = allPass();
    const cand = allPass();
    base.info.transcripts = ['bt0', 'bt1'].map((id) => ({ id, file: `${id}.yaml`, tags: [], turns: 2, probes: 4, sha256: `old-${id}` }));
    cand.info.transcripts = ['bt0', 'bt1'].map((id) => ({ id, file: `${id}.yaml`, tags: [], turns: 2, probes: 4, sha256: id === 'bt1' ? 'edited' : `old-${id}` }));
    const edited = evaluateGates(cand, [g], { baselineRun: base })[0];
    expect(edited.status).toBe('fail');
    expect(edited.notEvaluated).toContain('read other versions of 1 transcript file(s) (bt1: their sha256 differ)');
    // The same files: compared.
    cand.info.transcripts = base.info.transcripts;
    expect(evaluateGates(cand, [g], { baselineRun: base })[0].status).toBe('pass');
  });

  it('fails a drop gate against a baseline whose errors understate it', () => {
    const errored = bulkRun({ runId: 'e', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (_s, t, p) => (t === 0 && p === 0 ? 'error' : true) });
    const r = evaluateGates(broadDrop(), [gate({ metric: 'probe.accuracy', strategy: 's', max_drop: 0.5, vs: 'baseline-run' })], { baselineRun: errored })[0];
    expect(r.status).toBe('fail');
    expect(r.notEvaluated).toBe(
      'baseline run e is no clean reference for probe.accuracy: 1 of its 40 probes errored, and errors count against it, so a drop measured from it would read smaller than it is',
    );
  });

  it('fails, not passes, "every strategy against the baseline" when the run has only the baseline', () => {
    const alone = bulkRun({ runId: 'a', strategies: ['s'], transcripts: 10, probesPer: 4, passes: () => true });
    const results = evaluateGates(alone, [gate({ metric: 'probe.accuracy', max_drop: 0.05 })], { baselineStrategy: 's' });
    expect(results).toHaveLength(1);
    expect(results[0].status).toBe('fail');
    expect(results[0].message).toBe('* probe.accuracy: no strategy besides the baseline strategy s to compare with it — FAIL');
  });

  it('against a baseline run: a broad drop fails, a one-probe wobble passes, both significant-gated', () => {
    const g = gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run', significant: true });
    const broad = evaluateGates(broadDrop(), [g], { baselineRun: allPass() });
    expect(broad.map((r) => `${r.strategy}:${r.status}`)).toEqual(['s:fail', 't:pass']);
    expect(broad[0].pValue).toBeCloseTo(2 / 4096, 12);
    // Family of two tests (s and t): Holm doubles the smaller p.
    expect(broad[0].pHolm).toBeCloseTo(4 / 4096, 12);
    expect(broad[0].message).toContain(
      'dropped 0.3 vs baseline run base (1 → 0.7), more than max_drop 0.01; significant (mcnemar p = 0.000488, Holm p = 0.000977 over 2 tests) — FAIL',
    );
    const small = evaluateGates(wobble(), [g], { baselineRun: allPass() });
    expect(small[0].status).toBe('pass');
    expect(small[0].drop).toBeCloseTo(1 / 40, 12);
    const strict = evaluateGates(wobble(), [{ ...g, significant: false }], { baselineRun: allPass() });
    expect(strict[0].status).toBe('fail');
  });

  it('uses a per-transcript bootstrap for non-accuracy metrics', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 10, probesPer: 1, passes: () => true, summaryOverall: () => 5 });
    const worse = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 10, probesPer: 1, passes: () => true, summaryOverall: (_s, t) => (t < 8 ? 3 : 5) });
    const r = evaluateGates(worse, [gate({ metric: 'summary.judge.overall', max_drop: 0.5, vs: 'baseline-run', significant: true })], { baselineRun: base })[0];
    expect(r.test).toBe('bootstrap');
    expect(r.value).toBeCloseTo(3.4, 12);
    expect(r.pValue).toBeLessThan(0.05);
    expect(r.status).toBe('fail');
  });

  it('cannot judge a one-transcript drop: the sign test that replaces a bootstrap of one cluster could never be significant', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 1, probesPer: 4, passes: () => true, summaryOverall: () => 5 });
    const worse = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 1, probesPer: 4, passes: () => true, summaryOverall: () => 3 });
    const r = evaluateGates(worse, [gate({ metric: 'summary.judge.overall', max_drop: 0.5, vs: 'baseline-run', significant: true })], { baselineRun: base })[0];
    // One transcript: the sign test's smallest p is 1, so the drop can be neither confirmed nor dismissed.
    expect(r.status).toBe('fail');
    expect(r.message).toContain('dropped 2 vs baseline run b (5 → 3), more than max_drop 0.5, and whether that is significant cannot be told: with 1 transcript its test cannot reach p < 0.05');
  });

  it('adjusts every significance test of the gate run with Holm: significant alone, not among two', () => {
    // s fails one probe in each of transcripts 0–5 (b = 6, c = 0): McNemar p = 2/64 = 0.03125; t does not move (p = 1).
    const cand = bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && p === 0 && t < 6) });
    const g = gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run', significant: true });
    const alone = evaluateGates(cand, [{ ...g, strategy: 's' }], { baselineRun: allPass() })[0];
    expect(alone.pValue).toBeCloseTo(0.03125, 12);
    expect(alone.pHolm).toBeCloseTo(0.03125, 12);
    expect(alone.status).toBe('fail');
    const both = evaluateGates(cand, [g], { baselineRun: allPass() });
    expect(both[0].pHolm).toBeCloseTo(0.0625, 12);
    expect(both[1].pHolm).toBe(1);
    expect(both[0].status).toBe('pass');
    expect(both[0].message).toContain('but not significant (mcnemar p = 0.0313, Holm p = 0.0625 over 2 tests)');
    // Gates without significant: true are not in the family.
    const mixed = evaluateGates(cand, [{ ...g, strategy: 's' }, { ...g, strategy: 't', significant: false }], { baselineRun: allPass() });
    expect(mixed[0].pHolm).toBeCloseTo(0.03125, 12);
    expect(mixed[1].pValue).toBeUndefined();
  });

  it('fails a baseline-run gate when no baseline run is given, saying so', () => {
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.05, vs: 'baseline-run' })]);
    expect(results.map((r) => r.status)).toEqual(['fail', 'fail', 'fail']);
    expect(results[1].message).toBe('trim-2 probe.accuracy: no baseline run to compare with (pass --baseline RUN or set baseline_run:) — FAIL');
    const why = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'full', max_drop: 0.05, vs: 'baseline-run' })], { noBaselineRun: 'baseline_run eval/base does not exist' })[0];
    expect(why.notEvaluated).toBe('no baseline run to compare with (baseline_run eval/base does not exist)');
  });

  it('skips, never passes, an optional gate that cannot be evaluated; an optional gate that is evaluated still fails', () => {
    const noBase = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'full', max_drop: 0.05, vs: 'baseline-run', optional: true })])[0];
    expect(noBase.status).toBe('skipped');
    expect(noBase.message).toBe('full probe.accuracy: no baseline run to compare with (pass --baseline RUN or set baseline_run:) — skipped (optional)');
    const noData = evaluateGates(run, [gate({ metric: 'summary.judge.overall', strategy: 'full', min: 3, optional: true })])[0];
    expect(noData.status).toBe('skipped');
    const measured = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8, optional: true })])[0];
    expect(measured.status).toBe('fail');
  });

  it('fails against a baseline run that lacks the strategy, has no data for it, or is not complete', () => {
    const g = gate({ metric: 'probe.accuracy', strategy: 's', max_drop: 0.05, vs: 'baseline-run' });
    const other = bulkRun({ runId: 'other', strategies: ['u'], transcripts: 2, probesPer: 2, passes: () => true });
    expect(evaluateGates(allPass(), [g], { baselineRun: other })[0].message).toBe('s probe.accuracy: baseline run other has no strategy "s" (it has: u) — FAIL');
    const errored = bulkRun({ runId: 'errored', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t) => (s === 's' && t < 1 ? 'error' : s !== 's') });
    for (const p of errored.probes) if (p.strategy === 's') Object.assign(p, { error: 'connection reset', attribution: 'error', passed: undefined, judge: undefined });
    expect(evaluateGates(allPass(), [g], { baselineRun: errored })[0].notEvaluated).toBe('baseline run errored has no graded probes (40 errors) for probe.accuracy');
    const incomplete = allPass();
    incomplete.info.status = 'incomplete';
    incomplete.info.failure = '3 of 40 probe answers errored';
    expect(evaluateGates(allPass(), [g], { baselineRun: incomplete })[0].notEvaluated).toBe(
      'the baseline cannot be compared with: run base is incomplete, not complete: 3 of 40 probe answers errored',
    );
  });

  it('fails on a bound that fails even when the relative part cannot be checked', () => {
    const r = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8, max_drop: 0.05, vs: 'baseline-run' })])[0];
    expect(r.status).toBe('fail');
    expect(r.notEvaluated).toBeUndefined();
    expect(r.message).toContain('< min 0.8; max_drop not checked: no baseline run to compare with');
  });

  it('fails a probe.reader_gap gate above its max, naming what it was measured over', () => {
    // trim-2: 1 of 8 answerable probes missed (its errored one); summ: 3 of 10.
    const results = evaluateGates(run, [gate({ metric: 'probe.reader_gap', max: 0.2 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['full:pass', 'trim-2:pass', 'summ:fail']);
    expect(results[1].message).toBe('trim-2 probe.reader_gap = 0.125 (8 probes: 7 graded, 1 errored) ≤ max 0.2');
    expect(results[2].message).toBe('summ probe.reader_gap = 0.3 over 10 probes > max 0.2 — FAIL');
    const tight = evaluateGates(run, [gate({ metric: 'probe.reader_gap', strategy: 'trim-2', max: 0.1 })])[0];
    expect(tight.status).toBe('fail');
  });

  it('gates probe.answerable with min, over probes with a known answerable', () => {
    const [r] = evaluateGates(run, [gate({ metric: 'probe.answerable', strategy: 'trim-2', min: 0.9 })]);
    expect(r.status).toBe('fail');
    expect(r.message).toBe('trim-2 probe.answerable = 0.8 over 10 probes < min 0.9 — FAIL');
  });

  it('cannot evaluate answerable gates on a run recorded before answerable existed', () => {
    const old = sampleRun();
    for (const p of old.probes) p.answerable = null;
    const results = evaluateGates(old, [gate({ metric: 'probe.reader_gap', strategy: 'summ', max: 1 }), gate({ metric: 'probe.answerable', strategy: 'summ', min: 0 })]);
    expect(results.map((r) => [r.status, r.notEvaluated])).toEqual([
      ['fail', 'no data (no probes measured)'],
      ['fail', 'no data (no probes measured)'],
    ]);
  });

  it('compares probe.reader_gap with a baseline run per transcript, a rise being the drop', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 10, probesPer: 4, passes: () => true });
    const worse = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 10, probesPer: 4, passes: (_s, t, p) => !(t < 8 && p < 2) });
    const r = evaluateGates(worse, [gate({ metric: 'probe.reader_gap', max_drop: 0.05, vs: 'baseline-run', significant: true })], { baselineRun: base })[0];
    expect(r.drop).toBeCloseTo(0.4, 12);
    expect(r.test).toBe('bootstrap');
    expect(r.status).toBe('fail');
  });

  it('rejects unknown metrics and strategies as input errors with the gate location', () => {
    expect(() => evaluateGates(run, [gate({ metric: 'probe.acuracy', min: 1 })])).toThrow(/memeval\.config\.yaml:10:5: unknown metric "probe\.acuracy"/);
    expect(() => evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'nope', min: 1 })])).toThrow(expect.objectContaining({ name: 'InputError' }));
    const noBaseline: RunResult = { ...run, info: { ...run.info, baseline: undefined } };
    expect(() => evaluateGates(noBaseline, [gate({ metric: 'probe.accuracy', max_drop: 0.1 })])).toThrow(/no baseline strategy/);
  });
});

describe('runFailure', () => {
  it('flags runs that are not complete, quoting why, and runs where every probe errored', () => {
    expect(runFailure(sampleRun())).toBeUndefined();
    expect(runFailure(sampleRun({ status: 'failed' }))).toBe('run 20260101T000000Z-abc123 is failed, not complete');
    expect(runFailure(sampleRun({ status: 'interrupted' }))).toMatch(/interrupted/);
    expect(runFailure(sampleRun({ status: 'running' }))).toMatch(/running, not complete/);
    const incomplete = sampleRun({ status: 'incomplete' });
    incomplete.info.failure = '4 of 30 probe answers (answer model) errored.';
    expect(runFailure(incomplete)).toBe('run 20260101T000000Z-abc123 is incomplete, not complete: 4 of 30 probe answers (answer model) errored.');
    const errored = bulkRun({ runId: 'x', strategies: ['s'], transcripts: 2, probesPer: 2, passes: () => 'error' });
    expect(runFailure(errored)).toMatch(/every probe/);
  });

  it('flags a run marked complete whose records lack answers it owes (a run.json cut by hand)', () => {
    const cut = bulkRun({ runId: 'cut', strategies: ['s', 't'], transcripts: 6, probesPer: 2, passes: () => true });
    expect(runFailure(cut)).toBeUndefined();
    cut.probes = cut.probes.filter((p) => !(p.strategy === 't' && p.transcript === 'bt0'));
    expect(runFailure(cut)).toBe('run cut lacks probe answers it owes (t 2), so it did not measure everything its status says');
  });
});
