// A stopped run sends nothing more: calls queued for a concurrency slot when
// Ctrl-C arrives end unsent (their answers would be thrown away, unjournaled,
// and paid for again on --resume); the call in flight finishes and is kept.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { loadRun } from '../../../reports/load.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, tinySuite, waitFor, type Workspace } from '../../helpers/cli.js';

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
