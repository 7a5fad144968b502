import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, fileProblem, formatProblem, isInputError, problemAt } from '../../../core/errors.js';
import { loadCalibrationSet } from '../../../harness/datasets/calibration.js';
import { loadSuite, loadTranscriptFile, parseTranscript } from '../../../harness/datasets/transcript.js';
import { DEFAULT_LIMITS, type Limits } from '../../../harness/schema/limits.js';
import { thrown } from '../../helpers/errors.js';

const FILE = 'datasets/x.yaml';

/** Formatted problem lines of a transcript that must fail to load. */
function problems(lines: string[]): string[] {
  try {
    parseTranscript(lines.join('\n'), FILE);
  } catch (e) {
    expect(isInputError(e)).toBe(true);
    return (e as InputError).message.split('\n');
  }
  throw new Error('expected an InputError');
}


/** Runs `load` and says how long it took, so a test can hold a loader to a time bound. */
function timed<T>(load: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = load();
  return { value, ms: performance.now() - start };
}

/** Asserts exactly one problem at `line:col` containing `fragment`. */
function expectProblem(found: string[], at: string, fragment: string): void {
  const matches = found.filter((l) => l.startsWith(`${FILE}:${at}: `) && l.includes(fragment));
  expect(matches, `no "${fragment}" at ${at} in:\n${found.join('\n')}`).toHaveLength(1);
}

const OK_TURNS = ['turns:', '  - user: hi', '    assistant: hello', '  - user: more'];

describe('transcript syntax and shape errors', () => {
  it('reports YAML syntax errors with their position', () => {
    const found = problems(['turns:', '  - user: hi', '   assistant: [unclosed']);
    expect(found[0]).toMatch(/^datasets\/x\.yaml:3:\d+: YAML syntax error: /);
  });

  it('reports duplicate keys as a syntax error at the second key', () => {
    expectProblem(problems(['turns:', '  - user: hi', '    user: again']), '3:5', 'YAML syntax error: duplicate key "user"');
    expectProblem(problems(['turns: [{ user: a }]', '---', 'turns: []']), '2:1', 'the file holds more than one YAML document');
  });

  it('reports tabs used as indentation', () => {
    expectProblem(problems(['turns:', '\t- user: hi']), '2:1', 'Tabs are not allowed');
  });

  it('rejects an empty file and a file that is not a mapping', () => {
    expectProblem(problems(['']), '1:1', 'the file is empty');
    expectProblem(problems(['- user: hi']), '1:1', 'the transcript must be a mapping');
  });

  it('requires a non-empty turns list', () => {
    expectProblem(problems(['id: x']), '1:1', 'the transcript is missing "turns"');
    expectProblem(problems(['turns: []']), '1:8', '"turns" in the transcript must not be an empty list');
    expectProblem(problems(['turns: hello']), '1:8', '"turns" in the transcript must be a list, not text');
  });

  it('names unknown keys with a suggestion, at the key', () => {
    const found = problems(['titel: x', ...OK_TURNS.slice(0, 2), '    asistant: hello', '    colour: red']);
    expectProblem(found, '1:1', 'unknown key "titel" in the transcript (did you mean "title"?)');
    expectProblem(found, '4:5', 'unknown key "asistant" in turn 1 (did you mean "assistant"?)');
    expectProblem(found, '5:5', 'unknown key "colour" in turn 1 (expected one of: user, assistant, tool_calls, at, items, meta)');
  });

  it('allows anything under meta, but meta must be a mapping', () => {
    const fine = parseTranscript([...OK_TURNS, 'meta: { anything: { nested: [1, 2] }, asistant: ok }'].join('\n'), FILE);
    expect(fine.meta).toEqual({ anything: { nested: [1, 2] }, asistant: 'ok' });
    expectProblem(problems([...OK_TURNS, 'meta: [a]']), '5:7', '"meta" in the transcript must be a mapping, not a list');
  });

  it('reports wrong types with the key and what was found', () => {
    const found = problems(['title: [a]', 'tags: support', ...OK_TURNS, 'facts:', '  - { id: f, text: t, turn: 1.5, critical: yes }']);
    expectProblem(found, '1:8', '"title" in the transcript must be text, not a list');
    expectProblem(found, '2:7', '"tags" in the transcript must be a list, not text');
    expectProblem(found, '8:29', '"turn" in fact "f" must be a whole number, not the number 1.5');
    expectProblem(found, '8:44', '"critical" in fact "f" must be true or false, not text');
    // A tag that makes a scalar something other than text says which tag, not "text".
    expectProblem(problems(['title: !!binary aGVsbG8=', ...OK_TURNS]), '1:17', '"title" in the transcript must be text, not a value tagged !!binary');
  });

  it('rejects a turn that is not a mapping', () => {
    expectProblem(problems(['turns:', '  - hello']), '2:5', 'turn 1 must be a mapping with "user" or "items", not text');
  });

  it('rejects an undefined alias', () => {
    expectProblem(problems(['turns:', '  - *nope']), '2:5', 'alias *nope has no anchor &nope before it');
  });

  it('reports a self-referencing alias in free-form data instead of looping', () => {
    expectProblem(problems([...OK_TURNS, 'meta: &m { self: *m }']), '5:18', 'refers to itself through an alias');
  });
});

describe('turn errors', () => {
  it('needs exactly one of user and items', () => {
    const found = problems(['turns:', '  - assistant: hello', '  - user: hi', '    items: [{ role: user, content: x }]']);
    expectProblem(found, '2:5', 'turn 1 has neither "user" nor "items"');
    expectProblem(found, '4:5', 'turn 2 has both "user" and "items"; use one');
  });

  it('allows assistant, tool_calls and at only with user', () => {
    const found = problems([
      'turns:',
      '  - items: [{ role: user, content: x }]',
      '    assistant: no',
      '    at: 2025-01-01',
      '    tool_calls: []',
    ]);
    expectProblem(found, '3:5', '"assistant" in turn 1 is only allowed with "user", not with "items"');
    expectProblem(found, '4:5', '"at" in turn 1 is only allowed with "user"');
    expectProblem(found, '5:5', '"tool_calls" in turn 1 is only allowed with "user"');
  });

  it('requires user to be text and at to be a timestamp', () => {
    const found = problems(['turns:', '  - user:', '  - user: hi', '    at: next tuesday']);
    expectProblem(found, '2:5', '"user" in turn 1 must be text, not empty');
    expectProblem(found, '4:9', '"at" in turn 2 is not a date and time: "next tuesday"');
    // What Date.parse would take: a bare number as a year, a day past the month's end rolled over.
    const odd = problems(['turns:', '  - user: a', '    at: 12345', '  - user: b', '    at: 2025-02-30T10:00:00Z', '  - user: c', '    at: 2024-02-29T10:00:00Z']);
    expectProblem(odd, '3:9', '"at" in turn 1 is not a date and time: "12345"');
    expectProblem(odd, '5:9', '"at" in turn 2 "2025-02-30T10:00:00Z" is not a real date: February 2025 has 28 days');
    expect(odd).toHaveLength(2);
  });

  it('checks tool calls: name and output required, arguments a mapping or a string', () => {
    const found = problems([
      'turns:',
      '  - user: hi',
      '    tool_calls:',
      '      - { arguments: { a: 1 }, output: done }',
      '      - { name: f, arguments: [1, 2], output: done }',
      '      - { name: g }',
      '      - { name: h, output: { a: 1 }, extra: 1 }',
      '      - nope',
      "      - { name: i, arguments: 'not json', output: done }",
      '      - { name: j, arguments: \'{"city": "Oslo"}\', output: done }',
    ]);
    expectProblem(found, '4:9', 'tool call 1 of turn 1 is missing "name"');
    expectProblem(found, '9:31', '"arguments" in tool call 6 of turn 1 is text that is not a JSON object: "not json"');
    expect(found.some((l) => l.includes('tool call 7 of'))).toBe(false);
    expectProblem(found, '5:31', '"arguments" in tool call 2 of turn 1 must be a mapping or a JSON string, not a list');
    expectProblem(found, '6:9', 'tool call 3 of turn 1 is missing "output"');
    expectProblem(found, '7:28', '"output" in tool call 4 of turn 1 must be text, not a mapping');
    expectProblem(found, '7:38', 'unknown key "extra" in tool call 4 of turn 1');
    expectProblem(found, '8:9', 'tool call 5 of turn 1 must be a mapping, not text');
  });
});

describe('raw item errors', () => {
  it('checks message items', () => {
    const found = problems([
      'turns:',
      '  - items:',
      '      - { content: hi }',
      '      - { role: tool, content: hi }',
      '      - { role: user }',
      '      - { role: user, content: { text: hi } }',
      '      - hello',
    ]);
    expectProblem(found, '3:9', 'item 1 of turn 1 needs "role" or "type"');
    expectProblem(found, '4:17', '"role" in item 2 of turn 1 must be one of user, assistant, system, not "tool"');
    expectProblem(found, '5:9', 'item 3 of turn 1 is missing "content"');
    expectProblem(found, '6:32', '"content" in item 4 of turn 1 must be text or a list of content parts, not a mapping');
    expectProblem(found, '7:9', 'item 5 of turn 1 must be an Agents SDK item');
  });

  it('checks function calls and results and pairs them by callId', () => {
    const found = problems([
      'turns:',
      '  - items:',
      '      - { type: function_call, name: f, arguments: { a: 1 }, callId: c1 }',
      '      - { type: function_call, callId: c2, arguments: "{}" }',
      '      - { type: function_call_result, callId: c1 }',
      '      - { type: function_call_result, callId: c3, call_id: c3, output: x }',
      '      - { type: function_call_output, call_id: c1, output: x }',
      '      - { type: function_call_result, callId: zz, output: x }',
    ]);
    expectProblem(found, '3:52', '"arguments" in item 1 of turn 1 must be a JSON string (quote it), not a mapping');
    expectProblem(found, '4:9', 'item 2 of turn 1 is missing "name"');
    expectProblem(found, '5:9', 'item 3 of turn 1 is missing "output"');
    expectProblem(found, '6:60', 'item 4 of turn 1 has both "callId" and "call_id"; keep one');
    expectProblem(found, '7:17', 'type "function_call_output" (a Responses API name); the Agents SDK item is "function_call_result"');
    expectProblem(found, '8:9', 'function_call_result "zz" in turn 1 has no earlier function_call with that callId');
    expectProblem(found, '4:9', 'function_call "c2" in turn 1 has no function_call_result with that callId');
  });

  it('refuses a probe asked while a call of the raw items has its result only in a later turn', () => {
    const found = problems([
      'turns:',
      '  - items:',
      '      - { role: user, content: "Check order A-1." }',
      '      - { type: function_call, name: lookup, arguments: "{}", callId: c1 }',
      '  - items:',
      '      - { type: function_call_result, name: lookup, callId: c1, output: shipped }',
      '      - { role: user, content: "Thanks." }',
      'probes:',
      '  - { id: early, kind: recall, after_turn: 1, question: Which order?, answer: A-1, must_include: [A-1] }',
      '  - { id: later, kind: recall, after_turn: 2, question: Which order?, answer: A-1, must_include: [A-1] }',
    ]);
    expectProblem(found, '9:44', 'probe "early" after_turn 1 is asked while function_call "c1" of turn 1 has its result only in turn 2: the request would carry a call with no result, which the APIs reject');
    expect(found.filter((l) => l.includes('is asked while'))).toHaveLength(1);
  });

  it('requires a non-empty items list', () => {
    expectProblem(problems(['turns:', '  - items: []']), '2:12', '"items" in turn 1 must not be an empty list');
  });
});

describe('fact and probe errors', () => {
  const facts = [
    'facts:',
    '  - { id: os, text: Windows 10, turn: 1 }',
    '  - { id: fw, text: v1.0.3, turn: 9, superseded_by: fw2 }',
    '  - { id: os, text: again, turn: 2 }',
    '  - { text: no id, turn: 1 }',
    '  - { id: me, text: me, turn: 1, superseded_by: me }',
  ];

  it('checks fact turns, supersession, duplicates and required fields', () => {
    const found = problems([...OK_TURNS, ...facts]);
    expectProblem(found, '7:35', 'fact "fw" turn 9 is outside the 2 turns');
    expectProblem(found, '7:53', 'fact "fw" is superseded_by "fw2", which is not a fact in this transcript');
    expectProblem(found, '8:11', 'duplicate fact id "os" (first defined at datasets/x.yaml:6:11)');
    expectProblem(found, '9:5', 'fact 4 is missing "id"');
    expectProblem(found, '10:49', 'fact "me" is superseded by itself');
  });

  it('refuses supersession in a circle, which would leave no fact current', () => {
    const found = problems([...OK_TURNS, 'facts:', '  - { id: a, text: one, turn: 1, superseded_by: b }', '  - { id: b, text: two, turn: 2, superseded_by: a }']);
    expectProblem(found, '6:49', 'fact "a" is superseded in a circle ("a" → "b" → "a"): one of them must be the current fact');
    expectProblem(found, '7:49', 'fact "b" is superseded in a circle ("b" → "a" → "b"): one of them must be the current fact');
  });

  it('checks probes: range, facts, kind, duplicates and required fields', () => {
    const found = problems([
      'turns:', '  - user: a', '  - user: b', '  - user: c', '  - user: d', '  - user: e',
      'facts:', '  - { id: late, text: late news, turn: 5 }',
      'probes:',
      '  - id: which-os',
      '    after_turn: 9',
      '    question: Which OS?',
      '    answer: Windows',
      '    facts: [os]',
      '    kind: trivia',
      '  - { id: which-os, after_turn: 0, question: q, answer: a }',
      '  - { id: early, after_turn: 2, question: q, answer: a, facts: [late] }',
      '  - { id: bare, after_turn: 1 }',
      '  - { id: neg, after_turn: -3, question: q, answer: a }',
      '  - { id: huge, after_turn: 1e400, question: q, answer: a }',
    ]);
    expectProblem(found, '11:17', 'probe "which-os" after_turn 9 is outside the 5 turns');
    expectProblem(found, '14:13', 'probe "which-os" names fact "os", which is not a fact in this transcript');
    expectProblem(found, '15:11', '"kind" in probe "which-os" must be one of recall, update, temporal, multi-hop, abstention, tool, not "trivia"');
    expectProblem(found, '16:33', 'probe "which-os" after_turn 0 is outside the 5 turns');
    expectProblem(found, '17:65', 'probe "early" after_turn 2 depends on fact "late", which is only stated in turn 5');
    expectProblem(found, '18:5', 'probe "bare" is missing "question"');
    expectProblem(found, '18:5', 'probe "bare" is missing "answer"');
    expectProblem(found, '19:28', 'probe "neg" after_turn -3 is outside the 5 turns');
    expectProblem(found, '20:29', '"after_turn" in probe "huge" must be a whole number, not the number 1e400');
  });

  it('refuses a fact its turn does not state, at the fact, naming the turn', () => {
    const found = problems([
      'turns:', '  - user: My laptop runs Ubuntu.', '  - user: It has 16 GB.',
      'facts:',
      '  - { id: os, text: Solaris 11, turn: 1, critical: true }',
      '  - { id: ram, text: 16 GB, turn: 1 }',
      '  - { id: distro, text: Ubuntu 24.04, aliases: [Ubuntu], turn: 1 }',
      '  - { id: ram2, text: 16 GB, turn: 2 }',
    ]);
    expectProblem(found, '5:21', 'fact "os": turn 1 does not state its text');
    expectProblem(found, '6:22', 'fact "ram": turn 1 does not state its text');
    expect(found.filter((p) => /distro|ram2/.test(p))).toEqual([]);
  });

  it('places a bad entry of a block-style facts list at the entry itself', () => {
    const found = problems([
      'turns:', '  - user: My OS is Linux.',
      'facts:', '  - { id: os, text: Linux, turn: 1 }',
      'probes:',
      '  - id: q',
      '    after_turn: 1',
      '    question: Which OS?',
      '    answer: Linux',
      '    facts:',
      '      - os',
      '      - oss',
    ]);
    expectProblem(found, '12:9', 'probe "q" names fact "oss", which is not a fact in this transcript');
  });

  it('reports duplicate probe ids at the second id', () => {
    const found = problems([...OK_TURNS, 'probes:', '  - { id: p, after_turn: 1, question: q, answer: a }', '  - { id: p, after_turn: 2, question: q, answer: a }']);
    expectProblem(found, '7:11', 'duplicate probe id "p" (first defined at datasets/x.yaml:6:11)');
  });

  it('checks must_include entries', () => {
    const found = problems([
      ...OK_TURNS,
      'probes:',
      '  - { id: a, after_turn: 1, question: q, answer: x, must_include: [[]] }',
      '  - { id: b, after_turn: 1, question: q, answer: x, must_include: [{ k: v }] }',
      '  - { id: c, after_turn: 1, question: q, answer: x, must_include: ["?!"] }',
      '  - { id: d, after_turn: 1, question: q, answer: x, must_include: [[ok, [deep]]] }',
      '  - { id: e, after_turn: 1, question: q, answer: x, must_include: { a: 1 } }',
      '  - { id: f, after_turn: 1, question: q, answer: x, must_include: [The] }',
    ]);
    expectProblem(found, '6:68', 'an entry of "must_include" in probe "a" is an empty list');
    expectProblem(found, '7:68', 'an entry of "must_include" in probe "b" must be text or a list of alternatives, not a mapping');
    expectProblem(found, '8:68', '"?!" in "must_include" of probe "c" has no letters or digits, so it can never match');
    expectProblem(found, '9:73', 'an alternative in "must_include" of probe "d" must be text, not a list');
    expectProblem(found, '10:67', '"must_include" in probe "e" must be text or a list, not a mapping');
    expectProblem(found, '11:68', '"The" in "must_include" of probe "f" has only the words "a", "an", "the" and "and", which matching ignores, so it can never match');
  });
});

describe('problem helpers', () => {
  it('formats positions and whole-file problems', () => {
    expect(formatProblem({ file: 'a.yaml', line: 3, col: 7, message: 'bad' })).toBe('a.yaml:3:7: bad');
    expect(formatProblem(fileProblem('a.yaml', 'cannot read file (EACCES)'))).toBe('a.yaml: cannot read file (EACCES)');
  });

  it('turns offsets into 1-based positions', () => {
    const text = 'ab\ncd\n\nef';
    expect(problemAt('t', text, 0, 'm')).toEqual({ file: 't', line: 1, col: 1, message: 'm' });
    expect(problemAt('t', text, 4, 'm')).toMatchObject({ line: 2, col: 2 });
    expect(problemAt('t', text, 6, 'm')).toMatchObject({ line: 3, col: 1 });
    expect(problemAt('t', text, 7, 'm')).toMatchObject({ line: 4, col: 1 });
    expect(problemAt('t', text, 999, 'm')).toMatchObject({ line: 4, col: 3 });
    expect(problemAt('t', '', -5, 'm')).toMatchObject({ line: 1, col: 1 });
  });

  it('builds one message from every problem, sorted by file order and position', () => {
    const e = new InputError([
      { file: 'b.yaml', line: 2, col: 1, message: 'second file' },
      { file: 'a.yaml', line: 9, col: 1, message: 'late' },
      { file: 'b.yaml', line: 1, col: 4, message: 'first in b' },
      { file: 'a.yaml', line: 1, col: 1, message: 'early' },
    ]);
    expect(e.message).toBe('b.yaml:1:4: first in b\nb.yaml:2:1: second file\na.yaml:1:1: early\na.yaml:9:1: late');
    expect(e.name).toBe('InputError');
    expect(isInputError(e)).toBe(true);
    expect(isInputError(new Error('x'))).toBe(false);
    expect(isInputError(null)).toBe(false);
  });
});

describe('collecting and reading files', () => {
  it('reports every problem of a file in one error, in file order', () => {
    const found = problems(['turns:', '  - asistant: x', 'facts:', '  - { id: f, turn: 3 }', 'probes: 7']);
    expect(found).toEqual([
      'datasets/x.yaml:2:5: unknown key "asistant" in turn 1 (did you mean "assistant"?)',
      'datasets/x.yaml:2:5: turn 1 has neither "user" nor "items"',
      'datasets/x.yaml:4:5: fact "f" is missing "text"',
      'datasets/x.yaml:4:20: fact "f" turn 3 is outside the 1 turn (turns are numbered 1 to 1)',
      'datasets/x.yaml:5:9: "probes" in the transcript must be a list, not the number 7',
    ]);
  });

  it('turns an unreadable file into a whole-file problem', () => {
    try {
      loadTranscriptFile('test/fixtures/bad/does-not-exist.yaml');
      throw new Error('expected an InputError');
    } catch (e) {
      expect(isInputError(e)).toBe(true);
      expect((e as InputError).problems).toEqual([
        { file: 'test/fixtures/bad/does-not-exist.yaml', line: 0, col: 0, message: 'cannot read file (ENOENT)' },
      ]);
      expect((e as Error).message).toBe('test/fixtures/bad/does-not-exist.yaml: cannot read file (ENOENT)');
    }
  });

  it('never echoes an API key pasted into a transcript', () => {
    const found = problems(['turns:', '  - user: hi', '    api_key: x', '    sk-abcdefghijklmnopqrstuvwx: 1']);
    expect(found.join('\n')).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(found.join('\n')).toContain('[REDACTED]');
  });
});

/** Limits with some bounds changed, as a suite config's `limits:` would set them. */
function limits(changes: Partial<Limits>): Limits {
  return { ...DEFAULT_LIMITS, ...changes };
}

const TEMP_DIRS: string[] = [];

/** A fresh folder, removed after the tests (some hold files of tens of megabytes). */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-limits-'));
  TEMP_DIRS.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of TEMP_DIRS) rmSync(dir, { recursive: true, force: true });
});

/** `count` lines of `  k<i>: <i>`, a block mapping under `meta:`. */
function metaBlock(count: number): string {
  const rows = ['turns: [{ user: hi }]', 'meta:'];
  for (let i = 0; i < count; i++) rows.push(`  k${i}: ${i}`);
  return rows.join('\n');
}

describe('limits on what a transcript may hold', () => {
  it('refuses a 200,000-key meta block at its 10,001st key, in well under 10 s', () => {
    const { value: found, ms } = timed(() => thrown(() => parseTranscript(metaBlock(200_000), FILE)));
    // Lines 1-2 are turns and meta:, so key k10000 (the 10,001st) is on line 10003.
    expect(found).toEqual([`${FILE}:10003:3: the mapping has more than 10000 keys (the bound limits.max_keys; raise it under "limits:" in the suite config if this is really meant)`]);
    expect(ms).toBeLessThan(10_000);
    // Windows line ends are watched as well.
    const crlf = timed(() => thrown(() => parseTranscript(metaBlock(200_000).replaceAll('\n', '\r\n'), FILE)));
    expect(crlf.value).toEqual([expect.stringMatching(/^datasets\/x\.yaml:10003:3: the mapping has more than 10000 keys/)]);
    expect(crlf.ms).toBeLessThan(5_000);
  }, 10_000);

  it('loads a 50,000-key meta block when the limits allow it, in well under 10 s (the duplicate check is linear)', () => {
    // Comparing each key with every earlier one took about 20 s for this many keys.
    const raised = limits({ max_keys: 100_000 });
    const { value: t, ms } = timed(() => parseTranscript(metaBlock(50_000), FILE, raised));
    expect(Object.keys(t.meta ?? {})).toHaveLength(50_000);
    expect(ms).toBeLessThan(10_000);
  }, 10_000);

  it('counts keys exactly: the bound itself loads, one more is refused (block and flow)', () => {
    const five = limits({ max_keys: 5 });
    expect(Object.keys(parseTranscript(metaBlock(5), FILE, five).meta ?? {})).toHaveLength(5);
    expectProblem(thrown(() => parseTranscript(metaBlock(6), FILE, five)), '8:3', 'the mapping has more than 5 keys');
    // A comment after the last key is not a key.
    expect(Object.keys(parseTranscript(`${metaBlock(5)}\n  # a comment after the last key\n`, FILE, five).meta ?? {})).toHaveLength(5);
  });

  it('points at the first key over the bound in a flow mapping, and counts every mapping', () => {
    const flow = `turns: [{ user: hi }]\nmeta: {${Array.from({ length: 20 }, (_, i) => `k${i}: ${i}`).join(', ')}}`;
    const col = flow.split('\n')[1].indexOf('k10:') + 1;
    expectProblem(thrown(() => parseTranscript(flow, FILE, limits({ max_keys: 10 }))), `2:${col}`, 'the mapping has more than 10 keys');
    const turn = ['turns:', '  - user: hi', ...Array.from({ length: 4 }, (_, i) => `    meta${i}: x`)];
    expectProblem(thrown(() => parseTranscript(turn.join('\n'), FILE, limits({ max_keys: 3 }))), '5:5', 'the mapping has more than 3 keys');
  });

  it('refuses a file with more values than max_values while parsing it, at the first value over', () => {
    const dense = `turns: [{ user: hi }]\nmeta: { list: [${Array(1_000_000).fill('1').join(',')}] }`;
    const { value: found, ms } = timed(() => thrown(() => parseTranscript(dense, FILE)));
    // turns, user, hi, meta, list: five values before the list's entries.
    const col = dense.split('\n')[1].indexOf('[') + 2 + 2 * (DEFAULT_LIMITS.max_values - 5);
    expect(found).toEqual([`${FILE}:2:${col}: the file has more than 200000 values (the bound limits.max_values; raise it under "limits:" in the suite config if this is really meant)`]);
    expect(ms).toBeLessThan(10_000);
    expect(parseTranscript('turns: [{ user: hi }]\nmeta: { a: [1, 2, 3] }', FILE, limits({ max_values: 8 })).meta).toEqual({ a: [1, 2, 3] });
    expectProblem(thrown(() => parseTranscript('turns: [{ user: hi }]\nmeta: { a: [1, 2, "3", 4] }', FILE, limits({ max_values: 8 }))), '2:24', 'more than 8 values');
  });

  it('finds duplicate keys in a big mapping in linear time, and keys that read the same', () => {
    const { value: found, ms } = timed(() => thrown(() => parseTranscript(`${metaBlock(9_000)}\n  k17: again`, FILE)));
    expect(found).toEqual([`${FILE}:9003:3: YAML syntax error: duplicate key "k17" (each key may appear once in a mapping)`]);
    expect(ms).toBeLessThan(5_000);
    expectProblem(problems(['turns: [{ user: hi }]', 'meta:', '  1: a', '  "1": b']), '4:3', 'duplicate key "1"');
    expectProblem(problems(['turns: [{ user: hi }]', 'meta: { &k x: 1, *k : 2 }']), '2:18', 'duplicate key "x"');
  });
});

describe('reading transcript files', () => {
  it('refuses a 50 MB transcript from its size, without parsing it, in well under 10 s', () => {
    const dir = tempDir();
    const path = join(dir, 'big.yaml');
    // Short turns: the most work per byte for the YAML reader, so reading it would take minutes.
    writeFileSync(path, `turns:\n${'  - user: hi\n'.repeat(50 * 1024 * 1024 / 13)}`);
    const { value: found, ms } = timed(() => thrown(() => loadTranscriptFile(path)));
    expect(found).toEqual([
      `${path}: the file is 50 MB, over the 16 MB limit for one file (the bound limits.max_file_mb; raise it under "limits:" in the suite config if this is really meant)`,
    ]);
    expect(ms).toBeLessThan(1_000);
  }, 10_000);

  it('refuses a 20 MB transcript in a suite by default and loads it once max_file_mb allows it', async () => {
    const dir = tempDir();
    // Turns of about a kilobyte each, as in real conversations: the size, not the number of values, is what is over.
    const sentence = 'the router firmware update failed again after the reboot, said the premium customer on windows ten. '.repeat(5);
    const turns = Array.from({ length: Math.ceil((20 * 1024 * 1024) / 1020) }, (_, i) => `  - user: ${sentence}${i}\n    assistant: ${sentence}`);
    writeFileSync(join(dir, 'long.yaml'), `turns:\n${turns.join('\n')}\n`);
    const refused = await loadSuite(['*.yaml'], dir).then(
      () => [],
      (e: InputError) => e.message.split('\n'),
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/long\.yaml: the file is 20(\.\d)? MB, over the 16 MB limit for one file \(the bound limits\.max_file_mb/);
    const start = performance.now();
    const [loaded] = await loadSuite(['*.yaml'], dir, limits({ max_file_mb: 32 }));
    expect(loaded.turns).toHaveLength(turns.length);
    expect(performance.now() - start).toBeLessThan(10_000);
  }, 20_000);

  it('stops reading a device or pipe that has no size at the limit', () => {
    if (process.platform === 'win32') return;
    expect(thrown(() => loadTranscriptFile('/dev/zero', limits({ max_file_mb: 1 })))).toEqual([
      '/dev/zero: the file is over the 1 MB limit for one file (the bound limits.max_file_mb; raise it under "limits:" in the suite config if this is really meant)',
    ]);
  });

  it('reports invalid UTF-8 at its line and column instead of reading U+FFFD', () => {
    const dir = tempDir();
    const write = (name: string, ...parts: (string | number[])[]) => {
      const path = join(dir, name);
      writeFileSync(path, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))));
      return path;
    };
    const hint = 'save the file as UTF-8 (it may be in Latin-1 or Windows-1252)';
    // A Latin-1 "café" after text with multi-byte characters: the column counts characters, not bytes.
    const latin1 = write('latin1.yaml', 'turns:\n  - user: naïve ', [0x63, 0x61, 0x66, 0xe9, 0x20], 'day\n');
    expect(thrown(() => loadTranscriptFile(latin1))).toEqual([`${latin1}:2:20: invalid UTF-8 (byte 0xE9 followed by 0x20); ${hint}`]);
    const stray = write('stray.yaml', 'turns:\n  - user: ', [0x80], '\n');
    expect(thrown(() => loadTranscriptFile(stray))).toEqual([`${stray}:2:11: invalid UTF-8 (byte 0x80); ${hint}`]);
    const cut = write('cut.yaml', 'turns:\n  - user: ', [0xe2, 0x82]);
    expect(thrown(() => loadTranscriptFile(cut))).toEqual([`${cut}:2:11: invalid UTF-8 (byte 0xE2 followed by 0x82); ${hint}`]);
    const surrogate = write('surrogate.yaml', 'turns:\n  - user: a', [0xed, 0xa0, 0x80], '\n');
    expect(thrown(() => loadTranscriptFile(surrogate))).toEqual([`${surrogate}:2:12: invalid UTF-8 (byte 0xED followed by 0xA0); ${hint}`]);
    // A BOM and U+FFFD written as real UTF-8 are text like any other.
    const fine = write('fine.yaml', [0xef, 0xbb, 0xbf], 'turns:\n  - user: caf\u00e9 \ufffd\n');
    expect(loadTranscriptFile(fine).turns[0]).toMatchObject({ user: 'caf\u00e9 \ufffd' });
  });

  it('reads calibration files by the same rules', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.yaml'), Buffer.concat([Buffer.from('id: a\nsource:\n  - user: caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    expect(thrown(() => loadCalibrationSet(dir))).toEqual([
      `${join(dir, 'a.yaml')}:3:14: invalid UTF-8 (byte 0xE9 followed by 0x0A); save the file as UTF-8 (it may be in Latin-1 or Windows-1252)`,
    ]);
  });

  it('reports invalid UTF-8 in a suite with the file name as shown', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.yaml'), Buffer.concat([Buffer.from('turns:\n  - user: x'), Buffer.from([0xff])]));
    const found = await loadSuite(['*.yaml'], dir).then(
      () => [],
      (e: InputError) => e.message.split('\n'),
    );
    expect(found).toEqual([expect.stringMatching(/a\.yaml:2:12: invalid UTF-8 \(byte 0xFF\)/)]);
  });
});

describe('tools and tool probes', () => {
  const TOOLS = [
    'tools:',
    '  - name: run_sql',
    '    description: Run a query.',
    '    parameters:',
    '      type: object',
    '      properties:',
    '        host: { type: string }',
    '        limit: { type: integer }',
    '  - name: page_oncall',
  ];
  const probeLines = (lines: string[]) => [...TOOLS, ...OK_TURNS, 'probes:', ...lines];

  it('reads tools and both forms of expect_call; a probe that expects a call needs no answer', () => {
    const t = parseTranscript(
      probeLines([
        '  - { id: rerun, after_turn: 1, kind: tool, question: Again?, expect_call: { name: run_sql, arguments: { host: db-7, limit: { exact: 10 } } } }',
        '  - { id: memory, after_turn: 1, kind: tool, question: What was it?, expect_call: none, answer: "12" }',
      ]).join('\n'),
      FILE,
    );
    expect(t.tools?.map((tool) => tool.name)).toEqual(['run_sql', 'page_oncall']);
    expect(t.tools?.[1].parameters).toEqual({ type: 'object', properties: {} });
    expect(t.probes[0]).toMatchObject({
      kind: 'tool',
      answer: 'run_sql(host=db-7, limit=10)',
      expectCall: { name: 'run_sql', arguments: { host: { rule: 'normalised', value: 'db-7' }, limit: { rule: 'exact', value: 10 } } },
    });
    expect(t.probes[1]).toMatchObject({ expectCall: null, answer: '12' });
  });

  it('reports each tool problem at its place', () => {
    const found = problems([
      'tools:',
      '  - name: run sql',
      '  - name: ok',
      '    parameters: { type: array }',
      '  - name: ok',
      ...OK_TURNS,
    ]);
    expectProblem(found, '2:11', 'must be 1 to 64 letters, digits, "_" or "-"');
    expectProblem(found, '4:17', 'must be a JSON Schema of type "object"');
    expectProblem(found, '5:11', 'duplicate tool name "ok" (first defined at datasets/x.yaml:3:11)');
  });

  it('refuses an argument value no argument could match: no letter or digit', () => {
    const found = problems(
      probeLines([
        "  - { id: a, after_turn: 1, kind: tool, question: q, expect_call: { name: run_sql, arguments: { host: '-' } } }",
        "  - { id: b, after_turn: 1, kind: tool, question: q, expect_call: { name: run_sql, arguments: { host: { one_of: [db-7, '?'] } } } }",
      ]),
    );
    expect(found).toHaveLength(2);
    expect(found.every((l) => l.includes('has no letters or digits, so no argument can match it'))).toBe(true);
  });

  it('refuses a tool probe in a transcript that offers no tools, either form of expect_call', () => {
    const found = problems([
      ...OK_TURNS,
      'probes:',
      '  - { id: a, after_turn: 1, kind: tool, question: q, answer: x, expect_call: none }',
      '  - { id: b, after_turn: 1, kind: tool, question: q, expect_call: { name: run_sql } }',
    ]);
    expectProblem(found, '6:65', 'probe "a" is kind: tool, but the transcript offers no "tools:" to call');
    expectProblem(found, '7:54', 'probe "b" is kind: tool, but the transcript offers no "tools:" to call');
    expect(found).toHaveLength(2);
  });

  it('reports a call in the conversation to a tool the transcript does not offer', () => {
    const found = problems([
      ...TOOLS,
      'turns:',
      '  - user: Check the replica.',
      '    tool_calls:',
      '      - { name: run_sql, arguments: { host: db-7 }, output: ok }',
      '      - { name: ssh, output: ok }',
    ]);
    expectProblem(found, '14:17', '"name" in tool call 2 of turn 1 calls "ssh", which is not a tool of this transcript (its tools are "run_sql", "page_oncall")');
    expect(found).toHaveLength(1);
  });

  it('reports expect_call problems: kinds, unknown tools and arguments, rules, a missing answer', () => {
    const found = problems(
      probeLines([
        '  - { id: a, after_turn: 1, kind: tool, question: q }',
        '  - { id: b, after_turn: 1, question: q, answer: x, expect_call: none }',
        '  - { id: c, after_turn: 1, kind: tool, question: q, expect_call: { name: run_query } }',
        '  - { id: d, after_turn: 1, kind: tool, question: q, expect_call: { name: run_sql, arguments: { port: 5 } } }',
        '  - { id: e, after_turn: 1, kind: tool, question: q, expect_call: { name: run_sql, arguments: { host: { exact: 1, any: true } } } }',
        '  - { id: f, after_turn: 1, kind: tool, question: q, expect_call: none }',
        '  - { id: g, after_turn: 1, kind: tool, question: q, expect_call: sometimes }',
      ]),
    );
    expectProblem(found, '15:5', 'probe "a" is kind: tool but has no "expect_call"');
    expectProblem(found, '16:53', 'probe "b" has "expect_call" but kind recall; use kind: tool');
    expectProblem(found, '17:75', 'expects a call to "run_query", which is not a tool of this transcript (the transcript\'s tools are "run_sql", "page_oncall")');
    expectProblem(found, '18:97', 'expects argument "port", which tool "run_sql" does not declare (it has "host", "limit")');
    expectProblem(found, '19:103', 'must have exactly one of exact, normalised, one_of, any (found "exact", "any")');
    expectProblem(found, '20:5', 'probe "f" is missing "answer"');
    expectProblem(found, '21:67', '"expect_call" of probe "g" must be one of none, not "sometimes"');
    expect(found).toHaveLength(7);
  });
});
