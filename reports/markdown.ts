// Markdown for gate results (gate.md, the GitHub step summary) and diffs (diff.md).
import type { RunResult } from '../core/types.js';
import { TOOL_ACCURACY_RULE, judgeLabel, modelLabel, strategyIds, summarizeStrategy, type StrategySummary } from './aggregate.js';
import { SIGNIFICANCE_LEVEL, type PairedResult } from '../core/stats.js';
import { diffHeadline, unrecordedNote, type FieldChange, type RunDiff } from './diff.js';
import { textOf } from './format.js';
import type { GateResult } from './gate.js';

/**
 * Makes text safe inside a Markdown table cell: no pipes, no line breaks, no raw HTML. A `>`
 * opens no tag and stays as written: gate messages read "> max 0.2" in a terminal too.
 */
export function mdCell(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/\|/g, '\\|')
    // A lone CR, a line or paragraph separator end a line too, and with it the table row.
    .replace(/\r\n?|[\n\u2028\u2029\u0085]/g, ' ');
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function n(v: number | undefined, digits = 4): string {
  if (v === undefined) return '–';
  if (Number.isInteger(v)) return String(v);
  // A value below the shown decimals keeps its significant digits, so it never reads as 0.
  return v !== 0 && Math.abs(v) < 10 ** -digits ? String(Number(v.toPrecision(3))) : v.toFixed(digits);
}

function share(rate: number | undefined, count: number, n: number): string {
  return rate === undefined ? '–' : `${(100 * rate).toFixed(1)}% (${count}/${n})`;
}

function strategyRow(s: StrategySummary, tools: boolean): string[] {
  const row = [mdCell(s.strategy), share(s.accuracy, s.passed, s.attempted + s.unattempted), share(s.answerableRate, s.answerable, s.answerableKnown), share(s.readerGapRate, s.readerGap, s.answerable)];
  return tools ? [...row, ...toolRow(s)] : row;
}

/** Tool accuracy, args accuracy, repeated calls and re-asks; – for a strategy without tool probes. */
function toolRow(s: StrategySummary): string[] {
  const t = s.tool;
  if (!t) return ['–', '–', '–', '–'];
  const errors = t.errors ? ` (${t.errors} errored)` : '';
  return [`${share(t.accuracy, t.exactCalls, t.probes)}${errors}`, share(t.argsAccuracy, t.argsMatched, t.argsExpected), String(t.repeatedCalls), String(t.reasks)];
}

const TOOL_HEAD = ['tool accuracy (exact/tool probes)', 'args accuracy', 'repeated calls', 're-asks'];

/**
 * Per strategy, accuracy split in two: did the strategy keep what each probe
 * needs (answerable), and did the reader use it (reader gap). Both are in
 * the gate summary because the answerable rate is deterministic for any model.
 */
function strategyLines(run: RunResult): string[] {
  const summaries = strategyIds(run).map((id) => summarizeStrategy(run, id, false));
  if (summaries.length === 0) return [];
  // Tool columns only when some strategy has tool probes: a run without tools gets no columns of dashes.
  const tools = summaries.some((s) => s.tool);
  const head = ['strategy', 'accuracy (passed/attempted)', 'answerable (of known)', 'reader gap (missed/answerable)', ...(tools ? TOOL_HEAD : [])];
  const toolNote = tools
    ? [` Tool accuracy: ${TOOL_ACCURACY_RULE}, an errored one counted as failed; repeated calls and re-asks are counted over every answered probe.`]
    : [];
  return [
    '',
    '### Strategies',
    '',
    table(head, summaries.map((s) => strategyRow(s, tools))),
    '',
    `Answerable: every fact the probe needs was in the context sent (probes naming no facts, abstention probes aside, are unknown and left out); a miss there is the strategy losing it. Reader gap: answerable probes that did not pass, an errored one counted as missed; a miss there is the reader missing it.${toolNote.join('')}`,
  ];
}

function resultIcon(r: GateResult): string {
  if (r.status === 'pass') return '✅ pass';
  if (r.status === 'skipped') return '⏭️ skipped (optional)';
  return r.notEvaluated === undefined ? '❌ fail' : '❌ fail: not evaluated';
}

/**
 * The one line CI readers look at. "Passed" only when every required check
 * was evaluated and held; a failure that is only checks with nothing to
 * measure reads "could not be evaluated", still a failing verdict.
 */
function gateVerdict(results: GateResult[], failure: string | undefined): string {
  if (failure) return `💥 **Gate could not be evaluated**: ${mdCell(failure)}`;
  const passed = results.filter((r) => r.status === 'pass').length;
  const failed = results.filter((r) => r.status === 'fail');
  const unevaluated = failed.filter((r) => r.notEvaluated !== undefined).length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const head =
    failed.length === 0 ? '✅ **Gate passed**' : unevaluated === failed.length ? '⚠️ **Gate could not be evaluated** (counts as FAILED)' : '❌ **Gate FAILED**';
  const notEvaluatedNote = unevaluated ? ` (${unevaluated} could not be evaluated)` : '';
  return `${head} — ${passed} passed, ${failed.length} failed${notEvaluatedNote}, ${skipped} skipped (optional, not evaluated)`;
}

export function gateMarkdown(run: RunResult, results: GateResult[], warnings: string[] = [], failure?: string): string {
  const lines = [
    `## memeval gate — ${mdCell(run.info.runId)}`,
    '',
    gateVerdict(results, failure),
    '',
    `Answering model: **${mdCell(modelLabel(run.info.model))}** · judge: ${mdCell(judgeLabel(run.info.judge))}`,
  ];
  for (const w of warnings) lines.push('', `> ⚠️ **${mdCell(w)}**`);
  if (results.length) {
    const p = (v: number | undefined) => (v === undefined ? '–' : v.toPrecision(3));
    const rows = results.map((r) => [resultIcon(r), mdCell(r.strategy), mdCell(r.gate.metric), n(r.value), n(r.baseline), p(r.pValue), p(r.pHolm), mdCell(r.message)]);
    lines.push('', table(['result', 'strategy', 'metric', 'value', 'baseline', 'p', 'Holm p', 'detail'], rows));
    const tested = results.filter((r) => r.pHolm !== undefined).length;
    if (tested) lines.push('', `Significance verdicts use the Holm-adjusted p over all ${tested} significance tests of this gate run (significant below ${SIGNIFICANCE_LEVEL}).`);
  }
  lines.push(...strategyLines(run));
  return `${lines.join('\n')}\n`;
}

function signed(v: number | undefined, digits = 4): string {
  if (v === undefined) return '–';
  return `${v > 0 ? '+' : ''}${n(v, digits)}`;
}

/** Metrics worth a line in the diff summary; diff.csv has all of them. */
const HEADLINE = [
  'probe.accuracy', 'probe.answerable', 'probe.reader_gap', 'probe.errors', 'tool.accuracy', 'tool.args_accuracy', 'tool.repeated_calls', 'tool.reasks',
  'context.mean_tokens', 'context.peak_tokens', 'facts.retention', 'facts.critical_dropped', 'summary.judge.overall', 'summary.checks.coverage', 'tokens.input',
  'cost.total', 'latency.p50',
];


/** A fence longer than any backtick run in the text, so a prompt cannot close it early. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/** Strategies only one run has: named, never compared. */
function addedRemovedLines(diff: RunDiff): string[] {
  const ids = (list: string[]) => list.map((id) => `\`${id.replace(/`/g, '')}\``).join(', ');
  const lines: string[] = [];
  if (diff.removed.length) lines.push(`- **removed** (only in base, not compared): ${ids(diff.removed)}`);
  if (diff.added.length) lines.push(`- **added** (only in candidate, not compared): ${ids(diff.added)}`);
  return lines.length ? ['### Strategies in one run only', '', ...lines, ''] : [];
}

/** Field-by-field changes of shared strategies, then each changed prompt as a text diff. */
function strategyChangeLines(diff: RunDiff): string[] {
  const candCell = (f: FieldChange) => mdCell(`${f.cand ?? '–'}${f.patch ? ' (text diff below)' : ''}`);
  const rows = diff.changes.flatMap((c) => c.changes.map((f) => [mdCell(c.strategy), mdCell(f.field), mdCell(f.base ?? '–'), candCell(f)]));
  const lines: string[] = [];
  if (rows.length) lines.push('### What changed in shared strategies', '', table(['strategy', 'field', 'base', 'candidate'], rows), '');
  for (const c of diff.changes) {
    for (const f of c.changes) {
      if (!f.patch) continue;
      const bar = fence(f.patch);
      lines.push(`#### ${mdCell(c.strategy)}: summary prompt`, '', `${bar}diff`, f.patch.trimEnd(), bar, '');
    }
  }
  const note = unrecordedNote(diff);
  if (note) lines.push(mdCell(note), '');
  return lines;
}

/** The clustered interval of the accuracy change, or why there is none (too few transcripts). */
function diffCi(r: PairedResult | undefined): string {
  if (!r) return '–';
  if (r.low === undefined || r.high === undefined) return mdCell(`n/a: ${r.inconclusive ?? 'not computed'}`);
  return `[${signed(r.low, 3)}, ${signed(r.high, 3)}]`;
}

export function diffMarkdown(diff: RunDiff): string {
  const lines = [
    `## memeval diff: ${mdCell(diff.base.runId)} → ${mdCell(diff.cand.runId)}`,
    '',
    `Models: ${mdCell(modelLabel(diff.base.model))} → ${mdCell(modelLabel(diff.cand.model))}`,
    '',
  ];
  for (const w of diff.warnings) lines.push(`> ⚠️ **${mdCell(w)}**`, '');
  // The sentence diff.html opens with, so the terminal and a PR comment lead with it too.
  lines.push(`**Verdict:** ${mdCell(textOf(diffHeadline(diff)))}`, '');
  lines.push(...addedRemovedLines(diff), ...strategyChangeLines(diff));
  if (diff.promptChanges.length) {
    const promptRows = diff.promptChanges.map((c) => [mdCell(c.strategy), mdCell(c.base.join(', ') || '–'), mdCell(c.cand.join(', ') || '–')]);
    lines.push('### Summary prompts that changed', '', table(['strategy', 'base prompt', 'candidate prompt'], promptRows), '');
  }
  const rows = diff.strategies.map((s) => {
    const acc = s.metrics.find((m) => m.metric === 'probe.accuracy');
    const verdict = s.sharedProbes === 0 ? 'not compared (no shared probe)' : s.significant ? (s.passToFail > s.failToPass ? '❌ significant drop' : '✅ significant gain') : 'no significant change';
    const cells = [String(s.sharedProbes), String(s.passToFail), String(s.failToPass), s.mcnemarP.toPrecision(3), s.mcnemarPHolm.toPrecision(3), verdict];
    return [mdCell(s.strategy), `${n(acc?.base, 3)} → ${n(acc?.cand, 3)}`, diffCi(s.accuracyDiff), ...cells];
  });
  const head = ['strategy', 'accuracy', 'Δ 95% CI (clustered)', 'shared probes', 'pass→fail', 'fail→pass', 'McNemar p', 'Holm p', 'verdict'];
  lines.push(table(head, rows), '');
  const family = diff.strategies.filter((s) => s.sharedProbes > 0).length;
  if (family) lines.push(`Verdicts use the Holm-adjusted p (family: the ${family} strategies of this diff with shared probes; significant below ${SIGNIFICANCE_LEVEL}).`, '');
  const metricRows: string[][] = [];
  for (const s of diff.strategies) {
    for (const m of s.metrics) {
      if (!HEADLINE.includes(m.metric) || m.delta === undefined || Math.abs(m.delta) < 1e-12) continue;
      metricRows.push([mdCell(s.strategy), mdCell(m.metric), n(m.base), n(m.cand), `${signed(m.delta)}${m.worse ? ' ⚠️' : ''}`]);
    }
  }
  if (metricRows.length) lines.push('### Metric changes', '', table(['strategy', 'metric', 'base', 'candidate', 'Δ'], metricRows), '');
  if (diff.flips.length) {
    const flipRows = diff.flips.map((f) => [mdCell(f.strategy), mdCell(f.transcript), mdCell(f.probe), f.direction, `${n(f.baseRate, 2)} → ${n(f.candRate, 2)}`]);
    lines.push(`### Flipped probes (${diff.flips.length})`, '', table(['strategy', 'transcript', 'probe', 'flip', 'pass rate'], flipRows), '');
  }
  if (diff.summaryMoves.length) {
    const moveRows = diff.summaryMoves.map((m) => [mdCell(m.strategy), mdCell(m.transcript), String(m.index), mdCell(m.field), `${n(m.base, 2)} → ${n(m.cand, 2)}`]);
    lines.push(`### Summary grades that moved (${diff.summaryMoves.length})`, '', table(['strategy', 'transcript', 'summary', 'field', 'change'], moveRows), '');
  }
  return `${lines.join('\n')}\n`;
}
