// One summary row per strategy, and the named metrics gates and diffs use.
import { PROBE_KINDS } from '../harness/types.js';
import type { Attribution, ProbeKind, ProbeRecord, RunResult, SummaryRecord, TurnRecord } from '../harness/types.js';
import { clusteredMeanCI, mean, passHatN, percentile, type RepeatCount } from './stats.js';

export const ATTRIBUTIONS: readonly Attribution[] = ['trimmed', 'lost-in-summary', 'present-but-missed', 'abstain-fail', 'error'];

/** How every report names the answering model; `offline` is not an LLM and must never look like one. */
export function modelLabel(model: string): string {
  return model === 'offline' ? 'offline (built-in extractive reader, not an LLM)' : model;
}

/** The grader's name in reports; the offline judge applies documented rules and is not an LLM either. */
export function judgeLabel(model: string): string {
  return model === 'offline' ? 'offline (built-in rule-based grader, not an LLM)' : model;
}

export function modelKind(model: string): string {
  return model === 'offline' ? 'built-in offline reader (not an LLM)' : 'LLM';
}

export interface StrategySummary {
  strategy: string;
  use?: string;
  transcripts: number;
  turns: number;
  meanContextTokens?: number;
  peakContextTokens?: number;
  meanFullTokens?: number;
  /** Mean context tokens / mean full-history tokens (1 = no saving). */
  compression?: number;
  /** Mean over turn records of present / (present + missing) facts. */
  factRetention?: number;
  /** Distinct transcript × critical fact pairs dropped at any turn. */
  criticalDrops: number;
  turnsWithCriticalDrop: number;
  summariesMade: number;
  summaryErrors: number;
  summaryTokensIn: number;
  summaryTokensOut: number;
  probes: number;
  graded: number;
  passed: number;
  /** passed / graded; errors are excluded from the denominator and never count as a pass. */
  accuracy?: number;
  accuracyLow?: number;
  accuracyHigh?: number;
  accuracyByKind: Partial<Record<ProbeKind, number>>;
  meanF1?: number;
  /** pass^N over the run's repeat count, only when repeat > 1. */
  passHatN?: number;
  errors: number;
  attribution: Record<Attribution, number>;
  inputTokens: number;
  /** API-reported input tokens over our tiktoken count, on calls that report usage (1 = the counts agree). */
  apiVsCountedInput?: number;
  outputTokens: number;
  /** Nominal cost of every answer, cache hits included, so warm and cold runs compare. */
  cost?: number;
  latencyMean?: number;
  latencyP50?: number;
  latencyP95?: number;
  judgeOverall?: number;
  judgeCoverage?: number;
  judgeFaithfulness?: number;
  judgeScore?: number;
  judged: number;
  judgeErrors: number;
  checksCoverage?: number;
  unsupportedClaims: number;
  driftLost: number;
}

/**
 * A probe record counts as an error when the call or its grading failed, or
 * when it was never graded (`passed` unset). Errors are reported, not graded.
 */
export function isProbeError(r: ProbeRecord): boolean {
  return r.error !== undefined || r.judge?.verdict === 'error' || r.passed === undefined;
}

/** Strategy ids in config order, then any that only appear in records. */
export function strategyIds(run: RunResult): string[] {
  const ids = run.info.strategies.map((s) => s.id);
  for (const r of [...run.turns, ...run.probes, ...run.summaries]) if (!ids.includes(r.strategy)) ids.push(r.strategy);
  return ids;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function retentionOf(t: TurnRecord): number | undefined {
  const total = t.factsPresent.length + t.factsMissing.length;
  return total === 0 ? undefined : t.factsPresent.length / total;
}

function turnMetrics(turns: TurnRecord[]) {
  const context = turns.map((t) => t.contextTokens);
  const full = turns.map((t) => t.fullTokens);
  const meanContextTokens = mean(context);
  const meanFullTokens = mean(full);
  const dropped = new Set<string>();
  for (const t of turns) for (const f of t.criticalDropped) dropped.add(`${t.transcript}\u0000${f}`);
  return {
    turns: turns.length,
    meanContextTokens,
    // A reduce, not Math.max(...): spreading 100k+ turns overflows the call stack.
    peakContextTokens: context.length ? context.reduce((a, b) => (b > a ? b : a)) : undefined,
    meanFullTokens,
    compression: meanContextTokens !== undefined && meanFullTokens ? meanContextTokens / meanFullTokens : undefined,
    factRetention: mean(turns.map(retentionOf).filter((v): v is number => v !== undefined)),
    criticalDrops: dropped.size,
    turnsWithCriticalDrop: turns.filter((t) => t.criticalDropped.length > 0).length,
  };
}

function byTranscript(records: ProbeRecord[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const r of records) {
    const list = groups.get(r.transcript) ?? [];
    list.push(r.passed ? 1 : 0);
    groups.set(r.transcript, list);
  }
  return [...groups.values()];
}

/** Graded repeats and passes per transcript × probe, for pass^N. */
export function repeatCounts(graded: ProbeRecord[]): RepeatCount[] {
  const counts = new Map<string, RepeatCount>();
  for (const r of graded) {
    const key = `${r.transcript}\u0000${r.probe}`;
    const c = counts.get(key) ?? { n: 0, c: 0 };
    c.n++;
    if (r.passed) c.c++;
    counts.set(key, c);
  }
  return [...counts.values()];
}

function countAgreement(probes: ProbeRecord[]): number | undefined {
  const both = probes.filter((r) => !r.error && r.countedInputTokens && r.usage?.inputTokens);
  const counted = sum(both.map((r) => r.countedInputTokens ?? 0));
  return counted > 0 ? sum(both.map((r) => r.usage?.inputTokens ?? 0)) / counted : undefined;
}

function accuracyOf(records: ProbeRecord[]): number | undefined {
  return records.length ? records.filter((r) => r.passed).length / records.length : undefined;
}

function probeMetrics(probes: ProbeRecord[], repeat: number, withCI: boolean) {
  const graded = probes.filter((r) => !isProbeError(r));
  const passed = graded.filter((r) => r.passed).length;
  const ci = withCI ? clusteredMeanCI(byTranscript(graded)) : undefined;
  const accuracyByKind: Partial<Record<ProbeKind, number>> = {};
  for (const kind of PROBE_KINDS) {
    const acc = accuracyOf(graded.filter((r) => r.kind === kind));
    if (acc !== undefined) accuracyByKind[kind] = acc;
  }
  const attribution = Object.fromEntries(ATTRIBUTIONS.map((a) => [a, 0])) as Record<Attribution, number>;
  for (const r of probes) if (r.attribution) attribution[r.attribution]++;
  const costs = probes.map((r) => r.cost).filter((c): c is number => c !== undefined);
  // Cache hits made no call, so their near-zero latency would flatter the numbers.
  const latencies = probes.filter((r) => !r.cached && r.latencyMs !== undefined).map((r) => r.latencyMs as number);
  return {
    probes: probes.length,
    graded: graded.length,
    passed,
    accuracy: accuracyOf(graded),
    accuracyLow: ci?.low,
    accuracyHigh: ci?.high,
    accuracyByKind,
    meanF1: mean(graded.map((r) => r.f1).filter((f): f is number => f !== undefined)),
    passHatN: repeat > 1 ? passHatN(repeatCounts(graded), repeat) : undefined,
    errors: probes.length - graded.length,
    attribution,
    inputTokens: sum(probes.map((r) => r.usage?.inputTokens ?? 0)),
    apiVsCountedInput: countAgreement(probes),
    outputTokens: sum(probes.map((r) => r.usage?.outputTokens ?? 0)),
    cost: costs.length ? sum(costs) : undefined,
    latencyMean: mean(latencies),
    latencyP50: percentile(latencies, 0.5),
    latencyP95: percentile(latencies, 0.95),
  };
}

function summaryMetrics(summaries: SummaryRecord[]) {
  const made = summaries.filter((s) => !s.error);
  const judged = made.filter((s) => s.grades?.judge && !s.grades.judge.error).map((s) => s.grades!.judge!);
  const checked = made.filter((s) => s.grades).map((s) => s.grades!);
  return {
    summariesMade: made.length,
    summaryErrors: summaries.length - made.length,
    summaryTokensIn: sum(summaries.map((s) => s.usage.inputTokens)),
    summaryTokensOut: sum(summaries.map((s) => s.usage.outputTokens)),
    judgeOverall: mean(judged.map((j) => j.overall)),
    judgeCoverage: mean(judged.map((j) => j.coverage)),
    judgeFaithfulness: mean(judged.map((j) => j.faithfulness)),
    judgeScore: mean(judged.map((j) => j.score)),
    judged: judged.length,
    judgeErrors: made.filter((s) => s.grades?.judge?.error).length,
    checksCoverage: mean(checked.map((g) => g.checks.factCoverage)),
    unsupportedClaims: sum(checked.map((g) => g.checks.unsupported.length)),
    driftLost: sum(checked.map((g) => g.drift?.lost.length ?? 0)),
  };
}

function transcriptCount(run: RunResult, strategy: string): number {
  const ids = new Set<string>();
  for (const r of [...run.turns, ...run.probes]) if (r.strategy === strategy) ids.add(r.transcript);
  return ids.size;
}

/** `withCI: false` skips the bootstrap interval when only point values are needed (gates, diffs). */
export function summarizeStrategy(run: RunResult, strategy: string, withCI = true): StrategySummary {
  const mine = <T extends { strategy: string }>(list: T[]) => list.filter((r) => r.strategy === strategy);
  return {
    strategy,
    use: run.info.strategies.find((s) => s.id === strategy)?.use,
    transcripts: transcriptCount(run, strategy),
    ...turnMetrics(mine(run.turns)),
    ...summaryMetrics(mine(run.summaries)),
    ...probeMetrics(mine(run.probes), run.info.repeat, withCI),
  };
}

export function summarize(run: RunResult): StrategySummary[] {
  return strategyIds(run).map((id) => summarizeStrategy(run, id));
}

/**
 * What a metric's value rests on: how many items were measured, how many of
 * the items it should have measured errored, and what they are. A gate that
 * finds `measured === 0` cannot be evaluated and fails (unless optional).
 */
export interface MetricSupport {
  measured: number;
  errors: number;
  /** Plural noun for messages: `probes`, `summaries`, `turns`. */
  unit: string;
}

/** A metric a gate or diff can name, and which way is better. */
export interface MetricDef {
  name: string;
  higherIsBetter: boolean;
  /** Accuracy-like metrics are means of per-probe 0/1 outcomes (McNemar applies). */
  binary: boolean;
  description: string;
  read: (s: StrategySummary) => number | undefined;
  support: (s: StrategySummary) => MetricSupport;
}

// Placeholder support until each metric states its own denominator.
const noSupport = (s: StrategySummary): MetricSupport => ({ measured: s.graded, errors: s.errors, unit: 'probes' });

function def(name: string, higherIsBetter: boolean, description: string, read: MetricDef['read'], binary = false): MetricDef {
  return { name, higherIsBetter, binary, description, read, support: noSupport };
}

const BASE_METRICS: MetricDef[] = [
  def('probe.accuracy', true, 'passed / graded probe records (errors excluded)', (s) => s.accuracy, true),
  ...PROBE_KINDS.map((k) => def(`probe.accuracy.${k}`, true, `accuracy on ${k} probes`, (s) => s.accuracyByKind[k], true)),
  def('probe.f1', true, 'mean token F1 of graded answers', (s) => s.meanF1),
  def('probe.pass_hat_n', true, 'pass^N over repeats (repeat > 1 only)', (s) => s.passHatN),
  def('probe.errors', false, 'probe records that errored or were not graded', (s) => s.errors),
  def('context.mean_tokens', false, 'mean context tokens per turn', (s) => s.meanContextTokens),
  def('context.peak_tokens', false, 'peak context tokens at any turn', (s) => s.peakContextTokens),
  def('context.compression', false, 'mean context tokens / mean full-history tokens', (s) => s.compression),
  def('facts.retention', true, 'mean share of stated facts present in the context', (s) => s.factRetention),
  def('facts.critical_dropped', false, 'distinct transcript × critical fact pairs dropped', (s) => s.criticalDrops),
  // More summaries means more summariser calls; fewer is cheaper.
  def('summary.count', false, 'summaries made (errors excluded)', (s) => s.summariesMade),
  def('summary.judge.overall', true, 'mean judge overall score (1–5)', (s) => s.judgeOverall),
  def('summary.judge.coverage', true, 'mean judge coverage (0–1)', (s) => s.judgeCoverage),
  def('summary.judge.faithfulness', true, 'mean judge faithfulness (0–1)', (s) => s.judgeFaithfulness),
  def('summary.judge.score', true, 'mean judge score = min(coverage, faithfulness)', (s) => s.judgeScore),
  def('summary.checks.coverage', true, 'mean deterministic fact coverage of summaries', (s) => s.checksCoverage),
  def('summary.checks.unsupported', false, 'identifiers in summaries absent from the source', (s) => s.unsupportedClaims),
  def('cost.total', false, 'USD spent answering probes', (s) => s.cost),
  def('latency.p50', false, 'median answer latency in ms (cache hits excluded)', (s) => s.latencyP50),
];

/** Every metric name gates accept (`probe.accuracy.<kind>` expanded for each probe kind). */
export const METRIC_NAMES: readonly string[] = BASE_METRICS.map((m) => m.name);

export function metricDef(name: string): MetricDef | undefined {
  return BASE_METRICS.find((m) => m.name === name);
}

export function isMetricName(name: string): boolean {
  return metricDef(name) !== undefined;
}

/** The value of a named metric for one strategy of a run; undefined when the run has no data for it. */
export function metricValue(run: RunResult, strategy: string, metric: string): number | undefined {
  const d = metricDef(metric);
  if (!d) throw new Error(`unknown metric "${metric}"; known: ${METRIC_NAMES.join(', ')}`);
  return d.read(summarizeStrategy(run, strategy, false));
}

/** A run split into one part per transcript (for per-transcript comparisons). */
export function runsByTranscript(run: RunResult): Map<string, RunResult> {
  const parts = new Map<string, RunResult>();
  const part = (id: string): RunResult => {
    let p = parts.get(id);
    if (!p) {
      p = { info: run.info, turns: [], probes: [], summaries: [] };
      parts.set(id, p);
    }
    return p;
  };
  for (const r of run.turns) part(r.transcript).turns.push(r);
  for (const r of run.probes) part(r.transcript).probes.push(r);
  for (const r of run.summaries) part(r.transcript).summaries.push(r);
  return parts;
}
