// The README's CI step, taken verbatim from the README and run as a user's CI
// would: it must fail a regressed candidate, pass an unchanged one, and fail
// (not skip) when there is no baseline run to compare with.
import { readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../harness/config.js';
import { runSuite } from '../../harness/run/run.js';
import { CLI, REPO_ROOT, runCli, stackLines, tinyTranscript, Workspace } from '../helpers/cli.js';

/** The `run:` command of the README's CI workflow, as an argv for the local CLI. */
function readmeCiCommand(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## In CI')[1]?.split('\n## ')[0] ?? '';
  const line = section.split('\n').find((l) => /^\s*- run: npx memeval run\b/.test(l));
  if (!line) throw new Error('README "In CI" has no `- run: npx memeval run …` step');
  const words = line.replace(/^\s*- run: npx memeval /, '').trim().split(/\s+/);
  return [CLI, ...words].slice(1);
}

function config(strategy: string): string {
  return `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
cache: false
strategies:
  - ${strategy}
gates:
  - { metric: probe.accuracy, strategy: "*", max_drop: 0.05, vs: baseline-run, significant: true }
`;
}

const UNCHANGED = '{ id: memory, use: full-history }';
// The same strategy id with a memory of one turn: every probe needs an older turn.
const REGRESSED = '{ id: memory, use: trimming, max_turns: 1 }';

let ws: Workspace;
let args: string[];

beforeAll(async () => {
  args = readmeCiCommand();
  const files: Record<string, string> = { 'memeval.config.yaml': config(UNCHANGED) };
  for (let i = 1; i <= 12; i++) files[`data/t${i}.yaml`] = tinyTranscript(`t${i}`);
  ws = new Workspace(files);
  // The baseline a team would commit from main: a reviewed run directory.
  const baseline = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), log: () => {} });
  expect(baseline.run.info.status).toBe('complete');
  mkdirSync(ws.path('eval'), { recursive: true });
  renameSync(baseline.dir, ws.path('eval/baseline'));
});

afterAll(() => ws?.cleanup());

describe("the README's CI step", () => {
  it('names a baseline run', () => {
    expect(args).toContain('--gate');
    expect(args).toContain('--baseline');
  });

  it('passes an unchanged candidate', async () => {
    const result = await runCli(args, { cwd: ws.dir });
    expect(result.code, result.stderr + result.stdout).toBe(0);
  });

  it('fails a regressed candidate with exit 100 and says what dropped', async () => {
    writeFileSync(ws.path('memeval.config.yaml'), config(REGRESSED));
    const result = await runCli(args, { cwd: ws.dir });
    writeFileSync(ws.path('memeval.config.yaml'), config(UNCHANGED));
    expect(result.code, result.stderr + result.stdout).toBe(100);
    expect(result.stdout).toMatch(/memory/);
    expect(result.stdout).toMatch(/dropped/);
    expect(stackLines(result.stderr)).toEqual([]);
  });

  it('fails, not skips, a relative gate when no baseline run is named', async () => {
    const withoutBaseline = args.filter((a, i) => a !== '--baseline' && args[i - 1] !== '--baseline');
    const result = await runCli(withoutBaseline, { cwd: ws.dir });
    expect(result.code, result.stderr + result.stdout).toBe(100);
    expect(result.stdout).toMatch(/no baseline run/);
    expect(result.stdout).not.toMatch(/all \d+ gate checks passed/);
  });

  it('stops before the run when the named baseline run does not exist', async () => {
    rmSync(ws.path('eval/baseline'), { recursive: true, force: true });
    const result = await runCli(args, { cwd: ws.dir });
    expect(result.code, result.stderr + result.stdout).toBe(2);
    expect(result.stderr).toMatch(/--baseline eval\/baseline: not a run directory/);
    expect(stackLines(result.stderr)).toEqual([]);
  });
});
