// A stopped run sends nothing more: calls queued for a concurrency slot when
// Ctrl-C arrives end unsent (their answers would be thrown away, unjournaled,
// and paid for again on --resume); the call in flight finishes and is kept.
// An answer whose judging the stop cut short is kept too, and judged on resume.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { loadRun } from '../../../reports/load.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, tinySuite, waitFor, Workspace } from '../../helpers/cli.js';

process.env.STOP_CALLS_KEY = 'stop-calls-key-123456';
const REPLY_MS = 300;

let server: FakeServer;
let ws: Workspace;

beforeAll(async () => {
  server = await startFakeOpenAI((req) => ({ json: responsesBody(`From the notes: ${contextText(req.body)}`), delayMs: REPLY_MS }));
  // One call at a time: every other probe's call waits in the queue.
  ws = tinySuite(3, { baseURL: server.baseURL, keyEnv: 'STOP_CALLS_KEY', concurrency: 1 });
});

afterAll(async () => {
  await server.close();
  ws.cleanup();
});

it('starts no queued call after the stop; the call in flight is answered and journaled', async () => {
  const controller = new AbortController();
  const running = runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), signal: controller.signal, log: () => {} });
  await waitFor(() => server.requests.length >= 1, 30_000);
  controller.abort();
  const outcome = await running;
  // Long enough for a queued call to have gone out after the one in flight ended.
  await new Promise((resolve) => setTimeout(resolve, REPLY_MS * 3));
  expect(outcome.interrupted).toBe(true);
  expect(server.requests).toHaveLength(1);
  const probes = loadRun(outcome.dir).probes;
  expect(probes).toHaveLength(1);
  expect(probes[0].error).toBeUndefined();
  expect(probes[0].answer).toMatch(/From the notes/);
});

it('keeps an answer whose judging the stop cut short; resume judges it and asks each question once in all', async () => {
  const isJudge = (body: Record<string, unknown>): boolean => body.model === 'judge-model';
  const judged = await startFakeOpenAI((req) =>
    isJudge(req.body)
      ? { json: responsesBody('{"verdict":"yes","reason":"stated"}'), delayMs: REPLY_MS }
      : { json: responsesBody(`From the notes: ${contextText(req.body)}`), delayMs: 20 },
  );
  const read = (rel: string): string => readFileSync(ws.path(rel), 'utf8');
  const files = new Workspace(Object.fromEntries([1, 2, 3].map((i) => [`data/t${i}.yaml`, read(`data/t${i}.yaml`)])));
  files.write('memeval.config.yaml', read('memeval.config.yaml').replace('judge: offline', 'judge: fake:judge-model').replace(server.baseURL, judged.baseURL));
  try {
    const controller = new AbortController();
    const config = loadConfig(files.path('memeval.config.yaml'));
    const running = runSuite({ config, signal: controller.signal, log: () => {} });
    await waitFor(() => judged.requests.some((r) => isJudge(r.body)), 30_000);
    controller.abort();
    const stopped = await running;
    const kept = loadRun(stopped.dir).probes;
    expect(kept.some((p) => p.errorStage === 'judge' && p.answer !== undefined)).toBe(true);
    const resumed = await runSuite({ config, resumeDir: stopped.dir, log: () => {} });
    // (Summary grades fail here: this judge only knows the answer verdict's shape.)
    expect(resumed.run.probes.filter((p) => p.error !== undefined)).toEqual([]);
    const answers = judged.requests.filter((r) => !isJudge(r.body));
    expect(answers).toHaveLength(resumed.run.probes.length);
  } finally {
    await judged.close();
    files.cleanup();
  }
});
