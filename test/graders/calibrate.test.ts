import { describe, expect, it } from 'vitest';
import {
  calibrate,
  calibrateAnswers,
  formatAnswerCalibrationTable,
  rateStats,
  type AnswerCalibrationItem,
  type AnswerGrader,
  type AnswerLabel,
  type CalibrationItem,
  type SummaryGrader,
} from '../../graders/calibrate.js';
import type { JudgeVerdict } from '../../graders/types.js';
import { accuracy, cohenKappa, kappaInterval } from '../../graders/kappa.js';
import type { MadeSummary, Probe, SummaryJudgement, SummaryRecord, Transcript } from '../../core/types.js';

describe('cohenKappa', () => {
  it('binary: po 0.8, pe 0.5 → 0.6', () => {
    const a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1];
    expect(accuracy(a, b)).toBeCloseTo(0.8, 12);
    expect(cohenKappa(a, b)).toBeCloseTo(0.6, 12);
  });
  it('three categories: po 4/6, pe 12/36 → 0.5', () => {
    expect(cohenKappa(['x', 'x', 'y', 'y', 'z', 'z'], ['x', 'y', 'y', 'y', 'z', 'x'])).toBeCloseTo(0.5, 12);
  });
  it('is NaN when both raters are constant and equal', () => {
    expect(cohenKappa([1, 1, 1], [1, 1, 1])).toBeNaN();
  });
  it('bootstrap interval is reproducible and brackets the estimate', () => {
    const a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1];
    const one = kappaInterval(a, b);
    expect(kappaInterval(a, b)).toEqual(one);
    expect(one.low).toBeLessThan(0.6);
    expect(one.high).toBeGreaterThan(0.6);
    expect(one.high).toBeLessThanOrEqual(1);
    expect(kappaInterval(a, b, 2000, 7)).not.toEqual(one);
  });
});

const transcript: Transcript = { id: 't', tags: [], turns: [], facts: [], probes: [], file: 'mem.yaml' };
function item(i: number, labels: CalibrationItem['labels']): CalibrationItem {
  const summary: MadeSummary = {
    strategy: 'calibration',
    transcript: 't',
    turn: 1,
    coveredTurns: [1, 1],
    index: 1,
    summarizer: 'human',
    request: { system: '', user: '' },
    text: `summary-${i}`,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
  return { id: `t/${i}`, file: 'mem.yaml', transcript, summary, labels };
}

/** Replies from a table keyed by summary text: a deterministic judge with known agreement. */
class TableJudge implements SummaryGrader {
  readonly name = 'table';
  readonly modelId = 'table-judge';
  constructor(private readonly table: Map<string, SummaryJudgement>) {}
  async grade({ summary }: { summary: SummaryRecord }): Promise<SummaryJudgement> {
    const j = this.table.get(summary.text);
    if (!j) throw new Error('no row');
    return j;
  }
}

function judgement(cov: boolean, temporal: boolean, overall: number, error?: string): SummaryJudgement {
  return {
    model: 'table-judge',
    coverage: cov ? 0.9 : 0.5,
    faithfulness: 1,
    temporal: temporal ? 1 : 0,
    format: 1,
    overall,
    score: cov ? 0.9 : 0.5,
    invented: [],
    reasons: {},
    error,
  };
}

describe('calibrate', () => {
  const P = true;
  const F = false;
  const humanCov = [P, P, P, P, P, F, F, F, F, F];
  const judgeCov = [P, P, P, P, F, F, F, F, F, P];
  const humanTemporal = [P, P, P, P, P, P, P, P, F, F];
  const humanOverall = [5, 5, 4, 4, 3, 2, 2, 1, 1, 1];
  const judgeOverall = [5, 4, 4, 3, 3, 2, 1, 1, 1, 4];
  const items = humanCov.map((c, i) =>
    item(i, { coverage: c, faithfulness: true, temporal: humanTemporal[i], format: true, overall: humanOverall[i] }),
  );
  items.push(item(10, { coverage: true, faithfulness: true, temporal: true, format: true, overall: 5 }));
  const table = new Map<string, SummaryJudgement>(judgeCov.map((c, i) => [`summary-${i}`, judgement(c, true, judgeOverall[i])]));
  table.set('summary-10', { ...judgement(false, false, 0), error: 'judge call failed: HTTP 500' });

  it('reports accuracy and kappa per criterion, computed by hand', async () => {
    const report = await calibrate(new TableJudge(table), items);
    expect(report.judge).toBe('table-judge');
    expect(report.items).toBe(11);
    expect(report.errors).toBe(1);
    const by = Object.fromEntries(report.criteria.map((c) => [c.criterion, c]));
    // coverage: po = 8/10, pe = .5·.5 + .5·.5 → (0.8 − 0.5)/0.5
    expect(by.coverage).toMatchObject({ n: 10, agree: 8, accuracy: 0.8, kappa: 0.6, humanPass: 5, judgePass: 5 });
    expect(by.coverage.ci?.[0]).toBeLessThan(0.6);
    expect(by.coverage.ci?.[1]).toBeGreaterThan(0.6);
    // faithfulness: both always pass → kappa undefined
    expect(by.faithfulness).toMatchObject({ accuracy: 1, kappa: null, ci: null });
    // temporal: po = .8, pe = .8·1 + .2·0 = .8 → 0
    expect(by.temporal).toMatchObject({ accuracy: 0.8, kappa: 0 });
    // overall good = ≥ 4: po = .8, pe = .4·.4 + .6·.6 = .52 → .28/.48
    expect(by.overall.accuracy).toBe(0.8);
    expect(by.overall.kappa).toBeCloseTo(0.28 / 0.48, 4);
    expect(report.overallScale).toEqual({ meanAbsoluteError: 0.6, exact: 0.6, withinOne: 0.9 });
    expect(report.results[10]).toMatchObject({ id: 't/10', error: 'judge call failed: HTTP 500' });
    expect(report.results[10].judge).toBeUndefined();
  });
});

/** Answers by text: a deterministic answer judge with known errors. */
class AnswerTableJudge implements AnswerGrader {
  readonly name = 'answer-table';
  readonly modelId = 'answer-table-judge';
  constructor(private readonly table: Map<string, JudgeVerdict['verdict']>) {}
  async grade({ answer }: { answer: string }): Promise<JudgeVerdict> {
    return { verdict: this.table.get(answer) ?? 'error', reason: 'table', model: this.modelId };
  }
}

describe('calibrateAnswers', () => {
  const probe: Probe = { id: 'gw', afterTurn: 0, question: 'Which gateway?', answer: 'vpn-eu2', mustInclude: [['vpn-eu2']], facts: [], kind: 'update' };
  const answerItem = (i: number, label: AnswerLabel): AnswerCalibrationItem => ({ id: `a/gw/${i}`, file: 'a.yaml', label, transcript, probe, answer: `answer-${i}` });
  // right: 4 correct (1 rejected), 1 correct-verbose; wrong: 5 wrong-on-topic (3 accepted), 2 stale (1 accepted), 1 judge error
  const labels: AnswerLabel[] = ['correct', 'correct', 'correct', 'correct', 'correct-verbose', 'wrong-on-topic', 'wrong-on-topic', 'wrong-on-topic', 'wrong-on-topic', 'wrong-on-topic', 'stale', 'stale', 'stale'];
  const verdicts: JudgeVerdict['verdict'][] = ['pass', 'pass', 'pass', 'fail', 'pass', 'pass', 'pass', 'pass', 'fail', 'fail', 'pass', 'fail', 'error'];
  const items = labels.map((l, i) => answerItem(i, l));
  const table = new Map(verdicts.flatMap((v, i) => (v === 'error' ? [] : [[`answer-${i}`, v] as const])));

  it('counts false accepts over wrong answers and false rejects over right ones, with Wilson intervals', async () => {
    const report = await calibrateAnswers(new AnswerTableJudge(table), items);
    expect(report).toMatchObject({ judge: 'answer-table-judge', items: 13, errors: 1 });
    // wrong answers graded: 5 on-topic + 2 stale; accepted 3 + 1
    expect(report.falseAccept).toMatchObject({ n: 7, count: 4, rate: 0.5714 });
    expect(report.falseReject).toMatchObject({ n: 5, count: 1, rate: 0.2 });
    // Wilson 95% for 1/5: centre (0.2 + z²/10)/(1 + z²/5), by hand 0.0362 … 0.6245
    expect(report.falseReject.ci).toEqual([0.0362, 0.6245]);
    const by = Object.fromEntries(report.perLabel.map((l) => [l.label, l]));
    expect(Object.keys(by)).toEqual(['correct', 'correct-verbose', 'stale', 'wrong-on-topic']);
    expect(by['wrong-on-topic']).toMatchObject({ error: 'false-accept', n: 5, count: 3, rate: 0.6 });
    expect(by.stale).toMatchObject({ error: 'false-accept', n: 2, count: 1, rate: 0.5 });
    expect(by.correct).toMatchObject({ error: 'false-reject', n: 4, count: 1, rate: 0.25 });
    expect(report.results[12]).toMatchObject({ id: 'a/gw/12', label: 'stale', verdict: 'error' });
  });

  it('prints a rate table with intervals', async () => {
    const text = formatAnswerCalibrationTable(await calibrateAnswers(new AnswerTableJudge(table), items));
    expect(text).toContain('answer judge: answer-table-judge   items: 13   errors: 1');
    expect(text).toMatch(/all wrong answers\s+false-accept\s+57\.1% \[25\.1, 84\.2\] \(4\/7\)/);
    expect(text).toMatch(/wrong-on-topic\s+false-accept\s+60\.0% \[23\.1, 88\.2\] \(3\/5\)/);
    expect(rateStats(0, 0)).toEqual({ n: 0, count: 0, rate: null, ci: null });
  });
});
