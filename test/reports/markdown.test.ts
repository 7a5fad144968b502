import { describe, expect, it } from 'vitest';
import { diffRuns } from '../../reports/diff.js';
import { evaluateGates } from '../../reports/gate.js';
import { diffMarkdown, gateMarkdown, mdCell } from '../../reports/markdown.js';
import { bulkRun, sampleRun } from '../helpers/sample-run.js';

describe('gate.md', () => {
  const run = sampleRun();
  const md = gateMarkdown(run, evaluateGates(run, [{ metric: 'probe.reader_gap', strategy: 'summ', max: 0.2, where: 'memeval.config.yaml:3:5' }]));

  it('shows accuracy, answerable rate and reader gap per strategy, each with its counts', () => {
    expect(md).toContain('| strategy | accuracy (passed/attempted) | answerable (of known) | reader gap (missed/answerable) |');
    expect(md).toContain('| full | 90.0% (9/10) | 100.0% (10/10) | 10.0% (1/10) |');
    // trim-2's errored answer stays among the answerable as a miss.
    expect(md).toContain('| trim-2 | 70.0% (7/10) | 80.0% (8/10) | 12.5% (1/8) |');
    expect(md).toContain('| summ | 70.0% (7/10) | 100.0% (10/10) | 30.0% (3/10) |');
    expect(md).toContain('a miss there is the strategy losing it');
    expect(md).toContain('are unknown and left out');
  });

  it('carries the reader-gap gate verdict', () => {
    expect(md).toContain('| ❌ fail | summ | probe.reader_gap | 0.3000 |');
    expect(md).toContain('summ probe.reader_gap = 0.3 over 10 probes > max 0.2 — FAIL'); // escaped for the table cell
  });

  it('shows – for a run recorded before answerable existed', () => {
    const old = sampleRun();
    for (const p of old.probes) p.answerable = null;
    expect(gateMarkdown(old, [])).toContain('| full | 90.0% (9/10) | – | – |');
  });
});

describe('diff.md', () => {
  it('lists a reader gap that moved among the metric changes', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 4, probesPer: 4, passes: () => true });
    const cand = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 4, probesPer: 4, passes: (_s, t, p) => !(t === 0 && p === 0) });
    const md = diffMarkdown(diffRuns(base, cand));
    expect(md).toContain('| s | probe.reader_gap | 0 | 0.0625 | +0.0625 ⚠️ |');
    // Every probe kept its facts in both runs: the answerable rate did not move, so it is not listed.
    expect(md).not.toContain('probe.answerable |');
  });
});

describe('mdCell', () => {
  it('keeps a cell on its row whatever line break the text holds, a lone CR included', () => {
    for (const brk of ['\n', '\r\n', '\r', '\u2028', '\u0085']) expect(mdCell(`T${brk}X|Y`)).toBe('T X\\|Y');
  });
});
