// A run directory appears whole or not at all, is held by one process at a
// time, and a damaged run.json is bad input with a place, not a crash.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInputError, UsageError } from '../../../core/errors.js';
import { createRunDir, LOCK_FILE, lockRunDir, removeStalePartials, removeStaleTemps } from '../../../harness/run/run-dir.js';
import { resumableRun } from '../../../harness/run/run.js';
import { Workspace } from '../../helpers/cli.js';

const ws = new Workspace();
afterAll(() => ws.cleanup());

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid ?? 999_999;
}

describe('run directory lock', () => {
  it('refuses a second holder with who holds it, and frees the directory on release', () => {
    const dir = ws.path('locked');
    mkdirSync(dir, { recursive: true });
    const release = lockRunDir(dir);
    expect(() => lockRunDir(dir)).toThrow(UsageError);
    expect(() => lockRunDir(dir)).toThrow(new RegExp(`in use by process ${process.pid} on ${hostname()}`));
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockRunDir(dir)();
  });

  it('takes over a lock whose process is gone (a killed run stays resumable)', () => {
    const dir = ws.path('stale');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: 'then' }));
    const release = lockRunDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('never takes over a lock from another machine (its process cannot be checked from here)', () => {
    const dir = ws.path('remote');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: `not-${hostname()}`, startedAt: 'then' }));
    expect(() => lockRunDir(dir)).toThrow(/in use by process/);
  });
});

describe('createRunDir', () => {
  it('creates the directory with run.json inside and locked, with no partial directory left', () => {
    const out = ws.path('out-a');
    mkdirSync(out);
    const dir = join(out, 'run-1');
    const release = createRunDir(dir, '{"info":{}}');
    expect(readdirSync(out)).toEqual(['run-1']);
    expect(readFileSync(join(dir, 'run.json'), 'utf8')).toBe('{"info":{}}');
    expect(() => lockRunDir(dir)).toThrow(/in use/);
    release();
    expect(readdirSync(dir)).toEqual(['run.json']);
  });

  it('removes partial directories of dead processes, and keeps those of live ones', () => {
    const out = ws.path('out-b');
    mkdirSync(join(out, `r1.${deadPid()}.partial`), { recursive: true });
    mkdirSync(join(out, `r2.${process.pid}.partial`), { recursive: true });
    mkdirSync(join(out, 'finished-run'), { recursive: true });
    removeStalePartials(out);
    expect(readdirSync(out).sort()).toEqual(['finished-run', `r2.${process.pid}.partial`]);
  });

  it('removes temp files of killed atomic writes from a run directory', () => {
    const dir = ws.path('temps');
    mkdirSync(dir);
    writeFileSync(join(dir, '.run.json.4242-a1b2c3.tmp'), 'half');
    writeFileSync(join(dir, '.probes.csv.abcdef.tmp'), 'half');
    writeFileSync(join(dir, 'journal.jsonl'), '');
    removeStaleTemps(dir);
    expect(readdirSync(dir)).toEqual(['journal.jsonl']);
  });
});

describe('resuming a damaged run directory', () => {
  function damaged(name: string, text: string): string {
    const dir = ws.path(`damaged/${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), text);
    return dir;
  }

  function problem(dir: string): string {
    try {
      resumableRun(dir);
    } catch (error) {
      expect(isInputError(error), String(error)).toBe(true);
      const message = (error as Error).message;
      expect(message.split('\n').length).toBeLessThanOrEqual(20);
      return message;
    }
    throw new Error('expected an input error');
  }

  it('names the file and the place of a JSON syntax error', () => {
    const message = problem(damaged('torn', '{"info": {"runId": "x",\n "status": '));
    expect(message).toMatch(/run\.json(:\d+:\d+)?: invalid JSON/);
  });

  it('names the field of an info that does not fit its schema', () => {
    const message = problem(damaged('shape', '{"info": {"runId": 7}, "turns": [], "probes": [], "summaries": []}'));
    expect(message).toContain('run.json');
    expect(message).toContain('"info.runId"');
  });

  it('says a directory without run.json is not a run directory', () => {
    const dir = ws.path('empty-dir');
    mkdirSync(dir);
    expect(() => resumableRun(dir)).toThrow(/not a run directory/);
  });
});
