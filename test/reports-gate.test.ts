import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GateConfig } from '../harness/config.js';
import { PASS_THRESHOLDS, calibrationRecordPath, type CalibrationReport } from '../graders/calibrate.js';
import type { RunResult } from '../harness/types.js';
import { evaluateGates, gateCommand, runFailure, type GateConfigSource } from '../reports/gate.js';
import { gateJUnit } from '../reports/junit.js';
import { bulkRun, sampleRun } from './helpers/sample-run.js';

function gate(partial: Partial<GateConfig> & Pick<GateConfig, 'metric'>): GateConfig {
  return { strategy: '*', where: 'memeval.config.yaml:10:5', ...partial };
}

const allPass = () => bulkRun({ runId: 'base', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: () => true });
const broadDrop = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s === 't' || !(p < 2 && t < 6) });
const wobble = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && t === 0 && p === 0) });

describe('evaluateGates', () => {
  const run = sampleRun();

  it('checks min and max per strategy, "*" expanding to every strategy', () => {
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 }), gate({ metric: 'context.mean_tokens', max: 140 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['full:pass', 'full:fail', 'trim-2:fail', 'summ:pass']);
    expect(results[1].message).toContain('200 is above max 140');
    const trim = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })])[0];
    expect(trim.status).toBe('fail');
    expect(trim.value).toBeCloseTo(7 / 9, 12);
  });

  it('fails a gate on a metric with no data', () => {
    const r = evaluateGates(run, [gate({ metric: 'summary.judge.overall', strategy: 'full', min: 3 })])[0];
    expect(r.status).toBe('fail');
    expect(r.message).toContain('no data');
  });

  it('compares with the baseline strategy by default, skipping the baseline itself', () => {
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.05 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['trim-2:fail', 'summ:fail']);
    expect(results[0].baseline).toBeCloseTo(0.9, 12);
    expect(results[0].drop).toBeCloseTo(0.9 - 7 / 9, 12);
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

  it('skips a baseline-run gate when no baseline run is given', () => {
    const r = evaluateGates(run, [gate({ metric: 'probe.accuracy', max_drop: 0.05, vs: 'baseline-run' })]);
    expect(r.every((x) => x.status === 'skipped')).toBe(true);
  });

  it('rejects unknown metrics and strategies as input errors with the gate location', () => {
    expect(() => evaluateGates(run, [gate({ metric: 'probe.acuracy', min: 1 })])).toThrow(/memeval\.config\.yaml:10:5: unknown metric "probe\.acuracy"/);
    expect(() => evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'nope', min: 1 })])).toThrow(expect.objectContaining({ name: 'InputError' }));
    const noBaseline: RunResult = { ...run, info: { ...run.info, baseline: undefined } };
    expect(() => evaluateGates(noBaseline, [gate({ metric: 'probe.accuracy', max_drop: 0.1 })])).toThrow(/no baseline strategy/);
  });
});

describe('runFailure', () => {
  it('flags failed or unfinished runs and runs where every probe errored', () => {
    expect(runFailure(sampleRun())).toBeUndefined();
    expect(runFailure(sampleRun({ status: 'failed' }))).toMatch(/failed/);
    expect(runFailure(sampleRun({ status: 'interrupted' }))).toMatch(/interrupted/);
    const errored = bulkRun({ runId: 'x', strategies: ['s'], transcripts: 2, probesPer: 2, passes: () => 'error' });
    expect(runFailure(errored)).toMatch(/every probe/);
  });
});

// A minimal XML reader for the JUnit checks: elements, attributes and text, entities decoded.
interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function decode(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] as string);
}

function parseXml(xml: string): XmlNode {
  const body = xml.replace(/^<\?xml[^>]*\?>\s*/, '');
  const root: XmlNode = { name: '#root', attrs: {}, children: [], text: '' };
  const stack = [root];
  const re = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w.-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(body))) {
    expect(m.index).toBe(consumed); // nothing the pattern could not read (e.g. a raw "<")
    consumed = re.lastIndex;
    const [, close, name, attrText, selfClose, text] = m;
    const top = stack[stack.length - 1];
    if (text !== undefined) {
      top.text += decode(text);
      continue;
    }
    if (close) {
      expect(top.name).toBe(name);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText.matchAll(/([\w.-]+)="([^"]*)"/g)) attrs[a[1]] = decode(a[2]);
    const node: XmlNode = { name, attrs, children: [], text: '' };
    top.children.push(node);
    if (!selfClose) stack.push(node);
  }
  expect(consumed).toBe(body.length);
  expect(stack).toHaveLength(1);
  return root.children[0];
}

describe('gateJUnit', () => {
  it('has one testcase per gate result and per probe record, escaped and parseable', () => {
    const run = sampleRun();
    run.probes[9].question = 'Is <b>"A & B"</b> it\'s \u0001 fine?';
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', min: 0.8 })]);
    const xml = gateJUnit(run, results);
    const doc = parseXml(xml);
    expect(doc.name).toBe('testsuites');
    const [gates, probes] = doc.children;
    expect(gates.attrs).toMatchObject({ tests: '3', failures: '2', errors: '0' });
    expect(gates.children.filter((c) => c.children.some((x) => x.name === 'failure'))).toHaveLength(2);
    expect(probes.attrs).toMatchObject({ tests: '30', failures: '6', errors: '1' });
    const q2 = probes.children.find((c) => c.attrs.classname === 'probes.full.t2' && c.attrs.name === 'q2 (abstention) #2')!;
    const failure = q2.children[0];
    expect(failure.name).toBe('failure');
    expect(failure.attrs.message).toContain('abstain-fail');
    expect(failure.text).toContain('question: Is <b>"A & B"</b> it\'s  fine?');
    const errored = probes.children.find((c) => c.children[0]?.name === 'error')!;
    expect(errored.children[0].attrs.message).toBe('HTTP 500 from provider after 3 retries');
  });
});

describe('gateCommand', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-gate-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let err: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    delete process.env.GITHUB_STEP_SUMMARY;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.GITHUB_STEP_SUMMARY;
  });

  function save(dir: string, run: RunResult): string {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    return dir;
  }

  function config(out: string, gates: GateConfig[]): () => GateConfigSource {
    return () => ({ out, gates, baseline: 'full', baseDir: out });
  }

  const stderr = () => err.mock.calls.map((c: unknown[]) => String(c[0])).join('');

  it('exits 0 when every gate passes and writes junit.xml and gate.md', async () => {
    const out = join(root, 'ok');
    const dir = save(join(out, '20260101T000000Z-a'), sampleRun());
    expect(await gateCommand([dir], config(out, [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 })]))).toBe(0);
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    expect(readFileSync(join(dir, 'gate.md'), 'utf8')).toContain('all 1 gate checks passed');
  });

  it('exits 1 when a gate fails, gating the newest run under out and appending to GITHUB_STEP_SUMMARY', async () => {
    const out = join(root, 'fail');
    save(join(out, '20260101T000000Z-a'), sampleRun({ runId: 'old' }));
    const newest = save(join(out, '20260102T000000Z-b'), sampleRun({ runId: 'new' }));
    const summary = join(root, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    process.env.GITHUB_STEP_SUMMARY = summary;
    expect(await gateCommand([], config(out, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })]))).toBe(1);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true);
    expect(md).toContain('memeval gate — new');
    expect(md).toContain('❌ fail');
    expect(existsSync(join(newest, 'gate.md'))).toBe(true);
  });

  it('compares against --baseline RUN', async () => {
    const base = save(join(root, 'bl', 'base'), allPass());
    const cand = save(join(root, 'bl', 'cand'), broadDrop());
    const g = [gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run', significant: true })];
    expect(await gateCommand([cand, '--baseline', base], config(join(root, 'bl'), g))).toBe(1);
    const ok = save(join(root, 'bl', 'wobble'), wobble());
    expect(await gateCommand([ok, '--baseline', base], config(join(root, 'bl'), g))).toBe(0);
  });

  it('exits 2 on bad input or usage', async () => {
    const dir = save(join(root, 'bad', 'r'), sampleRun());
    expect(await gateCommand([dir], config(root, [gate({ metric: 'probe.nonsense', min: 1 })]))).toBe(2);
    expect(stderr()).toContain('memeval.config.yaml:10:5: unknown metric "probe.nonsense"');
    expect(await gateCommand([dir, 'extra'], config(root, []))).toBe(2);
    expect(await gateCommand([dir, '--what'], config(root, []))).toBe(2);
    expect(await gateCommand([dir], config(root, []))).toBe(2); // no gates configured
    expect(await gateCommand([join(root, 'missing')], config(root, [gate({ metric: 'probe.accuracy', min: 0 })]))).toBe(2);
    expect(await gateCommand([], config(join(root, 'empty-out'), [gate({ metric: 'probe.accuracy', min: 0 })]))).toBe(2);
    expect(await gateCommand([dir, '--config', join(root, 'no-such.yaml')])).toBe(2);
    expect(stderr()).not.toMatch(/\n\s+at /);
  });

  it('exits 3 when the run itself failed or every probe errored', async () => {
    const g = [gate({ metric: 'probe.accuracy', min: 0 })];
    const failed = save(join(root, 'f1'), sampleRun({ status: 'failed' }));
    expect(await gateCommand([failed], config(root, g))).toBe(3);
    expect(readFileSync(join(failed, 'junit.xml'), 'utf8')).toContain('<error message="run 20260101T000000Z-abc123 is failed, not complete"');
    const errored = save(join(root, 'f2'), bulkRun({ runId: 'e', strategies: ['s'], transcripts: 2, probesPer: 2, passes: () => 'error' }));
    expect(await gateCommand([errored], config(root, g))).toBe(3);
  });

  it('warns loudly when a judge gate uses an uncalibrated judge, and not once a calibration exists', async () => {
    const out = join(root, 'cal');
    const dir = save(join(out, 'r'), sampleRun());
    const g = [gate({ metric: 'summary.judge.overall', strategy: 'summ', min: 2 })];
    expect(await gateCommand([dir], config(out, g))).toBe(0);
    expect(stderr()).toContain('WARNING: gates on summary.judge.* use judge "offline", which has no calibration record');
    expect(readFileSync(join(dir, 'gate.md'), 'utf8')).toContain('no calibration record');
    err.mockClear();
    mkdirSync(join(out, 'calibration'), { recursive: true });
    const record: CalibrationReport = {
      judge: 'offline', createdAt: '2026-01-01T00:00:00Z', items: 12, errors: 0, method: 'cohen-kappa', thresholds: PASS_THRESHOLDS,
      criteria: [], overallScale: { meanAbsoluteError: 0.5, exact: 0.5, withinOne: 1 }, results: [],
    };
    writeFileSync(calibrationRecordPath('offline', out), JSON.stringify(record));
    expect(await gateCommand([dir], config(out, g))).toBe(0);
    expect(stderr()).not.toContain('WARNING');
  });
});
