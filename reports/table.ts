// The result table the CLI prints after a run. Accuracy is over attempted
// probes, and every error sits in plain view: a run that could not measure
// must never print a clean-looking table.
import { disagreementLine, judgeExactDisagreement } from './judge.js';
import type { RunResult, StageErrors } from '../core/types.js';
import { SIGNIFICANCE_LEVEL } from '../core/stats.js';
import { TOOL_ACCURACY_RULE, kneeText, runNotice, stageErrors, summarize, sweepCurves, type StrategySummary } from './aggregate.js';
import { officialLines } from './official.js';
import { verdictMarkdown } from './verdict.js';
import { longMemEvalLines } from './longmemeval.js';

// `answerable` and `reader gap` split a miss: the strategy lost the fact, or the reader missed it (see ANSWERABLE_NOTE).
const HEAD = ['strategy', 'accuracy', 'answerable', 'reader gap', 'mean tok', 'peak tok', 'compress', 'retention', 'crit drop', 'errors'];

// Shown after `reader gap` only when some strategy has tool probes, so a run without tools prints the table it always did.
const TOOL_HEAD = ['tool acc', 'args acc', 'repeats', 're-asks'];

// Long server messages would swamp the table; reports and run.json keep the full text.
const MAX_MESSAGE = 200;

function pct(x: number | undefined): string {
  return x === undefined || Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`;
}

function int(x: number | undefined): string {
  return x === undefined ? '—' : x.toFixed(0);
}

function line(cells: string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(22) : c.padStart(10))).join(' ');
}

/** Every failed call of the strategy, whatever the stage, so summary-judge failures cannot hide behind a clean accuracy. */
function strategyErrors(r: StrategySummary): number {
  return r.errors + r.summaryErrors + r.judgeErrors;
}

// `*` marks a significant difference from the baseline strategy; the legend line below says which way.
function accuracyText(r: StrategySummary): string {
  return `${pct(r.accuracy)}${r.vsBaseline?.significant ? '*' : ''}`;
}

function toolCells(r: StrategySummary): string[] {
  const t = r.tool;
  return t ? [pct(t.accuracy), pct(t.argsAccuracy), String(t.repeatedCalls), String(t.reasks)] : TOOL_HEAD.map(() => '—');
}

function row(r: StrategySummary, tools: boolean): string {
  const tool = tools ? toolCells(r) : [];
  return line([r.strategy, accuracyText(r), pct(r.answerableRate), pct(r.readerGapRate), ...tool, int(r.meanContextTokens), int(r.peakContextTokens), pct(r.compression), pct(r.factRetention), int(r.criticalDrops), String(strategyErrors(r))]);
}

function head(tools: boolean): string {
  return line(tools ? [...HEAD.slice(0, 4), ...TOOL_HEAD, ...HEAD.slice(4)] : HEAD);
}

/**
 * Printed under every table: the two columns are the deterministic part of
 * accuracy (what the strategy kept), so they need their denominators named.
 */
export const ANSWERABLE_NOTE: readonly string[] = [
  'answerable = the context sent held every fact the probe needs (probes naming no facts, abstention aside, are left out)',
  'reader gap = answerable probes not passed, an error counting as missed: the strategy lost it vs the reader missed it',
];

/** Printed under a table with tool columns: what each is out of. */
export const TOOL_NOTE = `tool acc = ${TOOL_ACCURACY_RULE} / tool probes, an error counting as failed; args acc = expected arguments matched; repeats and re-asks are counted over every answer`;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

/** What the `*` means, naming each marked strategy's direction; nothing when no strategy is marked. */
function baselineLegend(rows: StrategySummary[]): string[] {
  const marked = rows.filter((r) => r.vsBaseline?.significant);
  if (marked.length === 0) return [];
  const which = marked.map((r) => `${r.strategy} ${(r.vsBaseline?.delta ?? 0) > 0 ? 'higher' : 'lower'}`).join(', ');
  const baseline = marked[0].vsBaseline?.baseline ?? '';
  return [`* accuracy differs from baseline ${baseline} (exact McNemar on shared probes, Holm-adjusted p < ${SIGNIFICANCE_LEVEL}): ${which}`];
}

/** `errors: answer 12/300 · …` and the first message of each stage that errored; nothing when no stage did. */
function errorLines(stages: StageErrors[]): string[] {
  if (!stages.some((s) => s.errors > 0)) return [];
  const counts = stages.map((s) => `${s.stage} ${s.errors}/${s.attempted}`).join(' · ');
  const firsts = stages.filter((s) => s.errors > 0).map((s) => `  first ${s.stage} error: ${oneLine(s.firstError ?? '(no message recorded)')}`);
  return [`errors: ${counts}`, ...firsts];
}

export function formatTable(run: RunResult): string {
  const notice = runNotice(run.info);
  const rows = summarize(run);
  const tools = rows.some((r) => r.tool);
  const lines = [
    // A short flag here; the command prints the whole reason (stage, count, first error, what to do) on stderr.
    ...(notice ? [notice.label === 'SHARD' ? `SHARD: ${notice.reason}` : `${notice.label}: every rate below counts errored or unattempted items as not passed`] : []),
    head(tools),
    ...rows.map((r) => row(r, tools)),
    ...baselineLegend(rows),
    // Each sweep's knee, named as report.html names it.
    ...sweepCurves(run, rows).map((curve) => `${curve.group}: ${kneeText(curve)}`),
    ...verdictMarkdown(run, rows),
    ...ANSWERABLE_NOTE,
    ...(tools ? [TOOL_NOTE] : []),
    // LoCoMo runs also get LoCoMo's own per-category F1, the figure its users compare.
    ...officialLines(run),
    // LongMemEval runs also get LongMemEval's own accuracy (official judge prompts).
    ...longMemEvalLines(run),
    ...errorLines(stageErrors(run)),
    // A judge far more lenient than exact match makes the accuracy column its opinion, not a measurement.
    ...judgeExactDisagreement(run).map(disagreementLine),
  ];
  if (run.info.model === 'offline') lines.push('model: offline (the built-in extractive reader, not an LLM)');
  return `${lines.join('\n')}\n`;
}
