// Judge calibration: grade human-labelled summaries with a summary judge and
// report, per criterion, how often the judge agrees with the human and Cohen's
// kappa with a 95% bootstrap interval. A judge metric is only as good as this.
import type { SummaryJudgement, SummaryRecord, Transcript } from '../core/types.js';
import { accuracy, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, cohenKappa, kappaInterval } from './kappa.js';
import { createSummaryJudge } from './summary-judge.js';
import type { Grader, SummaryInput } from './types.js';

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
  summary: SummaryRecord;
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
