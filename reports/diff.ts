// Before/after comparison of two runs: metric deltas, probes that flipped,
// summaries whose grades moved, and per-strategy significance so a one-probe
// wobble is not reported as a regression.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'csv-stringify/sync';
import { isInputError } from '../harness/errors.js';
import type { ProbeRecord, RunResult, SummaryRecord } from '../harness/types.js';
import { METRIC_NAMES, isProbeError, metricDef, strategyIds, summarizeStrategy } from './aggregate.js';
import { esc, num, page, pct } from './html.js';
import { loadRun, runDirOf, writeFileAtomic } from './load.js';
import { diffMarkdown } from './markdown.js';
import { mcnemarExact, pairedBootstrap, type PairedResult } from './stats.js';

export const SIGNIFICANCE_LEVEL = 0.05;

export interface MetricDelta {
  metric: string;
  base?: number;
  cand?: number;
  delta?: number;
  /** True when the change goes the wrong way for this metric. */
  worse: boolean;
}

export interface ProbeFlip {
  strategy: string;
  transcript: string;
  probe: string;
  direction: 'pass→fail' | 'fail→pass';
  /** Share of graded repeats that passed, before and after. */
  baseRate: number;
  candRate: number;
}

export interface SummaryMove {
  strategy: string;
  transcript: string;
  index: number;
  field: string;
  base?: number;
  cand?: number;
}

export interface StrategyDiff {
  strategy: string;
  inBase: boolean;
  inCand: boolean;
  metrics: MetricDelta[];
  /** Probes graded in both runs (matched on transcript + probe, repeats aggregated). */
  sharedProbes: number;
  passToFail: number;
  failToPass: number;
  /** Exact McNemar p-value on the shared probes. */
  mcnemarP: number;
  /** Clustered paired bootstrap of the accuracy difference (candidate − base) on the shared probes. */
  accuracyDiff?: PairedResult;
  significant: boolean;
}

/** A strategy whose summary prompt differs between the runs (`path · hash` of each prompt used). */
export interface PromptChange {
  strategy: string;
  base: string[];
  cand: string[];
}

export interface RunDiff {
  base: { runId: string; model: string };
  cand: { runId: string; model: string };
  strategies: StrategyDiff[];
  flips: ProbeFlip[];
  summaryMoves: SummaryMove[];
  promptChanges: PromptChange[];
}

/** Pass rate over graded repeats; a probe "passes" overall when more than half of its repeats passed. */
export interface ProbeOutcome {
  transcript: string;
  probe: string;
  rate: number;
  passed: boolean;
}

export function probeOutcomes(records: ProbeRecord[]): Map<string, ProbeOutcome> {
  const groups = new Map<string, ProbeRecord[]>();
  for (const r of records) {
    if (isProbeError(r)) continue;
    const key = `${r.transcript}\u0000${r.probe}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const out = new Map<string, ProbeOutcome>();
  for (const [key, list] of groups) {
    const rate = list.filter((r) => r.passed).length / list.length;
    out.set(key, { transcript: list[0].transcript, probe: list[0].probe, rate, passed: rate > 0.5 });
  }
  return out;
}

export interface PairedProbes {
  pairs: { base: ProbeOutcome; cand: ProbeOutcome }[];
  passToFail: number;
  failToPass: number;
  mcnemarP: number;
  bootstrap?: PairedResult;
}

/** Pairs two sets of probe records on transcript + probe and tests the accuracy change. */
export function compareProbes(base: ProbeRecord[], cand: ProbeRecord[]): PairedProbes {
  const b = probeOutcomes(base);
  const c = probeOutcomes(cand);
  const pairs = [...b.entries()].filter(([k]) => c.has(k)).map(([k, v]) => ({ base: v, cand: c.get(k) as ProbeOutcome }));
  const passToFail = pairs.filter((p) => p.base.passed && !p.cand.passed).length;
  const failToPass = pairs.filter((p) => !p.base.passed && p.cand.passed).length;
  return {
    pairs,
    passToFail,
    failToPass,
    mcnemarP: mcnemarExact(passToFail, failToPass),
    bootstrap: pairedBootstrap(pairs.map((p) => ({ cluster: p.base.transcript, base: p.base.rate, cand: p.cand.rate }))),
  };
}

function metricDeltas(base: RunResult, cand: RunResult, strategy: string): MetricDelta[] {
  const b = summarizeStrategy(base, strategy, false);
  const c = summarizeStrategy(cand, strategy, false);
  const extra: [string, boolean, number | undefined, number | undefined][] = [
    ['tokens.input', false, b.inputTokens, c.inputTokens],
    ['tokens.output', false, b.outputTokens, c.outputTokens],
    ['summary.tokens_in', false, b.summaryTokensIn, c.summaryTokensIn],
    ['summary.tokens_out', false, b.summaryTokensOut, c.summaryTokensOut],
  ];
  const rows: [string, boolean, number | undefined, number | undefined][] = METRIC_NAMES.map((name) => {
    const d = metricDef(name)!;
    return [name, d.higherIsBetter, d.read(b), d.read(c)];
  });
  return [...rows, ...extra].map(([metric, higherIsBetter, bv, cv]) => {
    const delta = bv !== undefined && cv !== undefined ? cv - bv : undefined;
    const worse = delta !== undefined && !isNoise(metric, bv, delta) && (higherIsBetter ? delta < -1e-12 : delta > 1e-12);
    return { metric, base: bv, cand: cv, delta, worse };
  });
}

/** Latency moves run to run on any machine: under 10% (or 5 ms) it is not flagged as worse. */
function isNoise(metric: string, base: number | undefined, delta: number): boolean {
  if (!metric.startsWith('latency.')) return false;
  return Math.abs(delta) < Math.max(5, 0.1 * Math.abs(base ?? 0));
}

function strategyDiff(base: RunResult, cand: RunResult, strategy: string): { diff: StrategyDiff; flips: ProbeFlip[] } {
  const mine = (run: RunResult) => run.probes.filter((p) => p.strategy === strategy);
  const cmp = compareProbes(mine(base), mine(cand));
  const flips: ProbeFlip[] = cmp.pairs
    .filter((p) => p.base.passed !== p.cand.passed)
    .map((p) => ({
      strategy,
      transcript: p.base.transcript,
      probe: p.base.probe,
      direction: p.base.passed ? 'pass→fail' : 'fail→pass',
      baseRate: p.base.rate,
      candRate: p.cand.rate,
    }));
  const diff: StrategyDiff = {
    strategy,
    inBase: strategyIds(base).includes(strategy),
    inCand: strategyIds(cand).includes(strategy),
    metrics: metricDeltas(base, cand, strategy),
    sharedProbes: cmp.pairs.length,
    passToFail: cmp.passToFail,
    failToPass: cmp.failToPass,
    mcnemarP: cmp.mcnemarP,
    accuracyDiff: cmp.bootstrap,
    significant: cmp.mcnemarP < SIGNIFICANCE_LEVEL,
  };
  return { diff, flips };
}

const SUMMARY_FIELDS: [string, (s: SummaryRecord) => number | undefined][] = [
  ['judge.overall', (s) => (s.grades?.judge?.error ? undefined : s.grades?.judge?.overall)],
  ['judge.coverage', (s) => (s.grades?.judge?.error ? undefined : s.grades?.judge?.coverage)],
  ['judge.faithfulness', (s) => (s.grades?.judge?.error ? undefined : s.grades?.judge?.faithfulness)],
  ['judge.score', (s) => (s.grades?.judge?.error ? undefined : s.grades?.judge?.score)],
  ['checks.coverage', (s) => s.grades?.checks.factCoverage],
  ['checks.unsupported', (s) => s.grades?.checks.unsupported.length],
  ['drift.lost', (s) => s.grades?.drift?.lost.length],
];

function promptsOf(run: RunResult, strategy: string): string[] {
  const used = run.summaries.filter((s) => s.strategy === strategy && s.promptHash).map((s) => `${s.promptPath ?? '?'} · ${s.promptHash}`);
  return [...new Set(used)].sort();
}

/** The "before/after a prompt change" job: say which strategies' summary prompts changed. */
function promptChanges(base: RunResult, cand: RunResult, ids: string[]): PromptChange[] {
  return ids
    .map((strategy) => ({ strategy, base: promptsOf(base, strategy), cand: promptsOf(cand, strategy) }))
    .filter((c) => c.base.join('\n') !== c.cand.join('\n'));
}

function summaryMoves(base: RunResult, cand: RunResult): SummaryMove[] {
  const key = (s: SummaryRecord) => `${s.strategy}\u0000${s.transcript}\u0000${s.index}`;
  const before = new Map(base.summaries.map((s) => [key(s), s]));
  const moves: SummaryMove[] = [];
  for (const c of cand.summaries) {
    const b = before.get(key(c));
    if (!b) continue;
    for (const [field, read] of SUMMARY_FIELDS) {
      const bv = read(b);
      const cv = read(c);
      if (bv === cv || (bv !== undefined && cv !== undefined && Math.abs(bv - cv) < 1e-9)) continue;
      moves.push({ strategy: c.strategy, transcript: c.transcript, index: c.index, field, base: bv, cand: cv });
    }
  }
  return moves;
}

export function diffRuns(base: RunResult, cand: RunResult): RunDiff {
  const ids = [...new Set([...strategyIds(base), ...strategyIds(cand)])];
  const parts = ids.map((id) => strategyDiff(base, cand, id));
  return {
    base: { runId: base.info.runId, model: base.info.model },
    cand: { runId: cand.info.runId, model: cand.info.model },
    strategies: parts.map((p) => p.diff),
    flips: parts.flatMap((p) => p.flips),
    summaryMoves: summaryMoves(base, cand),
    promptChanges: promptChanges(base, cand, ids),
  };
}

// ---------- files ----------

export function diffCsv(diff: RunDiff): string {
  const rows: (string | number)[][] = [['strategy', 'metric', 'base', 'candidate', 'delta', 'worse']];
  for (const s of diff.strategies) {
    for (const m of s.metrics) rows.push([s.strategy, m.metric, m.base ?? '', m.cand ?? '', m.delta ?? '', m.worse ? 'true' : 'false']);
    rows.push([s.strategy, 'probe.shared', '', s.sharedProbes, '', '']);
    rows.push([s.strategy, 'probe.pass_to_fail', '', s.passToFail, '', '']);
    rows.push([s.strategy, 'probe.fail_to_pass', '', s.failToPass, '', '']);
    rows.push([s.strategy, 'probe.mcnemar_p', '', s.mcnemarP, '', '']);
    if (s.accuracyDiff) {
      rows.push([s.strategy, 'probe.accuracy_diff_ci_low', '', s.accuracyDiff.low, '', '']);
      rows.push([s.strategy, 'probe.accuracy_diff_ci_high', '', s.accuracyDiff.high, '', '']);
    }
    rows.push([s.strategy, 'significant', '', s.significant ? 'true' : 'false', '', '']);
  }
  return stringify(rows);
}

function signed(v: number | undefined, digits: number): string {
  if (v === undefined) return '–';
  return `${v > 0 ? '+' : ''}${num(v, digits)}`;
}

export function diffHtml(diff: RunDiff): string {
  const blocks = diff.strategies.map((s) => {
    const verdict = s.significant
      ? `<span class="${s.passToFail > s.failToPass ? 'bad' : 'ok'}">significant change</span>`
      : '<span class="muted">no significant accuracy change</span>';
    const ci = s.accuracyDiff ? ` · accuracy Δ ${signed(s.accuracyDiff.diff * 100, 1)} pts [${signed(s.accuracyDiff.low * 100, 1)}, ${signed(s.accuracyDiff.high * 100, 1)}]` : '';
    const rows = s.metrics
      .filter((m) => m.base !== undefined || m.cand !== undefined)
      .map((m) => `<tr><td>${esc(m.metric)}</td><td class="n">${num(m.base, 3)}</td><td class="n">${num(m.cand, 3)}</td><td class="n${m.worse ? ' bad' : ''}">${signed(m.delta, 3)}</td></tr>`);
    return `<h2>${esc(s.strategy)}</h2><p>${verdict} · shared probes ${s.sharedProbes} · pass→fail ${s.passToFail} · fail→pass ${s.failToPass} · McNemar p = ${num(s.mcnemarP, 3)}${ci}</p>
<table><tr><th>metric</th><th>base</th><th>candidate</th><th>Δ</th></tr>${rows.join('')}</table>`;
  });
  const flips = diff.flips.map((f) => `<tr><td>${esc(f.strategy)}</td><td>${esc(f.transcript)}</td><td>${esc(f.probe)}</td><td class="${f.direction === 'pass→fail' ? 'bad' : 'ok'}">${esc(f.direction)}</td><td class="n">${pct(f.baseRate)} → ${pct(f.candRate)}</td></tr>`);
  const moves = diff.summaryMoves.map((m) => `<tr><td>${esc(m.strategy)}</td><td>${esc(m.transcript)}</td><td class="n">${m.index}</td><td>${esc(m.field)}</td><td class="n">${num(m.base, 2)} → ${num(m.cand, 2)}</td></tr>`);
  const prompts = diff.promptChanges.map((c) => `<tr><td>${esc(c.strategy)}</td><td>${esc(c.base.join(', ') || '–')}</td><td>${esc(c.cand.join(', ') || '–')}</td></tr>`);
  const promptTable = prompts.length ? `<h2>Summary prompts that changed</h2><table><tr><th>strategy</th><th>base</th><th>candidate</th></tr>${prompts.join('')}</table>` : '';
  const body = `<h1>memeval diff</h1><p>base <b>${esc(diff.base.runId)}</b> → candidate <b>${esc(diff.cand.runId)}</b></p>
${promptTable}
${blocks.join('\n')}
<h2>Flipped probes (${diff.flips.length})</h2>${flips.length ? `<table><tr><th>strategy</th><th>transcript</th><th>probe</th><th>flip</th><th>pass rate</th></tr>${flips.join('')}</table>` : '<p class="muted">None.</p>'}
<h2>Summary grades that moved (${diff.summaryMoves.length})</h2>${moves.length ? `<table><tr><th>strategy</th><th>transcript</th><th>summary</th><th>field</th><th>change</th></tr>${moves.join('')}</table>` : '<p class="muted">None.</p>'}`;
  return page(`memeval diff ${diff.base.runId} → ${diff.cand.runId}`, body);
}

/** Writes diff.md, diff.csv and diff.html into `dir`. */
export function writeDiff(diff: RunDiff, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files: [string, string][] = [
    ['diff.md', diffMarkdown(diff)],
    ['diff.csv', diffCsv(diff)],
    ['diff.html', diffHtml(diff)],
  ];
  return files.map(([name, text]) => {
    const path = join(dir, name);
    writeFileAtomic(path, text);
    return path;
  });
}

const USAGE = 'usage: memeval diff BASE_RUN CANDIDATE_RUN [--out DIR]';

/** `memeval diff BASE_RUN CANDIDATE_RUN [--out DIR]`: exit 0, or 2 on bad input or usage. */
export async function diffCommand(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { out: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 2) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const [basePath, candPath] = positionals;
    const diff = diffRuns(loadRun(basePath), loadRun(candPath));
    const dir = values.out ?? runDirOf(candPath);
    const written = writeDiff(diff, dir);
    process.stdout.write(`${diffMarkdown(diff)}\nwrote ${written.join(', ')}\n`);
    return 0;
  } catch (err) {
    if (isInputError(err)) {
      for (const line of err.message.split('\n')) process.stderr.write(`${line}\n`);
      return 2;
    }
    if (err instanceof TypeError && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`memeval diff: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
}
