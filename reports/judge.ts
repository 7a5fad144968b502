// How far a run's answer judge can be trusted: its calibration on record
// (false-accept and false-reject rates on labelled answers), a flag when it
// passes wrong-but-on-topic answers too often, and, per strategy, a warning
// when the judge passes far more answers than the deterministic checks do.
import { formatRate, type Rate } from '../core/stats.js';
import { TOOL_CHECK, type JudgeCalibration, type ProbeRecord, type RunInfo, type RunResult } from '../core/types.js';
import { esc, pct } from './format.js';

/**
 * A judge that passes more than this share of wrong-but-on-topic answers in
 * calibration is flagged. A common LLM judge has been measured passing most
 * vague on-topic answers; at 10% a fifth of a 50%-accurate strategy's failures
 * could already read as passes, which is the size of a typical strategy gap.
 */
export const ON_TOPIC_FALSE_ACCEPT_LIMIT = 0.1;

/**
 * "Far more": the judge's pass rate exceeds the exact-match pass rate by more
 * than this many percentage points. Paraphrases and extra words explain a few
 * points; a gap this wide means the judge is accepting answers without the
 * key terms, which is what a lenient judge does.
 */
export const DISAGREEMENT_POINTS = 20;

/** Below this many judged answers a strategy's gap is noise, not a signal. */
export const DISAGREEMENT_MIN_ANSWERS = 10;

/** Examples shown per strategy: enough to see the pattern, few enough to read. */
export const DISAGREEMENT_EXAMPLES = 5;

type AnswerCalibration = NonNullable<JudgeCalibration['answers']>;

/** The false-accept rate on wrong-but-on-topic answers, when calibration has any. */
function onTopicRate(a: AnswerCalibration): Rate | undefined {
  return a.perLabel.find((l) => l.label === 'wrong-on-topic');
}

/** The flag text when the judge passes too many wrong-but-on-topic answers; undefined otherwise. */
export function onTopicFlag(info: Pick<RunInfo, 'judgeCalibration'>): string | undefined {
  const answers = info.judgeCalibration?.answers;
  const onTopic = answers ? onTopicRate(answers) : undefined;
  if (onTopic?.rate == null || onTopic.rate <= ON_TOPIC_FALSE_ACCEPT_LIMIT) return undefined;
  return (
    `FLAG: the judge passed ${formatRate(onTopic)} of wrong but on-topic answers in calibration ` +
    `(limit ${pct(ON_TOPIC_FALSE_ACCEPT_LIMIT)}); judge pass rates in this run overstate accuracy`
  );
}

/** One line for a report header: the judge, its false-accept/false-reject rates with 95% CIs or "not calibrated", and the flag. */
export function answerJudgeLine(info: Pick<RunInfo, 'judge' | 'judgeCalibration'>): string {
  const answers = info.judgeCalibration?.answers;
  if (!answers) return `${info.judge}: not calibrated on labelled answers (memeval calibrate --judge ${info.judge})`;
  const rates = `false-accept ${formatRate(answers.falseAccept)}, false-reject ${formatRate(answers.falseReject)}`;
  const line = `${info.judge}: ${rates} on ${answers.items} labelled answers, ${answers.createdAt.slice(0, 10)}`;
  const flag = onTopicFlag(info);
  return flag ? `${line} — ${flag}` : line;
}

// ---------------------------------------------------------------------------
// Judge/exact disagreement

export interface DisagreementExample {
  transcript: string;
  probe: string;
  question: string;
  reference: string;
  answer: string;
  reason: string;
  f1?: number;
}

export interface JudgeExactDisagreement {
  strategy: string;
  /** Answers with both a judge verdict (pass or fail) and an exact-match result. */
  answers: number;
  judgePass: number;
  exactPass: number;
  judgeRate: number;
  exactRate: number;
  /** judgeRate − exactRate in percentage points. */
  gapPoints: number;
  /** Mean token F1 over the same answers, when recorded. */
  meanF1?: number;
  /** Judge passed, exact match failed; lowest F1 first (the least like the reference). */
  examples: DisagreementExample[];
}

type Compared = ProbeRecord & { answer: string; exact: boolean; judge: { verdict: 'pass' | 'fail'; reason: string; model: string } };

/**
 * Records with an answer, an exact-match result and a judge verdict (judge errors are not verdicts).
 * Calls graded by rule are left out: their verdict is their exact result, and counting them would
 * dilute, and could hide, a lenient judge's gap.
 */
function comparable(p: ProbeRecord): p is Compared {
  if (p.judge?.model === TOOL_CHECK) return false;
  return p.answer !== undefined && p.exact !== undefined && (p.judge?.verdict === 'pass' || p.judge?.verdict === 'fail');
}

function example(p: Compared): DisagreementExample {
  const out: DisagreementExample = { transcript: p.transcript, probe: p.probe, question: p.question, reference: p.reference, answer: p.answer, reason: p.judge.reason };
  if (p.f1 !== undefined) out.f1 = p.f1;
  return out;
}

function strategyDisagreement(strategy: string, records: Compared[]): JudgeExactDisagreement {
  const judgePass = records.filter((p) => p.judge.verdict === 'pass').length;
  const exactPass = records.filter((p) => p.exact).length;
  const f1s = records.flatMap((p) => (p.f1 === undefined ? [] : [p.f1]));
  const lenient = records.filter((p) => p.judge.verdict === 'pass' && !p.exact).sort((a, b) => (a.f1 ?? 0) - (b.f1 ?? 0));
  // Never empty: a strategy is listed only once it has a record.
  const n = records.length;
  const result: JudgeExactDisagreement = {
    strategy,
    answers: n,
    judgePass,
    exactPass,
    judgeRate: judgePass / n,
    exactRate: exactPass / n,
    gapPoints: (100 * (judgePass - exactPass)) / n,
    examples: lenient.slice(0, DISAGREEMENT_EXAMPLES).map(example),
  };
  if (f1s.length > 0) result.meanF1 = f1s.reduce((a, b) => a + b, 0) / f1s.length;
  return result;
}

/**
 * Strategies whose judge passes far more answers than exact match: more than
 * DISAGREEMENT_POINTS points apart over at least DISAGREEMENT_MIN_ANSWERS
 * answers. Exact match is the record's `exact` (every must_include entry present,
 * or the abstention check). Strategies in run order; empty when none disagrees.
 */
export function judgeExactDisagreement(run: Pick<RunResult, 'probes'>): JudgeExactDisagreement[] {
  const byStrategy = new Map<string, Compared[]>();
  for (const p of run.probes.filter(comparable)) {
    const list = byStrategy.get(p.strategy);
    if (list) list.push(p);
    else byStrategy.set(p.strategy, [p]);
  }
  return [...byStrategy]
    .map(([strategy, records]) => strategyDisagreement(strategy, records))
    .filter((d) => d.answers >= DISAGREEMENT_MIN_ANSWERS && d.gapPoints > DISAGREEMENT_POINTS);
}

/** One line for a terminal table or log. */
export function disagreementLine(d: JudgeExactDisagreement): string {
  return (
    `warning: ${d.strategy}: the judge passed ${pct(d.judgeRate)} of ${d.answers} answers, exact match ${pct(d.exactRate)} ` +
    `(+${d.gapPoints.toFixed(1)} points); check the judge before trusting its accuracy`
  );
}

function exampleRow(e: DisagreementExample): string {
  const cells = [`${e.transcript} / ${e.probe}`, e.question, e.reference, e.answer, e.f1 === undefined ? '–' : e.f1.toFixed(2), e.reason];
  return `<tr>${cells.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`;
}

function disagreementBlock(d: JudgeExactDisagreement): string {
  const head = ['probe', 'question', 'reference', 'answer', 'F1', 'judge reason'].map((h) => `<th>${h}</th>`).join('');
  const table = `<table><thead><tr>${head}</tr></thead><tbody>${d.examples.map(exampleRow).join('')}</tbody></table>`;
  return `<h3>${esc(d.strategy)}</h3><p class="warn">${esc(disagreementLine(d))}</p>${table}`;
}

/** The report section; empty when no strategy's judge and exact match disagree far. */
export function judgeDisagreementSection(run: Pick<RunResult, 'probes'>): string {
  const found = judgeExactDisagreement(run);
  if (found.length === 0) return '';
  const intro =
    `<p>The judge passed more than ${DISAGREEMENT_POINTS} points more answers than exact match ` +
    `(at least ${DISAGREEMENT_MIN_ANSWERS} answers). Examples below passed the judge but not exact match.</p>`;
  return `<h2 id="judge-disagreement">Judge/exact disagreement</h2>${intro}${found.map(disagreementBlock).join('\n')}`;
}
