// Sweeps in the reports: per sweep a curve of accuracy and mean context
// tokens over the swept value, and its knee (the smallest setting whose
// accuracy is at least the lower bound of the best point's 95% CI), in
// report.html, summary.csv and the CLI table.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/types.js';
import { kneeText, summarize, sweepCurves, sweepKnee, type SweepPoint } from '../../reports/aggregate.js';
import { summaryCsv } from '../../reports/csv.js';
import { renderReport } from '../../reports/html.js';
import { formatTable } from '../../reports/table.js';
import { runResultSchema } from '../../core/schema/run.js';
import { parseCsv } from '../helpers/cli.js';
import { bulkRun } from '../helpers/sample-run.js';

function point(value: number, accuracy: number | undefined, low?: number, high?: number): SweepPoint {
  const p: SweepPoint = { strategy: `s-${value}`, value, passed: 0, attempted: accuracy === undefined ? 0 : 10 };
  if (accuracy !== undefined) p.accuracy = accuracy;
  if (low !== undefined) p.accuracyLow = low;
  if (high !== undefined) p.accuracyHigh = high;
  return p;
}

describe('the knee of a sweep', () => {
  it('is the smallest value at or above the lower CI bound of the best accuracy on a rising curve', () => {
    const knee = sweepKnee([point(16, 0.65, 0.6, 0.7), point(2, 0.3, 0.2, 0.4), point(8, 0.64, 0.55, 0.7), point(4, 0.6, 0.5, 0.7)]);
    expect(knee?.best.value).toBe(16);
    expect(knee?.knee.value).toBe(4);
  });

  it('is the best point itself when nothing smaller comes within its CI', () => {
    const knee = sweepKnee([point(2, 0.2, 0.1, 0.3), point(4, 0.5, 0.4, 0.6), point(8, 0.9, 0.85, 0.95)]);
    expect(knee?.knee.value).toBe(8);
  });

  it('is the smallest setting when the best accuracy is there, or when every point is within the CI', () => {
    expect(sweepKnee([point(2, 0.8, 0.7, 0.9), point(4, 0.7, 0.6, 0.8), point(8, 0.6, 0.5, 0.7)])?.knee.value).toBe(2);
    // A point with errored or unanswered probes is not measured: no knee is read off such a curve.
    expect(sweepKnee([point(2, 0.8, 0.7, 0.9), { ...point(4, 0.9, 0.8, 1), unmeasured: 3 }])).toBeUndefined();
    const curve = { group: 'trim', option: 'max_turns', points: [point(2, 0.8, 0.7, 0.9), { ...point(4, 0.9, 0.8, 1), unmeasured: 3 }] };
    expect(kneeText(curve)).toBe('knee: none (max_turns = 4 has 3 errored or unanswered probes)');
    const flat = sweepKnee([point(2, 0.5, 0.3, 0.7), point(4, 0.55, 0.35, 0.75), point(8, 0.52, 0.3, 0.7)]);
    expect(flat?.best.value).toBe(4);
    expect(flat?.knee.value).toBe(2);
  });

  it('takes the smallest of tied best points, and leaves out points without probes', () => {
    const knee = sweepKnee([point(8, 0.7), point(2, undefined), point(4, 0.7)]);
    expect(knee?.best.value).toBe(4);
    expect(knee?.knee.value).toBe(4);
  });

  it('does not exist without a measured point', () => {
    expect(sweepKnee([])).toBeUndefined();
    expect(sweepKnee([point(2, undefined)])).toBeUndefined();
  });
});

const VALUES = [2, 4, 8, 16];
/** Share of probes each point passes: rising, then flat from 8 on. */
const PASS_SHARE: Record<number, number> = { 2: 0.2, 4: 0.5, 8: 0.8, 16: 0.85 };

/** A trimming sweep over max_turns (trim-2 … trim-16) beside `full`, as a run records it. */
function sweepRun(): RunResult {
  const ids = ['full', ...VALUES.map((v) => `trim-${v}`)];
  const run = bulkRun({
    runId: 'sweep',
    strategies: ids,
    transcripts: 10,
    probesPer: 20,
    passes: (strategy, t, p) => (strategy === 'full' ? true : (t * 20 + p) % 20 < 20 * PASS_SHARE[Number(strategy.slice('trim-'.length))]),
  });
  run.info.strategies = ids.map((id) => {
    if (id === 'full') return { id, use: 'full-history', options: {} };
    const value = Number(id.slice('trim-'.length));
    return { id, use: 'trimming', options: { max_turns: value }, sweep: { group: 'trim', options: { max_turns: value } } };
  });
  // Fewer turns kept, fewer tokens: each point's context is its share of the full one.
  run.turns = run.turns.map((t) => (t.strategy === 'full' ? t : { ...t, contextTokens: Math.round(t.contextTokens * Number(t.strategy.slice('trim-'.length)) / 16) }));
  return run;
}

describe('sweeps in the reports', () => {
  it('groups the points of a sweep, ascending, with accuracy, CI and mean tokens, and names the knee', () => {
    const run = sweepRun();
    const [curve, ...more] = sweepCurves(run, summarize(run));
    expect(more).toEqual([]);
    expect(curve.group).toBe('trim');
    expect(curve.option).toBe('max_turns');
    expect(curve.points.map((p) => [p.value, p.accuracy])).toEqual([[2, 0.2], [4, 0.5], [8, 0.8], [16, 0.85]]);
    expect(curve.points.every((p) => p.accuracyLow !== undefined && p.meanContextTokens !== undefined)).toBe(true);
    expect(curve.knee?.best.strategy).toBe('trim-16');
    expect(curve.knee?.knee.strategy).toBe('trim-8');
    const best = curve.knee?.best;
    const ci = `[${(100 * (best?.accuracyLow ?? 0)).toFixed(1)}, ${(100 * (best?.accuracyHigh ?? 0)).toFixed(1)}]`;
    expect(kneeText(curve)).toBe(`knee: max_turns = 8 (80.0% vs best 85.0% ${ci})`);
  });

  it('reads the sweep back from run.json alone', () => {
    const run = runResultSchema.parse(JSON.parse(JSON.stringify(sweepRun())));
    expect(run.info.strategies[1].sweep).toEqual({ group: 'trim', options: { max_turns: 2 } });
    expect(sweepCurves(run, summarize(run))[0].knee?.knee.value).toBe(8);
  });

  it('draws the curve in report.html with the knee marked and named', () => {
    const html = renderReport(sweepRun());
    const section = html.slice(html.indexOf('<h2 id="sweeps">'), html.indexOf('<h2 id="tradeoff">'));
    expect(html).toContain('<a href="#sweeps">sweeps</a>');
    expect(section).toMatch(/<span class="knee-text">knee: max_turns = 8 \(80\.0% vs best 85\.0% \[\d+\.\d, \d+\.\d\]\)<\/span>/);
    // Two charts (accuracy, tokens), each with the knee line and a marker per point.
    expect(section.match(/<svg class="chart"/g)).toHaveLength(2);
    expect(section.match(/<line class="knee"/g)).toHaveLength(2);
    expect(section.match(/class="pt"/g)).toHaveLength(8);
    expect(section).toContain('aria-label="probe accuracy over trim: max_turns"');
    expect(section).toMatch(/<tr><td class="n">8<\/td><td>trim-8<\/td>.*?<strong>knee<\/strong>/);
  });

  it('leaves report.html without a sweeps section when the run has no sweep', () => {
    const run = sweepRun();
    run.info.strategies = run.info.strategies.map(({ sweep: _sweep, ...rest }) => rest);
    const html = renderReport(run);
    expect(html).not.toContain('id="sweeps"');
    expect(html).not.toContain('href="#sweeps"');
  });

  it('writes the sweep, option, value and knee of each point in summary.csv', () => {
    const [head, ...rows] = parseCsv(summaryCsv(sweepRun()));
    const cells = rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
    const sweep = cells.map((c) => [c.strategy, c.sweep, c.sweep_option, c.sweep_value, c.sweep_knee]);
    expect(sweep).toEqual([
      ['full', '', '', '', ''],
      ['trim-2', 'trim', 'max_turns', '2', 'false'],
      ['trim-4', 'trim', 'max_turns', '4', 'false'],
      ['trim-8', 'trim', 'max_turns', '8', 'true'],
      ['trim-16', 'trim', 'max_turns', '16', 'false'],
    ]);
  });

  it('draws a grid as one curve per value of its second option, each with its knee', () => {
    const run = sweepRun();
    // The same points read as a grid: keep 1 for 2 and 8, keep 2 for 4 and 16.
    run.info.strategies = run.info.strategies.map((s) => {
      if (!s.sweep) return s;
      const turns = s.sweep.options.max_turns;
      return { ...s, sweep: { group: 'trim', options: { max_turns: turns, keep: turns === 2 || turns === 8 ? 1 : 2 } } };
    });
    const curves = sweepCurves(run, summarize(run));
    expect(curves.map((c) => [c.fixed?.value, c.points.map((p) => p.value), c.knee?.knee.value])).toEqual([
      [1, [2, 8], 8],
      [2, [4, 16], 16],
    ]);
    expect(kneeText(curves[0])).toMatch(/^knee at keep = 1: max_turns = 8 /);
    const [head, ...rows] = parseCsv(summaryCsv(run));
    const row = rows.find((r) => r[0] === 'trim-4') ?? [];
    expect([row[head.indexOf('sweep_option')], row[head.indexOf('sweep_value')], row[head.indexOf('sweep_knee')]]).toEqual(['max_turns;keep', '4;2', 'false']);
  });

  it('names the knee under the CLI table', () => {
    expect(formatTable(sweepRun())).toMatch(/^trim: knee: max_turns = 8 \(80\.0% vs best 85\.0% \[/m);
  });
});
