import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfig, type GateConfig } from '../../harness/config.js';
import { PASS_THRESHOLDS, type CalibrationReport } from '../../graders/calibrate.js';
import { calibrationRecordPath } from '../../harness/datasets/calibration.js';
import { gateCommand, type GateConfigSource } from '../../harness/commands/gate.js';
import type { RunResult } from '../../core/types.js';
import { configRecord } from '../../harness/run/run-info.js';
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
    expect(trim.message).toBe('trim-2 probe.accuracy = 0.7 over 9 probes (1 error) < min 0.8 — FAIL');
    const lenient = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.5 })])[0];
    expect(lenient.status).toBe('pass');
    expect(lenient.message).toBe('trim-2 probe.accuracy = 0.7 over 9 probes (1 error) ≥ min 0.5');
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

  it('compares with the baseline strategy by default, skipping the baseline itself', () => {
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.05 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['trim-2:fail', 'summ:fail']);
    expect(results[0].baseline).toBeCloseTo(0.9, 12);
    expect(results[0].drop).toBeCloseTo(0.2, 12);
    expect(results[0].message).toBe('trim-2 probe.accuracy = 0.7 over 9 probes (1 error) dropped 0.2 vs baseline strategy full (0.9 → 0.7), more than max_drop 0.05 — FAIL');
    const lenient = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.25 })]);
    expect(lenient.every((r) => r.status === 'pass')).toBe(true);
    // Lower is better for tokens: a rise is a drop in quality.
    const tokens = evaluateGates(run, [gate({ metric: 'context.mean_tokens', strategy: 'summ', max_drop: 0 })])[0];
    expect(tokens.status).toBe('pass');
    expect(tokens.drop).toBe(135 - 200);
  });

  it('with significant: true, passes a drop McNemar cannot tell from noise', () => {
    const r = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'summ', max_drop: 0.05, significant: true })])[0];
    expect(r.status).toBe('pass');
    expect(r.test).toBe('mcnemar');
    // By majority of repeats: full passes p2 and q1 where summ fails, summ passes q2 where full fails: b = 2, c = 1.
    expect(r.pValue).toBe(1);
    expect(r.message).toContain('not significant');
  });

  it('against a baseline run: a broad drop fails, a one-probe wobble passes, both significant-gated', () => {
    const g = gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run', significant: true });
    const broad = evaluateGates(broadDrop(), [g], { baselineRun: allPass() });
    expect(broad.map((r) => `${r.strategy}:${r.status}`)).toEqual(['s:fail', 't:pass']);
    expect(broad[0].pValue).toBeCloseTo(2 / 4096, 12);
    expect(broad[0].message).toContain('dropped 0.3 vs baseline run base (1 → 0.7), more than max_drop 0.01; significant (mcnemar p = 0.000488) — FAIL');
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
    const errored = bulkRun({ runId: 'errored', strategies: ['s', 't'], transcripts: 2, probesPer: 2, passes: (s) => (s === 's' ? 'error' : true) });
    expect(evaluateGates(allPass(), [g], { baselineRun: errored })[0].notEvaluated).toBe('baseline run errored has no graded probes (4 errors) for probe.accuracy');
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
});

describe('gateCommand', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-gate-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let out: ReturnType<typeof vi.spyOn>;
  let err: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    delete process.env.GITHUB_STEP_SUMMARY;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.GITHUB_STEP_SUMMARY;
  });

  /** Saves a run whose run.json records `recorded` as the config it was made with. */
  function save(dir: string, run: RunResult, recorded: Partial<GateConfigSource> = {}): string {
    mkdirSync(dir, { recursive: true });
    run.info.config = { ...run.info.config, ...recorded };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    return dir;
  }

  /** A --config loader; the file name is ignored, the gates are given. */
  function config(outDir: string, gates: GateConfig[], extra: Partial<GateConfigSource> = {}): () => GateConfigSource {
    return () => ({ out: outDir, gates, baseline: 'full', baseDir: outDir, ...extra });
  }

  /** A loader that must not be called: the run's own recorded gates are to be used. */
  const noConfigFile = (): GateConfigSource => {
    throw new Error('the config file was read');
  };

  const stdout = () => out.mock.calls.map((c: unknown[]) => String(c[0])).join('');
  const stderr = () => err.mock.calls.map((c: unknown[]) => String(c[0])).join('');

  it('evaluates the gates recorded in run.json, without reading a config file, and writes junit.xml and gate.md', async () => {
    const dir = save(join(root, 'ok', '20260101T000000Z-a'), sampleRun(), { gates: [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 })] });
    expect(await gateCommand([dir], noConfigFile)).toBe(0);
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    const md = readFileSync(join(dir, 'gate.md'), 'utf8');
    expect(md).toContain('✅ **Gate passed** — 1 passed, 0 failed, 0 skipped');
    expect(stdout()).toContain('full probe.accuracy = 0.9 over 10 probes ≥ min 0.8');
  });

  it('reads gates, baseline and baseline_run from a config recorded with relative paths', async () => {
    const suite = join(root, 'recorded');
    mkdirSync(suite, { recursive: true });
    const yaml = [
      'out: runs',
      'baseline: s',
      'baseline_run: kept/base',
      'strategies:',
      '  - { id: s, use: full-history }',
      '  - { id: t, use: full-history }',
      'gates:',
      '  - { metric: probe.accuracy, strategy: "*", max_drop: 0.01, vs: baseline-run, significant: true }',
    ].join('\n');
    const file = join(suite, 'memeval.config.yaml');
    writeFileSync(file, yaml);
    save(join(suite, 'kept', 'base'), allPass());
    const runDir = join(suite, 'runs', 'cand');
    const cand = broadDrop();
    cand.info.config = configRecord(parseConfig(yaml, file), runDir);
    save(runDir, cand);
    expect(await gateCommand([runDir], noConfigFile)).toBe(100);
    expect(stdout()).toContain('s probe.accuracy = 0.7 over 40 probes dropped 0.3 vs baseline run base');
  });

  it('uses --config FILE instead of the recorded gates', async () => {
    const dir = save(join(root, 'override', 'r'), sampleRun(), { gates: [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })] });
    expect(await gateCommand([dir], noConfigFile)).toBe(100);
    expect(await gateCommand([dir, '--config', 'other.yaml'], config(root, [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 })]))).toBe(0);
  });

  it('exits 100 when a gate fails, gating the newest run under out and appending to GITHUB_STEP_SUMMARY', async () => {
    const outDir = join(root, 'fail');
    const failing = [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })];
    save(join(outDir, '20260101T000000Z-a'), sampleRun({ runId: 'old' }), { gates: failing });
    const newest = save(join(outDir, '20260102T000000Z-b'), sampleRun({ runId: 'new' }), { gates: failing });
    const summary = join(root, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    process.env.GITHUB_STEP_SUMMARY = summary;
    expect(await gateCommand([], config(outDir, []))).toBe(100);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true);
    expect(md).toContain('memeval gate — new');
    expect(md).toContain('❌ **Gate FAILED** — 0 passed, 1 failed, 0 skipped');
    expect(existsSync(join(newest, 'gate.md'))).toBe(true);
  });

  it('compares against --baseline RUN, which beats baseline_run', async () => {
    const base = save(join(root, 'bl', 'base'), allPass());
    const g = [gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run', significant: true })];
    // baseline_run names a run the candidate matches, --baseline one it fell behind.
    const cand = save(join(root, 'bl', 'cand'), broadDrop(), { gates: g, baseline_run: join(root, 'bl', 'cand') });
    expect(await gateCommand([cand], noConfigFile)).toBe(0);
    expect(await gateCommand([cand, '--baseline', base], noConfigFile)).toBe(100);
    const ok = save(join(root, 'bl', 'wobble'), wobble(), { gates: g });
    expect(await gateCommand([ok, '--baseline', base], noConfigFile)).toBe(0);
  });

  it('fails (exit 100) when no baseline run is named or baseline_run does not exist; optional gates are skipped', async () => {
    const g = gate({ metric: 'probe.accuracy', strategy: 's', max_drop: 0.01, vs: 'baseline-run' });
    const none = save(join(root, 'nobase', 'a'), allPass(), { gates: [g] });
    expect(await gateCommand([none], noConfigFile)).toBe(100);
    const md = readFileSync(join(none, 'gate.md'), 'utf8');
    expect(md).toContain('⚠️ **Gate could not be evaluated** (counts as FAILED) — 0 passed, 1 failed (1 could not be evaluated)');
    expect(md).not.toMatch(/all \d+ gate checks passed/);
    const missing = join(root, 'nobase', 'never-kept');
    const gone = save(join(root, 'nobase', 'b'), allPass(), { gates: [g], baseline_run: missing });
    expect(await gateCommand([gone], noConfigFile)).toBe(100);
    expect(stdout()).toContain(`no baseline run to compare with (baseline_run ${missing} does not exist)`);
    const optional = save(join(root, 'nobase', 'c'), allPass(), { gates: [{ ...g, optional: true }, gate({ metric: 'probe.accuracy', strategy: 's', min: 0.5 })] });
    expect(await gateCommand([optional], noConfigFile)).toBe(0);
    expect(readFileSync(join(optional, 'gate.md'), 'utf8')).toContain('✅ **Gate passed** — 1 passed, 0 failed, 1 skipped (optional, not evaluated)');
  });

  it('exits 2 on bad input or usage', async () => {
    const bad = [gate({ metric: 'probe.nonsense', min: 1 })];
    const dir = save(join(root, 'bad', 'r'), sampleRun(), { gates: bad });
    expect(await gateCommand([dir], noConfigFile)).toBe(2);
    expect(stderr()).toContain('memeval.config.yaml:10:5: unknown metric "probe.nonsense"');
    expect(await gateCommand([dir, 'extra'], noConfigFile)).toBe(2);
    expect(await gateCommand([dir, '--what'], noConfigFile)).toBe(2);
    expect(await gateCommand([dir, '--config', 'x.yaml'], config(root, []))).toBe(2); // no gates in the file
    const bare = save(join(root, 'bad', 'bare'), sampleRun());
    expect(await gateCommand([bare], noConfigFile)).toBe(2);
    expect(stderr()).toContain('was made with no gates');
    const broken = save(join(root, 'bad', 'broken'), sampleRun(), { gates: [{ min: 1 }] as unknown as GateConfig[] });
    expect(await gateCommand([broken], noConfigFile)).toBe(2);
    expect(stderr()).toContain(`${join(broken, 'run.json')}: info.config.gates[0] is not a gate`);
    const relative = save(join(root, 'bad', 'relative'), allPass(), { gates: [gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run' })] });
    expect(await gateCommand([relative, '--baseline', join(root, 'no-such-run')], noConfigFile)).toBe(2);
    expect(stderr()).toContain(`${join(root, 'no-such-run')}: no such run directory or run.json`);
    expect(await gateCommand([join(root, 'missing')], noConfigFile)).toBe(2);
    expect(await gateCommand([], config(join(root, 'empty-out'), []))).toBe(2);
    expect(await gateCommand([dir, '--config', join(root, 'no-such.yaml')])).toBe(2);
    expect(stderr()).not.toMatch(/\n\s+at /);
  });

  it('exits 3 when the run is not complete, quoting why, or every probe errored', async () => {
    const g = { gates: [gate({ metric: 'probe.accuracy', min: 0 })] };
    const failed = save(join(root, 'f1'), sampleRun({ status: 'failed' }), g);
    expect(await gateCommand([failed], noConfigFile)).toBe(3);
    expect(readFileSync(join(failed, 'junit.xml'), 'utf8')).toContain('<error message="run 20260101T000000Z-abc123 is failed, not complete"');
    const run = sampleRun({ status: 'incomplete' });
    run.info.failure = '2 of 30 probe answers (answer model) errored.';
    const incomplete = save(join(root, 'f3'), run, g);
    expect(await gateCommand([incomplete], noConfigFile)).toBe(3);
    expect(stderr()).toContain('is incomplete, not complete: 2 of 30 probe answers (answer model) errored.');
    expect(readFileSync(join(incomplete, 'gate.md'), 'utf8')).toContain('💥 **Gate could not be evaluated**');
    const errored = save(join(root, 'f2'), bulkRun({ runId: 'e', strategies: ['s'], transcripts: 2, probesPer: 2, passes: () => 'error' }), g);
    expect(await gateCommand([errored], noConfigFile)).toBe(3);
  });

  it('warns loudly when a judge gate uses an uncalibrated judge, and not once a calibration exists', async () => {
    const outDir = join(root, 'cal');
    const g = [gate({ metric: 'summary.judge.overall', strategy: 'summ', min: 2 })];
    const dir = save(join(outDir, 'r'), sampleRun(), { gates: g, out: outDir, baseDir: outDir });
    expect(await gateCommand([dir], noConfigFile)).toBe(0);
    expect(stderr()).toContain('WARNING: gates on summary.judge.* use judge "offline", which has no calibration record');
    expect(readFileSync(join(dir, 'gate.md'), 'utf8')).toContain('no calibration record');
    err.mockClear();
    mkdirSync(join(outDir, 'calibration'), { recursive: true });
    const record: CalibrationReport = {
      judge: 'offline', createdAt: '2026-01-01T00:00:00Z', items: 12, errors: 0, method: 'cohen-kappa', thresholds: PASS_THRESHOLDS,
      criteria: [], overallScale: { meanAbsoluteError: 0.5, exact: 0.5, withinOne: 1 }, results: [],
    };
    writeFileSync(calibrationRecordPath('offline', outDir), JSON.stringify(record));
    expect(await gateCommand([dir], noConfigFile)).toBe(0);
    expect(stderr()).not.toContain('WARNING');
  });
});
