// A journal torn by a kill mid-write keeps every whole entry, before and after a resume.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Journal, finishedWork, readJournal } from '../../../harness/run/journal.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('appends after a torn last line without gluing the new entry to it', () => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-journal-'));
  const path = join(dir, 'journal.jsonl');
  const first = new Journal(path);
  first.open();
  first.append({ type: 'job-done', job: 'a::t1' });
  first.close();
  appendFileSync(path, '{"type":"job-done","job":"a::t'); // killed mid-write

  const resumed = new Journal(path);
  resumed.open();
  resumed.append({ type: 'job-done', job: 'b::t2' });
  resumed.close();

  expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  expect([...finishedWork(readJournal(path)).jobsDone]).toEqual(['a::t1', 'b::t2']);
});

it('adds nothing to a journal that ends cleanly or does not exist yet', () => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-journal-'));
  const path = join(dir, 'journal.jsonl');
  for (let i = 0; i < 2; i++) {
    const j = new Journal(path);
    j.open();
    j.append({ type: 'job-done', job: `s::t${i}` });
    j.close();
  }
  expect(readFileSync(path, 'utf8')).toBe('{"type":"job-done","job":"s::t0"}\n{"type":"job-done","job":"s::t1"}\n');
});
