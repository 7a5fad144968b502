// Quality gates for CI: absolute bounds (min/max) and relative drops against
// a baseline run or the baseline strategy, optionally only when the drop is
// statistically significant.
import { appendFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfig, loadConfig, type GateConfig, type SuiteConfig } from '../harness/config.js';
import { InputError, isInputError, type Problem } from '../harness/errors.js';
import type { ProbeRecord, RunResult } from '../harness/types.js';
import { DEFAULT_CALIBRATION_OUT, hasCalibration } from '../graders/calibrate.js';
import { isProbeError, metricDef, metricValue, runsByTranscript, strategyIds, type MetricDef } from './aggregate.js';
import { SIGNIFICANCE_LEVEL, compareProbes } from './diff.js';
import { gateJUnit } from './junit.js';
import { loadRun, newestRunDir, runDirOf, writeFileAtomic } from './load.js';
import { gateMarkdown } from './markdown.js';
import { pairedBootstrap } from './stats.js';

export type { GateConfig };

export interface GateResult {
  gate: GateConfig;
  strategy: string;
  status: 'pass' | 'fail' | 'skipped';
  value?: number;
  /** The compared value (baseline run or baseline strategy) for `max_drop` gates. */
  baseline?: number;
  /** How far the metric moved the wrong way (positive = worse). */
  drop?: number;
  test?: 'mcnemar' | 'bootstrap';
  pValue?: number;
  message: string;
}

export interface GateOptions {
  baselineRun?: RunResult;
  baselineStrategy?: string;
}

const EPS = 1e-12;

function problemAt(where: string, message: string): Problem {
  const m = /^(.*):(\d+):(\d+)$/.exec(where);
  return m ? { file: m[1], line: Number(m[2]), col: Number(m[3]), message } : { file: where || 'gates', line: 0, col: 0, message };
}

function fmt(v: number | undefined): string {
  if (v === undefined) return 'no data';
  return Number.isInteger(v) ? String(v) : v.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
}

function boundFailures(gate: GateConfig, value: number | undefined): string[] {
  const out: string[] = [];
  if (gate.min !== undefined && (value === undefined || value < gate.min - EPS)) out.push(`${fmt(value)} is below min ${gate.min}`);
  if (gate.max !== undefined && (value === undefined || value > gate.max + EPS)) out.push(`${fmt(value)} is above max ${gate.max}`);
  return out;
}

function probesFor(run: RunResult, strategy: string, metric: string): ProbeRecord[] {
  const kind = metric.startsWith('probe.accuracy.') ? metric.slice('probe.accuracy.'.length) : undefined;
  return run.probes.filter((p) => p.strategy === strategy && (kind === undefined || p.kind === kind));
}

interface Side {
  run: RunResult;
  strategy: string;
}

/** Tests whether cand differs from base: McNemar on paired probes for accuracy, else a per-transcript paired bootstrap. */
function significance(def: MetricDef, base: Side, cand: Side): { test: 'mcnemar' | 'bootstrap'; p: number | undefined } {
  if (def.binary) {
    const cmp = compareProbes(probesFor(base.run, base.strategy, def.name), probesFor(cand.run, cand.strategy, def.name));
    return { test: 'mcnemar', p: cmp.pairs.length ? cmp.mcnemarP : undefined };
  }
  const baseParts = runsByTranscript(base.run);
  const pairs = [];
  for (const [t, candPart] of runsByTranscript(cand.run)) {
    const basePart = baseParts.get(t);
    const b = basePart && metricValue(basePart, base.strategy, def.name);
    const c = metricValue(candPart, cand.strategy, def.name);
    if (b !== undefined && c !== undefined) pairs.push({ cluster: t, base: b, cand: c });
  }
  return { test: 'bootstrap', p: pairedBootstrap(pairs)?.p };
}

function baselineSide(gate: GateConfig, strategy: string, run: RunResult, opts: GateOptions): Side | string {
  if (gate.vs === 'baseline-run') {
    if (!opts.baselineRun) return 'no baseline run given (--baseline RUN)';
    if (!strategyIds(opts.baselineRun).includes(strategy)) return `strategy "${strategy}" is not in the baseline run`;
    return { run: opts.baselineRun, strategy };
  }
  return { run, strategy: opts.baselineStrategy ?? run.info.baseline ?? '' };
}

function evaluateOne(gate: GateConfig, def: MetricDef, strategy: string, run: RunResult, opts: GateOptions): GateResult {
  const value = metricValue(run, strategy, def.name);
  const failures = boundFailures(gate, value);
  const result: GateResult = { gate, strategy, status: 'pass', value, message: '' };
  const notes: string[] = [];
  if (gate.max_drop !== undefined) {
    const side = baselineSide(gate, strategy, run, opts);
    if (typeof side === 'string') {
      if (failures.length === 0) return { ...result, status: 'skipped', message: `skipped: ${side}` };
      notes.push(`max_drop not checked: ${side}`);
    } else {
      const base = metricValue(side.run, side.strategy, def.name);
      result.baseline = base;
      const label = gate.vs === 'baseline-run' ? 'baseline run' : `baseline strategy ${side.strategy}`;
      if (base === undefined || value === undefined) failures.push(`no data to compare with the ${label}`);
      else {
        const drop = def.higherIsBetter ? base - value : value - base;
        result.drop = drop;
        if (drop > gate.max_drop + EPS) {
          const what = `dropped ${fmt(drop)} vs ${label} (${fmt(base)} → ${fmt(value)}), more than max_drop ${gate.max_drop}`;
          if (!gate.significant) failures.push(what);
          else {
            const sig = significance(def, side, { run, strategy });
            result.test = sig.test;
            result.pValue = sig.p;
            if (sig.p !== undefined && sig.p < SIGNIFICANCE_LEVEL) failures.push(`${what}; significant (${sig.test} p = ${sig.p.toPrecision(3)})`);
            else notes.push(`${what}, but not significant (${sig.test} p = ${sig.p === undefined ? 'n/a' : sig.p.toPrecision(3)})`);
          }
        } else notes.push(`change vs ${label}: ${fmt(base)} → ${fmt(value)}`);
      }
    }
  }
  if (failures.length) return { ...result, status: 'fail', message: [...failures, ...notes].join('; ') };
  return { ...result, message: [`${def.name} = ${fmt(value)}`, ...notes].join('; ') };
}

function gateProblems(gate: GateConfig, run: RunResult, opts: GateOptions): Problem[] {
  const problems: Problem[] = [];
  const ids = strategyIds(run);
  if (!metricDef(gate.metric)) problems.push(problemAt(gate.where, `unknown metric "${gate.metric}"`));
  if (gate.strategy !== '*' && !ids.includes(gate.strategy)) {
    problems.push(problemAt(gate.where, `strategy "${gate.strategy}" is not in run ${run.info.runId} (has: ${ids.join(', ')})`));
  }
  if (gate.min === undefined && gate.max === undefined && gate.max_drop === undefined) {
    problems.push(problemAt(gate.where, 'a gate needs min, max or max_drop'));
  }
  if (gate.max_drop !== undefined && gate.vs !== 'baseline-run') {
    const bs = opts.baselineStrategy ?? run.info.baseline;
    if (!bs) problems.push(problemAt(gate.where, 'max_drop against the baseline strategy, but no baseline strategy is set'));
    else if (!ids.includes(bs)) problems.push(problemAt(gate.where, `baseline strategy "${bs}" is not in run ${run.info.runId}`));
  }
  return problems;
}

/**
 * Evaluates every gate for every strategy it names ("*" = all). A relative
 * gate (`max_drop`) compares with the same strategy in `baselineRun`
 * (`vs: baseline-run`) or with the baseline strategy of this run (the default).
 * A gate whose metric has no data fails. Bad gates throw an InputError.
 */
export function evaluateGates(run: RunResult, gates: GateConfig[], opts: GateOptions = {}): GateResult[] {
  const problems = gates.flatMap((g) => gateProblems(g, run, opts));
  if (problems.length) throw new InputError(problems);
  const results: GateResult[] = [];
  for (const gate of gates) {
    const def = metricDef(gate.metric) as MetricDef;
    const baselineStrategy = opts.baselineStrategy ?? run.info.baseline;
    const relativeToStrategy = gate.max_drop !== undefined && gate.vs !== 'baseline-run';
    const targets = gate.strategy === '*' ? strategyIds(run).filter((s) => !(relativeToStrategy && s === baselineStrategy)) : [gate.strategy];
    for (const s of targets) results.push(evaluateOne({ ...gate, vs: gate.max_drop !== undefined ? (gate.vs ?? 'baseline-strategy') : gate.vs }, def, s, run, opts));
  }
  return results;
}

/** Why the run itself cannot be gated (exit 3), or undefined when it finished. */
export function runFailure(run: RunResult): string | undefined {
  const status = run.info.status;
  if (status !== undefined && status !== 'complete') return `run ${run.info.runId} is ${status}, not complete`;
  if (status === undefined && !run.info.finishedAt) return `run ${run.info.runId} never finished`;
  if (run.probes.length > 0 && run.probes.every(isProbeError)) return `every probe of run ${run.info.runId} errored (${run.probes[0].error ?? 'no grade'})`;
  return undefined;
}

/** Calibration records are looked up where `memeval calibrate` writes them by default, and next to the runs. */
export function judgeCalibrated(judge: string, dirs: string[]): boolean {
  return dirs.some((d) => hasCalibration(judge, d));
}

export type GateConfigSource = Pick<SuiteConfig, 'out' | 'gates' | 'baseline'> & { baseDir?: string };
export type LoadGateConfig = (file: string | undefined) => GateConfigSource | Promise<GateConfigSource>;

/** --config FILE, else ./memeval.config.yaml, else the built-in defaults (which define no gates). */
export function loadGateConfig(file: string | undefined): GateConfigSource {
  if (file) return loadConfig(file);
  const fallback = resolve('memeval.config.yaml');
  return existsSync(fallback) ? loadConfig(fallback) : defaultConfig(process.cwd());
}

const USAGE = 'usage: memeval gate [RUN] [--baseline RUN] [--config FILE]';

function say(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

function calibrationWarnings(run: RunResult, gates: GateConfig[], config: GateConfigSource, runDir: string): string[] {
  if (!gates.some((g) => g.metric.startsWith('summary.judge.'))) return [];
  const dirs = [resolve(config.baseDir ?? '.', DEFAULT_CALIBRATION_OUT), resolve(DEFAULT_CALIBRATION_OUT), config.out, dirname(resolve(runDir))];
  if (judgeCalibrated(run.info.judge, dirs)) return [];
  return [
    `WARNING: gates on summary.judge.* use judge "${run.info.judge}", which has no calibration record. ` +
      'Its scores have not been checked against human labels; run `memeval calibrate --judge ' + run.info.judge + '` first.',
  ];
}

interface GateArgs {
  runArg?: string;
  baseline?: string;
  config?: string;
}

function parseGateArgs(argv: string[]): GateArgs | undefined {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { baseline: { type: 'string' }, config: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 1) return undefined;
    return { runArg: positionals[0], baseline: values.baseline, config: values.config };
  } catch {
    return undefined;
  }
}

function writeGateFiles(dir: string, run: RunResult, results: GateResult[], warnings: string[], failure?: string): string {
  const md = gateMarkdown(run, results, warnings, failure);
  writeFileAtomic(join(dir, 'junit.xml'), gateJUnit(run, results, failure));
  writeFileAtomic(join(dir, 'gate.md'), md);
  const summaryFile = process.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) appendFileSync(summaryFile, `${md}\n`);
  return md;
}

/**
 * `memeval gate [RUN] [--baseline RUN] [--config FILE]`. Exit 0 all gates
 * pass, 1 a gate failed, 2 bad input or usage, 3 the run itself failed.
 */
export async function gateCommand(argv: string[], loadConfigFn: LoadGateConfig = loadGateConfig): Promise<number> {
  const args = parseGateArgs(argv);
  if (!args) {
    say(process.stderr, USAGE);
    return 2;
  }
  try {
    const config = await loadConfigFn(args.config);
    const runDir = args.runArg ? runDirOf(args.runArg) : newestRunDir(config.out);
    if (!runDir) throw new InputError([{ file: config.out, line: 0, col: 0, message: 'no run directory with a run.json here; pass RUN' }]);
    const run = loadRun(runDir);
    const failure = runFailure(run);
    if (failure) {
      writeGateFiles(runDir, run, [], [], failure);
      say(process.stderr, `memeval gate: ${failure}`);
      return 3;
    }
    if (config.gates.length === 0) {
      say(process.stderr, 'memeval gate: no gates configured (add "gates:" to the config or pass --config FILE)');
      return 2;
    }
    const baselineRun = args.baseline ? loadRun(args.baseline) : undefined;
    const results = evaluateGates(run, config.gates, { baselineRun, baselineStrategy: config.baseline });
    const warnings = calibrationWarnings(run, config.gates, config, runDir);
    for (const w of warnings) say(process.stderr, `\n!!! ${w}\n`);
    say(process.stdout, writeGateFiles(runDir, run, results, warnings));
    return results.some((r) => r.status === 'fail') ? 1 : 0;
  } catch (err) {
    if (isInputError(err)) {
      say(process.stderr, err.message);
      return 2;
    }
    throw err;
  }
}
