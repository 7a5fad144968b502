// `memeval calibrate` as a command: the table, the records, and its exit codes.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrateCommand } from '../../../harness/commands/calibrate.js';
import { isInputError } from '../../../core/errors.js';
import { calibrationRecordPath, hasCalibration } from '../../../harness/datasets/calibration.js';
import { OpenAIModel } from '../../../harness/models/openai.js';
import { judgeCalibrationSchema } from '../../../core/schema/run.js';
import { judgeCalibration } from '../../../harness/run/run-info.js';
import { onTopicFlag } from '../../../reports/judge.js';
import { responsesBody, startFakeOpenAI, type FakeReply, type RecordedRequest, type FakeServer } from '../../../scripts/lib/fake-openai.js';

/** A judge that says yes to everything: every answer passes, every coverage question is "yes". */
function yesJudge(req: RecordedRequest): FakeReply {
  const format = (req.body.text as { format: { name: string } }).format.name;
  const reply = (v: unknown): FakeReply => ({ json: responsesBody(JSON.stringify(v)) });
  if (format === 'answer_verdict') return reply({ verdict: 'yes', reason: 'looks right' });
  if (format === 'coverage_verdict') {
    const ids = [...JSON.stringify(req.body.input).matchAll(/\[([\w.-]+)\] Does the summary/g)].map((m) => m[1]);
    return reply({ coverage: ids.map((id) => ({ id, answer: 'yes' })) });
  }
  return reply({
    claims: [{ claim: 'all good', verdict: 'supported' }],
    temporal: { verdict: 'yes', reason: 'ok' },
    format: { verdict: 'yes', reason: 'ok' },
    overall: 5,
    reasons: { faithfulness: 'ok', overall: 'ok' },
  });
}

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

  it('grades the labelled answers too and keeps both in the record', async () => {
    let printed = '';
    const base = tempDir();
    const dir = join(base, '.memeval');
    expect(await calibrateCommand(['--out', dir], { stdout: (t) => (printed += t) })).toBe(0);
    expect(printed).toMatch(/answer judge: offline\s+items: \d+\s+errors: 0/);
    expect(printed).toMatch(/all wrong answers\s+false-accept\s+\d+\.\d% \[\d+\.\d, \d+\.\d\] \(\d+\/\d+\)/);
    expect(printed).toMatch(/wrong-on-topic\s+false-accept/);
    expect(printed).toMatch(/stale\s+false-accept/);
    const report = JSON.parse(readFileSync(calibrationRecordPath('offline', dir), 'utf8'));
    expect(report.answers.items).toBeGreaterThanOrEqual(40);
    expect(report.answers.falseAccept.n + report.answers.falseReject.n).toBe(report.answers.items);
    // a run in this project records the answer judge's rates beside the summary criteria
    const info = judgeCalibration('offline', base);
    expect(info?.answers?.perLabel.map((l) => l.label)).toContain('wrong-on-topic');
    expect(judgeCalibrationSchema.parse(info)).toEqual(info);
    // and run.json files recorded before answer calibration stay valid
    const { answers: _answers, ...older } = info!;
    expect(judgeCalibrationSchema.safeParse(older).success).toBe(true);
  });

  it('calibrates an LLM judge against a local server; a judge that says yes to everything is flagged', async () => {
    const yes = await startFakeOpenAI(yesJudge);
    try {
      const base = tempDir();
      let printed = '';
      const code = await calibrateCommand(['--judge', 'openai:yes', '--out', join(base, '.memeval')], {
        stdout: (t) => (printed += t),
        makeModel: () => new OpenAIModel({ name: 'yes', baseURL: yes.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 }),
      });
      expect(code).toBe(0);
      expect(printed).toMatch(/all wrong answers\s+false-accept\s+100\.0%/);
      expect(printed).toMatch(/all right answers\s+false-reject\s+0\.0%/);
      const info = judgeCalibration('openai:yes', base);
      expect(info?.answers?.falseAccept.rate).toBe(1);
      expect(onTopicFlag({ judgeCalibration: info })).toMatch(/^FLAG: the judge passed 100\.0%/);
      expect(hasCalibration('openai:yes', join(base, '.memeval'))).toBe(true);
    } finally {
      await yes.close();
    }
  });

  it("calibrates a judge of the config's providers, as a run names it; an unknown provider is bad input", async () => {
    const yes = await startFakeOpenAI(yesJudge);
    process.env.CALIBRATE_TEST_KEY = 'calibrate-test-key-1234';
    try {
      const base = tempDir();
      const config = join(base, 'memeval.config.yaml');
      writeFileSync(config, `datasets: [data/*.yaml]\nproviders:\n  fake:\n    base_url: ${yes.baseURL}\n    api_key_env: CALIBRATE_TEST_KEY\n    max_attempts: 1\nstrategies:\n  - { id: full, use: full-history }\n`);
      const code = await calibrateCommand(['--judge', 'fake:j', '--config', config, '--out', join(base, '.memeval')], { stdout: () => undefined });
      expect(code).toBe(0);
      expect(yes.requests.length).toBeGreaterThan(0);
      expect(hasCalibration('fake:j', join(base, '.memeval'))).toBe(true);
      const refused = await calibrateCommand(['--judge', 'nowhere:j', '--config', config, '--out', join(base, '.memeval')], { stdout: () => undefined }).catch((e: unknown) => e);
      // An InputError: the CLI reports it as bad input (exit 2) at the config's path.
      expect(isInputError(refused)).toBe(true);
      expect((refused as Error).message).toMatch(/memeval\.config\.yaml: unknown model provider "nowhere"/);
    } finally {
      await yes.close();
    }
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
    expect(report.answers.errors).toBe(report.answers.items);
    expect(report.answers.falseAccept.rate).toBeNull();
    // a run with judge failures is kept for inspection but is no calibration
    expect(hasCalibration('openai:j', dir)).toBe(false);
    writeFileSync(calibrationRecordPath('openai:gpt-x', dir), JSON.stringify({ judge: 'openai:gpt-x', items: 3, errors: 0 }));
    expect(hasCalibration('gpt-x', dir)).toBe(true);
    expect(hasCalibration('openai:gpt-x', dir)).toBe(true);
    // an answer judge that failed on some answer does not count either
    writeFileSync(calibrationRecordPath('openai:gpt-y', dir), JSON.stringify({ judge: 'openai:gpt-y', items: 3, errors: 0, answers: { errors: 1 } }));
    expect(hasCalibration('openai:gpt-y', dir)).toBe(false);
    expect(JSON.stringify(report)).not.toContain('test-key');
    // report.html reads the record as the gate does: one with errors is no calibration.
    const base = tempDir();
    await calibrateCommand(['--judge', 'openai:j', '--out', join(base, '.memeval')], {
      stdout: () => {},
      makeModel: () => new OpenAIModel({ name: 'j', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 }),
    });
    expect(existsSync(calibrationRecordPath('openai:j', join(base, '.memeval')))).toBe(true);
    expect(judgeCalibration('openai:j', base)).toBeUndefined();
  });

  it('refuses an --out that cannot be written before making any judge call', async () => {
    let calls = 0;
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a folder');
    let err = '';
    const code = await calibrateCommand(['--judge', 'fake:j', '--out', file], {
      stderr: (t) => (err += t),
      makeModel: () => ({ id: 'fake:j', params: {}, complete: async () => (calls++, { output: '{}', usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs: 0 }) }),
    });
    expect(code).toBe(2);
    expect(calls).toBe(0);
    expect(err).toContain(file);
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
