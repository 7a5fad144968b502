import { describe, expect, it } from 'vitest';
import { formatTable } from '../../reports/table.js';
import { bulkRun, sampleRun, withSummaryJudgeErrors } from '../helpers/sample-run.js';

const ALL_PASS_BUT_TWO = ['fail', 'fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const;

/** A sample run with no error at any stage. */
function cleanRun(model = 'offline') {
  const run = sampleRun({ model, outcomes: { 'trim-2': [...ALL_PASS_BUT_TWO] } });
  run.summaries = run.summaries.filter((s) => !s.error);
  return run;
}

describe('formatTable', () => {
  it('prints a clean offline run with answerable and reader gap beside accuracy, and an errors column of zeros', () => {
    expect(formatTable(cleanRun())).toBe(
      [
        'strategy                 accuracy answerable reader gap   mean tok   peak tok   compress  retention  crit drop     errors',
        'full                        90.0%     100.0%      10.0%        200        400     100.0%     100.0%          0          0',
        'trim-2                      80.0%      80.0%       0.0%        150        200      75.0%      86.1%          1          0',
        'summ                        70.0%     100.0%      30.0%        135        200      67.5%      90.3%          0          0',
        // Two transcripts give no interval: nothing cheaper can be shown to be as accurate as the baseline.
        'verdict: Recommendation: keep the baseline full — no cheaper strategy is shown to be as accurate: trim-2 cannot be shown to lose less than 5.0 pts of accuracy (−10.0 pts; no interval: 2 of at least 6 transcripts needed for a clustered test); summ cannot be shown to lose less than 5.0 pts of accuracy (−20.0 pts; no interval: 2 of at least 6 transcripts needed for a clustered test).',
        'answerable = the context sent held every fact the probe needs (probes naming no facts, abstention aside, are left out)',
        'reader gap = answerable probes not passed, an error counting as missed: the strategy lost it vs the reader missed it',
        'model: offline (the built-in extractive reader, not an LLM)',
        '',
      ].join('\n'),
    );
  });

  it('leaves out the offline line for an LLM and the errors line when nothing errored', () => {
    const text = formatTable(cleanRun('openai:gpt-4.1-mini'));
    expect(text).not.toContain('model: offline');
    expect(text).not.toMatch(/^errors:/m);
  });

  it('counts errored probes as not passed and shows them per strategy and per stage', () => {
    const text = formatTable(sampleRun());
    const trim = text.split('\n').find((l) => l.startsWith('trim-2'))!;
    // 7 passed of 10 attempted; the 7/9 over graded probes must not be what the table shows.
    expect(trim).toContain('70.0%');
    expect(text).not.toContain('77.8%');
    expect(trim.trim().split(/\s+/).at(-1)).toBe('1');
    expect(text).toContain('errors: answer 1/30 · answer-judge 0/29 · summarizer 1/3 · summary-judge 0/2\n');
    expect(text).toContain('  first answer error: HTTP 500 from provider after 3 retries\n');
    expect(text).toContain('  first summarizer error: summarizer timed out\n');
    expect(text).not.toContain('first summary-judge error');
  });

  it('shows 96 of 96 summary-judge failures, not 0 errors', () => {
    const run = withSummaryJudgeErrors(bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 48, probesPer: 1, passes: () => true, summaryOverall: () => 4 }));
    const text = formatTable(run);
    expect(text).toContain('summary-judge 96/96');
    expect(text).toContain('first summary-judge error: HTTP 401 from judge: invalid api key');
    for (const id of ['a', 'b']) expect(text.split('\n').find((l) => l.startsWith(`${id} `))!.trim().split(/\s+/).at(-1)).toBe('48');
  });

  it('warns when the judge passes far more answers than exact match', () => {
    const run = bulkRun({ runId: 'lenient', strategies: ['s'], transcripts: 4, probesPer: 4, passes: () => true });
    run.probes.forEach((p, i) => Object.assign(p, { exact: i < 3, judge: { verdict: 'pass', reason: 'looks right', model: 'openai:judge' } }));
    const text = formatTable(run);
    expect(text).toMatch(/warning: s: the judge passed 100\.0% of 16 answers, exact match 18\.8%/);
    run.probes.forEach((p) => Object.assign(p, { exact: true }));
    expect(formatTable(run)).not.toMatch(/warning:/);
  });

  it('starts with the status when the run is not complete (the command prints the reason)', () => {
    const run = sampleRun({ status: 'incomplete' });
    run.info.failure = '1 of 30 probe answers (answer model) errored.';
    expect(formatTable(run).split('\n')[0]).toBe('INCOMPLETE: every rate below counts errored or unattempted items as not passed');
    const failed = sampleRun({ status: 'failed' });
    failed.info.failure = 'The run stopped early: HTTP 401 invalid api key';
    expect(formatTable(failed).split('\n')[0]).toMatch(/^FAILED: every rate below counts/);
    expect(formatTable(sampleRun({ status: 'interrupted' })).split('\n')[0]).toMatch(/^INTERRUPTED: /);
    expect(formatTable(sampleRun()).split('\n')[0]).toMatch(/^strategy /);
  });

  it('marks a strategy that differs significantly from the baseline, with a legend naming the direction', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a', 'b', 'c'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s !== 'b' || !(p < 2 && t < 6) });
    const lines = formatTable(run).split('\n');
    expect(lines.find((l) => l.startsWith('b '))).toContain(' 70.0%*');
    expect(lines.find((l) => l.startsWith('c '))).toContain(' 100.0% ');
    expect(lines).toContain('* accuracy differs from baseline a (exact McNemar on shared probes, Holm-adjusted p < 0.05): b lower');
  });

  it('splits a miss into lost by the strategy and missed by the reader, an errored answerable probe counted as missed', () => {
    const lines = formatTable(sampleRun()).split('\n');
    // trim-2: p1's two repeats lost f1 (not answerable, 8/10 answerable); p3's errored repeat is answerable, so 1 of 8 missed.
    expect(lines.find((l) => l.startsWith('trim-2 '))!.trim().split(/\s+/).slice(1, 4)).toEqual(['70.0%', '80.0%', '12.5%']);
    for (const line of lines.slice(0, 4)) expect(line.length, line).toBe(lines[0].length);
  });

  it('prints — for both when no probe has a known answerable', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 2, passes: () => true });
    for (const p of run.probes) Object.assign(p, { factsNeeded: [], factsPresent: [], answerable: null });
    expect(formatTable(run).split('\n').find((l) => l.startsWith('a '))!.trim().split(/\s+/).slice(1, 4)).toEqual(['100.0%', '—', '—']);
  });

  it('shows an accuracy of 0.0% when every probe errored', () => {
    const text = formatTable(bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 3, passes: () => 'error' }));
    expect(text.split('\n').find((l) => l.startsWith('a '))).toContain('0.0%');
    expect(text).toContain('answer 6/6');
  });
});
