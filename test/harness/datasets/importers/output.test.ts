import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportInterrupted, importBenchmark } from '../../../../harness/datasets/importers/index.js';
import { looksLikeTranscript } from '../../../../harness/datasets/importers/output.js';
import { runCli } from '../../../helpers/cli.js';
import { inputErrorOf } from '../../../helpers/errors.js';

const LME = join(import.meta.dirname, '../../../fixtures/importers/longmemeval-mini.json');
const ALL = ['lme-a1b2c3.yaml', 'lme-ku-0007.yaml', 'lme-ms-0100.yaml', 'lme-pref-9.yaml', 'lme-tr-0042_abs.yaml'];
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-import-out-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file of `folder` with its bytes, to show an import left it exactly as it was. */
function snapshot(folder: string): Record<string, string> {
  return Object.fromEntries(readdirSync(folder).sort().map((n) => [n, readFileSync(join(folder, n), 'utf8')]));
}

function stagingLeft(): string[] {
  return readdirSync(dir).filter((n) => n.includes('.import-'));
}

describe('import output folder', () => {
  it('refuses a folder holding transcripts it would not write, naming how many and one, and changes nothing', async () => {
    const out = join(dir, 'stale');
    await importBenchmark('longmemeval', LME, { out });
    writeFileSync(join(out, 'notes.yaml'), 'title: my notes\n');
    writeFileSync(join(out, 'README.md'), '# not a transcript\n');
    const before = snapshot(out);
    const message = await inputErrorOf(() => importBenchmark('longmemeval', LME, { out, limit: 2 }));
    expect(message).toMatch(/holds 3 memeval transcripts this import did not write \(e\.g\. lme-ms-0100\.yaml\).*--clean/);
    expect(snapshot(out)).toEqual(before);
    expect(stagingLeft()).toEqual([]);
  });

  it('with clean, removes only the stale transcripts and keeps every other file', async () => {
    const out = join(dir, 'stale');
    const summary = await importBenchmark('longmemeval', LME, { out, limit: 2, clean: true });
    expect(summary.removed).toEqual(['lme-ms-0100.yaml', 'lme-pref-9.yaml', 'lme-tr-0042_abs.yaml']);
    expect(readdirSync(out).sort()).toEqual(['README.md', 'lme-a1b2c3.yaml', 'lme-ku-0007.yaml', 'notes.yaml']);
  });

  it('re-importing the same records into their folder needs no clean', async () => {
    const out = join(dir, 'again');
    await importBenchmark('longmemeval', LME, { out });
    const summary = await importBenchmark('longmemeval', LME, { out });
    expect(summary.removed).toEqual([]);
    expect(readdirSync(out).sort()).toEqual(ALL);
  });

  it('a syntax error late in the file leaves an earlier import untouched and nothing half-written', async () => {
    const out = join(dir, 'atomic');
    await importBenchmark('longmemeval', LME, { out });
    const before = snapshot(out);
    const text = readFileSync(LME, 'utf8').trimEnd();
    const broken = join(dir, 'broken.json');
    // The same five records with their question texts changed, then a broken sixth: nothing may be replaced.
    writeFileSync(broken, `${text.slice(0, -1).replaceAll('"question": "', '"question": "Changed: ')}, {"question_id": }]`);
    const message = await inputErrorOf(() => importBenchmark('longmemeval', broken, { out, clean: true }));
    expect(message).toMatch(/invalid JSON in list element 5/);
    expect(snapshot(out)).toEqual(before);
    expect(stagingLeft()).toEqual([]);
  });

  it('an interrupted import writes nothing and removes its staging folder', async () => {
    const out = join(dir, 'interrupted');
    const controller = new AbortController();
    controller.abort();
    await expect(importBenchmark('longmemeval', LME, { out, signal: controller.signal })).rejects.toBeInstanceOf(ImportInterrupted);
    expect(existsSync(out)).toBe(false);
    expect(stagingLeft()).toEqual([]);
  });

  it('recognises transcripts by their top-level id and turns keys only', () => {
    const path = (name: string, text: string): string => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    expect(looksLikeTranscript(path('t.yaml', 'id: x\ntitle: y\nturns:\n  - user: hi\n'))).toBe(true);
    expect(looksLikeTranscript(path('c.yaml', 'models:\n  id: x\nturns: 3\n'))).toBe(false);
    expect(looksLikeTranscript(path('n.yaml', 'id: x\nnotes: no turns here\n'))).toBe(false);
    expect(looksLikeTranscript(join(dir, 'missing.yaml'))).toBe(false);
  });

  it('the command exits 2 and says why when the folder holds an earlier import', async () => {
    const out = join(dir, 'cli');
    mkdirSync(out);
    writeFileSync(join(out, 'old-import.yaml'), 'id: old-import\nturns:\n  - user: hi\n');
    const result = await runCli(['import', 'longmemeval', LME, '--out', out], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/holds 1 memeval transcript this import did not write \(e\.g\. old-import\.yaml\)/);
    expect(readdirSync(out)).toEqual(['old-import.yaml']);
  });
});
