// Reading run directories (run.json is checked against its schema) and
// writing report files atomically. run.json is read a line at a time: a large
// run's file is longer than the longest string V8 can hold.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { readContexts } from '../core/contexts.js';
import { jsonValueOffset } from '../core/json-where.js';
import { InputError, positionOf, type Problem } from '../core/errors.js';
import { LineError, readLines } from '../core/lines.js';
import {
  entryRecords,
  migrateTurns,
  probeRecordSchema,
  probeTables,
  runInfoSchema,
  runResultSchema,
  summaryRecordSchema,
  tableProbes,
  tableTurns,
  turnRecordInputSchema,
  turnTables,
  type TableReader,
} from '../core/schema/run.js';
import type { RunInfo, RunResult } from '../core/types.js';

export const RUN_FILE = 'run.json';

/** Bad input about one file: a `file:line:col: reason` problem (line 0 = the whole file). */
export function inputError(file: string, message: string, line = 0, col = 0): InputError {
  return new InputError([{ file, line, col, message }]);
}

/** A run's run.json, given its directory or the file; a missing one is bad input. */
export function runFilePath(pathOrDir: string): string {
  if (!existsSync(pathOrDir)) throw inputError(pathOrDir, 'no such run directory or run.json');
  if (statSync(pathOrDir).isDirectory()) {
    const file = join(pathOrDir, RUN_FILE);
    if (!existsSync(file)) throw inputError(file, `missing ${RUN_FILE} (not a run directory?)`);
    return file;
  }
  return pathOrDir;
}

/** JSON.parse's complaint and, when it names one, the offset it points at. */
function syntaxError(err: unknown): { message: string; offset?: number } {
  const msg = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(msg);
  return { message: `invalid JSON (${msg})`, offset: pos ? Number(pos[1]) : undefined };
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const { message, offset } = syntaxError(err);
    const at = offset === undefined ? { line: 0, col: 0 } : positionOf(text, offset);
    throw inputError(file, message, at.line, at.col);
  }
}

/** A line reader's complaint (invalid UTF-8) as bad input at that line; any other error as it is. */
function lineProblem(file: string, err: unknown): unknown {
  return err instanceof LineError ? inputError(file, err.message, err.line, 1) : err;
}

/** The whole file as one string: only for files under WHOLE_FILE_LIMIT. Invalid UTF-8 is bad input at its line. */
function readWholeText(file: string): string {
  const bytes = readFileSync(file);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    try {
      for (const _ of readLines(file)); // throws at the first line that is not UTF-8
    } catch (err) {
      throw lineProblem(file, err);
    }
    throw inputError(file, 'not valid UTF-8');
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

/** Problems with the shape of a run read whole (whole-file problems: JSON.parse keeps no positions). */
function shapeProblems(file: string, data: unknown): { run?: RunResult; problems: Problem[] } {
  const parsed = runResultSchema.safeParse(data);
  if (parsed.success) return { run: parsed.data, problems: [] };
  const issues = parsed.error.issues;
  const messages = issues.slice(0, MAX_SHAPE_PROBLEMS).map(shapeMessage);
  if (issues.length > MAX_SHAPE_PROBLEMS) messages.push(`${issues.length - MAX_SHAPE_PROBLEMS} more problems not shown`);
  return { problems: messages.map((message) => ({ file, line: 0, col: 0, message })) };
}

/** The old way, for run.json files in another layout (pretty-printed by a tool, or as a run starts): small enough to be one string. */
function wholeRun(file: string, data: unknown): RunResult {
  const { run, problems } = shapeProblems(file, data);
  if (!run) throw new InputError(problems);
  return run;
}

function wholeInfo(file: string, data: unknown): RunInfo {
  const parsed = runInfoSchema.safeParse((data as { info?: unknown } | null)?.info);
  if (parsed.success) return parsed.data;
  const messages = parsed.error.issues.slice(0, MAX_SHAPE_PROBLEMS).map((issue) => shapeMessage({ ...issue, path: ['info', ...issue.path] }));
  throw new InputError(messages.map((message) => ({ file, line: 0, col: 0, message })));
}

/** run.json in the layout below, piece by piece: a large run never builds it as one string. */
export function* runJsonChunks(run: RunResult): Generator<string> {
  yield `{"info":${JSON.stringify(run.info, null, 1)}`;
  for (const key of ['turns', 'probes', 'summaries'] as const) {
    yield `,\n"${key}":[`;
    let first = true;
    // Turn and probe records as tables per job (core/schema/run.ts jobTableSchema); earlier runs wrote a record per line.
    const records: Iterable<object> = key === 'turns' ? turnTables(run.turns) : key === 'probes' ? probeTables(run.probes) : run[key];
    for (const record of records) {
      yield `${first ? '\n' : ',\n'}${JSON.stringify(record)}`;
      first = false;
    }
    yield ']';
  }
  yield '}\n';
}

// run.json as runJsonChunks writes it, one record per line:
//
//   {"info":{                 the info, pretty-printed over several lines
//    ...
//   },
//   "turns":[                 a section; an empty one is `"turns":[],`
//   {...},                    a record
//   {...}],                   the section's last record
//   "probes":[
//   ...
//   {...}]}                   the last record of the last section
//
// Such a file is read a line at a time, whatever its size; any other layout
// is read whole, which JSON.parse can do only below V8's longest string.

/** Larger run.json files are read only in the layout above. */
const WHOLE_FILE_LIMIT = 256 * 1024 * 1024;
/** An info larger than this is not the one a run writes (a one-line JSON run.json reads as one long "info" line). */
const MAX_INFO_CHARS = 64 * 1024 * 1024;
const INFO_START = '{"info":';
const SECTION_LINE = /^"(turns|probes|summaries)":\[(|\],|\]\})$/;

type Section = 'turns' | 'probes' | 'summaries';
type Records = Pick<RunResult, Section>;

/** Each section's record, and how a table of them becomes checked records (the sections written as tables). */
const SECTION_READERS: Record<Section, { record: z.ZodType; table?: TableReader<unknown> }> = {
  // Either shape of turn record; migrateTurns makes them one once all are read.
  turns: { record: turnRecordInputSchema, table: tableTurns },
  probes: { record: probeRecordSchema, table: tableProbes },
  summaries: { record: summaryRecordSchema },
};

/** The file is not in the layout (`line`: where that shows). */
class OtherLayout {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {}
}

/** The first MAX_SHAPE_PROBLEMS problems in file order, and how many more there were. */
class Problems {
  readonly shown: Problem[] = [];
  private hidden = 0;
  private firstHidden: Problem | undefined;
  /** Some line is not valid JSON (not just a record of the wrong shape). */
  syntax = false;

  constructor(private readonly file: string) {}

  add(line: number, col: number, message: string): void {
    const problem = { file: this.file, line, col, message };
    if (this.shown.length < MAX_SHAPE_PROBLEMS) this.shown.push(problem);
    else if (this.hidden++ === 0) this.firstHidden = problem;
  }

  shape(line: number, prefix: PropertyKey[], issues: readonly z.core.$ZodIssue[]): void {
    for (const issue of issues) this.add(line, line > 0 ? 1 : 0, shapeMessage({ ...issue, path: [...prefix, ...issue.path] }));
  }

  get count(): number {
    return this.shown.length + this.hidden;
  }

  /** The problems to report; the count of the rest is placed where they start, so it sorts after the ones shown. */
  list(): Problem[] {
    if (!this.firstHidden) return this.shown;
    return [...this.shown, { ...this.firstHidden, message: `${this.hidden} more problems not shown` }];
  }
}


interface LayoutRead {
  /** Checked against its schema; undefined when there are problems. */
  info?: RunInfo;
  records: Records;
  problems: Problems;
}

/** Parses the info once its lines are read (`text`: what follows `{"info":` up to the section line). */
function readInfo(text: string, problems: Problems): RunInfo | undefined {
  const body = text.trimEnd().slice(0, -1); // the `,` before the first section
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (err) {
    const { message, offset } = syntaxError(err);
    const at = offset === undefined ? { line: 1, col: 1 } : positionOf(body, offset);
    problems.add(at.line, at.line === 1 ? at.col + INFO_START.length : at.col, message);
    problems.syntax = true;
    return undefined;
  }
  const parsed = runResultSchema.shape.info.safeParse(data);
  if (parsed.success) return parsed.data;
  // Each problem at the value it is about (or the nearest one the file has), as a record's is at its line.
  for (const issue of parsed.error.issues) {
    const at = positionOf(body, jsonValueOffset(body, issue.path));
    problems.add(at.line, at.line === 1 ? at.col + INFO_START.length : at.col, shapeMessage({ ...issue, path: ['info', ...issue.path] }));
  }
  return undefined;
}

/**
 * Reads run.json in the layout writeRunJson writes, a line at a time;
 * `withRecords: false` stops at the end of the info. OtherLayout when the file
 * is not in that layout: nothing is then reported, it may be valid JSON.
 */
function readLayout(file: string, withRecords: boolean): LayoutRead | OtherLayout {
  const problems = new Problems(file);
  const records: Records = { turns: [], probes: [], summaries: [] };
  let info: RunInfo | undefined;
  let infoText = '';
  let state: 'info' | 'section' | 'record' | 'end' = 'info';
  let section: Section = 'turns';
  const counts: Record<Section, number> = { turns: 0, probes: 0, summaries: 0 };
  const seen = new Set<Section>();
  let last = 0;
  try {
    for (const { text, line } of readLines(file)) {
      last = line;
      if (state === 'info') {
        if (line === 1) {
          if (!text.startsWith(INFO_START)) return new OtherLayout(1, `the first line does not start with ${INFO_START}`);
          infoText = text.slice(INFO_START.length);
          continue;
        }
        if (!SECTION_LINE.test(text)) {
          infoText += `\n${text}`;
          if (infoText.length > MAX_INFO_CHARS) return new OtherLayout(line, 'no "turns":[ line after the info');
          continue;
        }
        if (!infoText.trimEnd().endsWith(',')) return new OtherLayout(line - 1, 'no "," before the "turns":[ line');
        info = readInfo(infoText, problems);
        infoText = '';
        state = 'section';
        if (!withRecords) break;
      }
      if (state === 'section') {
        const match = SECTION_LINE.exec(text);
        const key = match?.[1] as Section | undefined;
        if (!match || !key || seen.has(key)) return new OtherLayout(line, 'a "turns":[, "probes":[ or "summaries":[ line was expected');
        seen.add(key);
        section = key;
        state = match[2] === '' ? 'record' : match[2] === '],' ? 'section' : 'end';
        continue;
      }
      if (state === 'end') {
        if (text.trim() === '') continue;
        return new OtherLayout(line, 'there is more after the closing "]}"');
      }
      // A record: `{...}` and `,` (more follow), `],` (last of its section) or `]}` (last of the file).
      if (!text.startsWith('{')) return new OtherLayout(line, 'a record line was expected');
      const end = text.endsWith('],') ? '],' : text.endsWith(']}') ? ']}' : text.endsWith(',') ? ',' : '';
      const index = counts[section]++;
      let data: unknown;
      try {
        data = JSON.parse(end === '' ? text : text.slice(0, -end.length));
      } catch (err) {
        const { message, offset } = syntaxError(err);
        problems.add(line, offset === undefined ? 1 : offset + 1, message);
        problems.syntax = true;
        if (end === ']}') state = 'end';
        else if (end === '],') state = 'section';
        continue;
      }
      if (end === '') return new OtherLayout(line, 'a record line does not end with "," or "]"');
      state = end === ',' ? 'record' : end === '],' ? 'section' : 'end';
      // A job's records as a table (each row checked as the record it stands for), or one record.
      const { record, table } = SECTION_READERS[section];
      (records[section] as unknown[]).push(...entryRecords(data, record, table, (at, issues) => problems.shape(line, [section, index, ...at], issues)));
    }
  } catch (err) {
    if (err instanceof LineError && err.kind === 'too-long') return new OtherLayout(err.line, err.message);
    throw lineProblem(file, err);
  }
  if (state === 'info') return new OtherLayout(last, 'no "turns":[ line after the info');
  if (withRecords && (state !== 'end' || seen.size < 3)) {
    if (problems.count === 0) return new OtherLayout(last, 'the file ends before "turns", "probes" and "summaries" are closed');
    problems.add(last, 1, 'the file ends before "turns", "probes" and "summaries" are closed (a torn file?)');
  }
  return { info, records, problems };
}

/** run.json parsed as one JSON text, not yet checked against its schema. */
interface WholeRead {
  whole: unknown;
}

/**
 * run.json read a line at a time, or read whole when it is in another layout
 * and small enough to be one string (then it may be any valid JSON).
 */
function readRunJson(file: string, withRecords: boolean): LayoutRead | WholeRead {
  const size = statSync(file).size;
  const small = size <= WHOLE_FILE_LIMIT;
  const read = readLayout(file, withRecords);
  if (read instanceof OtherLayout) {
    if (small) return { whole: parseJson(file, readWholeText(file)) };
    const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;
    throw inputError(
      file,
      `not in the layout memeval writes run.json in (one record per line: ${read.reason}), and at ${mib(size)} too large to read as one JSON text (the limit is ${mib(WHOLE_FILE_LIMIT)})`,
      read.line,
      1,
    );
  }
  // Lines that are not JSON on their own may still be valid JSON together, in a layout that only looks like ours.
  const whole = read.problems.syntax && small ? parsedWhole(file) : undefined;
  return whole ?? read;
}

/** The file parsed whole, or undefined when it is not one JSON text (the lines' problems then stand). */
function parsedWhole(file: string): WholeRead | undefined {
  try {
    return { whole: JSON.parse(readWholeText(file)) };
  } catch {
    return undefined;
  }
}

/** Loads a run from its directory or its run.json; bad or missing files are an input error. */
export function loadRun(pathOrDir: string): RunResult {
  const file = runFilePath(pathOrDir);
  // The contexts its probe records name, read only if a report needs them.
  return { ...loadRecords(file), contexts: readContexts(dirname(file)) };
}

function loadRecords(file: string): RunResult {
  const read = readRunJson(file, true);
  if ('whole' in read) return wholeRun(file, read.whole);
  if (read.problems.count > 0 || !read.info) throw new InputError(read.problems.list());
  return { info: read.info, ...read.records, turns: migrateTurns(read.records.turns) };
}

/**
 * The `info` of a run directory's run.json, checked against its schema
 * without reading its records (resuming needs only the info, and a large
 * run's records take seconds to read and check).
 */
export function loadRunInfo(pathOrDir: string): RunInfo {
  const file = runFilePath(pathOrDir);
  const read = readRunJson(file, false);
  if ('whole' in read) return wholeInfo(file, read.whole);
  if (read.problems.count > 0 || !read.info) throw new InputError(read.problems.list());
  return read.info;
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
