// CSV reports: one file per record kind plus a per-strategy summary.
// Lists are joined with ";" and missing values are empty cells.
import { stringify, type Options } from 'csv-stringify/sync';
import { join } from 'node:path';
import { REBUILDABLE, writeChunksAtomic } from '../core/atomic.js';
import { PROBE_KINDS } from '../core/types.js';
import { callText } from '../core/items.js';
import type { ProbeRecord, RunResult, SummaryRecord, TurnRecord } from '../core/types.js';
import { ATTRIBUTIONS, modelKind, modelLabel, probeErrorStage, summarize, summarizeStrategy, sweepCurves, type StrategySummary, type ToolSummary } from './aggregate.js';
import type { Reporter } from './types.js';
import { officialSummaryColumns } from './official.js';
import { longMemEvalSummaryColumns } from './longmemeval.js';
import { locomoRecordScorer } from '../core/locomo.js';

export type Cell = string | number | boolean | undefined;
type Row = Record<string, Cell>;

function list(values: string[] | undefined): string {
  return (values ?? []).join(';');
}

// Transcript and model text can start with `=`, `+`, `-` or `@` (also their
// full-width forms, a tab or a CR), which a spreadsheet would run as a formula;
// `escape_formulas` gives such text cells a leading `'` (the OWASP advice) and
// leaves numbers alone. Booleans are written `true`/`false`, not the library's `1`/empty.
// NaN (a score that was not measured, as run.json's null reads back) is an empty cell, not the text "NaN".
export const CSV_OPTIONS: Options = {
  escape_formulas: true,
  cast: { boolean: (v) => String(v), number: (v) => (Number.isNaN(v) ? '' : String(v)) },
};

/**
 * A CSV a few rows at a time: the per-turn and per-probe files of a large run
 * are written as they are made, never held as one string (nor as one array of
 * rows). The text is the same as stringifying every row at once.
 */
function* csvChunks<T>(records: Iterable<T>, toRow: (record: T) => Row, columns: string[]): Generator<string> {
  yield stringify([columns], CSV_OPTIONS);
  let batch: string[] = [];
  for (const record of records) {
    const row = toRow(record);
    batch.push(csvLine(columns.map((c) => row[c])));
    if (batch.length === CSV_BATCH) {
      yield batch.join('');
      batch = [];
    }
  }
  if (batch.length) yield batch.join('');
}

/** Rows joined into one chunk: one write per row would cost more than the rows. */
const CSV_BATCH = 500;

/**
 * One row as csv-stringify writes it with CSV_OPTIONS. Most cells need nothing done to
 * them (counts, ids, plain words), and csv-stringify spends far more per cell than the
 * cell itself costs, so a row of such cells is joined here; a row holding any other cell
 * (quotes, commas, line breaks, a formula's first character) goes to csv-stringify whole.
 */
export function csvLine(cells: readonly Cell[]): string {
  const plain: string[] = [];
  for (const cell of cells) {
    const text = plainCell(cell);
    if (text === undefined) return stringify([cells], CSV_OPTIONS);
    plain.push(text);
  }
  return `${plain.join(',')}\n`;
}

/** A cell csv-stringify would write as is (`CSV_OPTIONS`), as written; undefined for any other. */
function plainCell(cell: Cell): string | undefined {
  if (cell === undefined || cell === '') return '';
  // Numbers are never quoted, and a leading "-" on a number is not a formula.
  if (typeof cell === 'number') return Number.isNaN(cell) ? '' : String(cell);
  if (typeof cell === 'boolean') return String(cell);
  if (typeof cell === 'string' && !NEEDS_QUOTING_OR_ESCAPING.test(cell)) return cell;
  return undefined;
}

/** What makes csv-stringify quote a text cell, or mark it as not a formula (`escape_formulas`). */
const NEEDS_QUOTING_OR_ESCAPING = /[",\n\r]|^[-=+@\t\uFF1D\uFF0B\uFF0D\uFF20]/;

function toCsv(rows: Row[], columns: string[]): string {
  return [...csvChunks(rows, (r) => r, columns)].join('');
}

function turnRow(t: TurnRecord): Row {
  return {
    strategy: t.strategy,
    transcript: t.transcript,
    turn: t.turn,
    full_tokens: t.fullTokens,
    context_tokens: t.contextTokens,
    // The part of context_tokens the API reported (a server-compacted, opaque span); the rest is counted locally.
    api_tokens: t.apiTokens ?? 0,
    items: t.items,
    facts_present_count: t.factsPresentCount,
    facts_missing_count: t.factsMissingCount,
    critical_missing_count: t.criticalMissingCount,
    facts_opaque_count: t.factsOpaqueCount ?? 0,
    facts_lost: list(t.factsLost),
    facts_regained: list(t.factsRegained),
    critical_lost: list(t.criticalLost),
    summaries: t.summaries,
    cacheable_tokens: t.cacheableTokens,
    cache_break: t.cacheBreak,
  };
}

const TURN_CSV_COLUMNS = [
  'strategy',
  'transcript',
  'turn',
  'full_tokens',
  'context_tokens',
  'api_tokens',
  'items',
  'facts_present_count',
  'facts_missing_count',
  'critical_missing_count',
  'facts_opaque_count',
  'facts_lost',
  'facts_regained',
  'critical_lost',
  'summaries',
  'cacheable_tokens',
  'cache_break',
];

/** A meta value that is one word or number (LoCoMo's `category`, LongMemEval's `question_type`); empty otherwise. */
function metaCell(p: ProbeRecord, key: string): Cell {
  const value = p.meta?.[key];
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

/** Each transcript's tags, by transcript id, as the run recorded them. */
function tagsByTranscript(run: RunResult): Map<string, string[]> {
  return new Map(run.info.transcripts.map((t) => [t.id, t.tags]));
}

function probeRow(p: ProbeRecord, runModel: string, tags: Map<string, string[]>): Row {
  const model = p.model ?? runModel;
  return {
    strategy: p.strategy,
    transcript: p.transcript,
    probe: p.probe,
    kind: p.kind,
    after_turn: p.afterTurn,
    repeat: p.repeat,
    model,
    model_kind: modelKind(model),
    question: p.question,
    reference: p.reference,
    context_items: p.contextItems,
    // Our tiktoken count next to what the provider billed, so drift between them is visible.
    context_tokens: p.contextTokens,
    counted_input_tokens: p.countedInputTokens,
    api_input_tokens: p.usage?.inputTokens,
    output_tokens: p.usage?.outputTokens,
    answer: p.answer,
    exact: p.exact,
    f1: p.f1,
    judge_verdict: p.judge?.verdict,
    judge_reason: p.judge?.reason,
    judge_model: p.judge?.model,
    passed: p.passed,
    // Every needed fact was in the context sent; empty when unknown (a non-abstention probe naming no facts, or a run recorded before the field).
    answerable: p.answerable ?? undefined,
    attribution: p.attribution,
    facts_needed: list(p.factsNeeded),
    facts_present: list(p.factsPresent),
    facts_missing: list(p.factsMissing),
    facts_opaque: list(p.factsOpaque),
    cost: p.cost,
    cost_cached: p.costCached,
    cacheable_tokens: p.cacheableTokens,
    api_cached_tokens: p.usage?.cachedTokens,
    latency_ms: p.latencyMs,
    cached: p.cached,
    error: p.error,
    // Which call failed, in the stage names every report uses.
    error_stage: probeErrorStage(p),
    // The probe's meta as an importer gives it, so rows can be grouped as the benchmark's own scorer groups them.
    category: metaCell(p, 'category'),
    question_type: metaCell(p, 'question_type'),
    evidence_turns: (p.evidenceTurns ?? []).join(';'),
    tags: list(tags.get(p.transcript)),
    ...toolCells(p),
  };
}

/**
 * A tool probe's grade, and the continuity counters of any probe. The counters
 * read 0 / false on an answered record that has none (the record leaves them
 * out), and stay empty when the answer call failed: nothing was read then.
 */
function toolCells(p: ProbeRecord): Row {
  const answered = probeErrorStage(p) !== 'answer';
  const t = p.tool;
  return {
    tool_expected: t ? (t.expected ?? 'no call') : undefined,
    tool_called: t?.called ?? undefined,
    tool_calls: (p.toolCalls ?? []).map(callText).join(';'),
    tool_right_tool: t?.rightTool,
    tool_args_matched: t?.argsMatched,
    tool_args_expected: t?.argsExpected,
    tool_exact_call: t?.exactCall,
    tool_extra_calls: t?.extraCalls,
    tool_mismatches: list(t?.mismatches),
    repeated_calls: p.repeatedCalls ?? (answered ? 0 : undefined),
    reask: p.reask ?? (answered ? false : undefined),
  };
}

export const PROBE_COLUMNS = [
  'strategy', 'transcript', 'probe', 'kind', 'after_turn', 'repeat', 'model', 'model_kind', 'question', 'reference',
  'context_items', 'context_tokens', 'counted_input_tokens', 'api_input_tokens', 'output_tokens', 'answer', 'exact', 'f1', 'judge_verdict',
  'judge_reason', 'judge_model', 'passed', 'answerable', 'attribution', 'facts_needed', 'facts_present', 'facts_missing', 'facts_opaque', 'cost',
  'cost_cached', 'cacheable_tokens', 'api_cached_tokens', 'latency_ms', 'cached', 'error', 'error_stage', 'category', 'question_type', 'evidence_turns', 'tags',
  'tool_expected', 'tool_called', 'tool_calls', 'tool_right_tool', 'tool_args_matched', 'tool_args_expected', 'tool_exact_call', 'tool_extra_calls',
  'tool_mismatches', 'repeated_calls', 'reask', 'locomo_score',
];

// The strategy lost it (not answerable) against the reader missed it (answerable, not passed), each with its denominator.
function answerableColumns(s: StrategySummary): Row {
  return {
    answerable: s.answerable,
    answerable_known: s.answerableKnown,
    answerable_rate: s.answerableRate,
    answerable_ci_low: s.answerableLow,
    answerable_ci_high: s.answerableHigh,
    answerable_errors: s.answerableErrors,
    reader_gap: s.readerGap,
    reader_gap_rate: s.readerGapRate,
    reader_gap_ci_low: s.readerGapLow,
    reader_gap_ci_high: s.readerGapHigh,
  };
}

/**
 * Tool use with the counts each rate rests on. The columns are memeval's own, so
 * every summary.csv has them (a fixed header lets files of several runs be
 * stacked); a strategy without tool probes leaves them empty, never 0.
 */
function toolColumns(t: ToolSummary | undefined): Row {
  return {
    tool_probes: t?.probes,
    tool_call_probes: t?.callProbes,
    tool_no_call_probes: t?.noCallProbes,
    tool_errors: t?.errors,
    tool_exact_calls: t?.exactCalls,
    tool_accuracy: t?.accuracy,
    tool_accuracy_ci_low: t?.accuracyLow,
    tool_accuracy_ci_high: t?.accuracyHigh,
    tool_right_tool: t?.rightTool,
    tool_right_tool_rate: t?.rightToolRate,
    tool_right_tool_ci_low: t?.rightToolLow,
    tool_right_tool_ci_high: t?.rightToolHigh,
    tool_args_matched: t?.argsMatched,
    tool_args_expected: t?.argsExpected,
    tool_args_accuracy: t?.argsAccuracy,
    tool_args_ci_low: t?.argsLow,
    tool_args_ci_high: t?.argsHigh,
    tool_extra_calls: t?.extraCalls,
    tool_repeated_calls: t?.repeatedCalls,
    tool_reasks: t?.reasks,
    tool_answered_probes: t?.answered,
  };
}

/** A sweep's four columns; empty for a strategy that is no point of a sweep. */
interface SweepCells {
  sweep?: string;
  sweep_option?: string;
  sweep_value?: Cell;
  sweep_knee?: boolean;
}

/**
 * Per point of a sweep: its sweep, the swept option(s) and value(s) (a grid's
 * two joined by ";", the x option first), and whether it is its curve's knee.
 */
function sweepCells(run: RunResult, rows: StrategySummary[]): Map<string, SweepCells> {
  const cells = new Map<string, SweepCells>();
  for (const curve of sweepCurves(run, rows)) {
    const options = curve.fixed ? `${curve.option};${curve.fixed.option}` : curve.option;
    for (const p of curve.points) {
      const value = curve.fixed ? `${p.value};${curve.fixed.value}` : p.value;
      cells.set(p.strategy, { sweep: curve.group, sweep_option: options, sweep_value: value, sweep_knee: curve.knee?.knee.strategy === p.strategy });
    }
  }
  return cells;
}

// Every count a rate rests on sits beside it, so a reader can see what the rate could not measure.
function summaryRow(s: StrategySummary, model: string, sweep: SweepCells = {}): Row {
  const row: Row = {
    strategy: s.strategy,
    use: s.use,
    sweep: sweep.sweep,
    sweep_option: sweep.sweep_option,
    sweep_value: sweep.sweep_value,
    sweep_knee: sweep.sweep_knee,
    model: modelLabel(model),
    transcripts: s.transcripts,
    turns: s.turns,
    mean_context_tokens: s.meanContextTokens,
    peak_context_tokens: s.peakContextTokens,
    mean_full_tokens: s.meanFullTokens,
    compression: s.compression,
    fact_retention: s.factRetention,
    critical_drops: s.criticalDrops,
    turns_with_critical_drop: s.turnsWithCriticalDrop,
    turns_with_opaque_facts: s.turnsWithOpaqueFacts,
    summaries_attempted: s.summariesAttempted,
    summaries: s.summariesMade,
    summary_errors: s.summaryErrors,
    summarizer_errors: s.summaryErrors,
    summary_tokens_in: s.summaryTokensIn,
    summary_tokens_out: s.summaryTokensOut,
    probes: s.probes,
    attempted: s.attempted,
    unattempted: s.unattempted,
    graded: s.graded,
    passed: s.passed,
    errors: s.errors,
    answer_errors: s.answerErrors,
    answer_judge_errors: s.answerJudgeErrors,
    accuracy: s.accuracy,
    accuracy_graded: s.accuracyGraded,
    accuracy_ci_low: s.accuracyLow,
    accuracy_ci_high: s.accuracyHigh,
    // Against the run's baseline strategy: paired McNemar on shared probes, Holm-adjusted across strategies.
    vs_baseline_delta: s.vsBaseline?.delta,
    vs_baseline_p: s.vsBaseline?.p,
    vs_baseline_p_holm: s.vsBaseline?.pHolm,
    vs_baseline_significant: s.vsBaseline?.significant,
  };
  // Every kind has its columns, attempted or not (empty then): a fixed header lets the files of several runs be
  // stacked. The tables people read (report.html) list only the kinds the run attempted.
  for (const kind of PROBE_KINDS) row[`accuracy_${kind}`] = s.accuracyByKind[kind];
  Object.assign(row, answerableColumns(s));
  for (const kind of PROBE_KINDS) row[`reader_gap_${kind}`] = s.readerGapByKind[kind];
  Object.assign(row, {
    mean_f1: s.meanF1,
    pass_hat_n: s.passHatN,
  });
  Object.assign(row, toolColumns(s.tool));
  for (const a of ATTRIBUTIONS) row[`attribution_${a}`] = s.attribution[a];
  Object.assign(row, {
    input_tokens: s.inputTokens,
    api_vs_counted_input: s.apiVsCountedInput,
    output_tokens: s.outputTokens,
    cost: s.cost,
    // Cost as billed: cacheable input at the cached-input price, beside the nominal cost (README "Cost as billed").
    cost_cached: s.costCached,
    // The part of both that server compaction calls cost (nominal), so answers alone are cost minus it.
    summary_cost: s.summaryCost,
    api_cached_tokens: s.apiCachedTokens,
    cacheable_input_tokens: s.cacheableInputTokens,
    cacheable_share: s.cacheableShare,
    cache_breaks: s.cacheBreaks,
    latency_mean_ms: s.latencyMean,
    latency_p50_ms: s.latencyP50,
    latency_p95_ms: s.latencyP95,
    turn_latency_p50_ms: s.turnLatencyP50,
    turn_latency_p95_ms: s.turnLatencyP95,
    judge_overall: s.judgeOverall,
    judge_coverage: s.judgeCoverage,
    judge_faithfulness: s.judgeFaithfulness,
    judge_score: s.judgeScore,
    judged: s.judged,
    summaries_judged: s.judged,
    judge_errors: s.judgeErrors,
    summary_judge_errors: s.judgeErrors,
    checks_fact_coverage: s.checksCoverage,
    unsupported_claims: s.unsupportedClaims,
    drift_lost: s.driftLost,
  });
  return row;
}

function summariesRow(s: SummaryRecord): Row {
  const checks = s.grades?.checks;
  const judge = s.grades?.judge;
  // A judgement that errored measured nothing: its scores are empty cells beside judge_error, never a 0.
  const scores = judge?.error ? undefined : judge;
  const drift = s.grades?.drift;
  return {
    strategy: s.strategy,
    transcript: s.transcript,
    index: s.index,
    turn: s.turn,
    covered_from: s.coveredTurns[0],
    covered_to: s.coveredTurns[1],
    summarizer: s.summarizer,
    prompt_path: s.promptPath,
    prompt_hash: s.promptHash,
    tokens_in: s.usage.inputTokens,
    tokens_out: s.usage.outputTokens,
    duration_ms: s.durationMs,
    cost: s.cost,
    // A server compaction has no text: its grade cells stay empty, and this says why.
    opaque: s.opaque ? 'opaque (server compaction)' : undefined,
    error: s.error,
    fact_coverage: checks?.factCoverage,
    facts_kept: list(checks?.factsKept),
    facts_missing: list(checks?.factsMissing),
    unsupported: list(checks?.unsupported),
    words: checks?.words,
    word_limit: checks?.wordLimit,
    over_limit: checks?.overLimit,
    headings_missing: list(checks?.headingsMissing),
    stale_facts: list(checks?.staleFacts),
    judge_model: judge?.model,
    judge_coverage: scores?.coverage,
    judge_faithfulness: scores?.faithfulness,
    judge_temporal: scores?.temporal,
    judge_format: scores?.format,
    judge_overall: scores?.overall,
    judge_score: scores?.score,
    judge_invented: list(scores?.invented),
    judge_error: judge?.error,
    drift_lost: list(drift?.lost),
    drift_changed: list(drift?.changed),
    drift_reverted: list(drift?.reverted),
    text: s.text,
  };
}

export const SUMMARIES_COLUMNS = [
  'strategy', 'transcript', 'index', 'turn', 'covered_from', 'covered_to', 'summarizer', 'prompt_path', 'prompt_hash',
  'tokens_in', 'tokens_out', 'duration_ms', 'cost', 'opaque', 'error', 'fact_coverage', 'facts_kept', 'facts_missing', 'unsupported',
  'words', 'word_limit', 'over_limit', 'headings_missing', 'stale_facts', 'judge_model', 'judge_coverage',
  'judge_faithfulness', 'judge_temporal', 'judge_format', 'judge_overall', 'judge_score', 'judge_invented',
  'judge_error', 'drift_lost', 'drift_changed', 'drift_reverted', 'text',
];

function turnsChunks(run: RunResult): Iterable<string> {
  return csvChunks(run.turns, turnRow, TURN_CSV_COLUMNS);
}

function probesChunks(run: RunResult): Iterable<string> {
  const tags = tagsByTranscript(run);
  const locomo = locomoRecordScorer(run);
  return csvChunks(run.probes, (p) => ({ ...probeRow(p, run.info.model, tags), locomo_score: locomo(p) }), PROBE_COLUMNS);
}

export function probesCsv(run: RunResult): string {
  return [...probesChunks(run)].join('');
}

export function summaryCsv(run: RunResult): string {
  // Official benchmark scores (LoCoMo F1) follow memeval's own columns when the run has such probes.
  const summaries = summarize(run);
  const sweeps = sweepCells(run, summaries);
  const rows = summaries.map((s) => ({ ...summaryRow(s, run.info.model, sweeps.get(s.strategy)), ...officialSummaryColumns(run, s.strategy), ...longMemEvalSummaryColumns(run, s.strategy) }));
  // A run without strategies still gets the full header: the row of an empty run names every column.
  const empty: RunResult = { info: run.info, turns: [], probes: [], summaries: [] };
  return toCsv(rows, Object.keys(rows[0] ?? summaryRow(summarizeStrategy(empty, '', false), run.info.model)));
}

export function summariesCsv(run: RunResult): string {
  return toCsv(run.summaries.map(summariesRow), SUMMARIES_COLUMNS);
}

export const csvReporter: Reporter = {
  name: 'csv',
  async write(run: RunResult, dir: string): Promise<string[]> {
    const files: [string, Iterable<string>][] = [
      ['turns.csv', turnsChunks(run)],
      ['probes.csv', probesChunks(run)],
      ['summary.csv', [summaryCsv(run)]],
      ['summaries.csv', [summariesCsv(run)]],
    ];
    return files.map(([name, chunks]) => {
      const path = join(dir, name);
      writeChunksAtomic(path, chunks, REBUILDABLE);
      return path;
    });
  },
};
