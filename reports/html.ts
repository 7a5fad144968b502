// A single self-contained report.html: inline CSS, server-rendered SVG, one
// inline script (the failures filters, reports/drilldown.ts) allowed by its
// hash, no other script and no network. Every piece of run data passes
// through `esc` before it reaches markup.
import { join } from 'node:path';
import type { ProbeKind, RunResult, StageErrors, SummaryRecord, TurnRecord } from '../core/types.js';
import { ATTRIBUTIONS, accuracyByTag, judgeLabel, kindsPresent, kneeText, modelLabel, runNotice, shardLabel, stageErrors, strategyIds, summarize, sweepCurves, type StrategySummary, type SweepCurve, type ToolSummary } from './aggregate.js';
import { categoryKey, curveChart, heatCell, legend, lineChart, mergeIdentical, scatterChart, scatterLegend, sharedTokenTicks, stackedBars, styleFor, type ScatterPoint, type Series, type SeriesStyle } from './charts.js';
import { esc, num, pct } from './format.js';
import { median } from '../core/stats.js';
import { answerJudgeLine, judgeDisagreementSection } from './judge.js';
import { REBUILDABLE, writeFileAtomic } from '../core/atomic.js';
import { officialNavLink, officialSections } from './official.js';
import { longMemEvalNavLink, longMemEvalSection } from './longmemeval.js';
import { powerSections } from './power.js';
import { verdictSection } from './verdict.js';
import { DRILLDOWN_SCRIPT_CSP, drilldownSection } from './drilldown.js';
import type { Reporter } from './types.js';

export function usd(value: number | undefined): string {
  return value === undefined ? '–' : `$${value.toFixed(4)}`;
}

// The charts live in charts.ts; these stay exported from here for existing callers.
export { PALETTE, niceTicks, paretoFrontier, scatterChart, lineChart, type ScatterPoint, type Series, type SeriesStyle } from './charts.js';

export const BASE_CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:16px 24px;color:#1b1f24}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}nav a{margin-right:14px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right}
.meta td:first-child{font-weight:600;background:#f6f8fa}
.nw{white-space:nowrap}.ok{color:#1a7f37}.bad{color:#cf222e}.warn{color:#9a6700}.muted{color:#57606a}
details{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:4px 10px}
summary{cursor:pointer}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:8px;border-radius:4px;margin:4px 0}
.msg{border-left:3px solid #d0d7de;padding-left:8px;margin:6px 0}.role{font-weight:600;font-size:12px;color:#57606a}
svg.chart{display:block;width:100%;height:auto;background:#fff;border:1px solid #d0d7de;border-radius:6px}svg text{font:11px system-ui,sans-serif;fill:#1b1f24}svg.sw{vertical-align:-1px}
.multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:12px}.multiples figure{margin:0}.multiples figcaption{font-size:13px;margin:0 0 4px}td.heat{font-weight:600}
.banner{border:2px solid #cf222e;background:#ffebe9;color:#82071e;border-radius:6px;padding:10px 14px;margin:0 0 12px}.banner strong{margin-right:6px}
.legend span{display:inline-block;margin-right:14px}.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;vertical-align:-1px}
`;

export function page(title: string, body: string): string {
  return [...pageChunks(title, [body])].join('');
}

/** A page around a body given in pieces (the failures sidecar of a large run is written as it is made). */
export function* pageChunks(title: string, body: Iterable<string>): Generator<string> {
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${DRILLDOWN_SCRIPT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${BASE_CSS}</style></head>
<body>
`;
  yield* body;
  yield `
</body></html>
`;
}

// ---------- sections ----------

function calibrationText(c: RunResult['info']['judgeCalibration']): string {
  if (!c) return 'none on record (memeval calibrate --judge …)';
  const kappa = c.criteria.map((k) => `${k.criterion} κ ${k.kappa === null ? '–' : num(k.kappa, 2)}`).join(' · ');
  return `${c.items} labelled summaries, ${c.createdAt.slice(0, 10)}: ${kappa}`;
}

/** `3 (jwt 2 · github-token 1)`: how many distinct secret-like values the run's files show as [REDACTED]. */
export function redactionText(r: RunResult['info']['redactions']): string {
  if (!r) return 'not counted (run made by an older version)';
  if (r.total === 0) return 'none found';
  const families = Object.entries(r.byFamily)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([family, n]) => `${family} ${n}`);
  return `${r.total} (${families.join(' · ')})`;
}

/**
 * Imported facts left out as too generic to track (their words are said in
 * many turns): fact retention counts without them, and says so here.
 */
function genericFactsRow(i: RunResult['info']): [string, string][] {
  const n = (i.protocol?.datasets ?? []).reduce((sum, d) => sum + (d.genericFacts ?? 0), 0);
  return n > 0 ? [['facts too generic to count', `${n} (left out at import: fact retention and answerable do not count them)`]] : [];
}

/** How the run was made, when not in one process with one call per request: a shard, shards merged, the Batch API. */
function howMadeRows(i: RunResult['info']): [string, string][] {
  const rows: [string, string][] = [];
  if (i.shard) rows.push(['shard', `${shardLabel(i.shard)} (${i.shard.jobs.length} jobs): these numbers cover its jobs only`]);
  if (i.mergedFrom) rows.push(['merged from', i.mergedFrom.map((m) => `${m.runId} (shard ${m.shard})`).join(', ')]);
  if (i.batch) {
    const failed = i.batch.failedLines ? `, ${i.batch.failedLines} lines answered with an error` : '';
    rows.push(['calls', `through the Batch API: ${i.batch.requests} calls in ${i.batch.batches} batches${failed}; cost at batch prices, latency not measured`]);
  }
  return rows;
}

function header(run: RunResult): string {
  const i = run.info;
  const rows: [string, string][] = [
    ['run', i.runId],
    ['status', i.status ?? 'unknown'],
    ['started', i.startedAt],
    ['finished', i.finishedAt ?? '–'],
    ['answering model', modelLabel(i.model)],
    ['judge', judgeLabel(i.judge)],
    ['judge calibration', calibrationText(i.judgeCalibration)],
    ['answer judge calibration', answerJudgeLine(i)],
    ['repeat', String(i.repeat)],
    ['baseline strategy', i.baseline ?? '–'],
    ['config file', i.configFile ?? '–'],
    ['secrets redacted', redactionText(i.redactions)],
    ...genericFactsRow(i),
    ...howMadeRows(i),
    ['memeval', `${i.memevalVersion} · node ${i.node}${i.gitSha ? ` · git ${i.gitSha}` : ''}`],
  ];
  const table = rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('');
  const config = `<details><summary>resolved config</summary><pre>${esc(JSON.stringify(i.config, null, 2))}</pre></details>`;
  return `<h1>memeval report — ${esc(i.runId)}</h1><table class="meta">${table}</table>${config}`;
}

/** Shown above everything else when the run did not finish cleanly, so no number below reads as a verdict. */
function banner(run: RunResult): string {
  const notice = runNotice(run.info);
  if (!notice) return '';
  return `<div class="banner" role="alert"><strong>${esc(notice.label)}</strong>${esc(notice.reason)}</div>`;
}

// `62.0% (31/50)`: the count shows that errored (and unattempted) probes are in the denominator.
function accuracyCell(s: StrategySummary): string {
  if (s.accuracy === undefined) return '–';
  const ci = s.accuracyLow !== undefined ? ` <span class="muted">[${pct(s.accuracyLow)}, ${pct(s.accuracyHigh)}]</span>` : '';
  const graded = s.errors > 0 ? `<br><span class="muted">graded only: ${pct(s.accuracyGraded)} (${s.passed}/${s.graded})</span>` : '';
  const owed = s.unattempted > 0 ? `<br><span class="bad">${s.unattempted} not attempted, counted as not passed</span>` : '';
  return `${pct(s.accuracy)} (${s.passed}/${s.attempted + s.unattempted})${ci}${versusBaseline(s)}${graded}${owed}`;
}

// The figure stays on one line and its interval goes under it, so the two narrow columns stay readable.
function figure(rate: number, count: number, n: number, low: number | undefined, high: number | undefined): string {
  const ci = low !== undefined ? `<br><span class="muted">[${pct(low)}, ${pct(high)}]</span>` : '';
  return `<span class="nw">${pct(rate)} (${count}/${n})</span>${ci}`;
}

// `80.0% (8/10)`: out of probes with a known answerable; unknown ones are named, since they are left out.
function answerableCell(s: StrategySummary): string {
  const unknown = s.probes - s.answerableKnown;
  const left = unknown > 0 ? `<br><span class="muted">${unknown} unknown (no facts named), left out</span>` : '';
  if (s.answerableRate === undefined) return `–${left}`;
  return `${figure(s.answerableRate, s.answerable, s.answerableKnown, s.answerableLow, s.answerableHigh)}${left}`;
}

// `12.5% (1/8)`: missed out of answerable, errored answerable probes among the missed and named.
function readerGapCell(s: StrategySummary): string {
  if (s.readerGapRate === undefined) return '–';
  const errors = s.answerableErrors > 0 ? `<br><span class="warn">${s.answerableErrors} errored, counted as missed</span>` : '';
  return `${figure(s.readerGapRate, s.readerGap, s.answerable, s.readerGapLow, s.readerGapHigh)}${errors}`;
}

/** The one sentence that says what the two columns separate. */
export const ANSWERABLE_SENTENCE =
  'Answerable is the share of probes whose context held every fact they need (abstention probes naming no facts count as answerable; other probes naming no facts are unknown and left out), so a low rate means the strategy lost it; reader gap is the share of answerable probes that did not pass (an errored one counts as missed), so a high gap means the reader missed it.';

// Raw and Holm-adjusted p side by side; the mark and colour follow the adjusted one.
function versusBaseline(s: StrategySummary): string {
  const v = s.vsBaseline;
  if (!v) return '';
  const delta = `${v.delta > 0 ? '+' : ''}${(100 * v.delta).toFixed(1)} pts`;
  const text = `vs ${esc(v.baseline)}: ${delta}, p = ${v.p.toPrecision(3)}, Holm p = ${v.pHolm.toPrecision(3)}`;
  if (!v.significant) return `<br><span class="muted">${text}</span>`;
  return `<br><span class="${v.delta > 0 ? 'ok' : 'bad'}">* ${text}</span>`;
}

// Which call failed matters for the fix, so the stages with errors are named under the count.
function errorsCell(s: StrategySummary): string {
  if (!s.errors) return '<td class="n">0</td>';
  const parts: [string, number][] = [['answer', s.answerErrors], ['judge', s.answerJudgeErrors]];
  const stages = parts.filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`);
  return `<td class="n bad">${s.errors}${stages.length ? `<br><span class="muted">${stages.join(' · ')}</span>` : ''}</td>`;
}

// Judge means are over judged summaries only, so how many that is, and how many failed, stand beside them.
function judgedCell(s: StrategySummary): string {
  const errors = s.judgeErrors ? ` <span class="bad">(${s.judgeErrors} judge errors)</span>` : '';
  const opaque = s.summariesOpaque ? `<br><span class="muted">${s.summariesOpaque} opaque (server compaction), not graded</span>` : '';
  return `<td class="n">${s.judged} / ${s.summariesMade - s.summariesOpaque}${errors}${opaque}</td>`;
}

/** The tool columns of the overview, only when some strategy has tool probes (a run without tools gets no column of dashes). */
const TOOL_HEAD = ['tool accuracy (exact/tool probes) [95% CI]', 'args accuracy (matched/expected)', 'repeated calls', 're-asks'];

/** Expected arguments matched, with its count and interval; – when no probe expected a call. */
function argsFigure(t: ToolSummary): string {
  return t.argsAccuracy === undefined ? '–' : figure(t.argsAccuracy, t.argsMatched, t.argsExpected, t.argsLow, t.argsHigh);
}

function toolCells(s: StrategySummary): string[] {
  const t = s.tool;
  if (!t) return TOOL_HEAD.map(() => '<td class="n">–</td>');
  const errors = t.errors > 0 ? `<br><span class="warn">${t.errors} errored, counted as failed</span>` : '';
  return [
    `<td class="n tool-accuracy">${figure(t.accuracy, t.exactCalls, t.probes, t.accuracyLow, t.accuracyHigh)}${errors}</td>`,
    `<td class="n">${argsFigure(t)}</td>`,
    `<td class="n${t.repeatedCalls ? ' bad' : ''}">${t.repeatedCalls}</td>`,
    `<td class="n${t.reasks ? ' bad' : ''}">${t.reasks}</td>`,
  ];
}

function overview(rows: StrategySummary[]): string {
  const tools = rows.some((s) => s.tool);
  const head = ['strategy', 'accuracy (passed/attempted) [95% CI]', 'answerable (of known)', 'reader gap (missed/answerable)', ...(tools ? TOOL_HEAD : []), 'graded', 'errors', 'mean ctx tokens', 'peak ctx tokens', 'compression', 'fact retention', 'critical drops', 'summaries', 'judge overall', 'judge score', 'judged / made', 'check coverage', 'cost', 'prompt cache: cacheable · breaks · cost as billed', 'latency p50 / p95 ms', 'turn latency p50 / p95 ms'];
  const body = rows.map((s) => {
    const cells = [
      `<td>${esc(s.strategy)}${s.use ? ` <span class="muted">(${esc(s.use)})</span>` : ''}</td>`,
      `<td class="n">${accuracyCell(s)}</td>`,
      `<td class="n answerable">${answerableCell(s)}</td>`,
      `<td class="n reader-gap">${readerGapCell(s)}</td>`,
      ...(tools ? toolCells(s) : []),
      `<td class="n">${s.graded}</td>`,
      errorsCell(s),
      `<td class="n">${num(s.meanContextTokens)}</td>`,
      `<td class="n">${num(s.peakContextTokens)}</td>`,
      `<td class="n">${num(s.compression, 2)}</td>`,
      `<td class="n">${pct(s.factRetention)}</td>`,
      `<td class="n${s.criticalDrops ? ' bad' : ''}">${s.criticalDrops ?? '–'}</td>`,
      `<td class="n">${s.summariesMade}${s.summaryErrors ? ` <span class="bad">(+${s.summaryErrors} failed)</span>` : ''}</td>`,
      `<td class="n">${num(s.judgeOverall, 2)}</td>`,
      `<td class="n">${num(s.judgeScore, 2)}</td>`,
      judgedCell(s),
      `<td class="n">${pct(s.checksCoverage)}</td>`,
      `<td class="n">${usd(s.cost)}</td>`,
      `<td class="n">${pct(s.cacheableShare)} · ${num(s.cacheBreaks)} · ${usd(s.costCached)}</td>`,
      `<td class="n">${num(s.latencyP50)} / ${num(s.latencyP95)}</td>`,
      `<td class="n">${num(s.turnLatencyP50)} / ${num(s.turnLatencyP95)}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  const note = `<p class="muted">Accuracy is passed / attempted probes: an errored probe counts as not passed. The 95% CI is a Wilson interval at the effective sample size (probes / design effect from the transcripts' intraclass correlation). "vs" compares with the baseline strategy on the probes both have, an errored one counting as not passed (exact McNemar); * marks a Holm-adjusted p below 0.05 across the run's strategies.</p><p class="muted answerable-note">${esc(ANSWERABLE_SENTENCE)}</p>`;
  return `<h2 id="overview">Overview</h2>${note}<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${body.join('\n')}</table>`;
}

function stageRow(s: StageErrors): string {
  return `<tr><td>${esc(s.stage)}</td><td class="n${s.errors ? ' bad' : ''}">${s.errors} / ${s.attempted}</td><td>${esc(s.firstError ?? '–')}</td></tr>`;
}

/** Errors per stage over the whole run; only when some stage errored. */
function stageTable(run: RunResult): string {
  const stages = stageErrors(run);
  if (!stages.some((s) => s.errors > 0)) return '';
  return `<h3 id="errors">Errors per stage</h3><table class="stage-errors"><tr><th>stage</th><th>errors / attempted</th><th>first error</th></tr>${stages.map(stageRow).join('')}</table>`;
}

function kindTable(rows: StrategySummary[]): string {
  const kinds = kindsPresent(rows);
  const head = ['strategy', ...kinds, 'mean F1', 'pass^N'];
  // A heat table: the shade lets a weak kind stand out across strategies; the figure stays in the cell.
  const body = rows.map((s) => {
    const cells = kinds.map((k) => heatCell(s.accuracyByKind[k], pct(s.accuracyByKind[k]))).join('');
    return `<tr><td>${esc(s.strategy)}</td>${cells}${heatCell(s.meanF1, num(s.meanF1, 2))}${heatCell(s.passHatN, pct(s.passHatN))}</tr>`;
  });
  return `<h3>Accuracy by probe kind</h3><p class="muted">passed / attempted probes of each kind; mean F1 is over the answers, an errored one scoring 0 (tool probes expecting a call have none). Darker cells are higher.</p><table class="kinds"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${body.join('')}</table>${readerGapKindTable(rows)}`;
}

/** One strategy's row of the tool table; a strategy without tool probes says so rather than showing zeros. */
function toolRow(s: StrategySummary): string {
  const t = s.tool;
  if (!t) return `<tr><td>${esc(s.strategy)}</td><td colspan="8" class="muted">no tool probes</td></tr>`;
  const cells = [
    `${t.probes} <span class="muted">(${t.callProbes} call · ${t.noCallProbes} no call)</span>`,
    figure(t.accuracy, t.exactCalls, t.probes, t.accuracyLow, t.accuracyHigh),
    figure(t.rightToolRate, t.rightTool, t.probes, t.rightToolLow, t.rightToolHigh),
    argsFigure(t),
    String(t.extraCalls),
    `${t.repeatedCalls} <span class="muted">(over ${t.answered} answers)</span>`,
    `${t.reasks} <span class="muted">(over ${t.answered} answers)</span>`,
    String(t.errors),
  ];
  const bad = [false, false, false, false, t.extraCalls > 0, t.repeatedCalls > 0, t.reasks > 0, t.errors > 0];
  return `<tr><td>${esc(s.strategy)}</td>${cells.map((c, i) => `<td class="n${bad[i] ? ' bad' : ''}">${c}</td>`).join('')}</tr>`;
}

/** Tool use per strategy; nothing when no strategy has a tool probe. */
function toolTable(rows: StrategySummary[]): string {
  if (!rows.some((s) => s.tool)) return '';
  const head = ['strategy', 'tool probes', 'exact calls [95% CI]', 'right tool [95% CI]', 'args accuracy [95% CI]', 'extra calls', 'repeated calls', 're-asks', 'errors'];
  const note =
    'Over kind: tool probes: an exact call is a tool probe passed, the right tool with every expected argument matched, or no call and a passing answer where none was expected; args accuracy is expected arguments matched out of those expected, over probes expecting a call. An errored tool probe counts as failed in every rate (and matched no argument). Extra calls are calls beyond the graded one. Repeated calls (a call the conversation already made) and re-asks (asking the user for a value they gave) are counted over every answered probe, whatever its kind.';
  return `<h3 id="tools">Tool use</h3><p class="muted">${esc(note)}</p><table class="tools"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${rows.map(toolRow).join('')}</table>`;
}

/** Accuracy per transcript tag; only when the run's transcripts carry more than one tag value, since one tag is the overview again. */
function tagTable(run: RunResult): string {
  const { tags, strategies } = accuracyByTag(run);
  if (tags.length < 2) return '';
  const head = ['strategy', ...tags];
  const body = strategies.map(({ strategy, byTag }) => {
    const cells = tags.map((t) => `<td class="n">${pct(byTag[t].accuracy)} <span class="muted">(${byTag[t].passed}/${byTag[t].attempted})</span></td>`);
    return `<tr><td>${esc(strategy)}</td>${cells.join('')}</tr>`;
  });
  const note = 'passed / attempted probes on the transcripts with each tag (an errored probe counts as not passed); a transcript with several tags counts under each.';
  return `<h3 id="tags">Accuracy by tag</h3><p class="muted">${esc(note)}</p><table class="tags"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${body.join('')}</table>`;
}

// One colour per cause, Okabe–Ito hues; error and unknown are greys since they are not a memory failure.
const ATTRIBUTION_COLORS = ['#D55E00', '#E69F00', '#0072B2', '#CC79A7', '#6e7781', '#56B4E9', '#afb8c1'];

/** Why probes failed, counted per strategy (graders/attribution.ts): stacked bars, the counts in the table under them. */
function attributionTable(rows: StrategySummary[]): string {
  if (!rows.some((s) => ATTRIBUTIONS.some((a) => s.attribution[a] > 0))) return '';
  const head = ['strategy', ...ATTRIBUTIONS];
  const body = rows.map((s) => `<tr><td>${esc(s.strategy)}</td>${ATTRIBUTIONS.map((a) => `<td class="n">${s.attribution[a]}</td>`).join('')}</tr>`);
  const note =
    'Failed probes by cause: a needed fact (or, for a probe naming no facts, an evidence turn) was cut (trimmed), only a summary stood for it (lost-in-summary), only a server-compacted item that cannot be read stood for it (opaque), or it was in the context (present-but-missed); unknown: the probe names neither facts nor evidence.';
  const colors = ATTRIBUTIONS.map((_, i) => ATTRIBUTION_COLORS[i % ATTRIBUTION_COLORS.length]);
  const bars = stackedBars('failed probes by cause, per strategy', rows.map((s) => ({ label: s.strategy, counts: ATTRIBUTIONS.map((a) => s.attribution[a]) })), ATTRIBUTIONS, colors);
  return `<h3 id="attribution">Why probes failed</h3><p class="muted">${esc(note)}</p>${categoryKey(ATTRIBUTIONS, colors)}${bars}<table class="attribution"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${body.join('')}</table>`;
}

function readerGapKindCell(s: StrategySummary, kind: ProbeKind): string {
  const rate = s.readerGapByKind[kind];
  if (rate === undefined) return '<td class="n">–</td>';
  return `<td class="n">${pct(rate)} <span class="muted">(${s.readerMissedByKind[kind] ?? 0}/${s.answerableByKind[kind] ?? 0})</span></td>`;
}

function readerGapKindTable(rows: StrategySummary[]): string {
  const kinds = kindsPresent(rows);
  const head = ['strategy', ...kinds];
  const body = rows.map((s) => `<tr><td>${esc(s.strategy)}</td>${kinds.map((k) => readerGapKindCell(s, k)).join('')}</tr>`);
  const note = 'answerable probes of each kind that did not pass / answerable probes of that kind (an errored one counts as missed); – where no probe of the kind was answerable.';
  return `<h3>Reader gap by probe kind</h3><p class="muted">${esc(note)}</p><table class="reader-gap-kinds"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${body.join('')}</table>`;
}

function scatterSection(rows: StrategySummary[]): string {
  // Styles are assigned over every strategy, so a strategy looks the same here and in the per-transcript charts.
  const points: ScatterPoint[] = rows
    .map((s, i) => ({ s, style: styleFor(i) }))
    .filter(({ s }) => s.accuracy !== undefined && s.meanContextTokens !== undefined)
    .map(({ s, style }) => ({ label: s.strategy, x: s.meanContextTokens as number, y: s.accuracy as number, low: s.accuracyLow, high: s.accuracyHigh, style }));
  const chart = points.length ? `${scatterChart(points)}${scatterLegend(points)}` : '<p class="muted">No attempted probes with turn data.</p>';
  const note = 'Axes are fitted to the data, not to 0–100%. Whiskers are the 95% CI of accuracy. Outlined points joined by the dashed line form the Pareto frontier (no other strategy is both cheaper and more accurate).';
  return `<h2 id="tradeoff">Accuracy vs context size</h2><p class="muted">${esc(note)}</p>${chart}`;
}

/** The points of a curve as a table, so every figure the charts draw can be read exactly. */
function sweepTable(curve: SweepCurve): string {
  const rows = curve.points.map((p) => {
    const ci = p.accuracyLow !== undefined ? ` <span class="muted">[${pct(p.accuracyLow)}, ${pct(p.accuracyHigh)}]</span>` : '';
    const knee = curve.knee?.knee.strategy === p.strategy ? '<strong>knee</strong>' : '';
    return `<tr><td class="n">${esc(String(p.value))}</td><td>${esc(p.strategy)}</td><td class="n">${pct(p.accuracy)} (${p.passed}/${p.attempted})${ci}</td><td class="n">${num(p.meanContextTokens)}</td><td>${knee}</td></tr>`;
  });
  return `<table class="sweep-points"><tr><th>${esc(curve.option)}</th><th>strategy</th><th>accuracy (passed/attempted) [95% CI]</th><th>mean ctx tokens</th><th></th></tr>${rows.join('')}</table>`;
}

/** One curve: accuracy and mean context tokens over the swept value, side by side, the knee marked in both and named under them. */
function sweepFigure(curve: SweepCurve, index: number): string {
  const style = styleFor(index);
  const name = `${curve.group}: ${curve.option}${curve.fixed ? ` at ${curve.fixed.option} = ${curve.fixed.value}` : ''}`;
  const knee = curve.knee?.knee.value;
  const accuracy = curve.points.filter((p) => p.accuracy !== undefined).map((p) => ({ value: p.value, y: p.accuracy as number, low: p.accuracyLow, high: p.accuracyHigh, label: p.strategy }));
  const tokens = curve.points.filter((p) => p.meanContextTokens !== undefined).map((p) => ({ value: p.value, y: p.meanContextTokens as number, label: p.strategy }));
  const charts = [
    accuracy.length ? curveChart({ title: `probe accuracy over ${name}`, option: curve.option, yLabel: 'probe accuracy (95% CI)', kind: 'rate', knee, style }, accuracy) : '<p class="muted">No attempted probes.</p>',
    tokens.length ? curveChart({ title: `mean context tokens over ${name}`, option: curve.option, yLabel: 'mean context tokens', kind: 'count', knee, style }, tokens) : '<p class="muted">No turn records.</p>',
  ];
  return `<figure class="sweep"><figcaption><strong>${esc(name)}</strong> — <span class="knee-text">${esc(kneeText(curve))}</span></figcaption><div class="multiples">${charts.map((c) => `<div>${c}</div>`).join('')}</div>${sweepTable(curve)}</figure>`;
}

/** Sweeps as curves over the swept option, each with its knee; nothing when the run has no sweep. */
function sweepSection(run: RunResult, rows: StrategySummary[]): string {
  const curves = sweepCurves(run, rows);
  if (curves.length === 0) return '';
  const note =
    "Each sweep's strategies over the swept option, its values evenly spaced on the x axis. The knee is the smallest setting whose accuracy is at least the lower bound of the best point's 95% CI (the best point is the highest accuracy, the smallest setting on a tie). A grid (two swept options) has one curve per value of its second option.";
  return `<h2 id="sweeps">Sweeps</h2><p class="muted">${esc(note)}</p>${curves.map(sweepFigure).join('\n')}`;
}

function transcriptCharts(run: RunResult): string {
  const ids = strategyIds(run);
  const styles = new Map(ids.map((id, i) => [id, styleFor(i)]));
  // Grouped in one pass: filtering every record per chart made rendering quadratic in the transcripts.
  const byTranscript = new Map<string, Map<string, TurnRecord[]>>();
  for (const t of run.turns) {
    let byStrategy = byTranscript.get(t.transcript);
    if (!byStrategy) byTranscript.set(t.transcript, (byStrategy = new Map()));
    const list = byStrategy.get(t.strategy);
    if (list) list.push(t);
    else byStrategy.set(t.strategy, [t]);
  }
  if (!byTranscript.size) return '<h2 id="transcripts">Context tokens per turn</h2><p class="muted">No turn records.</p>';
  // Checked before any series is built: past the limit only the median chart is drawn.
  if (byTranscript.size > MAX_SMALL_MULTIPLES) return medianChart(run, ids, styles, byTranscript.size);
  const titles = new Map(run.info.transcripts.map((t) => [t.id, t.title]));
  const charts = [...byTranscript].map(([tid, byStrategy]) => ({
    tid,
    series: mergeIdentical(
      ids
        .map((sid) => ({ sid, turns: byStrategy.get(sid) ?? [] }))
        .filter((s) => s.turns.length > 0)
        .map(({ sid, turns }): Series => ({ label: sid, style: styles.get(sid) ?? styleFor(0), points: toPoints(turns) })),
    ),
  }));
  // One y scale for every transcript, so heights compare across the small multiples.
  const yTicks = sharedTokenTicks(charts.map((c) => c.series));
  const blocks = charts.map(({ tid, series }) => {
    const title = titles.get(tid);
    const merged = series.filter((s) => s.label.endsWith(' (identical)')).map((s) => s.label);
    const same = merged.length ? `<div class="muted identical">${esc(merged.join('; '))}</div>` : '';
    return `<figure><figcaption><strong>${esc(tid)}</strong>${title ? ` — ${esc(title)}` : ''}</figcaption>${lineChart(`context tokens per turn for ${tid}`, series, yTicks)}${same}</figure>`;
  });
  const key = legend(ids.map((id) => ({ label: id, style: styles.get(id) ?? styleFor(0) })), '○ ring = summary made at that turn; lines identical across strategies are drawn once');
  return `<h2 id="transcripts">Context tokens per turn</h2><p class="muted">Every chart shares one y scale, so heights compare across transcripts.</p>${key}<div class="multiples">${blocks.join('\n')}</div>`;
}

/**
 * Past this many transcripts one chart per transcript stops being readable
 * (and a benchmark's thousands made report.html tens of megabytes): the
 * section draws each strategy's median instead.
 */
export const MAX_SMALL_MULTIPLES = 48;

/** A strategy's median context tokens at each turn, over the transcripts that reached it; `summarized` where most made a summary there. */
export function medianPoints(turns: readonly TurnRecord[], strategy: string): Series['points'] {
  const byTurn = new Map<number, { tokens: number[]; summarized: number }>();
  for (const t of turns) {
    if (t.strategy !== strategy) continue;
    let at = byTurn.get(t.turn);
    if (!at) byTurn.set(t.turn, (at = { tokens: [], summarized: 0 }));
    at.tokens.push(t.contextTokens);
    if (t.summaries > 0) at.summarized++;
  }
  return [...byTurn]
    .sort((a, b) => a[0] - b[0])
    .map(([turn, at]) => ({ turn, tokens: median(at.tokens), summarized: at.summarized * 2 > at.tokens.length }));
}

function medianChart(run: RunResult, ids: string[], styles: Map<string, SeriesStyle>, transcripts: number): string {
  const series = mergeIdentical(
    ids
      .map((sid): Series => ({ label: sid, style: styles.get(sid) ?? styleFor(0), points: medianPoints(run.turns, sid) }))
      .filter((s) => s.points.length > 0),
  );
  const key = legend(ids.map((id) => ({ label: id, style: styles.get(id) ?? styleFor(0) })), '○ ring = most transcripts made a summary at that turn');
  const note = `${num(transcripts)} transcripts are too many to chart one by one: each line is a strategy's median context tokens at each turn, over the transcripts that reached it. turns.csv has every transcript's turns.`;
  return `<h2 id="transcripts">Context tokens per turn</h2><p class="muted">${esc(note)}</p>${key}${lineChart('median context tokens per turn over all transcripts', series, sharedTokenTicks([series]))}`;
}

function toPoints(turns: TurnRecord[]): Series['points'] {
  return [...turns].sort((a, b) => a.turn - b.turn).map((t) => ({ turn: t.turn, tokens: t.contextTokens, summarized: t.summaries > 0 }));
}

function summaryBlock(s: SummaryRecord): string {
  const g = s.grades;
  const rows: [string, string][] = [
    ['turns covered', `${s.coveredTurns[0]}–${s.coveredTurns[1]} (made at turn ${s.turn})`],
    ['summarizer', `${s.summarizer}${s.promptPath ? ` · ${s.promptPath}` : ''}${s.promptHash ? ` · ${s.promptHash}` : ''}`],
    ['tokens in / out', `${s.usage.inputTokens} / ${s.usage.outputTokens}`],
  ];
  if (s.opaque) rows.push(['graded', 'no: the server returned an item only it can read (server compaction), so there is no text to check or judge']);
  if (s.error) rows.push(['error', s.error]);
  if (g?.judge) {
    const j = g.judge;
    rows.push(['judge', j.error ? `error: ${j.error}` : `overall ${j.overall}/5 · coverage ${num(j.coverage, 2)} · faithfulness ${num(j.faithfulness, 2)} · temporal ${num(j.temporal, 2)} · format ${num(j.format, 2)} · score ${num(j.score, 2)} (${judgeLabel(j.model)})`]);
    if (j.invented.length) rows.push(['invented', j.invented.join(', ')]);
    for (const [k, v] of Object.entries(j.reasons)) rows.push([`reason: ${k}`, v]);
  }
  if (g?.checks) {
    const c = g.checks;
    rows.push(['fact coverage', `${pct(c.factCoverage)} · kept ${c.factsKept.join(', ') || '–'} · missing ${c.factsMissing.join(', ') || '–'}`]);
    rows.push(['unsupported', c.unsupported.join(', ') || '–']);
    rows.push(['words', `${c.words} / ${c.wordLimit}${c.overLimit ? ' (over limit)' : ''}`]);
    if (c.headingsMissing.length) rows.push(['headings missing', c.headingsMissing.join(', ')]);
    if (c.staleFacts.length) rows.push(['stale facts', c.staleFacts.join(', ')]);
  }
  if (g?.drift) rows.push(['drift', `lost ${g.drift.lost.join(', ') || '–'} · changed ${g.drift.changed.join(', ') || '–'} · reverted ${g.drift.reverted.join(', ') || '–'}`]);
  const table = rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('');
  const verdict = summaryVerdict(s);
  return `<details class="summary-rec"><summary>${esc(`${s.strategy} · ${s.transcript} · summary ${s.index}`)} — ${verdict}</summary><table class="meta">${table}</table><pre>${esc(s.text)}</pre></details>`;
}

function summaryVerdict(s: SummaryRecord): string {
  const judge = s.grades?.judge;
  if (s.error) return '<span class="bad">summarizer failed</span>';
  if (s.opaque) return 'opaque (server compaction)';
  if (judge?.error) return '<span class="warn">judge error</span>';
  return judge ? `judge ${judge.overall}/5` : 'not judged';
}

/**
 * Summaries shown in report.html at most. A benchmark run makes hundreds per
 * strategy; the report shows those most worth reading and summaries.csv has all.
 */
export const MAX_SUMMARY_BLOCKS = 120;

/** Lower is shown first: failed summaries, then judge errors, then by judge score and fact coverage, worst first. */
function summaryConcern(s: SummaryRecord): number {
  if (s.error) return -3;
  if (s.grades?.judge?.error) return -2;
  const score = s.grades?.judge?.score ?? 1;
  const coverage = s.grades?.checks?.factCoverage ?? 1;
  return Math.min(Number.isNaN(score) ? 1 : score, Number.isNaN(coverage) ? 1 : coverage);
}

/**
 * The rule a rule-based summary judge graded by, said once: its records carry
 * no reasons (they would be the rule's words in every record). Empty for an LLM
 * judge, whose reasons each summary block shows.
 */
function summaryRuleNote(run: RunResult): string {
  const judge = run.info.protocol?.summaryJudge;
  return judge?.rule ? `<p class="muted">${esc(`The summary judge is a fixed rule (${judge.name}), not a model: ${judge.rule}.`)}</p>` : '';
}

function summariesSection(run: RunResult): string {
  const all = run.summaries;
  if (all.length === 0) return `<h2 id="summaries">Summaries (0)</h2><p class="muted">No strategy made a summary.</p>`;
  const heading = `<h2 id="summaries">Summaries (${all.length})</h2>${summaryRuleNote(run)}`;
  if (all.length <= MAX_SUMMARY_BLOCKS) return `${heading}${all.map(summaryBlock).join('\n')}`;
  // The most concerning first; ties keep the run's order.
  const shown = all
    .map((s, i) => ({ s, i }))
    .sort((a, b) => summaryConcern(a.s) - summaryConcern(b.s) || a.i - b.i)
    .slice(0, MAX_SUMMARY_BLOCKS)
    .map(({ s }) => s);
  const note = `Showing the ${MAX_SUMMARY_BLOCKS} of ${all.length} summaries most worth a look: failed ones, judge errors, then the lowest judge score or fact coverage first. summaries.csv has every summary, its grades and its text.`;
  return `${heading}<p class="warn">${esc(note)}</p>${shown.map(summaryBlock).join('\n')}`;
}

function sweepNavLink(run: RunResult): string {
  return run.info.strategies.some((s) => s.sweep) ? '<a href="#sweeps">sweeps</a>' : '';
}

export function renderReport(run: RunResult): string {
  const rows = summarize(run);
  const nav = `<nav><a href="#verdict">verdict</a><a href="#overview">overview</a>${officialNavLink(run)}${longMemEvalNavLink(run)}${sweepNavLink(run)}${rows.some((s) => s.tool) ? '<a href="#tools">tool use</a>' : ''}<a href="#tradeoff">trade-off</a><a href="#transcripts">per transcript</a><a href="#failures">failures</a><a href="#summaries">summaries</a></nav>`;
  const body = [banner(run), verdictSection(run, rows), header(run), nav, overview(rows), judgeDisagreementSection(run), stageTable(run), kindTable(rows), toolTable(rows), tagTable(run), attributionTable(rows), officialSections(run), longMemEvalSection(run), powerSections(run), sweepSection(run, rows), scatterSection(rows), transcriptCharts(run), drilldownSection(run), summariesSection(run)];
  return page(`memeval ${run.info.runId}`, body.join('\n'));
}

export const htmlReporter: Reporter = {
  name: 'html',
  async write(run: RunResult, dir: string): Promise<string[]> {
    const path = join(dir, 'report.html');
    writeFileAtomic(path, renderReport(run), REBUILDABLE);
    return [path];
  },
};
