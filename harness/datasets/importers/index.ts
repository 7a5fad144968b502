// `memeval import locomo|longmemeval FILE.json --out DIR [--limit N]`: turns a
// public benchmark's JSON into one transcript YAML file per conversation or
// question. The JSON is read as a stream of top-level list elements, so even
// longmemeval_m.json (gigabytes) never has to fit in one string.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { InputError, fileProblem, type Problem } from '../../../core/errors.js';
import { writeTranscriptFile } from '../yaml-write.js';
import type { Transcript } from '../../../core/types.js';
import { locomoSampleToTranscript } from './locomo.js';
import { longMemEvalToTranscript } from './longmemeval.js';
import { SchemaError } from './shared.js';

export { locomoSampleToTranscript, parseLocomoDate, normalizeDiaId, LOCOMO_CATEGORIES } from './locomo.js';
export { longMemEvalToTranscript, parseLongMemEvalDate, LONGMEMEVAL_KINDS } from './longmemeval.js';

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
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: readChunkBytes });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
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

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at < 0 ? text.length : at;
}

export interface ImportOptions {
  out: string;
  limit?: number;
}

export interface ImportSummary {
  written: string[];
  /** Probes written, over all files. */
  probes: number;
  facts: number;
}

/** Imports `file` into `options.out`; throws InputError listing every bad record (valid ones are still written). */
export async function importBenchmark(benchmark: BenchmarkName, file: string, options: ImportOptions): Promise<ImportSummary> {
  const convert = IMPORTERS[benchmark];
  const summary: ImportSummary = { written: [], probes: 0, facts: 0 };
  const problems: Problem[] = [];
  const ids = new Set<string>();
  for await (const element of jsonArrayElements(file)) {
    if (options.limit !== undefined && element.index >= options.limit) break;
    let transcript: Transcript;
    try {
      transcript = convert(element.value, element.index);
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      problems.push({ file, line: element.line, col: element.col, message: `${e.where}: ${e.message}` });
      if (problems.length >= MAX_SCHEMA_PROBLEMS) break;
      continue;
    }
    transcript = uniqueId(transcript, ids);
    const path = join(options.out, `${transcript.id}.yaml`);
    await writeTranscriptFile(path, { ...transcript, file: path });
    summary.written.push(path);
    summary.probes += transcript.probes.length;
    summary.facts += transcript.facts.length;
  }
  if (problems.length > 0) throw new InputError(problems);
  return summary;
}

/** Two records with the same benchmark id must not overwrite each other's file. */
function uniqueId(t: Transcript, seen: Set<string>): Transcript {
  let id = t.id;
  for (let n = 2; seen.has(id); n++) id = `${t.id}-${n}`;
  seen.add(id);
  return id === t.id ? t : { ...t, id, meta: { ...t.meta, duplicate_of: t.id } };
}
