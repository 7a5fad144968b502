import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeChunksAtomic, writeFileAtomic, writeFilesAtomic } from '../../core/atomic.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-atomic-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A target the rename cannot replace: a non-empty directory (rename gives EISDIR or ENOTEMPTY). */
function unreplaceable(dir: string): string {
  const path = join(dir, 'probes.csv');
  mkdirSync(path);
  writeFileSync(join(path, 'keep'), 'x');
  return path;
}

describe('writeChunksAtomic', () => {
  it('writes every chunk in order and leaves only the target', () => {
    const dir = tempDir();
    writeChunksAtomic(join(dir, 'turns.csv'), ['a,b\n', '1,2\n', '3,4\n']);
    expect(readFileSync(join(dir, 'turns.csv'), 'utf8')).toBe('a,b\n1,2\n3,4\n');
    expect(readdirSync(dir)).toEqual(['turns.csv']);
  });

  it('replaces an existing file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.csv'), 'old');
    writeChunksAtomic(join(dir, 'turns.csv'), ['new']);
    expect(readFileSync(join(dir, 'turns.csv'), 'utf8')).toBe('new');
  });

  it('surfaces the real error of a failing rename and leaves no temp file', () => {
    const dir = tempDir();
    const path = unreplaceable(dir);
    expect(() => writeChunksAtomic(path, ['a', 'b'])).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) }));
    expect(readdirSync(dir)).toEqual(['probes.csv']);
  });

  it('removes the temp file when producing a chunk fails, and rethrows that error', () => {
    const dir = tempDir();
    function* failing(): Generator<string> {
      yield 'half a file';
      throw new Error('source broke');
    }
    expect(() => writeChunksAtomic(join(dir, 'turns.csv'), failing())).toThrow('source broke');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('writeFileAtomic', () => {
  it('writes the text and, on a failing rename, throws its error without leaving a temp file', () => {
    const dir = tempDir();
    writeFileAtomic(join(dir, 'run.json'), '{"ok":true}');
    expect(readFileSync(join(dir, 'run.json'), 'utf8')).toBe('{"ok":true}');
    const path = unreplaceable(dir);
    expect(() => writeFileAtomic(path, 'x')).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) }));
    expect(readdirSync(dir).sort()).toEqual(['probes.csv', 'run.json']);
  });
});

describe('writeFilesAtomic', () => {
  it('writes each named text into the directory and returns the paths in order', () => {
    const dir = tempDir();
    const paths = writeFilesAtomic(dir, [['b.csv', 'b'], ['a.md', 'a']]);
    expect(paths).toEqual([join(dir, 'b.csv'), join(dir, 'a.md')]);
    expect(paths.map((p) => readFileSync(p, 'utf8'))).toEqual(['b', 'a']);
    expect(readdirSync(dir).sort()).toEqual(['a.md', 'b.csv']);
  });
});
