// The bundled suite as `npm run eval` runs it: the shipped config, every one of
// its strategies, the offline reader and judge. It must finish (a reader that
// loops on one context hangs the whole run, and no smaller test saw the one that
// did), finish clean, and keep the reader's targets on full history: per kind on
// the transcripts without tool probes, the reader gap, short answers, and every
// trimming strategy below full history on recall and update.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeRecord, RunResult } from '../../../core/types.js';
import { loadRun } from '../../../reports/load.js';
import { REPO_ROOT, spawnCli, type CliResult } from '../../helpers/cli.js';

/** Far above the seconds it takes: past this the run is taken to hang, and killed. */
const DEADLINE_MS = 150_000;

const out = mkdtempSync(join(tmpdir(), 'memeval-bundled-'));
let result: CliResult;
let run: RunResult;

beforeAll(async () => {
  const cli = spawnCli(['run', '--out', out, '--no-cache'], { cwd: REPO_ROOT });
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), DEADLINE_MS);
  try {
    result = await cli.done;
  } finally {
    clearTimeout(timer);
  }
  expect(result.signal, `the run did not finish within ${DEADLINE_MS / 1000} s; its last output:\n${result.stderr.slice(-2000)}`).toBeNull();
  const [dir] = readdirSync(out);
  run = loadRun(join(out, dir));
}, DEADLINE_MS + 30_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

const passRate = (records: ProbeRecord[]): number => records.filter((p) => p.passed === true).length / records.length;

function of(strategy: string, kind?: string, transcripts?: ReadonlySet<string>): ProbeRecord[] {
  return run.probes.filter((p) => p.strategy === strategy && (kind === undefined || p.kind === kind) && (!transcripts || transcripts.has(p.transcript)));
}

/** The transcripts with no tool probe: the reader's targets are set on them (tools are the model's to call, not the reader's). */
function withoutTools(): Set<string> {
  const withTools = new Set(run.probes.filter((p) => p.kind === 'tool').map((p) => p.transcript));
  return new Set(run.info.transcripts.map((t) => t.id).filter((id) => !withTools.has(id)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

describe('the bundled suite through every strategy of the bundled config', () => {
  it('finishes clean: exit 0, complete, no errors, every probe answered', () => {
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(run.info.status).toBe('complete');
    expect(run.info.errors?.every((s) => s.errors === 0)).toBe(true);
    const owed = run.info.transcripts.reduce((n, t) => n + t.probes, 0) * run.info.strategies.length;
    expect(run.probes).toHaveLength(owed);
    expect(run.probes.every((p) => p.error === undefined && typeof p.passed === 'boolean')).toBe(true);
  });

  it('full history meets the reader targets per kind on the transcripts without tools', () => {
    const plain = withoutTools();
    expect(plain.size).toBeGreaterThanOrEqual(20);
    const targets: Record<string, number> = { recall: 0.9, update: 0.85, abstention: 0.75, temporal: 0.6, 'multi-hop': 0.45 };
    const rates = Object.fromEntries(Object.keys(targets).map((kind) => [kind, passRate(of('full', kind, plain))]));
    for (const [kind, target] of Object.entries(targets)) expect(rates[kind], `${kind}: ${JSON.stringify(rates)}`).toBeGreaterThanOrEqual(target);
  });

  it('the reader gap on full history stays under 15% of answerable probes, and answers are short', () => {
    const plain = withoutTools();
    const answerable = of('full', undefined, plain).filter((p) => p.answerable === true);
    const missed = answerable.filter((p) => p.passed !== true).length;
    expect(missed / answerable.length).toBeLessThan(0.15);
    const words = of('full').map((p) => (p.answer ?? '').split(/\s+/).filter(Boolean).length);
    expect(median(words)).toBeLessThan(12);
  });

  it("prints the table the README's quickstart shows", () => {
    const between = (text: string) => {
      const lines = text.split('\n');
      const from = lines.findIndex((l) => l.startsWith('strategy '));
      const to = lines.findIndex((l, i) => i > from && l.startsWith('model: offline'));
      return lines.slice(from, to + 1);
    };
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(between(result.stdout + result.stderr).length).toBeGreaterThan(8);
    expect(between(readme.slice(readme.indexOf('`npm run eval` replays')))).toEqual(between(result.stdout + result.stderr));
  });

  it('every strategy that trims stays below full history on recall and update', () => {
    const ids = run.info.strategies.map((s) => s.id).filter((id) => id !== 'full');
    expect(ids.length).toBeGreaterThanOrEqual(5);
    for (const kind of ['recall', 'update']) {
      const full = passRate(of('full', kind));
      for (const id of ids) expect(passRate(of(id, kind)), `${id} on ${kind} (full: ${full})`).toBeLessThan(full);
    }
  });
});
