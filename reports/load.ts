// Reading run directories (run.json is checked against its schema) and
// writing report files atomically.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { InputError, positionOf, type Problem } from '../core/errors.js';
import { runInfoSchema, runResultSchema } from '../core/schema/run.js';
import type { RunInfo, RunResult } from '../core/types.js';

export const RUN_FILE = 'run.json';

/** Bad input about one file: a `file:line:col: reason` problem (line 0 = the whole file). */
export function inputError(file: string, message: string, line = 0, col = 0): InputError {
  return new InputError([{ file, line, col, message }]);
}

function runFilePath(pathOrDir: string): string {
  if (!existsSync(pathOrDir)) throw inputError(pathOrDir, 'no such run directory or run.json');
  if (statSync(pathOrDir).isDirectory()) {
    const file = join(pathOrDir, RUN_FILE);
    if (!existsSync(file)) throw inputError(file, `missing ${RUN_FILE} (not a run directory?)`);
    return file;
  }
  return pathOrDir;
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(msg);
    const at = pos ? positionOf(text, Number(pos[1])) : { line: 0, col: 0 };
    throw inputError(file, `invalid JSON (${msg})`, at.line, at.col);
  }
}

/** A run.json with hundreds of damaged records is one damaged file; the first problems say enough. */
const MAX_SHAPE_PROBLEMS = 20;

const JSON_KINDS: Record<string, string> = { string: 'text', number: 'a number', boolean: 'true or false', array: 'a list', object: 'an object' };

/** `"probes"`, `"probes[3].usage.inputTokens"`: where in run.json an issue is. */
function jsonPath(path: readonly PropertyKey[]): string {
  const text = path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? String(step) : `.${String(step)}`)).join('');
  return text === '' ? 'run.json' : `"${text}"`;
}

function shapeMessage(issue: z.core.$ZodIssue): string {
  const where = jsonPath(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return `${where} must be ${JSON_KINDS[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/** Problems with the shape of a run (whole-file problems: JSON has no positions worth showing per field). */
function shapeProblems(file: string, data: unknown): { run?: RunResult; problems: Problem[] } {
  const parsed = runResultSchema.safeParse(data);
  if (parsed.success) return { run: parsed.data, problems: [] };
  const issues = parsed.error.issues;
  const messages = issues.slice(0, MAX_SHAPE_PROBLEMS).map(shapeMessage);
  if (issues.length > MAX_SHAPE_PROBLEMS) messages.push(`${issues.length - MAX_SHAPE_PROBLEMS} more problems not shown`);
  return { problems: messages.map((message) => ({ file, line: 0, col: 0, message })) };
}

/** Loads a run from its directory or its run.json; bad or missing files are an input error. */
export function loadRun(pathOrDir: string): RunResult {
  const file = runFilePath(pathOrDir);
  const { run, problems } = shapeProblems(file, parseJson(file, readFileSync(file, 'utf8')));
  if (!run) throw new InputError(problems);
  return run;
}

/**
 * The `info` of a run directory's run.json, checked against its schema
 * without validating every record (resuming needs only the info, and a large
 * run's records take seconds to check).
 */
export function loadRunInfo(pathOrDir: string): RunInfo {
  const file = runFilePath(pathOrDir);
  const data = parseJson(file, readFileSync(file, 'utf8'));
  const parsed = runInfoSchema.safeParse((data as { info?: unknown } | null)?.info);
  if (parsed.success) return parsed.data;
  const messages = parsed.error.issues.slice(0, MAX_SHAPE_PROBLEMS).map((issue) => shapeMessage({ ...issue, path: ['info', ...issue.path] }));
  throw new InputError(messages.map((message) => ({ file, line: 0, col: 0, message })));
}

/** The directory a run lives in, given its directory or its run.json. */
export function runDirOf(pathOrDir: string): string {
  return existsSync(pathOrDir) && statSync(pathOrDir).isFile() ? dirname(pathOrDir) : pathOrDir;
}

/** The newest run directory (by name, which starts with a UTC timestamp) under `out` that holds a run.json. */
export function newestRunDir(out: string): string | undefined {
  if (!existsSync(out)) return undefined;
  const dirs = readdirSync(out, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(out, d.name, RUN_FILE)))
    .map((d) => d.name)
    .sort();
  const last = dirs[dirs.length - 1];
  return last === undefined ? undefined : join(out, last);
}

export { writeFileAtomic } from '../core/atomic.js';
