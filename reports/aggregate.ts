// One summary row per strategy, and the named metrics gates and diffs use.
import { ATTRIBUTIONS as ALL_ATTRIBUTIONS, ERROR_STAGES, PROBE_KINDS, answersPerJob, jobKey } from '../core/types.js';
import type { Attribution, ErrorStage, ProbeKind, ProbeRecord, RunInfo, RunResult, StageErrors, SummaryRecord, TurnRecord } from '../core/types.js';
import { SIGNIFICANCE_LEVEL, clusteredWilson, holm, mcnemarExact, mean, pairedBootstrap, passHatN, percentile, type PairedResult, type RepeatCount } from '../core/stats.js';
import { outcomeOf, outcomesByTranscript } from '../core/power.js';
import { plural } from './format.js';

/** Every attribution, in the order reports list them (the run schema's own list, so a new one gets its column). */
export const ATTRIBUTIONS: readonly Attribution[] = ALL_ATTRIBUTIONS;

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
  /** Mean over turn records of present / (present + missing + opaque) facts: a fact whose presence cannot be read is not counted kept. */
  factRetention?: number;
  /**
   * Distinct transcript × critical fact pairs dropped at any turn. Undefined
   * when facts were opaque at some turn (inside a server-compacted span): a
   * critical fact in there may be gone, and 0 would claim it is not.
   */
  criticalDrops?: number;
  turnsWithCriticalDrop?: number;
  /** Turns at which some stated facts were opaque (server compaction). */
  turnsWithOpaqueFacts: number;
  /** Summaries the strategy tried to make: made + summarizer errors. */
  summariesAttempted: number;
  summariesMade: number;
  /** Summarizer calls that failed. */
  summaryErrors: number;
  summaryTokensIn: number;
  summaryTokensOut: number;
  /** USD of the summary calls a strategy priced itself (server compaction); undefined when none was priced. */
  summaryCost?: number;
  /** Every probe record (the same number as `attempted`). */
  probes: number;
  /** passed + failed + errors: every probe record. */
  attempted: number;
  graded: number;
  passed: number;
  /** Graded and not passed. */
  failed: number;
  /**
   * Probe answers a finished run owed this strategy and never made (a job that
   * stopped on an error, a run stopped early): each counts in `accuracy` as
   * not passed. 0 for a run still running or interrupted, whose numbers cover
   * the work done so far.
   */
  unattempted: number;
  /** passed / (attempted + unattempted): an errored or unattempted probe counts as not passed, so neither can flatter it. */
  accuracy?: number;
  /** passed / graded; only beside `accuracy`, never in its place. */
  accuracyGraded?: number;
  /**
   * 95% interval of `accuracy` (over attempted, errors as 0): Wilson at the
   * effective sample size (probes / design effect from the transcripts' ICC),
   * so it never collapses to a point on an all-pass or all-fail strategy.
   */
  accuracyLow?: number;
  accuracyHigh?: number;
  /** The run's baseline strategy against this one; unset for the baseline itself or a run without one. */
  vsBaseline?: BaselineComparison;
  /** Per kind, passed / attempted probes of that kind. */
  accuracyByKind: Partial<Record<ProbeKind, number>>;
  attemptedByKind: Partial<Record<ProbeKind, number>>;
  gradedByKind: Partial<Record<ProbeKind, number>>;
  /**
   * Probe records whose context held every fact the probe needs (`answerable`
   * true: the probe names facts and none is missing, or it is an abstention
   * probe that names none). Known even when the answer errored.
   */
  answerable: number;
  /** Probe records with a known `answerable` (true or false); a non-abstention probe naming no facts is unknown and left out. */
  answerableKnown: number;
  /** answerable / answerableKnown: how often the strategy kept what the probe needs. */
  answerableRate?: number;
  /** 95% interval of `answerableRate`, clustered by transcript as accuracy's is. */
  answerableLow?: number;
  answerableHigh?: number;
  /** Answerable probe records whose answer or judge call errored (they count as missed in the reader gap). */
  answerableErrors: number;
  /** Reader gap as a count: answerable probe records that did not pass (an errored one counts as missed). */
  readerGap: number;
  /**
   * readerGap / answerable: how often the reader missed what the context held.
   * 1 − answerableRate is what the strategy lost; this is what the model lost.
   */
  readerGapRate?: number;
  /** 95% interval of `readerGapRate`, clustered by transcript. */
  readerGapLow?: number;
  readerGapHigh?: number;
  /** Per kind (kinds with an answerable probe only): answerable probe records, those missed, and the reader gap rate. */
  answerableByKind: Partial<Record<ProbeKind, number>>;
  readerMissedByKind: Partial<Record<ProbeKind, number>>;
  readerGapByKind: Partial<Record<ProbeKind, number>>;
  /** Mean token F1 over the answers, an errored one scoring 0 (meanF1). */
  meanF1?: number;
  /** pass^N over the run's repeat count, only when repeat > 1; an errored repeat counts as not passed. */
  passHatN?: number;
  /** Probe records that errored or were never graded (attempted − graded). */
  errors: number;
  /** Probes whose answering model call failed. */
  answerErrors: number;
  /** Probes answered whose grading by the answer judge failed. */
  answerJudgeErrors: number;
  attribution: Record<Attribution, number>;
  inputTokens: number;
  /** API-reported input tokens over our tiktoken count, on calls that report usage (1 = the counts agree). */
  apiVsCountedInput?: number;
  outputTokens: number;
  /**
   * Nominal cost of every answer, cache hits included, so warm and cold runs compare,
   * plus `summaryCost` (the strategy's own priced calls: server compaction).
   */
  cost?: number;
  /** `cost` with each answer's cacheable input tokens at the cached-input price (README "Cost as billed"); `summaryCost` is nominal. */
  costCached?: number;
  /** Input tokens the provider reported as served from its prompt cache, over the answers that report them. */
  apiCachedTokens?: number;
  /** Sum over replayed turns of the tokens a prompt cache could serve of each turn's request; undefined for runs recorded before it. */
  cacheableInputTokens?: number;
  /** cacheableInputTokens / the context tokens of the same turns. */
  cacheableShare?: number;
  /** Turns whose request dropped or rewrote part of what the previous request left cached. */
  cacheBreaks?: number;
  latencyMean?: number;
  latencyP50?: number;
  latencyP95?: number;
  /** Turn latency as a user feels it: the answer plus the summarizer calls made on that turn (see turnLatencies). */
  turnLatencyP50?: number;
  turnLatencyP95?: number;
  judgeOverall?: number;
  judgeCoverage?: number;
  judgeFaithfulness?: number;
  judgeScore?: number;
  /** Summaries made that the summary judge scored; the judge means above are over these only. */
  judged: number;
  /** Summaries made whose judging failed. */
  judgeErrors: number;
  checksCoverage?: number;
  unsupportedClaims?: number;
  driftLost?: number;
  /** Summaries made with no text to check or judge (server compactions). */
  summariesOpaque: number;
  /** Summaries the deterministic checks ran on. */
  summariesChecked: number;
  /** Tool use; absent when the strategy has no `kind: tool` probe (nothing to measure, not zeros). */
  tool?: ToolSummary;
}

/**
 * Tool use of one strategy (docs/transcript-format.md, "How answers are
 * graded"). The rates are over `kind: tool` probe records, errored ones
 * included as failures (as `accuracy` counts them); repeated calls and
 * re-asks are counted over every probe record, whatever its kind.
 */
export interface ToolSummary {
  /** `kind: tool` probe records, errored ones included: what accuracy and right tool are out of. */
  probes: number;
  /** Of `probes`, those expecting a call, and those expecting none (answer from the conversation). */
  callProbes: number;
  noCallProbes: number;
  /** Tool probe records whose answer or its grading errored: failures in every rate, and counted here. */
  errors: number;
  /** Of `errors`, those expecting a call: the part of args accuracy that is errors. */
  callErrors: number;
  /** Exact calls, correct no-calls included (never an errored record). */
  exactCalls: number;
  /** exactCalls / probes, with its 95% interval clustered by transcript. */
  accuracy: number;
  accuracyLow?: number;
  accuracyHigh?: number;
  /** Records that called the expected tool (for a no-call probe: called none). */
  rightTool: number;
  rightToolRate: number;
  rightToolLow?: number;
  rightToolHigh?: number;
  /** Expected arguments matched, of those expected, over the probes expecting a call (an errored one matched none). */
  argsMatched: number;
  argsExpected: number;
  /** argsMatched / argsExpected; undefined when no probe expecting a call lists an argument. */
  argsAccuracy?: number;
  argsLow?: number;
  argsHigh?: number;
  /** Calls beyond the graded one, summed (every call, on a no-call probe). */
  extraCalls: number;
  /** Calls repeating one the conversation already made, summed over every probe record. */
  repeatedCalls: number;
  /** Probe records (any kind) whose answer asked the user for a value they had given. */
  reasks: number;
  /** Probe records (any kind) whose answer call did not fail: what repeated calls and re-asks are counted over. */
  answered: number;
}

/**
 * One strategy against the run's baseline strategy: exact McNemar on the
 * probes both answered or errored (an error counts as not passed), Holm-adjusted across the run's strategies.
 */
export interface BaselineComparison {
  baseline: string;
  sharedProbes: number;
  /** (fail→pass − pass→fail) / shared probes: the accuracy difference on the shared probes; positive = better than the baseline. */
  delta: number;
  p: number;
  pHolm: number;
  /** pHolm < SIGNIFICANCE_LEVEL. */
  significant: boolean;
}

/**
 * A probe record counts as an error when the call or its grading failed, or
 * when it was never graded (`passed` unset). Errors are reported, not graded.
 */
export function isProbeError(r: ProbeRecord): boolean {
  return r.error !== undefined || r.judge?.verdict === 'error' || r.passed === undefined;
}

/** The summarizer failed: no summary was made. */
export const summaryErrored = (s: SummaryRecord): boolean => s.error !== undefined;

/** The summary judge failed on this summary. */
export const summaryJudgeErrored = (s: SummaryRecord): boolean => s.grades?.judge?.error !== undefined;

/** Which stage made a summary record an error: the summarizer, or the judge of a summary that was made. */
export function summaryErrorStage(s: SummaryRecord): 'summarizer' | 'summary-judge' | undefined {
  if (summaryErrored(s)) return 'summarizer';
  return summaryJudgeErrored(s) ? 'summary-judge' : undefined;
}

/** Which stage made a probe record an error; undefined for a graded record (or one never graded without an error). */
export function probeErrorStage(r: ProbeRecord): 'answer' | 'answer-judge' | undefined {
  if (r.errorStage === 'answer') return 'answer';
  if (r.errorStage === 'judge' || r.judge?.verdict === 'error') return 'answer-judge';
  // Records written before `errorStage` existed: an error without a judge verdict came from the answer call.
  if (r.error !== undefined) return 'answer';
  // Never graded, with no error said (a damaged or hand-made record): an error of grading, as isProbeError counts it.
  return r.passed === undefined ? 'answer-judge' : undefined;
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
  const total = t.factsPresentCount + t.factsMissingCount + (t.factsOpaqueCount ?? 0);
  return total === 0 ? undefined : t.factsPresentCount / total;
}

function turnMetrics(turns: TurnRecord[]) {
  const context = turns.map((t) => t.contextTokens);
  const full = turns.map((t) => t.fullTokens);
  const meanContextTokens = mean(context);
  const meanFullTokens = mean(full);
  const dropped = new Set<string>();
  const opaqueTurns = turns.filter((t) => (t.factsOpaqueCount ?? 0) > 0).length;
  // Every critical fact ever missing was lost at some turn: the union of the losses is the set dropped.
  for (const t of turns) for (const f of t.criticalLost) dropped.add(`${t.transcript}\u0000${f}`);
  return {
    turns: turns.length,
    meanContextTokens,
    // A reduce, not Math.max(...): spreading 100k+ turns overflows the call stack.
    peakContextTokens: context.length ? context.reduce((a, b) => (b > a ? b : a)) : undefined,
    meanFullTokens,
    compression: meanContextTokens !== undefined && meanFullTokens ? meanContextTokens / meanFullTokens : undefined,
    factRetention: mean(turns.map(retentionOf).filter((v): v is number => v !== undefined)),
    criticalDrops: opaqueTurns > 0 ? undefined : dropped.size,
    turnsWithCriticalDrop: opaqueTurns > 0 ? undefined : turns.filter((t) => t.criticalMissingCount > 0).length,
    turnsWithOpaqueFacts: opaqueTurns,
    ...cacheMetrics(turns),
  };
}

/** Prompt-cache reach over the turns that measured it (runs recorded before it have none: no numbers, not zeros). */
function cacheMetrics(turns: TurnRecord[]) {
  const measured = turns.filter((t) => t.cacheableTokens !== undefined);
  if (measured.length === 0) return {};
  const cacheable = sum(measured.map((t) => t.cacheableTokens ?? 0));
  return {
    cacheableInputTokens: cacheable,
    cacheableShare: ratio(cacheable, sum(measured.map((t) => t.contextTokens))),
    cacheBreaks: measured.filter((t) => t.cacheBreak).length,
  };
}

/**
 * An answer whose latency counts: a call was made (a cache hit made none, and its near-zero
 * time would flatter the numbers), it came back (a failed call's time is the timeout or the
 * retries, not an answer's), and it was timed (a batched call is not: NaN).
 */
function answerTimed(r: ProbeRecord): boolean {
  return !r.cached && r.latencyMs !== undefined && Number.isFinite(r.latencyMs) && probeErrorStage(r) !== 'answer';
}

/**
 * Latency per user turn, in ms: each answer at a turn (a probe record that made
 * its call: cache hits left out, as for the answer latency) plus every
 * summarizer call made while that turn was added, since the user waits for
 * both; a turn with summarizer calls and no probe counts its summarizer time
 * alone (its reply was not measured). Turns with no model call do not count.
 */
export function turnLatencies(probes: ProbeRecord[], summaries: SummaryRecord[]): number[] {
  const key = (transcript: string, turn: number) => `${transcript}\u0000${turn}`;
  const summarizing = new Map<string, number>();
  for (const s of summaries) {
    if (Number.isNaN(s.durationMs)) continue;
    const k = key(s.transcript, s.turn);
    summarizing.set(k, (summarizing.get(k) ?? 0) + s.durationMs);
  }
  const probed = new Set(probes.map((r) => key(r.transcript, r.afterTurn)));
  const out: number[] = [];
  for (const r of probes) {
    if (!answerTimed(r)) continue;
    out.push((r.latencyMs as number) + (summarizing.get(key(r.transcript, r.afterTurn)) ?? 0));
  }
  for (const [k, ms] of summarizing) if (!probed.has(k)) out.push(ms);
  return out;
}

/** Repeats and passes per transcript × probe, for pass^N; an errored repeat counts as not passed. */
export function repeatCounts(records: ProbeRecord[]): RepeatCount[] {
  const counts = new Map<string, RepeatCount>();
  for (const r of records) {
    const key = probeKey(r.transcript, r.probe);
    const c = counts.get(key) ?? { n: 0, c: 0 };
    c.n++;
    c.c += outcomeOf(r);
    counts.set(key, c);
  }
  return [...counts.values()];
}

function countAgreement(probes: ProbeRecord[]): number | undefined {
  const both = probes.filter((r) => !r.error && r.countedInputTokens && r.usage?.inputTokens);
  const counted = sum(both.map((r) => r.countedInputTokens ?? 0));
  return counted > 0 ? sum(both.map((r) => r.usage?.inputTokens ?? 0)) / counted : undefined;
}

function ratio(part: number, whole: number): number | undefined {
  return whole > 0 ? part / whole : undefined;
}

function kindMetrics(probes: ProbeRecord[]) {
  const accuracyByKind: Partial<Record<ProbeKind, number>> = {};
  const attemptedByKind: Partial<Record<ProbeKind, number>> = {};
  const gradedByKind: Partial<Record<ProbeKind, number>> = {};
  for (const kind of PROBE_KINDS) {
    const mine = probes.filter((r) => r.kind === kind);
    if (mine.length === 0) continue;
    attemptedByKind[kind] = mine.length;
    gradedByKind[kind] = mine.filter((r) => !isProbeError(r)).length;
    accuracyByKind[kind] = sum(mine.map(outcomeOf)) / mine.length;
  }
  return { accuracyByKind, attemptedByKind, gradedByKind };
}

/**
 * The probe kinds some strategy attempted, in PROBE_KINDS order. Per-kind
 * tables list these only: a column for a kind the run never asked (tool
 * probes in a run without tools) would be a row of dashes that reads as a gap.
 */
export function kindsPresent(rows: readonly StrategySummary[]): ProbeKind[] {
  return PROBE_KINDS.filter((k) => rows.some((s) => (s.attemptedByKind[k] ?? 0) > 0));
}

/** An answerable probe that did not pass: the reader missed what the context held. An errored record is never a pass. */
function readerMissed(r: ProbeRecord): boolean {
  return r.answerable === true && outcomeOf(r) === 0;
}

/** A probe's key across strategies, runs and repeats: its transcript and its id. */
export function probeKey(transcript: string, probe: string): string {
  return `${transcript}\u0000${probe}`;
}

/** The first record of each probe (transcript + probe): one per probe whatever the repeats. */
function onePerProbe(records: ProbeRecord[]): ProbeRecord[] {
  const seen = new Set<string>();
  return records.filter((r) => {
    const key = probeKey(r.transcript, r.probe);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** 0/1 values of some records grouped by transcript, for a clustered interval. */
function clustersOf(records: ProbeRecord[], value: (r: ProbeRecord) => boolean): number[][] {
  const groups = new Map<string, number[]>();
  for (const r of records) {
    const list = groups.get(r.transcript);
    if (list) list.push(value(r) ? 1 : 0);
    else groups.set(r.transcript, [value(r) ? 1 : 0]);
  }
  return [...groups.values()];
}

/** The reader gap per kind, over the answerable records of each kind; a kind with none has no entry. */
function readerGapKinds(answerable: ProbeRecord[]) {
  const answerableByKind: Partial<Record<ProbeKind, number>> = {};
  const readerMissedByKind: Partial<Record<ProbeKind, number>> = {};
  const readerGapByKind: Partial<Record<ProbeKind, number>> = {};
  for (const kind of PROBE_KINDS) {
    const mine = answerable.filter((r) => r.kind === kind);
    if (mine.length === 0) continue;
    const missed = mine.filter(readerMissed).length;
    answerableByKind[kind] = mine.length;
    readerMissedByKind[kind] = missed;
    readerGapByKind[kind] = missed / mine.length;
  }
  return { answerableByKind, readerMissedByKind, readerGapByKind };
}

/**
 * "The strategy lost it" against "the reader missed it": the answerable rate
 * is over probes with a known `answerable` (null ones are left out), the
 * reader gap over answerable probes, errored ones counted as missed.
 */
function answerableMetrics(probes: ProbeRecord[], withCI: boolean) {
  const known = probes.filter((r) => r.answerable !== null);
  const answerable = known.filter((r) => r.answerable === true);
  const missed = answerable.filter(readerMissed).length;
  // Answerable is a property of the context sent, the same for every repeat of a probe: its interval
  // counts each probe once, as copies would narrow it without adding anything measured.
  const knownCI = withCI ? clusteredWilson(clustersOf(onePerProbe(known), (r) => r.answerable === true)) : undefined;
  const gapCI = withCI ? clusteredWilson(clustersOf(answerable, readerMissed)) : undefined;
  return {
    answerable: answerable.length,
    answerableKnown: known.length,
    answerableRate: ratio(answerable.length, known.length),
    answerableLow: knownCI?.low,
    answerableHigh: knownCI?.high,
    answerableErrors: answerable.filter(isProbeError).length,
    readerGap: missed,
    readerGapRate: ratio(missed, answerable.length),
    readerGapLow: gapCI?.low,
    readerGapHigh: gapCI?.high,
    ...readerGapKinds(answerable),
  };
}

// ---------- tool use ----------

/**
 * A tool probe passed, no error spoiling it: the exact call expected, or no call and an answer
 * the judge passed (a probe expecting none is about answering from memory, not only abstaining
 * from a call; a model that never calls and answers "I don't know" must not score on it).
 */
function exactToolCall(r: ProbeRecord): boolean {
  return !isProbeError(r) && r.passed === true && r.tool?.exactCall === true;
}

/** The call decision alone: the expected tool called, or no call where none was expected. */
function rightToolCalled(r: ProbeRecord): boolean {
  return !isProbeError(r) && r.tool?.rightTool === true;
}

/** Arguments matched by a record, none when it errored (its expected ones stay in the denominator). */
function argsMatchedOf(r: ProbeRecord): number {
  return isProbeError(r) ? 0 : (r.tool?.argsMatched ?? 0);
}

/** A record expecting a call; an errored record from before the expectation was kept on errors is in neither group. */
const expectsCall = (r: ProbeRecord): boolean => r.tool !== undefined && r.tool.expected !== null;

/**
 * Each expected argument as a 0/1 outcome, grouped by transcript: the
 * arguments of one conversation are not independent, so their interval is
 * clustered as accuracy's is.
 */
function argumentClusters(records: ProbeRecord[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const r of records) {
    const expected = r.tool?.argsExpected ?? 0;
    const matched = argsMatchedOf(r);
    const outcomes = [...Array<number>(matched).fill(1), ...Array<number>(Math.max(0, expected - matched)).fill(0)];
    const list = groups.get(r.transcript);
    if (list) list.push(...outcomes);
    else groups.set(r.transcript, outcomes);
  }
  return [...groups.values()];
}

function toolRates(tool: ProbeRecord[], withCI: boolean) {
  const calls = tool.filter(expectsCall);
  const exact = tool.filter(exactToolCall).length;
  const right = tool.filter(rightToolCalled).length;
  const argsMatched = sum(calls.map(argsMatchedOf));
  const argsExpected = sum(calls.map((r) => r.tool?.argsExpected ?? 0));
  const exactCI = withCI ? clusteredWilson(clustersOf(tool, exactToolCall)) : undefined;
  const rightCI = withCI ? clusteredWilson(clustersOf(tool, rightToolCalled)) : undefined;
  const argsCI = withCI ? clusteredWilson(argumentClusters(calls)) : undefined;
  return {
    exactCalls: exact,
    accuracy: exact / tool.length,
    accuracyLow: exactCI?.low,
    accuracyHigh: exactCI?.high,
    rightTool: right,
    rightToolRate: right / tool.length,
    rightToolLow: rightCI?.low,
    rightToolHigh: rightCI?.high,
    argsMatched,
    argsExpected,
    argsAccuracy: ratio(argsMatched, argsExpected),
    argsLow: argsCI?.low,
    argsHigh: argsCI?.high,
  };
}

/** The strategy's tool use; undefined when it has no tool probe, so no report or gate reads zeros as a measurement. */
export function toolMetrics(probes: ProbeRecord[], withCI: boolean): ToolSummary | undefined {
  const tool = probes.filter((r) => r.kind === 'tool');
  if (tool.length === 0) return undefined;
  const calls = tool.filter(expectsCall);
  return {
    probes: tool.length,
    callProbes: calls.length,
    noCallProbes: tool.filter((r) => r.tool?.expected === null).length,
    errors: tool.filter(isProbeError).length,
    callErrors: calls.filter(isProbeError).length,
    ...toolRates(tool, withCI),
    extraCalls: sum(tool.map((r) => (isProbeError(r) ? 0 : (r.tool?.extraCalls ?? 0)))),
    repeatedCalls: sum(probes.map((r) => r.repeatedCalls ?? 0)),
    reasks: probes.filter((r) => r.reask === true).length,
    answered: probes.filter((r) => probeErrorStage(r) !== 'answer').length,
  };
}

/**
 * How many answers each transcript still owes a strategy: its probes × repeat
 * less the records made. Only a finished run owes any (a run still going or
 * interrupted reports the work done so far), and only for the jobs it had (a
 * shard's). Runs recorded without transcript sizes owe none that can be told.
 */
function owedByTranscript(run: RunResult, strategy: string, probes: readonly ProbeRecord[]): Map<string, number> {
  const owed = new Map<string, number>();
  const status = run.info.status as RunInfo['status'] | undefined;
  if (status !== 'complete' && status !== 'incomplete' && status !== 'failed') return owed;
  const made = new Map<string, number>();
  for (const r of probes) made.set(r.transcript, (made.get(r.transcript) ?? 0) + 1);
  const perJob = answersPerJob(run.info);
  for (const t of run.info.transcripts) {
    const missing = (perJob.get(jobKey(strategy, t.id)) ?? 0) - (made.get(t.id) ?? 0);
    if (missing > 0) owed.set(t.id, missing);
  }
  return owed;
}

/** The answers a finished run owes `strategy` and has no record of (`owedByTranscript`, summed). */
export function unattemptedAnswers(run: RunResult, strategy: string): number {
  let n = 0;
  for (const missing of owedByTranscript(run, strategy, run.probes.filter((p) => p.strategy === strategy)).values()) n += missing;
  return n;
}

function probeMetrics(probes: ProbeRecord[], repeat: number, withCI: boolean, owed: ReadonlyMap<string, number>) {
  const graded = probes.filter((r) => !isProbeError(r));
  const passed = graded.filter((r) => r.passed).length;
  let unattempted = 0;
  for (const n of owed.values()) unattempted += n;
  const ci = withCI ? clusteredWilson(outcomesByTranscript(probes, owed)) : undefined;
  const attribution = Object.fromEntries(ATTRIBUTIONS.map((a) => [a, 0])) as Record<Attribution, number>;
  for (const r of probes) if (r.attribution) attribution[r.attribution]++;
  // A sum over some answers is no cost: unless every answer that came back was priced, it is unknown.
  const answered = probes.filter((r) => probeErrorStage(r) !== 'answer');
  const costs = answered.every((r) => r.cost !== undefined) ? answered.map((r) => r.cost as number) : [];
  const latencies = probes.filter(answerTimed).map((r) => r.latencyMs as number);
  return {
    probes: probes.length,
    attempted: probes.length,
    unattempted,
    graded: graded.length,
    passed,
    failed: graded.length - passed,
    accuracy: ratio(passed, probes.length + unattempted),
    accuracyGraded: ratio(passed, graded.length),
    accuracyLow: ci?.low,
    accuracyHigh: ci?.high,
    ...kindMetrics(probes),
    ...answerableMetrics(probes, withCI),
    meanF1: meanF1(probes),
    passHatN: repeat > 1 ? passHatN(repeatCounts(probes), repeat) : undefined,
    errors: probes.length - graded.length,
    answerErrors: probes.filter((r) => probeErrorStage(r) === 'answer').length,
    answerJudgeErrors: probes.filter((r) => probeErrorStage(r) === 'answer-judge').length,
    attribution,
    inputTokens: sum(probes.map((r) => r.usage?.inputTokens ?? 0)),
    apiVsCountedInput: countAgreement(probes),
    outputTokens: sum(probes.map((r) => r.usage?.outputTokens ?? 0)),
    cost: costs.length ? sum(costs) : undefined,
    // As billed with the prompt cache: known only where the cost is (an errored answer's 0 is no price).
    costCached: costs.length ? optionalSum(answered.map((r) => r.costCached)) : undefined,
    apiCachedTokens: optionalSum(probes.map((r) => r.usage?.cachedTokens)),
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
    summariesAttempted: summaries.length,
    summariesMade: made.length,
    // Server compactions: made, but with no text to check or judge.
    summariesOpaque: made.filter((s) => s.opaque).length,
    summariesChecked: checked.length,
    summaryErrors: summaries.length - made.length,
    summaryTokensIn: sum(summaries.map((s) => s.usage.inputTokens)),
    summaryTokensOut: sum(summaries.map((s) => s.usage.outputTokens)),
    summaryCost: optionalSum(summaries.map((s) => s.cost)),
    judgeOverall: mean(judged.map((j) => j.overall)),
    judgeCoverage: mean(judged.map((j) => j.coverage)),
    judgeFaithfulness: mean(judged.map((j) => j.faithfulness)),
    judgeScore: mean(judged.map((j) => j.score)),
    judged: judged.length,
    judgeErrors: made.filter((s) => s.grades?.judge?.error).length,
    checksCoverage: mean(checked.map((g) => g.checks.factCoverage)),
    // Nothing checked is no count, not a count of 0: a gate on it must not pass on no data.
    unsupportedClaims: checked.length ? sum(checked.map((g) => g.checks.unsupported.length)) : undefined,
    driftLost: checked.length ? sum(checked.map((g) => g.drift?.lost.length ?? 0)) : undefined,
  };
}

function transcriptCount(run: RunResult, strategy: string): number {
  const ids = new Set<string>();
  for (const r of [...run.turns, ...run.probes]) if (r.strategy === strategy) ids.add(r.transcript);
  return ids.size;
}

/** The transcripts records cover, per strategy. */
export function transcriptsByStrategy(records: Iterable<{ strategy: string; transcript: string }>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of records) {
    const ids = out.get(r.strategy);
    if (ids) ids.add(r.transcript);
    else out.set(r.strategy, new Set([r.transcript]));
  }
  return out;
}

/**
 * Transcripts two runs both list that were read from other versions of their files (their
 * sha256 in run.json differ; a run recorded before the digest is taken at its word).
 */
export function editedTranscripts(base: RunInfo, cand: RunInfo): string[] {
  const digests = new Map(base.transcripts.map((t) => [t.id, t.sha256]));
  return cand.transcripts.filter((t) => t.sha256 !== undefined && digests.get(t.id) !== undefined && digests.get(t.id) !== t.sha256).map((t) => t.id);
}

/** `withCI: false` skips the bootstrap interval when only point values are needed (gates, diffs). */
export function summarizeStrategy(run: RunResult, strategy: string, withCI = true): StrategySummary {
  const mine = <T extends { strategy: string }>(list: T[]) => list.filter((r) => r.strategy === strategy);
  const probes = mine(run.probes);
  const summaries = mine(run.summaries);
  const tool = toolMetrics(probes, withCI);
  return withSummaryCost({
    strategy,
    use: run.info.strategies.find((s) => s.id === strategy)?.use,
    transcripts: transcriptCount(run, strategy),
    ...turnMetrics(mine(run.turns)),
    ...summaryMetrics(summaries),
    ...probeMetrics(probes, run.info.repeat, withCI, owedByTranscript(run, strategy, probes)),
    ...turnLatencyMetrics(probes, summaries),
    ...(tool ? { tool } : {}),
  });
}

/** The sum of the values present; undefined when none is. */
function optionalSum(values: (number | undefined)[]): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length ? sum(present) : undefined;
}

/**
 * The strategy's own priced calls (server compaction) cost as much as its
 * answers do, so `cost` holds both; unpriced answers leave it unknown (a
 * compaction-only figure would read as the strategy's whole cost).
 */
function withSummaryCost(s: StrategySummary): StrategySummary {
  if (s.summaryCost === undefined) return s;
  const plus = (answers: number | undefined) => (answers === undefined ? undefined : answers + (s.summaryCost as number));
  return { ...s, cost: plus(s.cost), costCached: plus(s.costCached) };
}

function turnLatencyMetrics(probes: ProbeRecord[], summaries: SummaryRecord[]) {
  const latencies = turnLatencies(probes, summaries);
  return { turnLatencyP50: percentile(latencies, 0.5), turnLatencyP95: percentile(latencies, 0.95) };
}

export function summarize(run: RunResult): StrategySummary[] {
  const rows = strategyIds(run).map((id) => summarizeStrategy(run, id));
  const versus = baselineComparisons(run);
  for (const row of rows) {
    const v = versus.get(row.strategy);
    if (v) row.vsBaseline = v;
  }
  return rows;
}

// ---------- sweeps ----------

/** One point of a sweep's curve: the swept value and what the strategy at that value measured. */
export interface SweepPoint {
  strategy: string;
  value: number;
  /** passed / attempted, with the 95% interval the overview shows. */
  accuracy?: number;
  accuracyLow?: number;
  accuracyHigh?: number;
  passed: number;
  attempted: number;
  /** Probes of the point that errored or were never answered: a point with any is not fully measured. */
  unmeasured?: number;
  meanContextTokens?: number;
}

/** The knee of a curve, and the best point it was measured against. */
export interface SweepKnee {
  knee: SweepPoint;
  best: SweepPoint;
}

/**
 * One curve of a sweep: its points over the swept option (the first the
 * strategy declares), ascending. A grid has one curve per value of its
 * second option, which `fixed` names.
 */
export interface SweepCurve {
  group: string;
  option: string;
  fixed?: { option: string; value: number };
  points: SweepPoint[];
  /** Undefined when no point has a measured accuracy. */
  knee?: SweepKnee;
}

/**
 * The smallest setting within the CI of the best accuracy: the best point is
 * the highest accuracy (the smallest value on a tie), and the knee is the
 * smallest value whose accuracy is at least the lower bound of the best
 * point's 95% interval (its accuracy when it has no interval). Points with no
 * attempted probe are left out. "Smallest" is the cheapest for every option
 * a sweep may take (fewer turns, tokens or messages kept); options whose
 * larger values are cheaper take no list (OptionSpec `sweep: false`).
 */
export function sweepKnee(points: readonly SweepPoint[]): SweepKnee | undefined {
  // A point with errored or unanswered probes is not measured: the knee could sit on its accident.
  if (points.some((p) => (p.unmeasured ?? 0) > 0)) return undefined;
  const measured = [...points].filter((p) => p.accuracy !== undefined).sort((a, b) => a.value - b.value);
  if (measured.length === 0) return undefined;
  const best = measured.reduce((top, p) => ((p.accuracy as number) > (top.accuracy as number) ? p : top));
  const bar = best.accuracyLow ?? (best.accuracy as number);
  const knee = measured.find((p) => (p.accuracy as number) >= bar) ?? best;
  return { knee, best };
}

function sweepPoint(row: StrategySummary, value: number): SweepPoint {
  const point: SweepPoint = { strategy: row.strategy, value, passed: row.passed, attempted: row.attempted };
  if (row.errors + row.unattempted > 0) point.unmeasured = row.errors + row.unattempted;
  if (row.accuracy !== undefined) point.accuracy = row.accuracy;
  if (row.accuracyLow !== undefined) point.accuracyLow = row.accuracyLow;
  if (row.accuracyHigh !== undefined) point.accuracyHigh = row.accuracyHigh;
  if (row.meanContextTokens !== undefined) point.meanContextTokens = row.meanContextTokens;
  return point;
}

/**
 * The sweeps of a run, from the membership run.json records per strategy:
 * a curve per sweep, or per value of a grid's second option, in config order,
 * each with its knee. `rows` are the run's summaries (`summarize`).
 */
export function sweepCurves(run: RunResult, rows: readonly StrategySummary[]): SweepCurve[] {
  const byId = new Map(rows.map((r) => [r.strategy, r]));
  const curves = new Map<string, SweepCurve>();
  for (const info of run.info.strategies) {
    const row = byId.get(info.id);
    if (!info.sweep || !row) continue;
    const [[option, value], second] = Object.entries(info.sweep.options);
    const key = `${info.sweep.group}\u0000${second ? `${second[0]}=${second[1]}` : ''}`;
    let curve = curves.get(key);
    if (!curve) {
      curve = { group: info.sweep.group, option, points: [] };
      if (second) curve.fixed = { option: second[0], value: second[1] };
      curves.set(key, curve);
    }
    curve.points.push(sweepPoint(row, value));
  }
  return [...curves.values()].map((curve) => {
    const points = [...curve.points].sort((a, b) => a.value - b.value);
    const knee = sweepKnee(points);
    return knee ? { ...curve, points, knee } : { ...curve, points };
  });
}

/** `knee: max_turns = 4 (62.0% vs best 65.0% [60.1, 69.8])`, how every report names a curve's knee. */
export function kneeText(curve: SweepCurve): string {
  const fixed = curve.fixed ? ` at ${curve.fixed.option} = ${curve.fixed.value}` : '';
  if (!curve.knee) {
    const unmeasured = curve.points.filter((p) => (p.unmeasured ?? 0) > 0);
    if (unmeasured.length) return `knee${fixed}: none (${unmeasured.map((p) => `${curve.option} = ${p.value} has ${p.unmeasured} errored or unanswered probe${p.unmeasured === 1 ? '' : 's'}`).join(', ')})`;
    return `knee${fixed}: none (no point has an attempted probe)`;
  }
  const { knee, best } = curve.knee;
  const percent = (v: number | undefined) => (v === undefined ? '–' : (100 * v).toFixed(1));
  const ci = best.accuracyLow !== undefined ? ` [${percent(best.accuracyLow)}, ${percent(best.accuracyHigh)}]` : '';
  return `knee${fixed}: ${curve.option} = ${knee.value} (${percent(knee.accuracy)}% vs best ${percent(best.accuracy)}%${ci})`;
}

// ---------- tags ----------

/** Passed / attempted probe records of one strategy on the transcripts carrying one tag. */
export interface TagAccuracy {
  attempted: number;
  passed: number;
  /** passed / attempted, an errored record counting as not passed (as `accuracy`); undefined when none was attempted. */
  accuracy?: number;
}

/**
 * Accuracy per transcript tag (`tags:`, as run.info records them), per strategy.
 * A transcript with several tags counts under each, so the columns overlap and
 * need not add up. `tags` lists every tag value in the run, sorted.
 */
export function accuracyByTag(run: RunResult): { tags: string[]; strategies: { strategy: string; byTag: Record<string, TagAccuracy> }[] } {
  const tagsOf = new Map(run.info.transcripts.map((t) => [t.id, t.tags]));
  const tags = [...new Set(run.info.transcripts.flatMap((t) => t.tags))].sort();
  const strategies = strategyIds(run).map((strategy) => {
    const byTag: Record<string, TagAccuracy> = {};
    for (const tag of tags) {
      const mine = run.probes.filter((r) => r.strategy === strategy && (tagsOf.get(r.transcript) ?? []).includes(tag));
      const passed = sum(mine.map(outcomeOf));
      byTag[tag] = { attempted: mine.length, passed, accuracy: ratio(passed, mine.length) };
    }
    return { strategy, byTag };
  });
  return { tags, strategies };
}

/**
 * Mean token F1 over the answers F1 applies to, an errored one counting 0: left out, errors
 * would raise the mean (the misses are the likelier to error) and let a floor on it pass. A tool
 * probe expecting a call is graded by rule and has no F1, errored or not; one expecting an
 * answer without a call is an answer like any other, and a call made instead scores 0.
 */
function meanF1(probes: ProbeRecord[]): number | undefined {
  const scores: number[] = [];
  for (const r of probes) {
    if (expectsCall(r)) continue;
    if (isProbeError(r)) scores.push(0);
    else if (r.f1 !== undefined) scores.push(r.f1);
    else if (r.tool?.called != null) scores.push(0);
  }
  return mean(scores);
}

// ---------- paired probes ----------

/**
 * A probe's pass rate over its repeats, an errored repeat counting as not passed (as accuracy
 * counts it: left out, an error would drop out of the paired test and the interval). With one
 * repeat the rate is 0 or 1.
 */
export interface ProbeOutcome {
  transcript: string;
  probe: string;
  rate: number;
}

export function probeOutcomes(records: ProbeRecord[]): Map<string, ProbeOutcome> {
  const groups = new Map<string, ProbeRecord[]>();
  for (const r of records) {
    const key = probeKey(r.transcript, r.probe);
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  const out = new Map<string, ProbeOutcome>();
  for (const [key, list] of groups) {
    const rate = list.filter((r) => r.passed === true && !isProbeError(r)).length / list.length;
    out.set(key, { transcript: list[0].transcript, probe: list[0].probe, rate });
  }
  return out;
}

export interface PairedProbes {
  pairs: { base: ProbeOutcome; cand: ProbeOutcome }[];
  /** Pairs whose pass rate fell in the candidate (with one repeat: passed, then failed). */
  passToFail: number;
  /** Pairs whose pass rate rose. */
  failToPass: number;
  /** Exact McNemar on the pairs that moved: the sign test on the pass-rate changes. */
  mcnemarP: number;
  /** Mean pass-rate change over the pairs (candidate − base); 0 without pairs. */
  delta: number;
  bootstrap?: PairedResult;
}

/**
 * Pairs two sets of probe records on transcript + probe and tests the accuracy change;
 * `withBootstrap: false` skips the interval. A pair moves when its pass rate does: with one
 * repeat those are McNemar's discordant pairs, and with repeats a probe that fails one repeat
 * more moves as surely as one that flipped. A majority vote over the repeats would hide that:
 * a strategy failing one repeat in three of every probe showed no change at all, and a tie
 * read as a failure.
 */
export function compareProbes(base: ProbeRecord[], cand: ProbeRecord[], withBootstrap = true): PairedProbes {
  const b = probeOutcomes(base);
  const c = probeOutcomes(cand);
  const pairs = [...b.entries()].filter(([k]) => c.has(k)).map(([k, v]) => ({ base: v, cand: c.get(k) as ProbeOutcome }));
  const passToFail = pairs.filter((p) => p.cand.rate < p.base.rate).length;
  const failToPass = pairs.filter((p) => p.cand.rate > p.base.rate).length;
  const delta = pairs.length ? pairs.reduce((sum, p) => sum + p.cand.rate - p.base.rate, 0) / pairs.length : 0;
  const out: PairedProbes = { pairs, passToFail, failToPass, mcnemarP: mcnemarExact(passToFail, failToPass), delta };
  if (withBootstrap) out.bootstrap = pairedBootstrap(pairs.map((p) => ({ cluster: p.base.transcript, base: p.base.rate, cand: p.cand.rate })));
  return out;
}

/**
 * Every strategy against `run.info.baseline` on the probes both have (an errored one not passed). The
 * family Holm adjusts over is these comparisons of one run (one per strategy
 * besides the baseline that shares a probe with it), so "significant" holds
 * at 5% for the overview as a whole, not per row.
 */
export function baselineComparisons(run: RunResult): Map<string, BaselineComparison> {
  const baseline = run.info.baseline;
  const out = new Map<string, BaselineComparison>();
  const ids = strategyIds(run);
  if (!baseline || !ids.includes(baseline)) return out;
  // Grouped once, in record order: the baseline's records are compared with every other strategy's.
  const byStrategy = new Map<string, ProbeRecord[]>();
  for (const p of run.probes) {
    const list = byStrategy.get(p.strategy);
    if (list) list.push(p);
    else byStrategy.set(p.strategy, [p]);
  }
  const mine = (id: string) => byStrategy.get(id) ?? [];
  const tested = ids
    .filter((id) => id !== baseline)
    .map((id) => ({ id, cmp: compareProbes(mine(baseline), mine(id), false) }))
    .filter((t) => t.cmp.pairs.length > 0);
  const adjusted = holm(tested.map((t) => t.cmp.mcnemarP));
  tested.forEach(({ id, cmp }, i) => {
    const delta = cmp.delta;
    const significant = adjusted[i] < SIGNIFICANCE_LEVEL;
    out.set(id, { baseline, sharedProbes: cmp.pairs.length, delta, p: cmp.mcnemarP, pHolm: adjusted[i], significant });
  });
  return out;
}

// The message of an errored item, or undefined when the item did not error at this stage.
type ErrorOf<T> = (item: T) => string | undefined;

function countStage<T>(stage: ErrorStage, attempted: T[], errorOf: ErrorOf<T>): StageErrors {
  const messages = attempted.map(errorOf).filter((m): m is string => m !== undefined);
  const out: StageErrors = { stage, errors: messages.length, attempted: attempted.length };
  if (messages.length) out.firstError = messages[0];
  return out;
}

const NO_MESSAGE = '(no message recorded)';

/**
 * Errors per stage, in ERROR_STAGES order. Each stage is attempted only by the
 * items that got past the one before it: the answer judge grades answered
 * probes, the summary judge scores summaries that were made.
 */
function stageErrorsOf(probes: ProbeRecord[], summaries: SummaryRecord[]): StageErrors[] {
  const answered = probes.filter((r) => probeErrorStage(r) !== 'answer');
  // A server compaction is never judged (it has no text), so it is no attempt of the summary judge.
  const judgeable = summaries.filter((s) => summaryErrorStage(s) !== 'summarizer' && !s.opaque);
  const counts: Record<ErrorStage, StageErrors> = {
    answer: countStage('answer', probes, (r) => (probeErrorStage(r) === 'answer' ? (r.error ?? NO_MESSAGE) : undefined)),
    'answer-judge': countStage('answer-judge', answered, (r) =>
      probeErrorStage(r) === 'answer-judge' ? (r.error ?? r.judge?.reason ?? NO_MESSAGE) : undefined,
    ),
    summarizer: countStage('summarizer', summaries, (s) => (summaryErrorStage(s) === 'summarizer' ? s.error : undefined)),
    'summary-judge': countStage('summary-judge', judgeable, (s) => (summaryErrorStage(s) === 'summary-judge' ? s.grades?.judge?.error : undefined)),
  };
  return ERROR_STAGES.map((stage) => counts[stage]);
}

/** Errors per stage over the whole run, one entry per ERROR_STAGES item. */
export function stageErrors(run: RunResult): StageErrors[] {
  return stageErrorsOf(run.probes, run.summaries);
}

/** What every report puts first when a run did not finish cleanly: a status word and why. */
export interface RunNotice {
  label: 'INCOMPLETE' | 'FAILED' | 'INTERRUPTED' | 'RUNNING' | 'SHARD';
  reason: string;
}

const NOTICE_DEFAULTS: Record<RunNotice['label'], string> = {
  INCOMPLETE: 'more items errored than max_errors allows',
  FAILED: 'the run stopped early on an error retries could not fix',
  INTERRUPTED: 'the run was stopped before it finished; the numbers cover the work done so far (memeval run --resume RUN_DIR finishes it)',
  RUNNING: 'the run had not finished when these reports were made; the numbers cover the work done so far',
  SHARD: 'this is one shard of a run; the numbers cover its jobs only (memeval merge combines the shards into the run)',
};

/** `2 of 3`: which shard of how many a run is, as every report says it. */
export function shardLabel(shard: { index: number; count: number }): string {
  return `${shard.index} of ${shard.count}`;
}

/** Undefined for a complete run; runs saved before `status` existed count as complete once they finished. */
export function runNotice(info: RunInfo): RunNotice | undefined {
  const status = info.status as RunInfo['status'] | undefined;
  const part = info.shard && shardLabel(info.shard);
  const shard = part ? ` (shard ${part})` : '';
  if (status === 'complete' || (status === undefined && info.finishedAt)) {
    return part ? { label: 'SHARD', reason: `shard ${part}: ${NOTICE_DEFAULTS.SHARD}` } : undefined;
  }
  const label: RunNotice['label'] = status === undefined ? 'INTERRUPTED' : (status.toUpperCase() as RunNotice['label']);
  return { label, reason: `${info.failure ?? NOTICE_DEFAULTS[label]}${shard}` };
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
  /** Why nothing was there to measure, when that is the run's design rather than errors (a tool metric without tool probes). */
  none?: string;
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

function def(name: string, higherIsBetter: boolean, description: string, read: MetricDef['read'], support: MetricDef['support'], binary = false): MetricDef {
  return { name, higherIsBetter, binary, description, read, support };
}

// Accuracy, F1 and pass^N rest on graded probes; every errored probe is one they could not measure.
const gradedProbes = (s: StrategySummary): MetricSupport => ({ measured: s.graded, errors: s.errors, unit: 'probes' });

function gradedOfKind(kind: ProbeKind): MetricDef['support'] {
  return (s) => {
    const graded = s.gradedByKind[kind] ?? 0;
    return { measured: graded, errors: (s.attemptedByKind[kind] ?? 0) - graded, unit: 'probes' };
  };
}

// Answerable reads the context alone, so every probe with a known answerable is measured and none is missing.
const knownAnswerable = (s: StrategySummary): MetricSupport => ({ measured: s.answerableKnown, errors: 0, unit: 'probes' });

// The reader gap rests on the answerable probes that were graded; an errored one is in its rate (as missed) and counted here.
const gradedAnswerable = (s: StrategySummary): MetricSupport => ({ measured: s.answerable - s.answerableErrors, errors: s.answerableErrors, unit: 'probes' });

// Cost and latency come from the answering call, so only its failures are missing data.
const answeredProbes = (s: StrategySummary): MetricSupport => ({ measured: s.attempted - s.answerErrors, errors: s.answerErrors, unit: 'probes' });

// A summary the summarizer failed to make is one the judge could not score either.
const judgedSummaries = (s: StrategySummary): MetricSupport => ({ measured: s.judged, errors: s.judgeErrors + s.summaryErrors, unit: 'summaries' });

const checkedSummaries = (s: StrategySummary): MetricSupport => ({ measured: s.summariesChecked, errors: s.summaryErrors, unit: 'summaries' });

const replayedTurns = (s: StrategySummary): MetricSupport => ({ measured: s.turns, errors: 0, unit: 'turns' });

/** What `tool.accuracy` counts, in the words the CLI table, gate.md and the metric's description share. */
export const TOOL_ACCURACY_RULE = 'tool probes passed (the exact call, or no call and a right answer where none was expected)';

/** What a gate on a tool metric says when the strategy has no tool probe: a plain reason, never a pass. */
export const NO_TOOL_PROBES = 'no tool probes (kind: tool) for this strategy in the run, so tool metrics measure nothing';

/** Support of a tool metric: `of` picks what it rests on from the tool block; without the block nothing was measured, and the reason says why. */
function toolSupport(of: (t: ToolSummary, s: StrategySummary) => Omit<MetricSupport, 'none'>): MetricDef['support'] {
  return (s) => (s.tool ? of(s.tool, s) : { measured: 0, errors: 0, unit: 'tool probes', none: NO_TOOL_PROBES });
}

// Tool rates rest on the tool probes graded; an errored one is in the rate (as a failure) and counted here.
const gradedToolProbes = toolSupport((t) => ({ measured: t.probes - t.errors, errors: t.errors, unit: 'tool probes' }));
const gradedCallProbes = toolSupport((t) => ({ measured: t.callProbes - t.callErrors, errors: t.callErrors, unit: 'tool probes expecting a call' }));
// Repeated calls and re-asks are read from answers of every kind; a failed answer call is what they could not read.
const answeredForTools = toolSupport((t, s) => ({ measured: t.answered, errors: s.answerErrors, unit: 'answered probes' }));

/**
 * Support of a count where lower is better: an errored record is one whose calls were never
 * seen, and leaving it out can only make the count look better. So any error means the count
 * was not measured, and a gate on it fails (the reason says why) rather than passes on what was left.
 */
function uncountedOnErrors(support: MetricDef['support'], what: string): MetricDef['support'] {
  return unmeasuredOnErrors(support, (n) => `${plural(n, 'error')} left ${what} uncounted, and a count without them could only read low`);
}

/**
 * `support` with any error turned into "not measured", saying why; `keepEmpty` leaves a support
 * that measured nothing at all as it is, so it is said as such ("no graded summaries (3 errors)").
 */
function unmeasuredOnErrors(support: MetricDef['support'], why: (errors: number) => string, keepEmpty = false): MetricDef['support'] {
  return (s) => {
    const base = support(s);
    if (base.none !== undefined || base.errors === 0 || (keepEmpty && base.measured === 0)) return base;
    return { ...base, measured: 0, none: why(base.errors) };
  };
}

/**
 * Support of a figure taken over the items that did not error (a mean of the summaries judged,
 * the latency of the answers that came back, the cost of the calls that were priced). Left out,
 * errored items can only flatter it, so with any error it is not measured and a gate on it fails
 * with the reason, rather than passing on what was left.
 */
function leftOutOnErrors(support: MetricDef['support'], what: string): MetricDef['support'] {
  const why = (n: number) => `${plural(n, 'error')} left ${n === 1 ? 'its item' : 'their items'} out of ${what}, which could only read better without them`;
  return unmeasuredOnErrors(support, why, true);
}

const extraCallsSupport = uncountedOnErrors(gradedToolProbes, 'the calls of errored tool probes');
const continuitySupport = uncountedOnErrors(answeredForTools, 'the calls of failed answers');

// An error count is itself the data: it rests on every attempt of its stage and has nothing missing.
function attemptsOf(attempted: (s: StrategySummary) => number, unit: string): MetricDef['support'] {
  return (s) => ({ measured: attempted(s), errors: 0, unit });
}

const judgedMean = leftOutOnErrors(judgedSummaries, 'the mean score');

const BASE_METRICS: MetricDef[] = [
  def('probe.accuracy', true, 'passed / attempted probes (an errored probe counts as not passed)', (s) => s.accuracy, gradedProbes, true),
  def('probe.accuracy_graded', true, 'passed / graded probes (errored probes left out; shown beside probe.accuracy, never instead)', (s) => s.accuracyGraded, leftOutOnErrors(gradedProbes, 'the graded accuracy (gate probe.accuracy, which counts them)'), true),
  ...PROBE_KINDS.map((k) =>
    def(`probe.accuracy.${k}`, true, `passed / attempted ${k} probes (an errored probe counts as not passed)`, (s) => s.accuracyByKind[k], gradedOfKind(k), true),
  ),
  // Not `binary`: McNemar would pair pass/fail outcomes; these are rates over their own subsets, compared per transcript.
  def('probe.answerable', true, 'answerable / probes with a known answerable (every needed fact in the context sent; probes naming no facts, abstention probes aside, are unknown and left out)', (s) => s.answerableRate, knownAnswerable),
  def('probe.reader_gap', false, 'answerable probes not passed / answerable probes (an errored answerable probe counts as missed)', (s) => s.readerGapRate, gradedAnswerable),
  def('probe.f1', true, 'mean token F1 over the answers (an errored answer counts 0)', (s) => s.meanF1, gradedProbes),
  def('probe.pass_hat_n', true, 'pass^N over repeats (repeat > 1 only; an errored repeat counts as not passed)', (s) => s.passHatN, gradedProbes),
  def('probe.errors', false, 'probe records that errored or were not graded (answer and answer-judge errors)', (s) => s.errors, attemptsOf((s) => s.attempted, 'probes')),
  def('probe.answer_errors', false, 'probes whose answering model call failed, of attempted probes', (s) => s.answerErrors, attemptsOf((s) => s.attempted, 'probes')),
  def('probe.judge_errors', false, 'answered probes the answer judge failed to grade', (s) => s.answerJudgeErrors, attemptsOf((s) => s.attempted - s.answerErrors, 'probes')),
  def('tool.accuracy', true, `${TOOL_ACCURACY_RULE} / tool probes (an errored one counts as a failure)`, (s) => s.tool?.accuracy, gradedToolProbes),
  def('tool.right_tool', true, 'tool probes that called the expected tool (or none, when none was expected) / tool probes (an errored one counts as a failure)', (s) => s.tool?.rightToolRate, gradedToolProbes),
  def('tool.args_accuracy', true, 'expected arguments matched / expected arguments, over tool probes expecting a call (an errored one matched none)', (s) => s.tool?.argsAccuracy, gradedCallProbes),
  def('tool.exact_calls', true, `the count of ${TOOL_ACCURACY_RULE}`, (s) => s.tool?.exactCalls, gradedToolProbes),
  def('tool.extra_calls', false, 'calls beyond the graded one on tool probes (every call, on a probe expecting none)', (s) => s.tool?.extraCalls, extraCallsSupport),
  def('tool.repeated_calls', false, 'calls repeating one the conversation already made, over every answered probe', (s) => s.tool?.repeatedCalls, continuitySupport),
  def('tool.reasks', false, 'answers asking the user for a value they already gave, over every answered probe', (s) => s.tool?.reasks, continuitySupport),
  def('context.mean_tokens', false, 'mean context tokens over replayed turns', (s) => s.meanContextTokens, replayedTurns),
  def('context.peak_tokens', false, 'peak context tokens at any replayed turn', (s) => s.peakContextTokens, replayedTurns),
  def('context.compression', false, 'mean context tokens / mean full-history tokens over replayed turns', (s) => s.compression, replayedTurns),
  def('facts.retention', true, 'mean share of stated facts present in the context, over replayed turns', (s) => s.factRetention, replayedTurns),
  def('facts.critical_dropped', false, 'distinct transcript × critical fact pairs dropped at any replayed turn', (s) => s.criticalDrops, replayedTurns),
  // More summaries means more summarizer calls; fewer is cheaper. The count comes from replaying turns.
  def('summary.count', false, 'summaries made (summarizer errors not counted)', (s) => s.summariesMade, leftOutOnErrors((s) => ({ measured: s.turns, errors: s.summaryErrors, unit: 'turns' }), 'the count')),
  def('summary.errors', false, 'summarizer calls that failed, of summaries attempted', (s) => s.summaryErrors, attemptsOf((s) => s.summariesAttempted, 'summaries')),
  def('summary.judge.errors', false, 'summaries made that the summary judge failed to score', (s) => s.judgeErrors, attemptsOf((s) => s.summariesMade, 'summaries')),
  def('summary.judge.overall', true, 'mean judge overall score (1–5) over judged summaries', (s) => s.judgeOverall, judgedMean),
  def('summary.judge.coverage', true, 'mean judge coverage (0–1) over judged summaries', (s) => s.judgeCoverage, judgedMean),
  def('summary.judge.faithfulness', true, 'mean judge faithfulness (0–1) over judged summaries', (s) => s.judgeFaithfulness, judgedMean),
  def('summary.judge.score', true, 'mean judge score = min(coverage, faithfulness) over judged summaries', (s) => s.judgeScore, judgedMean),
  def('summary.checks.coverage', true, 'mean deterministic fact coverage over summaries made', (s) => s.checksCoverage, leftOutOnErrors(checkedSummaries, 'the mean coverage')),
  def('summary.checks.unsupported', false, 'identifiers in summaries made that are absent from the source', (s) => s.unsupportedClaims, leftOutOnErrors(checkedSummaries, 'the count')),
  def('cost.total', false, 'USD spent answering probes, plus the strategy\'s own priced calls (server compaction)', (s) => s.cost, leftOutOnErrors(answeredProbes, 'the cost')),
  def('latency.p50', false, 'median answer latency in ms over answered probes (cache hits, failed calls and batched calls excluded)', (s) => s.latencyP50, leftOutOnErrors(answeredProbes, 'the latency')),
];

const FRACTION = [0, 1] as const;
const ZERO_OR_MORE: readonly [number, number] = [0, Number.POSITIVE_INFINITY];

/** The bounded metrics' ranges: rates and means of scores in 0–1, the judge's overall score in 1–5. */
const RANGES: Record<string, readonly [number, number]> = {
  'probe.accuracy': FRACTION,
  'probe.accuracy_graded': FRACTION,
  'probe.answerable': FRACTION,
  'probe.reader_gap': FRACTION,
  'probe.f1': FRACTION,
  'probe.pass_hat_n': FRACTION,
  'tool.accuracy': FRACTION,
  'tool.right_tool': FRACTION,
  'tool.args_accuracy': FRACTION,
  'facts.retention': FRACTION,
  'summary.judge.overall': [1, 5],
  'summary.judge.coverage': FRACTION,
  'summary.judge.faithfulness': FRACTION,
  'summary.judge.score': FRACTION,
  'summary.checks.coverage': FRACTION,
};

/**
 * The values a metric can take, when bounded: a gate's threshold outside them, or a
 * max_drop wider than them, could never fail (`max_drop: 5` meant as points is the usual slip).
 */
export function metricRange(name: string): readonly [number, number] | undefined {
  if (metricKind(name) !== undefined) return FRACTION;
  // The rest are counts, tokens, cost and latency: zero or more.
  return RANGES[name] ?? (isMetricName(name) ? ZERO_OR_MORE : undefined);
}

/** Every metric name gates accept (`probe.accuracy.<kind>` expanded for each probe kind). */
export const METRIC_NAMES: readonly string[] = BASE_METRICS.map((m) => m.name);

/** The probe kind a `probe.accuracy.<kind>` metric is restricted to; undefined for every other metric. */
export function metricKind(name: string): string | undefined {
  const prefix = 'probe.accuracy.';
  return name.startsWith(prefix) ? name.slice(prefix.length) : undefined;
}

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
