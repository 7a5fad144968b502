import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { turnItems } from '../../../core/items.js';
import { loadTranscriptFile, parseTranscript } from '../../../harness/datasets/transcript.js';

describe('loading valid transcripts', () => {
  it('loads the cookbook trimming transcript with its raw items verbatim', () => {
    const t = loadTranscriptFile('datasets/cookbook/trimming-laptop.yaml');
    expect(t.id).toBe('cookbook-trimming-laptop');
    expect(t.tags).toEqual(['cookbook', 'parity']);
    expect(t.system).toMatch(/^You are a patient/);
    expect(t.turns).toHaveLength(5);
    const first = t.turns[0];
    expect(first.kind).toBe('items');
    if (first.kind !== 'items') return;
    expect(first.items).toHaveLength(3);
    expect(first.items[0]).toEqual({ role: 'user', content: 'There is a red light blinking on my laptop.' });
    expect(first.items[1]).toEqual({ type: 'reasoning', id: 'rs_68be66229c008190aa4b3c5501f397080fdfa41323fb39cb', summary: [], content: [] });
    expect(first.items[2]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(t.turns[4]).toEqual({ kind: 'message', user: 'Yes, I see error 404 now.', assistant: 'Do you see it on the browser while accessing a website?', toolCalls: [] });
    expect(t.facts).toEqual([]);
    expect(t.probes).toEqual([]);
    expect(t.file).toBe('datasets/cookbook/trimming-laptop.yaml');
  });

  it('loads the cookbook summarizing transcript with facts and probes', () => {
    const t = loadTranscriptFile('datasets/cookbook/summarizing-router.yaml');
    expect(t.id).toBe('cookbook-summarizing-router');
    expect(t.turns.every((turn) => turn.kind === 'message')).toBe(true);
    expect(t.facts.map((f) => f.id)).toEqual(['os', 'region', 'tier', 'firmware', 'error42']);
    expect(t.facts[0]).toEqual({ id: 'os', text: 'Windows 10', aliases: [], turn: 1, critical: true });
    expect(t.facts[3]).toEqual({ id: 'firmware', text: 'v1.0.3', aliases: ['1.0.3'], turn: 2, critical: false });
    expect(t.probes[0]).toEqual({
      id: 'os',
      afterTurn: 5,
      question: 'Which operating system am I using again?',
      answer: 'Windows 10',
      mustInclude: [['Windows 10']],
      facts: ['os'],
      kind: 'recall',
    });
  });

  it('maps every field of the format', () => {
    const t = loadTranscriptFile('test/fixtures/transcript-rich.yaml');
    expect(t.id).toBe('rich-router');
    expect(t.title).toBe('Router will not connect after a firmware update');
    expect(t.tags).toEqual(['support', 'long-range']);
    expect(t.system).toBe('You are a patient, step-by-step IT support assistant.\n');
    expect(t.meta).toEqual({ author: 'qa', reviewed: true, notes: ['first draft'] });
    expect(t.turns).toHaveLength(4);
    expect(t.turns[0]).toEqual({
      kind: 'message',
      user: "Hi, my router won't connect. I'm on Windows 10 and a Premium customer.",
      assistant: "Let's check your firmware version.",
      toolCalls: [],
      meta: { source: 'ticket-17' },
    });
    expect(t.turns[1]).toEqual({
      kind: 'message',
      user: 'Firmware v1.0.3; still failing.',
      at: '2025-03-02T10:32:00Z',
      assistant: 'Try a factory reset.',
      toolCalls: [
        { name: 'lookup_device', arguments: { serial: 'RX-88812', verbose: false }, output: '{"model":"AX3000","firmware":"1.0.3"}' },
        { name: 'ping', arguments: '{"host":"192.168.0.1"}', output: 'timeout' },
      ],
    });
    // call_id (Responses API spelling) is normalised to the SDK's callId.
    expect(t.turns[2]).toEqual({
      kind: 'items',
      meta: { pasted: true },
      items: [
        { role: 'user', content: 'Reset done; error 42 now.' },
        { type: 'function_call', callId: 'call_fw', name: 'check_update', arguments: '{"model":"AX3000"}' },
        { type: 'function_call_result', callId: 'call_fw', name: 'check_update', status: 'completed', output: 'v1.1.0 available' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Install the new firmware v1.1.0.' }] },
      ],
    });
    expect(t.turns[3]).toEqual({ kind: 'message', user: 'Installed v1.1.0, it works now.', toolCalls: [] });
    expect(t.facts[0]).toEqual({ id: 'os', text: 'Windows 10', aliases: ['Win10'], turn: 1, critical: true, meta: { pii: false } });
    expect(t.facts[2]).toEqual({ id: 'firmware-old', text: 'v1.0.3', aliases: ['1.0.3'], turn: 2, critical: false, supersededBy: 'firmware-new' });
    expect(t.probes.map((p) => [p.id, p.kind, p.afterTurn])).toEqual([
      ['which-os', 'recall', 3],
      ['firmware-now', 'update', 4],
      ['pet-name', 'abstention', 4],
    ]);
    expect(t.probes[0].mustInclude).toEqual([['Windows 10', 'Win10']]);
    expect(t.probes[0].meta).toEqual({ difficulty: 'easy' });
    // A bare string for the whole field is one entry.
    expect(t.probes[1].mustInclude).toEqual([['v1.1.0']]);
    expect(t.probes[2]).toEqual({
      id: 'pet-name',
      afterTurn: 4,
      question: 'What is my cat called?',
      answer: 'The customer never said.',
      mustInclude: [],
      facts: [],
      kind: 'abstention',
    });
  });

  it('replays tool calls as paired SDK items with arguments sent as JSON strings', () => {
    const t = loadTranscriptFile('test/fixtures/transcript-rich.yaml');
    const items = turnItems(t.turns[1], 2);
    expect(items.map((i) => (i as { type?: string }).type)).toEqual([
      'message', 'function_call', 'function_call_result', 'function_call', 'function_call_result', 'message',
    ]);
    expect(items[1]).toMatchObject({ name: 'lookup_device', arguments: '{"serial":"RX-88812","verbose":false}' });
    expect(items[3]).toMatchObject({ name: 'ping', arguments: '{"host":"192.168.0.1"}' });
  });

  it('defaults the id to the file name and applies field defaults', () => {
    const t = parseTranscript('turns:\n  - user: hi, I like apple pie\nfacts:\n  - { id: a, text: apple, turn: 1 }\nprobes:\n  - { id: p, after_turn: 1, question: q, answer: apple }\n', 'sets/My Case.yml');
    expect(t.id).toBe('My Case');
    expect(t.tags).toEqual([]);
    expect(t.facts[0]).toEqual({ id: 'a', text: 'apple', aliases: [], turn: 1, critical: false });
    expect(t.probes[0]).toMatchObject({ kind: 'recall', mustInclude: [], facts: [] });
    expect(t.turns[0]).toEqual({ kind: 'message', user: 'hi, I like apple pie', toolCalls: [] });
  });

  it('keeps numbers written as text in their source spelling and defaults tool arguments to {}', () => {
    const yaml = [
      'turns:',
      '  - user: 42',
      '    tool_calls:',
      '      - { name: add, output: 3.10 }',
      'facts:',
      '  - { id: ver, text: 3.10, turn: 1 }',
      'probes:',
      '  - { id: p, after_turn: 1, question: q, answer: 3.10, must_include: [3.10, [x, 7]] }',
    ].join('\n');
    const t = parseTranscript(yaml, 'n.yaml');
    expect(t.turns[0]).toEqual({ kind: 'message', user: '42', toolCalls: [{ name: 'add', arguments: {}, output: '3.10' }] });
    expect(t.facts[0].text).toBe('3.10');
    expect(t.probes[0].answer).toBe('3.10');
    expect(t.probes[0].mustInclude).toEqual([['3.10'], ['x', '7']]);
  });

  it('resolves YAML anchors and aliases', () => {
    const yaml = ['turns:', '  - &t { user: same question }', '  - *t', 'probes:', '  - { id: p, after_turn: 2, question: q, answer: a }'].join('\n');
    const t = parseTranscript(yaml, 'a.yaml');
    expect(t.turns).toEqual([
      { kind: 'message', user: 'same question', toolCalls: [] },
      { kind: 'message', user: 'same question', toolCalls: [] },
    ]);
  });
});

describe("raw items are checked with the Agents SDK's item schemas", () => {
  const itemsTurn = (...items: string[]) => ['turns:', '  - items:', ...items.map((i) => `      - ${i}`)].join('\n');

  it('keeps items verbatim, without a status the SDK would require but transcripts may leave out', () => {
    const t = parseTranscript(
      itemsTurn(
        '{ type: function_call, call_id: c1, name: f, arguments: "{}" }',
        '{ type: function_call_result, callId: c1, name: f, output: done }',
        '{ role: assistant, content: [{ type: output_text, text: ok }] }',
      ),
      'i.yaml',
    );
    expect(t.turns[0]).toEqual({
      kind: 'items',
      items: [
        { type: 'function_call', callId: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_result', callId: 'c1', name: 'f', output: 'done' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      ],
    });
  });

  it("rejects what the SDK's schemas reject, at the field", () => {
    const problems = (yaml: string) => {
      try {
        parseTranscript(yaml, 'i.yaml');
      } catch (e) {
        return (e as Error).message.split('\n');
      }
      throw new Error('expected an InputError');
    };
    expect(problems(itemsTurn('{ type: web_search }'))).toEqual([
      expect.stringMatching(/^i\.yaml:3:17: "type" in item 1 of turn 1 must be one of .*function_call_result.*, not "web_search"$/),
    ]);
    expect(problems(itemsTurn('{ role: user, content: [{ type: input_text }] }'))).toEqual([
      'i.yaml:3:33: entry 1 of "content" in item 1 of turn 1 is missing "text"',
    ]);
    expect(problems(itemsTurn('{ role: assistant, status: done, content: [] }'))).toEqual([
      'i.yaml:3:36: "status" in item 1 of turn 1 must be one of in_progress, completed, incomplete, not "done"',
    ]);
  });
});

describe('the transcript format document', () => {
  it('its full example loads as written', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'transcript-format.md'), 'utf8');
    const start = doc.indexOf('```yaml\nid: router-firmware');
    expect(start).toBeGreaterThan(-1);
    const example = doc.slice(start + '```yaml\n'.length, doc.indexOf('```', start + 8));
    const t = parseTranscript(example, 'docs/transcript-format.md');
    expect(t.id).toBe('router-firmware');
    expect(t.probes.map((p) => p.id)).toEqual(['which-os', 'recheck-device', 'firmware-from-memory']);
  });
});
