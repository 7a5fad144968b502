// The answer judge in reports: its calibration line, the on-topic flag, and judge/exact disagreement.
import { describe, expect, it } from 'vitest';
import { TOOL_CHECK, type JudgeCalibration, type ProbeRecord, type RunResult } from '../../core/types.js';
import { renderReport } from '../../reports/html.js';
import {
  answerJudgeLine,
  DISAGREEMENT_EXAMPLES,
  disagreementLine,
  judgeDisagreementSection,
  judgeExactDisagreement,
  onTopicFlag,
} from '../../reports/judge.js';
import { sampleRun } from '../helpers/sample-run.js';

function answers(onTopic: { count: number; n: number; rate: number }): NonNullable<JudgeCalibration['answers']> {
  return {
    createdAt: '2026-03-02T10:00:00.000Z',
    items: 55,
    falseAccept: { n: 34, count: 4, rate: 0.1176, ci: [0.0467, 0.2654] },
    falseReject: { n: 21, count: 1, rate: 0.0476, ci: [0.0084, 0.2267] },
    perLabel: [
      { label: 'stale', error: 'false-accept', n: 5, count: 1, rate: 0.2, ci: [0.0362, 0.6245] },
      { label: 'wrong-on-topic', error: 'false-accept', ...onTopic, ci: [0, 0.5] },
    ],
  };
}

function calibrated(onTopic: { count: number; n: number; rate: number }): { judge: string; judgeCalibration: JudgeCalibration } {
  return { judge: 'openai:gpt-4o-mini', judgeCalibration: { createdAt: '2026-03-02T10:00:00.000Z', items: 22, criteria: [], answers: answers(onTopic) } };
}

describe('answer judge header line', () => {
  it('says "not calibrated" when no answer calibration is on record', () => {
    expect(answerJudgeLine({ judge: 'openai:j' })).toBe('openai:j: not calibrated on labelled answers (memeval calibrate --judge openai:j)');
    // a record from before answers were calibrated has only the summary criteria
    expect(answerJudgeLine({ judge: 'openai:j', judgeCalibration: { createdAt: 'x', items: 3, criteria: [] } })).toMatch(/not calibrated/);
  });

  it('gives false-accept and false-reject with their 95% intervals', () => {
    const line = answerJudgeLine(calibrated({ count: 1, n: 10, rate: 0.1 }));
    expect(line).toBe('openai:gpt-4o-mini: false-accept 11.8% [4.7, 26.5] (4/34), false-reject 4.8% [0.8, 22.7] (1/21) on 55 labelled answers, 2026-03-02');
  });

  it('flags a judge that passes more than 10% of wrong but on-topic answers, and not one at 10%', () => {
    expect(onTopicFlag(calibrated({ count: 1, n: 10, rate: 0.1 }))).toBeUndefined();
    const info = calibrated({ count: 6, n: 10, rate: 0.6 });
    expect(onTopicFlag(info)).toMatch(/^FLAG: the judge passed 60\.0% \[0\.0, 50\.0\] \(6\/10\) of wrong but on-topic answers .*limit 10\.0%/);
    expect(answerJudgeLine(info)).toContain(' — FLAG: ');
  });
});

/** `n` answers of one strategy: the first `judgePass` pass the judge, the first `exactPass` pass exact match. */
function records(strategy: string, n: number, judgePass: number, exactPass: number): ProbeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    strategy,
    transcript: 't1',
    probe: `p${i}`,
    kind: 'recall' as const,
    afterTurn: 1,
    repeat: 1,
    question: `Which gateway, case ${i}?`,
    reference: 'vpn-eu2',
    contextTokens: 10,
    contextItems: 2,
    factsNeeded: [],
    factsPresent: [],
    factsMissing: [],
    answerable: null,
    answer: i < exactPass ? 'vpn-eu2' : 'the newer <European> gateway',
    exact: i < exactPass,
    f1: i < exactPass ? 1 : i / 100,
    judge: { verdict: i < judgePass ? ('pass' as const) : ('fail' as const), reason: `reason ${i}`, model: 'openai:j' },
    passed: i < judgePass,
  }));
}

function runWith(probes: ProbeRecord[]): RunResult {
  const run = sampleRun();
  return { ...run, probes: [...run.probes, ...probes] };
}

describe('judge/exact disagreement', () => {
  it('finds a strategy whose judge passes more than 20 points more answers than exact match', () => {
    const run = runWith(records('lenient', 10, 9, 3));
    const found = judgeExactDisagreement(run);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ strategy: 'lenient', answers: 10, judgePass: 9, exactPass: 3, judgeRate: 0.9, exactRate: 0.3 });
    expect(found[0].gapPoints).toBeCloseTo(60, 9);
    // 6 judge-only passes, at most 5 shown, least like the reference first
    expect(found[0].examples).toHaveLength(DISAGREEMENT_EXAMPLES);
    expect(found[0].examples.map((e) => e.probe)).toEqual(['p3', 'p4', 'p5', 'p6', 'p7']);
    expect(found[0].examples[0]).toMatchObject({ question: 'Which gateway, case 3?', reference: 'vpn-eu2', answer: 'the newer <European> gateway', reason: 'reason 3' });
    expect(disagreementLine(found[0])).toBe(
      'warning: lenient: the judge passed 90.0% of 10 answers, exact match 30.0% (+60.0 points); check the judge before trusting its accuracy',
    );
  });

  it('ignores a gap of exactly 20 points, fewer than 10 answers, and judge errors', () => {
    expect(judgeExactDisagreement(runWith(records('edge', 10, 5, 3)))).toEqual([]);
    expect(judgeExactDisagreement(runWith(records('few', 9, 9, 0)))).toEqual([]);
    const errored = records('errors', 10, 10, 0).map((p, i) => (i < 5 ? { ...p, judge: { ...p.judge!, verdict: 'error' as const } } : p));
    expect(judgeExactDisagreement(runWith(errored))).toEqual([]);
    // the sample run's judge agrees with exact match everywhere
    expect(judgeExactDisagreement(sampleRun())).toEqual([]);
  });

  it('leaves calls graded by rule out: they agree with exact match by construction and would hide the gap', () => {
    const lenient = records('lenient', 20, 15, 10);
    const ruled = records('lenient', 10, 10, 10).map((p, i) => ({ ...p, probe: `k${i}`, kind: 'tool' as const, judge: { verdict: 'pass' as const, reason: 'exact call', model: TOOL_CHECK } }));
    const [found] = judgeExactDisagreement(runWith([...lenient, ...ruled]));
    expect(found).toMatchObject({ answers: 20, judgePass: 15, exactPass: 10 });
  });

  it('renders a warning section with escaped examples, and nothing when none disagrees', () => {
    expect(judgeDisagreementSection(sampleRun())).toBe('');
    const html = judgeDisagreementSection(runWith(records('lenient', 10, 9, 3)));
    expect(html).toContain('<h2 id="judge-disagreement">Judge/exact disagreement</h2>');
    expect(html).toContain('the newer &lt;European&gt; gateway');
    expect(html).not.toContain('<European>');
    expect(html.match(/<tr><td>/g)).toHaveLength(DISAGREEMENT_EXAMPLES);
  });

  it('report.html shows the calibration line in its header and the section in its body', () => {
    const run = runWith(records('lenient', 10, 9, 3));
    const html = renderReport({ ...run, info: { ...run.info, ...calibrated({ count: 6, n: 10, rate: 0.6 }) } });
    expect(html).toContain('<td>answer judge calibration</td><td>openai:gpt-4o-mini: false-accept 11.8%');
    expect(html).toContain('FLAG: the judge passed 60.0%');
    expect(html).toContain('id="judge-disagreement"');
    expect(renderReport(sampleRun())).toContain('not calibrated on labelled answers');
  });
});
