// A sweep's points are ordinary strategies, so the call cache already makes
// adding a point cost only that point: a second run with one more value calls
// the model for the new point's probes and nothing else.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';

const TRANSCRIPT = `
id: router
turns:
  - user: My router fails. I am on Windows 10 and my serial is RX-88812.
    assistant: Let's check the firmware.
  - user: Firmware v1.0.3; still failing.
    assistant: Try a factory reset.
  - user: Reset done; error 42 now.
    assistant: Install the new firmware.
  - user: I tried but I got another error.
    assistant: Which error code?
  - user: It says 404 not found.
    assistant: Are you connected to the internet?
facts:
  - { id: os, text: Windows 10, turn: 1 }
probes:
  - { id: which-os, after_turn: 5, question: Which operating system am I on?, answer: Windows 10, must_include: [Windows 10], facts: [os] }
  - { id: error, after_turn: 5, question: Which error code came after the reset?, answer: "42", must_include: ["42"] }
`;

function suite(dir: string, server: FakeServer, values: number[]): string {
  const file = join(dir, 'memeval.config.yaml');
  writeFileSync(
    file,
    `datasets: [data/*.yaml]
out: runs
model: local:answer-model
judge: offline
cache: cache
providers:
  local: { base_url: "${server.baseURL}", api_key_env: SWEEP_TEST_KEY }
strategies:
  - { id: trim, use: trimming, max_turns: [${values.join(', ')}] }
`,
  );
  return file;
}

async function runWith(dir: string, server: FakeServer, values: number[]) {
  const file = suite(dir, server, values);
  const before = server.requests.length;
  const { run } = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: () => undefined });
  return { run, requests: server.requests.length - before };
}

describe('adding a point to a sweep', () => {
  let server: FakeServer;
  beforeAll(async () => {
    process.env.SWEEP_TEST_KEY = 'sk-test-sweep-not-a-real-key-0000';
    server = await startFakeOpenAI(() => ({ json: responsesBody('It was 42, on Windows 10.', { input: 50, output: 5 }) }));
  });
  afterAll(() => server.close());

  it('calls the model only for the new point; the others come from the cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-sweep-'));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'router.yaml'), TRANSCRIPT);

    const first = await runWith(dir, server, [1, 2]);
    expect(first.run.info.status).toBe('complete');
    expect(first.requests).toBe(4);
    expect(first.run.info.strategies.map((s) => [s.id, s.sweep])).toEqual([
      ['trim-1', { group: 'trim', options: { max_turns: 1 } }],
      ['trim-2', { group: 'trim', options: { max_turns: 2 } }],
    ]);

    const second = await runWith(dir, server, [1, 2, 3]);
    expect(second.run.info.status).toBe('complete');
    // Two probes at the new point, one call each; none for the points already run.
    expect(second.requests).toBe(2);
    expect(second.run.info.calls?.made).toBe(2);
    const uncached = second.run.probes.filter((p) => !p.cached).map((p) => p.strategy);
    expect(uncached).toEqual(['trim-3', 'trim-3']);
    expect(second.run.probes.filter((p) => p.strategy !== 'trim-3').every((p) => p.cached)).toBe(true);
  });
});
