// The report's power sections: what a run can detect, and where its variance comes from.
import { describe, expect, it } from 'vitest';
import type { ProbeRecord, RunResult } from '../../core/types.js';
import { renderReport } from '../../reports/html.js';
import { detectSection, powerSections, varianceSection } from '../../reports/power.js';
import { bulkRun, sampleRun } from '../helpers/sample-run.js';

/** A run of strategy `s` whose outcomes are `outcomes[t][q][r]` (transcript, probe, repeat). */
function runOf(outcomes: number[][][], repeat: number, judgeSamples = 1): RunResult {
  const base = sampleRun();
  const probes: ProbeRecord[] = outcomes.flatMap((ps, t) =>
    ps.flatMap((reps, q) =>
      reps.map((y, r) => ({
        strategy: 's', transcript: `t${t}`, probe: `p${q}`, kind: 'recall' as const, afterTurn: 1, repeat: r + 1, question: '?', reference: 'x',
        contextTokens: 10, contextItems: 1, factsNeeded: [], factsPresent: [], factsMissing: [], answerable: null, model: 'offline',
        answer: 'x', passed: y === 1, judge: { verdict: y ? ('pass' as const) : ('fail' as const), reason: '', model: 'offline' },
      })),
    ),
  );
  return {
    info: { ...base.info, repeat, baseline: 's', strategies: [{ id: 's', use: 'full-history', options: {} }], config: { judge_samples: judgeSamples } },
    turns: [],
    probes,
    summaries: [],
  };
}

describe('detectSection', () => {
  it("prints the MDE from the run's own k, m̄, p and ICC", () => {
    // Baseline s: 10 transcripts × 4 probes; fails probe 0 of transcripts 0–3 → 36/40, p = 37/42.
    // Clusters: four of (0,1,1,1), six of (1,1,1,1): MSB = Σ nᵢ(ȳᵢ − 0.9)² / 9 = (4·4·0.0225 + 6·4·0.01) / 9 = 0.6/9 = 0.066667;
    // MSW = 4·0.75 / 30 = 0.1; ICC < 0 → 0. DE = 1; SE = √(2·(37/42)(5/42) / 40) = √0.0052438 = 0.072414; MDE = 0.202873 → 20.3.
    const run = bulkRun({ runId: 'r', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s === 't' || !(t < 4 && p === 0) });
    const html = detectSection(run);
    expect(html).toContain('What this run can detect');
    expect(html).toContain('from the records of s');
    expect(html).toContain('ICC 0.00 estimated');
    expect(html).toMatch(/<td>all<\/td><td class="n">10<\/td><td class="n">4\.00<\/td><td class="n">88\.1%<\/td><td class="n">20\.3 points<\/td>/);
    expect(html).toMatch(/<td>recall<\/td>/);
  });

  it('estimates nothing from a run whose reference strategy errored: errors would read as failures', () => {
    const run = bulkRun({ runId: 'r', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (_s, t) => (t < 4 ? 'error' : true) });
    const html = detectSection(run);
    expect(html).toContain('Not estimated: 16 of the 40 probe answers of s errored');
    expect(html).not.toContain('points</td>');
  });

  it('escapes the strategy id and is part of report.html', () => {
    const run = bulkRun({ runId: 'r', strategies: ['<b>x</b>'], transcripts: 2, probesPer: 2, passes: () => true });
    expect(detectSection(run)).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(renderReport(run)).toContain('What this run can detect');
  });
});

describe('varianceSection', () => {
  it('is left out with one repeat and one judge sample', () => {
    expect(varianceSection(runOf([[[1], [0]], [[1], [1]]], 1))).toBe('');
    expect(powerSections(runOf([[[1], [0]], [[1], [1]]], 1))).not.toContain('Where the variance comes from');
  });

  it('splits a run with known components and says what would help', () => {
    // t0: (1,1) (1,0); t1: (0,0) (0,1): σ²_transcript = 0.0625, σ²_probe = 0, σ²_answer = 0.25 — half the variance each.
    const html = varianceSection(runOf([[[1, 1], [1, 0]], [[0, 0], [0, 1]]], 2));
    expect(html).toContain('Where the variance comes from');
    expect(html).toMatch(/between transcripts<\/td><td class="n">0\.0625<\/td><td class="n">50%/);
    expect(html).toMatch(/between probes of one transcript<\/td><td class="n">0\.0000<\/td><td class="n">0%/);
    expect(html).toMatch(/answer sampling \(between repeats of one probe\)<\/td><td class="n">0\.2500<\/td><td class="n">50%/);
    expect(html).toMatch(/judge sampling<\/td><td class="n">not recorded/);
    expect(html).toContain('More transcripts would help most');
  });

  it('advises more repeats when answer sampling dominates', () => {
    const html = varianceSection(runOf([[[1, 0], [0, 1]], [[1, 0], [1, 0]]], 2));
    expect(html).toContain('Most of the uncertainty is answer sampling (100%): more repeats would narrow the interval.');
  });

  it('with judge samples but no repeats, says what it cannot split', () => {
    const html = varianceSection(runOf([[[1], [0]], [[1], [1]]], 1, 3));
    expect(html).toMatch(/answer sampling \(between repeats of one probe\)<\/td><td class="n">not measured/);
    expect(html).toContain('run with --repeat 2 or more to split it off');
    expect(html).toContain('judge_samples (3) samples the summary judge');
  });
});
