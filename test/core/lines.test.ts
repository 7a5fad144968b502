// The line reader that lets run.json and journal.jsonl outgrow V8's longest string.
import { describe, expect, it } from 'vitest';
import { LineError, readLines, type ReadLinesOptions } from '../../core/lines.js';
import { tempWorkspaces } from '../helpers/cli.js';

const workspace = tempWorkspaces();
const fileWith = (content: string | Buffer) => workspace().write('f.txt', content);

const lines = (path: string, options?: ReadLinesOptions) => [...readLines(path, options)];

describe('readLines', () => {
  it('gives every line with its number, whatever chunk boundaries fall inside lines, newlines or characters', () => {
    const text = 'first\n\nthird line is longer than a chunk\nüñï€😀 wide\nlast\n';
    const expected = text.split('\n').slice(0, -1).map((t, i) => ({ text: t, line: i + 1 }));
    for (const chunkSize of [1, 2, 3, 5, 7, 64]) expect(lines(fileWith(text), { chunkSize }), `chunk ${chunkSize}`).toEqual(expected);
  });

  it('names the path when it is a folder, so the error can say which', () => {
    const folder = workspace().path('.');
    expect(() => lines(folder)).toThrow(expect.objectContaining({ code: 'EISDIR', path: folder }));
  });

  it('reads CRLF lines without their \\r and a last line without a newline', () => {
    expect(lines(fileWith('a\r\nb\r\n\r\nc'), { chunkSize: 2 })).toEqual([
      { text: 'a', line: 1 },
      { text: 'b', line: 2 },
      { text: '', line: 3 },
      { text: 'c', line: 4 },
    ]);
    expect(lines(fileWith(''))).toEqual([]);
    expect(lines(fileWith('\n'))).toEqual([{ text: '', line: 1 }]);
  });

  it('reports invalid UTF-8 with its line, or reads it as U+FFFD when asked', () => {
    // A character cut in half (a kill mid-write) on line 3, across a chunk boundary.
    const bytes = Buffer.concat([Buffer.from('ok\nfine\nbad '), Buffer.from('€').subarray(0, 2), Buffer.from('\nafter\n')]);
    const path = fileWith(bytes);
    expect(() => lines(path, { chunkSize: 4 })).toThrow(expect.objectContaining({ name: 'LineError', kind: 'invalid-utf8', line: 3, message: 'line 3 is not valid UTF-8' }));
    expect(lines(path, { chunkSize: 4, invalidUtf8: 'replace' }).map((l) => l.text)).toEqual(['ok', 'fine', 'bad \uFFFD', 'after']);
  });

  it('refuses a line longer than its limit instead of building a string V8 cannot hold', () => {
    const path = fileWith(`short\n${'x'.repeat(100)}\n`);
    let error: unknown;
    try {
      lines(path, { chunkSize: 8, maxLineBytes: 50 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LineError);
    expect(error).toMatchObject({ kind: 'too-long', line: 2 });
    expect(() => lines(path, { chunkSize: 512, maxLineBytes: 50 })).toThrow(/line 2 is longer than/);
    expect(lines(path, { chunkSize: 8, maxLineBytes: 100 })).toHaveLength(2);
  });
});
