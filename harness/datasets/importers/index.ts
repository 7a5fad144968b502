// `memeval import locomo|longmemeval FILE.json --out DIR [options]`: turns a
// public benchmark's JSON into one transcript YAML file per conversation or
// question, keeping the questions the filters and sample select (select.ts),
// all or nothing (output.ts). The JSON is read as a stream of top-level list elements, so even
// longmemeval_m.json (gigabytes) never has to fit in one string.
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { firstBadSequence } from '../../schema/files.js';
import { basename, join } from 'node:path';
import { InputError, fileProblem, type Problem } from '../../../core/errors.js';
import { writeTranscriptFile } from '../yaml-write.js';
import type { Transcript } from '../../../core/types.js';
import { locomoSampleToTranscript } from './locomo.js';
import { longMemEvalToTranscript } from './longmemeval.js';
import { SchemaError, genericFactCount } from './shared.js';
import { commitStaging, discardStaging, openStaging } from './output.js';
import { QuirkTally, tallyQuirks } from './quirks.js';
import { type Selection, type SelectionStats, type Unit, applySelection, emptyStats, keepProbes, stratifiedSample, stratumOf, unitKey } from './select.js';

export { locomoSampleToTranscript, parseLocomoDate, normalizeDiaId, LOCOMO_CATEGORIES } from './locomo.js';
export { longMemEvalToTranscript, parseLongMemEvalDate, LONGMEMEVAL_KINDS } from './longmemeval.js';
export { readErrataFiles, parseErrata, type Errata } from './errata.js';
export type { Selection } from './select.js';

export const IMPORTERS = {
  locomo: locomoSampleToTranscript,
  longmemeval: longMemEvalToTranscript,
} as const;

export type BenchmarkName = keyof typeof IMPORTERS;

/** One element of a top-level JSON list, with where it starts in the file. */
export interface JsonElement {
  value: unknown;
  index: number;
  line: number;
  col: number;
}

/** A syntax problem stops the import: nothing after it can be trusted. */
const MAX_SCHEMA_PROBLEMS = 20;

const WS = new Set([' ', '\t', '\n', '\r', '\ufeff']);

/** Splits a file holding one JSON list into its elements, one at a time, tracking line and column. */
export async function* jsonArrayElements(file: string, readChunkBytes = 1 << 20): AsyncGenerator<JsonElement> {
  let state = 'start' as 'start' | 'between' | 'in' | 'end';
  let line = 1;
  let col = 1;
  /** Closing brackets still expected inside the current element, innermost last. */
  const open: string[] = [];
  let inString = false;
  let escape = false;
  let pieces: string[] = [];
  let start = { line: 1, col: 1 };
  let index = 0;
  let sawComma = false;
  const fail = (message: string): never => {
    throw new InputError([{ file, line, col, message }]);
  };
  const finish = (): JsonElement => {
    const text = pieces.join('');
    pieces = [];
    try {
      return { value: JSON.parse(text) as unknown, index: index++, ...start };
    } catch (e) {
      throw new InputError([{ file, ...start, message: `invalid JSON in list element ${index}: ${(e as Error).message}` }]);
    }
  };
  const readable = readableFile(file);
  if (readable) throw new InputError([fileProblem(file, readable)]);
  try {
    for await (const chunk of utf8Chunks(file, readChunkBytes, () => ({ line, col }))) {
      let from = state === 'in' ? 0 : -1;
      let nextQuote = -1;
      let nextSlash = -1;
      for (let i = 0; i < chunk.length; i++) {
        const ch = chunk[i];
        if (state === 'in') {
          if (inString) {
            if (escape) escape = false;
            else if (ch === '\\') escape = true;
            else if (ch === '"') inString = false;
            else {
              // Jump to the next quote or backslash: string content is most of a benchmark file.
              if (nextQuote < i) nextQuote = indexOrEnd(chunk, '"', i);
              if (nextSlash < i) nextSlash = indexOrEnd(chunk, '\\', i);
              const stop = Math.min(nextQuote, nextSlash);
              col += stop - i;
              i = stop - 1;
              continue;
            }
            col++;
            continue;
          }
          if (ch === '"') inString = true;
          else if (ch === '{' || ch === '[') open.push(ch === '{' ? '}' : ']');
          else if (ch === '}' || ch === ']') {
            if (open.length > 0) {
              if (open.pop() !== ch) fail(`unexpected "${ch}" in list element ${index}`);
            } else {
              pieces.push(chunk.slice(from, i));
              yield finish();
              state = 'end';
              col++;
              continue;
            }
          } else if (ch === ',' && open.length === 0) {
            pieces.push(chunk.slice(from, i));
            yield finish();
            state = 'between';
            sawComma = true;
            col++;
            continue;
          }
        } else if (WS.has(ch)) {
          // white space between tokens
        } else if (state === 'start') {
          if (ch !== '[') fail('expected a JSON list ([ … ]) of benchmark records');
          state = 'between';
        } else if (state === 'between') {
          if (ch === ']' && !sawComma) state = 'end';
          else if (ch === ',' || ch === ']') fail(`unexpected "${ch}" in the top-level list`);
          else {
            state = 'in';
            start = { line, col };
            from = i;
            open.length = 0;
            i--;
            continue;
          }
        } else {
          fail('unexpected text after the end of the top-level list');
        }
        if (ch === '\n') {
          line++;
          col = 1;
        } else col++;
      }
      if (state === 'in') pieces.push(chunk.slice(from));
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError([fileProblem(file, `cannot read: ${(e as Error).message}`)]);
  }
  if (state !== 'end') fail(state === 'start' ? 'the file is empty; expected a JSON list' : 'the file ends before the top-level list is closed');
}

/** Why `file` cannot be read as a file, or undefined when it can be tried. */
function readableFile(file: string): string | undefined {
  try {
    return statSync(file).isDirectory() ? 'is a folder, not a JSON file' : undefined;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return code === 'ENOENT' ? 'no such file' : `cannot read: ${(e as Error).message}`;
  }
}

/**
 * The file's text a chunk at a time, strictly UTF-8: a benchmark file in another encoding
 * would otherwise import with U+FFFD in place of its letters, and nothing would say so.
 * `at` is where the reader stands, the start of the chunk being decoded.
 */
async function* utf8Chunks(file: string, chunkBytes: number, at: () => { line: number; col: number }): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const bytes of createReadStream(file, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      throw badUtf8(file, bytes, at());
    }
    yield text;
  }
  let tail: string;
  try {
    tail = decoder.decode();
  } catch {
    throw new InputError([fileProblem(file, 'invalid UTF-8: the file ends inside a character; save the file as UTF-8')]);
  }
  if (tail) yield tail;
}

/** The first bad byte of a chunk, placed by line and column from where the chunk starts. */
function badUtf8(file: string, bytes: Buffer, from: { line: number; col: number }): InputError {
  const bad = firstBadSequence(bytes);
  const before = new TextDecoder().decode(bytes.subarray(0, bad.start));
  const lines = before.split('\n');
  const line = from.line + lines.length - 1;
  const col = lines.length > 1 ? lines[lines.length - 1].length + 1 : from.col + before.length;
  const byte = bytes[bad.start] === undefined ? '' : ` (byte 0x${bytes[bad.start].toString(16).toUpperCase().padStart(2, '0')})`;
  return new InputError([{ file, line, col, message: `invalid UTF-8${byte}; save the file as UTF-8 (it may be in Latin-1 or Windows-1252)` }]);
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at < 0 ? text.length : at;
}

export interface ImportOptions {
  out: string;
  /** Only the first `limit` records of the file. */
  limit?: number;
  /** Remove memeval transcripts in `out` this import does not write (otherwise their presence is an error). */
  clean?: boolean;
  selection?: Selection;
  /** A stratified sample of `size` questions (see select.ts for the rule). */
  sample?: { size: number; seed: number };
  /** Aborting stops the import between records; nothing is moved into `out`. */
  signal?: AbortSignal;
  /** Errata files as given (name and sha256 are recorded with each transcript). */
  errataFiles?: string[];
}

/**
 * What an import did, recorded under every transcript's `meta.import` so a
 * run's protocol manifest can say which questions were left out and why:
 * the input file (name and sha256), the limit, sample and filters, and the
 * errata files (name and sha256).
 */
export async function importRecord(benchmark: BenchmarkName, file: string, options: ImportOptions): Promise<Record<string, unknown>> {
  const record: Record<string, unknown> = { benchmark, file: basename(file), sha256: await fileSha256(file) };
  if (options.limit !== undefined) record.limit = options.limit;
  if (options.sample) record.sample = { ...options.sample };
  const selection = options.selection ?? {};
  if (selection.excludeCategories?.size) record.exclude_categories = [...selection.excludeCategories].sort((a, b) => a - b);
  if (selection.types?.size) record.types = [...selection.types].sort();
  if (options.errataFiles?.length) {
    record.errata = await Promise.all(options.errataFiles.map(async (f) => ({ file: basename(f), sha256: await fileSha256(f) })));
  }
  return record;
}

/** Streamed: a LongMemEval file is hundreds of megabytes. */
async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The import was stopped through `ImportOptions.signal`; `out` is as it was. */
export class ImportInterrupted extends Error {
  constructor() {
    super('import interrupted; nothing was written');
    this.name = 'ImportInterrupted';
  }
}

export interface SampleSummary {
  seed: number;
  requested: number;
  /** Questions there were to sample from, after the other filters. */
  population: number;
  perStratum: Record<string, number>;
}

export interface ImportSummary {
  written: string[];
  /** Probes written, over all files. */
  probes: number;
  facts: number;
  /** Derived facts left out as too generic to track (shared.ts GENERIC_FACT_MIN_TURNS). */
  genericFacts: number;
  /** Questions each filter left out (`sample`: not drawn). */
  dropped: { errata: number; category: number; type: number; sample: number };
  /** Errata entries left in because only their citation is wrong, and entries that matched no imported question. */
  errata?: { citationOnly: number; unmatched: string[] };
  sample?: SampleSummary;
  /** Transcripts of an earlier import removed from `out` (with `clean`). */
  removed: string[];
  /** What the data needed tolerating, one line each (see quirks.ts). */
  quirks: string[];
}

/** A record converted and filtered, or the problem that stopped it. */
type Converted = { transcript: Transcript; index: number; /** Probes before selection. */ probes: number } | { problem: Problem };

async function* convertedRecords(benchmark: BenchmarkName, file: string, options: ImportOptions, stats: SelectionStats, problems: Problem[]): AsyncGenerator<Converted> {
  const convert = IMPORTERS[benchmark];
  for await (const element of jsonArrayElements(file)) {
    if (options.limit !== undefined && element.index >= options.limit) break;
    if (options.signal?.aborted) throw new ImportInterrupted();
    let transcript: Transcript;
    try {
      transcript = convert(element.value, element.index);
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      yield { problem: { file, line: element.line, col: element.col, message: `${e.where}: ${e.message}` } };
      continue;
    }
    const selected = applySelection(benchmark, transcript, element.index, options.selection ?? {}, stats, problems);
    yield { transcript: selected, index: element.index, probes: transcript.probes.length };
  }
}

/** First pass of a sampled import: every question that passes the filters, with its stratum. */
async function sampleUnits(benchmark: BenchmarkName, file: string, options: ImportOptions): Promise<Unit[]> {
  const units: Unit[] = [];
  // Problems are collected by the second pass, which sees the same records.
  for await (const record of convertedRecords(benchmark, file, options, emptyStats(), [])) {
    if ('problem' in record) continue;
    for (const probe of record.transcript.probes) units.push({ key: unitKey(record.index, probe), stratum: stratumOf(benchmark, probe) });
  }
  return units;
}

async function drawSample(benchmark: BenchmarkName, file: string, options: ImportOptions): Promise<{ keys: Set<string>; summary: SampleSummary } | undefined> {
  if (!options.sample) return undefined;
  const units = await sampleUnits(benchmark, file, options);
  const { keys, perStratum } = stratifiedSample(units, options.sample.size, options.sample.seed);
  const summary = { seed: options.sample.seed, requested: options.sample.size, population: units.length, perStratum: Object.fromEntries(perStratum) };
  return { keys, summary };
}

/** Converts, filters and writes every record into `staging`; returns the summary so far and the problems found. */
async function writeRecords(benchmark: BenchmarkName, file: string, options: ImportOptions, staging: string): Promise<{ summary: ImportSummary; problems: Problem[]; names: string[] }> {
  const stats = emptyStats();
  const problems: Problem[] = [];
  const sample = await drawSample(benchmark, file, options);
  const summary: ImportSummary = { written: [], probes: 0, facts: 0, genericFacts: 0, dropped: { errata: 0, category: 0, type: 0, sample: 0 }, removed: [], quirks: [] };
  const names: string[] = [];
  const ids = new Set<string>();
  const tally = new QuirkTally();
  let schemaProblems = 0;
  // Checked before the file is hashed: a missing file or a folder is bad input, said as such.
  const unreadable = readableFile(file);
  if (unreadable) throw new InputError([fileProblem(file, unreadable)]);
  const imported = await importRecord(benchmark, file, options);
  for await (const record of convertedRecords(benchmark, file, options, stats, problems)) {
    if ('problem' in record) {
      problems.push(record.problem);
      if (++schemaProblems >= MAX_SCHEMA_PROBLEMS) break;
      continue;
    }
    let transcript = record.transcript;
    if (sample) {
      const before = transcript.probes.length;
      transcript = keepProbes(transcript, (p) => sample.keys.has(unitKey(record.index, p)));
      summary.dropped.sample += before - transcript.probes.length;
    }
    // A record whose every question was left out measures nothing; leaving it out keeps the suite's counts honest.
    // Once a problem is found nothing will be moved in, so writing more is wasted work.
    if ((transcript.probes.length === 0 && record.probes > 0) || problems.length > 0) continue;
    transcript = uniqueId({ ...transcript, meta: { ...transcript.meta, import: imported } }, ids);
    const name = `${transcript.id}.yaml`;
    await writeTranscriptFile(join(staging, name), { ...transcript, file: join(options.out, name) });
    names.push(name);
    summary.written.push(join(options.out, name));
    summary.probes += transcript.probes.length;
    summary.facts += transcript.facts.length;
    summary.genericFacts += genericFactCount(transcript);
    tallyQuirks(transcript, name, tally);
  }
  summary.dropped = { ...summary.dropped, errata: stats.errata, category: stats.category, type: stats.type };
  if (options.selection?.errata) summary.errata = { citationOnly: options.selection.errata.citationOnly, unmatched: stats.errataUnmatched };
  if (sample) summary.sample = sample.summary;
  summary.quirks = tally.lines();
  return { summary, problems, names };
}

/**
 * Imports `file` into `options.out`, all or nothing: any bad record (all are listed in
 * one InputError), failed write or stale transcript in `out` leaves `out` as it was.
 */
export async function importBenchmark(benchmark: BenchmarkName, file: string, options: ImportOptions): Promise<ImportSummary> {
  const staging = await openStaging(options.out);
  try {
    const { summary, problems, names } = await writeRecords(benchmark, file, options, staging);
    if (problems.length > 0) throw new InputError(problems);
    summary.removed = await commitStaging(staging, options.out, names, options.clean === true);
    return summary;
  } finally {
    await discardStaging(staging);
  }
}

/** Two records with the same benchmark id must not overwrite each other's file. */
function uniqueId(t: Transcript, seen: Set<string>): Transcript {
  let id = t.id;
  for (let n = 2; seen.has(id); n++) id = `${t.id}-${n}`;
  seen.add(id);
  return id === t.id ? t : { ...t, id, meta: { ...t.meta, duplicate_of: t.id } };
}
