// `memeval plan`: before spending a run, what accuracy difference between two
// strategies the suite can detect, overall and per probe kind, and how many
// transcripts (or repeats) a wanted difference needs. Formulas: core/power.ts.
import { parseArgs } from 'node:util';
import { EXIT, InputError, UsageError, fileProblem } from '../../core/errors.js';
import {
  DEFAULT_ICC,
  WORST_CASE_ACCURACY,
  designEffect,
  minimumDetectableEffect,
  repeatsFloor,
  repeatsNeeded,
  runPower,
  transcriptsNeeded,
  type Design,
  type RunPower,
} from '../../core/power.js';
import { PROBE_KINDS, type ProbeKind, type RunResult, type Transcript } from '../../core/types.js';
import { isProbeError } from '../../reports/aggregate.js';
import { loadRun } from '../../reports/load.js';
import { loadConfigOrDefault } from '../config.js';
import { loadSuite } from '../datasets/transcript.js';
import { DEFAULT_LIMITS } from '../schema/limits.js';

const USAGE = 'usage: memeval plan [--config FILE] [--detect POINTS] [--baseline-accuracy P] [--icc R] [--run RUN_DIR]';

const PLAN_OPTIONS = {
  config: { type: 'string' },
  detect: { type: 'string' },
  'baseline-accuracy': { type: 'string' },
  icc: { type: 'string' },
  run: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface PlanFlags {
  config?: string;
  /** Percentage points, e.g. 5 for a 5-point difference. */
  detect?: number;
  accuracy?: number;
  icc?: number;
  run?: string;
  help: boolean;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** A number from a flag inside (low, high), or [low, high] when `closed`; a UsageError otherwise. */
function numberFlag(name: string, value: string | undefined, low: number, high: number, closed: boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  // Decimal only: Number() also reads "0x10" as 16 and "" as 0.
  const n = DECIMAL.test(value.trim()) ? Number(value) : NaN;
  const inside = closed ? n >= low && n <= high : n > low && n < high;
  if (!Number.isFinite(n) || !inside) throw new UsageError(`--${name} must be ${what} (got "${value}")\n${USAGE}`);
  return n;
}

function parsePlanFlags(argv: string[]): PlanFlags {
  let values: { [K in keyof typeof PLAN_OPTIONS]?: (typeof PLAN_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };
  try {
    ({ values } = parseArgs({ args: argv, options: PLAN_OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  return {
    config: values.config,
    detect: numberFlag('detect', values.detect, 0, 100, false, 'percentage points between 0 and 100, e.g. 5'),
    accuracy: numberFlag('baseline-accuracy', values['baseline-accuracy'], 0, 1, false, 'a proportion strictly between 0 and 1, e.g. 0.7'),
    icc: numberFlag('icc', values.icc, 0, 1, true, 'a correlation from 0 to 1, e.g. 0.2'),
    run: values.run,
    help: values.help === true,
  };
}

/** One row of the plan: a probe kind (or `all`) and the design it is measured with. */
export interface PlanRow {
  label: string;
  probes: number;
  design: Design;
}

export interface Plan {
  repeat: number;
  accuracySource: string;
  iccSource: string;
  rows: PlanRow[];
  /** Wanted effect in points, with the transcripts and repeats it needs. */
  detect?: { points: number; transcripts: number; repeats?: number; floor: number };
}

interface Assumptions {
  accuracy: (kind?: ProbeKind) => number;
  icc: number;
  accuracySource: string;
  iccSource: string;
}

/**
 * A run to estimate from: complete, with no probe that errored. An error reads as a failure,
 * so a run that could not measure would show a low accuracy and no spread between
 * transcripts, and the plan would make the suite look far more sensitive than it is.
 */
function measuredRun(dir: string): RunResult {
  const run = loadRun(dir);
  const errored = run.probes.filter(isProbeError).length;
  const shard = run.info.shard && `the run is shard ${run.info.shard.index} of ${run.info.shard.count}, holding only its jobs (merge the shards first)`;
  const why = shard ?? (run.info.status !== 'complete' ? `the run is ${run.info.status}` : errored > 0 ? `${errored} of its ${run.probes.length} probe answers errored` : undefined);
  if (why) {
    throw new InputError([fileProblem(dir, `${why}: an error would read as a failed probe and skew the estimates; plan from a complete run without errors, or give --baseline-accuracy and --icc`)]);
  }
  return run;
}

/** Flags win over a run's estimates, and those over the defaults. */
function assumptions(flags: PlanFlags, power: RunPower | undefined): Assumptions {
  const icc = flags.icc ?? (power?.iccEstimated ? power.icc : undefined);
  const iccSource =
    flags.icc !== undefined
      ? '--icc'
      : icc !== undefined
        ? `estimated from ${flags.run} (${power?.strategy})`
        : flags.run !== undefined
          ? `default; ${flags.run} cannot estimate it (that needs two transcripts, one with two outcomes or more); set --icc`
          : 'default; set --icc or --run';
  if (flags.accuracy !== undefined) {
    const p = flags.accuracy;
    return { accuracy: () => p, icc: icc ?? DEFAULT_ICC, accuracySource: '--baseline-accuracy', iccSource };
  }
  if (power) {
    const byKind = (kind?: ProbeKind) => (kind ? power.byKind[kind]?.accuracy : undefined) ?? power.overall.accuracy;
    return { accuracy: byKind, icc: icc ?? DEFAULT_ICC, accuracySource: `${power.strategy} in ${flags.run}, (passes + 1) / (n + 2)`, iccSource };
  }
  return { accuracy: () => WORST_CASE_ACCURACY, icc: icc ?? DEFAULT_ICC, accuracySource: 'worst case; set --baseline-accuracy or --run', iccSource };
}

function row(label: string, transcripts: Transcript[], repeat: number, a: Assumptions, kind?: ProbeKind): PlanRow | undefined {
  const probes = transcripts.reduce((n, t) => n + t.probes.filter((p) => !kind || p.kind === kind).length, 0);
  const clusters = transcripts.filter((t) => t.probes.some((p) => !kind || p.kind === kind)).length;
  if (probes === 0) return undefined;
  const design = { transcripts: clusters, perTranscript: (probes * repeat) / clusters, accuracy: a.accuracy(kind), icc: a.icc };
  return { label, probes, design };
}

function detectPlan(points: number, overall: Design, repeat: number): NonNullable<Plan['detect']> {
  const effect = points / 100;
  // Repeats are counted from one per probe, so the answer is a total repeat count.
  const perProbe = { ...overall, perTranscript: overall.perTranscript / repeat };
  return { points, transcripts: transcriptsNeeded(effect, overall), repeats: repeatsNeeded(effect, perProbe), floor: repeatsFloor(overall) };
}

/** The plan for a loaded suite; `power` is a run's own estimates, when --run was given. */
function makePlan(transcripts: Transcript[], repeat: number, flags: PlanFlags, power?: RunPower): Plan {
  const a = assumptions(flags, power);
  const overall = row('all', transcripts, repeat, a);
  const kinds = PROBE_KINDS.map((k) => row(k, transcripts, repeat, a, k)).filter((r): r is PlanRow => r !== undefined);
  const rows = overall ? [overall, ...kinds] : [];
  const detect = overall && flags.detect !== undefined ? detectPlan(flags.detect, overall.design, repeat) : undefined;
  return { repeat, accuracySource: a.accuracySource, iccSource: a.iccSource, rows, detect };
}

function points(effect: number): string {
  if (!Number.isFinite(effect)) return '–';
  // An accuracy moves at most 100 points: past that, no difference can be told apart.
  return effect > 1 ? 'none (MDE over 100 points)' : `${(effect * 100).toFixed(1)} points`;
}

function tableLines(rows: PlanRow[]): string[] {
  const head = ['kind', 'transcripts', 'probes', 'outcomes/transcript', 'p', 'MDE'];
  const body = rows.map((r) => [r.label, String(r.design.transcripts), String(r.probes), r.design.perTranscript.toFixed(2), `${(r.design.accuracy * 100).toFixed(1)}%`, points(minimumDetectableEffect(r.design))]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), ...body.map(line)];
}

function detectLine(d: NonNullable<Plan['detect']>, overall: PlanRow): string {
  const k = `To detect ${d.points} points: ${d.transcripts} transcripts like these (the suite has ${overall.design.transcripts})`;
  const r = d.repeats === undefined
    ? `repeats alone cannot get there (never below ${points(d.floor)} with ${overall.design.transcripts} transcripts)`
    : `or, with these transcripts, repeat ${d.repeats} at best (repeats of one probe agree more than different probes do)`;
  return `${k}; ${r}.`;
}

function formatPlan(plan: Plan): string {
  const overall = plan.rows[0];
  if (!overall) return 'The suite has no probes, so it cannot detect any difference.\n';
  const d = overall.design;
  const lines = [
    'What this suite can detect: the smallest accuracy difference between two strategies found',
    'at two-sided α = 0.05 with 80% power (minimum detectable effect, MDE).',
    `baseline accuracy p: ${(d.accuracy * 100).toFixed(1)}% (${plan.accuracySource})`,
    `ICC: ${d.icc.toFixed(2)} (${plan.iccSource})`,
    `repeat: ${plan.repeat}; design effect 1 + (m̄ − 1)·ICC = ${designEffect(d.perTranscript, d.icc).toFixed(2)} overall`,
    'MDE = (z_0.975 + z_0.80) · sqrt(2·p(1−p)·(1 + (m̄ − 1)·ICC) / (k·m̄))',
    '',
    ...tableLines(plan.rows),
  ];
  if (plan.detect) lines.push('', detectLine(plan.detect, overall));
  return `${lines.join('\n')}\n`;
}

/** `memeval plan …`: exit 0, or 2 on a bad flag or bad input. */
export async function planCommand(argv: string[]): Promise<number> {
  let flags: PlanFlags;
  try {
    flags = parsePlanFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`memeval plan: ${error.message}\n`);
    return EXIT.badInput;
  }
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const config = loadConfigOrDefault(flags.config);
  const transcripts = await loadSuite(config.datasets, config.baseDir, config.limits ?? DEFAULT_LIMITS);
  const power = flags.run === undefined ? undefined : runPower(measuredRun(flags.run));
  process.stdout.write(formatPlan(makePlan(transcripts, config.repeat, flags, power)));
  return EXIT.ok;
}
