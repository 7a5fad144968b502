// Shards: a run split with --shard i/n over machines and combined with
// `memeval merge` equals the run made in one go, and shards that are not
// parts of one run are refused with the reason.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type SuiteConfig } from '../../../harness/config.js';
import { mergeShards } from '../../../harness/run/merge.js';
import { runSuite } from '../../../harness/run/run.js';
import { jobWork, parseShard, shardJobs } from '../../../harness/run/shards.js';
import { InputError, UsageError } from '../../../core/errors.js';
import type { GateConfig, RunResult } from '../../../core/types.js';
import { evaluateGates, runFailure } from '../../../reports/gate.js';
import { loadRun, runJsonChunks } from '../../../reports/load.js';
import { REPO_ROOT, stableCsv } from '../../helpers/cli.js';

describe('the split', () => {
  const transcripts = [
    { id: 'a', turns: 40, probes: 12 },
    { id: 'b', turns: 10, probes: 3 },
    { id: 'c', turns: 600, probes: 90 },
    { id: 'd', turns: 20, probes: 0 },
    { id: 'e', turns: 35, probes: 8 },
  ];
  const strategies = ['full', 'trim', 'sum'];

  it('gives every job to exactly one shard, in the run order, the same every time', () => {
    const shards = shardJobs(strategies, transcripts, 1, 4);
    const all = shards.flat();
    expect(new Set(all).size).toBe(15);
    expect(all.sort()).toEqual(strategies.flatMap((s) => transcripts.map((t) => `${s}::${t.id}`)).sort());
    expect(shardJobs(strategies, transcripts, 1, 4)).toEqual(shards);
    const runOrder = strategies.flatMap((s) => transcripts.map((t) => `${s}::${t.id}`));
    for (const shard of shards) expect(shard).toEqual(runOrder.filter((k) => shard.includes(k)));
  });

  it('balances the work: shards differ by at most one job', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ id: `t${i}`, turns: 10 + ((i * 37) % 90), probes: (i * 11) % 13 }));
    const work = new Map(many.map((t) => [t.id, jobWork(t, 2)]));
    const shards = shardJobs(['x', 'y'], many, 2, 3);
    const loads = shards.map((keys) => keys.reduce((n, k) => n + (work.get(k.split('::')[1]) ?? 0), 0));
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(Math.max(...work.values()));
  });

  it('refuses more shards than jobs, and malformed specs', () => {
    expect(() => shardJobs(['full'], transcripts.slice(0, 2), 1, 3)).toThrow(/2 jobs .* at most 2 shards/);
    for (const bad of ['0/3', '4/3', '3', 'a/b', '1/0', '-1/2']) expect(() => parseShard(bad)).toThrow(UsageError);
    expect(parseShard(' 2/3 ')).toEqual({ index: 2, count: 3 });
  });
});

const SUITE = ['a-ecommerce-returns', 'a-oncall-db-migration', 'b-hr-policy', 'a-travel-concierge'];

/** The bundled default config on a few of the bundled transcripts, offline, uncached, into `out`. */
function bundledConfig(out: string): SuiteConfig {
  const text = readFileSync(join(REPO_ROOT, 'memeval.config.yaml'), 'utf8')
    .replace(/datasets:\n(  - .*\n)+/, `datasets:\n${SUITE.map((t) => `  - datasets/suite/${t}.yaml\n`).join('')}`)
    .replace(/^cache: .*$/m, 'cache: false')
    .replace(/^out: .*$/m, `out: ${out}`);
  return parseConfig(text, join(REPO_ROOT, 'memeval.config.yaml'));
}

const quiet = (): void => undefined;
const REPORTS = ['summary.csv', 'probes.csv', 'turns.csv'];

describe('three shards merged', () => {
  let whole: RunResult;
  let wholeDir: string;
  let shardDirs: string[];
  let merged: { dir: string; run: RunResult };
  const root = mkdtempSync(join(tmpdir(), 'memeval-shards-'));

  beforeAll(async () => {
    const config = bundledConfig(join(root, 'runs'));
    const one = await runSuite({ config, log: quiet });
    whole = one.run;
    wholeDir = one.dir;
    shardDirs = [];
    // On three "machines": each shard writes under its own out directory.
    for (const index of [3, 1, 2]) {
      const shard = await runSuite({ config: { ...config, out: join(root, `machine-${index}`) }, shard: { index, count: 3 }, log: quiet });
      expect(shard.run.info.status).toBe('complete');
      shardDirs.push(shard.dir);
    }
    merged = await mergeShards({ dirs: shardDirs, out: join(root, 'merged') });
  }, 120_000);

  it('marks each shard and splits the jobs between them', () => {
    const shards = shardDirs.map((d) => loadRun(d));
    const jobs = shards.flatMap((r) => r.info.shard?.jobs ?? []);
    expect(jobs).toHaveLength(SUITE.length * whole.info.strategies.length);
    expect(new Set(jobs).size).toBe(jobs.length);
    for (const r of shards) expect(r.info.runId).toMatch(/-shard[123]of3$/);
  });

  it('writes the reports an unsharded run writes, equal but for timings', () => {
    expect(merged.run.info.status).toBe('complete');
    expect(merged.run.info.shard).toBeUndefined();
    expect(merged.run.info.mergedFrom?.map((m) => m.shard)).toEqual(['1/3', '2/3', '3/3']);
    for (const file of REPORTS) expect(stableCsv(join(merged.dir, file)), file).toEqual(stableCsv(join(wholeDir, file)));
    expect(readdirSync(merged.dir).sort()).toEqual(expect.arrayContaining(['report.html', 'run.json', 'contexts.jsonl', ...REPORTS]));
    expect(readFileSync(join(merged.dir, 'report.html'), 'utf8')).toMatch(/merged from.*shard 1\/3/);
    const shardPage = readFileSync(join(shardDirs[0], 'report.html'), 'utf8');
    expect(shardPage).toMatch(/<strong>SHARD<\/strong>shard 3 of 3/);
  });

  it('keeps every probe context readable', () => {
    const run = loadRun(merged.dir);
    const failing = run.probes.filter((p) => p.contextRef !== undefined);
    expect(failing.length).toBeGreaterThan(0);
    const base = loadRun(wholeDir);
    for (const p of failing.slice(0, 50)) {
      const same = base.probes.find((q) => q.strategy === p.strategy && q.transcript === p.transcript && q.probe === p.probe);
      expect(run.contexts?.get(p.contextRef as string)).toEqual(base.contexts?.get(same?.contextRef as string));
    }
  });

  it('gates the merged run as the unsharded one, and refuses to gate a shard', () => {
    const gates = (whole.info.config.gates as GateConfig[]).filter((g) => g.vs !== 'baseline-run');
    const verdict = (run: RunResult) => evaluateGates(run, gates).map((g) => [g.strategy, g.gate.metric, g.status, g.value]);
    expect(verdict(loadRun(merged.dir))).toEqual(verdict(loadRun(wholeDir)));
    expect(runFailure(loadRun(merged.dir))).toBeUndefined();
    expect(runFailure(loadRun(shardDirs[0]))).toMatch(/is shard 3 of 3 .* merge the shards/);
  });

  it('resumes an interrupted shard as the same shard', async () => {
    const config = bundledConfig(join(root, 'resumed'));
    const stop = new AbortController();
    stop.abort();
    const stopped = await runSuite({ config, shard: { index: 2, count: 3 }, signal: stop.signal, log: quiet });
    expect(stopped.interrupted).toBe(true);
    const resumed = await runSuite({ config, resumeDir: stopped.dir, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    expect(resumed.run.info.shard).toEqual(loadRun(shardDirs[2]).info.shard);
    for (const file of REPORTS) expect(stableCsv(join(resumed.dir, file)), file).toEqual(stableCsv(join(shardDirs[2], file)));
    const unsharded = await runSuite({ config, signal: stop.signal, log: quiet });
    await expect(runSuite({ config, resumeDir: unsharded.dir, shard: { index: 1, count: 3 }, log: quiet })).rejects.toThrow(/not started as a shard/);
  });

  it('refuses a missing shard, a shard given twice, and a run that is not a shard', async () => {
    const out = (name: string) => join(root, name);
    await expect(mergeShards({ dirs: shardDirs.slice(0, 2), out: out('m1') })).rejects.toThrow(/missing shard 2\/3/);
    await expect(mergeShards({ dirs: [...shardDirs, shardDirs[1]], out: out('m2') })).rejects.toThrow(/shard 1\/3 is given more than once/);
    await expect(mergeShards({ dirs: [wholeDir, ...shardDirs], out: out('m3') })).rejects.toThrow(/is not a shard/);
    await expect(mergeShards({ dirs: shardDirs, out: merged.dir })).rejects.toThrow(/not empty/);
  });

  it('refuses a finished shard whose run.json lacks answers', async () => {
    const copy = join(root, 'short-shard');
    cpSync(shardDirs[1], copy, { recursive: true });
    const file = join(copy, 'run.json');
    const run = loadRun(file);
    run.probes.pop();
    writeFileSync(file, [...runJsonChunks(run)].join(''));
    await expect(mergeShards({ dirs: [shardDirs[0], copy, shardDirs[2]], out: join(root, 'm-short') })).rejects.toThrow(/has \d+ of the \d+ probe answers of job/);
  });

  /** A copy of shard 2 with its run.json edited by `edit`, or its files changed by `change`. */
  function damaged(name: string, edit: (run: RunResult) => void, change?: (dir: string) => void): string {
    const copy = join(root, name);
    cpSync(shardDirs[2], copy, { recursive: true });
    const file = join(copy, 'run.json');
    const run = loadRun(file);
    edit(run);
    writeFileSync(file, [...runJsonChunks(run)].join(''));
    change?.(copy);
    return copy;
  }
  const mergeWith = (copy: string, name: string) => mergeShards({ dirs: [shardDirs[0], shardDirs[1], copy], out: join(root, name) });

  it('refuses a finished shard whose run.json lacks turn or summary records', async () => {
    const fewerTurns = damaged('fewer-turns', (run) => {
      run.turns = run.turns.slice(1);
    });
    await expect(mergeWith(fewerTurns, 'm-turns')).rejects.toThrow(/has \d+ of the \d+ turn records of job/);
    const fewerSummaries = damaged('fewer-summaries', (run) => {
      run.summaries = run.summaries.slice(0, -1);
    });
    await expect(mergeWith(fewerSummaries, 'm-summaries')).rejects.toThrow(/has \d+ summary records of job .*, whose turns counted \d+/);
  });

  it('refuses a shard made from other transcript text, one holding a record twice, and one that lost its contexts', async () => {
    const edited = damaged('edited-text', (run) => {
      run.info.transcripts[0].sha256 = 'f'.repeat(64);
    });
    await expect(mergeWith(edited, 'm-text')).rejects.toThrow(/differ in their transcripts/);
    const twice = damaged('twice', (run) => {
      run.probes[run.probes.length - 1] = run.probes[0];
    });
    await expect(mergeWith(twice, 'm-twice')).rejects.toThrow(/holds the probe answer of job .* twice/);
    const noContexts = damaged('no-contexts', () => undefined, (dir) => rmSync(join(dir, 'contexts.jsonl')));
    await expect(mergeWith(noContexts, 'm-contexts')).rejects.toThrow(/names context .* does not hold/);
    expect(existsSync(join(root, 'm-contexts'))).toBe(false);
    const badShard = damaged('bad-shard', (run) => {
      if (run.info.shard) run.info.shard.count = 0;
    });
    await expect(mergeWith(badShard, 'm-bad')).rejects.toThrow(InputError);
  });

  it('takes a shard by its run.json, and refuses an --out that is a file', async () => {
    const out = join(root, 'by-file');
    const byFile = await mergeShards({ dirs: [shardDirs[0], join(shardDirs[1], 'run.json'), shardDirs[2]], out });
    for (const file of REPORTS) expect(stableCsv(join(byFile.dir, file)), file).toEqual(stableCsv(join(wholeDir, file)));
    writeFileSync(join(root, 'a-file'), 'x');
    await expect(mergeShards({ dirs: shardDirs, out: join(root, 'a-file') })).rejects.toThrow(UsageError);
  });

  it('refuses shards of another config, model or code version', async () => {
    for (const [field, value, words] of [
      ['model', 'openai:gpt-x', 'answer model'],
      ['memevalVersion', '9.9.9', 'memeval version'],
      ['repeat', 3, 'repeat count'],
    ] as const) {
      const copy = join(root, `edited-${field}`);
      cpSync(shardDirs[1], copy, { recursive: true });
      const file = join(copy, 'run.json');
      const run = JSON.parse(readFileSync(file, 'utf8')) as { info: Record<string, unknown> };
      run.info[field] = value;
      writeFileSync(file, JSON.stringify(run));
      await expect(mergeShards({ dirs: [shardDirs[0], copy, shardDirs[2]], out: join(root, `m-${field}`) })).rejects.toThrow(new RegExp(`differ in their ${words}`));
    }
  });

  it('names the config keys two shards differ in (max_errors set on one resume, say)', async () => {
    const copy = join(root, 'edited-max-errors');
    cpSync(shardDirs[1], copy, { recursive: true });
    const file = join(copy, 'run.json');
    const run = JSON.parse(readFileSync(file, 'utf8')) as { info: { config: Record<string, unknown> } };
    run.info.config.max_errors = { kind: 'count', value: 200 };
    writeFileSync(file, JSON.stringify(run));
    await expect(mergeShards({ dirs: [shardDirs[0], copy, shardDirs[2]], out: join(root, 'm-max-errors') })).rejects.toThrow(/differ in their config \(max_errors\): they are not shards of one run/);
  });
});
