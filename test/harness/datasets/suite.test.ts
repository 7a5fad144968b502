import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../harness/config.js';
import { type InputError, isInputError } from '../../../core/errors.js';
import { loadSuite, readSuite, reloadTranscript, transcriptSource } from '../../../harness/datasets/transcript.js';
import { DEFAULT_LIMITS } from '../../../harness/schema/limits.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BAD = 'test/fixtures/bad';

async function suiteProblems(globs: string[], baseDir = ROOT): Promise<string[]> {
  try {
    await loadSuite(globs, baseDir);
  } catch (e) {
    expect(isInputError(e)).toBe(true);
    return (e as InputError).message.split('\n');
  }
  throw new Error('expected an InputError');
}

describe('loadSuite', () => {
  it('expands globs relative to baseDir, sorted and de-duplicated', async () => {
    const suite = await loadSuite(['datasets/cookbook/*.yaml', 'datasets/cookbook/trimming-*.yaml', 'datasets/cookbook/**/*.yaml'], ROOT);
    expect(suite.map((t) => t.id)).toEqual(['cookbook-summarizing-router', 'cookbook-trimming-laptop']);
  });

  it('reads a file reached through a folder link (or a loop of them) once, not as two transcripts with one id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-suite-link-'));
    try {
      mkdirSync(join(dir, 'g', 'sub'), { recursive: true });
      writeFileSync(join(dir, 'g', 'sub', 'ok.yaml'), 'id: router\nturns:\n  - user: hi\n');
      symlinkSync('..', join(dir, 'g', 'sub', 'loop'), 'dir');
      const suite = await loadSuite(['g/**/*.yaml'], dir);
      expect(suite.map((t) => [t.id, t.file])).toEqual([['router', join(dir, 'g', 'sub', 'ok.yaml')]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts absolute globs whatever the baseDir', async () => {
    const suite = await loadSuite([`${ROOT}/datasets/cookbook/*.yaml`], '/');
    expect(suite).toHaveLength(2);
    expect(suite[0].file.endsWith('datasets/cookbook/summarizing-router.yaml')).toBe(true);
  });

  it('excludes files matched by a !pattern', async () => {
    const suite = await loadSuite(['datasets/cookbook/*.yaml', '!**/trimming-*'], ROOT);
    expect(suite.map((t) => t.id)).toEqual(['cookbook-summarizing-router']);
    expect(await suiteProblems(['datasets/cookbook/*.yaml', '!datasets/cookbook/**'])).toEqual(['datasets/cookbook/*.yaml: no transcript files match']);
  });

  it('reports a glob that matches nothing', async () => {
    const found = await suiteProblems(['datasets/cookbook/*.yaml', 'datasets/nope/**/*.yaml']);
    expect(found).toEqual(['datasets/nope/**/*.yaml: no transcript files match']);
  });

  it('reports transcript ids used by two files, naming both', async () => {
    const found = await suiteProblems([`${BAD}/dup-ids/*.yaml`]);
    expect(found).toHaveLength(1);
    expect(found[0]).toBe(`${BAD}/dup-ids/b.yaml:2:5: transcript id "same" is also used by ${BAD}/dup-ids/a.yaml:1:5`);
  });

  it('collects problems across all files of the suite', async () => {
    const found = await suiteProblems([`${BAD}/mixed/*.yaml`, 'missing/*.yaml']);
    expect(found[0]).toBe('missing/*.yaml: no transcript files match');
    expect(found.some((l) => l.startsWith(`${BAD}/mixed/syntax.yaml:3:1: YAML syntax error: Missing closing "quote`))).toBe(true);
    expect(found).toContain(`${BAD}/mixed/typo.yaml:3:5: unknown key "asistant" in turn 1 (did you mean "assistant"?)`);
    expect(found.some((l) => l.includes('good.yaml'))).toBe(false);
  });

  it('loads the bundled suite with the default dataset globs', async () => {
    const suite = await loadSuite(defaultConfig(ROOT).datasets, ROOT);
    expect(suite.length).toBeGreaterThanOrEqual(2);
    expect(suite.some((t) => t.file.includes('calibration'))).toBe(false);
  });

  it('rejects an empty suite', async () => {
    expect(await suiteProblems([])).toEqual([`${ROOT}: no dataset globs given, so the suite is empty`]);
  });
});

describe('readSuite and reloadTranscript (a run keeps headers and reads each transcript again)', () => {
  it('keeps what `keep` returns and reads back the transcript loadSuite gives', async () => {
    const kept = await readSuite(['datasets/cookbook/*.yaml'], ROOT, DEFAULT_LIMITS, (t, file) => ({ id: t.id, source: transcriptSource(file) }));
    expect(kept.map((k) => k.id)).toEqual(['cookbook-summarizing-router', 'cookbook-trimming-laptop']);
    const loaded = await loadSuite(['datasets/cookbook/*.yaml'], ROOT);
    expect(kept.map((k) => reloadTranscript(k.source, DEFAULT_LIMITS))).toEqual(loaded);
  });

  it('refuses a transcript whose file changed after the suite was checked, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-reload-'));
    try {
      const file = join(dir, 'a.yaml');
      writeFileSync(file, 'id: a\nturns:\n  - user: "My order is BC-1."\n');
      const [kept] = await readSuite(['*.yaml'], dir, DEFAULT_LIMITS, (_t, file) => transcriptSource(file));
      expect(reloadTranscript(kept, DEFAULT_LIMITS).turns).toHaveLength(1);
      writeFileSync(file, 'id: a\nturns:\n  - user: "My order is BC-2."\n');
      const error = (() => {
        try {
          reloadTranscript(kept, DEFAULT_LIMITS);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isInputError(error)).toBe(true);
      expect((error as InputError).message).toMatch(/a\.yaml: changed while the run was using it/);
      // A file made invalid is reported as any invalid file is, at its line.
      writeFileSync(file, 'id: a\nturns:\n  - usr: "typo"\n');
      expect(() => reloadTranscript(kept, DEFAULT_LIMITS)).toThrow(/a\.yaml:3:5: unknown key "usr"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
