// A model server that fails often: the run still writes every report, every
// row is a result or an explicit error, no error counts as a pass, and a run
// left with errors is INCOMPLETE (exit 3), not a success.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAI, responsesBody, type FakeReply, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, onlyRunDir, parseCsv, runCli, tinySuite, type Workspace } from '../../helpers/cli.js';
import type { ProbeRecord } from '../../../core/types.js';
import { loadRun } from '../../../reports/load.js';

const TIMEOUT_MS = 400;

/** Seven kinds of failure a real server or network produces. */
const FAULTS: ((body: Record<string, unknown>) => FakeReply)[] = [
  () => ({ json: { error: { message: 'rate limited', type: 'rate_limit' } }, status: 429, headers: { 'retry-after': '0' } }),
  () => ({ json: { error: { message: 'internal error' } }, status: 500 }),
  () => ({ text: 'upstream unavailable', status: 503 }),
  () => ({ destroy: true }),
  (body) => ({ json: responsesBody(contextText(body)), delayMs: TIMEOUT_MS * 4 }),
  (body) => ({ text: JSON.stringify(responsesBody(contextText(body))).slice(0, 60), headers: { 'content-type': 'application/json' } }),
  () => ({ text: '<html><body>Bad gateway</body></html>', headers: { 'content-type': 'text/html' } }),
];

let server: FakeServer;
let ws: Workspace;
let runDir: string;
let faults = 0;

beforeAll(async () => {
  // 4 requests in 10 fail, cycling through every kind of fault.
  server = await startFakeOpenAI((req, i) => {
    if (i % 10 < 4) return FAULTS[faults++ % FAULTS.length](req.body);
    return { json: responsesBody(`From the notes: ${contextText(req.body)}`) };
  });
  // One attempt per call: every injected fault ends as an errored row.
  ws = tinySuite(4, { baseURL: server.baseURL, timeoutMs: TIMEOUT_MS, maxAttempts: 1, concurrency: 4 });
  const result = await runCli(['run'], { cwd: ws.dir, env: { FAKE_API_KEY: 'local-test-key-123456' } });
  expect(result.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(result.code).toBe(3);
  expect(result.stderr).toMatch(/the run is INCOMPLETE\. \d+ of 24 probe answers \(answer model\)/);
  runDir = onlyRunDir(ws.path('runs'));
});

afterAll(async () => {
  await server.close();
  ws.cleanup();
});

function probes(): ProbeRecord[] {
  return loadRun(runDir).probes;
}

it('injected every kind of fault and finished the run as incomplete', () => {
  expect(faults).toBeGreaterThanOrEqual(FAULTS.length);
  const info = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')).info as { status: string; failure: string };
  expect(info.status).toBe('incomplete');
  expect(info.failure).toMatch(/max_errors 0/);
  expect(probes()).toHaveLength(4 * 3 * 2);
});

it('makes every row a result or an explicit error, never an error that passes', () => {
  const records = probes();
  const failed = records.filter((p) => p.error !== undefined);
  const answered = records.filter((p) => p.error === undefined);
  // max_attempts 1 against 40% faults: some calls must fail for good, most succeed.
  expect(failed.length).toBeGreaterThan(0);
  expect(answered.length).toBeGreaterThan(0);
  for (const p of failed) {
    expect(p.passed).toBe(false);
    expect(p.attribution).toBe('error');
    expect(p.error).toMatch(/\S/);
  }
  for (const p of answered) {
    expect(typeof p.answer).toBe('string');
    expect(typeof p.passed).toBe('boolean');
  }
});

it('reports errors apart and counts them against accuracy', () => {
  const records = probes();
  const [header, ...rows] = parseCsv(readFileSync(join(runDir, 'summary.csv'), 'utf8'));
  const col = (row: string[], name: string): string => row[header.indexOf(name)];
  expect(rows).toHaveLength(3);
  for (const row of rows) {
    const mine = records.filter((p) => p.strategy === col(row, 'strategy'));
    const errors = mine.filter((p) => p.error !== undefined);
    const graded = mine.filter((p) => p.error === undefined);
    const passed = graded.filter((p) => p.passed).length;
    expect(Number(col(row, 'errors'))).toBe(errors.length);
    expect(Number(col(row, 'graded'))).toBe(graded.length);
    expect(Number(col(row, 'passed'))).toBe(passed);
    // An errored probe is attempted and not passed: it stays in the denominator.
    expect(Number(col(row, 'attempted'))).toBe(mine.length);
    expect(Number(col(row, 'accuracy'))).toBeCloseTo(passed / mine.length, 10);
    if (graded.length > 0) expect(Number(col(row, 'accuracy_graded'))).toBeCloseTo(passed / graded.length, 10);
  }
  const [pHeader, ...pRows] = parseCsv(readFileSync(join(runDir, 'probes.csv'), 'utf8'));
  for (const row of pRows) {
    if (row[pHeader.indexOf('error')] !== '') expect(row[pHeader.indexOf('passed')]).toBe('false');
  }
});
