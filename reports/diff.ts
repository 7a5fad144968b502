// Before/after comparison of two runs: what changed between them (strategies
// added or removed, a shared strategy's options, prompt or models, the models
// and endpoints of the whole run), then metric deltas, probes that flipped,
// summaries whose grades moved, and per-strategy significance so a one-probe
// wobble is not reported as a regression. Only strategies both runs measured
// are compared: a strategy one run never ran has no delta to report. diff.html
// reads verdict-first, as report.html does: a headline and a per-strategy table
// built from these same tests, then the flips with the context each side sent.
import { stringify } from 'csv-stringify/sync';
import { createRequire } from 'node:module';
import type { Attribution, ProbeRecord, RunInfo, RunResult, StrategyFingerprint, StrategyInfo, SummaryRecord } from '../core/types.js';
import { contextOf } from '../core/contexts.js';
import { METRIC_NAMES, compareProbes, editedTranscripts, metricDef, probeKey, shardLabel, stageErrors, strategyIds, summarizeStrategy } from './aggregate.js';
import { esc, num, pct } from './format.js';
import { page } from './html.js';
import { SIGNIFICANCE_LEVEL, holm, type PairedResult } from '../core/stats.js';

export interface MetricDelta {
  metric: string;
  base?: number;
  cand?: number;
  delta?: number;
  /** True when the change goes the wrong way for this metric. */
  worse: boolean;
}

/** What one run's record of a flipped probe shows: a repeat whose outcome matches the run's majority. */
export interface FlipSide {
  answer?: string;
  attribution?: Attribution;
  contextTokens: number;
  /** The exact context sent, when the run recorded it. */
  context?: { role: string; text: string }[];
}

export interface ProbeFlip {
  strategy: string;
  transcript: string;
  probe: string;
  direction: 'pass→fail' | 'fail→pass';
  /** Share of graded repeats that passed, before and after. */
  baseRate: number;
  candRate: number;
  question?: string;
  base?: FlipSide;
  cand?: FlipSide;
}

export interface SummaryMove {
  strategy: string;
  transcript: string;
  index: number;
  field: string;
  base?: number;
  cand?: number;
}

/** A strategy both runs measured. */
export interface StrategyDiff {
  strategy: string;
  metrics: MetricDelta[];
  /** Probes graded in both runs (matched on transcript + probe, repeats aggregated). */
  sharedProbes: number;
  /** Shared probes whose pass rate fell (with one repeat: passed, then failed), and rose. */
  passToFail: number;
  failToPass: number;
  /** Mean pass-rate change over the shared probes (candidate − base). */
  rateDelta: number;
  /** Exact McNemar p-value on the shared probes that moved. */
  mcnemarP: number;
  /** `mcnemarP` after Holm's adjustment over every strategy of the diff. */
  mcnemarPHolm: number;
  /** Clustered paired bootstrap of the accuracy difference (candidate − base) on the shared probes. */
  accuracyDiff?: PairedResult;
  /** mcnemarPHolm < SIGNIFICANCE_LEVEL. */
  significant: boolean;
}

/** A strategy whose summary prompt differs between the runs (`path · hash` of each prompt used). */
export interface PromptChange {
  strategy: string;
  base: string[];
  cand: string[];
}

/** One field of a shared strategy's fingerprint (or options) that differs between the runs. */
export interface FieldChange {
  /** `use`, `options.<name>`, `summarizer`, `prompt`, `prompt.path`, `answerModel`, `judge`, `endpoint` or `agent`. */
  field: string;
  /** Values as text; undefined when the run did not set the field. For `prompt`, the prompt hashes. */
  base?: string;
  cand?: string;
  /** For `prompt`: a unified diff of the two prompt texts. */
  patch?: string;
}

/** What differs about a strategy id both runs measured. */
export interface StrategyChange {
  strategy: string;
  changes: FieldChange[];
  /** The run(s) that recorded no fingerprint for it: then only `use` and options were compared. */
  unrecorded?: 'base' | 'candidate' | 'both';
}

export interface RunSide {
  runId: string;
  model: string;
  judge: string;
  status: RunInfo['status'];
  failure?: string;
  /** `2 of 3` for a shard: it holds part of the run's jobs. */
  shard?: string;
}

export interface RunDiff {
  base: RunSide;
  cand: RunSide;
  /**
   * Reasons the deltas may not mean what they seem, the protocol's first
   * (`not comparable: …`), then a run that did not complete, a model, judge or endpoint change.
   */
  warnings: string[];
  /** The runs' protocol manifests compared; `comparable` is false when they differ. */
  protocol: ProtocolComparison;
  /** False when the protocols differ (answer prompt, judge prompts or models, scorers), allowed or not. */
  comparable: boolean;
  /** Strategy ids only the candidate ran, and only the base ran; neither is compared. */
  added: string[];
  removed: string[];
  /** Shared strategies whose fingerprint differs or was not recorded. */
  changes: StrategyChange[];
  /** Comparisons of the shared strategies. */
  strategies: StrategyDiff[];
  flips: ProbeFlip[];
  summaryMoves: SummaryMove[];
  promptChanges: PromptChange[];
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

/** Records by transcript + probe, grouped once: a large diff has thousands of flips to look up. */
function byProbe(records: ProbeRecord[]): Map<string, ProbeRecord[]> {
  const out = new Map<string, ProbeRecord[]>();
  for (const r of records) {
    const key = probeKey(r.transcript, r.probe);
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
}

/**
 * The record shown for one side of a flip: the first graded repeat with the
 * outcome `passed` (a passing one on the better side, a failing one on the
 * worse), so the answer and context shown are ones that made the difference.
 */
function flipSide(run: RunResult, records: Map<string, ProbeRecord[]>, transcript: string, probe: string, passed: boolean): { question: string; side: FlipSide } | undefined {
  const mine = records.get(probeKey(transcript, probe)) ?? [];
  const r = mine.find((x) => x.error === undefined && (x.passed === true) === passed) ?? mine[0];
  if (!r) return undefined;
  const side: FlipSide = { contextTokens: r.contextTokens };
  if (r.answer !== undefined) side.answer = r.answer;
  if (r.attribution !== undefined) side.attribution = r.attribution;
  const context = contextOf(r, run.contexts);
  if (context !== undefined) side.context = context;
  return { question: r.question, side };
}

function strategyDiff(base: RunResult, cand: RunResult, strategy: string): { diff: StrategyDiff; flips: ProbeFlip[] } {
  const mine = (run: RunResult) => run.probes.filter((p) => p.strategy === strategy);
  const [baseRecords, candRecords] = [mine(base), mine(cand)];
  const cmp = compareProbes(baseRecords, candRecords);
  const [baseBy, candBy] = [byProbe(baseRecords), byProbe(candRecords)];
  // A flip is a probe whose pass rate moved (with one repeat, its outcome), each side shown by a repeat that moved it.
  const flips: ProbeFlip[] = cmp.pairs
    .filter((p) => p.base.rate !== p.cand.rate)
    .map((p) => {
      const worse = p.cand.rate < p.base.rate;
      const flip: ProbeFlip = {
        strategy,
        transcript: p.base.transcript,
        probe: p.base.probe,
        direction: worse ? 'pass→fail' : 'fail→pass',
        baseRate: p.base.rate,
        candRate: p.cand.rate,
      };
      const b = flipSide(base, baseBy, p.base.transcript, p.base.probe, worse);
      const c = flipSide(cand, candBy, p.cand.transcript, p.cand.probe, !worse);
      if (b || c) flip.question = (b ?? c)?.question;
      if (b) flip.base = b.side;
      if (c) flip.cand = c.side;
      return flip;
    });
  const diff: StrategyDiff = {
    strategy,
    metrics: metricDeltas(base, cand, strategy),
    sharedProbes: cmp.pairs.length,
    passToFail: cmp.passToFail,
    failToPass: cmp.failToPass,
    rateDelta: cmp.delta,
    mcnemarP: cmp.mcnemarP,
    mcnemarPHolm: cmp.mcnemarP,
    accuracyDiff: cmp.bootstrap,
    significant: cmp.mcnemarP < SIGNIFICANCE_LEVEL,
  };
  return { diff, flips };
}

/**
 * The family of one diff is its per-strategy accuracy tests (one McNemar per
 * shared strategy with at least one probe graded in both runs; one without
 * has no test). Holm keeps the chance of any false "significant" among them
 * at 5%, so comparing ten strategies does not buy ten chances at noise.
 */
function adjustForStrategies(diffs: StrategyDiff[]): StrategyDiff[] {
  const tested = diffs.filter((d) => d.sharedProbes > 0);
  const adjusted = holm(tested.map((d) => d.mcnemarP));
  return diffs.map((d) => {
    const i = tested.indexOf(d);
    const pHolm = i < 0 ? d.mcnemarP : adjusted[i];
    return { ...d, mcnemarPHolm: pHolm, significant: pHolm < SIGNIFICANCE_LEVEL };
  });
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

/**
 * Which strategies' summary prompts changed, read from the summary records.
 * Used for strategies without fingerprints; a fingerprint carries the prompt
 * text, and its change is shown as a text diff instead.
 */
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

// ---------- what changed between the runs ----------

type Fields = Map<string, string | undefined>;

function shown(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Options as `options.<name>` fields; a nested block (the summarizer) as `options.<block>.<name>`. */
function optionFields(options: Record<string, unknown>, prefix: string, out: Fields): void {
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) optionFields(value as Record<string, unknown>, `${prefix}${name}.`, out);
    else out.set(`${prefix}${name}`, shown(value));
  }
}

/** A fingerprint as comparable fields; the prompt text is compared apart (it gets a text diff). */
function fingerprintFields(fp: StrategyFingerprint): Fields {
  const out: Fields = new Map([['use', fp.use]]);
  optionFields(fp.options, 'options.', out);
  // Reported as `summarizer` and `prompt`, which say it without the nesting.
  out.delete('options.summarizer.model');
  out.delete('options.summarizer.prompt');
  out.set('summarizer', fp.summarizer);
  out.set('prompt.path', fp.prompt?.path);
  out.set('answerModel', fp.answerModel);
  out.set('judge', fp.judge);
  out.set('endpoint', fp.endpoint);
  out.set('agent', fp.agent);
  return out;
}

function infoFields(info: StrategyInfo): Fields {
  const out: Fields = new Map([['use', info.use]]);
  optionFields(info.options, 'options.', out);
  return out;
}

/**
 * Runs recorded before paths were made relative hold an absolute prompt path;
 * `/home/a/proj/prompts/x.md` and `prompts/x.md` name the same file, not a change.
 */
function sameValue(field: string, a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (field !== 'options.summarizer.prompt' || a === undefined || b === undefined) return false;
  const slashes = (path: string) => path.replace(/\\/g, '/');
  return slashes(a).endsWith(`/${slashes(b)}`) || slashes(b).endsWith(`/${slashes(a)}`);
}

function fieldChanges(base: Fields, cand: Fields): FieldChange[] {
  const names = [...new Set([...base.keys(), ...cand.keys()])];
  return names.filter((f) => !sameValue(f, base.get(f), cand.get(f))).map((field) => ({ field, base: base.get(field), cand: cand.get(field) }));
}

/** A unified diff of two prompt texts, without jsdiff's `====` banner line. */
export function promptPatch(base: { path: string; text: string }, cand: { path: string; text: string }): string {
  // Loaded here, not with the module: every run's reports import this file for the diff's
  // wording, and only a diff of two runs whose prompts differ needs the package.
  const { createTwoFilesPatch } = createRequire(import.meta.url)('diff') as typeof import('diff');
  const patch = createTwoFilesPatch(`base/${base.path}`, `candidate/${cand.path}`, base.text, cand.text);
  return patch.replace(/^=+\n/, '');
}

function promptChange(base: StrategyFingerprint, cand: StrategyFingerprint): FieldChange | undefined {
  if (base.prompt?.hash === cand.prompt?.hash) return undefined;
  const none = { path: '(none)', text: '' };
  return { field: 'prompt', base: base.prompt?.hash, cand: cand.prompt?.hash, patch: promptPatch(base.prompt ?? none, cand.prompt ?? none) };
}

function unrecordedSide(base: StrategyInfo, cand: StrategyInfo): NonNullable<StrategyChange['unrecorded']> {
  if (!base.fingerprint && !cand.fingerprint) return 'both';
  return base.fingerprint ? 'candidate' : 'base';
}

function strategyChange(base: StrategyInfo, cand: StrategyInfo): StrategyChange {
  const [b, c] = [base.fingerprint, cand.fingerprint];
  if (!b || !c) {
    // Runs made before fingerprints were recorded still carry `use` and options.
    return { strategy: base.id, changes: fieldChanges(infoFields(base), infoFields(cand)), unrecorded: unrecordedSide(base, cand) };
  }
  const prompt = promptChange(b, c);
  const changes = fieldChanges(fingerprintFields(b), fingerprintFields(c));
  return { strategy: base.id, changes: prompt ? [...changes, prompt] : changes };
}

/** Shared strategies that differ or could not be fully compared; strategies only in the records are skipped. */
function strategyChanges(base: RunResult, cand: RunResult, shared: string[]): StrategyChange[] {
  const out: StrategyChange[] = [];
  for (const id of shared) {
    const b = base.info.strategies.find((s) => s.id === id);
    const c = cand.info.strategies.find((s) => s.id === id);
    if (!b || !c) continue;
    const change = strategyChange(b, c);
    if (change.changes.length || change.unrecorded) out.push(change);
  }
  return out;
}

function statusWarning(side: 'base' | 'candidate', info: RunInfo): string | undefined {
  if (info.shard) return `the ${side} run is shard ${shardLabel(info.shard)}; its numbers cover that shard's jobs only (memeval merge the shards first)`;
  if (info.status === 'complete') return undefined;
  const why = info.failure ? `: "${info.failure}"` : '';
  return `the ${side} run did not complete (status ${info.status})${why}; its numbers do not cover every item`;
}

function mixWarning(what: string, base: string, cand: string, change: string): string | undefined {
  if (base === cand) return undefined;
  return `the runs used different ${what}: ${base} → ${cand}; deltas mix the strategy change with the ${change} change`;
}

function endpointWarnings(base: RunInfo, cand: RunInfo): string[] {
  if (!base.provenance && !cand.provenance) return ['neither run recorded where its models were served from; endpoints cannot be compared'];
  if (!base.provenance || !cand.provenance) {
    const side = base.provenance ? 'candidate' : 'base';
    return [`the ${side} run did not record where its models were served from; endpoints cannot be compared`];
  }
  const b = base.provenance.endpoints;
  const c = cand.provenance.endpoints;
  return Object.keys(b)
    .filter((spec) => spec in c && b[spec] !== c[spec])
    .map((spec) => `the runs called ${spec} at different endpoints: ${b[spec]} → ${c[spec]}; deltas mix the strategy change with the endpoint change`);
}

/** Everything that makes the deltas less than a clean before/after of the strategies. */
export function runWarnings(base: RunInfo, cand: RunInfo): string[] {
  const answer = (i: RunInfo) => i.provenance?.answerModel ?? i.model;
  const judge = (i: RunInfo) => i.provenance?.judge ?? i.judge;
  const warnings = [
    statusWarning('base', base),
    statusWarning('candidate', cand),
    mixWarning('answer models', answer(base), answer(cand), 'model'),
    mixWarning('judges', judge(base), judge(cand), 'judge'),
    ...endpointWarnings(base, cand),
  ];
  return warnings.filter((w): w is string => w !== undefined);
}

function runSide(info: RunInfo): RunSide {
  const side: RunSide = { runId: info.runId, model: info.model, judge: info.judge, status: info.status };
  if (info.failure !== undefined) side.failure = info.failure;
  if (info.shard) side.shard = shardLabel(info.shard);
  return side;
}

function unfingerprinted(run: RunResult, ids: string[]): string[] {
  return ids.filter((id) => !run.info.strategies.find((s) => s.id === id)?.fingerprint);
}

export interface DiffOptions {
  /** Compare runs whose protocols differ: the difference becomes a warning instead of `not comparable`. */
  allowProtocolChange?: boolean;
}

function transcriptIds(run: RunResult): Set<string> {
  const ids = new Set<string>();
  for (const r of run.turns) ids.add(r.transcript);
  for (const r of run.probes) ids.add(r.transcript);
  return ids;
}

/**
 * Runs over different transcripts: each run's accuracy and tokens are over its own, so their
 * difference mixes the data change with the strategy change; only the paired figures (Δ,
 * McNemar, flips) stand on the probes both runs share.
 */
/** Runs that asked each probe a different number of times: majority outcomes and pass rates rest on different samples. */
function repeatWarnings(base: RunInfo, cand: RunInfo): string[] {
  if (base.repeat === cand.repeat) return [];
  return [`the runs asked each probe a different number of times (base ${base.repeat}, candidate ${cand.repeat}): outcomes by majority and pass rates rest on different samples, so part of a change may be the repeats'`];
}

function transcriptWarnings(base: RunResult, cand: RunResult): string[] {
  const b = transcriptIds(base);
  const c = transcriptIds(cand);
  const shared = [...b].filter((id) => c.has(id)).length;
  if (shared === b.size && shared === c.size) return [];
  return [
    `the runs measured different transcripts (base ${b.size}, candidate ${c.size}, ${shared} in both): each run's accuracy and tokens are over its own transcripts, so their difference mixes the data change with the strategy change; Δ, McNemar and the flips are over the probes both runs share`,
  ];
}

/**
 * Transcripts both runs measured, read from other versions of their files (`editedTranscripts`):
 * the probes or facts may have changed, so a flip there may be the data's and not the strategy's. That is a change of
 * what was measured, as a judge change is: the runs are not comparable unless it was meant.
 */
function withEditedTranscripts(protocol: ProtocolComparison, base: RunInfo, cand: RunInfo): ProtocolComparison {
  const edited = editedTranscripts(base, cand);
  if (edited.length === 0) return protocol;
  const some = edited.slice(0, 5).join(', ') + (edited.length > 5 ? ', …' : '');
  const difference = `${edited.length} transcript(s) were read from other versions of their files (sha256 differ: ${some}): their probes or facts may have changed, so the deltas mix the data change with the strategy change`;
  return { ...protocol, differences: [...protocol.differences, difference] };
}

/** Errored items in either run: rates count them as not passed, and the figures that leave them out are over other items. */
function errorWarnings(base: RunResult, cand: RunResult): string[] {
  const sides: [string, RunResult][] = [
    ['base', base],
    ['candidate', cand],
  ];
  return sides.flatMap(([name, run]) => {
    const errored = stageErrors(run).filter((s) => s.errors > 0);
    if (errored.length === 0) return [];
    const counts = errored.map((s) => `${s.errors} of ${s.attempted} ${s.stage}`).join(', ');
    return [
      `the ${name} run has errored items (${counts}): rates count them as not passed, and the figures taken over the items that did not error (cost, latency, summary judge means and checks) are over fewer items than the other run's, so their changes are not like for like`,
    ];
  });
}

function allWarnings(base: RunInfo, cand: RunInfo, protocol: ProtocolComparison, options: DiffOptions): string[] {
  // A judge change is already named by the protocol comparison when both runs recorded one.
  const judgeSaid = protocol.recorded === 'both';
  const rest = runWarnings(base, cand).filter((w) => !(judgeSaid && w.startsWith('the runs used different judges:')));
  return [...protocolWarnings(protocol, options.allowProtocolChange === true), ...rest];
}

export function diffRuns(base: RunResult, cand: RunResult, options: DiffOptions = {}): RunDiff {
  const baseIds = strategyIds(base);
  const candIds = strategyIds(cand);
  const shared = baseIds.filter((id) => candIds.includes(id));
  const parts = shared.map((id) => strategyDiff(base, cand, id));
  // Record-based prompt changes only where a fingerprint cannot show the text.
  const noFingerprint = new Set([...unfingerprinted(base, shared), ...unfingerprinted(cand, shared)]);
  const protocol = withEditedTranscripts(compareProtocols(base.info, cand.info), base.info, cand.info);
  return {
    base: runSide(base.info),
    cand: runSide(cand.info),
    warnings: [...allWarnings(base.info, cand.info, protocol, options), ...transcriptWarnings(base, cand), ...repeatWarnings(base.info, cand.info), ...errorWarnings(base, cand)],
    protocol,
    comparable: protocol.differences.length === 0,
    added: candIds.filter((id) => !baseIds.includes(id)),
    removed: baseIds.filter((id) => !candIds.includes(id)),
    changes: strategyChanges(base, cand, shared),
    strategies: adjustForStrategies(parts.map((p) => p.diff)),
    flips: parts.flatMap((p) => p.flips),
    summaryMoves: summaryMoves(base, cand),
    promptChanges: promptChanges(base, cand, shared.filter((id) => noFingerprint.has(id))),
  };
}

// ---------- protocol: are the two runs measured the same way? ----------

type Protocol = NonNullable<RunInfo['protocol']>;
type ProtocolJudge = Protocol['answerJudge'];

/** How the two runs' protocol manifests compare (run.json `info.protocol`). */
export interface ProtocolComparison {
  /** Which runs recorded a manifest; with fewer than both, nothing could be compared. */
  recorded: 'both' | 'base' | 'candidate' | 'neither';
  /** Differences that make the numbers incomparable: answer prompt, judge prompts or models, scorers. */
  differences: string[];
  /** Differences in the imported data (categories, question types, import options): shown, never blocking. */
  dataNotes: string[];
}

function short(hash: string): string {
  return hash.slice(0, 8);
}

function judgeDifferences(what: string, base: ProtocolJudge, cand: ProtocolJudge): string[] {
  const out: string[] = [];
  if (base.model !== cand.model) out.push(`${what} model ${base.model} → ${cand.model}`);
  if (base.sha256 !== cand.sha256) out.push(`${what} prompts/rule ${base.name} ${short(base.sha256)} → ${cand.name} ${short(cand.sha256)}`);
  return out;
}

/** transcript id → sha256 of the system prompt it sends (`none` for none). */
function systemPromptOf(p: Protocol): Map<string, string> {
  return new Map(p.answer.systemPrompts.flatMap((g) => g.transcripts.map((id): [string, string] => [id, g.sha256])));
}

/** Only transcripts both runs measured: a transcript one run never saw is a data change, not a prompt change. */
function systemPromptDifference(base: Protocol, cand: Protocol): string | undefined {
  const b = systemPromptOf(base);
  const c = systemPromptOf(cand);
  const changed = [...b.keys()].filter((id) => c.has(id) && c.get(id) !== b.get(id)).sort();
  if (changed.length === 0) return undefined;
  return `answer prompt (the transcript's system prompt) differs for ${changed.length} shared transcript${changed.length === 1 ? '' : 's'} (e.g. ${changed[0]})`;
}

function listText(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : '(none)';
}

export function protocolDifferences(base: Protocol, cand: Protocol): string[] {
  const out: string[] = [];
  if (base.version !== cand.version) out.push(`protocol manifest version ${base.version} → ${cand.version}`);
  if (base.answer.sha256 !== cand.answer.sha256) out.push(`answer request "${base.answer.request}" → "${cand.answer.request}"`);
  const system = systemPromptDifference(base, cand);
  if (system) out.push(system);
  out.push(...judgeDifferences('answer judge', base.answerJudge, cand.answerJudge));
  out.push(...judgeDifferences('summary judge', base.summaryJudge, cand.summaryJudge));
  const scorers = (p: Protocol) => [...p.scorers].sort().join(', ');
  if (scorers(base) !== scorers(cand)) out.push(`scorers ${listText([...base.scorers].sort())} → ${listText([...cand.scorers].sort())}`);
  return out;
}

/** What each run's imported data leaves out or records about its import, per source. */
function dataLabel(d: Protocol['datasets'][number]): string {
  const parts = [`${d.probes} probes`];
  if (d.absentCategories?.length) parts.push(`categories ${d.absentCategories.join(',')} absent`);
  if (d.questionTypes) parts.push(`types ${Object.keys(d.questionTypes).sort().join(',')}`);
  if (d.import?.length) parts.push(`import ${JSON.stringify(d.import)}`);
  return parts.join('; ');
}

export function dataNotes(base: Protocol, cand: Protocol): string[] {
  const sources = [...new Set([...base.datasets, ...cand.datasets].map((d) => d.source))].sort();
  return sources.flatMap((source) => {
    const b = base.datasets.find((d) => d.source === source);
    const c = cand.datasets.find((d) => d.source === source);
    const [bl, cl] = [b ? dataLabel(b) : 'not in the run', c ? dataLabel(c) : 'not in the run'];
    return bl === cl ? [] : [`imported ${source} data differs: ${bl} → ${cl}`];
  });
}

export function compareProtocols(base: RunInfo, cand: RunInfo): ProtocolComparison {
  const [b, c] = [base.protocol, cand.protocol];
  if (!b || !c) {
    const recorded = b ? 'base' : c ? 'candidate' : 'neither';
    return { recorded, differences: [], dataNotes: [] };
  }
  return { recorded: 'both', differences: protocolDifferences(b, c), dataNotes: dataNotes(b, c) };
}

/** The lines that head the diff's warnings: the verdict on comparability first, then what it rests on. */
function protocolWarnings(p: ProtocolComparison, allowChange: boolean): string[] {
  const out: string[] = [];
  if (p.differences.length > 0) {
    const list = p.differences.join('; ');
    out.push(allowChange ? `protocol changed (compared anyway, --allow-protocol-change): ${list}` : `not comparable: ${list}`);
  }
  if (p.recorded === 'base' || p.recorded === 'candidate') {
    const missing = p.recorded === 'base' ? 'candidate' : 'base';
    out.push(`the ${missing} run recorded no protocol manifest (made before it was recorded); answer prompts, judge prompts and scorers cannot be compared`);
  }
  return [...out, ...p.dataNotes];
}

// ---------- files ----------

type CsvRow = (string | number)[];

/** Warnings, added/removed strategies and fingerprint changes, as rows beside the metrics. */
function changeRows(diff: RunDiff): CsvRow[] {
  const rows: CsvRow[] = diff.warnings.map((w) => ['', 'run.warning', '', w, '', '']);
  for (const id of diff.removed) rows.push([id, 'strategy.removed', 'present', '', '', '']);
  for (const id of diff.added) rows.push([id, 'strategy.added', '', 'present', '', '']);
  for (const c of diff.changes) {
    if (c.unrecorded) rows.push([c.strategy, 'fingerprint.not_recorded', '', c.unrecorded, '', '']);
    for (const f of c.changes) rows.push([c.strategy, `changed.${f.field}`, f.base ?? '', f.cand ?? '', '', '']);
  }
  return rows;
}

export function diffCsv(diff: RunDiff): string {
  const rows: CsvRow[] = [['strategy', 'metric', 'base', 'candidate', 'delta', 'worse'], ...changeRows(diff)];
  for (const s of diff.strategies) {
    for (const m of s.metrics) rows.push([s.strategy, m.metric, m.base ?? '', m.cand ?? '', m.delta ?? '', m.worse ? 'true' : 'false']);
    rows.push([s.strategy, 'probe.shared', '', s.sharedProbes, '', '']);
    rows.push([s.strategy, 'probe.pass_to_fail', '', s.passToFail, '', '']);
    rows.push([s.strategy, 'probe.fail_to_pass', '', s.failToPass, '', '']);
    rows.push([s.strategy, 'probe.mcnemar_p', '', s.mcnemarP, '', '']);
    rows.push([s.strategy, 'probe.mcnemar_p_holm', '', s.mcnemarPHolm, '', '']);
    if (s.accuracyDiff?.inconclusive) rows.push([s.strategy, 'probe.accuracy_diff_ci_inconclusive', '', s.accuracyDiff.inconclusive, '', '']);
    else if (s.accuracyDiff) {
      rows.push([s.strategy, 'probe.accuracy_diff_ci_low', '', s.accuracyDiff.low ?? '', '', '']);
      rows.push([s.strategy, 'probe.accuracy_diff_ci_high', '', s.accuracyDiff.high ?? '', '', '']);
    }
    rows.push([s.strategy, 'significant', '', s.significant ? 'true' : 'false', '', '']);
  }
  return stringify(rows);
}

function signed(v: number | undefined, digits: number): string {
  if (v === undefined) return '–';
  return `${v > 0 ? '+' : ''}${num(v, digits)}`;
}

/** `[−4.0, +1.0]` in points, or why there is no clustered interval. */
function diffInterval(r: PairedResult): string {
  if (r.low === undefined || r.high === undefined) return `(no clustered CI: ${esc(r.inconclusive ?? 'not computed')})`;
  return `[${signed(r.low * 100, 1)}, ${signed(r.high * 100, 1)}]`;
}

function warningsHtml(diff: RunDiff): string {
  return diff.warnings.map((w) => `<p class="bad">⚠️ <b>${esc(w)}</b></p>`).join('\n');
}

function changesHtml(diff: RunDiff): string {
  const parts: string[] = [];
  if (diff.removed.length) parts.push(`<p>Removed (only in base, not compared): ${diff.removed.map((id) => `<b>${esc(id)}</b>`).join(', ')}</p>`);
  if (diff.added.length) parts.push(`<p>Added (only in candidate, not compared): ${diff.added.map((id) => `<b>${esc(id)}</b>`).join(', ')}</p>`);
  const rows = diff.changes.flatMap((c) => c.changes.map((f) => `<tr><td>${esc(c.strategy)}</td><td>${esc(f.field)}</td><td>${esc(f.base ?? '–')}</td><td>${esc(f.cand ?? '–')}</td></tr>`));
  if (rows.length) parts.push(`<h2>What changed in shared strategies</h2><table><tr><th>strategy</th><th>field</th><th>base</th><th>candidate</th></tr>${rows.join('')}</table>`);
  for (const c of diff.changes) {
    for (const f of c.changes) if (f.patch) parts.push(`<h3>${esc(c.strategy)}: summary prompt</h3><pre>${esc(f.patch)}</pre>`);
  }
  const unrecorded = unrecordedNote(diff);
  if (unrecorded) parts.push(`<p class="muted">${esc(unrecorded)}</p>`);
  return parts.join('\n');
}

// ---------- the verdict at the top of diff.html ----------

/** `−8.2 pts`, with a true minus sign, as report.html's verdict writes it. */
function pts(delta: number): string {
  const v = 100 * delta;
  return `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)} pts`;
}

function pText(p: number): string {
  return p.toPrecision(3);
}

/** The accuracy change to quote: the paired bootstrap's mean difference, or the McNemar counts' when it was not drawn. */
function accuracyDelta(s: StrategyDiff): number | undefined {
  if (s.accuracyDiff) return s.accuracyDiff.diff;
  return s.sharedProbes > 0 ? s.rateDelta : undefined;
}

/** The direction counts only when the Holm-adjusted McNemar test says so; it follows the discordant pairs the test counted. */
function markOf(s: StrategyDiff): [string, string] {
  if (!s.significant || s.failToPass === s.passToFail) return ['≈', 'muted'];
  return s.failToPass > s.passToFail ? ['▲', 'ok'] : ['▼', 'bad'];
}

/** ▲ / ▼ significantly more / less accurate in the candidate, ≈ not significant; the same classes and title as report.html's marks. */
export function diffMark(s: StrategyDiff): string {
  if (s.sharedProbes === 0) return '<span class="muted" title="not compared: no probe graded in both runs">–</span>';
  const title = `exact McNemar on ${s.sharedProbes} shared probes: p = ${pText(s.mcnemarP)}, Holm-adjusted p = ${pText(s.mcnemarPHolm)}`;
  const [mark, cls] = markOf(s);
  return `<span class="sig ${cls}" title="${esc(title)}">${mark}</span>`;
}

function metricOf(s: StrategyDiff, name: string): MetricDelta | undefined {
  return s.metrics.find((m) => m.metric === name);
}

/**
 * Why no verdict may be drawn: a run that did not complete did not measure
 * every item, and runs whose protocols differ were not measured the same way.
 * Either way a clean "no different" would be a claim the runs cannot back.
 */
export function untrustedReasons(diff: RunDiff): string[] {
  const reasons: string[] = [];
  if (diff.warnings.some((w) => w.startsWith('not comparable:'))) reasons.push('the runs were not measured the same way (the protocol difference above)');
  const sides: ['base' | 'candidate', RunSide][] = [['base', diff.base], ['candidate', diff.cand]];
  for (const [name, side] of sides) {
    if (side.shard) reasons.push(`the ${name} run is shard ${side.shard}, so its numbers cover only that shard's jobs`);
    if (side.status === 'complete') continue;
    const why = side.failure ? `: "${side.failure}"` : '';
    reasons.push(`the ${name} run did not complete (status ${side.status}${why}), so its numbers do not cover every item`);
  }
  return reasons;
}

function andList(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function changed(s: StrategyDiff): string {
  const d = accuracyDelta(s);
  return `<strong>${esc(s.strategy)}</strong> (${d === undefined ? '' : `${esc(pts(d))}, `}Holm p = ${pText(s.mcnemarPHolm)})`;
}

/** How the candidate's mean context tokens, summed over the strategies both runs measured, compare with the base's. */
export function tokenChange(diff: RunDiff): number | undefined {
  let [base, cand] = [0, 0];
  for (const s of diff.strategies) {
    const m = metricOf(s, 'context.mean_tokens');
    if (m?.base === undefined || m.cand === undefined) continue;
    base += m.base;
    cand += m.cand;
  }
  return base > 0 ? (cand - base) / base : undefined;
}

function tokenClause(diff: RunDiff): string {
  const change = tokenChange(diff);
  if (change === undefined) return '';
  // Under half a percent is rounding, not a saving worth a word.
  if (Math.abs(change) < 0.005) return '; it uses about as many mean context tokens';
  return `; it uses ${pct(Math.abs(change)).replace('.0%', '%')} ${change < 0 ? 'fewer' : 'more'} mean context tokens`;
}

function accuracyClause(tested: StrategyDiff[]): string {
  const worse = tested.filter((s) => markOf(s)[0] === '▼');
  const better = tested.filter((s) => markOf(s)[0] === '▲');
  const same = tested.length - worse.length - better.length;
  if (worse.length + better.length === 0) {
    const where = tested.length === 1 ? `on <strong>${esc(tested[0].strategy)}</strong>` : `on any of the ${tested.length} shared strategies`;
    return `Candidate is not significantly different in accuracy from base ${where}`;
  }
  const parts: string[] = [];
  if (worse.length) parts.push(`significantly less accurate on ${andList(worse.map(changed))}`);
  if (better.length) parts.push(`significantly more accurate on ${andList(better.map(changed))}`);
  if (same) parts.push('no different elsewhere');
  return `Candidate is ${andList(parts)}`;
}

/** The headline: one sentence on what the comparison shows, or why it shows nothing. */
export function diffHeadline(diff: RunDiff): string {
  const reasons = untrustedReasons(diff);
  if (reasons.length) return `<strong>The comparison cannot be trusted:</strong> ${esc(reasons.join('; '))}.`;
  const tested = diff.strategies.filter((s) => s.sharedProbes > 0);
  if (tested.length === 0) return '<strong>Nothing to compare:</strong> the runs share no strategy with a probe graded in both.';
  const untested = diff.strategies.filter((s) => s.sharedProbes === 0).map((s) => s.strategy);
  const notCompared = untested.length ? ` Not compared (no probe graded in both): ${esc(untested.join(', '))}.` : '';
  const protocol = diff.comparable ? '' : ' The protocol changed between the runs, so these differences mix the strategy change with the protocol change.';
  return `${accuracyClause(tested)}${tokenClause(diff)}.${notCompared}${protocol}`;
}

function tokensCell(s: StrategyDiff): string {
  const m = metricOf(s, 'context.mean_tokens');
  if (m?.base === undefined && m?.cand === undefined) return '–';
  const share = m.base && m.cand !== undefined ? ` <span class="muted">(${m.cand >= m.base ? '+' : '−'}${pct(Math.abs(m.cand - m.base) / m.base)})</span>` : '';
  return `${num(m.base)} → ${num(m.cand)}${share}`;
}

function deltaCell(s: StrategyDiff): string {
  const d = accuracyDelta(s);
  if (d === undefined) return '–';
  const r = s.accuracyDiff;
  const interval = r?.low !== undefined && r.high !== undefined ? esc(`[${pts(r.low)}, ${pts(r.high)}]`) : r ? diffInterval(r) : '';
  const ci = interval ? ` <span class="muted">${interval}</span>` : '';
  return `${esc(pts(d))}${ci}`;
}

function verdictRow(s: StrategyDiff): string {
  const acc = metricOf(s, 'probe.accuracy');
  const cells = [
    `<td>${esc(s.strategy)}</td>`,
    `<td class="n nw">${pct(acc?.base)} → ${pct(acc?.cand)}</td>`,
    `<td class="n nw">${deltaCell(s)}</td>`,
    `<td class="n">${diffMark(s)}</td>`,
    `<td class="n nw">${tokensCell(s)}</td>`,
  ];
  return `<tr>${cells.join('')}</tr>`;
}

const VERDICT_LEGEND = `▲/▼ significantly more/less accurate in the candidate, ≈ not significant (exact McNemar on the probes both runs have, an errored one counting as not passed, Holm-adjusted across the diff's strategies; hover for p). Δ is the paired accuracy difference (candidate − base) with its clustered 95% bootstrap CI; tokens are mean context tokens, and the headline's share sums them over the shared strategies.`;

// Inline, as report.html's verdict does: the page's CSP allows inline styles and no scripts.
const VERDICT_STYLE = '<style>.verdict{border:1px solid #d0d7de;border-radius:6px;padding:6px 14px;margin:0 0 12px}.verdict h2{margin:4px 0 6px;border:0;padding:0}.verdict p{margin:4px 0}.verdict-headline{font-size:15px}.verdict-table{margin:6px 0}.flip{border-top:1px solid #d0d7de;padding:4px 0}</style>';

/** The verdict section: the headline, then base → candidate per strategy with its significance mark. */
export function diffVerdictSection(diff: RunDiff): string {
  const head = ['strategy', 'accuracy base → candidate', 'Δ accuracy [95% CI]', 'significance', 'mean ctx tokens base → candidate'];
  const table = diff.strategies.length
    ? `<table class="verdict-table"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${diff.strategies.map(verdictRow).join('')}</table><p class="muted">${esc(VERDICT_LEGEND)}</p>`
    : '';
  return `${VERDICT_STYLE}<section class="verdict" id="verdict"><h2>Verdict</h2><p class="verdict-headline" id="verdict-headline">${diffHeadline(diff)}</p>${table}</section>`;
}

// ---------- flips, with what each side sent ----------

/** Flips listed in full per direction; a big regression would otherwise make diff.html as large as both runs' contexts. */
export const FLIP_LIST_LIMIT = 200;

function contextText(context: { role: string; text: string }[]): string {
  return context.map((m) => `[${m.role}]\n${m.text}`).join('\n\n');
}

function contextDetails(label: string, side: FlipSide | undefined): string {
  if (!side?.context) return `<p class="muted">${esc(`${label}: context not recorded`)}</p>`;
  const count = side.context.length;
  const title = `context the ${label} sent (${count} message${count === 1 ? '' : 's'}, ${num(side.contextTokens)} tokens)`;
  return `<details class="flip-context"><summary>${esc(title)}</summary><pre>${esc(contextText(side.context))}</pre></details>`;
}

function flipBlock(f: ProbeFlip): string {
  const rows = [
    `<tr><th></th><th>base</th><th>candidate</th></tr>`,
    `<tr><td>answer</td><td>${esc(f.base?.answer ?? '–')}</td><td>${esc(f.cand?.answer ?? '–')}</td></tr>`,
    `<tr><td>attribution</td><td>${esc(f.base?.attribution ?? '–')}</td><td>${esc(f.cand?.attribution ?? '–')}</td></tr>`,
    `<tr><td>pass rate</td><td class="n">${pct(f.baseRate)}</td><td class="n">${pct(f.candRate)}</td></tr>`,
  ];
  const question = f.question === undefined ? '' : ` — ${esc(f.question)}`;
  return `<div class="flip"><p><b>${esc(f.transcript)} / ${esc(f.probe)}</b>${question}</p><table>${rows.join('')}</table>${contextDetails('base', f.base)}${contextDetails('candidate', f.cand)}</div>`;
}

function byStrategy(flips: ProbeFlip[]): Map<string, ProbeFlip[]> {
  const out = new Map<string, ProbeFlip[]>();
  for (const f of flips) out.set(f.strategy, [...(out.get(f.strategy) ?? []), f]);
  return out;
}

function flipDirection(all: ProbeFlip[], direction: ProbeFlip['direction'], title: string, limit: number): string {
  const flips = all.filter((f) => f.direction === direction);
  if (!flips.length) return `<h3>${esc(title)} (0)</h3><p class="muted">None.</p>`;
  const shown = flips.slice(0, limit);
  const groups = [...byStrategy(shown)].map(([strategy, list]) => `<h4>${esc(strategy)} (${list.length})</h4>${list.map(flipBlock).join('')}`);
  const more = flips.length - shown.length;
  const rest = more > 0 ? `<p class="muted flips-more">${esc(`… and ${more} more not shown here; the Flipped probes table below lists every flip.`)}</p>` : '';
  return `<h3>${esc(title)} (${flips.length})</h3>${groups.join('')}${rest}`;
}

/** Flips by direction, then strategy: the question, both answers and causes, and the context each side sent. */
export function flipsSection(diff: RunDiff, limit = FLIP_LIST_LIMIT): string {
  return `<section id="flips"><h2>Flips: what each side sent</h2>${flipDirection(diff.flips, 'pass→fail', 'Passed in base, failed in candidate', limit)}${flipDirection(diff.flips, 'fail→pass', 'Failed in base, passed in candidate', limit)}</section>`;
}

export function diffHtml(diff: RunDiff, options: { flipLimit?: number } = {}): string {
  const blocks = diff.strategies.map((s) => {
    const verdict =
      s.sharedProbes === 0
        ? '<span class="muted">not compared: no probe graded in both runs</span>'
        : s.significant
          ? `<span class="${s.passToFail > s.failToPass ? 'bad' : 'ok'}">significant change</span>`
          : '<span class="muted">no significant accuracy change</span>';
    const ci = s.accuracyDiff ? ` · accuracy Δ ${signed(s.accuracyDiff.diff * 100, 1)} pts ${diffInterval(s.accuracyDiff)}` : '';
    const rows = s.metrics
      .filter((m) => m.base !== undefined || m.cand !== undefined)
      .map((m) => `<tr><td>${esc(m.metric)}</td><td class="n">${num(m.base, 3)}</td><td class="n">${num(m.cand, 3)}</td><td class="n${m.worse ? ' bad' : ''}">${signed(m.delta, 3)}</td></tr>`);
    return `<h2>${esc(s.strategy)}</h2><p>${verdict} · shared probes ${s.sharedProbes} · pass→fail ${s.passToFail} · fail→pass ${s.failToPass} · McNemar p = ${num(s.mcnemarP, 3)} (Holm-adjusted ${num(s.mcnemarPHolm, 3)})${ci}</p>
<table><tr><th>metric</th><th>base</th><th>candidate</th><th>Δ</th></tr>${rows.join('')}</table>`;
  });
  const flips = diff.flips.map((f) => `<tr><td>${esc(f.strategy)}</td><td>${esc(f.transcript)}</td><td>${esc(f.probe)}</td><td class="${f.direction === 'pass→fail' ? 'bad' : 'ok'}">${esc(f.direction)}</td><td class="n">${pct(f.baseRate)} → ${pct(f.candRate)}</td></tr>`);
  const moves = diff.summaryMoves.map((m) => `<tr><td>${esc(m.strategy)}</td><td>${esc(m.transcript)}</td><td class="n">${m.index}</td><td>${esc(m.field)}</td><td class="n">${num(m.base, 2)} → ${num(m.cand, 2)}</td></tr>`);
  const prompts = diff.promptChanges.map((c) => `<tr><td>${esc(c.strategy)}</td><td>${esc(c.base.join(', ') || '–')}</td><td>${esc(c.cand.join(', ') || '–')}</td></tr>`);
  const promptTable = prompts.length ? `<h2>Summary prompts that changed</h2><table><tr><th>strategy</th><th>base</th><th>candidate</th></tr>${prompts.join('')}</table>` : '';
  const family = `<p class="muted">Significance: exact McNemar per strategy, Holm-adjusted over the ${diff.strategies.filter((s) => s.sharedProbes > 0).length} strategies with shared probes; a change is significant when the adjusted p is below ${SIGNIFICANCE_LEVEL}.</p>`;
  const body = `<h1>memeval diff</h1><p>base <b>${esc(diff.base.runId)}</b> → candidate <b>${esc(diff.cand.runId)}</b></p>
${warningsHtml(diff)}
${diffVerdictSection(diff)}
${flipsSection(diff, options.flipLimit)}
${changesHtml(diff)}
${family}
${promptTable}
${blocks.join('\n')}
<h2>Flipped probes (${diff.flips.length})</h2>${flips.length ? `<table><tr><th>strategy</th><th>transcript</th><th>probe</th><th>flip</th><th>pass rate</th></tr>${flips.join('')}</table>` : '<p class="muted">None.</p>'}
<h2>Summary grades that moved (${diff.summaryMoves.length})</h2>${moves.length ? `<table><tr><th>strategy</th><th>transcript</th><th>summary</th><th>field</th><th>change</th></tr>${moves.join('')}</table>` : '<p class="muted">None.</p>'}`;
  return page(`memeval diff ${diff.base.runId} → ${diff.cand.runId}`, body);
}

/** One line naming the strategies compared on options only because a run recorded no fingerprint. */
export function unrecordedNote(diff: RunDiff): string | undefined {
  const ids = diff.changes.filter((c) => c.unrecorded).map((c) => c.strategy);
  if (ids.length === 0) return undefined;
  const sides = new Set(diff.changes.flatMap((c) => (c.unrecorded ? [c.unrecorded] : [])));
  const only = sides.size === 1 ? [...sides][0] : undefined;
  const which = only === 'both' ? 'either run' : only ? `the ${only} run` : 'one or both runs';
  return `Fingerprint not recorded in ${which} for ${ids.join(', ')}: compared use and options only.`;
}
