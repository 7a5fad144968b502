import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importBenchmark, jsonArrayElements } from '../../../../harness/datasets/importers/index.js';
import { importCommand } from '../../../../harness/commands/import.js';
import { inputErrorOf } from '../../../helpers/errors.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/importers');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function collect(path: string, chunk?: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const el of jsonArrayElements(path, chunk)) out.push(el.value);
  return out;
}

describe('jsonArrayElements', () => {
  it('yields the same values as JSON.parse, across read chunks and tricky strings', async () => {
    const tricky = 'a "quoted" ] , { [ } \\ back\\slash \u00e9\u4e2d\ud83d\ude00 end';
    const records = Array.from({ length: 30 }, (_, i) => ({ i, text: tricky.repeat(1 + (i % 50)), nested: [[i], { k: [tricky], odd: 'one " quote, then ] and } and ,' }], n: i % 3 ? null : 1.5e3 }));
    const path = file('big.json', `\ufeff[\n${records.map((r) => JSON.stringify(r, null, i(r.i))).join(' ,\n')}\n]\n`);
    expect(await collect(path)).toEqual(records);
    // Tiny reads split escapes, surrogate pairs and brackets across chunk boundaries.
    for (const chunk of [5, 64]) expect(await collect(path, chunk)).toEqual(records);
    function i(n: number): number {
      return n % 2 ? 2 : 0;
    }
  });

  it('refuses a missing file, a folder and bytes that are not UTF-8, saying where', async () => {
    expect(await inputErrorOf(() => collect(join(dir, 'nowhere.json')))).toMatch(/nowhere\.json: no such file/);
    expect(await inputErrorOf(() => collect(dir))).toMatch(/: is a folder, not a JSON file/);
    const latin1 = join(dir, 'latin1.json');
    writeFileSync(latin1, Buffer.concat([Buffer.from('[\n  {"text": "Rex caf'), Buffer.from([0xe9]), Buffer.from('."}\n]')]));
    // Read a few bytes at a time as well: the position counts from where the bad chunk starts.
    for (const chunk of [undefined, 7]) expect(await inputErrorOf(() => collect(latin1, chunk))).toMatch(/latin1\.json:2:20: invalid UTF-8 \(byte 0xE9\)/);
  });

  it('accepts an empty list and primitive elements', async () => {
    expect(await collect(file('empty.json', ' [ ] '))).toEqual([]);
    expect(await collect(file('prims.json', '[1, "two", true, null]'))).toEqual([1, 'two', true, null]);
  });

  it('reports syntax problems with line and column', async () => {
    const bad = file('bad.json', '[\n  {"a": 1},\n  {"b": }\n]');
    expect(await inputErrorOf(() => collect(bad))).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:3: invalid JSON in list element 1`));
    expect(await inputErrorOf(() => collect(file('mismatch.json', '[\n {"sample_id": 1,\n  "qa": [}\n]')))).toMatch(/mismatch\.json:3:10: unexpected "\}" in list element 0/);
    expect(await inputErrorOf(() => collect(file('obj.json', '{"sample_id": 1}')))).toMatch(/obj\.json:1:1: expected a JSON list/);
    expect(await inputErrorOf(() => collect(file('trail.json', '[1, ]')))).toMatch(/trail\.json:1:5: unexpected "\]"/);
    expect(await inputErrorOf(() => collect(file('open.json', '[1, 2')))).toMatch(/open\.json:1:6: the file ends before the top-level list is closed/);
    expect(await inputErrorOf(() => collect(file('after.json', '[1] x')))).toMatch(/after\.json:1:5: unexpected text after/);
    expect(await inputErrorOf(() => collect(file('blank.json', '')))).toMatch(/blank\.json:1:1: the file is empty/);
    expect(await inputErrorOf(() => collect(join(dir, 'missing.json')))).toMatch(/missing\.json: no such file/);
  });
});

describe('importBenchmark and importCommand', () => {
  it('honours --limit', async () => {
    const out = join(dir, 'limited');
    const code = await importCommand(['longmemeval', join(FIXTURES, 'longmemeval-mini.json'), '--out', out, '--limit', '2']);
    expect(code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['lme-a1b2c3.yaml', 'lme-ku-0007.yaml']);
  });

  it('reports a record with the wrong shape at its position and writes nothing', async () => {
    const qa = '[{"question": "Who?", "answer": "A", "category": 4}]';
    const path = file('schema.json', `[\n  {"sample_id": "ok", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}, "qa": ${qa}},\n  {"sample_id": "broken", "conversation": {}}\n]`);
    const out = join(dir, 'schema');
    const message = await inputErrorOf(() => importBenchmark('locomo', path, { out }));
    expect(message).toBe(`${path}:3:3: [1].qa: missing or not a list`);
    // All or nothing: the good record is not written either, and no staging folder is left.
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('.schema.'))).toEqual([]);
  });

  it('feeding a LongMemEval file to the LoCoMo importer is a schema error, not a crash', async () => {
    const message = await inputErrorOf(() => importBenchmark('locomo', join(FIXTURES, 'longmemeval-mini.json'), { out: join(dir, 'wrong') }));
    expect(message.split('\n')[0]).toMatch(/longmemeval-mini\.json:2:3: \[0\]\.conversation: missing or not an object/);
  });

  it('gives duplicate ids distinct files', async () => {
    const one = '{"question_id": "same", "question_type": "single-session-user", "question": "Q?", "answer": "x", "haystack_dates": [], "haystack_sessions": [[{"role": "user", "content": "x"}]]}';
    const out = join(dir, 'dupes');
    await importBenchmark('longmemeval', file('dupes.json', `[${one}, ${one}]`), { out });
    expect(readdirSync(out).sort()).toEqual(['lme-same-2.yaml', 'lme-same.yaml']);
  });

  it('returns 2 with a usage line for bad arguments', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await importCommand(['locomo', 'x.json'])).toBe(2);
      expect(await importCommand(['mystery', 'x.json', '--out', dir])).toBe(2);
      expect(await importCommand(['locomo', '--out', dir])).toBe(2);
      expect(await importCommand(['locomo', 'x.json', '--out', dir, '--limit', '0'])).toBe(2);
      expect(String(stderr.mock.calls[0][0])).toMatch(/^memeval import: --out DIR is required/);
    } finally {
      stderr.mockRestore();
    }
  });
});
