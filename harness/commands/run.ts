// `memeval run`: loads the config (flags override it), runs the suite, prints
// the table, and exits by the run's own verdict (or the gate's with --gate).
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError, didYouMean, quote } from '../../core/errors.js';
import { modelNameProblem } from '../schema/config.js';
import type { RunInfo } from '../../core/types.js';
import { formatTable } from '../../reports/table.js';
import { loadConfigOrDefault, type MaxErrors, type SuiteConfig } from '../config.js';
import { resumableRun, runSuite } from '../run/run.js';
import { recordedConfig } from '../run/run-info.js';
import { parseMaxErrors } from '../run/verdict.js';
import { gateCommand } from './gate.js';
import { HELP } from '../help.js';
import { SIGNAL_EXIT, stopOnSignals } from '../signals.js';
import { DEFAULT_LIMITS, overLimit } from '../schema/limits.js';
import { writableDirProblem } from '../schema/files.js';
import { parseShard, type ShardSpec } from '../run/shards.js';
import type { BatchSettings } from '../run/batch.js';

const RUN_OPTIONS = {
  config: { type: 'string' },
  datasets: { type: 'string', multiple: true },
  strategies: { type: 'string' },
  out: { type: 'string' },
  model: { type: 'string' },
  judge: { type: 'string' },
  concurrency: { type: 'string' },
  repeat: { type: 'string' },
  agent: { type: 'string' },
  'no-cache': { type: 'boolean' },
  gate: { type: 'boolean' },
  baseline: { type: 'string' },
  'max-errors': { type: 'string' },
  resume: { type: 'string' },
  shard: { type: 'string' },
  batch: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number ≥ 1 (got "${value}")`);
  return n;
}

type RunFlags = ReturnType<typeof parseRunFlags>;

/** `--datasets a b c` (what a shell makes of an unquoted glob) and bare globs both name transcripts. */
function parseRunFlags(argv: string[]) {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: true, strict: true });
    if (positionals.length) values.datasets = [...(values.datasets ?? []), ...positionals];
    return values;
  } catch (error) {
    // "Unknown option '--strategie'": the flag meant, when one is close.
    const unknown = /Unknown option '--([^']+)'/.exec((error as Error).message)?.[1];
    const guess = unknown === undefined ? undefined : didYouMean(unknown, Object.keys(RUN_OPTIONS));
    const hint = guess ? ` (did you mean --${guess}?)` : '';
    throw new UsageError(`${(error as Error).message}${hint}\nRun "memeval --help" for usage.`);
  }
}

/** Command-line flags override the config file. */
function applyFlags(config: SuiteConfig, flags: RunFlags): SuiteConfig {
  const out: SuiteConfig = { ...config };
  if (flags.datasets?.length) {
    // Globs on the command line are relative to the working directory; `!glob` excludes.
    out.datasets = flags.datasets.map((g) => {
      const negated = g.startsWith('!');
      const path = relative(config.baseDir, resolve(negated ? g.slice(1) : g)) || '.';
      return negated ? `!${path}` : path;
    });
  }
  if (flags.out) {
    // Checked now, like the config's `out:`: a file in the way must not fail the run after its work.
    const problem = writableDirProblem(resolve(flags.out));
    if (problem) throw new UsageError(`--out ${flags.out} ${problem}`);
    out.out = resolve(flags.out);
  }
  // Checked as the config's own names are: `--model offlin` would otherwise be sent to OpenAI as a model name.
  const providers = new Set(['openai', ...Object.keys(config.providers ?? {})]);
  for (const flag of ['model', 'judge'] as const) {
    const name = flags[flag];
    if (name === undefined) continue;
    const problem = modelNameProblem(name, providers);
    if (problem) throw new UsageError(`--${flag} ${quote(name)} ${problem}`);
    out[flag] = name;
  }
  out.concurrency = positiveInt('concurrency', flags.concurrency) ?? out.concurrency;
  out.repeat = positiveInt('repeat', flags.repeat) ?? out.repeat;
  // The flags share the config's bounds (`limits:`), so a typo cannot start a billion repeats.
  const limits = config.limits ?? DEFAULT_LIMITS;
  for (const [flag, name, value] of [['repeat', 'max_repeat', out.repeat], ['concurrency', 'max_concurrency', out.concurrency]] as const) {
    const over = overLimit(value, name, limits);
    if (over) throw new UsageError(`--${flag} must be ${over}, not ${value}`);
  }
  if (flags.agent) {
    if (flags.agent !== 'direct' && flags.agent !== 'runner') throw new UsageError('--agent must be "direct" or "runner"');
    out.agent = flags.agent;
  }
  if (flags['no-cache']) out.cache = false;
  const maxErrors = maxErrorsFlag(flags['max-errors']);
  if (maxErrors) out.max_errors = maxErrors;
  return out;
}

/** `--strategies a,b`; one that names none (an empty CI variable) is refused rather than read as "all". */
function strategiesFlag(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new UsageError(`--strategies ${quote(value)} names no strategy (leave the flag out to run them all)`);
  return ids;
}

function maxErrorsFlag(value: string | undefined): MaxErrors | undefined {
  if (value === undefined) return undefined;
  const parsed = parseMaxErrors(value);
  if (!parsed) throw new UsageError(`--max-errors must be a whole number ≥ 0 or a percentage such as 2% (got "${value}")`);
  return parsed;
}

/**
 * A resumed run uses the config it started with, whatever the file says now;
 * only `--max-errors` may be given again (to accept a known level of errors).
 */
/** The folder part of a glob before its first wildcard (`datasets/cookbook` of `datasets/cookbook/*.yaml`). */
function globFolder(pattern: string): string {
  const parts = pattern.split('/');
  const at = parts.findIndex((p) => /[*?[{]/.test(p));
  return (at < 0 ? parts.slice(0, -1) : parts.slice(0, at)).join('/') || '.';
}

/**
 * A run records where its project is relative to its own directory (run.json holds no absolute
 * path): moved elsewhere, it would look for the transcripts in the wrong place, and the error
 * would only say that no file matches.
 */
function refuseMovedRun(dir: string, config: SuiteConfig): void {
  const missing = config.datasets.filter((g) => !g.startsWith('!')).map((g) => resolve(config.baseDir, globFolder(g))).filter((folder) => !existsSync(folder));
  if (missing.length === 0) return;
  throw new UsageError(
    `${dir}: the run reads its transcripts from ${missing[0]}, which is not there: run.json places the project relative to the run directory, so a run directory moved away from its project (a CI artifact downloaded elsewhere) cannot find them. Put the run directory back under the project's ${'`out`'} folder, or start a new run`,
  );
}

/** Flags that would change what a run measures: a resumed run goes on as it started, so they are refused, not dropped. */
const FIXED_ON_RESUME = ['config', 'datasets', 'strategies', 'out', 'model', 'judge', 'repeat', 'agent', 'no-cache'] as const;

function resumedConfig(dir: string, flags: RunFlags): { config: SuiteConfig; only: string[]; info: RunInfo } {
  const fixed = FIXED_ON_RESUME.filter((name) => flags[name] !== undefined && !(Array.isArray(flags[name]) && flags[name].length === 0));
  if (fixed.length > 0) {
    const named = fixed.map((name) => `--${name}`).join(', ');
    throw new UsageError(`--resume goes on with the config, data and models the run started with; leave out ${named} (start a new run to change them)`);
  }
  const info = resumableRun(dir);
  const config = recordedConfig(info, resolve(dir));
  refuseMovedRun(dir, config);
  const maxErrors = maxErrorsFlag(flags['max-errors']);
  if (maxErrors) config.max_errors = maxErrors;
  // How many calls run at once changes no result: a resumed run may go slower or faster.
  const concurrency = positiveInt('concurrency', flags.concurrency);
  const over = concurrency === undefined ? undefined : overLimit(concurrency, 'max_concurrency', config.limits ?? DEFAULT_LIMITS);
  if (over) throw new UsageError(`--concurrency must be ${over}, not ${concurrency}`);
  if (concurrency !== undefined) config.concurrency = concurrency;
  // A resumed shard stays the shard it was: runSuite reads that from `info`.
  return { config, only: info.strategies.map((s) => s.id), info };
}

/**
 * `--batch`: the settings of its polls. MEMEVAL_BATCH_POLL_MS sets the first
 * wait between polls of a batch (default 5 s, doubling up to 60 s); a test
 * against a local server sets it low.
 */
function batchSettings(flags: RunFlags, resumed: RunInfo | undefined, env: NodeJS.ProcessEnv = process.env): BatchSettings | undefined {
  if (!flags.batch && !resumed?.batch) return undefined;
  const first = env.MEMEVAL_BATCH_POLL_MS;
  if (first === undefined) return {};
  const ms = Number(first);
  if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`MEMEVAL_BATCH_POLL_MS must be a number of milliseconds > 0 (got "${first}")`);
  return { firstPollMs: ms, maxPollMs: Math.max(ms, 60_000) };
}

/** `--shard i/n`, checked against the flags it cannot go with. */
function shardFlag(flags: RunFlags): ShardSpec | undefined {
  if (flags.shard === undefined) return undefined;
  // A shard holds part of the jobs: a gate on it would pass or fail on part of the data.
  if (flags.gate) throw new UsageError('--shard runs part of the jobs, which a gate must not judge: merge the shards (memeval merge), then run memeval gate on the merged run');
  if (flags.resume) throw new UsageError('--resume resumes a shard as the shard it was started as; leave out --shard');
  return parseShard(flags.shard);
}

/** The gate step of `run --gate`: the run's own recorded gates, against --baseline or the config's baseline_run. */
function gateArgs(dir: string, flags: RunFlags): string[] {
  return [dir, ...(flags.baseline ? ['--baseline', flags.baseline] : [])];
}

export async function runCommand(argv: string[]): Promise<number> {
  const flags = parseRunFlags(argv);
  if (flags.help) {
    process.stdout.write(`${HELP}\n`);
    return EXIT.ok;
  }
  if (flags.baseline && !flags.gate) throw new UsageError('--baseline names the run that `--gate` compares with; add --gate');
  // Checked before the run, not after it: a missing baseline must not cost a whole run first.
  if (flags.baseline && !existsSync(join(resolve(flags.baseline), 'run.json'))) {
    throw new UsageError(`--baseline ${flags.baseline}: not a run directory (no run.json), so relative gates would have nothing to compare with`);
  }
  const shard = shardFlag(flags);
  if (flags.batch && flags.resume) throw new UsageError('--resume goes on as the run started (a --batch run resumes in batch mode); leave out --batch');

  const resumed = flags.resume ? resumedConfig(flags.resume, flags) : undefined;
  const batch = batchSettings(flags, resumed?.info);
  const config = resumed ? resumed.config : applyFlags(loadConfigOrDefault(flags.config), flags);
  const only = resumed?.only ?? strategiesFlag(flags.strategies);
  const stopper = stopOnSignals();
  try {
    const outcome = await runSuite({ config, only, resumeDir: flags.resume, resumeInfo: resumed?.info, signal: stopper.signal, shard, batch });
    if (outcome.interrupted) {
      process.stderr.write(
        `memeval: interrupted; finished work is saved. Resume with:\n  memeval run --resume ${outcome.dir}\n` +
          `(memeval report ${outcome.dir} renders what is finished so far)\n`,
      );
      return SIGNAL_EXIT[stopper.received() ?? 'SIGINT'];
    }
    process.stdout.write(formatTable(outcome.run));
    process.stdout.write(`\nreports: ${outcome.dir}\n  ${['report.html', 'summary.csv', 'probes.csv', 'turns.csv', 'run.json'].join('  ')}\n`);
    const part = outcome.run.info.shard;
    if (part) process.stdout.write(`this is shard ${part.index} of ${part.count} (${part.jobs.length} jobs); once every shard is done: memeval merge SHARD_DIR…\n`);
    const redacted = outcome.run.info.redactions?.total ?? 0;
    if (redacted) process.stdout.write(`${redacted} secret-like values were redacted from what the run wrote (report.html lists them by kind)\n`);
    const { status, failure } = outcome.run.info;
    // The gate step also writes junit.xml and gate.md, and says itself why a run that could not measure cannot pass.
    if (flags.gate) return gateCommand(gateArgs(outcome.dir, flags));
    if (status !== 'complete') process.stderr.write(`\nmemeval: the run is ${status.toUpperCase()}. ${failure ?? ''}\n`);
    return status === 'complete' ? EXIT.ok : EXIT.runFailed;
  } finally {
    stopper.dispose();
  }
}
