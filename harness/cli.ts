// The `memeval` command line. Exit codes (harness/errors.ts): 0 ok, 2 bad input
// or usage, 3 the run could not measure (errors past max_errors, an unusable
// endpoint), 100 a gate failed, 130 interrupted (resumable); 1 is a crash.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfig, loadConfig, type SuiteConfig } from './config.js';
import { EXIT, isInputError } from './errors.js';
import { runSuite } from './run.js';
import { memevalVersion } from './run-info.js';
import { redact } from './secrets.js';
import { strategyNames, getStrategy } from '../strategies/registry.js';
import '../strategies/index.js';
import { diffCommand } from '../reports/diff.js';
import { gateCommand } from '../reports/gate.js';
import { calibrateCommand } from '../graders/calibrate.js';
import { importCommand } from './importers/index.js';
import { formatTable } from '../reports/table.js';
import { recordedConfig } from './run-info.js';
import { parseMaxErrors } from './verdict.js';
import type { MaxErrors } from './config.js';
import { writeReports } from '../reports/index.js';
import { loadRun, runDirOf } from '../reports/load.js';
import type { RunResult } from './types.js';

export { EXIT };

/** A usage or input problem: printed as one line, exit 2, no stack trace. */
export class UsageError extends Error {}

const HELP = `memeval — evaluate conversation-memory strategies

Usage:
  memeval run [--config FILE] [--datasets] [GLOB ...] [--strategies id,id] [--out DIR]
              [--model M] [--judge M] [--concurrency N] [--repeat N] [--agent direct|runner]
              [--no-cache] [--max-errors N|P%] [--gate] [--baseline RUN] [--resume RUN_DIR]
  memeval diff BASE_RUN CANDIDATE_RUN [--out DIR]
  memeval gate [RUN] [--baseline RUN] [--config FILE]
  memeval calibrate [--judge MODEL] [--data DIR] [--out DIR]
  memeval import locomo|longmemeval FILE.json --out DIR [--limit N]
  memeval report RUN_DIR        re-render a run's reports from its run.json
  memeval strategies            list strategies and their options

Models: offline (built-in extractive reader, no network), openai:<name>, <provider>:<name>.
Exit codes: 0 ok · 2 bad input or usage · 3 the run could not measure (errors past
--max-errors, default 0; bad key, unknown model or nothing listening) · 100 a gate
failed · 130 interrupted (resume with --resume) · 1 memeval itself crashed.`;

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
    throw new UsageError(`${(error as Error).message}\nRun "memeval --help" for usage.`);
  }
}

function baseConfig(flags: RunFlags): SuiteConfig {
  if (flags.config) {
    if (!existsSync(flags.config)) throw new UsageError(`${flags.config}: config file not found`);
    return loadConfig(flags.config);
  }
  const fallback = resolve('memeval.config.yaml');
  return existsSync(fallback) ? loadConfig(fallback) : defaultConfig(process.cwd());
}

/** Command-line flags override the config file. */
export function applyFlags(config: SuiteConfig, flags: RunFlags): SuiteConfig {
  const out: SuiteConfig = { ...config };
  if (flags.datasets?.length) {
    // Globs on the command line are relative to the working directory; `!glob` excludes.
    out.datasets = flags.datasets.map((g) => {
      const negated = g.startsWith('!');
      const path = relative(config.baseDir, resolve(negated ? g.slice(1) : g)) || '.';
      return negated ? `!${path}` : path;
    });
  }
  if (flags.out) out.out = resolve(flags.out);
  if (flags.model) out.model = flags.model;
  if (flags.judge) out.judge = flags.judge;
  out.concurrency = positiveInt('concurrency', flags.concurrency) ?? out.concurrency;
  out.repeat = positiveInt('repeat', flags.repeat) ?? out.repeat;
  if (flags.agent) {
    if (flags.agent !== 'direct' && flags.agent !== 'runner') throw new UsageError('--agent must be "direct" or "runner"');
    out.agent = flags.agent;
  }
  if (flags['no-cache']) out.cache = false;
  const maxErrors = maxErrorsFlag(flags['max-errors']);
  if (maxErrors) out.max_errors = maxErrors;
  return out;
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
function resumedConfig(dir: string, flags: RunFlags): { config: SuiteConfig; only: string[] } {
  const file = join(resolve(dir), 'run.json');
  if (!existsSync(file)) throw new UsageError(`${dir}: not a run directory (no run.json)`);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  const config = recordedConfig(saved.info, resolve(dir));
  const maxErrors = maxErrorsFlag(flags['max-errors']);
  if (maxErrors) config.max_errors = maxErrors;
  return { config, only: saved.info.strategies.map((s) => s.id) };
}

/** The gate step of `run --gate`: the run's own recorded gates, against --baseline or the config's baseline_run. */
function gateArgs(dir: string, flags: RunFlags): string[] {
  return [dir, ...(flags.baseline ? ['--baseline', flags.baseline] : [])];
}

async function runCommand(argv: string[]): Promise<number> {
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
  const resumed = flags.resume ? resumedConfig(flags.resume, flags) : undefined;
  const config = resumed ? resumed.config : applyFlags(baseConfig(flags), flags);
  const only = resumed?.only ?? flags.strategies?.split(',').map((s) => s.trim()).filter(Boolean);
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\nmemeval: stopping after the calls in flight (Ctrl-C again to quit now)…\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const outcome = await runSuite({ config, only, resumeDir: flags.resume, signal: controller.signal });
    if (outcome.interrupted) {
      process.stderr.write(
        `memeval: interrupted; finished work is saved. Resume with:\n  memeval run --resume ${outcome.dir}\n` +
          `(memeval report ${outcome.dir} renders what is finished so far)\n`,
      );
      return EXIT.interrupted;
    }
    process.stdout.write(formatTable(outcome.run));
    process.stdout.write(`\nreports: ${outcome.dir}\n  ${['report.html', 'summary.csv', 'probes.csv', 'turns.csv', 'run.json'].join('  ')}\n`);
    const { status, failure } = outcome.run.info;
    // The gate step also writes junit.xml and gate.md, and says itself why a run that could not measure cannot pass.
    if (flags.gate) return gateCommand(gateArgs(outcome.dir, flags));
    if (status !== 'complete') process.stderr.write(`\nmemeval: the run is ${status.toUpperCase()}. ${failure ?? ''}\n`);
    return status === 'complete' ? EXIT.ok : EXIT.runFailed;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Re-renders a run's reports from its run.json (after an upgrade, or for an interrupted run's partial results). */
async function reportCommand(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0].startsWith('-')) throw new UsageError('usage: memeval report RUN_DIR');
  const run = loadRun(argv[0]);
  const dir = runDirOf(argv[0]);
  const written = await writeReports(run, dir);
  if (run.info.status !== 'complete') process.stderr.write(`memeval: run ${run.info.runId} is ${run.info.status}; the reports show the work finished so far\n`);
  process.stdout.write(`${written.join('\n')}\n`);
  return EXIT.ok;
}

function strategiesCommand(): number {
  for (const name of strategyNames()) {
    const def = getStrategy(name);
    if (!def) continue;
    process.stdout.write(`${name} — ${def.doc}\n`);
    for (const [key, spec] of Object.entries(def.options)) {
      const dflt = spec.default === undefined ? '' : ` (default ${String(spec.default)})`;
      process.stdout.write(`    ${key}: ${spec.type}${spec.required ? ', required' : ''}${dflt} — ${spec.doc}\n`);
    }
  }
  return EXIT.ok;
}

const COMMANDS: Record<string, (argv: string[]) => Promise<number> | number> = {
  run: runCommand,
  diff: diffCommand,
  gate: (argv) => gateCommand(argv),
  calibrate: calibrateCommand,
  import: importCommand,
  report: reportCommand,
  strategies: strategiesCommand,
};

function reportError(error: unknown): number {
  if (isInputError(error)) {
    for (const line of error.message.split('\n')) process.stderr.write(`${redact(line)}\n`);
    return EXIT.badInput;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`memeval: ${redact(error.message)}\n`);
    return EXIT.badInput;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`memeval: ${redact(message)}\n`);
  if (process.env.MEMEVAL_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${redact(error.stack)}\n`);
  return EXIT.runFailed;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command ? EXIT.ok : EXIT.badInput;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${memevalVersion()}\n`);
    return EXIT.ok;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    process.stderr.write(`memeval: unknown command "${command}"\nRun "memeval --help" for usage.\n`);
    return EXIT.badInput;
  }
  try {
    return await handler(rest);
  } catch (error) {
    return reportError(error);
  }
}
