// Report sections on measurement power: what accuracy difference a run could
// detect, and (with repeats or judge samples) which source of variance
// dominates, so a reader knows whether more repeats or more transcripts help.
// Formulas and estimators: core/power.ts.
import { DEFAULT_ICC, minimumDetectableEffect, runPower, varianceShares, varianceSplit, type Design, type RunPower, type VarianceSplit } from '../core/power.js';
import { PROBE_KINDS, type RunResult } from '../core/types.js';
import { esc } from './format.js';
import { isProbeError } from './aggregate.js';

function points(effect: number): string {
  return Number.isFinite(effect) ? `${(effect * 100).toFixed(1)} points` : '–';
}

function share(value: number): string {
  return `${(value * 100).toFixed(0)}%`;
}

function designRow(label: string, d: Design): string {
  const cells = [esc(label), String(d.transcripts), d.perTranscript.toFixed(2), `${(d.accuracy * 100).toFixed(1)}%`, points(minimumDetectableEffect(d))];
  return `<tr>${cells.map((c, i) => `<td${i ? ' class="n"' : ''}>${c}</td>`).join('')}</tr>`;
}

/** "What this run can detect": MDE overall and per probe kind from the run's own k, m̄, p and ICC. */
export function detectSection(run: RunResult): string {
  const power = runPower(run);
  // Errors read as failures there: p would be low and the spread between transcripts an accident.
  const errored = power ? power.records.filter(isProbeError).length : 0;
  if (power && errored > 0) {
    return `<h3 id="power">What this run can detect</h3><p class="muted">Not estimated: ${errored} of the ${power.records.length} probe answers of ${esc(power.strategy)} errored, and errors would read as failures in p and the ICC. Estimate from a run without errors (memeval plan --run).</p>`;
  }
  return detectHtml(power);
}

function detectHtml(power: RunPower | undefined): string {
  if (!power) return '';
  const icc = power.iccEstimated
    ? `ICC ${power.icc.toFixed(2)} estimated from the run by one-way ANOVA on per-transcript pass rates`
    : `ICC ${DEFAULT_ICC.toFixed(2)} assumed (the run cannot estimate it: that needs two transcripts, one with two outcomes or more)`;
  const note =
    `The smallest accuracy difference between two strategies this run would find at two-sided α = 0.05 with 80% power, ` +
    `from the records of ${esc(power.strategy)}: k transcripts, m̄ outcomes per transcript, p = (passes + 1) / (n + 2), ${icc}. ` +
    'MDE = (z<sub>0.975</sub> + z<sub>0.80</sub>) · √(2·p(1−p)·(1 + (m̄ − 1)·ICC) / (k·m̄)). A smaller difference may be real but is likely to be missed.';
  const kinds = PROBE_KINDS.flatMap((k) => (power.byKind[k] ? [designRow(k, power.byKind[k])] : []));
  const head = ['kind', 'transcripts', 'outcomes / transcript', 'p', 'MDE'].map((h) => `<th>${h}</th>`).join('');
  return `<h3 id="power">What this run can detect</h3><p class="muted">${note}</p><table class="power"><tr>${head}</tr>${designRow('all', power.overall)}${kinds.join('')}</table>`;
}

function judgeSamplesOf(run: RunResult): number {
  const n = run.info.config.judge_samples;
  return typeof n === 'number' && n > 1 ? n : 1;
}

function componentRow(label: string, variance: number | undefined, part: string, missing = 'not measured'): string {
  const v = variance === undefined ? missing : variance.toFixed(4);
  return `<tr><td>${label}</td><td class="n">${v}</td><td class="n">${part}</td></tr>`;
}

function judgeNote(samples: number): string {
  const folded = samples > 1 ? `judge_samples (${samples}) samples the summary judge, whose samples are folded into one verdict before they are recorded; ` : '';
  return `Judge sampling is not recorded per sample: ${folded}each probe answer gets one answer-judge verdict, so the answer judge's own noise is inside the answer-sampling share.`;
}

function advice(split: VarianceSplit, answerShare: number): string {
  if (split.answer === undefined) return 'With repeat 1, answer sampling cannot be told apart from differences between probes; run with --repeat 2 or more to split it off.';
  if (answerShare > 0.5) return `Most of the uncertainty is answer sampling (${share(answerShare)}): more repeats would narrow the interval.`;
  return `More transcripts would help most: they shrink every share, while more repeats shrink only answer sampling (${share(answerShare)}).`;
}

/** "Where the variance comes from": only when the run repeated probes or sampled the judge. */
export function varianceSection(run: RunResult): string {
  return varianceHtml(run, runPower(run));
}

function varianceHtml(run: RunResult, power: RunPower | undefined): string {
  const samples = judgeSamplesOf(run);
  if (run.info.repeat <= 1 && samples <= 1) return '';
  const split = power ? varianceSplit(power.records) : undefined;
  const title = '<h3 id="variance">Where the variance comes from</h3>';
  if (!power || !split) return `${title}<p class="muted">Needs probe records from at least two transcripts.</p>`;
  const shares = varianceShares(split);
  const rows = [
    componentRow('between transcripts', split.transcript, share(shares.transcript)),
    componentRow('between probes of one transcript', split.probe, share(shares.probe)),
    componentRow('answer sampling (between repeats of one probe)', split.answer, split.answer === undefined ? '–' : share(shares.answer)),
    componentRow('judge sampling', undefined, '–', 'not recorded'),
  ];
  const note = `Variance components of ${esc(power.strategy)}'s probe outcomes (method of moments), and each one's share of the variance of its mean accuracy.`;
  const head = '<tr><th>source</th><th>variance</th><th>share of the variance of the accuracy</th></tr>';
  return `${title}<p class="muted">${note}</p><table class="variance">${head}${rows.join('')}</table><p>${esc(advice(split, shares.answer))}</p><p class="muted">${esc(judgeNote(samples))}</p>`;
}

/** Both sections, in the order the report shows them, from one measurement of the run's power. */
export function powerSections(run: RunResult): string {
  const power = runPower(run);
  return detectHtml(power) + varianceHtml(run, power);
}
