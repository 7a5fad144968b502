// Helpers of `npm run bench` for what runs in a separate process: spawning one
// with `process.execPath`, its wall time, CPU and peak memory, and the medians
// and paired ratios the tables print.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../core/types.js';
import { median } from '../../core/stats.js';
import { loadRun } from '../../reports/load.js';

/** The repository root (scripts/lib/ is two levels down). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built CLI, as `memeval` runs it. */
export const MEMEVAL_BIN = join(ROOT, 'bin', 'memeval.js');
/** Preloaded with `--require`; the process writes its own CPU and peak RSS at exit. */
const USAGE_PRELOAD = join(ROOT, 'scripts', 'lib', 'bench-usage.cjs');

/** The median of a[i] / b[i]: each pair ran back to back, so machine drift cancels within it. */
export function medianRatio(a: number[], b: number[]): number {
  return median(a.map((x, i) => x / b[i]));
}

export interface ProcessUsage {
  /** User + system CPU of the process and of the children it waited for. */
  cpuMs: number;
  peakRssMB: number;
}

export interface Measured {
  code: number | null;
  /** Spawn to exit, as the parent sees it: start-up, work and shutdown. */
  wallMs: number;
  /** Absent when the process was spawned without the usage preload or died before writing it. */
  usage?: ProcessUsage;
  stdout: string;
  stderr: string;
}

export interface MeasureOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Preload bench-usage.cjs (CPU, peak RSS); off for start-up timing, where it would add its own load time. */
  usage?: boolean;
}

interface UsageReport {
  userMs: number;
  systemMs: number;
  childrenCpuMs: number;
  peakRssKB: number;
}

function readUsage(file: string): ProcessUsage | undefined {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as UsageReport;
    return { cpuMs: r.userMs + r.systemMs + r.childrenCpuMs, peakRssMB: r.peakRssKB / 1024 };
  } catch {
    return undefined;
  }
}

/** Runs `node ...args` with this Node binary and measures it. */
export function measureNode(args: string[], opts: MeasureOptions = {}): Promise<Measured> {
  const scratch = opts.usage ? mkdtempSync(join(tmpdir(), 'memeval-bench-usage-')) : undefined;
  const usageFile = scratch ? join(scratch, 'usage.json') : undefined;
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env) };
  if (usageFile) env.BENCH_USAGE_FILE = usageFile;
  const argv = usageFile ? ['--require', USAGE_PRELOAD, ...args] : args;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let wallMs = 0;
    const child = spawn(process.execPath, argv, { cwd: opts.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    // Only the tail matters (an error message); a progress display could be long.
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', () => (wallMs = performance.now() - started));
    child.on('close', (code) => {
      const usage = usageFile ? readUsage(usageFile) : undefined;
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      resolve({ code, wallMs, usage, stdout, stderr });
    });
  });
}

/** Throws with the tail of stderr unless the process exited 0. */
export function expectOk(m: Measured, what: string): Measured {
  if (m.code !== 0) throw new Error(`${what} exited with ${m.code}: ${m.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  return m;
}

/** CPU of a measured process; a missing usage report is a broken measurement, not zero. */
export function cpuOf(m: Measured, what: string): ProcessUsage {
  if (!m.usage) throw new Error(`${what}: no usage report (the preload did not run)`);
  return m.usage;
}

/** The run.json of the only run under `outDir` (each measured run gets its own out directory). */
export function readRunJson(outDir: string): RunResult {
  const runs = readdirSync(outDir, { withFileTypes: true }).filter((d) => d.isDirectory());
  if (runs.length !== 1) throw new Error(`${outDir}: expected one run directory, found ${runs.length}`);
  // Read as the reports read it: turn records are tables in run.json, not the records RunResult holds.
  return loadRun(join(outDir, runs[0].name, 'run.json'));
}

/** Milliseconds between run.json's `info.startedAt` and `info.finishedAt`: the run's own phase, without start-up and reports. */
export function runPhaseMs(run: RunResult): number {
  if (!run.info.finishedAt) throw new Error(`run ${run.info.runId} has no finishedAt (status ${run.info.status})`);
  return Date.parse(run.info.finishedAt) - Date.parse(run.info.startedAt);
}
