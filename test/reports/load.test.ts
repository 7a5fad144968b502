// run.json is read a line at a time in the layout a run writes (a large run's
// file is longer than any string V8 holds), and whole in any other layout.
import { appendFileSync, truncateSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { runResultSchema } from '../../core/schema/run.js';
import type { RunResult } from '../../core/types.js';
import { loadRun, loadRunInfo, runJsonChunks } from '../../reports/load.js';
import { sampleRun } from '../helpers/sample-run.js';
import { tempWorkspaces } from '../helpers/cli.js';

/** A loaded run's records and info, without the lazy contexts lookup (compared with JSON.parse's result). */
function records(file: string): unknown {
  const { contexts, ...rest } = loadRun(file);
  expect(contexts).toBeDefined();
  return rest;
}

const workspace = tempWorkspaces();
const runFile = (text: string | Buffer) => workspace().write('run.json', text);

/** run.json as a run writes it. */
function written(run: RunResult): string {
  return [...runJsonChunks(run)].join('');
}

/** run.json as runs wrote it before probe tables: a probe record per line. */
function probesByRecord(run: RunResult): string {
  const lines = run.probes.map((p) => JSON.stringify(p)).join(',\n');
  return written({ ...run, probes: [] }).replace('\n"probes":[],\n', `\n"probes":[\n${lines}],\n`);
}

/** The 1-based line of `text` that starts with `start`. */
function lineOf(text: string, start: string): number {
  return text.split('\n').findIndex((l) => l.startsWith(start)) + 1;
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    expect((error as Error).name).toBe('InputError');
    return error as Error;
  }
  throw new Error('expected an input error');
}

describe('loadRun', () => {
  it('reads the layout a run writes as JSON.parse reads it, empty sections and CRLF included', () => {
    const run = sampleRun();
    const text = written(run);
    const expected = runResultSchema.parse(JSON.parse(text));
    expect(records(runFile(text))).toEqual(expected);
    expect(records(runFile(text.replaceAll('\n', '\r\n')))).toEqual(expected);
    const sparse = { ...run, turns: [], summaries: [] };
    expect(records(runFile(written(sparse)))).toEqual(runResultSchema.parse(JSON.parse(written(sparse))));
  });

  it('reads turn records that list every fact at every turn (older runs) as counts and changes, in either layout', () => {
    const { info } = sampleRun();
    const turn = (n: number, present: string[], missing: string[], critical: string[]) => ({
      strategy: 'trim-2',
      transcript: 't1',
      turn: n,
      fullTokens: 100 * n,
      contextTokens: 100,
      items: 2,
      factsPresent: present,
      factsMissing: missing,
      criticalDropped: critical,
      summaries: 0,
    });
    const old = { info, turns: [turn(1, ['f1'], [], []), turn(2, ['f2'], ['f1'], ['f1']), turn(3, ['f2', 'f3'], ['f1'], ['f1'])], probes: [], summaries: [] };
    const expected = [
      { factsPresentCount: 1, factsMissingCount: 0, criticalMissingCount: 0, factsLost: [], factsRegained: [], criticalLost: [] },
      { factsPresentCount: 1, factsMissingCount: 1, criticalMissingCount: 1, factsLost: ['f1'], factsRegained: [], criticalLost: ['f1'] },
      { factsPresentCount: 2, factsMissingCount: 1, criticalMissingCount: 1, factsLost: [], factsRegained: [], criticalLost: [] },
    ];
    // As those runs wrote it: a turn record per line, where later runs write a table per job.
    const recordLines = old.turns.map((t) => JSON.stringify(t)).join(',\n');
    const byRecord = written({ info, turns: [], probes: [], summaries: [] }).replace('\n"turns":[],\n', `\n"turns":[\n${recordLines}],\n`);
    expect(byRecord).toContain(`\n${JSON.stringify(old.turns[2])}],\n"probes":[]`);
    const streamed = loadRun(runFile(byRecord));
    expect(streamed.turns).toMatchObject(expected);
    expect(streamed.turns[0]).not.toHaveProperty('factsPresent');
    expect(loadRun(runFile(JSON.stringify(old, null, 2))).turns).toMatchObject(expected);
  });

  it('reads a run.json in another layout (pretty-printed, one line, as a run starts) whole', () => {
    const run = sampleRun();
    const expected = runResultSchema.parse(JSON.parse(JSON.stringify(run)));
    expect(records(runFile(JSON.stringify(run, null, 2)))).toEqual(expected);
    expect(records(runFile(JSON.stringify(run)))).toEqual(expected);
    expect(loadRun(runFile(JSON.stringify({ info: run.info, turns: [], probes: [], summaries: [] }, null, 1))).probes).toEqual([]);
  });

  it('reads lines that are not JSON on their own whole when the file is valid JSON', () => {
    const run = sampleRun();
    // Our layout up to a record split over two lines.
    const text = written(run).replace(/^(\{"strategy":"full","transcript":"t1","columns":)/m, '$1\n');
    expect(text).toContain('"columns":\n');
    expect(records(runFile(text))).toEqual(runResultSchema.parse(JSON.parse(text)));
  });

  it('parses a file in a layout that only looks like ours once as one JSON text', () => {
    // A record split where the next line starts with `{`: every line still looks like a record line.
    const text = written(sampleRun()).replace('"usage":{', '"usage":\n{');
    expect(text).toContain('"usage":\n{');
    const expected = runResultSchema.parse(JSON.parse(text));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(records(runFile(text))).toEqual(expected);
      expect(parse.mock.calls.filter(([arg]) => arg === text)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('names the line and column of every damaged record line', () => {
    const text = written(sampleRun());
    const turn = '{"strategy":"full","transcript":"t1","columns":';
    const probe = '{"strategy":"summ","transcript":"t2","columns":["probe"';
    const damaged = text.replace(turn, turn.replace('"transcript":', '"transcript" ')).replace(probe, probe.replace('"columns":', '"columns"'));
    const message = errorOf(() => loadRun(runFile(damaged))).message.split('\n');
    // `"transcript" "t1"` in a turn table: a string where the colon belongs, at offset 32 of the line, column 33.
    expect(message).toEqual([
      expect.stringMatching(new RegExp(`run\\.json:${lineOf(text, turn)}:33: invalid JSON \\(Unexpected string in JSON at position 32`)),
      expect.stringMatching(new RegExp(`run\\.json:${lineOf(text, probe)}:\\d+: invalid JSON`)),
    ]);
  });

  it('names the line of a turn table whose row is of the wrong shape, and the row and column', () => {
    const text = written(sampleRun());
    const table = '{"strategy":"trim-2","transcript":"t1","columns":';
    const damaged = text.replace(/^(\{"strategy":"trim-2","transcript":"t1","columns":.*?"rows":\[\[1,100,100,0,2,1,0,0,0,\[\],\[\],\[\],0,null,null\],\[)2,/m, '$1"two",');
    expect(damaged).not.toBe(text);
    const file = runFile(damaged);
    const index = text.split('\n').filter((l) => l.startsWith('{"strategy"') && l.includes('"columns":')).findIndex((l) => l.startsWith(table));
    expect(errorOf(() => loadRun(file)).message).toBe(`${file}:${lineOf(text, table)}:1: "turns[${index}].rows[1].turn" must be a number`);
  });

  it('names the line of a turn table whose row has a cell too many', () => {
    const text = written(sampleRun());
    const table = '{"strategy":"trim-2","transcript":"t1","columns":';
    const damaged = text.replace(/^(\{"strategy":"trim-2","transcript":"t1","columns":.*?"rows":\[\[1,100,100,0,2,1,0,0,0,\[\],\[\],\[\],0,null,null)\]/m, '$1,7]');
    expect(damaged).not.toBe(text);
    const file = runFile(damaged);
    const index = text.split('\n').filter((l) => l.startsWith('{"strategy"') && l.includes('"columns":')).findIndex((l) => l.startsWith(table));
    expect(errorOf(() => loadRun(file)).message).toBe(`${file}:${lineOf(text, table)}:1: "turns[${index}].rows[0]": has 16 cells for 15 columns`);
  });

  it('reads turn records written a record per line (older runs) as the tables a run writes now', () => {
    const run = sampleRun();
    const keyed = written(run).replace(/"turns":\[\n[\s\S]*?\],\n"probes"/, `"turns":[\n${run.turns.map((t) => JSON.stringify(t)).join(',\n')}],\n"probes"`);
    expect(keyed).toContain('{"strategy":"full","transcript":"t1","turn":1,');
    expect(records(runFile(keyed))).toEqual(records(runFile(written(run))));
  });

  it('names the table line and row of each probe record of the wrong shape, and shows the first 20 problems', () => {
    const run = sampleRun();
    const text = written(run);
    const bad = written({ ...run, probes: run.probes.map((p) => ({ ...p, repeat: 'twice' as unknown as number })) });
    const file = runFile(bad);
    const lines = errorOf(() => loadRun(file)).message.split('\n');
    // A table line per strategy × transcript: six rows for t1 (three probes asked twice), four for t2.
    const first = lineOf(text, '{"strategy":"full","transcript":"t1","columns":["probe"');
    expect(lines[0]).toBe(`${file}:${first}:1: "probes[0].rows[0].repeat" must be a number`);
    expect(lines[6]).toBe(`${file}:${first + 1}:1: "probes[1].rows[0].repeat" must be a number`);
    expect(lines[19]).toBe(`${file}:${first + 3}:1: "probes[3].rows[3].repeat" must be a number`);
    expect(lines.slice(20)).toEqual([`${file}:${first + 4}:1: 10 more problems not shown`]);
  });

  it('names the line of each probe record of the wrong shape in a run.json with a record per probe (older runs)', () => {
    const run = sampleRun();
    const bad = { ...run, probes: run.probes.map((p) => ({ ...p, repeat: 'twice' as unknown as number })) };
    const text = probesByRecord(bad);
    const file = runFile(text);
    const lines = errorOf(() => loadRun(file)).message.split('\n');
    const first = lineOf(text, '{"strategy":"full","transcript":"t1","probe":"p1"');
    expect(lines[0]).toBe(`${file}:${first}:1: "probes[0].repeat" must be a number`);
    expect(lines[19]).toBe(`${file}:${first + 19}:1: "probes[19].repeat" must be a number`);
    expect(lines.slice(20)).toEqual([`${file}:${first + 20}:1: 10 more problems not shown`]);
    // Read whole, a bad record is named at its field too (not as a table that does not fit).
    expect(errorOf(() => loadRun(runFile(JSON.stringify(bad, null, 1)))).message.split('\n')[0]).toMatch(/run\.json: "probes\[0\]\.repeat" must be a number$/);
  });

  it('writes probe records as a table per job and reads a run.json with a record per probe (older runs) as those tables', () => {
    const run = sampleRun();
    const text = written(run);
    expect(text).not.toContain('{"strategy":"full","transcript":"t1","probe":');
    const keyed = probesByRecord(run);
    expect(keyed).toContain('\n{"strategy":"full","transcript":"t1","probe":"p1",');
    const expected = records(runFile(text));
    expect(records(runFile(keyed))).toEqual(expected);
    expect(records(runFile(JSON.stringify(JSON.parse(keyed), null, 2)))).toEqual(expected);
    // Absent fields stay absent and null `answerable` reads as null, as from the records.
    expect(expected).toEqual(runResultSchema.parse(JSON.parse(JSON.stringify(run))));
  });

  it('names the line of a probe table whose row is of the wrong shape, and the row and field', () => {
    const text = written(sampleRun());
    const table = '{"strategy":"trim-2","transcript":"t2","columns":["probe"';
    const damaged = text.replace(/^(\{"strategy":"trim-2","transcript":"t2","columns":\["probe".*?\],\["q1","multi-hop",)2,/m, '$1"two",');
    expect(damaged).not.toBe(text);
    const file = runFile(damaged);
    const index = text.split('\n').filter((l) => l.startsWith('{"strategy"') && l.includes('"columns":["probe"')).findIndex((l) => l.startsWith(table));
    expect(errorOf(() => loadRun(file)).message).toBe(`${file}:${lineOf(text, table)}:1: "probes[${index}].rows[1].afterTurn" must be a number`);
  });

  it('says so when a record line is not UTF-8, with its line', () => {
    const text = written(sampleRun());
    const line = lineOf(text, '{"strategy":"trim-2"');
    const [before, after] = [text.slice(0, text.indexOf('{"strategy":"trim-2"')), text.slice(text.indexOf('{"strategy":"trim-2"'))];
    const file = runFile(Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]));
    expect(errorOf(() => loadRun(file)).message).toBe(`${file}:${line}:1: line ${line} is not valid UTF-8`);
    // Read whole too: a pretty-printed file with the same bytes.
    const pretty = runFile(Buffer.concat([Buffer.from('{\n "info": "'), Buffer.from([0xff]), Buffer.from('"\n}\n')]));
    expect(errorOf(() => loadRun(pretty)).message).toBe(`${pretty}:2:1: line 2 is not valid UTF-8`);
  });

  it('refuses a large run.json in another layout with a reason, not a V8 string error', () => {
    const file = runFile(JSON.stringify(sampleRun(), null, 1));
    truncateSync(file, 300 * 1024 * 1024); // sparse: no disk, no time
    expect(errorOf(() => loadRun(file)).message).toMatch(/run\.json:1:1: not in the layout memeval writes run\.json in .*300 MiB too large to read as one JSON text/);
    expect(() => loadRunInfo(file)).toThrow(/not in the layout/);
  });
});

describe('loadRunInfo', () => {
  it('reads only as far as the info', () => {
    const run = sampleRun();
    const text = written(run);
    const head = text.slice(0, text.indexOf('"turns":[') + '"turns":[\n'.length);
    const file = runFile(head);
    appendFileSync(file, Buffer.from([0xff, 0xfe, 0x0a])); // not UTF-8, not JSON: never read
    appendFileSync(file, 'garbage\n');
    expect(loadRunInfo(file)).toEqual(runResultSchema.shape.info.parse(run.info));
    expect(() => loadRun(file)).toThrow(/not valid UTF-8/);
  });

  it('reads the info of any other layout whole, and names the field of a bad info', () => {
    const run = sampleRun();
    expect(loadRunInfo(runFile(JSON.stringify(run, null, 1)))).toEqual(runResultSchema.shape.info.parse(run.info));
    const bad = written({ ...run, info: { ...run.info, runId: 7 as unknown as string } });
    // The layout a run writes: at the value's line and column.
    const at = `${lineOf(bad, ' "runId"')}:${' "runId": '.length + 1}`;
    expect(errorOf(() => loadRunInfo(runFile(bad))).message).toMatch(new RegExp(`run\\.json:${at}: "info\\.runId" must be text$`));
    expect(errorOf(() => loadRun(runFile(bad))).message).toMatch(new RegExp(`run\\.json:${at}: "info\\.runId" must be text$`));
    const status = written({ ...run, info: { ...run.info, status: 'fine' as 'complete' } });
    expect(errorOf(() => loadRunInfo(runFile(status))).message).toMatch(new RegExp(`run\\.json:${lineOf(status, ' "status"')}:\\d+: "info\\.status" must be one of`));
  });

  it('names the place of a syntax error in the info', () => {
    const text = written(sampleRun()).replace('"runId":', '"runId"');
    expect(errorOf(() => loadRunInfo(runFile(text))).message).toMatch(new RegExp(`run\\.json:${lineOf(text, ' "runId"')}:\\d+: invalid JSON`));
  });
});
