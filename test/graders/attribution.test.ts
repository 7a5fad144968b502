import { describe, expect, it } from 'vitest';
import { answerableOf, attribute, attributeProbe, summariesInView, type AttributionInput } from '../../graders/attribution.js';
import type { Fact, ProbeRecord, SummaryRecord } from '../../core/types.js';

const facts: Fact[] = [
  { id: 'os', text: 'Windows 10', aliases: ['Win10'], turn: 1, critical: true },
  { id: 'serial', text: 'RX-88812', aliases: [], turn: 2, critical: false },
  { id: 'error', text: 'error 42', aliases: [], turn: 5, critical: false },
];

function input(over: Partial<AttributionInput>): AttributionInput {
  return { kind: 'recall', passed: false, factsNeeded: ['os'], factsPresent: [], facts, summaries: [], ...over };
}

describe('attribute', () => {
  it('attributes nothing to a correct answer', () => {
    expect(attribute(input({ passed: true }))).toBeUndefined();
  });
  it('error: the call failed (before anything else)', () => {
    expect(attribute(input({ error: 'HTTP 500', passed: false }))).toBe('error');
    expect(attribute(input({ error: 'timeout', passed: true }))).toBe('error');
  });
  it('abstain-fail: an abstention probe answered with a claim', () => {
    expect(attribute(input({ kind: 'abstention', factsNeeded: [] }))).toBe('abstain-fail');
  });
  it('present-but-missed: every needed fact was in the context', () => {
    expect(attribute(input({ factsNeeded: ['os', 'serial'], factsPresent: ['os', 'serial', 'error'] }))).toBe('present-but-missed');
    expect(attribute(input({ factsNeeded: [] }))).toBe('present-but-missed');
  });
  it('trimmed: the fact turn was cut and no summary stands for it', () => {
    expect(attribute(input({ factsNeeded: ['os'] }))).toBe('trimmed');
    // the summary covers turns 3-4 only; turn 1 was cut
    expect(attribute(input({ summaries: [{ coveredTurns: [3, 4], text: 'Windows 10' }] }))).toBe('trimmed');
  });
  it('lost-in-summary: the fact turn was summarised and the summary lacks it', () => {
    const summaries = [{ coveredTurns: [1, 3] as [number, number], text: 'User on a PC; router fails; serial RX-88812.' }];
    expect(attribute(input({ factsNeeded: ['os'], factsPresent: ['serial'], summaries }))).toBe('lost-in-summary');
  });
  it('prefers trimmed when one missing fact was cut and another summarised away', () => {
    const summaries = [{ coveredTurns: [1, 3] as [number, number], text: 'Router fails.' }];
    expect(attribute(input({ factsNeeded: ['os', 'error'], summaries }))).toBe('trimmed');
  });
});

describe('summariesInView', () => {
  const rec = (index: number, turn: number, covered: [number, number], error?: string): SummaryRecord => ({
    strategy: 's',
    transcript: 't',
    turn,
    coveredTurns: covered,
    index,
    summarizer: 'x',
    request: { system: '', user: '' },
    text: `summary ${index}`,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
    error,
  });
  const records = [rec(1, 4, [1, 2]), rec(2, 6, [1, 4]), rec(3, 8, [1, 6], 'failed'), { ...rec(1, 2, [1, 1]), strategy: 'other' }];
  it('is the newest successful summary made by then', () => {
    expect(summariesInView(records, 's', 't', 3)).toEqual([]);
    expect(summariesInView(records, 's', 't', 5)).toEqual([{ coveredTurns: [1, 2], text: 'summary 1' }]);
    expect(summariesInView(records, 's', 't', 9)).toEqual([{ coveredTurns: [1, 4], text: 'summary 2' }]);
  });
});

describe('attributeProbe', () => {
  const record: ProbeRecord = {
    strategy: 's',
    transcript: 't',
    probe: 'p',
    kind: 'recall',
    afterTurn: 6,
    repeat: 0,
    question: 'Which OS?',
    reference: 'Windows 10',
    contextTokens: 10,
    contextItems: 2,
    factsNeeded: ['os'],
    factsPresent: [],
    factsMissing: ['os'],
    answerable: false,
    answer: 'Linux',
    passed: false,
  };
  it('reads a probe record', () => {
    expect(attributeProbe(record, facts, [])).toBe('trimmed');
    expect(attributeProbe({ ...record, passed: true }, facts, [])).toBeUndefined();
  });
  it('treats a judge error as an error, never a pass', () => {
    const judge = { verdict: 'error' as const, reason: 'reply is not JSON', model: 'openai:j' };
    expect(attributeProbe({ ...record, judge }, facts, [])).toBe('error');
  });
});

describe('answerableOf', () => {
  it('is true when the probe names facts and none is missing, false when one is', () => {
    expect(answerableOf({ kind: 'recall', factsNeeded: ['os'], factsMissing: [] })).toBe(true);
    expect(answerableOf({ kind: 'multi-hop', factsNeeded: ['os', 'serial'], factsMissing: ['serial'] })).toBe(false);
    // An abstention probe that names facts follows the same rule.
    expect(answerableOf({ kind: 'abstention', factsNeeded: ['os'], factsMissing: ['os'] })).toBe(false);
  });

  it('is true for an abstention probe naming no facts, null (unknown) for any other probe naming none', () => {
    expect(answerableOf({ kind: 'abstention', factsNeeded: [], factsMissing: [] })).toBe(true);
    expect(answerableOf({ kind: 'recall', factsNeeded: [], factsMissing: [] })).toBeNull();
    expect(answerableOf({ kind: 'temporal', factsNeeded: [], factsMissing: [] })).toBeNull();
  });
});
