// LongMemEval accuracy as LongMemEval's users report it: per question type,
// task-averaged, overall, and abstention apart, by the rules of
// xiaowu0162/LongMemEval src/evaluation/print_qa_metrics.py over the labels of
// its evaluate_qa.py judge prompts (core/longmemeval.ts states each rule).
// Only runs with LongMemEval probes get it; every other run's reports are unchanged.
import {
  LONGMEMEVAL_TYPES,
  hasLongMemEvalProbes,
  longMemEvalNotScored,
  longMemEvalScores,
  type LongMemEvalCell,
  type LongMemEvalStrategyScores,
} from '../core/longmemeval.js';
import { oncePerObject } from '../core/memo.js';
import type { RunResult } from '../core/types.js';
import { esc, num } from './format.js';

export const LONGMEMEVAL_TITLE = 'LongMemEval accuracy (official evaluate_qa.py prompts)';

/** The protocol, in one sentence every rendering repeats, so a number is never read without it. */
export const LONGMEMEVAL_SCORER =
  'Judge: the configured judge model asked with the per-type prompts of xiaowu0162/LongMemEval src/evaluation/evaluate_qa.py (get_anscheck_prompt; _abs questions get the abstention prompt), ' +
  'a reply containing "yes" is correct. Metrics: print_qa_metrics.py — accuracy per question type, task-averaged = the mean of the per-type accuracies, overall = over every answer, ' +
  'abstention = over the _abs questions (also counted in their types and overall), shown apart.';

/** How errors count and what a subset changes. */
export const LONGMEMEVAL_ERRORS =
  'An errored answer or judge call counts as not correct: it stays in every denominator and is shown under errors, with the accuracy over judged answers beside it. ' +
  'The task average is over the types present in the run (all six on the full dataset); n counts answers (questions × repeats).';

type Scores = LongMemEvalStrategyScores;

function pctText(value: number | undefined): string {
  return value === undefined ? '–' : `${num(value * 100, 1)}%`;
}

function unscoredText(rows: Scores[]): string | undefined {
  const unscored = rows.filter((r) => r.unscored > 0);
  if (unscored.length === 0) return undefined;
  const which = unscored.map((r) => `${r.strategy} ${r.unscored}`).join(', ');
  return `LongMemEval answers not graded with the official prompts are left out of these figures: ${which}`;
}

// ---------- report.html ----------

function htmlCell(c: LongMemEvalCell): string {
  if (c.n === 0) return '<td class="n">–</td>';
  const errors = c.errors > 0 ? `<br><span class="bad">${num(c.errors)} errored, counted as not correct</span><br><span class="muted">judged only: ${pctText(c.judgedAccuracy)}</span>` : '';
  return `<td class="n"><span class="nw">${pctText(c.accuracy)}</span><br><span class="muted">${num(c.correct)} / ${num(c.n)}</span>${errors}</td>`;
}

function taskAveragedCell(r: Scores): string {
  if (r.taskAveraged === undefined) return '<td class="n">–</td>';
  const of = r.typesPresent === LONGMEMEVAL_TYPES.length ? 'all 6 types' : `${r.typesPresent} of 6 types`;
  return `<td class="n"><span class="nw">${pctText(r.taskAveraged)}</span><br><span class="muted">${of}</span></td>`;
}

function htmlRow(r: Scores): string {
  const cells = [...r.types.map(htmlCell), taskAveragedCell(r), htmlCell(r.overall), htmlCell(r.abstention)];
  return `<tr><td>${esc(r.strategy)}</td>${cells.join('')}</tr>`;
}

function htmlHead(): string {
  const head = ['strategy', ...LONGMEMEVAL_TYPES, 'task-averaged', 'overall', 'abstention (apart)'];
  return `<tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
}

/** The report.html section; '' when the run has no LongMemEval probes. */
export function longMemEvalSection(run: RunResult): string {
  const rows = longMemEvalScores(run);
  if (rows.length === 0) return '';
  const heading = `<h2 id="longmemeval">${esc(LONGMEMEVAL_TITLE)}</h2>`;
  const notScored = longMemEvalNotScored(run, rows);
  if (notScored) return `${heading}<p class="bad">${esc(`LongMemEval metrics ${notScored}.`)}</p><p class="muted">${esc(LONGMEMEVAL_SCORER)}</p>`;
  const notes = [LONGMEMEVAL_SCORER, LONGMEMEVAL_ERRORS, unscoredText(rows)].filter((t): t is string => t !== undefined);
  const text = notes.map((t) => `<p class="muted">${esc(t)}</p>`).join('');
  return `${heading}${text}<table class="longmemeval-official">${htmlHead()}${rows.map(htmlRow).join('')}</table>`;
}

/** The nav link to the section, '' when there is none. */
export function longMemEvalNavLink(run: RunResult): string {
  return hasLongMemEvalProbes(run) ? '<a href="#longmemeval">LongMemEval</a>' : '';
}

// ---------- CLI ----------

const CLI_HEAD = ['strategy', 'ss-user', 'ss-pref', 'ss-asst', 'multi-sess', 'temporal', 'know-upd', 'task-avg', 'overall', 'abstention', 'n', 'errors'];

function cliLine(cells: string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(22) : c.padStart(10))).join(' ');
}

function cliPct(value: number | undefined): string {
  return value === undefined ? '—' : `${(value * 100).toFixed(1)}%`;
}

function cliRow(r: Scores): string {
  const types = r.types.map((t) => cliPct(t.accuracy));
  return cliLine([r.strategy, ...types, cliPct(r.taskAveraged), cliPct(r.overall.accuracy), cliPct(r.abstention.accuracy), String(r.overall.n), String(r.overall.errors)]);
}

/**
 * Lines the CLI prints after the main table; [] when the run has no
 * LongMemEval probes, one "not scored" line when no answer was graded with the
 * official prompts (`judge: offline`).
 */
export function longMemEvalLines(run: RunResult): string[] {
  const rows = longMemEvalScores(run);
  if (rows.length === 0) return [];
  const notScored = longMemEvalNotScored(run, rows);
  if (notScored) return ['', `LongMemEval metrics ${notScored}.`];
  const unscored = unscoredText(rows);
  const partial = rows.some((r) => r.typesPresent < LONGMEMEVAL_TYPES.length) ? ' over the types present' : '';
  return [
    '',
    `${LONGMEMEVAL_TITLE}: task-avg = mean of per-type accuracy${partial}; abstention apart (also in its type and overall); an errored answer counts as not correct`,
    cliLine(CLI_HEAD),
    ...rows.map(cliRow),
    ...(unscored ? [unscored] : []),
  ];
}

// ---------- summary.csv ----------

export type LongMemEvalColumns = Record<string, number | string | undefined>;

function cellColumns(prefix: string, c: LongMemEvalCell): LongMemEvalColumns {
  return { [`lme_acc_${prefix}`]: c.accuracy, [`lme_n_${prefix}`]: c.n, [`lme_errors_${prefix}`]: c.errors };
}

/** `single-session-user` → `single_session_user`, a column-name form. */
function columnName(type: string): string {
  return type.replace(/-/g, '_');
}

// summary.csv asks once per strategy; the scores of a run are computed once, not once per row.
const scoresOnce = oncePerObject(longMemEvalScores);

/**
 * summary.csv columns for one strategy: {} when the run has no LongMemEval
 * probes (other runs keep their columns); otherwise every column, with
 * `lme_protocol` saying "not scored …" and empty figures when no answer was
 * graded with the official prompts. Accuracies are fractions 0–1; errors count
 * as not correct and are in each `lme_n_*`.
 */
export function longMemEvalSummaryColumns(run: RunResult, strategyId: string): LongMemEvalColumns {
  const all = scoresOnce(run);
  if (all.length === 0) return {};
  const notScored = longMemEvalNotScored(run, all);
  const own = notScored ? undefined : all.find((r) => r.strategy === strategyId);
  const empty: LongMemEvalCell = { n: 0, correct: 0, errors: 0 };
  const out: LongMemEvalColumns = {
    lme_protocol: notScored ?? 'evaluate_qa.py prompts; print_qa_metrics.py means; errored answers count as not correct',
    lme_acc_task_averaged: own?.taskAveraged,
    lme_types_present: own?.typesPresent ?? 0,
    ...cellColumns('overall', own?.overall ?? empty),
    lme_acc_overall_judged: own?.overall.judgedAccuracy,
    ...cellColumns('abstention', own?.abstention ?? empty),
  };
  for (const [i, type] of LONGMEMEVAL_TYPES.entries()) Object.assign(out, cellColumns(columnName(type), own?.types[i] ?? empty));
  out.lme_unscored = all.find((r) => r.strategy === strategyId)?.unscored ?? 0;
  return out;
}
