import { describe, expect, it } from 'vitest';
import { aggregateDrift, driftSeries, summaryDrift } from '../../graders/drift.js';
import type { SummaryRecord, Transcript } from '../../core/types.js';

const transcript: Transcript = {
  id: 'router',
  tags: [],
  file: 'router.yaml',
  probes: [],
  turns: [],
  facts: [
    { id: 'os', text: 'Windows 10', aliases: [], turn: 1, critical: true },
    { id: 'serial', text: 'RX-88812', aliases: [], turn: 2, critical: false },
    { id: 'fw-old', text: 'v1.0.3', aliases: ['1.0.3'], turn: 2, critical: false, supersededBy: 'fw-new' },
    { id: 'fw-new', text: 'v1.0.4', aliases: ['1.0.4'], turn: 3, critical: false },
    { id: 'error', text: 'error 42', aliases: [], turn: 4, critical: false },
  ],
};

function rec(index: number, text: string, strategy = 'summarize'): SummaryRecord {
  return {
    strategy,
    transcript: 'router',
    turn: 2 * index + 1,
    coveredTurns: [1, 2 * index],
    index,
    summarizer: 'hand',
    request: { system: '', user: '' },
    text,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
}

const s1 = rec(1, 'Windows 10 laptop; serial RX-88812; firmware v1.0.3.');
const s2 = rec(2, 'Windows 10; firmware updated to v1.0.4; now error 42.');
const s3 = rec(3, 'Windows 10; firmware v1.0.3; error 42 persists.');

describe('summary drift over three summaries', () => {
  it('second summary: the serial is lost, the firmware moved on', () => {
    expect(summaryDrift(transcript, s1, s2)).toEqual({ lost: ['serial'], changed: ['fw-old→fw-new'], reverted: [] });
  });
  it('third summary: the update was undone (context poisoning)', () => {
    expect(summaryDrift(transcript, s2, s3)).toEqual({ lost: [], changed: [], reverted: ['fw-new→fw-old'] });
  });
  it('a stable re-summary has no drift', () => {
    expect(summaryDrift(transcript, s2, rec(3, 'Error 42 on Windows 10 with v1.0.4.'))).toEqual({ lost: [], changed: [], reverted: [] });
  });
  it('series compares each summary with the one before, in index order', () => {
    expect(driftSeries(transcript, [s3, s1, s2])).toEqual([
      { index: 2, drift: { lost: ['serial'], changed: ['fw-old→fw-new'], reverted: [] } },
      { index: 3, drift: { lost: [], changed: [], reverted: ['fw-new→fw-old'] } },
    ]);
  });
  it('aggregates per strategy', () => {
    const graded = driftSeries(transcript, [s1, s2, s3]).map(({ index, drift }) => ({
      ...rec(index, ''),
      grades: { checks: {} as never, drift },
    }));
    const other = { ...rec(2, '', 'other'), grades: { checks: {} as never, drift: { lost: [], changed: [], reverted: [] } } };
    expect(aggregateDrift([s1, ...graded, other])).toEqual([
      { strategy: 'other', transitions: 1, lost: 0, changed: 0, reverted: 0, transitionsWithLoss: 0 },
      { strategy: 'summarize', transitions: 2, lost: 1, changed: 1, reverted: 1, transitionsWithLoss: 2 },
    ]);
  });
});
