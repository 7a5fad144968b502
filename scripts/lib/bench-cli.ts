// Sections of `npm run bench` that time the built CLI (`bin/memeval.js`) as a
// user starts it: start-up of `--help` / `--version` against a bare `node -e 0`,
// and the peak RSS of whole offline runs at several suite sizes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSuite } from '../generate.js';
import { writeTranscriptFile } from '../../harness/datasets/yaml-write.js';
import { cpuOf, expectOk, MEMEVAL_BIN, measureNode, medianRatio, readRunJson, ROOT, runPhaseMs } from './bench-process.js';
import { median } from '../../core/stats.js';

// ---------------------------------------------------------------- start-up

export interface StartupFigures {
  reps: number;
  bareNodeMs: number;
  helpMs: number;
  versionMs: number;
  /** Median of the per-repetition ratios to `node -e 0` started just before. */
  helpRatio: number;
  versionRatio: number;
  /** An offline run of the bundled suite: spawn to its first line on stderr. */
  firstLineMs: number;
}

/** Spawn to exit, without the usage preload (its own load time would count). */
async function startMs(args: string[], what: string): Promise<number> {
  return expectOk(await measureNode(args), what).wallMs;
}

export async function benchStartup(reps: number): Promise<StartupFigures> {
  // One untimed round: the first start reads everything from disk.
  await startMs(['-e', '0'], 'node -e 0');
  await startMs([MEMEVAL_BIN, '--help'], 'memeval --help');
  const bare: number[] = [];
  const help: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < reps; i++) {
    bare.push(await startMs(['-e', '0'], 'node -e 0'));
    help.push(await startMs([MEMEVAL_BIN, '--help'], 'memeval --help'));
    version.push(await startMs([MEMEVAL_BIN, '--version'], 'memeval --version'));
  }
  const firstLines: number[] = [];
  for (let i = 0; i < reps; i++) firstLines.push(await firstLineMs());
  return {
    reps,
    firstLineMs: median(firstLines),
    bareNodeMs: median(bare),
    helpMs: median(help),
    versionMs: median(version),
    helpRatio: medianRatio(help, bare),
    versionRatio: medianRatio(version, bare),
  };
}

/**
 * Spawn to the first line an offline run of the bundled suite writes to
 * stderr; the run is stopped there (SIGTERM, which it handles), in a
 * throw-away output directory.
 */
function firstLineMs(): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'memeval-bench-first-'));
  const started = performance.now();
  return new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [MEMEVAL_BIN, 'run', '--out', out], { cwd: ROOT, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let at: number | undefined;
    child.stderr.on('data', () => {
      if (at !== undefined) return;
      at = performance.now() - started;
      child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', () => {
      rmSync(out, { recursive: true, force: true });
      if (at === undefined) reject(new Error('memeval run wrote nothing to stderr'));
      else resolve(at);
    });
  });
}

// ---------------------------------------------------------------- peak RSS

export const RSS_TURNS = 12;
export const RSS_STRATEGIES = 2;

export interface RssFigures {
  transcripts: number;
  turnsPerTranscript: number;
  strategies: number;
  probes: number;
  peakRssMB: number;
  wallMs: number;
  runMs: number;
  cpuMs: number;
}

const RSS_CONFIG = `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
cache: false
strategies:
  - { id: full, use: full-history }
  - { id: trim-4, use: trimming, max_turns: 4 }
`;

/** One whole offline run of `count` generated transcripts by the built CLI; the child reports its own VmHWM. */
async function rssAt(count: number): Promise<RssFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-bench-rss-'));
  try {
    for (const t of generateSuite({ count, turns: RSS_TURNS, seed: 11, facts: 3, updates: 1, distractors: 1 })) {
      await writeTranscriptFile(join(dir, 'data', `${t.id}.yaml`), t);
    }
    writeFileSync(join(dir, 'memeval.yaml'), RSS_CONFIG);
    const m = expectOk(
      await measureNode([MEMEVAL_BIN, 'run', '--config', join(dir, 'memeval.yaml')], { cwd: dir, env: { ...process.env, CI: 'true' }, usage: true }),
      `memeval run (${count} transcripts)`,
    );
    const run = readRunJson(join(dir, 'runs'));
    if (run.info.status !== 'complete') throw new Error(`rss bench: run of ${count} transcripts is ${run.info.status}`);
    const usage = cpuOf(m, 'memeval run');
    return {
      transcripts: count,
      turnsPerTranscript: RSS_TURNS,
      strategies: RSS_STRATEGIES,
      probes: run.probes.length,
      peakRssMB: usage.peakRssMB,
      wallMs: m.wallMs,
      runMs: runPhaseMs(run),
      cpuMs: usage.cpuMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Smallest size first: the growth per extra transcript is read between neighbours. */
export async function benchRss(sizes: number[]): Promise<RssFigures[]> {
  const out: RssFigures[] = [];
  for (const n of [...sizes].sort((a, b) => a - b)) out.push(await rssAt(n));
  return out;
}

/** MB per extra transcript from the previous size to this one (undefined for the smallest). */
export function mbPerTranscript(figures: RssFigures[], i: number): number | undefined {
  if (i === 0) return undefined;
  const a = figures[i - 1];
  const b = figures[i];
  return (b.peakRssMB - a.peakRssMB) / (b.transcripts - a.transcripts);
}
