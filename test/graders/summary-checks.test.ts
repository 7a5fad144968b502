import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkSummary,
  dueFacts,
  identifiersIn,
  parsePromptHeadings,
  unsupportedIdentifiers,
} from '../../graders/summary-checks.js';
import { countWords } from '../../core/text.js';
import { SUMMARY_HEADINGS } from '../../strategies/offline-summarizer.js';
import type { SummaryRecord, Transcript } from '../../core/types.js';

const cookbookPrompt = readFileSync(new URL('../../strategies/prompts/cookbook-summary.md', import.meta.url), 'utf8');

const transcript: Transcript = {
  id: 'router',
  tags: [],
  file: 'router.yaml',
  probes: [],
  turns: [
    { kind: 'message', user: "My AX3000 router won't connect. I'm on Windows 10.", assistant: 'Which firmware?', toolCalls: [] },
    {
      kind: 'message',
      user: 'Firmware v1.0.3 (checked 2025-03-02T10:32:00Z).',
      toolCalls: [{ name: 'lookup_device', arguments: { serial: 'RX-88812' }, output: '{"model":"AX3000","firmware":"1.0.3"}' }],
      assistant: 'Try a factory reset.',
    },
    { kind: 'message', user: 'Updated to v1.0.4, now error 42.', assistant: 'Noted.', toolCalls: [] },
    { kind: 'message', user: 'This is my third call.', assistant: 'Sorry about that.', toolCalls: [] },
    { kind: 'message', user: 'Ticket #4417 please.', assistant: 'Done.', toolCalls: [] },
  ],
  facts: [
    { id: 'os', text: 'Windows 10', aliases: ['Win10'], turn: 1, critical: true },
    { id: 'serial', text: 'RX-88812', aliases: [], turn: 2, critical: false },
    { id: 'fw-old', text: 'v1.0.3', aliases: ['1.0.3'], turn: 2, critical: false, supersededBy: 'fw-new' },
    { id: 'fw-new', text: 'v1.0.4', aliases: ['1.0.4'], turn: 3, critical: false },
    { id: 'error', text: 'error 42', aliases: [], turn: 3, critical: false },
    { id: 'ticket', text: '#4417', aliases: ['4417'], turn: 5, critical: false },
  ],
};

function summary(text: string, system = cookbookPrompt): SummaryRecord {
  return {
    strategy: 's',
    transcript: 'router',
    turn: 5,
    coveredTurns: [1, 4],
    index: 1,
    summarizer: 'hand',
    request: { system, user: '' },
    text,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
}

const good = `• Product & Environment:
  - AX3000 router, Windows 10, firmware v1.0.4 (was 1.0.3).
• Reported Issue:
  - Router will not connect; error 42 after the update.
• Steps Tried & Results:
  - Factory reset; updated firmware; error 42.
• Identifiers:
  - Serial RX-88812.
• Timeline Milestones:
  - 10:32 firmware reported; later update; 3rd call.
• Tool Performance Insights:
  - lookup_device worked.
• Current Status & Blockers:
  - Unresolved.
• Next Recommended Step:
  - Check error 42 handling.`;

describe('parsePromptHeadings', () => {
  it('finds the eight cookbook headings', () => {
    // The offline summarizer writes the cookbook prompt's headings: the two lists must agree.
    expect(parsePromptHeadings(cookbookPrompt)).toEqual([...SUMMARY_HEADINGS]);
  });
});

describe('checkSummary', () => {
  it('passes a complete, faithful summary', () => {
    const c = checkSummary(transcript, summary(good), { wordLimit: 200 });
    // fw-old is not due: its replacement fw-new is also in turns 1-4; ticket (turn 5) is outside
    expect(dueFacts(transcript.facts, [1, 4]).map((f) => f.id)).toEqual(['os', 'serial', 'fw-new', 'error']);
    expect(c.factsKept).toEqual(['os', 'serial', 'fw-new', 'error']);
    expect(c.factsMissing).toEqual([]);
    expect(c.factCoverage).toBe(1);
    // 10:32 comes from the timestamp, "3rd" from "third", 1.0.3 from v1.0.3
    expect(c.unsupported).toEqual([]);
    expect(c.headingsMissing).toEqual([]);
    expect(c.staleFacts).toEqual([]);
    expect(c.overLimit).toBe(false);
    expect(c.wordLimit).toBe(200);
  });

  it('flags a hallucinated serial and counts it against the source', () => {
    const text = good.replace('RX-88812', 'RX-88813').replace('lookup_device worked.', 'lookup_device worked; ticket #9001 opened.');
    const c = checkSummary(transcript, summary(text), { wordLimit: 200 });
    expect(c.unsupported).toEqual(['RX-88813', '#9001']);
    expect(c.factsMissing).toEqual(['serial']);
    expect(c.factCoverage).toBe(0.75);
  });

  it('flags a missing heading', () => {
    const text = good.replace('• Tool Performance Insights:\n  - lookup_device worked.\n', '');
    expect(checkSummary(transcript, summary(text), { wordLimit: 200 }).headingsMissing).toEqual(['Tool Performance Insights']);
  });

  it('requires no headings when the prompt names none', () => {
    expect(checkSummary(transcript, summary('Windows 10 user.', 'Summarise briefly.'), { wordLimit: 200 }).headingsMissing).toEqual([]);
  });

  it('checks the word limit (bullets are not words)', () => {
    expect(checkSummary(transcript, summary('• one two\n  - three, four.'), { wordLimit: 4 })).toMatchObject({ words: 4, overLimit: false });
    const c = checkSummary(transcript, summary(good), { wordLimit: 20 });
    expect(c.words).toBe(countWords(good, 'words'));
    expect(c.words).toBeGreaterThan(20);
    expect(c.overLimit).toBe(true);
  });

  it('flags a superseded fact stated without its update', () => {
    const text = good.replace('firmware v1.0.4 (was 1.0.3)', 'firmware v1.0.3');
    const c = checkSummary(transcript, summary(text), { wordLimit: 200 });
    expect(c.staleFacts).toEqual(['fw-old']);
    expect(c.factsMissing).toEqual(['fw-new']);
  });
});

describe('identifiers', () => {
  it('picks codes, numbers, versions and e-mails, not plain words', () => {
    expect(identifiersIn('Serial RX-88812, v1.0.3 at 10:32; mail a@b.io; code ERR-ALPHA; fine words.')).toEqual([
      'RX-88812',
      'v1.0.3',
      '10:32',
      'a@b.io',
      'ERR-ALPHA',
    ]);
  });
  it('reports how many were checked', () => {
    expect(unsupportedIdentifiers('v1.0.3 and v2.0', 'firmware 1.0.3')).toEqual({ checked: 2, unsupported: ['v2.0'] });
  });
});
