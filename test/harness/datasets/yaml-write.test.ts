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
          { role: 'user', content: 'Reset done on v1.0.3; error 42 now.' },
          { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Install the new firmware.' }] },
        ],
        meta: { note: 'raw' },
      },
      { kind: 'message', user: 'Last one: v2.0.0 is out', at: '2025-03-02T10:32:00Z', toolCalls: [], meta: { k: [1, 2] } },
    ],
    facts: [
      { id: 'old', text: 'v1.0.3', aliases: ['1.0.3'], turn: awkward.length + 1, critical: true, supersededBy: 'new' },
      { id: 'new', text: 'v2.0.0', aliases: [], turn: awkward.length + 2, critical: false, meta: { why: 'update' } },
    ],
    probes: [{ id: 'p1', afterTurn: awkward.length + 2, question: 'Which version?', answer: 'v2.0.0', mustInclude: [['v2.0.0', '2.0.0']], facts: ['new'], kind: 'update', meta: { m: true } }],
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

  describe('unportable characters', () => {
    const long = 'a line long enough to be written as a block string by the writer, were it printable';
    const unportable = [
      'line\u2028separator',
      'paragraph\u2029separator',
      'next\u0085line',
      '\ufeffbyte order mark',
      'inner \ufeff mark',
      'c1 \u0080 \u009b \u009f controls',
      'c0 \u0000 \u0007 \u001b \u007f controls',
      'lone \ud800 surrogate',
      `${long}\u2028`,
      `${long}\nsecond line with \u0085 in it\nthird \u2029`,
      `carriage\rreturn ${long}`,
    ];
    const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;

    function withText(): Transcript {
      const t = sample();
      t.turns = unportable.map((text) => ({ kind: 'message' as const, user: text, assistant: text, toolCalls: [{ name: 'look', arguments: { [`key ${text}`]: text }, output: text }] }));
      t.facts = [];
      t.probes = [{ id: 'p1', afterTurn: 1, question: 'q\u2028?', answer: 'ok\u0085', mustInclude: [['ok\u0085']], facts: [], kind: 'recall' }];
      return t;
    }

    it('escapes them in double quotes, so the text holds none raw', () => {
      const yaml = transcriptToYaml(withText());
      expect(yaml).not.toMatch(RAW);
      expect(yaml).toContain('"line\\Lseparator"');
      expect(yaml).toContain('"paragraph\\Pseparator"');
      expect(yaml).toContain('"next\\Nline"');
      expect(yaml).toContain('"\\uFEFFbyte order mark"');
      expect(yaml).toContain('\\x9B');
    });

    it('round-trips them exactly through YAML 1.2 and 1.1 readers, keys included', () => {
      for (const version of ['1.2', '1.1'] as const) {
        const doc = parse(transcriptToYaml(withText()), { version }) as { turns: { user: string; tool_calls: { output: string; arguments: Record<string, string> }[] }[] };
        unportable.forEach((text, i) => {
          const turn = doc.turns[i];
          expect([turn.user, turn.tool_calls[0].output, turn.tool_calls[0].arguments[`key ${text}`]], `${version}: ${JSON.stringify(text)}`).toEqual([text, text, text]);
        });
      }
    });

    it('writes files the transcript loader reads back unchanged', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'memeval-yw-'));
      try {
        const path = join(dir, 'unportable.yaml');
        await writeTranscriptFile(path, withText());
        expect({ ...loadTranscriptFile(path), file: '' }).toEqual({ ...withText(), file: '' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('keeps block strings for printable multi-line text', () => {
      expect(transcriptToYaml(sample())).toContain('  - user: |-\n');
    });
  });
});
