// Loads transcripts (docs/transcript-format.md is the contract; the schema is
// harness/schema/transcript.ts) and whole
// suites. Every problem of every file is collected, then thrown once as an
// InputError, so a user fixes a dataset in one pass.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { InputError, fileProblem, problemAtPlace, quote, type Problem } from '../../core/errors.js';
import type { Transcript } from '../../core/types.js';
import { readTextFile, type TextRead } from '../schema/files.js';
import { readYaml } from '../schema/issues.js';
import { DEFAULT_LIMITS, limitHint, type Limits } from '../schema/limits.js';
import { TRANSCRIPT_FORMAT, transcriptSchema } from '../schema/transcript.js';
import { conversationFacts, defaultTranscriptId, dropUndefined, factsOf } from '../schema/turns.js';

/** A parsed transcript plus where its id came from, for cross-file duplicate messages. */
interface ReadResult {
  transcript?: Transcript;
  problems: Problem[];
  /** `file:line:col` of the id; a function, since placing it needs the document, which only a duplicate id does. */
  idWhere: () => string;
}

/**
 * Parses one transcript; throws InputError listing every problem in it.
 * `limits` (the suite config's) bound the keys of its mappings and its number of values.
 */
export function parseTranscript(text: string, file: string, limits: Readonly<Limits> = DEFAULT_LIMITS): Transcript {
  const result = readTranscript(text, file, limits);
  if (!result.transcript || result.problems.length > 0) throw new InputError(result.problems);
  return result.transcript;
}

/** Reads a transcript file: its size is checked before it is read, and it must be UTF-8. */
export function loadTranscriptFile(path: string, limits: Readonly<Limits> = DEFAULT_LIMITS): Transcript {
  const read = readTranscriptText(path, path, limits);
  if (!read.ok) throw new InputError([read.problem]);
  return parseTranscript(read.text, path, limits);
}

/** The file's text, within `max_file_mb` and strict UTF-8; `display` names it in messages. */
function readTranscriptText(path: string, display: string, limits: Readonly<Limits>): TextRead {
  return readTextFile(path, { display, limits, sizeHint: limitHint('max_file_mb') });
}

function readTranscript(text: string, file: string, limits: Readonly<Limits>): ReadResult {
  const idWhere = () => `${file}:1:1`;
  const result = readYaml(text, file, {
    format: TRANSCRIPT_FORMAT,
    schema: transcriptSchema,
    limits,
    fast: true,
    reportEmpty: (src) => src.report(null, 'the file is empty; a transcript needs at least "turns:"'),
    facts: { scope: conversationFacts, of: (data) => factsOf(data, 'turns') },
  });
  if (!result.ok) return { problems: result.problems, idWhere };
  const t = result.value;
  const transcript: Transcript = dropUndefined({
    id: t.id ?? defaultTranscriptId(file),
    tags: t.tags,
    turns: t.turns,
    facts: t.facts,
    probes: t.probes,
    file,
    title: t.title,
    system: t.system,
    tools: t.tools,
    meta: t.meta,
  });
  return { transcript, problems: [], idWhere: t.id !== undefined ? () => result.where(['id']) : idWhere };
}

// ---------------------------------------------------------------- suites

/** Shown relative to the working directory when inside it, so messages stay short and clickable. */
function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

/** `!pattern` entries exclude files from every other pattern (e.g. `!datasets/calibration/**`). */
async function expandGlobs(globs: string[], baseDir: string, problems: Problem[]): Promise<string[]> {
  const files = new Set<string>();
  const ignore = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  for (const pattern of globs.filter((g) => !g.startsWith('!'))) {
    const matches = await glob(pattern, { cwd: baseDir, ignore, absolute: true, onlyFiles: true, expandDirectories: false });
    if (matches.length === 0) problems.push(fileProblem(pattern, 'no transcript files match'));
    for (const m of matches) files.add(resolve(m));
  }
  return oncePerFile([...files].sort());
}

/**
 * One path per file: a symbolic link to a folder (or a loop of them) shows the same file under
 * several paths, which would read as two transcripts with one id. The shortest path is kept.
 */
function oncePerFile(paths: string[]): string[] {
  const seen = new Map<string, string>();
  for (const path of [...paths].sort((a, b) => a.length - b.length || (a < b ? -1 : 1))) {
    let real = path;
    try {
      real = realpathSync(path);
    } catch {
      // Unreadable now: its read reports why.
    }
    if (!seen.has(real)) seen.set(real, path);
  }
  return [...seen.values()].sort();
}

/** A suite file as read: its absolute path and its text (empty when it could not be read, and then `problems` say why). */
export interface SuiteFile {
  path: string;
  text: string;
}

function readSuiteFile(abs: string, limits: Readonly<Limits>): ReadResult & { file: SuiteFile } {
  const file = displayPath(abs);
  const read = readTranscriptText(abs, file, limits);
  if (!read.ok) return { problems: [read.problem], idWhere: () => file, file: { path: abs, text: '' } };
  return { ...readTranscript(read.text, file, limits), file: { path: abs, text: read.text } };
}

/** Where a suite's transcript was read from, to read it again (`reloadTranscript`). */
export interface TranscriptSource {
  /** Absolute path. */
  path: string;
  /** sha256 of the text that was checked. */
  sha256: string;
}

/** The source of a file `readSuite` checked, for `reloadTranscript`. */
export function transcriptSource(file: SuiteFile): TranscriptSource {
  return { path: file.path, sha256: sha256(file.text) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Loads every transcript matched by `globs` (relative to `baseDir`, or
 * absolute), sorted by path, within `limits` (the suite config's `limits:`).
 * Throws one InputError for the whole suite.
 */
export async function loadSuite(globs: string[], baseDir: string, limits: Readonly<Limits> = DEFAULT_LIMITS): Promise<Transcript[]> {
  // A copy whose strings are its own: values parsed from YAML are slices of
  // the file's text, and one kept (an id in a record) would keep the whole file.
  return readSuite(globs, baseDir, limits, (t) => structuredClone(t));
}

/**
 * Reads and checks every transcript of a suite like `loadSuite`, but keeps of
 * each only what `keep` returns: a run keeps a header and reads the turns again
 * when the transcript's first job starts, so a large suite is never in memory
 * at once. Every file is still checked before this returns.
 */
export async function readSuite<T>(globs: string[], baseDir: string, limits: Readonly<Limits>, keep: (t: Transcript, file: SuiteFile) => T): Promise<T[]> {
  const problems: Problem[] = [];
  if (globs.length === 0) problems.push(fileProblem(baseDir, 'no dataset globs given, so the suite is empty'));
  const files = await expandGlobs(globs, baseDir, problems);
  const transcripts: T[] = [];
  /** The file that first used each id; it is read again only to place a duplicate. */
  const firstFile = new Map<string, string>();
  // One file at a time, each let go before the next is read: a large suite's
  // texts are never all in memory at once.
  for (const file of files) {
    const result = readSuiteFile(file, limits);
    problems.push(...result.problems);
    if (!result.transcript || result.problems.length > 0) continue;
    const t = result.transcript;
    const first = firstFile.get(t.id);
    if (first) problems.push(problemAtPlace(result.idWhere(), `transcript id ${quote(t.id)} is also used by ${readSuiteFile(first, limits).idWhere()}`));
    else firstFile.set(t.id, file);
    transcripts.push(keep(t, result.file));
  }
  if (problems.length === 0 && transcripts.length === 0) problems.push(fileProblem(baseDir, 'the suite has no transcripts'));
  if (problems.length > 0) throw new InputError(problems);
  return transcripts;
}

/**
 * A suite's transcript read again from its file, which must hold the very text
 * that was checked: a dataset edited during a run is refused, not mixed in.
 * Its strings are its own, as `loadSuite`'s are.
 */
export function reloadTranscript(source: TranscriptSource, limits: Readonly<Limits>): Transcript {
  const result = readSuiteFile(source.path, limits);
  if (result.problems.length > 0 || !result.transcript) throw new InputError(result.problems);
  if (sha256(result.file.text) !== source.sha256) {
    throw new InputError([fileProblem(displayPath(source.path), 'changed while the run was using it, so a resumed run refuses it too')]);
  }
  return structuredClone(result.transcript);
}
