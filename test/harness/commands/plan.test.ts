// `memeval plan`: the MDE it prints for a small suite, worked out by hand.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planCommand } from '../../../harness/commands/plan.js';
import { main } from '../../../harness/cli.js';
import { bulkRun } from '../../helpers/sample-run.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { captureOutput } from '../../helpers/output.js';

/** A transcript with 4 probes: recall, recall, update, temporal. */
function transcript(i: number): string {
  const probe = (id: string, kind: string) => `  - { id: ${id}, kind: ${kind}, after_turn: 1, question: What is the code?, answer: C-${i}, must_include: [C-${i}], facts: [code] }`;
  return [
    `id: t${i}`,
    'turns:',
    `  - user: The code is C-${i}.`,
    '    assistant: Noted.',
    'facts:',
    `  - { id: code, text: C-${i}, turn: 1 }`,
    'probes:',
    probe('a', 'recall'),
    probe('b', 'recall'),
    probe('c', 'update'),
    probe('d', 'temporal'),
    '',
  ].join('\n');
}

describe('planCommand', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-plan-'));
  mkdirSync(join(dir, 'data'));
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, 'data', `t${i}.yaml`), transcript(i));
  const config = join(dir, 'memeval.config.yaml');
  writeFileSync(config, 'datasets: [data/*.yaml]\ncache: false\nstrategies:\n  - { id: full, use: full-history }\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const { stdout: printed, stderr } = captureOutput();
  const rowOf = (kind: string) => printed().split('\n').find((l: string) => l.startsWith(`${kind} `)) ?? '';

  it('prints the MDE overall and per kind at p = 0.5 and the default ICC 0.2', async () => {
    expect(await planCommand(['--config', config])).toBe(0);
    // all: k = 5, m̄ = 4, DE = 1 + 3·0.2 = 1.6; SE = √(2·0.25·1.6 / 20) = √0.04 = 0.2; MDE = 2.801585·0.2 = 0.5603 → 56.0.
    expect(rowOf('all')).toMatch(/^all\s+5\s+20\s+4\.00\s+50\.0%\s+56\.0 points$/);
    // recall: k = 5, m̄ = 2, DE = 1.2; SE = √(0.5·1.2 / 10) = 0.244949; MDE = 0.686245 → 68.6.
    expect(rowOf('recall')).toMatch(/\s68\.6 points$/);
    // update: k = 5, m̄ = 1, DE = 1; SE = √(0.5 / 5) = 0.316228; MDE = 0.885932 → 88.6.
    expect(rowOf('update')).toMatch(/^update\s+5\s+5\s+1\.00\s+50\.0%\s+88\.6 points$/);
    expect(rowOf('abstention')).toBe('');
    expect(printed()).toContain('ICC: 0.20 (default');
  });

  it('with --detect, prints the transcripts a wanted effect needs', async () => {
    expect(await planCommand(['--config', config, '--detect', '20'])).toBe(0);
    // k = 2·0.25·1.6·2.801585² / (4·0.2²) = 6.279103 / 0.16 = 39.24 → 40.
    expect(printed()).toContain('To detect 20 points: 40 transcripts like these (the suite has 5)');
    // Repeats never get below 2.801585·√(2·0.25·0.2 / 5) = 0.3962 → 39.6 points.
    expect(printed()).toContain('repeats alone cannot get there (never below 39.6 points');
  });

  it('takes p and ICC from flags', async () => {
    expect(await planCommand(['--config', config, '--baseline-accuracy', '0.8', '--icc', '0'])).toBe(0);
    // SE = √(2·0.16·1 / 20) = √0.016 = 0.126491; MDE = 0.354376 → 35.4.
    expect(rowOf('all')).toMatch(/80\.0%\s+35\.4 points$/);
  });

  it("takes p and ICC from a run's records with --run", async () => {
    // Baseline s passes everything but transcript 0: p = 17/22 = 77.3%; clusters all-0 or all-1 → ICC 1.
    const runDir = join(dir, 'run');
    mkdirSync(runDir, { recursive: true });
    const run = bulkRun({ runId: 'r', strategies: ['s'], transcripts: 5, probesPer: 4, passes: (_s, t) => t > 0 });
    writeFileSync(join(runDir, 'run.json'), JSON.stringify(run));
    expect(await planCommand(['--config', config, '--run', runDir])).toBe(0);
    expect(printed()).toContain('ICC: 1.00 (estimated from');
    // DE = 1 + 3·1 = 4; SE = √(2·(17/22)(5/22)·4 / 20) = √0.0702479 = 0.265043; MDE = 0.742540 → 74.3.
    expect(rowOf('all')).toMatch(/77\.3%\s+74\.3 points$/);
  });

  it('refuses a run that did not measure: errored probes would read as failures and skew p and the ICC', async () => {
    const runDir = join(dir, 'errored-run');
    mkdirSync(runDir, { recursive: true });
    const run = bulkRun({ runId: 'e', strategies: ['s'], transcripts: 5, probesPer: 4, passes: (_s, t) => (t === 0 ? 'error' : true) });
    writeFileSync(join(runDir, 'run.json'), JSON.stringify(run));
    expect(await main(['plan', '--config', config, '--run', runDir])).toBe(2);
    expect(stderr()).toMatch(/4 of its 20 probe answers errored: an error would read as a failed probe/);
    expect(printed()).toBe('');
  });

  it('refuses a shard as --run, and says a difference above 100 points cannot be detected', async () => {
    const runDir = join(dir, 'shard-run');
    mkdirSync(runDir, { recursive: true });
    const run = bulkRun({ runId: 's', strategies: ['s'], transcripts: 5, probesPer: 4, passes: () => true });
    run.info.shard = { index: 1, count: 2, jobs: [] };
    writeFileSync(join(runDir, 'run.json'), JSON.stringify(run));
    expect(await main(['plan', '--config', config, '--run', runDir])).toBe(2);
    expect(stderr()).toMatch(/the run is shard 1 of 2, holding only its jobs \(merge the shards first\)/);
    // One transcript with one update probe: SE = √(2·0.25 / 1) = 0.707, MDE = 1.98: no accuracy difference is that large.
    const one = join(dir, 'one');
    mkdirSync(join(one, 'data'), { recursive: true });
    writeFileSync(join(one, 'data', 't0.yaml'), transcript(0));
    writeFileSync(join(one, 'memeval.config.yaml'), 'datasets: [data/*.yaml]\ncache: false\nstrategies:\n  - { id: full, use: full-history }\n');
    expect(await planCommand(['--config', join(one, 'memeval.config.yaml')])).toBe(0);
    expect(rowOf('update')).toMatch(/none \(MDE over 100 points\)$/);
  });

  it.each([
    [['--detect', 'five']],
    [['--detect', '0']],
    [['--icc', '1.5']],
    [['--baseline-accuracy', '1']],
    [['--baseline-accuracy', '']],
    [['--detect', '0x10']],
    [['--icc', '.']],
    [['--bogus']],
    [['extra']],
  ])('exits 2 on a bad flag: %j', async (args) => {
    expect(await planCommand(['--config', config, ...args])).toBe(2);
    expect(stderr()).not.toBe('');
    expect(printed()).toBe('');
  });

  it('is a command of the CLI', async () => {
    expect(await main(['plan', '--config', config])).toBe(0);
    expect(await main(['plan', '--config', join(dir, 'missing.yaml')])).toBe(2);
  });
});

describe('memeval plan on the bundled suite', () => {
  const { stdout } = captureOutput();

  it('prints the overall MDE a hand computation gives for its transcripts and probes', async () => {
    const config = join(REPO_ROOT, 'memeval.config.yaml');
    expect(await planCommand(['--config', config])).toBe(0);
    const text = stdout();
    const all = /^all\s+(\d+)\s+(\d+)\s+[\d.]+\s+50\.0%\s+([\d.]+) points$/m.exec(text);
    expect(all, text).not.toBeNull();
    const [k, n, printed] = [Number(all![1]), Number(all![2]), Number(all![3])];
    // By hand, with the defaults p = 0.5 and ICC = 0.2 (27 transcripts, 308 probes when this was written):
    // m̄ = n / k; DE = 1 + (m̄ − 1)·0.2; SE = √(2·0.25·DE / n); MDE = (1.959964 + 0.841621)·SE.
    // For 27 and 308: m̄ = 11.407, DE = 3.081, SE = 0.07073, MDE = 0.1982 → 19.8 points.
    const mBar = n / k;
    const se = Math.sqrt((2 * 0.25 * (1 + (mBar - 1) * 0.2)) / n);
    expect(printed).toBeCloseTo(100 * 2.801585 * se, 1);
    if (k === 27 && n === 308) expect(printed).toBe(19.8);
  });
});
