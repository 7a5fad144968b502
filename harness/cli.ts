// The `memeval` command line: reads argv first and loads only the command
// asked for, so `--version` and `--help` start at once. Exit codes are
// core/errors.ts's EXIT: 0 ok, 2 bad input or usage, 3 the run could not
// measure, 100 a gate failed, 130 / 143 interrupted by SIGINT / SIGTERM
// (resumable); 1 is a crash.
import { EXIT, UsageError, isInputError } from '../core/errors.js';
import { redact } from '../core/secrets.js';
import { HELP } from './help.js';
import { installSignalHandlers } from './signals.js';
import { memevalVersion } from '../core/package-root.js';

type Command = (argv: string[]) => Promise<number> | number;

/** One file per command, imported when it is asked for. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  diff: async () => (await import('./commands/diff.js')).diffCommand,
  // A bare reference would hand them `main`'s argv only; their optional second parameters are for tests.
  gate: async () => {
    const { gateCommand } = await import('./commands/gate.js');
    return (argv) => gateCommand(argv);
  },
  calibrate: async () => {
    const { calibrateCommand } = await import('./commands/calibrate.js');
    return (argv) => calibrateCommand(argv);
  },
  import: async () => (await import('./commands/import.js')).importCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  merge: async () => (await import('./commands/merge.js')).mergeCommand,
  plan: async () => (await import('./commands/plan.js')).planCommand,
  strategies: async () => (await import('./commands/strategies.js')).strategiesCommand,
};

/** What a file-system error on a path says, in words; these are problems with a path the user gave. */
const PATH_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'a part of this path is a file, not a folder',
  EEXIST: 'already exists as a file, where a folder is needed',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'on a read-only file system',
  ENAMETOOLONG: 'the path is too long',
};

/** `path: what is wrong` for a file-system error on a path, else undefined. */
function pathProblem(error: unknown): string | undefined {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== 'string' || typeof path !== 'string' || !(code in PATH_ERRORS)) return undefined;
  return `${path}: ${PATH_ERRORS[code]}`;
}

function reportError(error: unknown): number {
  const onPath = pathProblem(error);
  if (onPath) {
    process.stderr.write(`memeval: ${redact(onPath)}\n`);
    if (process.env.MEMEVAL_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${redact(error.stack)}\n`);
    return EXIT.badInput;
  }
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

/** Commands that print a help of their own for `--help`; the others print their lines of the main help. */
const OWN_HELP = new Set(['run', 'merge', 'import', 'plan']);

/** A command's usage lines of the main help (the line naming it and those continuing it). */
function commandHelp(command: string): string {
  const lines = HELP.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  memeval ${command}`));
  const usage = [lines[start]];
  for (let i = start + 1; i < lines.length && /^ {5,}\S/.test(lines[i]); i++) usage.push(lines[i]);
  return `Usage:\n${usage.join('\n')}\n\nRun "memeval --help" for every command, exit codes and models.`;
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
  installSignalHandlers();
  const load = COMMANDS[command];
  if (!load) {
    process.stderr.write(`memeval: unknown command "${command}"\nRun "memeval --help" for usage.\n`);
    return EXIT.badInput;
  }
  if (!OWN_HELP.has(command) && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return EXIT.ok;
  }
  try {
    return await (await load())(rest);
  } catch (error) {
    return reportError(error);
  }
}
