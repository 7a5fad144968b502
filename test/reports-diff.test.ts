import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { diffCommand, diffRuns } from '../reports/diff.js';
import { bulkRun, sampleRun } from './helpers/sample-run.js';

const CAND_OUTCOMES = {
  full: ['fail', 'fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const,
  summ: ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const,
};

function candidate() {
  const cand = sampleRun({ runId: 'cand', outcomes: { full: [...CAND_OUTCOMES.full], summ: [...CAND_OUTCOMES.summ] } });
  cand.summaries[0].grades!.judge!.overall = 5;
  return cand;
}

describe('diffRuns', () => {
  const diff = diffRuns(sampleRun({ runId: 'base' }), candidate());
  const by = Object.fromEntries(diff.strategies.map((s) => [s.strategy, s]));

  it('lists the probes that flipped, repeats aggregated by majority', () => {
    const flips = diff.flips.map((f) => `${f.strategy}/${f.probe} ${f.direction}`).sort();
    // full/q2 passed 1 of 2 repeats (not a majority) and now passes both.
    expect(flips).toEqual(['full/p1 pass→fail', 'full/q2 fail→pass', 'summ/p2 fail→pass', 'summ/q1 fail→pass']);
    const q2 = diff.flips.find((f) => f.probe === 'q2')!;
    expect([q2.baseRate, q2.candRate]).toEqual([0.5, 1]);
  });

  it('tests each strategy with exact McNemar on the shared probes', () => {
    expect(by.full).toMatchObject({ sharedProbes: 5, passToFail: 1, failToPass: 1, mcnemarP: 1, significant: false });
    expect(by.summ).toMatchObject({ sharedProbes: 5, passToFail: 0, failToPass: 2, mcnemarP: 0.5, significant: false });
    expect(by['trim-2']).toMatchObject({ sharedProbes: 5, passToFail: 0, failToPass: 0, mcnemarP: 1, significant: false });
    expect(by.summ.accuracyDiff!.diff).toBeCloseTo((0 + 0.5 + 0 + 1 + 0) / 5, 12);
  });

  it('reports metric deltas with direction', () => {
    const acc = by.full.metrics.find((m) => m.metric === 'probe.accuracy')!;
    expect(acc.base).toBeCloseTo(0.9, 12);
    expect(acc.cand).toBeCloseTo(0.8, 12);
    expect(acc.delta).toBeCloseTo(-0.1, 12);
    expect(acc.worse).toBe(true);
    const summAcc = by.summ.metrics.find((m) => m.metric === 'probe.accuracy')!;
    expect(summAcc.worse).toBe(false);
    const tokens = by.full.metrics.find((m) => m.metric === 'context.mean_tokens')!;
    expect(tokens.delta).toBe(0);
    expect(by.full.metrics.find((m) => m.metric === 'tokens.input')!.delta).toBe(0);
  });

  it('lists summaries whose grades moved', () => {
    expect(diff.summaryMoves).toEqual([{ strategy: 'summ', transcript: 't1', index: 1, field: 'judge.overall', base: 4, cand: 5 }]);
  });

  it('calls a broad drop significant but not a one-probe wobble', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 10, probesPer: 4, passes: () => true });
    const broad = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 10, probesPer: 4, passes: (_s, t, p) => !(p < 2 && t < 6) });
    const wobble = bulkRun({ runId: 'w', strategies: ['s'], transcripts: 10, probesPer: 4, passes: (_s, t, p) => !(t === 0 && p === 0) });
    const big = diffRuns(base, broad).strategies[0];
    expect(big.passToFail).toBe(12);
    expect(big.mcnemarP).toBeCloseTo(2 / 4096, 12);
    expect(big.significant).toBe(true);
    expect(big.accuracyDiff!.high).toBeLessThan(0);
    const small = diffRuns(base, wobble).strategies[0];
    expect(small.passToFail).toBe(1);
    expect(small.significant).toBe(false);
  });
});

describe('diffCommand', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-diff-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let out: ReturnType<typeof vi.spyOn>;
  let err: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());

  function runDir(name: string, run: unknown): string {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    return dir;
  }

  it('writes diff.md, diff.csv and diff.html into the candidate dir by default', async () => {
    const base = runDir('base', sampleRun({ runId: 'base' }));
    const evil = candidate();
    evil.probes[0].probe = '<script>window.__pwned=1</script>';
    evil.info.runId = 'cand <img src=x onerror=alert(1)>';
    const cand = runDir('cand', evil);
    expect(await diffCommand([base, cand])).toBe(0);
    for (const f of ['diff.md', 'diff.csv', 'diff.html']) expect(existsSync(join(cand, f))).toBe(true);
    const html = readFileSync(join(cand, 'diff.html'), 'utf8');
    expect(html).not.toContain('<script>window');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const md = readFileSync(join(cand, 'diff.md'), 'utf8');
    expect(md).toContain('| full | 0.900 → 0.800 |');
    expect(md).not.toContain('<img');
    expect(readFileSync(join(cand, 'diff.csv'), 'utf8')).toContain('full,probe.pass_to_fail,,1,,');
    expect(out).toHaveBeenCalled();
  });

  it('honours --out', async () => {
    const base = runDir('b2', sampleRun());
    const cand = runDir('c2', candidate());
    const dest = join(root, 'elsewhere');
    expect(await diffCommand([base, cand, '--out', dest])).toBe(0);
    expect(existsSync(join(dest, 'diff.html'))).toBe(true);
  });

  it('exits 2 on bad input or usage, without a stack trace', async () => {
    const base = runDir('b3', sampleRun());
    expect(await diffCommand([base])).toBe(2);
    expect(await diffCommand([base, join(root, 'missing')])).toBe(2);
    expect(await diffCommand([base, base, '--bogus'])).toBe(2);
    const text = err.mock.calls.map((c: unknown[]) => String(c[0])).join('');
    expect(text).toContain('missing');
    expect(text).not.toMatch(/\n\s+at /);
  });
});

describe('latency noise', () => {
  const slower = (factor: number, plusMs: number) => {
    const run = sampleRun();
    for (const p of run.probes) if (p.latencyMs !== undefined) p.latencyMs = p.latencyMs * factor + plusMs;
    return run;
  };
  const latencyWorse = (cand: ReturnType<typeof sampleRun>) =>
    diffRuns(sampleRun(), cand).strategies.flatMap((s) => s.metrics).filter((m) => m.metric === 'latency.p50' && m.worse).length;

  it('does not flag a latency change of a millisecond, and does flag a doubling', () => {
    expect(latencyWorse(slower(1, 1))).toBe(0);
    expect(latencyWorse(slower(2, 10))).toBeGreaterThan(0);
  });
});

describe('summary prompt changes', () => {
  it('names the strategies whose summary prompt changed, and only those', () => {
    const base = sampleRun();
    const cand = sampleRun();
    const summarized = [...new Set(cand.summaries.map((s) => s.strategy))];
    expect(summarized.length).toBeGreaterThan(0);
    for (const s of cand.summaries) if (s.strategy === summarized[0]) Object.assign(s, { promptPath: 'prompts/v2.md', promptHash: 'bbbbbbbbbbbb' });
    const diff = diffRuns(base, cand);
    expect(diff.promptChanges.map((c) => c.strategy)).toEqual([summarized[0]]);
    expect(diff.promptChanges[0].cand).toEqual(['prompts/v2.md · bbbbbbbbbbbb']);
    expect(diffRuns(base, sampleRun()).promptChanges).toEqual([]);
  });
});
