// Quality gates for CI: absolute bounds (min/max) and relative drops against
// a baseline run or the baseline strategy, optionally only when the drop is
// statistically significant — judged on p-values Holm-adjusted over every
// significance test of the gate run. A gate with nothing to measure (no baseline run,
// no data, only errored data) fails: an unmeasured number must never pass.
import { InputError, didYouMean, problemAtPlace, quote, type Problem } from '../core/errors.js';
import type { GateConfig, ProbeRecord, RunResult } from '../core/types.js';
import { plural } from './format.js';
import {
  METRIC_NAMES,
  compareProbes,
  editedTranscripts,
  isProbeError,
  metricDef,
  metricKind,
  runsByTranscript,
  shardLabel,
  strategyIds,
  summarizeStrategy,
  transcriptsByStrategy,
  unattemptedAnswers,
  type MetricDef,
  type MetricSupport,
  type StrategySummary,
} from './aggregate.js';
import { SIGNIFICANCE_LEVEL, holm, pairedBootstrap, signTest } from '../core/stats.js';

export type { GateConfig };

export type GateTest = 'mcnemar' | 'bootstrap' | 'sign';

export interface GateResult {
  gate: GateConfig;
  strategy: string;
  /** `fail` also covers a gate that could not be evaluated; an optional one is `skipped` then, never `pass`. */
  status: 'pass' | 'fail' | 'skipped';
  /** Why the gate could not be evaluated (no baseline run, no data, only errored data); unset when it was. */
  notEvaluated?: string;
  value?: number;
  /** How many items the value rests on, and how many of the items it should cover errored. */
  support?: MetricSupport;
  /** The compared value (baseline run or baseline strategy) for `max_drop` gates. */
  baseline?: number;
  /** How far the metric moved the wrong way (positive = worse). */
  drop?: number;
  /** `sign` is the exact sign test used instead of the bootstrap when there are too few transcripts. */
  test?: GateTest;
  /** Raw p-value of the gate's own test. */
  pValue?: number;
  /** `pValue` after Holm's adjustment over every significance test of the gate run; the verdict uses this. */
  pHolm?: number;
  message: string;
}

export interface GateOptions {
  baselineRun?: RunResult;
  baselineStrategy?: string;
  /** Why there is no `baselineRun`, when something better than "none was named" is known. */
  noBaselineRun?: string;
}

const EPS = 1e-12;

function problemAt(where: string, message: string): Problem {
  return problemAtPlace(where, message, where || 'gates');
}

function fmt(v: number | undefined): string {
  if (v === undefined) return 'no data';
  if (Number.isInteger(v)) return String(v);
  // Four decimals, or enough significant digits for a value below them ($0.00003 is not "0" beside a max of 0.00001).
  return Math.abs(v) >= 0.001 ? v.toFixed(4).replace(/0+$/, '').replace(/\.$/, '') : String(Number(v.toPrecision(3)));
}

/** One comparison of a gate: whether it held, and how to say so. */
interface Check {
  ok: boolean;
  text: string;
}

function boundChecks(gate: GateConfig, value: number): Check[] {
  const checks: Check[] = [];
  if (gate.min !== undefined) {
    const ok = value >= gate.min - EPS;
    checks.push({ ok, text: `${ok ? '≥' : '<'} min ${gate.min}` });
  }
  if (gate.max !== undefined) {
    const ok = value <= gate.max + EPS;
    checks.push({ ok, text: `${ok ? '≤' : '>'} max ${gate.max}` });
  }
  return checks;
}

/** A metric's value for one strategy, what it rests on, and why there is nothing to judge when there is not. */
interface Measurement {
  value?: number;
  support: MetricSupport;
  missing?: string;
}

/**
 * What one `evaluateGates` call computes once: gates on several metrics read
 * the same strategy's summary, drop gates compare with the same baseline, and
 * every significance test splits the same runs by transcript.
 */
interface Memo {
  summary(run: RunResult, strategy: string): StrategySummary;
  byTranscript(run: RunResult): Map<string, RunResult>;
}

function newMemo(): Memo {
  const summaries = new Map<RunResult, Map<string, StrategySummary>>();
  const splits = new Map<RunResult, Map<string, RunResult>>();
  return {
    summary(run, strategy) {
      let ofRun = summaries.get(run);
      if (!ofRun) summaries.set(run, (ofRun = new Map()));
      let summary = ofRun.get(strategy);
      if (!summary) ofRun.set(strategy, (summary = summarizeStrategy(run, strategy, false)));
      return summary;
    },
    byTranscript(run) {
      let parts = splits.get(run);
      if (!parts) splits.set(run, (parts = runsByTranscript(run)));
      return parts;
    },
  };
}

function measure(def: MetricDef, run: RunResult, strategy: string, memo: Memo): Measurement {
  const summary = memo.summary(run, strategy);
  const support = def.support(summary);
  const value = def.read(summary);
  if (support.measured > 0 && value !== undefined) return { value, support };
  return { value, support, missing: missingData(support) };
}

function missingData(s: MetricSupport): string {
  if (s.measured === 0 && s.none !== undefined) return s.none;
  if (s.measured > 0) return `no value over ${s.measured} ${s.unit}`;
  if (s.errors > 0) return `no graded ${s.unit} (${plural(s.errors, 'error')})`;
  return `no data (no ${s.unit} measured)`;
}

function probesFor(run: RunResult, strategy: string, metric: string): ProbeRecord[] {
  const kind = metricKind(metric);
  return run.probes.filter((p) => p.strategy === strategy && (kind === undefined || p.kind === kind));
}

interface Side {
  run: RunResult;
  strategy: string;
  /** How messages name it: `baseline run <id>` or `baseline strategy <id>`. */
  label: string;
}

interface Significance {
  test: GateTest;
  p?: number;
  /** Why the clustered test was not used. */
  note?: string;
  /** Why no outcome of the test could be significant (no pairs, too few): a drop past max_drop cannot be judged then. */
  untestable?: string;
}

/**
 * An exact two-sided test on n pairs gives no p below 2 · 0.5^n (every pair moving one way):
 * when that is not under the level, no drop could ever be found significant, and a gate
 * that waits for significance would pass whatever happened.
 */
function tooFew(n: number, unit: string): string | undefined {
  const best = Math.min(1, 2 * 0.5 ** n);
  if (best < SIGNIFICANCE_LEVEL) return undefined;
  return `with ${plural(n, unit)} its test cannot reach p < ${SIGNIFICANCE_LEVEL} (the smallest p it could give is ${best.toPrecision(3)})`;
}

/**
 * Tests whether cand differs from base: McNemar on paired probes for accuracy,
 * else a per-transcript paired bootstrap — or, with fewer transcripts than the
 * bootstrap needs, the exact sign test on the per-transcript pairs.
 */
function significance(def: MetricDef, base: Side, cand: Side, memo: Memo): Significance {
  if (def.binary) {
    const cmp = compareProbes(probesFor(base.run, base.strategy, def.name), probesFor(cand.run, cand.strategy, def.name), false);
    if (cmp.pairs.length === 0) return { test: 'mcnemar', untestable: 'no probe is in both, so there is no pair to test' };
    return { test: 'mcnemar', p: cmp.mcnemarP, untestable: tooFew(cmp.pairs.length, 'shared probe') };
  }
  const baseParts = memo.byTranscript(base.run);
  const pairs = [];
  for (const [t, candPart] of memo.byTranscript(cand.run)) {
    const basePart = baseParts.get(t);
    const b = basePart && def.read(memo.summary(basePart, base.strategy));
    const c = def.read(memo.summary(candPart, cand.strategy));
    if (b !== undefined && c !== undefined) pairs.push({ cluster: t, base: b, cand: c });
  }
  if (pairs.length === 0) return { test: 'bootstrap', untestable: 'no transcript has the metric in both, so there is no pair to test' };
  const boot = pairedBootstrap(pairs);
  if (boot?.inconclusive) return { test: 'sign', p: signTest(pairs), note: boot.inconclusive, untestable: tooFew(pairs.length, 'transcript') };
  return { test: 'bootstrap', p: boot?.p };
}

/** What a `max_drop` gate compares with, or why there is nothing to compare with. */
function baselineSide(gate: GateConfig, strategy: string, run: RunResult, opts: GateOptions): Side | string {
  if (gate.vs !== 'baseline-run') {
    const name = opts.baselineStrategy ?? run.info.baseline ?? '';
    // Against itself a drop is always 0: such a gate could never fail.
    if (name === strategy) return `${strategy} is the baseline strategy itself, so there is no other strategy to measure a drop against`;
    return { run, strategy: name, label: `baseline strategy ${name}` };
  }
  const base = opts.baselineRun;
  if (!base) return `no baseline run to compare with (${opts.noBaselineRun ?? 'pass --baseline RUN or set baseline_run:'})`;
  const unusable = runFailure(base);
  if (unusable) return `the baseline cannot be compared with: ${unusable}`;
  const ids = strategyIds(base);
  if (!ids.includes(strategy)) return `baseline run ${base.info.runId} has no strategy "${strategy}" (it has: ${ids.join(', ')})`;
  const other = otherData(base, run, strategy);
  if (other) return `baseline run ${base.info.runId} ${other}, so its ${strategy} is not the same measurement`;
  return { run: base, strategy, label: `baseline run ${base.info.runId}` };
}

/**
 * How the baseline run's data for `strategy` differs from this run's: other transcripts, or
 * other versions of the same ones (`editedTranscripts`). A drop over other data mixes the
 * data change with the strategy's.
 */
function otherData(base: RunResult, run: RunResult, strategy: string): string | undefined {
  const of = (r: RunResult) => transcriptsByStrategy([...r.turns, ...r.probes]).get(strategy) ?? new Set<string>();
  const there = of(base);
  const here = of(run);
  const onlyThere = [...there].filter((id) => !here.has(id));
  const onlyHere = [...here].filter((id) => !there.has(id));
  const some = (ids: string[]) => ids.slice(0, 3).join(', ') + (ids.length > 3 ? ', …' : '');
  if (onlyThere.length || onlyHere.length) {
    return `measured other transcripts (${onlyThere.length} only there${onlyThere.length ? `: ${some(onlyThere)}` : ''}; ${onlyHere.length} only in this run${onlyHere.length ? `: ${some(onlyHere)}` : ''})`;
  }
  const changed = editedTranscripts(base.info, run.info).filter((id) => here.has(id));
  return changed.length ? `read other versions of ${changed.length} transcript file(s) (${some(changed)}: their sha256 differ)` : undefined;
}

/**
 * The `max_drop` comparison, with the numbers it rests on. A drop beyond
 * max_drop on a `significant: true` gate is `pending`: its verdict waits for
 * the Holm adjustment over the whole gate run.
 */
type DropCheck = Check & Pick<GateResult, 'baseline' | 'drop' | 'test' | 'pValue'> & { pending?: Pending };

interface Pending {
  /** What moved, e.g. `dropped 0.3 vs … more than max_drop 0.01`. */
  what: string;
  note?: string;
}

/**
 * Compares `value` (of `cand`) with the same metric on `side`; a string says why it cannot.
 * A `significant: true` gate is tested even when the drop is within max_drop, so the
 * family Holm adjusts over does not depend on which drops happened to be large.
 */
function dropCheck(gate: GateConfig, def: MetricDef, value: number, side: Side, cand: Side, memo: Memo): DropCheck | string {
  const maxDrop = gate.max_drop ?? 0;
  const base = measure(def, side.run, side.strategy, memo);
  if (base.missing !== undefined || base.value === undefined) return `${side.label} has ${base.missing ?? 'no data'} for ${def.name}`;
  // Its errors count against it (as not passed, as missed): a drop read from there looks smaller than it is.
  if (base.support.errors > 0) {
    const { errors, measured, unit } = base.support;
    return `${side.label} is no clean reference for ${def.name}: ${errors} of its ${errors + measured} ${unit} errored, and errors count against it, so a drop measured from it would read smaller than it is`;
  }
  const drop = def.higherIsBetter ? base.value - value : value - base.value;
  const sig = gate.significant ? significance(def, side, cand, memo) : undefined;
  const numbers = { baseline: base.value, drop, ...(sig ? { test: sig.test, pValue: sig.p } : {}) };
  const change = `vs ${side.label} (${fmt(base.value)} → ${fmt(value)})`;
  if (drop <= maxDrop + EPS) return { ...numbers, ok: true, text: `change ${change} within max_drop ${maxDrop}` };
  const what = `dropped ${fmt(drop)} ${change}, more than max_drop ${maxDrop}`;
  if (!sig) return { ...numbers, ok: false, text: what };
  if (sig.untestable) return `${what}, and whether that is significant cannot be told: ${sig.untestable}`;
  return { ...numbers, ok: true, text: what, pending: { what, note: sig.note } };
}

function pText(p: number | undefined): string {
  return p === undefined ? 'n/a' : p.toPrecision(3);
}

/** The verdict of a pending drop once the family's Holm-adjusted p is known. */
function settle(pending: Pending, result: GateResult, family: number): Check {
  const holmText = result.pValue === undefined ? '' : `, Holm p = ${pText(result.pHolm)} over ${plural(family, 'test')}`;
  const note = pending.note ? `; ${pending.note}` : '';
  const numbers = `${result.test} p = ${pText(result.pValue)}${holmText}${note}`;
  if (result.pHolm !== undefined && result.pHolm < SIGNIFICANCE_LEVEL) return { ok: false, text: `${pending.what}; significant (${numbers})` };
  return { ok: true, text: `${pending.what}, but not significant (${numbers})` };
}

/** A gate that could not be evaluated: a failure, or skipped when the gate is optional. Never a pass. */
function notEvaluated(result: GateResult, subject: string, reason: string): GateResult {
  const status = result.gate.optional ? 'skipped' : 'fail';
  const verdict = status === 'skipped' ? 'skipped (optional)' : 'FAIL';
  return { ...result, status, notEvaluated: reason, message: `${subject}: ${reason} — ${verdict}` };
}

/** "over 9 probes (1 error)" read as a denominator of 9: with errors the count says what it holds. */
function valueText(value: number, support: MetricSupport): string {
  if (support.errors === 0) return `= ${fmt(value)} over ${support.measured} ${support.unit}`;
  return `= ${fmt(value)} (${support.measured + support.errors} ${support.unit}: ${support.measured} graded, ${support.errors} errored)`;
}

/** A gate result before the run's significance tests are adjusted together; `checks` unset once it is final. */
interface Draft {
  result: GateResult;
  checks?: Check[];
  pending?: Pending;
}

function evaluateOne(gate: GateConfig, def: MetricDef, strategy: string, run: RunResult, opts: GateOptions, memo: Memo): Draft {
  const subject = `${strategy} ${def.name}`;
  const own = measure(def, run, strategy, memo);
  const result: GateResult = { gate, strategy, status: 'pass', support: own.support, message: '' };
  // An accuracy of 0 over only errored probes is not a measurement; no value is shown for it.
  if (own.missing !== undefined || own.value === undefined) return { result: notEvaluated(result, subject, own.missing ?? 'no data') };
  result.value = own.value;
  const checks = boundChecks(gate, own.value);
  if (gate.max_drop === undefined) return { result, checks };
  const side = baselineSide(gate, strategy, run, opts);
  const drop = typeof side === 'string' ? side : dropCheck(gate, def, own.value, side, { run, strategy, label: 'this run' }, memo);
  if (typeof drop !== 'string') {
    const { ok, text, pending, ...numbers } = drop;
    Object.assign(result, numbers);
    // A pending check is settled, and put in its place, after the Holm adjustment.
    if (!pending) checks.push({ ok, text });
    return { result, checks, pending };
  }
  if (checks.every((c) => c.ok)) return { result: notEvaluated(result, subject, drop) };
  // A bound that already failed is a verdict of its own; the missing comparison is only noted.
  checks.push({ ok: true, text: `max_drop not checked: ${drop}` });
  return { result, checks };
}

/** Status and message from the checks, the pending drop settled with the family's size. */
function finish(draft: Draft, family: number): GateResult {
  const { result, pending } = draft;
  if (!draft.checks || result.value === undefined || !result.support) return result;
  const checks = pending ? [...draft.checks, settle(pending, result, family)] : draft.checks;
  const failed = checks.some((c) => !c.ok);
  const subject = `${result.strategy} ${result.gate.metric}`;
  const message = `${subject} ${valueText(result.value, result.support)} ${checks.map((c) => c.text).join('; ')}${failed ? ' — FAIL' : ''}`;
  return { ...result, status: failed ? 'fail' : 'pass', message };
}

/**
 * The family is every significance test one gate run makes: each result of a
 * `significant: true` gate that got a p-value, whether or not its drop
 * exceeded max_drop. Holm over that family keeps the chance that any gate
 * fails on noise at 5%, however many strategies, kinds and metrics are gated.
 */
function adjustFamily(drafts: Draft[]): number {
  const tested = drafts.filter((d) => d.result.gate.significant && d.result.pValue !== undefined);
  const adjusted = holm(tested.map((d) => d.result.pValue as number));
  tested.forEach((d, i) => (d.result.pHolm = adjusted[i]));
  return tested.length;
}

/** Gates recorded in a run.json (or edited there by hand) name their metric unchecked; a typo gets a suggestion. */
function unknownMetric(metric: string): string {
  const guess = didYouMean(metric, METRIC_NAMES);
  return `unknown metric ${quote(metric)} (${guess ? `did you mean "${guess}"?` : `known metrics: ${METRIC_NAMES.join(', ')}`})`;
}

function gateProblems(gate: GateConfig, run: RunResult, opts: GateOptions): Problem[] {
  const problems: Problem[] = [];
  const ids = strategyIds(run);
  if (!metricDef(gate.metric)) problems.push(problemAt(gate.where, unknownMetric(gate.metric)));
  if (gate.strategy !== '*' && !ids.includes(gate.strategy)) {
    problems.push(problemAt(gate.where, `strategy "${gate.strategy}" is not in run ${run.info.runId} (has: ${ids.join(', ')})`));
  }
  if (gate.min === undefined && gate.max === undefined && gate.max_drop === undefined) {
    problems.push(problemAt(gate.where, 'a gate needs min, max or max_drop'));
  }
  if (gate.max_drop !== undefined && gate.vs !== 'baseline-run') {
    const bs = opts.baselineStrategy ?? run.info.baseline;
    if (!bs) problems.push(problemAt(gate.where, 'max_drop against the baseline strategy, but no baseline strategy is set'));
    else if (!ids.includes(bs)) problems.push(problemAt(gate.where, `baseline strategy "${bs}" is not in run ${run.info.runId}`));
  }
  return problems;
}

/**
 * Evaluates every gate for every strategy it names ("*" = all). A relative
 * gate (`max_drop`) compares with the same strategy in `baselineRun`
 * (`vs: baseline-run`) or with the baseline strategy of this run (the default).
 * A gate that cannot be evaluated (no baseline run, a strategy the baseline
 * never ran, no data, only errored data) fails with the reason, or is skipped
 * when it is `optional`; it never passes. Bad gates throw an InputError.
 * With `significant: true`, a drop fails only when its Holm-adjusted p (over
 * all such tests of this call) is below SIGNIFICANCE_LEVEL.
 */
export function evaluateGates(run: RunResult, gates: GateConfig[], opts: GateOptions = {}): GateResult[] {
  const problems = gates.flatMap((g) => gateProblems(g, run, opts));
  if (problems.length) throw new InputError(problems);
  const drafts: Draft[] = [];
  const memo = newMemo();
  for (const gate of gates) {
    const def = metricDef(gate.metric) as MetricDef;
    const baselineStrategy = opts.baselineStrategy ?? run.info.baseline;
    const relativeToStrategy = gate.max_drop !== undefined && gate.vs !== 'baseline-run';
    const targets = gate.strategy === '*' ? strategyIds(run).filter((s) => !(relativeToStrategy && s === baselineStrategy)) : [gate.strategy];
    if (targets.length === 0) {
      // "Every strategy against the baseline" in a run of the baseline alone: nothing was gated, which is no pass.
      const nothing: GateResult = { gate, strategy: gate.strategy, status: 'pass', message: '' };
      drafts.push({ result: notEvaluated(nothing, `${gate.strategy} ${def.name}`, `no strategy besides the baseline strategy ${baselineStrategy ?? ''} to compare with it`) });
      continue;
    }
    for (const s of targets) drafts.push(evaluateOne({ ...gate, vs: gate.max_drop !== undefined ? (gate.vs ?? 'baseline-strategy') : gate.vs }, def, s, run, opts, memo));
  }
  const family = adjustFamily(drafts);
  return drafts.map((d) => finish(d, family));
}

/** Why the run itself cannot be gated (exit 3), or undefined when it is complete. */
export function runFailure(run: RunResult): string | undefined {
  const status = run.info.status as RunResult['info']['status'] | undefined;
  const why = run.info.failure ? `: ${run.info.failure}` : '';
  const shard = run.info.shard;
  // A shard passing its gates says nothing of the jobs other shards ran.
  if (shard) return `run ${run.info.runId} is shard ${shardLabel(shard)} and holds only its jobs; merge the shards (memeval merge) and gate the merged run`;
  if (status !== undefined && status !== 'complete') return `run ${run.info.runId} is ${status}, not complete${why}`;
  if (status === undefined && !run.info.finishedAt) return `run ${run.info.runId} never finished`;
  if (run.probes.length > 0 && run.probes.every(isProbeError)) return `every probe of run ${run.info.runId} errored (${run.probes[0].error ?? 'no grade'})`;
  // Whatever its status says (a run.json cut or edited by hand): answers owed and not recorded were never measured.
  const missing = run.info.strategies.map((s) => [s.id, unattemptedAnswers(run, s.id)] as const).filter(([, n]) => n > 0);
  if (missing.length > 0) {
    const list = missing.map(([id, n]) => `${id} ${n}`).join(', ');
    return `run ${run.info.runId} lacks probe answers it owes (${list}), so it did not measure everything its status says`;
  }
  return undefined;
}
