// The verdict at the top of report.html: which strategy to choose for the
// run's objective, and why the others lose. It decides nothing new: the
// significance of every accuracy difference is the run's own paired test
// (exact McNemar, Holm-adjusted across the run's strategies, as aggregate.ts
// computes it), and the interval beside it is the same clustered paired
// bootstrap diff.ts shows. It must not import html.ts: html.ts renders it.
import type { Attribution, RunResult } from '../core/types.js';
import { wilson, type PairedResult } from '../core/stats.js';
import { ATTRIBUTIONS, compareProbes, runNotice, stageErrors, transcriptsByStrategy, type BaselineComparison, type StrategySummary } from './aggregate.js';
import { esc, num, pct } from './format.js';

/** What the run lets the verdict say. */
export type Verdict =
  | { kind: 'cannot'; reasons: string[] }
  | { kind: 'single'; strategy: string }
  | {
      kind: 'pick';
      choice: StrategySummary;
      baseline: StrategySummary;
      byCost: boolean;
      delta?: PairedResult;
      /** Cheaper strategies that did not qualify, with their accuracy difference's interval. */
      cheaperExcluded: Excluded[];
    };

/** A cheaper strategy that did not qualify: its accuracy difference's interval, and the upper bound of its pass→fail rate. */
interface Excluded {
  strategy: StrategySummary;
  delta: PairedResult | undefined;
  flipBound: number | undefined;
}

/** How the headline is marked up: escaped HTML with <strong>, or plain CLI text. */
interface Ink {
  text: (s: string) => string;
  strong: (s: string) => string;
  /** An accuracy delta vs the baseline with its significance mark. */
  delta: (s: StrategySummary) => string;
}

const HTML_INK: Ink = { text: esc, strong: (s) => `<strong>${esc(s)}</strong>`, delta: (s) => significanceMark(s, s.vsBaseline?.baseline) };
const PLAIN_INK: Ink = { text: (s) => s, strong: (s) => s, delta: (s) => (s.vsBaseline ? `${markOf(s.vsBaseline)[0]} ${pts(s.vsBaseline.delta)}` : '–') };

const CAUSE: Record<Attribution, string> = {
  trimmed: 'the fact was cut',
  'lost-in-summary': 'only a summary stood for the fact, and it lacked it',
  opaque: 'the fact was in a span the server compacted into an item that cannot be read',
  'present-but-missed': 'the fact was in the context; the reader missed it',
  'abstain-fail': 'answered where it should have abstained',
  error: 'the call or its grading failed',
  unknown: 'the probe names neither facts nor evidence',
};

// ---------- deciding ----------

/**
 * Why the run cannot support a recommendation, or nothing. The house rule:
 * a run that did not finish, or whose calls errored, did not measure what the
 * verdict would rest on, so it gets no verdict rather than a flattering one.
 */
function blockers(run: RunResult, rows: StrategySummary[]): string[] {
  const reasons: string[] = [];
  const notice = runNotice(run.info);
  if (notice) reasons.push(`the run is ${notice.label} (${notice.reason})`);
  const errored = stageErrors(run).filter((s) => s.errors > 0);
  if (errored.length) {
    const counts = errored.map((s) => `${s.stage} ${s.errors}/${s.attempted}`).join(', ');
    reasons.push(`it has errors (${counts}), so some strategies were not fully measured`);
  }
  // Probes a strategy owes but never answered count as failures in its accuracy; paired with
  // the baseline's, they would simply be left out, and the comparison would flatter it.
  const owing = rows.filter((s) => s.unattempted > 0);
  if (owing.length) reasons.push(`${owing.map((s) => `${s.strategy} has ${s.unattempted} unattempted probe${s.unattempted === 1 ? '' : 's'}`).join(', ')}, so not every strategy was fully measured`);
  const coverage = transcriptCoverage(run);
  if (coverage) reasons.push(coverage);
  return reasons;
}

/**
 * Strategies whose records cover different transcripts (a turn or probe record missing for
 * some): their mean tokens and accuracies are over different conversations, and a saving
 * between them could be the data, not the strategy.
 */
function transcriptCoverage(run: RunResult): string | undefined {
  const kinds = [transcriptsByStrategy(run.turns), transcriptsByStrategy(run.probes)];
  const strategies = new Set(kinds.flatMap((byStrategy) => [...byStrategy.keys()]));
  const short = new Set<string>();
  // Turns and probes apart: a strategy may have every probe of a transcript and none of its turns.
  for (const byStrategy of kinds) {
    const all = new Set([...byStrategy.values()].flatMap((ids) => [...ids]));
    for (const id of strategies) if ((byStrategy.get(id)?.size ?? 0) < all.size) short.add(id);
  }
  return short.size ? `the records of ${[...short].join(', ')} cover fewer transcripts than the run's, so its figures are not over the same conversations` : undefined;
}

/**
 * Answer cost ranks only when it is comparable: every strategy priced, and
 * none making summaries, since summarizer calls carry no price and a
 * summarizing strategy would look cheaper than it is. Otherwise mean context
 * tokens rank, which every run measures.
 */
function costComparable(rows: StrategySummary[]): boolean {
  return rows.every((s) => s.cost !== undefined && s.attempted > 0 && s.summariesAttempted === 0);
}

/** The price a strategy is ranked by: answer cost per attempted probe, or mean context tokens. */
function priceOf(s: StrategySummary, byCost: boolean): number | undefined {
  return byCost ? (s.cost as number) / s.attempted : s.meanContextTokens;
}

/** Significantly less accurate than the baseline, by the run's Holm-adjusted McNemar test. */
function significantlyWorse(s: StrategySummary): boolean {
  return s.vsBaseline !== undefined && s.vsBaseline.significant && s.vsBaseline.delta < 0;
}

/**
 * Most accuracy a recommended strategy may lose against the baseline: the
 * lower end of the 95% interval of its accuracy difference must stay above
 * −5 points. "Not significantly worse" alone is no evidence of "as good": a
 * run too small to detect a 20-point drop would recommend anything cheaper.
 */
export const NON_INFERIORITY_MARGIN = 0.05;

/** One-sided 95%: the z of the upper bound on how often a probe the baseline passed fails. */
const ONE_SIDED_Z = 1.6449;

/**
 * The accuracy difference's interval shows the strategy loses less than the margin, and so do
 * its flips: the upper bound of the pass→fail rate (Wilson, one-sided 95%) stays below the
 * margin. The bootstrap alone cannot say it: over six probes that all agree, every resample
 * differs by 0 and its interval is [0, 0], though six probes cannot rule out a 30-point loss.
 */
function nonInferior(paired: Paired | undefined): boolean {
  const delta = paired?.bootstrap;
  if (delta?.low === undefined || delta.low <= -NON_INFERIORITY_MARGIN || !paired || paired.pairs === 0) return false;
  return (flipBound(paired) ?? 1) < NON_INFERIORITY_MARGIN;
}

/** What the verdict reads of a strategy's pairing with the baseline. */
interface Paired {
  bootstrap?: PairedResult;
  passToFail: number;
  pairs: number;
}

/**
 * The baseline always qualifies; another strategy only when both of what the
 * objective weighs were measured (its accuracy against the baseline, its
 * tokens), it is not significantly worse, and its interval rules out losing
 * more than the margin.
 */
function qualifies(s: StrategySummary, baseline: string, delta: Paired | undefined): boolean {
  if (s.strategy === baseline) return true;
  return s.vsBaseline !== undefined && s.meanContextTokens !== undefined && !significantlyWorse(s) && nonInferior(delta);
}

function cheapest(rows: StrategySummary[], byCost: boolean): StrategySummary | undefined {
  const priced = rows.filter((s) => priceOf(s, byCost) !== undefined);
  // Ties go to fewer tokens, then to config order (the sort is stable).
  return [...priced].sort((a, b) => (priceOf(a, byCost) as number) - (priceOf(b, byCost) as number) || (a.meanContextTokens ?? 0) - (b.meanContextTokens ?? 0))[0];
}

/** Cheaper by the ranking price or by mean context tokens: either is a saving the reader may have expected the verdict to take. */
function cheaperThan(s: StrategySummary, baseline: StrategySummary, byCost: boolean): boolean {
  const lower = (f: (x: StrategySummary) => number | undefined) => (f(s) ?? Infinity) < (f(baseline) ?? -Infinity);
  return lower((x) => priceOf(x, byCost)) || lower((x) => x.meanContextTokens);
}

/** The verdict for the default objective: the cheapest strategy not significantly less accurate than the baseline. */
export function verdictOf(run: RunResult, rows: StrategySummary[]): Verdict {
  const reasons = blockers(run, rows);
  if (reasons.length) return { kind: 'cannot', reasons };
  if (rows.length === 1) return { kind: 'single', strategy: rows[0].strategy };
  const baseline = rows.find((s) => s.strategy === run.info.baseline);
  if (!baseline) return { kind: 'cannot', reasons: ['the run names no baseline strategy (baseline: in the config) to compare accuracy with'] };
  if (baseline.meanContextTokens === undefined) return { kind: 'cannot', reasons: [`the baseline ${baseline.strategy} has no turn records, so no token saving can be measured`] };
  if (baseline.graded === 0) return { kind: 'cannot', reasons: [`the baseline ${baseline.strategy} has no graded probe, so no accuracy can be compared with it`] };
  const byCost = costComparable(rows);
  const deltas = new Map(rows.filter((s) => s !== baseline).map((s) => [s.strategy, pairedDelta(run, baseline.strategy, s.strategy)]));
  const ok = (s: StrategySummary) => qualifies(s, baseline.strategy, deltas.get(s.strategy));
  const cheapestOk = cheapest(rows.filter(ok), byCost);
  // Switching needs a saving: a strategy that costs the same as the baseline is no reason to move.
  const choice = cheapestOk && cheapestOk !== baseline && cheaperThan(cheapestOk, baseline, byCost) ? cheapestOk : baseline;
  const cheaperExcluded = rows
    .filter((s) => s !== baseline && !ok(s) && cheaperThan(s, baseline, byCost))
    .map((s) => ({ strategy: s, delta: deltas.get(s.strategy)?.bootstrap, flipBound: flipBound(deltas.get(s.strategy)) }));
  return { kind: 'pick', choice, baseline, byCost, delta: choice === baseline ? undefined : deltas.get(choice.strategy)?.bootstrap, cheaperExcluded };
}

/** The clustered paired bootstrap of the accuracy difference on the shared probes (seeded, so deterministic), with the flips. */
function pairedDelta(run: RunResult, baseline: string, candidate: string): Paired {
  const of = (id: string) => run.probes.filter((p) => p.strategy === id);
  const paired = compareProbes(of(baseline), of(candidate), true);
  return { bootstrap: paired.bootstrap, passToFail: paired.passToFail, pairs: paired.pairs.length };
}

// ---------- wording ----------

function pts(delta: number): string {
  const v = 100 * delta;
  return `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)} pts`;
}

function signedPct(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : ''}${pct(Math.abs(x))}`;
}

function pText(p: number): string {
  return p.toPrecision(3);
}

function ciText(d: PairedResult | undefined): string {
  if (!d) return 'no interval';
  if (d.low === undefined || d.high === undefined) return `no interval: ${d.inconclusive ?? 'too few transcripts'}`;
  return `95% CI ${pts(d.low)} to ${pts(d.high)}`;
}

function savingText(choice: StrategySummary, baseline: StrategySummary): string {
  const base = baseline.meanContextTokens as number;
  const saved = base - (choice.meanContextTokens ?? base);
  const share = base > 0 ? ` (${signedPct(-saved / base)})` : '';
  const amount = saved >= 0 ? `${num(saved)} fewer` : `${num(-saved)} more`;
  return `${amount} mean context tokens than ${baseline.strategy}${share}: ${num(choice.meanContextTokens)} vs ${num(base)}`;
}

function costText(choice: StrategySummary, baseline: StrategySummary): string {
  const per = (s: StrategySummary) => `$${((s.cost as number) / s.attempted).toFixed(5)}`;
  return `; answer cost per probe ${per(choice)} vs ${per(baseline)}`;
}

function excludedText({ strategy: s, delta, flipBound: bound }: Excluded): string {
  const v = s.vsBaseline;
  if (!v) return `${s.strategy} was not compared (no probe graded by both)`;
  if (significantlyWorse(s)) return `${s.strategy} is significantly less accurate (${pts(v.delta)}, Holm p = ${pText(v.pHolm)})`;
  const margin = pts(-NON_INFERIORITY_MARGIN).replace('−', '');
  if (delta?.low === undefined) return `${s.strategy} cannot be shown to lose less than ${margin} of accuracy (${pts(v.delta)}; ${ciText(delta)})`;
  if (delta.low > -NON_INFERIORITY_MARGIN && bound !== undefined) {
    return `${s.strategy} cannot be shown to lose less than ${margin} of accuracy: on ${v.sharedProbes} shared probes it may fail up to ${pts(-bound).replace('−', '')} of those the baseline passes (one-sided 95% bound)`;
  }
  return `${s.strategy} may lose more than ${margin} of accuracy (${pts(v.delta)}, ${ciText(delta)})`;
}

/** The one-sided 95% upper bound of the pass→fail rate, when the pairing has any probe. */
function flipBound(paired: Paired | undefined): number | undefined {
  return paired && paired.pairs > 0 ? wilson(paired.passToFail, paired.pairs, ONE_SIDED_Z).high : undefined;
}

function pickHeadline(v: Extract<Verdict, { kind: 'pick' }>, ink: Ink): string[] {
  const { choice, baseline } = v;
  const by = v.byCost ? 'answer cost, then mean context tokens,' : 'mean context tokens';
  if (choice === baseline) {
    const why = v.cheaperExcluded.length
      ? `no cheaper strategy is shown to be as accurate: ${v.cheaperExcluded.map(excludedText).join('; ')}.`
      : `no other strategy is cheaper (by ${v.byCost ? 'answer cost or ' : ''}mean context tokens).`;
    return [`${ink.text('Recommendation: keep the baseline ')}${ink.strong(baseline.strategy)}${ink.text(` — ${why}`)}`];
  }
  const cmp = choice.vsBaseline;
  const first = `${ink.text('Recommendation: ')}${ink.strong(choice.strategy)}${ink.text(` — the cheapest strategy by ${by} that is not significantly less accurate than the baseline ${baseline.strategy} and, by its 95% interval, loses less than ${pts(NON_INFERIORITY_MARGIN).replace('+', '')} of accuracy.`)}`;
  const saving = ink.text(`It uses ${savingText(choice, baseline)}${v.byCost ? costText(choice, baseline) : ''}; accuracy `);
  const accuracy = cmp
    ? `${ink.delta(choice)}${ink.text(` vs ${baseline.strategy} (${ciText(v.delta)}; McNemar p = ${pText(cmp.p)}, Holm p = ${pText(cmp.pHolm)}).`)}`
    : ink.text('not compared.');
  return [first, `${saving}${accuracy}`];
}

/** The recommendation as one or two sentences, in the given markup. */
function headline(v: Verdict, ink: Ink): string[] {
  if (v.kind === 'cannot') return [`${ink.strong('Cannot recommend a strategy:')}${ink.text(` ${v.reasons.join('; ')}.`)}`];
  if (v.kind === 'single') return [`${ink.text('Nothing to choose between: the run has one strategy, ')}${ink.strong(v.strategy)}${ink.text('.')}`];
  return pickHeadline(v, ink);
}

/** Strategies no other beats on both accuracy and mean context tokens, by tokens. html.ts has the chart's copy; importing it would make a cycle. */
export function paretoSet(rows: StrategySummary[]): StrategySummary[] {
  const points = rows.filter((s) => s.accuracy !== undefined && s.meanContextTokens !== undefined);
  const x = (s: StrategySummary) => s.meanContextTokens as number;
  const y = (s: StrategySummary) => s.accuracy as number;
  const dominated = (p: StrategySummary) => points.some((q) => q !== p && x(q) <= x(p) && y(q) >= y(p) && (x(q) < x(p) || y(q) > y(p)));
  return points.filter((p) => !dominated(p)).sort((a, b) => x(a) - x(b));
}

/** `trim-6: 41 of 60 failures trimmed (the fact was cut)`: the commonest recorded cause among the probes it did not pass. */
export function failureCause(s: StrategySummary): string {
  // A probe owed but never answered is a failure too, as accuracy counts it.
  const failures = s.attempted + s.unattempted - s.passed;
  if (failures === 0) return `${s.strategy}: no failures`;
  const noun = failures === 1 ? 'failure' : 'failures';
  // The first in ATTRIBUTIONS order wins a tie, so the line never depends on record order.
  const top = ATTRIBUTIONS.reduce((best, a) => (s.attribution[a] > s.attribution[best] ? a : best), ATTRIBUTIONS[0]);
  if (s.attribution[top] === 0) return `${s.strategy}: ${failures} ${noun}, none attributed to a cause`;
  return `${s.strategy}: ${s.attribution[top]} of ${failures} ${noun} ${top} (${CAUSE[top]})`;
}

// ---------- markup ----------

/** The mark and its colour class: the direction only counts when the Holm-adjusted test says it is significant. */
function markOf(v: BaselineComparison): [string, string] {
  if (!v.significant) return ['≈', 'muted'];
  return v.delta > 0 ? ['▲', 'ok'] : ['▼', 'bad'];
}

/** ▲ / ▼ significantly better / worse than the baseline, ≈ not significant; the test and both p-values in the title. */
export function significanceMark(s: StrategySummary, baseline: string | undefined): string {
  if (s.strategy === baseline) return '<span class="muted">baseline</span>';
  const v = s.vsBaseline;
  if (!v) return '<span class="muted" title="not compared: no probe graded by both">–</span>';
  const title = `exact McNemar on ${v.sharedProbes} shared probes: p = ${pText(v.p)}, Holm-adjusted p = ${pText(v.pHolm)}`;
  const [mark, cls] = markOf(v);
  return `<span class="sig ${cls}" title="${esc(title)}">${mark} ${esc(pts(v.delta))}</span>`;
}

function tokensVersus(s: StrategySummary, baseline: StrategySummary | undefined): string {
  const base = baseline?.meanContextTokens;
  if (!baseline || s === baseline || base === undefined || s.meanContextTokens === undefined || base === 0) return '–';
  return signedPct((s.meanContextTokens - base) / base);
}

function strategyCell(s: StrategySummary, v: Verdict): string {
  const picked = v.kind === 'pick' && v.choice === s;
  return picked ? `<strong>${esc(s.strategy)}</strong> <span class="ok">recommended</span>` : esc(s.strategy);
}

function accuracyCell(s: StrategySummary): string {
  const ci = s.accuracyLow !== undefined ? ` <span class="muted">[${pct(s.accuracyLow)}, ${pct(s.accuracyHigh)}]</span>` : '';
  return `${pct(s.accuracy)}${ci}`;
}

function row(s: StrategySummary, v: Verdict, baseline: StrategySummary | undefined, withCost: boolean): string {
  const cause = failureCause(s).slice(s.strategy.length + 2);
  const cells = [
    `<td>${strategyCell(s, v)}</td>`,
    `<td class="n nw">${accuracyCell(s)}</td>`,
    `<td class="n nw">${significanceMark(s, baseline?.strategy)}</td>`,
    `<td class="n">${num(s.meanContextTokens)}</td>`,
    `<td class="n">${tokensVersus(s, baseline)}</td>`,
    ...(withCost ? [`<td class="n">${s.cost === undefined ? '–' : `$${s.cost.toFixed(4)}`}</td>`] : []),
    `<td>${esc(cause)}</td>`,
  ];
  return `<tr>${cells.join('')}</tr>`;
}

function table(rows: StrategySummary[], v: Verdict, baselineId: string | undefined): string {
  const baseline = rows.find((s) => s.strategy === baselineId);
  const withCost = rows.some((s) => s.cost !== undefined);
  const head = ['strategy', 'accuracy [95% CI]', `vs ${baselineId ?? 'baseline'}`, 'mean ctx tokens', 'tokens vs baseline', ...(withCost ? ['cost'] : []), 'where it loses (commonest failure cause)'];
  return `<table class="verdict-table"><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${rows.map((s) => row(s, v, baseline, withCost)).join('')}</table>`;
}

function paretoLine(rows: StrategySummary[]): string {
  const set = paretoSet(rows);
  if (set.length === 0) return '';
  return `<p class="pareto-set">Pareto set (accuracy vs mean context tokens; no other strategy is both cheaper and more accurate): ${set.map((s) => `<strong>${esc(s.strategy)}</strong>`).join(', ')}.</p>`;
}

const LEGEND = `▲/▼ significantly more/less accurate than the baseline, ≈ not significant (exact McNemar on shared probes, Holm-adjusted across the run's strategies; hover for p). Accuracy is passed / attempted probes with its clustered 95% CI.`;

// Inline so the section reads the same inside any page; the page's CSP allows inline styles and no scripts.
const STYLE = '<style>.verdict{border:1px solid #d0d7de;border-radius:6px;padding:6px 14px;margin:0 0 12px}.verdict h2{margin:4px 0 6px;border:0;padding:0}.verdict p{margin:4px 0}.verdict-headline{font-size:15px}.verdict-table{margin:6px 0}</style>';

/** The verdict section of report.html: first after the status banner, readable without scripts. */
export function verdictSection(run: RunResult, rows: StrategySummary[]): string {
  const v = verdictOf(run, rows);
  const sentence = headline(v, HTML_INK).join(' ');
  const details = v.kind === 'single' || rows.length === 0 ? '' : `${paretoLine(rows)}${table(rows, v, run.info.baseline)}<p class="muted">${esc(LEGEND)}</p>`;
  return `${STYLE}<section class="verdict" id="verdict"><h2>Verdict</h2><p class="verdict-headline" id="verdict-headline">${sentence}</p>${details}</section>`;
}

/** The recommendation for the CLI, one or two plain lines to print after the table. */
export function verdictMarkdown(run: RunResult, rows: StrategySummary[]): string[] {
  const [first, ...rest] = headline(verdictOf(run, rows), PLAIN_INK);
  return [`verdict: ${first}`, ...rest];
}
