// Judge calibration: grade human-labelled summaries with a summary judge and
// report, per criterion, how often the judge agrees with the human and Cohen's
// kappa with a 95% bootstrap interval; grade human-labelled answers with the
// answer judge and report how often it accepts wrong answers and rejects right
// ones. A judge metric is only as good as this.
import { formatRate, wilson, type Rate } from '../core/stats.js';
import type { MadeSummary, Probe, SummaryJudgement, Transcript } from '../core/types.js';
import { accuracy, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, cohenKappa, kappaInterval } from './kappa.js';
import type { AnswerInput, Grader, JudgeVerdict, SummaryInput } from './types.js';

export const CRITERIA = ['coverage', 'faithfulness', 'temporal', 'format', 'overall'] as const;
export type Criterion = (typeof CRITERIA)[number];

/** Human labels of one summary: pass/fail per criterion and an overall 1–5. */
export interface CalibrationLabels {
  coverage: boolean;
  faithfulness: boolean;
  temporal: boolean;
  format: boolean;
  overall: number;
}

export interface CalibrationItem {
  /** `<file id>/<summary id>` */
  id: string;
  file: string;
  /** Free label of what the summary is meant to exemplify (e.g. good, vague, wrong). */
  category?: string;
  transcript: Transcript;
  summary: MadeSummary;
  labels: CalibrationLabels;
}

/**
 * How a judgement becomes pass/fail to compare with the human labels.
 * Faithfulness passes only with nothing invented or contradicted, as a human
 * marks a summary unfaithful for a single wrong identifier. Overall counts as
 * "good" at 4 or more.
 */
export const PASS_THRESHOLDS = { coverage: 0.8, faithfulness: 1, temporal: 1, format: 1, overall: 4 } as const;


export function judgementPasses(j: SummaryJudgement): CalibrationLabels {
  return {
    coverage: j.coverage >= PASS_THRESHOLDS.coverage,
    faithfulness: j.faithfulness >= PASS_THRESHOLDS.faithfulness,
    temporal: j.temporal >= PASS_THRESHOLDS.temporal,
    format: j.format >= PASS_THRESHOLDS.format,
    overall: j.overall,
  };
}

function labelOf(labels: CalibrationLabels, c: Criterion): boolean {
  return c === 'overall' ? labels.overall >= PASS_THRESHOLDS.overall : labels[c];
}

export interface CriterionStats {
  criterion: Criterion;
  /** Items the judge graded (errors excluded). */
  n: number;
  agree: number;
  accuracy: number | null;
  kappa: number | null;
  /** 95% percentile-bootstrap interval of kappa; null when undefined. */
  ci: [number, number] | null;
  humanPass: number;
  judgePass: number;
}

export interface CalibrationItemResult {
  id: string;
  category?: string;
  human: CalibrationLabels;
  judge?: CalibrationLabels;
  judgement?: SummaryJudgement;
  error?: string;
}

export interface CalibrationReport {
  judge: string;
  createdAt: string;
  items: number;
  errors: number;
  method: string;
  thresholds: typeof PASS_THRESHOLDS;
  criteria: CriterionStats[];
  /** Overall 1–5 compared as numbers. */
  overallScale: { meanAbsoluteError: number | null; exact: number | null; withinOne: number | null };
  results: CalibrationItemResult[];
  /** The answer judge's false-accept and false-reject rates on the labelled answers, when graded. */
  answers?: AnswerCalibrationReport;
}

export type SummaryGrader = Grader<SummaryInput, SummaryJudgement> & { readonly modelId?: string };

const METHOD =
  `per criterion: accuracy and Cohen's kappa of judge vs human pass/fail (overall: good = 4 or more); ` +
  `95% CI by percentile bootstrap over items, ${BOOTSTRAP_RESAMPLES} resamples, seed ${BOOTSTRAP_SEED}; ` +
  `items the judge failed on are excluded and counted as errors`;

function finite(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 10000) / 10000 : null;
}

/** Grades every item with `judge` (one at a time, in order) and compares with the human labels. */
export async function calibrate(judge: SummaryGrader, items: CalibrationItem[]): Promise<CalibrationReport> {
  const results: CalibrationItemResult[] = [];
  for (const item of items) {
    const judgement = await judge.grade({ transcript: item.transcript, summary: item.summary });
    const base = { id: item.id, category: item.category, human: item.labels, judgement };
    results.push(judgement.error ? { ...base, error: judgement.error } : { ...base, judge: judgementPasses(judgement) });
  }
  const graded = results.filter((r): r is CalibrationItemResult & { judge: CalibrationLabels } => r.judge !== undefined);
  return {
    judge: judge.modelId ?? judge.name,
    createdAt: new Date().toISOString(),
    items: items.length,
    errors: results.length - graded.length,
    method: METHOD,
    thresholds: PASS_THRESHOLDS,
    criteria: CRITERIA.map((c) => criterionStats(c, graded)),
    overallScale: overallScale(graded),
    results,
  };
}

function criterionStats(criterion: Criterion, graded: { human: CalibrationLabels; judge: CalibrationLabels }[]): CriterionStats {
  const human = graded.map((r) => labelOf(r.human, criterion));
  const judged = graded.map((r) => labelOf(r.judge, criterion));
  const ci = kappaInterval(human, judged);
  return {
    criterion,
    n: graded.length,
    agree: human.filter((h, i) => h === judged[i]).length,
    accuracy: finite(accuracy(human, judged)),
    kappa: finite(cohenKappa(human, judged)),
    ci: Number.isFinite(ci.low) ? [finite(ci.low) ?? 0, finite(ci.high) ?? 0] : null,
    humanPass: human.filter(Boolean).length,
    judgePass: judged.filter(Boolean).length,
  };
}

function overallScale(graded: { human: CalibrationLabels; judge: CalibrationLabels }[]): CalibrationReport['overallScale'] {
  if (graded.length === 0) return { meanAbsoluteError: null, exact: null, withinOne: null };
  const diffs = graded.map((r) => Math.abs(r.human.overall - r.judge.overall));
  return {
    meanAbsoluteError: finite(diffs.reduce((a, b) => a + b, 0) / diffs.length),
    exact: finite(diffs.filter((d) => d === 0).length / diffs.length),
    withinOne: finite(diffs.filter((d) => d <= 1).length / diffs.length),
  };
}

export function formatCalibrationTable(report: CalibrationReport): string {
  const num = (x: number | null, digits = 2): string => (x === null ? 'n/a' : x.toFixed(digits));
  const rows = report.criteria.map((c) => [
    c.criterion,
    String(c.n),
    num(c.accuracy),
    num(c.kappa),
    c.ci ? `[${num(c.ci[0])}, ${num(c.ci[1])}]` : 'n/a',
    `${c.humanPass}/${c.judgePass}`,
  ]);
  const header = ['criterion', 'n', 'accuracy', 'kappa', '95% CI', 'pass human/judge'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  const o = report.overallScale;
  return [
    `judge: ${report.judge}   items: ${report.items}   errors: ${report.errors}`,
    line(header),
    ...rows.map(line),
    `overall 1–5: mean abs error ${num(o.meanAbsoluteError)}, exact ${num(o.exact)}, within one ${num(o.withinOne)}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------
// Answer judge calibration

/**
 * What a labelled answer exemplifies. The first three are right answers (the
 * judge should pass them); the rest are wrong (it should fail them).
 */
export const ANSWER_LABELS = [
  'correct',
  'correct-verbose',
  'abstain-right',
  'stale',
  'wrong-on-topic',
  'specific-wrong',
  'abstain-wrong',
] as const;
export type AnswerLabel = (typeof ANSWER_LABELS)[number];

const RIGHT_LABELS: ReadonlySet<AnswerLabel> = new Set(['correct', 'correct-verbose', 'abstain-right']);

/** True for labels of answers a judge should pass. */
function isRightLabel(label: AnswerLabel): boolean {
  return RIGHT_LABELS.has(label);
}

export interface AnswerCalibrationItem {
  /** `<file id>/<probe id>/<answer id>` */
  id: string;
  file: string;
  label: AnswerLabel;
  transcript: Transcript;
  probe: Probe;
  answer: string;
}

/** A share with its 95% Wilson interval: `count` of `n`; the shape run.json records (rateSchema). */
export type RateStats = Rate;

export interface LabelRate extends RateStats {
  label: AnswerLabel;
  /** Which error `rate` measures: accepting a wrong answer, or rejecting a right one. */
  error: 'false-accept' | 'false-reject';
}

export interface AnswerItemResult {
  id: string;
  label: AnswerLabel;
  verdict: 'pass' | 'fail' | 'error';
  reason: string;
}

export interface AnswerCalibrationReport {
  judge: string;
  createdAt: string;
  items: number;
  errors: number;
  method: string;
  /** Wrong answers (stale, wrong-on-topic, specific-wrong, abstain-wrong) the judge passed. */
  falseAccept: RateStats;
  /** Right answers (correct, correct-verbose, abstain-right) the judge failed. */
  falseReject: RateStats;
  perLabel: LabelRate[];
  results: AnswerItemResult[];
}

export type AnswerGrader = Grader<AnswerInput, JudgeVerdict> & { readonly modelId?: string };

const ANSWER_METHOD =
  'false-accept rate: wrong answers judged correct, over wrong answers; false-reject rate: right answers judged wrong, over right answers; ' +
  '95% Wilson score intervals; items the judge failed on are excluded and counted as errors';

export function rateStats(count: number, n: number): RateStats {
  if (n === 0) return { n, count, rate: null, ci: null };
  const ci = wilson(count, n);
  return { n, count, rate: finite(count / n), ci: [finite(ci.low) ?? 0, finite(ci.high) ?? 1] };
}

/** A judge error on a labelled answer: the share counts it neither way. */
function isJudged(r: AnswerItemResult): boolean {
  return r.verdict !== 'error';
}

/** True when the judge got this answer wrong: passed a wrong answer or failed a right one. */
function judgeErred(r: AnswerItemResult): boolean {
  return isRightLabel(r.label) ? r.verdict === 'fail' : r.verdict === 'pass';
}

function shareOf(results: AnswerItemResult[]): RateStats {
  const judged = results.filter(isJudged);
  return rateStats(judged.filter(judgeErred).length, judged.length);
}

/** Grades every labelled answer with `judge` (one at a time, in order). */
export async function calibrateAnswers(judge: AnswerGrader, items: AnswerCalibrationItem[]): Promise<AnswerCalibrationReport> {
  const results: AnswerItemResult[] = [];
  for (const item of items) {
    const v = await judge.grade({ transcript: item.transcript, probe: item.probe, answer: item.answer });
    results.push({ id: item.id, label: item.label, verdict: v.verdict, reason: v.reason });
  }
  const right = results.filter((r) => isRightLabel(r.label));
  const wrong = results.filter((r) => !isRightLabel(r.label));
  const present = ANSWER_LABELS.filter((label) => results.some((r) => r.label === label));
  return {
    judge: judge.modelId ?? judge.name,
    createdAt: new Date().toISOString(),
    items: items.length,
    errors: results.filter((r) => !isJudged(r)).length,
    method: ANSWER_METHOD,
    falseAccept: shareOf(wrong),
    falseReject: shareOf(right),
    perLabel: present.map((label) => ({
      label,
      error: isRightLabel(label) ? 'false-reject' : 'false-accept',
      ...shareOf(results.filter((r) => r.label === label)),
    })),
    results,
  };
}

export function formatAnswerCalibrationTable(report: AnswerCalibrationReport): string {
  const rows = [
    ['all wrong answers', 'false-accept', formatRate(report.falseAccept)],
    ['all right answers', 'false-reject', formatRate(report.falseReject)],
    ...report.perLabel.map((l) => [l.label, l.error, formatRate(l)]),
  ];
  const header = ['answers', 'error', 'rate [95% CI] (count/n)'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  return [`answer judge: ${report.judge}   items: ${report.items}   errors: ${report.errors}`, line(header), ...rows.map(line)].join('\n');
}
