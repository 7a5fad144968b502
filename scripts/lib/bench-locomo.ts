// The `locomo` section of `npm run bench`: a whole LoCoMo-sized run by the
// built CLI, on generated LoCoMo-shaped data (scripts/lib/locomo-shaped.ts;
// not the real locomo10.json). The file is imported with `memeval import
// locomo`, run offline with the strategies of memeval.config.yaml, then run
// again with `--repeat 3` and re-rendered with `memeval report`. Each process
// reports its own peak RSS; the run directory is measured against the input
// file. Limits: a run's peak RSS ≤ 400 MB, its directory ≤ 10× the input.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuOf, expectOk, MEMEVAL_BIN, measureNode, readRunJson, runPhaseMs, type Measured } from './bench-process.js';
import { BUNDLED_CONFIG, bundledStrategies } from './bench-replay.js';
import { generateLocomoShaped, locomoShapedJson } from './locomo-shaped.js';

export const LOCOMO_SEED = 1;
export const LOCOMO_RSS_LIMIT_MB = 400;
export const LOCOMO_DIR_RATIO_LIMIT = 10;
export const LOCOMO_DATA_LABEL = 'generated LoCoMo-shaped data (not the real locomo10.json)';

export interface ProcessFigures {
  wallMs: number;
  cpuMs: number;
  peakRssMB: number;
}

export interface LocomoRunFigures extends ProcessFigures {
  repeat: number;
  probes: number;
  /** run.json info.startedAt → finishedAt. */
  runMs: number;
  dirBytes: number;
  /** The run directory over the input file. */
  dirRatio: number;
  /** Bytes of each file in the run directory, largest first. */
  files: Record<string, number>;
}

export interface LocomoFigures {
  data: string;
  seed: number;
  samples: number;
  utterances: number;
  questions: number;
  inputBytes: number;
  strategies: string[];
  import: ProcessFigures & { transcripts: number; probes: number };
  runs: LocomoRunFigures[];
  /** `memeval report` of the --repeat 3 run (it exited 0, or the section throws). */
  report: ProcessFigures;
  limits: { peakRssMB: number; dirRatio: number };
}

const ENV = { ...process.env, CI: 'true' };

function processFigures(m: Measured, what: string): ProcessFigures {
  const usage = cpuOf(m, what);
  return { wallMs: m.wallMs, cpuMs: usage.cpuMs, peakRssMB: usage.peakRssMB };
}

/** Every file under `dir` with its size, largest first. */
function filesOf(dir: string, prefix = ''): Record<string, number> {
  const out: [string, number][] = [];
  const walk = (at: string, rel: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path, name);
      else out.push([name, statSync(path).size]);
    }
  };
  walk(dir, prefix);
  return Object.fromEntries(out.sort((a, b) => b[1] - a[1]));
}

/** The only run directory under `out`. */
function runDirOf(out: string): string {
  const runs = readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory());
  if (runs.length !== 1) throw new Error(`${out}: expected one run directory, found ${runs.length}`);
  return join(out, runs[0].name);
}

async function runAt(dir: string, repeat: number, inputBytes: number): Promise<{ figures: LocomoRunFigures; runDir: string }> {
  const out = join(dir, `runs-${repeat}`);
  const what = `memeval run --repeat ${repeat} (LoCoMo-shaped)`;
  const m = expectOk(
    await measureNode([MEMEVAL_BIN, 'run', '--config', BUNDLED_CONFIG, '--no-cache', '--repeat', String(repeat), '--out', out, join(dir, 'data', '*.yaml')], { cwd: dir, env: ENV, usage: true }),
    what,
  );
  const run = readRunJson(out);
  if (run.info.status !== 'complete') throw new Error(`locomo bench: the --repeat ${repeat} run is ${run.info.status}`);
  const runDir = runDirOf(out);
  const files = filesOf(runDir);
  const dirBytes = Object.values(files).reduce((a, b) => a + b, 0);
  return {
    runDir,
    figures: { repeat, probes: run.probes.length, ...processFigures(m, what), runMs: runPhaseMs(run), dirBytes, dirRatio: dirBytes / inputBytes, files },
  };
}

export async function benchLocomo(): Promise<LocomoFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-bench-locomo-'));
  try {
    const samples = generateLocomoShaped({ seed: LOCOMO_SEED });
    const file = join(dir, 'locomo-shaped.json');
    writeFileSync(file, locomoShapedJson({ seed: LOCOMO_SEED }));
    const inputBytes = statSync(file).size;
    const utterances = samples.reduce((n, s) => n + Object.values(s.conversation).reduce((k, v) => k + (Array.isArray(v) ? v.length : 0), 0), 0);
    const questions = samples.reduce((n, s) => n + s.qa.length, 0);

    const imported = expectOk(await measureNode([MEMEVAL_BIN, 'import', 'locomo', file, '--out', join(dir, 'data')], { cwd: dir, env: ENV, usage: true }), 'memeval import locomo');
    const counts = /^(\d+) transcripts, (\d+) probes/.exec(imported.stdout);
    if (!counts) throw new Error(`memeval import locomo: unexpected output ${imported.stdout.slice(0, 200)}`);

    const once = await runAt(dir, 1, inputBytes);
    // The first run's directory is measured; only one is kept on disk at a time.
    rmSync(join(dir, 'runs-1'), { recursive: true, force: true });
    const thrice = await runAt(dir, 3, inputBytes);
    const report = expectOk(await measureNode([MEMEVAL_BIN, 'report', thrice.runDir], { cwd: dir, env: ENV, usage: true }), 'memeval report (--repeat 3 run)');

    return {
      data: LOCOMO_DATA_LABEL,
      seed: LOCOMO_SEED,
      samples: samples.length,
      utterances,
      questions,
      inputBytes,
      strategies: bundledStrategies().map((s) => s.id),
      import: { ...processFigures(imported, 'memeval import locomo'), transcripts: Number(counts[1]), probes: Number(counts[2]) },
      runs: [once.figures, thrice.figures],
      report: processFigures(report, 'memeval report'),
      limits: { peakRssMB: LOCOMO_RSS_LIMIT_MB, dirRatio: LOCOMO_DIR_RATIO_LIMIT },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** File sizes in MB of 10^6 bytes (peak RSS is in MiB, as the other sections print it). */
const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const ratio = (x: number): string => `${x.toFixed(2)}×`;

/** The section's table: what | figure | limit | ratio, then the run directories' largest files. */
export function locomoTable(l: LocomoFigures): string[] {
  const row = (what: string, figure: string, limit: string, r: string) => `  ${what.padEnd(58)}  ${figure.padStart(22)}  ${limit.padStart(20)}  ${r.padStart(6)}`;
  const out = [
    `LoCoMo-sized run of the built CLI on ${l.data}: ${l.samples} samples, ${int(l.utterances)} utterances, ${int(l.questions)} questions, ${(l.inputBytes / 1e6).toFixed(2)} MB (seed ${l.seed});`,
    `  offline, the ${l.strategies.length} strategies of memeval.config.yaml (${l.strategies.join(', ')}), no cache; peak RSS is each process's VmHWM`,
    row('what', 'figure', 'limit', 'ratio'),
    row(`memeval import locomo (${l.import.transcripts} transcripts, ${int(l.import.probes)} probes)`, `${l.import.peakRssMB.toFixed(0)} MB`, '', ''),
  ];
  const once = l.runs[0];
  for (const r of l.runs) {
    const label = `run${r.repeat > 1 ? ` --repeat ${r.repeat}` : ''} (${int(r.probes)} probe answers)`;
    // The limits are the single run's; a repeated run is set against that run.
    if (r === once) {
      out.push(row(`${label}: peak RSS`, `${r.peakRssMB.toFixed(0)} MB`, `${l.limits.peakRssMB} MB`, ratio(r.peakRssMB / l.limits.peakRssMB)));
      out.push(row(`${label}: run directory`, `${mb(r.dirBytes)} MB = ${r.dirRatio.toFixed(1)}× input`, `${l.limits.dirRatio}× input: ${mb(l.limits.dirRatio * l.inputBytes)} MB`, ratio(r.dirBytes / (l.limits.dirRatio * l.inputBytes))));
    } else {
      out.push(row(`${label}: peak RSS`, `${r.peakRssMB.toFixed(0)} MB`, `run once: ${once.peakRssMB.toFixed(0)} MB`, ratio(r.peakRssMB / once.peakRssMB)));
      out.push(row(`${label}: run directory`, `${mb(r.dirBytes)} MB = ${r.dirRatio.toFixed(1)}× input`, `run once: ${mb(once.dirBytes)} MB`, ratio(r.dirBytes / once.dirBytes)));
    }
    out.push(row(`${label}: wall / run phase / CPU`, `${(r.wallMs / 1000).toFixed(0)} / ${(r.runMs / 1000).toFixed(0)} / ${(r.cpuMs / 1000).toFixed(0)} s`, '', ''));
  }
  out.push(row('memeval report of the --repeat 3 run: exit 0', `${(l.report.wallMs / 1000).toFixed(1)} s, ${l.report.peakRssMB.toFixed(0)} MB`, '', ''));
  for (const r of l.runs) {
    const top = Object.entries(r.files)
      .slice(0, 6)
      .map(([name, bytes]) => `${name} ${mb(bytes)}`)
      .join(', ');
    out.push(`  run directory${r.repeat > 1 ? ` (--repeat ${r.repeat})` : ''}, MB: ${top}`);
  }
  return out;
}
