// Markdown for gate results (gate.md, the GitHub step summary) and diffs (diff.md).
import type { RunResult } from '../harness/types.js';
import { judgeLabel, modelLabel } from './aggregate.js';
import type { RunDiff } from './diff.js';
import type { GateResult } from './gate.js';

/** Makes text safe inside a Markdown table cell: no pipes, no line breaks, no raw HTML. */
export function mdCell(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ');
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function n(v: number | undefined, digits = 4): string {
  if (v === undefined) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

const ICON = { pass: '✅ pass', fail: '❌ fail', skipped: '⏭️ skipped' } as const;

export function gateMarkdown(run: RunResult, results: GateResult[], warnings: string[] = [], failure?: string): string {
  const failed = results.filter((r) => r.status === 'fail').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const checked = results.length - skipped;
  const skipNote = skipped ? ` (${skipped} skipped)` : '';
  const verdict = failure
    ? `💥 the run failed: ${mdCell(failure)}`
    : failed
      ? `❌ ${failed} of ${checked} gate checks failed${skipNote}`
      : `✅ all ${checked} gate checks passed${skipNote}`;
  const lines = [
    `## memeval gate — ${mdCell(run.info.runId)}`,
    '',
    `Answering model: **${mdCell(modelLabel(run.info.model))}** · judge: ${mdCell(judgeLabel(run.info.judge))}`,
    '',
    verdict,
  ];
  for (const w of warnings) lines.push('', `> ⚠️ **${mdCell(w)}**`);
  if (results.length) {
    const rows = results.map((r) => [ICON[r.status], mdCell(r.strategy), mdCell(r.gate.metric), n(r.value), n(r.baseline), r.pValue === undefined ? '–' : r.pValue.toPrecision(3), mdCell(r.message)]);
    lines.push('', table(['result', 'strategy', 'metric', 'value', 'baseline', 'p', 'detail'], rows));
  }
  return `${lines.join('\n')}\n`;
}

function signed(v: number | undefined, digits = 4): string {
  if (v === undefined) return '–';
  return `${v > 0 ? '+' : ''}${n(v, digits)}`;
}

/** Metrics worth a line in the diff summary; diff.csv has all of them. */
const HEADLINE = ['probe.accuracy', 'probe.errors', 'context.mean_tokens', 'context.peak_tokens', 'facts.retention', 'facts.critical_dropped', 'summary.judge.overall', 'summary.checks.coverage', 'tokens.input', 'cost.total', 'latency.p50'];

export function diffMarkdown(diff: RunDiff): string {
  const lines = [
    `## memeval diff: ${mdCell(diff.base.runId)} → ${mdCell(diff.cand.runId)}`,
    '',
    `Models: ${mdCell(modelLabel(diff.base.model))} → ${mdCell(modelLabel(diff.cand.model))}`,
    '',
  ];
  if (diff.promptChanges.length) {
    const promptRows = diff.promptChanges.map((c) => [mdCell(c.strategy), mdCell(c.base.join(', ') || '–'), mdCell(c.cand.join(', ') || '–')]);
    lines.push('### Summary prompts that changed', '', table(['strategy', 'base prompt', 'candidate prompt'], promptRows), '');
  }
  const rows = diff.strategies.map((s) => {
    const acc = s.metrics.find((m) => m.metric === 'probe.accuracy');
    const ci = s.accuracyDiff ? `[${signed(s.accuracyDiff.low, 3)}, ${signed(s.accuracyDiff.high, 3)}]` : '–';
    const verdict = s.significant ? (s.passToFail > s.failToPass ? '❌ significant drop' : '✅ significant gain') : 'no significant change';
    return [mdCell(s.strategy), `${n(acc?.base, 3)} → ${n(acc?.cand, 3)}`, ci, String(s.sharedProbes), String(s.passToFail), String(s.failToPass), s.mcnemarP.toPrecision(3), verdict];
  });
  lines.push(table(['strategy', 'accuracy', 'Δ 95% CI (clustered)', 'shared probes', 'pass→fail', 'fail→pass', 'McNemar p', 'verdict'], rows), '');
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
