import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/types.js';
import { summarize } from '../../reports/aggregate.js';
import { failureCause, paretoSet, verdictMarkdown, verdictOf, verdictSection } from '../../reports/verdict.js';
import { bulkRun } from '../helpers/sample-run.js';

/** Scales one strategy's context tokens, so strategies differ in what they cost (bulkRun gives every one the same turns). */
function scaleTokens(run: RunResult, strategy: string, factor: number): RunResult {
  for (const t of run.turns) if (t.strategy === strategy) t.contextTokens = Math.round(t.contextTokens * factor);
  return run;
}

/**
 * full (125 mean tokens, all pass); trim (75 tokens); cheap (38 tokens, 12 lost in the first six
 * transcripts: significantly worse). By default 10 transcripts × 4 probes and trim loses 2 of 40
 * (−5 pts, McNemar p = 0.5: not significant, but its interval reaches −12.5 pts, so not shown to be
 * as accurate). `ASGOOD` is 40 transcripts with trim losing 1 of 160: its interval stays within
 * the 5-point margin, so trim is recommended.
 */
function threeWay(strategies = ['full', 'trim', 'cheap'], shape = { transcripts: 10, trimLost: 2 }): RunResult {
  const run = bulkRun({
    runId: 'r',
    strategies,
    transcripts: shape.transcripts,
    probesPer: 4,
    passes: (s, t, p) => (s === 'cheap' ? !(p < 2 && t < 6) : s === 'trim' ? !(p === 0 && t < shape.trimLost) : true),
  });
  return scaleTokens(scaleTokens(run, 'trim', 0.6), 'cheap', 0.3);
}

const ASGOOD = { transcripts: 40, trimLost: 1 };

function section(run: RunResult): string {
  return verdictSection(run, summarize(run));
}

function headline(html: string): string {
  const start = html.indexOf('<p class="verdict-headline"');
  return html.slice(start, html.indexOf('</p>', start));
}

function tableRow(html: string, strategy: string): string {
  return html.split('<tr>').find((r) => r.startsWith(`<td>${strategy}</td>`) || r.startsWith(`<td><strong>${strategy}</strong>`)) ?? '';
}

describe('verdict: the recommendation', () => {
  it('recommends the cheapest strategy not significantly worse, with tokens saved, the delta CI and the p-value', () => {
    const top = headline(section(threeWay(undefined, ASGOOD)));
    expect(top).toContain('Recommendation: <strong>trim</strong>');
    expect(top).toContain('not significantly less accurate than the baseline full and, by its 95% interval, loses less than 5.0 pts of accuracy');
    expect(top).toContain('50 fewer mean context tokens than full (−40.0%): 75 vs 125');
    expect(top).toContain('accuracy <span class="sig muted" title="exact McNemar on 160 shared probes: p = 1.00, Holm-adjusted p = 1.00">≈ −0.6 pts</span> vs full (95% CI −1.9 pts to 0.0 pts');
    expect(top).toContain('McNemar p = 1.00, Holm p = 1.00');
  });

  it('does not recommend a cheaper strategy that is not significantly worse but may lose more than the margin', () => {
    // −5 pts on 40 probes: McNemar cannot tell, and the interval reaches −12.5 pts: "not significant" is not "as good".
    const top = headline(section(threeWay()));
    expect(top).toContain('Recommendation: keep the baseline <strong>full</strong>');
    expect(top).toContain('trim may lose more than 5.0 pts of accuracy (−5.0 pts, 95% CI −12.5 pts to 0.0 pts)');
  });

  it('does not recommend a cheaper strategy when too few transcripts give no interval', () => {
    const top = headline(section(threeWay(undefined, { transcripts: 4, trimLost: 1 })));
    expect(top).toContain('Recommendation: keep the baseline <strong>full</strong>');
    expect(top).toMatch(/trim cannot be shown to lose less than 5\.0 pts of accuracy \(−6\.3 pts; no interval: /);
  });

  it('does not recommend a cheaper strategy that is significantly worse', () => {
    const run = threeWay(undefined, ASGOOD);
    const v = verdictOf(run, summarize(run));
    expect(v.kind === 'pick' && v.choice.strategy).toBe('trim');
    expect(headline(section(run))).not.toContain('<strong>cheap</strong>');
    expect(tableRow(section(run), 'cheap')).not.toContain('recommended');
  });

  it('keeps the baseline, and says why, when every cheaper strategy is significantly worse', () => {
    const top = headline(section(threeWay(['full', 'cheap'])));
    expect(top).toContain('Recommendation: keep the baseline <strong>full</strong>');
    expect(top).toContain('cheap is significantly less accurate (−30.0 pts, Holm p = 0.000488)');
  });

  it('does not recommend a cheaper strategy that was never compared with the baseline', () => {
    const run = threeWay();
    run.probes = run.probes.filter((p) => p.strategy !== 'trim'); // trim replayed turns but answered no probe
    const html = section(run);
    // Its probes are owed, never answered: the run cannot say how it compares.
    expect(headline(html)).toContain('Cannot recommend a strategy:');
    expect(headline(html)).toContain('trim has 40 unattempted probes');
    expect(tableRow(html, 'trim')).toContain('title="not compared: no probe graded by both">–</span>');
  });

  it('cannot recommend from an incomplete run, naming why', () => {
    const run = threeWay();
    run.info.status = 'incomplete';
    run.info.failure = 'more answers errored than max_errors allows';
    const html = section(run);
    expect(headline(html)).toContain('<strong>Cannot recommend a strategy:</strong> the run is INCOMPLETE (more answers errored than max_errors allows)');
    expect(html).not.toContain('Recommendation:');
    expect(html).not.toContain('recommended');
  });

  it('cannot recommend from a complete run with errored probes', () => {
    const run = scaleTokens(bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 10, probesPer: 4, passes: (s, t, p) => (s === 'trim' && t === 0 && p === 0 ? 'error' : true) }), 'trim', 0.5);
    const top = headline(section(run));
    expect(top).toContain('Cannot recommend a strategy:');
    expect(top).toContain('it has errors (answer 1/80)');
  });

  it('says there is nothing to choose between with one strategy', () => {
    const run = bulkRun({ runId: 'r', strategies: ['full'], transcripts: 3, probesPer: 2, passes: () => true });
    const html = section(run);
    expect(headline(html)).toContain('Nothing to choose between: the run has one strategy, <strong>full</strong>.');
    expect(html).not.toContain('<table');
  });

  it('cannot recommend when the run names no baseline', () => {
    const run = threeWay();
    delete run.info.baseline;
    expect(headline(section(run))).toContain('names no baseline strategy');
  });

  it('gives the CLI the same sentence as plain lines', () => {
    const run = threeWay(undefined, ASGOOD);
    const lines = verdictMarkdown(run, summarize(run));
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines[0]).toBe(
      'verdict: Recommendation: trim — the cheapest strategy by answer cost, then mean context tokens, that is not significantly less accurate than the baseline full and, by its 95% interval, loses less than 5.0 pts of accuracy.',
    );
    expect(lines[1]).toContain('50 fewer mean context tokens than full (−40.0%)');
    expect(lines[1]).toContain('accuracy ≈ −0.6 pts vs full (95% CI');
    expect(lines.join('\n')).not.toMatch(/<[a-z]/);
  });

  it('is deterministic and escapes strategy ids', () => {
    const run = threeWay(['full', 'trim', 'x<b>y']);
    expect(section(run)).toBe(section(run));
    expect(section(run)).toContain('x&lt;b&gt;y');
    expect(section(run)).not.toContain('x<b>y');
  });
});

describe('verdict: repeats', () => {
  /** full passes every repeat; trim fails the third of three repeats of every probe: its majority outcome never changes. */
  function repeated(failsThird: (transcript: string) => boolean = () => true): RunResult {
    const run = threeWay(['full', 'trim'], ASGOOD);
    run.info.repeat = 3;
    run.probes = run.probes.flatMap((p) =>
      [1, 2, 3].map((repeat) => {
        const fails = p.strategy === 'trim' && repeat === 3 && failsThird(p.transcript);
        return { ...p, repeat, passed: !fails, answer: fails ? 'no' : p.reference, f1: fails ? 0 : 1 };
      }),
    );
    return run;
  }

  it('a strategy losing one repeat in three of every probe is significantly less accurate, not "no change" by majority', () => {
    const run = repeated();
    const top = headline(section(run));
    expect(top).toContain('Recommendation: keep the baseline <strong>full</strong>');
    expect(top).toMatch(/trim is significantly less accurate \(−33\.3 pts, Holm p = /);
    expect(summarize(run).find((s) => s.strategy === 'trim')?.vsBaseline?.delta).toBeCloseTo(-1 / 3, 12);
  });

  it('a strategy losing a repeat on a few probes: the delta and its interval are one measure, the pass rate', () => {
    // trim fails a third repeat in 2 of 40 transcripts (8 of 160 probes): −0.8 pts, and McNemar on the 8 moves.
    const run = repeated((t) => t === 'bt0' || t === 'bt1');
    const trim = summarize(run).find((s) => s.strategy === 'trim')?.vsBaseline;
    expect(trim?.delta).toBeCloseTo(-8 / 3 / 160, 12);
    expect(trim?.p).toBeCloseTo(2 / 256, 12);
    expect(headline(section(run))).toMatch(/trim is significantly less accurate \(−1\.7 pts, Holm p = /);
  });
});

describe('verdict: Pareto set and failure causes', () => {
  it('names the strategies nothing beats on both accuracy and tokens, by tokens', () => {
    const run = threeWay();
    expect(paretoSet(summarize(run)).map((s) => s.strategy)).toEqual(['cheap', 'trim', 'full']);
    scaleTokens(run, 'trim', 0.4); // now cheaper than cheap and nearly as accurate: cheap is dominated
    expect(paretoSet(summarize(run)).map((s) => s.strategy)).toEqual(['trim', 'full']);
    expect(section(run)).toContain('no other strategy is both cheaper and more accurate): <strong>trim</strong>, <strong>full</strong>.');
  });

  it('gives each strategy its dominant failure cause from the attribution counts', () => {
    const run = threeWay();
    for (const p of run.probes) if (p.strategy === 'cheap' && !p.passed) p.attribution = Number(p.transcript.slice(2)) < 4 ? 'trimmed' : 'lost-in-summary';
    for (const p of run.probes) if (p.strategy === 'trim' && !p.passed) p.attribution = 'present-but-missed';
    const rows = summarize(run);
    expect(rows.map(failureCause)).toEqual([
      'full: no failures',
      'trim: 2 of 2 failures present-but-missed (the fact was in the context; the reader missed it)',
      'cheap: 8 of 12 failures trimmed (the fact was cut)',
    ]);
    expect(tableRow(section(run), 'cheap')).toContain('<td>8 of 12 failures trimmed (the fact was cut)</td>');
  });

  it('says when failures carry no cause', () => {
    const [, , cheap] = summarize(threeWay());
    expect(failureCause(cheap)).toBe('cheap: 12 failures, none attributed to a cause');
  });
});

describe('verdict: significance marks', () => {
  it('marks significantly worse ▼, not significant ≈, with the adjusted p in the title', () => {
    const html = section(threeWay());
    expect(tableRow(html, 'cheap')).toContain('<span class="sig bad" title="exact McNemar on 40 shared probes: p = 0.000488, Holm-adjusted p = 0.000977">▼ −30.0 pts</span>');
    expect(tableRow(html, 'trim')).toContain('<span class="sig muted" title="exact McNemar on 40 shared probes: p = 0.500, Holm-adjusted p = 0.500">≈ −5.0 pts</span>');
    expect(tableRow(html, 'full')).toContain('<span class="muted">baseline</span>');
  });

  it('marks significantly better ▲', () => {
    const run = bulkRun({ runId: 'r', strategies: ['base', 'better'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s === 'better' || !(p < 2 && t < 6) });
    expect(tableRow(section(run), 'better')).toContain('<span class="sig ok" title="exact McNemar on 40 shared probes: p = 0.000488, Holm-adjusted p = 0.000488">▲ +30.0 pts</span>');
  });
});

describe('verdict: what a recommendation needs', () => {
  const verdict = (run: RunResult) => verdictOf(run, summarize(run));

  it('does not switch on a handful of probes that all agree: their bootstrap interval is [0, 0], their flips bound nothing', () => {
    const few = scaleTokens(bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 6, probesPer: 1, passes: () => true }), 'trim', 0.5);
    const v = verdict(few);
    expect(v.kind === 'pick' && v.choice.strategy).toBe('full');
    expect(headline(section(few))).toMatch(/trim cannot be shown to lose less than 5\.0 pts of accuracy: on 6 shared probes it may fail up to 31\.1 pts/);
    // Enough agreeing probes do bound it: 1 − the one-sided 95% Wilson bound of 0 flips in 80 is 3.3 pts.
    const many = scaleTokens(bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 20, probesPer: 4, passes: () => true }), 'trim', 0.5);
    const w = verdict(many);
    expect(w.kind === 'pick' && w.choice.strategy).toBe('trim');
  });

  it('keeps the baseline when nothing is cheaper: the same tokens are no saving', () => {
    const tied = bulkRun({ runId: 'r', strategies: ['trim', 'full'], transcripts: 20, probesPer: 4, passes: () => true });
    tied.info.baseline = 'full';
    const v = verdict(tied);
    expect(v.kind === 'pick' && v.choice.strategy).toBe('full');
  });

  it('cannot recommend against a baseline that graded nothing, nor between strategies measured on different transcripts', () => {
    const empty = scaleTokens(bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 20, probesPer: 4, passes: () => true }), 'trim', 0.5);
    empty.probes = empty.probes.filter((p) => p.strategy !== 'full');
    expect(verdict(empty)).toMatchObject({ kind: 'cannot' });
    const partial = scaleTokens(bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 20, probesPer: 4, passes: () => true }), 'trim', 0.5);
    partial.turns = partial.turns.filter((t) => t.strategy !== 'trim' || t.transcript !== 'bt0');
    const v = verdict(partial);
    expect(v.kind).toBe('cannot');
    expect(v.kind === 'cannot' && v.reasons.join(' ')).toMatch(/the records of trim cover fewer transcripts/);
  });

  it('counts an unanswered probe as a failure in the failure line', () => {
    const run = bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 10, probesPer: 4, passes: () => true });
    run.probes = run.probes.filter((p) => p.strategy !== 'trim' || p.transcript !== 'bt0');
    const trim = summarize(run).find((s) => s.strategy === 'trim')!;
    expect(failureCause(trim)).toMatch(/^trim: 4 failures/);
  });

  it('has no cost unless every answer was priced, so a partial sum never ranks', () => {
    const run = bulkRun({ runId: 'r', strategies: ['full', 'trim'], transcripts: 10, probesPer: 4, passes: () => true });
    for (const p of run.probes) if (p.strategy === 'trim' && p.transcript !== 'bt0') delete p.cost;
    const rows = summarize(run);
    expect(rows.find((s) => s.strategy === 'trim')?.cost).toBeUndefined();
    expect(rows.find((s) => s.strategy === 'full')?.cost).toBeCloseTo(0.004, 10);
  });
});
