import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerableOf, attribute, attributeByEvidence, attributeProbe, evidenceTurnsOf, inSpans, summariesInView, type AttributionInput, type TurnsInView } from '../../graders/attribution.js';
import type { Fact, ProbeRecord, SummaryRecord, Turn } from '../../core/types.js';
import { locomoSampleToTranscript } from '../../harness/datasets/importers/locomo.js';
import { longMemEvalToTranscript } from '../../harness/datasets/importers/longmemeval.js';

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

describe('inSpans', () => {
  it('finds a turn in ascending runs of turns, and only there', () => {
    const spans = [[1, 2], [5, 5], [9, 12]] as const;
    expect([0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13].filter((t) => inSpans(spans, t))).toEqual([1, 2, 5, 9, 10, 12]);
    expect(inSpans([], 1)).toBe(false);
  });
});

describe('attribute a probe that names no facts', () => {
  // Turns 1-2 cut with a summary standing for them, turns 3-4 cut outright, 5-8 kept.
  const view: TurnsInView = { cutSpans: [[1, 4]], summarizedTurns: [1, 2] };
  const noFacts = (evidenceTurns: number[] | undefined, over: Partial<AttributionInput> = {}) =>
    attribute(input({ factsNeeded: [], evidenceTurns, view, ...over }));

  it('present-but-missed: every evidence turn was in the context', () => {
    expect(noFacts([5, 8])).toBe('present-but-missed');
  });
  it('lost-in-summary: an evidence turn was cut and a summary in the context stands for it', () => {
    expect(noFacts([2, 6])).toBe('lost-in-summary');
    expect(noFacts([1, 2])).toBe('lost-in-summary');
  });
  it('trimmed: an evidence turn was cut with no summary for it (even beside a summarised one)', () => {
    expect(noFacts([3])).toBe('trimmed');
    expect(noFacts([1, 4, 7])).toBe('trimmed');
  });
  it('unknown: no facts and no evidence, or no view to place the evidence in', () => {
    expect(noFacts(undefined)).toBe('unknown');
    expect(noFacts([])).toBe('unknown');
    expect(attribute(input({ factsNeeded: [], evidenceTurns: [3] }))).toBe('unknown');
    expect(attributeByEvidence([], view)).toBe('unknown');
  });
  it('keeps error, a pass and abstain-fail ahead of the evidence', () => {
    expect(noFacts([3], { error: 'HTTP 500' })).toBe('error');
    expect(noFacts([3], { passed: true })).toBeUndefined();
    expect(noFacts(undefined, { kind: 'abstention' })).toBe('abstain-fail');
  });
  it('opaque: a cut evidence turn a server compacted, unless another was trimmed outright', () => {
    const compacted: TurnsInView = { cutSpans: [[1, 4], [6, 6]], summarizedTurns: [], opaqueUpTo: 4 };
    expect(attributeByEvidence([2, 5], compacted)).toBe('opaque');
    expect(attributeByEvidence([2, 6], compacted)).toBe('trimmed');
    expect(attributeByEvidence([5, 7], compacted)).toBe('present-but-missed');
  });
  it('reads facts, not evidence, when the probe names facts', () => {
    expect(attribute(input({ factsNeeded: ['os'], factsPresent: ['os'], evidenceTurns: [3], view }))).toBe('present-but-missed');
  });
});

describe('evidenceTurnsOf', () => {
  const fixtures = join(import.meta.dirname, '../fixtures/importers');
  const read = (name: string) => JSON.parse(readFileSync(join(fixtures, name), 'utf8')) as unknown[];

  it('resolves LoCoMo dialogue ids through the turns\' dia_ids, leniently written ids too', () => {
    const t = locomoSampleToTranscript(read('locomo-mini.json')[0], 0);
    const turnOf = (id: string) => t.turns.findIndex((turn) => ((turn.meta?.dia_ids as string[] | undefined) ?? []).includes(id)) + 1;
    const byQuestion = (evidence: string[]) => t.probes.find((p) => JSON.stringify(p.meta?.evidence) === JSON.stringify(evidence))!;
    // A fact-less probe of the fixture: its evidence utterance does not state the answer word for word.
    const weekend = t.probes.find((p) => p.answer.startsWith('The weekend before'))!;
    expect(weekend.facts).toEqual([]);
    expect(evidenceTurnsOf(weekend, t.turns)).toEqual([turnOf('D2:1')]);
    expect(turnOf('D2:1')).toBeGreaterThan(0);
    // "(D2:2)" and "D10:1:5" (read as D10:1, as the importer reads it) are written leniently; "D:12" and "D10" name no dialogue.
    expect(turnOf('D10:1')).toBeGreaterThan(turnOf('D2:2'));
    expect(evidenceTurnsOf(byQuestion(['D10:1:5', 'D:12', 'D10', '(D2:2)']), t.turns)).toEqual([turnOf('D2:2'), turnOf('D10:1')]);
    // The importer splits "D1:1; D1:5" into two ids.
    expect(evidenceTurnsOf(byQuestion(['D1:1', 'D1:5']), t.turns)).toEqual([...new Set([turnOf('D1:1'), turnOf('D1:5')])].sort((a, b) => a - b));
    expect(evidenceTurnsOf(byQuestion(['D99:1']), t.turns)).toEqual([]);
  });

  it('reads LongMemEval evidence turns, else the turns of the answer sessions', () => {
    const [, update] = read('longmemeval-mini.json').map((x, i) => longMemEvalToTranscript(x, i));
    const probe = update.probes[0];
    expect(evidenceTurnsOf(probe, update.turns)).toEqual(probe.meta?.evidence_turns);
    const sessions = { ...probe, meta: { answer_session_ids: ['answer_ku_2'] } };
    const head = update.turns.findIndex((turn) => turn.meta?.session_id === 'answer_ku_2') + 1;
    expect(head).toBeGreaterThan(0);
    expect(evidenceTurnsOf(sessions, update.turns)[0]).toBe(head);
  });

  it('keeps turns at or before the probe, and is empty without evidence', () => {
    const turns: Turn[] = [1, 2, 3].map((n) => ({ kind: 'message', user: `u${n}`, toolCalls: [], meta: { dia_ids: [`D1:${n}`] } }));
    expect(evidenceTurnsOf({ afterTurn: 2, meta: { evidence: ['D1:1', 'D1:3'] } }, turns)).toEqual([1]);
    expect(evidenceTurnsOf({ afterTurn: 3, meta: { evidence_turns: [3, 1, 9] } }, turns)).toEqual([1, 3]);
    // Ids packed in one entry, or written leniently.
    expect(evidenceTurnsOf({ afterTurn: 3, meta: { evidence: ['D1:2; d1:03'] } }, turns)).toEqual([2, 3]);
    expect(evidenceTurnsOf({ afterTurn: 3, meta: {} }, turns)).toEqual([]);
    expect(evidenceTurnsOf({ afterTurn: 3 }, turns)).toEqual([]);
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
  it('places a record that names no facts by its evidence turns in the view given, else unknown', () => {
    const bare = { ...record, factsNeeded: [], factsMissing: [], answerable: null };
    expect(attributeProbe(bare, facts, [])).toBe('unknown');
    expect(attributeProbe({ ...bare, evidenceTurns: [2] }, facts, [])).toBe('unknown');
    expect(attributeProbe({ ...bare, evidenceTurns: [2] }, facts, [], { cutSpans: [[1, 2]], summarizedTurns: [] })).toBe('trimmed');
    expect(attributeProbe({ ...bare, evidenceTurns: [3] }, facts, [], { cutSpans: [[1, 2]], summarizedTurns: [] })).toBe('present-but-missed');
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
