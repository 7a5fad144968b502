// `memeval gate [RUN] [--baseline RUN] [--config FILE]`: evaluates a run's
// gates (the ones recorded in its run.json unless --config names others),
// writes junit.xml and gate.md, and turns the verdict into an exit code.
import { appendFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, InputError, isInputError, type Problem } from '../../core/errors.js';
import { isRecord } from '../../core/record.js';
import { gateSchema } from '../../core/schema/gate.js';
import type { GateConfig, RunResult } from '../../core/types.js';
import { evaluateGates, runFailure, type GateOptions, type GateResult } from '../../reports/gate.js';
import { gateJUnit } from '../../reports/junit.js';
import { RUN_FILE, loadRun, newestRunDir, runDirOf, writeFileAtomic } from '../../reports/load.js';
import { gateMarkdown } from '../../reports/markdown.js';
import { loadConfig, loadConfigOrDefault, type SuiteConfig } from '../config.js';
import { recordedConfig } from '../run/run-info.js';
import { DEFAULT_CALIBRATION_OUT, hasCalibration } from '../datasets/calibration.js';

/** What `memeval gate` needs of a config: where runs are, the gates, and what they compare with. */
export type GateConfigSource = Pick<SuiteConfig, 'out' | 'gates' | 'baseline' | 'baseline_run'> & { baseDir?: string };
export type LoadGateConfig = (file: string | undefined) => GateConfigSource | Promise<GateConfigSource>;

/**
 * --config FILE, else ./memeval.config.yaml, else the built-in defaults (which
 * define no gates). A named file that cannot be read is bad input here (exit 2).
 */
const loadGateConfig: LoadGateConfig = (file) => (file ? loadConfig(file) : loadConfigOrDefault(undefined));

/** A gate as run.json records it; `where` is absent from runs written before it was recorded. */
const RECORDED_GATE = gateSchema.partial({ where: true });

/** The recorded gates, checked as the config checks them (run.json may be edited by hand). */
function recordedGates(value: unknown, runFile: string): GateConfig[] {
  if (value === undefined) return [];
  const whole = (message: string): Problem => ({ file: runFile, line: 0, col: 0, message });
  if (!Array.isArray(value)) throw new InputError([whole('info.config.gates must be a list')]);
  const problems: Problem[] = [];
  const gates = (value as unknown[]).map((g, i) => {
    const at = `info.config.gates[${i}]`;
    if (!isRecord(g) || typeof g.metric !== 'string' || typeof g.strategy !== 'string') {
      problems.push(whole(`${at} is not a gate (it needs "metric" and "strategy")`));
      return g as GateConfig;
    }
    // A threshold edited to null or text would be compared as one ("≥ min null" passed).
    const checked = RECORDED_GATE.safeParse(g);
    if (!checked.success) {
      for (const issue of checked.error.issues) problems.push(whole(`${at}${issue.path.map((k) => `.${String(k)}`).join('')}: ${issue.message}`));
    } else if (g.min === undefined && g.max === undefined && g.max_drop === undefined) {
      problems.push(whole(`${at} needs at least one of "min", "max" or "max_drop"`));
    }
    const where = typeof g.where === 'string' ? g.where : `${runFile} ${at}`;
    return { ...(g as GateConfig), where };
  });
  if (problems.length) throw new InputError(problems);
  return gates;
}

/** The gates, baseline strategy and baseline run a run was made with, from its run.json. */
function recordedGateConfig(run: RunResult, runDir: string): GateConfigSource {
  const dir = resolve(runDir);
  const config = recordedConfig(run.info, dir) as Partial<SuiteConfig>;
  const source: GateConfigSource = {
    out: typeof config.out === 'string' ? config.out : dirname(dir),
    gates: recordedGates(config.gates, join(dir, RUN_FILE)),
  };
  const baseline = typeof config.baseline === 'string' ? config.baseline : run.info.baseline;
  if (baseline !== undefined) source.baseline = baseline;
  if (typeof config.baseline_run === 'string') source.baseline_run = config.baseline_run;
  if (typeof config.baseDir === 'string') source.baseDir = config.baseDir;
  return source;
}

const USAGE = 'usage: memeval gate [RUN] [--baseline RUN] [--config FILE]';

function say(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

function calibrationWarnings(run: RunResult, gates: GateConfig[], config: GateConfigSource, runDir: string): string[] {
  if (!gates.some((g) => g.metric.startsWith('summary.judge.'))) return [];
  // Records are looked up where `memeval calibrate` writes them by default, and next to the runs.
  const dirs = [resolve(config.baseDir ?? '.', DEFAULT_CALIBRATION_OUT), resolve(DEFAULT_CALIBRATION_OUT), config.out, dirname(resolve(runDir))];
  if (dirs.some((d) => hasCalibration(run.info.judge, d))) return [];
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
 * The baseline run for `vs: baseline-run` gates: `--baseline` (which must
 * exist) beats the config's `baseline_run:` (which may not exist yet, e.g.
 * before a first run is kept; its gates then fail, or skip when optional).
 */
function baselineOptions(args: GateArgs, config: GateConfigSource): Pick<GateOptions, 'baselineRun' | 'noBaselineRun'> {
  if (!config.gates.some((g) => g.vs === 'baseline-run')) return {};
  if (args.baseline) return { baselineRun: loadRun(args.baseline) };
  const configured = config.baseline_run;
  if (configured === undefined) return {};
  if (!existsSync(configured)) return { noBaselineRun: `baseline_run ${configured} does not exist` };
  return { baselineRun: loadRun(configured) };
}

/** The config that names the runs folder (when RUN is not given) or the gates (with --config). */
async function fileConfig(args: GateArgs, loadConfigFn: LoadGateConfig): Promise<GateConfigSource | undefined> {
  return args.config !== undefined || args.runArg === undefined ? loadConfigFn(args.config) : undefined;
}

async function gateRun(args: GateArgs, loadConfigFn: LoadGateConfig): Promise<number> {
  const fromFile = await fileConfig(args, loadConfigFn);
  const runDir = args.runArg ? runDirOf(args.runArg) : newestRunDir(fromFile?.out ?? '.');
  if (!runDir) throw new InputError([{ file: fromFile?.out ?? '.', line: 0, col: 0, message: 'no run directory with a run.json here; pass RUN' }]);
  const run = loadRun(runDir);
  const failure = runFailure(run);
  if (failure) {
    writeGateFiles(runDir, run, [], [], failure);
    say(process.stderr, `memeval gate: ${failure}`);
    return EXIT.runFailed;
  }
  // The gates the run was made with, unless --config names others.
  const config = args.config !== undefined && fromFile ? fromFile : recordedGateConfig(run, runDir);
  if (config.gates.length === 0) {
    const where = args.config !== undefined ? `${args.config} has no "gates:"` : `run ${run.info.runId} was made with no gates`;
    say(process.stderr, `memeval gate: ${where} (add "gates:" to the config or pass --config FILE)`);
    return EXIT.badInput;
  }
  const results = evaluateGates(run, config.gates, { ...baselineOptions(args, config), baselineStrategy: config.baseline });
  const warnings = calibrationWarnings(run, config.gates, config, runDir);
  for (const w of warnings) say(process.stderr, `\n!!! ${w}\n`);
  say(process.stdout, writeGateFiles(runDir, run, results, warnings));
  return results.some((r) => r.status === 'fail') ? EXIT.gateFailed : EXIT.ok;
}

/**
 * `memeval gate [RUN] [--baseline RUN] [--config FILE]`: the gates recorded in
 * RUN's run.json (or those of --config FILE). Exit 0 every gate passed, 100 a
 * gate failed or could not be evaluated, 2 bad input or usage, 3 the run is
 * not complete. `loadConfigFn` reads --config (and, without RUN, the config
 * whose `out:` holds the newest run).
 */
export async function gateCommand(argv: string[], loadConfigFn: LoadGateConfig = loadGateConfig): Promise<number> {
  const args = parseGateArgs(argv);
  if (!args) {
    say(process.stderr, USAGE);
    return EXIT.badInput;
  }
  try {
    return await gateRun(args, loadConfigFn);
  } catch (err) {
    if (isInputError(err)) {
      say(process.stderr, err.message);
      return EXIT.badInput;
    }
    throw err;
  }
}
