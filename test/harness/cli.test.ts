// The CLI in-process: gate exit codes through `run --gate`, bare globs, `report`.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../harness/cli.js';
import { LOCK_FILE, lockRunDir } from '../../harness/run/run-dir.js';
import { captureOutput } from '../helpers/output.js';

const TRANSCRIPT = `id: tiny
turns:
  - user: My order number is A-1234.
    assistant: Thanks.
  - user: Please ship it to Oslo.
    assistant: Noted.
facts:
  - { id: order, text: A-1234, turn: 1, critical: true }
probes:
  - { id: order, after_turn: 2, question: What is my order number?, answer: A-1234, must_include: [A-1234], facts: [order] }
`;

function workspace(gateMin: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-cli-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'tiny.yaml'), TRANSCRIPT);
  writeFileSync(
    join(dir, 'memeval.config.yaml'),
    `datasets: [data/*.yaml]\nout: runs\ncache: false\nstrategies:\n  - { id: full, use: full-history }\n  - { id: trim-1, use: trimming, max_turns: 1 }\n` +
      `gates:\n  - { metric: probe.accuracy, strategy: trim-1, min: ${gateMin} }\n`,
  );
  return dir;
}

describe('memeval CLI', () => {
  let dirs: string[] = [];
  beforeEach(() => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    dirs = [];
  });

  it('run --gate exits 100 when a gate fails and 0 when it passes, writing junit.xml', async () => {
    const failing = workspace(0.9);
    const passing = workspace(0);
    dirs.push(failing, passing);
    // trim-1 keeps only turn 2, so the order number is gone and the probe fails.
    expect(await main(['run', '--config', join(failing, 'memeval.config.yaml'), '--gate'])).toBe(100);
    expect(await main(['run', '--config', join(passing, 'memeval.config.yaml'), '--gate'])).toBe(0);
    const run = readdirSync(join(failing, 'runs'))[0];
    expect(existsSync(join(failing, 'runs', run, 'junit.xml'))).toBe(true);
  });

  it('takes bare globs as datasets and re-renders reports with `report`', async () => {
    const dir = workspace(0);
    dirs.push(dir);
    const code = await main(['run', '--config', join(dir, 'memeval.config.yaml'), '--strategies', 'full', join(dir, 'data', 'tiny.yaml')]);
    expect(code).toBe(0);
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]);
    rmSync(join(runDir, 'report.html'));
    expect(await main(['report', runDir])).toBe(0);
    expect(existsSync(join(runDir, 'report.html'))).toBe(true);
    expect(await main(['report'])).toBe(2);
  });

  it('refuses a --model or --judge that is not a model name, and a --strategies that names none, before any work', async () => {
    const dir = workspace(0);
    dirs.push(dir);
    const config = join(dir, 'memeval.config.yaml');
    expect(await main(['run', '--config', config, '--model', 'offlin'])).toBe(2);
    expect(await main(['run', '--config', config, '--judge', 'nowhere:gpt'])).toBe(2);
    expect(await main(['run', '--config', config, '--model', ''])).toBe(2);
    expect(await main(['run', '--config', config, '--strategies', ''])).toBe(2);
    expect(await main(['run', '--config', config, '--strategies', ' , '])).toBe(2);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    expect(await main(['run', '--config', config, '--model', 'offline', '--strategies', 'full'])).toBe(0);
  });

  it('an unknown flag of run names the flag meant', async () => {
    const stderr = vi.mocked(process.stderr.write);
    expect(await main(['run', '--strategie', 'full'])).toBe(2);
    expect(stderr.mock.calls.flat().join('')).toContain('did you mean --strategies?');
  });

  it('--resume refuses the flags that would change what the run measures, naming them, rather than dropping them', async () => {
    const dir = workspace(0);
    dirs.push(dir);
    const output = vi.mocked(process.stderr.write);
    expect(await main(['run', '--resume', join(dir, 'runs', 'x'), '--model', 'openai:gpt-4o', '--strategies', 'full', '--repeat', '3'])).toBe(2);
    expect(output.mock.calls.flat().join('')).toContain('leave out --strategies, --model, --repeat');
  });

  it('--resume of a run directory moved away from its project says so, rather than that no file matches', async () => {
    const dir = workspace(0);
    dirs.push(dir);
    expect(await main(['run', '--config', join(dir, 'memeval.config.yaml'), '--strategies', 'full'])).toBe(0);
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]);
    // As an interrupted run would be, then moved two folders deeper.
    const moved = join(dir, 'elsewhere', 'deep', 'run');
    mkdirSync(join(dir, 'elsewhere', 'deep'), { recursive: true });
    cpSync(runDir, moved, { recursive: true });
    writeFileSync(join(moved, 'run.json'), readFileSync(join(moved, 'run.json'), 'utf8').replace('"status": "complete"', '"status": "interrupted"'));
    writeFileSync(join(moved, 'journal.jsonl'), '');
    const stderr = vi.mocked(process.stderr.write);
    expect(await main(['run', '--resume', moved])).toBe(2);
    expect(stderr.mock.calls.flat().join('')).toContain('a run directory moved away from its project');
  });

  it('`report` refuses a run directory another process holds (a run writing it), and leaves its files alone', async () => {
    const dir = workspace(0);
    dirs.push(dir);
    expect(await main(['run', '--config', join(dir, 'memeval.config.yaml'), '--strategies', 'full'])).toBe(0);
    const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]);
    rmSync(join(runDir, 'report.html'));
    const release = lockRunDir(runDir);
    try {
      expect(await main(['report', runDir])).toBe(2);
      expect(existsSync(join(runDir, 'report.html'))).toBe(false);
    } finally {
      release();
    }
    expect(await main(['report', join(runDir, 'run.json')])).toBe(0);
    expect(existsSync(join(runDir, 'report.html'))).toBe(true);
    expect(existsSync(join(runDir, LOCK_FILE))).toBe(false);
  });
});

describe('a path the file system refuses', () => {
  const output = captureOutput();

  it('is bad input (exit 2) named by its path, whatever command met it, with no stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-cli-'));
    try {
      const file = join(dir, 'notes.txt');
      writeFileSync(file, 'a file, not a folder');
      // calibrate writes under --out: here a file stands where its folder should be.
      expect(await main(['calibrate', '--judge', 'offline', '--out', file])).toBe(2);
      expect(output.stderr()).toContain(`${file}`);
      expect(output.stderr()).toMatch(/a part of this path is a file, not a folder|already exists as a file|is a file, not a folder/);
      expect(output.stderr()).not.toMatch(/^\s{4}at\s/m);
      output.clearStderr();
      expect(await main(['import', 'locomo', join(dir, 'nowhere.json'), '--out', join(dir, 'out')])).toBe(2);
      expect(output.stderr()).toMatch(/nowhere\.json: no such file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--help after a command', () => {
  const output = captureOutput();

  it.each(['calibrate', 'diff', 'export', 'report', 'gate', 'strategies'])('%s --help prints its usage and exits 0', async (command) => {
    expect(await main([command, '--help'])).toBe(0);
    expect(output.stdout()).toMatch(new RegExp(`^Usage:\\n  memeval ${command}`));
    expect(output.stderr()).toBe('');
  });

  it('`strategies` with an argument it does not take is a usage error, not the list', async () => {
    expect(await main(['strategies', '--bogus'])).toBe(2);
    expect(output.stdout()).toBe('');
  });
});
