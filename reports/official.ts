// LoCoMo F1 as LoCoMo's users report it: per strategy and question category,
// by the rules of snap-research/locomo task_eval/evaluation.py (core/locomo.ts
// states each rule and where it comes from). Only runs with LoCoMo probes get
// it; every other run's reports are unchanged.
import {
  LOCOMO_CATEGORIES,
  LOCOMO_FULL_OVERALL_QUESTIONS,
  LOCOMO_OVERALL_CATEGORIES,
  hasLocomoProbes,
  locomoScores,
  type LocomoCategoryCell,
  type LocomoCell,
  type LocomoStrategyScores,
} from '../core/locomo.js';
import { oncePerObject } from '../core/memo.js';
import type { RunResult } from '../core/types.js';
import { esc, num } from './format.js';

export const OFFICIAL_TITLE = 'LoCoMo F1 (official evaluation.py rules)';

/** The scorer, in one sentence every rendering repeats, so a number is never read without its protocol. */
export const OFFICIAL_SCORER =
  'Scorer: the rules of snap-research/locomo task_eval/evaluation.py (eval_question_answering): token F1 after normalize_answer and Porter stemming; ' +
  'category 1 per comma-separated part of the gold (each part matched to the best prediction part, averaged); categories 2 and 4 on the whole gold; ' +
  'category 3 on the gold before ";"; category 5 scores 1 when the answer contains "no information available" or "not mentioned", else 0.';

/** What is averaged and how errors count. */
export const OFFICIAL_PROTOCOL =
  'Overall = the mean over every answer of categories 1–4 (1,540 questions in the full locomo10.json), as published LoCoMo results compare; ' +
  'category 5 is shown apart and left out of it ("all 1–5" is evaluation_stats.py\'s own overall). ' +
  'An answer that errored counts as 0 in every mean and is counted under errors; "answered only" is the mean over the answers that exist.';

const F1_DIGITS = 3;

function f1(value: number | undefined): string {
  return value === undefined ? '–' : num(value, F1_DIGITS);
}

/** Distinct category 1–4 questions against the full file's, so a subset says it is one. */
function coverageText(rows: LocomoStrategyScores[]): string {
  const questions = Math.max(...rows.map((r) => r.overall.questions));
  const repeats = Math.max(...rows.map((r) => (r.overall.questions ? r.overall.n / r.overall.questions : 0)));
  const of = `${num(questions)} of the ${num(LOCOMO_FULL_OVERALL_QUESTIONS)} category 1–4 questions of the full file`;
  const subset = questions === LOCOMO_FULL_OVERALL_QUESTIONS ? of : `${of}: a subset, not comparable to full-file results`;
  return repeats > 1 ? `${subset}; n counts answers (questions × repeats)` : subset;
}

function unscoredText(rows: LocomoStrategyScores[]): string | undefined {
  const unscored = rows.filter((r) => r.unscored > 0);
  if (unscored.length === 0) return undefined;
  const which = unscored.map((r) => `${r.strategy} ${r.unscored}`).join(', ');
  return `LoCoMo probes without a category 1–5 are not scored (evaluation.py cannot score them): ${which}`;
}

// ---------- report.html ----------

// `0.512` with its n, and the errors (counted as 0) with the answered-only mean when there are any.
function htmlCell(c: LocomoCell): string {
  if (c.n === 0) return '<td class="n">–</td>';
  const errors = c.errors > 0 ? `<br><span class="bad">${c.errors} errored, counted as 0</span><br><span class="muted">answered only: ${f1(c.meanAnswered)}</span>` : '';
  return `<td class="n"><span class="nw">${f1(c.mean)}</span><br><span class="muted">n ${num(c.n)}</span>${errors}</td>`;
}

function categoryHead(c: LocomoCategoryCell): string {
  return `${c.category} ${c.name}`;
}

function htmlRow(r: LocomoStrategyScores): string {
  const inOverall = r.categories.filter((c) => LOCOMO_OVERALL_CATEGORIES.includes(c.category));
  const apart = r.categories.filter((c) => !LOCOMO_OVERALL_CATEGORIES.includes(c.category));
  const cells = [...inOverall.map(htmlCell), htmlCell(r.overall), ...apart.map(htmlCell), htmlCell(r.overallAll)];
  return `<tr><td>${esc(r.strategy)}</td>${cells.join('')}</tr>`;
}

function htmlHead(r: LocomoStrategyScores): string {
  const inOverall = r.categories.filter((c) => LOCOMO_OVERALL_CATEGORIES.includes(c.category)).map(categoryHead);
  const apart = r.categories.filter((c) => !LOCOMO_OVERALL_CATEGORIES.includes(c.category)).map(categoryHead);
  const head = ['strategy', ...inOverall, 'overall (1–4)', ...apart, 'all 1–5 (evaluation_stats.py)'];
  return `<tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
}

/** The report.html section; '' when the run has no LoCoMo probes. */
export function officialSections(run: RunResult): string {
  const rows = locomoScores(run);
  if (rows.length === 0) return '';
  const notes = [OFFICIAL_SCORER, OFFICIAL_PROTOCOL, `This run: ${coverageText(rows)}.`, unscoredText(rows)].filter((t): t is string => t !== undefined);
  const text = notes.map((t) => `<p class="muted">${esc(t)}</p>`).join('');
  return `<h2 id="locomo">${esc(OFFICIAL_TITLE)}</h2>${text}<table class="locomo-official">${htmlHead(rows[0])}${rows.map(htmlRow).join('')}</table>`;
}

/** The nav link to the section, '' when there is none. */
export function officialNavLink(run: RunResult): string {
  return hasLocomoProbes(run) ? '<a href="#locomo">LoCoMo F1</a>' : '';
}

// ---------- CLI ----------

const CLI_HEAD = ['strategy', 'multi-hop', 'temporal', 'open-domain', 'single-hop', 'overall 1-4', 'adversarial', 'errors'];

function cliLine(cells: string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(22) : c.padStart(12))).join(' ');
}

function cliF1(c: LocomoCell): string {
  return c.mean === undefined ? '—' : c.mean.toFixed(F1_DIGITS);
}

function cliRow(r: LocomoStrategyScores): string {
  const byCategory = LOCOMO_CATEGORIES.map((k) => r.categories[k - 1]);
  const [c1, c2, c3, c4, c5] = byCategory.map(cliF1);
  return cliLine([r.strategy, c1, c2, c3, c4, cliF1(r.overall), c5, String(r.overallAll.errors)]);
}

/**
 * Lines the CLI prints after the main table; [] when the run has no LoCoMo
 * probes. `errors` counts every category (1–5); each errored answer is a 0 in
 * the means beside it.
 */
export function officialLines(run: RunResult): string[] {
  const rows = locomoScores(run);
  if (rows.length === 0) return [];
  const unscored = unscoredText(rows);
  return [
    '',
    `${OFFICIAL_TITLE}: overall = categories 1-4, adversarial (5) apart; an errored answer counts as 0`,
    cliLine(CLI_HEAD),
    ...rows.map(cliRow),
    `questions: ${coverageText(rows)}`,
    ...(unscored ? [unscored] : []),
  ];
}

// ---------- summary.csv ----------

export type OfficialColumns = Record<string, number | string | undefined>;

function cellColumns(prefix: string, c: LocomoCell): OfficialColumns {
  return { [`locomo_f1_${prefix}`]: c.mean, [`locomo_n_${prefix}`]: c.n, [`locomo_errors_${prefix}`]: c.errors };
}

// summary.csv asks once per strategy; the scores of a run are computed once, not once per row.
const scoresOnce = oncePerObject(locomoScores);

/**
 * summary.csv columns for one strategy: {} when the run has no LoCoMo probes
 * (other runs keep their columns); otherwise every column, empty cells for a
 * strategy without LoCoMo answers. `locomo_f1_overall` is categories 1–4,
 * errors as 0; `locomo_n`/`locomo_errors` are its denominator and errors.
 */
export function officialSummaryColumns(run: RunResult, strategyId: string): OfficialColumns {
  const scores = scoresOnce(run);
  if (!scores.length) return {};
  const own = scores.find((r) => r.strategy === strategyId);
  const empty: LocomoCell = { n: 0, answered: 0, errors: 0, questions: 0, sum: 0 };
  const overall = own?.overall ?? empty;
  const out: OfficialColumns = {
    locomo_protocol: 'evaluation.py rules; overall = categories 1-4; errored answers count as 0',
    locomo_f1_overall: overall.mean,
    locomo_f1_overall_answered: overall.meanAnswered,
    locomo_n: overall.n,
    locomo_errors: overall.errors,
    locomo_questions: overall.questions,
  };
  for (const k of LOCOMO_CATEGORIES) Object.assign(out, cellColumns(`cat${k}`, own?.categories[k - 1] ?? empty));
  Object.assign(out, { locomo_f1_overall_1to5: own?.overallAll.mean, locomo_unscored: own?.unscored ?? 0 });
  return out;
}
