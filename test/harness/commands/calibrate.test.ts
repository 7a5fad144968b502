// `memeval calibrate` as a command: the table, the records, and its exit codes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrateCommand } from '../../../harness/commands/calibrate.js';
import { calibrationRecordPath, hasCalibration } from '../../../harness/datasets/calibration.js';
import { OpenAIModel } from '../../../harness/models/openai.js';
import { startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';

describe('memeval calibrate', () => {
  let server: FakeServer;
  let out: string;
  const made: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-calib-'));
    made.push(dir);
    return dir;
  };
  beforeAll(async () => {
    server = await startFakeOpenAI(() => ({ json: { error: { message: 'down' } }, status: 500 }));
    out = tempDir();
  });
  afterAll(async () => {
    await server.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('grades the bundled set offline, prints a table and writes the records', async () => {
    let printed = '';
    const code = await calibrateCommand(['--out', out], { stdout: (t) => (printed += t) });
    expect(code).toBe(0);
    expect(printed).toMatch(/criterion\s+n\s+accuracy\s+kappa\s+95% CI/);
    const report = JSON.parse(readFileSync(join(out, 'calibration.json'), 'utf8'));
    expect(report.judge).toBe('offline');
    expect(report.criteria.map((c: { criterion: string }) => c.criterion)).toEqual(['coverage', 'faithfulness', 'temporal', 'format', 'overall']);
    expect(readFileSync(calibrationRecordPath('offline', out), 'utf8')).toBe(readFileSync(join(out, 'calibration.json'), 'utf8'));
    expect(hasCalibration('offline', out)).toBe(true);
    expect(hasCalibration('openai:gpt-4.1-mini', out)).toBe(false);
  });

  it('exits 3 and records the errors when the judge fails', async () => {
    const dir = tempDir();
    const code = await calibrateCommand(['--judge', 'openai:j', '--out', dir], {
      stdout: () => {},
      makeModel: () => new OpenAIModel({ name: 'j', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 }),
    });
    expect(code).toBe(3);
    const report = JSON.parse(readFileSync(calibrationRecordPath('openai:j', dir), 'utf8'));
    expect(report.errors).toBe(report.items);
    expect(report.criteria[0].n).toBe(0);
    // a run with judge failures is kept for inspection but is no calibration
    expect(hasCalibration('openai:j', dir)).toBe(false);
    writeFileSync(calibrationRecordPath('openai:gpt-x', dir), JSON.stringify({ judge: 'openai:gpt-x', items: 3, errors: 0 }));
    expect(hasCalibration('gpt-x', dir)).toBe(true);
    expect(hasCalibration('openai:gpt-x', dir)).toBe(true);
    expect(JSON.stringify(report)).not.toContain('test-key');
  });

  it('exits 2 on a bad flag or bad data, without a stack trace', async () => {
    let err = '';
    expect(await calibrateCommand(['--jduge', 'x'], { stderr: (t) => (err += t) })).toBe(2);
    const data = tempDir();
    writeFileSync(join(data, 'x.yaml'), 'source: []\nsummaries: []\n');
    expect(await calibrateCommand(['--data', data, '--out', out], { stderr: (t) => (err += t) })).toBe(2);
    expect(err).toMatch(/x\.yaml:1:\d+: "source" in the calibration file must not be an empty list/);
    expect(err).not.toMatch(/\n\s+at /);
  });
});
