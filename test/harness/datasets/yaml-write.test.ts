import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadTranscriptFile } from '../../../harness/datasets/transcript.js';
import type { Transcript } from '../../../core/types.js';
import { transcriptToYaml, writeTranscriptFile } from '../../../harness/datasets/yaml-write.js';

const awkward = [
  '  leading spaces, then a line long enough to be written as a block string by the writer',
  'trailing spaces   \nnext line',
  'tab\tinside a line long enough to be written as a block string by the writer, surely',
  'windows\r\nline end',
  'control \u0001 character',
  '\nstarts with a newline',
  'ends with newlines\n\n',
  '#hash: colon - dash',
  'yes',
  '2025-01-01',
  '0x1F',
  '- looks like a list item',
  'x'.repeat(120),
];

function sample(): Transcript {
  return {
    id: 'writer-sample',
    title: 'Writer sample',
    tags: ['t1'],
    system: 'Be brief.',
    turns: [
      ...awkward.map((text) => ({ kind: 'message' as const, user: text, assistant: text, toolCalls: [{ name: 'look', arguments: { q: text }, output: text }] })),
      {
        kind: 'items',
        items: [
          { role: 'user', content: 'Reset done; error 42 now.' },
          { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Install the new firmware.' }] },
        ],
        meta: { note: 'raw' },
      },
      { kind: 'message', user: 'Last one', at: '2025-03-02T10:32:00Z', toolCalls: [], meta: { k: [1, 2] } },
    ],
    facts: [
      { id: 'old', text: 'v1.0.3', aliases: ['1.0.3'], turn: 1, critical: true, supersededBy: 'new' },
      { id: 'new', text: 'v2.0.0', aliases: [], turn: 2, critical: false, meta: { why: 'update' } },
    ],
    probes: [{ id: 'p1', afterTurn: 3, question: 'Which version?', answer: 'v2.0.0', mustInclude: [['v2.0.0', '2.0.0']], facts: ['new'], kind: 'update', meta: { m: true } }],
    file: 'ignored.yaml',
    meta: { source: 'test' },
  };
}

describe('transcriptToYaml', () => {
  it('round-trips awkward strings exactly', () => {
    const doc = parse(transcriptToYaml(sample())) as { turns: { user: string; assistant: string; tool_calls: { output: string; arguments: { q: string } }[] }[] };
    awkward.forEach((text, i) => {
      const turn = doc.turns[i];
      expect([turn.user, turn.assistant, turn.tool_calls[0].output, turn.tool_calls[0].arguments.q]).toEqual([text, text, text, text]);
    });
  });

  it('uses the key order of the spec and block strings for long text', () => {
    const yaml = transcriptToYaml(sample());
    const doc = parse(yaml) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['id', 'title', 'tags', 'system', 'turns', 'facts', 'probes', 'meta']);
    const turns = doc.turns as Record<string, unknown>[];
    expect(Object.keys(turns[0])).toEqual(['user', 'tool_calls', 'assistant']);
    expect(Object.keys(turns[turns.length - 1])).toEqual(['user', 'at', 'meta']);
    expect(Object.keys((doc.facts as object[])[0])).toEqual(['id', 'text', 'aliases', 'turn', 'critical', 'superseded_by']);
    expect(Object.keys((doc.probes as object[])[0])).toEqual(['id', 'after_turn', 'question', 'answer', 'must_include', 'facts', 'kind', 'meta']);
    expect(yaml).toContain(`  - user: |-\n      ${'x'.repeat(120)}\n`);
    expect(yaml).not.toContain('file:');
  });

  it('is deterministic', () => {
    expect(transcriptToYaml(sample())).toBe(transcriptToYaml(sample()));
  });

  it('writes files the transcript loader accepts and reads back unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-yw-'));
    try {
      const path = join(dir, 'nested', 'writer-sample.yaml');
      await writeTranscriptFile(path, sample());
      const loaded = loadTranscriptFile(path);
      expect({ ...loaded, file: '' }).toEqual({ ...sample(), file: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
