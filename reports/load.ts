// Reading run directories and writing report files atomically.
import { existsSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { InputError, positionOf, type Problem } from '../core/errors.js';
import type { RunResult } from '../core/types.js';

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

function shapeProblems(file: string, data: unknown): Problem[] {
  const whole = (message: string): Problem => ({ file, line: 0, col: 0, message });
  if (typeof data !== 'object' || data === null) return [whole('run.json must hold an object')];
  const run = data as Record<string, unknown>;
  const problems: Problem[] = [];
  const info = run.info as Record<string, unknown> | undefined;
  if (typeof info !== 'object' || info === null) problems.push(whole('missing "info"'));
  else {
    if (typeof info.runId !== 'string') problems.push(whole('info.runId must be a string'));
    if (typeof info.model !== 'string') problems.push(whole('info.model must be a string'));
    if (!Array.isArray(info.strategies)) problems.push(whole('info.strategies must be a list'));
  }
  for (const key of ['turns', 'probes', 'summaries']) {
    if (!Array.isArray(run[key])) problems.push(whole(`"${key}" must be a list`));
  }
  return problems;
}

/** Loads a run from its directory or its run.json; bad or missing files are an input error. */
export function loadRun(pathOrDir: string): RunResult {
  const file = runFilePath(pathOrDir);
  const data = parseJson(file, readFileSync(file, 'utf8'));
  const problems = shapeProblems(file, data);
  if (problems.length) throw new InputError(problems);
  const run = data as RunResult;
  // Older or partial runs may lack optional lists inside info.
  run.info.transcripts ??= [];
  run.info.config ??= {};
  run.info.repeat ??= 1;
  return run;
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
