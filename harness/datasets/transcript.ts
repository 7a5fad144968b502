// Loads transcripts (docs/transcript-format.md is the contract; the schema is
// harness/schema/transcript.ts) and whole
// suites. Every problem of every file is collected, then thrown once as an
// InputError, so a user fixes a dataset in one pass.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { InputError, fileProblem, problemAtPlace, type Problem } from '../../core/errors.js';
import type { Transcript } from '../../core/types.js';
import { readYaml } from '../schema/issues.js';
import { TRANSCRIPT_FORMAT, transcriptSchema } from '../schema/transcript.js';
import { conversationFacts, defaultTranscriptId, dropUndefined, factsOf } from '../schema/turns.js';
import { quote } from '../yaml-source.js';

/** A parsed transcript plus where its id came from, for cross-file duplicate messages. */
interface ReadResult {
  transcript?: Transcript;
  problems: Problem[];
  idWhere: string;
}

/** Parses one transcript; throws InputError listing every problem in it. */
export function parseTranscript(text: string, file: string): Transcript {
  const result = readTranscript(text, file);
  if (!result.transcript || result.problems.length > 0) throw new InputError(result.problems);
  return result.transcript;
}

export function loadTranscriptFile(path: string): Transcript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError([fileProblem(path, `cannot read file (${errorCode(e)})`)]);
  }
  return parseTranscript(text, path);
}

function errorCode(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? code : (e as Error).message;
}

function readTranscript(text: string, file: string): ReadResult {
  const idWhere = `${file}:1:1`;
  const result = readYaml(text, file, {
    format: TRANSCRIPT_FORMAT,
    schema: transcriptSchema,
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
    meta: t.meta,
  });
  return { transcript, problems: [], idWhere: t.id !== undefined ? result.where(['id']) : idWhere };
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
  return [...files].sort();
}

async function readSuiteFile(abs: string): Promise<ReadResult> {
  const file = displayPath(abs);
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (e) {
    return { problems: [fileProblem(file, `cannot read file (${errorCode(e)})`)], idWhere: file };
  }
  return readTranscript(text, file);
}

/**
 * Loads every transcript matched by `globs` (relative to `baseDir`, or
 * absolute), sorted by path. Throws one InputError for the whole suite.
 */
export async function loadSuite(globs: string[], baseDir: string): Promise<Transcript[]> {
  const problems: Problem[] = [];
  if (globs.length === 0) problems.push(fileProblem(baseDir, 'no dataset globs given, so the suite is empty'));
  const files = await expandGlobs(globs, baseDir, problems);
  const results = await Promise.all(files.map(readSuiteFile));
  const transcripts: Transcript[] = [];
  const byId = new Map<string, string>();
  for (const result of results) {
    problems.push(...result.problems);
    if (!result.transcript || result.problems.length > 0) continue;
    const t = result.transcript;
    const other = byId.get(t.id);
    if (other) problems.push(problemAtPlace(result.idWhere, `transcript id ${quote(t.id)} is also used by ${other}`));
    else byId.set(t.id, result.idWhere);
    transcripts.push(t);
  }
  if (problems.length === 0 && transcripts.length === 0) problems.push(fileProblem(baseDir, 'the suite has no transcripts'));
  if (problems.length > 0) throw new InputError(problems);
  return transcripts;
}


