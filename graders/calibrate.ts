// Judge calibration: grade human-labelled summaries with a summary judge and
// report, per criterion, how often the judge agrees with the human and Cohen's
// kappa with a 95% bootstrap interval. A judge metric is only as good as this.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { InputError, fileProblem, isInputError, type Problem } from '../harness/errors.js';
import { turnItems } from '../harness/items.js';
import type { Model } from '../harness/model.js';
import { createModel } from '../harness/models.js';
import type { Fact, MessageTurn, SummaryJudgement, SummaryRecord, ToolCallSpec, Transcript } from '../harness/types.js';
import { readMap, scalarText, YamlSource, type MapReader, type YNode } from '../harness/yaml-source.js';
import { DEFAULT_SUMMARIZER } from '../strategies/registry.js';
import { buildSummaryInput, loadSummaryPrompt } from '../strategies/summary-input.js';
import { accuracy, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, cohenKappa, kappaInterval } from './kappa.js';
import { createSummaryJudge } from './summary-judge.js';
import type { Grader, SummaryInput } from './types.js';

export const CRITERIA = ['coverage', 'faithfulness', 'temporal', 'format', 'overall'] as const;
export type Criterion = (typeof CRITERIA)[number];

/** Human labels of one summary: pass/fail per criterion and an overall 1–5. */
export interface CalibrationLabels {
  coverage: boolean;
  faithfulness: boolean;
  temporal: boolean;
  format: boolean;
  overall: number;
}

export interface CalibrationItem {
  /** `<file id>/<summary id>` */
  id: string;
  file: string;
  /** Free label of what the summary is meant to exemplify (e.g. good, vague, wrong). */
  category?: string;
  transcript: Transcript;
  summary: SummaryRecord;
  labels: CalibrationLabels;
}

/**
 * How a judgement becomes pass/fail to compare with the human labels.
 * Faithfulness passes only with nothing invented or contradicted, as a human
 * marks a summary unfaithful for a single wrong identifier. Overall counts as
 * "good" at 4 or more.
 */
export const PASS_THRESHOLDS = { coverage: 0.8, faithfulness: 1, temporal: 1, format: 1, overall: 4 } as const;

/** The calibration set is graded against the cookbook prompt and its 200-word limit. */
export const CALIBRATION_WORD_LIMIT = DEFAULT_SUMMARIZER.word_limit;

export const DEFAULT_CALIBRATION_DATA = fileURLToPath(new URL('../datasets/calibration/', import.meta.url));
/** Default `--out`: records then live in `.memeval/calibration/<judge-id>.json`, next to the call cache. */
export const DEFAULT_CALIBRATION_OUT = '.memeval';

export function judgementPasses(j: SummaryJudgement): CalibrationLabels {
  return {
    coverage: j.coverage >= PASS_THRESHOLDS.coverage,
    faithfulness: j.faithfulness >= PASS_THRESHOLDS.faithfulness,
    temporal: j.temporal >= PASS_THRESHOLDS.temporal,
    format: j.format >= PASS_THRESHOLDS.format,
    overall: j.overall,
  };
}

function labelOf(labels: CalibrationLabels, c: Criterion): boolean {
  return c === 'overall' ? labels.overall >= PASS_THRESHOLDS.overall : labels[c];
}

export interface CriterionStats {
  criterion: Criterion;
  /** Items the judge graded (errors excluded). */
  n: number;
  agree: number;
  accuracy: number | null;
  kappa: number | null;
  /** 95% percentile-bootstrap interval of kappa; null when undefined. */
  ci: [number, number] | null;
  humanPass: number;
  judgePass: number;
}

export interface CalibrationItemResult {
  id: string;
  category?: string;
  human: CalibrationLabels;
  judge?: CalibrationLabels;
  judgement?: SummaryJudgement;
  error?: string;
}

export interface CalibrationReport {
  judge: string;
  createdAt: string;
  items: number;
  errors: number;
  method: string;
  thresholds: typeof PASS_THRESHOLDS;
  criteria: CriterionStats[];
  /** Overall 1–5 compared as numbers. */
  overallScale: { meanAbsoluteError: number | null; exact: number | null; withinOne: number | null };
  results: CalibrationItemResult[];
}

export type SummaryGrader = Grader<SummaryInput, SummaryJudgement> & { readonly modelId?: string };

const METHOD =
  `per criterion: accuracy and Cohen's kappa of judge vs human pass/fail (overall: good = 4 or more); ` +
  `95% CI by percentile bootstrap over items, ${BOOTSTRAP_RESAMPLES} resamples, seed ${BOOTSTRAP_SEED}; ` +
  `items the judge failed on are excluded and counted as errors`;

function finite(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 10000) / 10000 : null;
}

/** Grades every item with `judge` (one at a time, in order) and compares with the human labels. */
export async function calibrate(judge: SummaryGrader, items: CalibrationItem[]): Promise<CalibrationReport> {
  const results: CalibrationItemResult[] = [];
  for (const item of items) {
    const judgement = await judge.grade({ transcript: item.transcript, summary: item.summary });
    const base = { id: item.id, category: item.category, human: item.labels, judgement };
    results.push(judgement.error ? { ...base, error: judgement.error } : { ...base, judge: judgementPasses(judgement) });
  }
  const graded = results.filter((r): r is CalibrationItemResult & { judge: CalibrationLabels } => r.judge !== undefined);
  return {
    judge: judge.modelId ?? judge.name,
    createdAt: new Date().toISOString(),
    items: items.length,
    errors: results.length - graded.length,
    method: METHOD,
    thresholds: PASS_THRESHOLDS,
    criteria: CRITERIA.map((c) => criterionStats(c, graded)),
    overallScale: overallScale(graded),
    results,
  };
}

function criterionStats(criterion: Criterion, graded: { human: CalibrationLabels; judge: CalibrationLabels }[]): CriterionStats {
  const human = graded.map((r) => labelOf(r.human, criterion));
  const judged = graded.map((r) => labelOf(r.judge, criterion));
  const ci = kappaInterval(human, judged);
  return {
    criterion,
    n: graded.length,
    agree: human.filter((h, i) => h === judged[i]).length,
    accuracy: finite(accuracy(human, judged)),
    kappa: finite(cohenKappa(human, judged)),
    ci: Number.isFinite(ci.low) ? [finite(ci.low) ?? 0, finite(ci.high) ?? 0] : null,
    humanPass: human.filter(Boolean).length,
    judgePass: judged.filter(Boolean).length,
  };
}

function overallScale(graded: { human: CalibrationLabels; judge: CalibrationLabels }[]): CalibrationReport['overallScale'] {
  if (graded.length === 0) return { meanAbsoluteError: null, exact: null, withinOne: null };
  const diffs = graded.map((r) => Math.abs(r.human.overall - r.judge.overall));
  return {
    meanAbsoluteError: finite(diffs.reduce((a, b) => a + b, 0) / diffs.length),
    exact: finite(diffs.filter((d) => d === 0).length / diffs.length),
    withinOne: finite(diffs.filter((d) => d <= 1).length / diffs.length),
  };
}

// ---------------------------------------------------------------------------
// The calibration set: one YAML file per source excerpt, several labelled
// summaries each. Format documented in datasets/calibration/README.md.

const FILE_KEYS = ['id', 'title', 'source', 'facts', 'summaries', 'meta'];
const TURN_KEYS = ['user', 'assistant', 'at', 'tool_calls', 'meta'];
const TOOL_KEYS = ['name', 'arguments', 'output'];
const FACT_KEYS = ['id', 'text', 'aliases', 'turn', 'critical', 'superseded_by', 'meta'];
const SUMMARY_KEYS = ['id', 'category', 'text', 'labels', 'note', 'meta'];
const LABEL_KEYS = ['coverage', 'faithfulness', 'temporal', 'format', 'overall'];

function readToolCall(src: YamlSource, raw: YNode, label: string): ToolCallSpec | undefined {
  const m = readMap(src, raw, label);
  if (!m) return undefined;
  m.allow(TOOL_KEYS);
  const name = m.word('name', { required: true });
  const output = m.string('output', { required: true });
  let args: ToolCallSpec['arguments'] = {};
  const node = m.value('arguments');
  if (node) {
    const text = scalarText(node);
    const plain = text === undefined ? src.plain(node, `"arguments" in ${label}`) : undefined;
    if (text !== undefined) args = text;
    else if (plain?.ok && typeof plain.value === 'object' && plain.value !== null && !Array.isArray(plain.value)) {
      args = plain.value as Record<string, unknown>;
    } else m.wrongType('arguments', 'a mapping or text');
  }
  return name !== undefined && output !== undefined ? { name, arguments: args, output } : undefined;
}

function readTurn(src: YamlSource, raw: YNode, n: number): MessageTurn | undefined {
  const m = readMap(src, raw, `source turn ${n}`);
  if (!m) return undefined;
  m.allow(TURN_KEYS);
  const user = m.string('user', { required: true, nonEmpty: true });
  const toolCalls = (m.list('tool_calls') ?? []).map((t, i) => readToolCall(src, t, `tool call ${i + 1} of source turn ${n}`));
  if (user === undefined || toolCalls.some((t) => t === undefined)) return undefined;
  return { kind: 'message', user, assistant: m.string('assistant'), at: m.string('at'), toolCalls: toolCalls as ToolCallSpec[] };
}

function readFact(src: YamlSource, raw: YNode, i: number, turns: number): { fact?: Fact; node?: MapReader } {
  const m = readMap(src, raw, `fact ${i + 1}`);
  if (!m) return {};
  m.allow(FACT_KEYS);
  const id = m.word('id', { required: true });
  const text = m.string('text', { required: true, nonEmpty: true });
  const turn = m.int('turn', { required: true, min: 1, max: Math.max(1, turns) });
  const aliases = m.stringList('aliases', { nonEmptyEntries: true }) ?? [];
  if (id === undefined || text === undefined || turn === undefined) return { node: m };
  const fact: Fact = { id, text, aliases, turn, critical: m.boolean('critical') ?? false };
  const next = m.word('superseded_by');
  if (next !== undefined) fact.supersededBy = next;
  return { fact, node: m };
}

function readLabels(m: MapReader, label: string): CalibrationLabels | undefined {
  const labels = m.map('labels', `labels of ${label}`);
  if (!labels) {
    if (!m.has('labels')) m.missing('labels');
    return undefined;
  }
  labels.allow(LABEL_KEYS);
  const verdict = (name: string): boolean | undefined => {
    const word = labels.word(name, { required: true });
    if (word === undefined) return undefined;
    if (word !== 'pass' && word !== 'fail') {
      labels.problem(name, `"${name}" in labels of ${label} must be pass or fail, not ${JSON.stringify(word)}`);
      return undefined;
    }
    return word === 'pass';
  };
  const coverage = verdict('coverage');
  const faithfulness = verdict('faithfulness');
  const temporal = verdict('temporal');
  const format = verdict('format');
  const overall = labels.int('overall', { required: true, min: 1, max: 5 });
  if (coverage === undefined || faithfulness === undefined || temporal === undefined || format === undefined || overall === undefined) {
    return undefined;
  }
  return { coverage, faithfulness, temporal, format, overall };
}

/** Parses one calibration file; every problem is collected into `problems`. */
export function parseCalibrationFile(text: string, file: string, problems: Problem[]): CalibrationItem[] {
  const src = YamlSource.parse(text, file);
  const items = src.ok && src.root ? readCalibrationRoot(src, file) : [];
  if (src.ok && !src.root) src.problems.push(fileProblem(file, 'the file is empty'));
  problems.push(...src.problems);
  return src.problems.length === 0 ? items : [];
}

function readCalibrationRoot(src: YamlSource, file: string): CalibrationItem[] {
  const root = readMap(src, src.root, 'the calibration file');
  if (!root) return [];
  root.allow(FILE_KEYS);
  const id = root.word('id') ?? basename(file).replace(/\.ya?ml$/i, '');
  const turnNodes = root.list('source', { required: true, nonEmpty: true }) ?? [];
  const turns = turnNodes.map((t, i) => readTurn(src, t, i + 1));
  const factReads = (root.list('facts') ?? []).map((f, i) => readFact(src, f, i, turns.length));
  const facts = factReads.map((r) => r.fact).filter((f): f is Fact => f !== undefined);
  checkFactLinks(facts, factReads);
  const transcript: Transcript = {
    id,
    title: root.string('title'),
    tags: ['calibration'],
    turns: turns.filter((t): t is MessageTurn => t !== undefined),
    facts,
    probes: [],
    file,
  };
  if (transcript.turns.length !== turnNodes.length) return [];
  const prompt = loadSummaryPrompt();
  const items = transcript.turns.flatMap((turn, i) => turnItems(turn, i + 1));
  const user = buildSummaryInput(items, DEFAULT_SUMMARIZER.tool_trim_limit);
  const seen = new Set<string>();
  const out: CalibrationItem[] = [];
  (root.list('summaries', { required: true, nonEmpty: true }) ?? []).forEach((raw, i) => {
    const m = readMap(src, raw, `summary ${i + 1}`);
    if (!m) return;
    m.allow(SUMMARY_KEYS);
    const sid = m.word('id', { required: true });
    const text = m.string('text', { required: true, nonEmpty: true });
    const labels = readLabels(m, `summary ${i + 1}`);
    if (sid !== undefined && seen.has(sid)) m.problem('id', `summary id ${JSON.stringify(sid)} is used twice in this file`);
    if (sid === undefined || text === undefined || !labels || seen.has(sid)) return;
    seen.add(sid);
    const summary: SummaryRecord = {
      strategy: 'calibration',
      transcript: id,
      turn: transcript.turns.length,
      coveredTurns: [1, transcript.turns.length],
      index: 1,
      summarizer: 'human-labelled',
      promptPath: prompt.path,
      promptHash: prompt.hash,
      request: { system: prompt.text, user },
      text: text.trim(),
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 0,
    };
    out.push({ id: `${id}/${sid}`, file, category: m.word('category'), transcript, summary, labels });
  });
  return out;
}

function checkFactLinks(facts: Fact[], reads: { fact?: Fact; node?: MapReader }[]): void {
  const ids = new Set<string>();
  for (const r of reads) {
    if (!r.fact || !r.node) continue;
    if (ids.has(r.fact.id)) r.node.problem('id', `fact id ${JSON.stringify(r.fact.id)} is used twice`);
    ids.add(r.fact.id);
  }
  const all = new Set(facts.map((f) => f.id));
  for (const r of reads) {
    const next = r.fact?.supersededBy;
    if (next !== undefined && !all.has(next)) r.node?.problem('superseded_by', `superseded_by names no fact: ${JSON.stringify(next)}`);
  }
}

/** Loads every `*.yaml` of `dir` (sorted by name); all problems at once as an InputError. */
export function loadCalibrationSet(dir: string): CalibrationItem[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch {
    throw new InputError([fileProblem(dir, 'calibration folder not found')]);
  }
  if (names.length === 0) throw new InputError([fileProblem(dir, 'no .yaml calibration files in this folder')]);
  const problems: Problem[] = [];
  const items = names.flatMap((n) => parseCalibrationFile(readFileSync(join(dir, n), 'utf8'), join(dir, n), problems));
  if (problems.length > 0) throw new InputError(problems);
  return items;
}

// ---------------------------------------------------------------------------
// Records: `<out>/calibration/<judge-id>.json` (judge id with anything but
// letters, digits, `.`, `_` and `-` replaced by `_`), and `<out>/calibration.json`
// holding the latest report.

export function calibrationRecordPath(judgeId: string, dir: string): string {
  return join(dir, 'calibration', `${judgeId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/**
 * True when a calibration report for `judgeId` is on record under `dir` (the
 * calibrate `--out`) with every item graded. A bare model name means the openai provider, as in configs,
 * so `gpt-4.1-mini` finds the record of `openai:gpt-4.1-mini`.
 */
export function hasCalibration(judgeId: string, dir: string): boolean {
  const id = judgeId.trim();
  const ids = id === 'offline' || id.includes(':') ? [id] : [id, `openai:${id}`];
  return ids.some((candidate) => recordExists(candidate, dir));
}

function recordExists(judgeId: string, dir: string): boolean {
  const path = calibrationRecordPath(judgeId, dir);
  if (!existsSync(path)) return false;
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as { judge?: unknown; items?: unknown; errors?: unknown };
    // A run in which the judge failed on some item is on file for inspection but does not count.
    return record.judge === judgeId && typeof record.items === 'number' && record.items > 0 && record.errors === 0;
  } catch {
    return false;
  }
}

export function formatCalibrationTable(report: CalibrationReport): string {
  const num = (x: number | null, digits = 2): string => (x === null ? 'n/a' : x.toFixed(digits));
  const rows = report.criteria.map((c) => [
    c.criterion,
    String(c.n),
    num(c.accuracy),
    num(c.kappa),
    c.ci ? `[${num(c.ci[0])}, ${num(c.ci[1])}]` : 'n/a',
    `${c.humanPass}/${c.judgePass}`,
  ]);
  const header = ['criterion', 'n', 'accuracy', 'kappa', '95% CI', 'pass human/judge'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  const o = report.overallScale;
  return [
    `judge: ${report.judge}   items: ${report.items}   errors: ${report.errors}`,
    line(header),
    ...rows.map(line),
    `overall 1–5: mean abs error ${num(o.meanAbsoluteError)}, exact ${num(o.exact)}, within one ${num(o.withinOne)}`,
  ].join('\n');
}

export interface CalibrateDeps {
  /** Builds the judge model for a non-offline `--judge`. */
  makeModel?: (spec: string) => Model | Promise<Model>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

const EXIT_OK = 0;
const EXIT_BAD_INPUT = 2;
const EXIT_JUDGE_FAILED = 3;

/**
 * `memeval calibrate [--judge MODEL] [--data DIR] [--out DIR] [--samples N]`.
 * Exit 0 when every item was graded, 2 on bad input (flags or data), 3 when the
 * judge failed on any item (the report is still written, with the errors).
 */
export async function calibrateCommand(argv: string[], deps: CalibrateDeps = {}): Promise<number> {
  const out = deps.stdout ?? ((t: string) => process.stdout.write(t));
  const err = deps.stderr ?? ((t: string) => process.stderr.write(t));
  let flags: { judge?: string; data?: string; out?: string; samples?: string };
  try {
    flags = parseArgs({
      args: argv,
      options: { judge: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' }, samples: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    err(`memeval calibrate: ${(e as Error).message}\n`);
    return EXIT_BAD_INPUT;
  }
  const spec = flags.judge ?? 'offline';
  const samples = flags.samples === undefined ? 1 : Number(flags.samples);
  if (!Number.isInteger(samples) || samples < 1) {
    err(`memeval calibrate: --samples must be a whole number ≥ 1, not ${JSON.stringify(flags.samples)}\n`);
    return EXIT_BAD_INPUT;
  }
  let items: CalibrationItem[];
  try {
    items = loadCalibrationSet(resolve(flags.data ?? DEFAULT_CALIBRATION_DATA));
  } catch (e) {
    if (!isInputError(e)) throw e;
    err(`${e.message}\n`);
    return EXIT_BAD_INPUT;
  }
  const model = spec === 'offline' ? undefined : await buildModel(spec, deps);
  const judge = createSummaryJudge(spec, { wordLimit: CALIBRATION_WORD_LIMIT, samples }, model);
  const report = await calibrate(judge, items);
  const dir = resolve(flags.out ?? DEFAULT_CALIBRATION_OUT);
  const record = calibrationRecordPath(report.judge, dir);
  mkdirSync(join(dir, 'calibration'), { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(join(dir, 'calibration.json'), json);
  writeFileSync(record, json);
  out(`${formatCalibrationTable(report)}\nwrote ${join(dir, 'calibration.json')} and ${record}\n`);
  return report.errors > 0 ? EXIT_JUDGE_FAILED : EXIT_OK;
}

async function buildModel(spec: string, deps: CalibrateDeps): Promise<Model> {
  if (deps.makeModel) return deps.makeModel(spec);
  // Only `openai:<name>` (OPENAI_BASE_URL / OPENAI_API_KEY) without a config file; calls are cached like a run's.
  return createModel(spec, { providers: {}, prices: {}, cacheDir: join(DEFAULT_CALIBRATION_OUT, 'cache'), limit: pLimit(4) });
}
