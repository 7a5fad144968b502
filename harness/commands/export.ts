// `memeval export RUN_DIR --format longmemeval|locomo [--strategy ID] [--out PATH]
// [--source locomo10.json] [--repeat N]`: a run's answers in the files the
// benchmarks' own scripts read, so a result can be re-scored with them unchanged.
//
// - longmemeval: JSON Lines, one `{"question_id": …, "hypothesis": …}` per
//   question (what LongMemEval's src/evaluation/evaluate_qa.py reads beside the
//   reference file). The question id is the probe's `meta.question_id` when the
//   importer recorded it, else the transcript id without the importer's `lme-`.
// - locomo: the structure of locomo10.json (a list of samples, each with its
//   `qa` list), read from `--source` (memeval keeps only what it imported), with
//   each asked question's answer under `prediction` (the key
//   task_eval/evaluation.py's eval_question_answering reads by default) and
//   under `<strategy>_prediction` (the `<model>_prediction` key
//   task_eval/evaluate_gpts.py writes and scores). Samples and questions the run
//   did not ask are left out, so the official script scores exactly what memeval
//   measured. A question is matched by sample id (the transcript id is
//   `locomo-<sample_id>`), then by its position (probe `q<n>` is `qa[n-1]`), and
//   its text must agree: a different version of the file is an error, never a
//   silent mismatch.
//
// One file per strategy (or only `--strategy`). An answer that errored is
// exported with an empty hypothesis and counted in a warning line: leaving it
// out would score the strategy on the questions it managed to answer.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, InputError, fileProblem, type Problem } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/atomic.js';
import { isRecord } from '../../core/record.js';
import type { ProbeRecord, RunResult } from '../../core/types.js';
import { loadRun, runDirOf } from '../../reports/load.js';
import { sameQuestion } from '../datasets/importers/errata.js';
import { safeId } from '../datasets/importers/shared.js';
import { benchmarkOf } from '../run/run-info.js';

export const EXPORT_USAGE = `usage: memeval export RUN_DIR --format longmemeval|locomo [--strategy ID] [--out PATH]
         [--source locomo10.json] [--repeat N]

  --format F        longmemeval: JSONL of {"question_id", "hypothesis"} (evaluate_qa.py);
                    locomo: locomo10.json with qa[*].prediction filled (task_eval/evaluation.py)
  --strategy ID     only this strategy (default: every strategy, one file each)
  --out PATH        the file (one strategy) or folder (default RUN_DIR/export/)
  --source FILE     locomo: the locomo10.json the run's transcripts were imported from
  --repeat N        which repeat to export when the run asked each probe more than once (default 1)`;

export type ExportFormat = 'longmemeval' | 'locomo';

/** One exported answer: the probe record it comes from and the text the official script scores. */
interface Hypothesis {
  record: ProbeRecord;
  /** Empty when the answer errored. */
  text: string;
}

export interface ExportResult {
  /** File text per strategy. */
  files: { strategy: string; text: string; answers: number }[];
  /** Lines to print: errored answers, questions left out. */
  warnings: string[];
}

const LME_PREFIX = 'lme-';
const LOCOMO_PREFIX = 'locomo-';

/** The answer the official script should score; an errored answer is empty, never dropped. */
function hypothesisOf(record: ProbeRecord): Hypothesis {
  const failed = record.error !== undefined && record.errorStage !== 'judge';
  return { record, text: failed ? '' : (record.answer ?? '') };
}

/** The records of one strategy and repeat whose transcript came from `format`'s importer. */
function recordsFor(run: RunResult, format: ExportFormat, strategy: string, repeat: number): ProbeRecord[] {
  const tagged = new Map(run.info.transcripts.map((t) => [t.id, benchmarkOf({ tags: t.tags })]));
  return run.probes.filter((p) => p.strategy === strategy && p.repeat === repeat && tagged.get(p.transcript) === format);
}

function erroredWarning(strategy: string, hypotheses: readonly Hypothesis[]): string[] {
  const errored = hypotheses.filter((h) => h.text === '' && h.record.error !== undefined).length;
  if (errored === 0) return [];
  return [`warning: ${strategy}: ${errored} of ${hypotheses.length} answers errored; exported with an empty hypothesis (they score 0)`];
}

// ---------- LongMemEval ----------

/** The benchmark's question id: recorded by the importer, or read back from the transcript id it made. */
export function longMemEvalQuestionId(record: ProbeRecord): string {
  const recorded = record.meta?.question_id;
  if (typeof recorded === 'string' && recorded.length > 0) return recorded;
  return record.transcript.startsWith(LME_PREFIX) ? record.transcript.slice(LME_PREFIX.length) : record.transcript;
}

export function longMemEvalLines(hypotheses: readonly Hypothesis[]): string {
  return hypotheses.map((h) => `${JSON.stringify({ question_id: longMemEvalQuestionId(h.record), hypothesis: h.text })}\n`).join('');
}

// ---------- LoCoMo ----------

type Sample = Record<string, unknown> & { qa: Record<string, unknown>[] };

/**
 * The samples of locomo10.json by the transcript id the importer gave each (`locomo-<sample_id>`,
 * and `-2`, `-3` … for a later sample whose id reads the same, in file order, as the importer
 * numbers them): a second sample must not take the first one's place.
 */
export function locomoSamples(value: unknown, file: string): Map<string, Sample> {
  if (!Array.isArray(value)) throw new InputError([fileProblem(file, 'expected the LoCoMo file: a JSON list of samples')]);
  const byId = new Map<string, Sample>();
  value.forEach((sample, index) => {
    if (!isRecord(sample) || !Array.isArray(sample.qa)) return;
    const raw = typeof sample.sample_id === 'string' || typeof sample.sample_id === 'number' ? String(sample.sample_id) : `sample-${index + 1}`;
    const base = `${LOCOMO_PREFIX}${safeId(raw)}`;
    let id = base;
    for (let n = 2; byId.has(id); n++) id = `${base}-${n}`;
    byId.set(id, sample as Sample);
  });
  return byId;
}

/** The position of the record's question in its sample's `qa` list: by probe id first, by text when the id does not fit. */
function qaIndex(sample: Sample, record: ProbeRecord): number | undefined {
  const m = /^q(\d+)$/.exec(record.probe);
  const at = m ? Number(m[1]) - 1 : -1;
  const text = (i: number) => String(sample.qa[i]?.question ?? '');
  if (at >= 0 && at < sample.qa.length && sameQuestion(text(at), record.question)) return at;
  const found = sample.qa.findIndex((_, i) => sameQuestion(text(i), record.question));
  return found < 0 ? undefined : found;
}

/** Predictions put into the samples they belong to; a question the source does not hold is a problem. */
export function locomoPredictions(samples: ReadonlyMap<string, Sample>, hypotheses: readonly Hypothesis[], strategy: string, file: string): { text: string; problems: Problem[] } {
  const picked = new Map<string, Map<number, string>>();
  const problems: Problem[] = [];
  for (const h of hypotheses) {
    const sample = samples.get(h.record.transcript);
    const index = sample ? qaIndex(sample, h.record) : undefined;
    if (index === undefined) {
      const why = sample ? `has no question "${h.record.question}"` : `has no sample for transcript ${h.record.transcript}`;
      problems.push(fileProblem(file, `${why} (${h.record.transcript} ${h.record.probe}; another version of the file?)`));
      continue;
    }
    const answers = picked.get(h.record.transcript) ?? new Map<number, string>();
    answers.set(index, h.text);
    picked.set(h.record.transcript, answers);
  }
  const out = [...samples].filter(([id]) => picked.has(id)).map(([id, sample]) => withPredictions(sample, picked.get(id)!, strategy));
  return { text: `${JSON.stringify(out, null, 2)}\n`, problems };
}

/** The sample with only the asked questions, each carrying the prediction under both keys the official scripts read. */
function withPredictions(sample: Sample, answers: ReadonlyMap<number, string>, strategy: string): Sample {
  const qa = [...answers.keys()].sort((a, b) => a - b).map((i) => ({ ...sample.qa[i], prediction: answers.get(i), [`${strategy}_prediction`]: answers.get(i) }));
  return { ...sample, qa };
}

function readSource(file: string | undefined): Map<string, Sample> {
  if (file === undefined) throw new InputError([fileProblem('--source', 'LoCoMo export needs --source locomo10.json (the file the run was imported from): memeval keeps only what it imported')]);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8').replace(/^\ufeff/, '')) as unknown;
  } catch (e) {
    throw new InputError([fileProblem(file, `cannot read: ${(e as Error).message}`)]);
  }
  return locomoSamples(value, file);
}

// ---------- both ----------

export interface ExportOptions {
  format: ExportFormat;
  strategy?: string;
  /** The LoCoMo source file (required for locomo). */
  source?: string;
  repeat?: number;
}

function strategiesOf(run: RunResult, wanted: string | undefined, runFile: string): string[] {
  const ids = run.info.strategies.map((s) => s.id);
  if (wanted === undefined) return ids;
  if (!ids.includes(wanted)) throw new InputError([fileProblem(runFile, `no strategy "${wanted}" in this run (${ids.join(', ')})`)]);
  return [wanted];
}

/** The answers of `format`'s questions the run owes each strategy per repeat: every probe of the transcripts its importer made. */
function owedAnswers(run: RunResult, format: ExportFormat): number {
  return run.info.transcripts.filter((t) => benchmarkOf({ tags: t.tags }) === format).reduce((n, t) => n + t.probes, 0);
}

/**
 * Why the run cannot be exported whole: a shard, or a strategy missing answers it owes (an
 * interrupted run). The official script would score only the questions answered; an errored
 * answer is exported empty (it scores 0), but one never attempted has no record to export.
 */
function missingAnswers(run: RunResult, strategy: string, found: number, owed: number, runFile: string): Problem | undefined {
  if (found >= owed) return undefined;
  const status = run.info.status === undefined ? '' : ` (status ${run.info.status})`;
  return fileProblem(runFile, `strategy "${strategy}" has ${found} of the ${owed} answers the run owes${status}: finish it first (memeval run --resume RUN_DIR), or the official script would score only the questions answered`);
}

/** The export of a loaded run: one file text per strategy, and the warnings to print. */
export function exportRun(run: RunResult, options: ExportOptions, runFile = 'run.json'): ExportResult {
  const repeat = options.repeat ?? 1;
  if (run.info.shard) {
    const { index, count } = run.info.shard;
    throw new InputError([fileProblem(runFile, `is shard ${index} of ${count} and holds only its jobs: merge the shards (memeval merge) and export the merged run`)]);
  }
  const samples = options.format === 'locomo' ? readSource(options.source) : undefined;
  const result: ExportResult = { files: [], warnings: [] };
  const problems: Problem[] = [];
  const owed = owedAnswers(run, options.format);
  for (const strategy of strategiesOf(run, options.strategy, runFile)) {
    const hypotheses = recordsFor(run, options.format, strategy, repeat).map(hypothesisOf);
    const missing = repeat <= run.info.repeat ? missingAnswers(run, strategy, hypotheses.length, owed, runFile) : undefined;
    if (missing) problems.push(missing);
    if (hypotheses.length === 0 || missing) continue;
    result.warnings.push(...erroredWarning(strategy, hypotheses));
    if (samples === undefined) {
      result.files.push({ strategy, text: longMemEvalLines(hypotheses), answers: hypotheses.length });
      continue;
    }
    const locomo = locomoPredictions(samples, hypotheses, strategy, options.source as string);
    problems.push(...locomo.problems);
    result.files.push({ strategy, text: locomo.text, answers: hypotheses.length });
  }
  if (problems.length > 0) throw new InputError(problems.slice(0, 20));
  if (result.files.length === 0) throw new InputError([fileProblem(runFile, `no ${options.format} probes (repeat ${repeat}) in this run to export`)]);
  if (run.info.repeat > 1) result.warnings.push(`note: the run asked each probe ${run.info.repeat} times; exported repeat ${repeat} (--repeat N for another)`);
  return result;
}

function fileName(strategy: string, format: ExportFormat): string {
  return `${safeId(strategy)}.${format === 'locomo' ? 'locomo.json' : 'longmemeval.jsonl'}`;
}

/** Where each file goes: `--out` is the file when one strategy is exported, else a folder. */
function targets(files: ExportResult['files'], format: ExportFormat, runDir: string, out: string | undefined): string[] {
  if (out !== undefined && files.length === 1) return [out];
  const dir = out ?? join(runDir, 'export');
  return files.map((f) => join(dir, fileName(f.strategy, format)));
}

interface Values {
  format?: string;
  strategy?: string;
  out?: string;
  source?: string;
  repeat?: string;
}

function parseOptions(values: Values): ExportOptions | string {
  if (values.format !== 'longmemeval' && values.format !== 'locomo') return `--format must be longmemeval or locomo (got "${values.format ?? ''}")`;
  if (values.source !== undefined && values.format !== 'locomo') return '--source is for --format locomo';
  const repeat = values.repeat === undefined ? 1 : Number(values.repeat);
  if (!Number.isSafeInteger(repeat) || repeat < 1) return `--repeat must be a whole number from 1 up (got "${values.repeat}")`;
  return { format: values.format, strategy: values.strategy, source: values.source, repeat };
}

function usage(message: string): number {
  process.stderr.write(`memeval export: ${message}\n${EXPORT_USAGE}\n`);
  return EXIT.badInput;
}

/** CLI entry: exit 0, or 2 on usage or bad input (thrown as InputError; the CLI prints it). */
export async function exportCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    const options = { format: { type: 'string' }, strategy: { type: 'string' }, out: { type: 'string' }, source: { type: 'string' }, repeat: { type: 'string' } } as const;
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    return usage((e as Error).message);
  }
  const [runPath, ...extra] = parsed.positionals;
  if (runPath === undefined) return usage('missing RUN_DIR');
  if (extra.length > 0) return usage(`unexpected argument "${extra[0]}"`);
  const options = parseOptions(parsed.values);
  if (typeof options === 'string') return usage(options);
  const result = exportRun(loadRun(runPath), options, runPath);
  const paths = targets(result.files, options.format, runDirOf(runPath), parsed.values.out);
  result.files.forEach((f, i) => {
    mkdirSync(dirname(paths[i]), { recursive: true });
    writeFileAtomic(paths[i], f.text);
    process.stdout.write(`${f.strategy}: ${f.answers} answers → ${paths[i]}\n`);
  });
  for (const w of result.warnings) process.stderr.write(`${w}\n`);
  return EXIT.ok;
}
