// `memeval gate` as a command: which gates it reads, what it writes, and its exit codes.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig, type GateConfig } from '../../../harness/config.js';
import { PASS_THRESHOLDS, type CalibrationReport } from '../../../graders/calibrate.js';
import { calibrationRecordPath } from '../../../harness/datasets/calibration.js';
import { gateCommand, type GateConfigSource } from '../../../harness/commands/gate.js';
import type { RunResult } from '../../../core/types.js';
import { configRecord } from '../../../harness/run/run-info.js';
import { bulkRun, sampleRun } from '../../helpers/sample-run.js';
import { captureOutput } from '../../helpers/output.js';

function gate(partial: Partial<GateConfig> & Pick<GateConfig, 'metric'>): GateConfig {
  return { strategy: '*', where: 'memeval.config.yaml:10:5', ...partial };
}

const allPass = () => bulkRun({ runId: 'base', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: () => true });
const broadDrop = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s === 't' || !(p < 2 && t < 6) });
const wobble = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && t === 0 && p === 0) });

describe('gateCommand', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-gate-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const { stdout, stderr, clearStderr } = captureOutput();
  beforeEach(() => {
    delete process.env.GITHUB_STEP_SUMMARY;
  });
  afterEach(() => {
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
    // A threshold edited to null or text is no threshold: it must not be compared as one and pass.
    for (const min of [null, 'zero', []]) {
      const edited = save(join(root, 'bad', `min-${JSON.stringify(min)}`), allPass(), { gates: [gate({ metric: 'probe.accuracy', min: min as unknown as number })] });
      expect(await gateCommand([edited], noConfigFile), JSON.stringify(min)).toBe(2);
      expect(stderr()).toContain(`${join(edited, 'run.json')}: info.config.gates[0].min:`);
    }
    const unbounded = save(join(root, 'bad', 'unbounded'), allPass(), { gates: [gate({ metric: 'probe.accuracy' })] });
    expect(await gateCommand([unbounded], noConfigFile)).toBe(2);
    expect(stderr()).toContain('info.config.gates[0] needs at least one of "min", "max" or "max_drop"');
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
    // Without the sample's failed summary: a judge mean with an error left out is not measured.
    const measured = sampleRun();
    measured.summaries = measured.summaries.filter((x) => x.error === undefined);
    const dir = save(join(outDir, 'r'), measured, { gates: g, out: outDir, baseDir: outDir });
    // The default record folder is relative to the working directory: one where `memeval
    // calibrate` has been run must not decide this test.
    const cwd = process.cwd();
    process.chdir(outDir);
    onTestFinished(() => process.chdir(cwd));
    expect(await gateCommand([dir], noConfigFile)).toBe(0);
    expect(stderr()).toContain('WARNING: gates on summary.judge.* use judge "offline", which has no calibration record');
    expect(readFileSync(join(dir, 'gate.md'), 'utf8')).toContain('no calibration record');
    clearStderr();
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
