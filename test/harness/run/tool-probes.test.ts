// Tool probes through a whole run against a local OpenAI-compatible server that
// answers with tool calls: on Chat Completions, on the Responses API, through
// the @openai/agents runner on both, and through the Batch API. Every path must
// put the same calls in the same columns: a wrong tool, a wrong argument, a
// repeated call, an exact call, and an answer from memory.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import type { BatchSettings } from '../../../harness/run/batch.js';
import type { ProbeRecord } from '../../../core/types.js';
import { loadRun } from '../../../reports/load.js';
import { chatCallsBody, lastUserText, offeredToolNames, responsesCallsBody, startFakeOpenAI, type FakeCall, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { startFakeBatchServer, type FakeBatchServer } from '../../../scripts/lib/fake-batch.js';

const KEY_ENV = 'TOOL_PROBES_TEST_KEY';

const TRANSCRIPT = `
id: router-tools
system: You are a support agent.
tools:
  - name: lookup_device
    description: Look up a device by serial number.
    parameters:
      type: object
      properties: { serial: { type: string } }
      required: [serial]
  - name: reset-router
    description: Reset a router remotely.
    parameters:
      type: object
      properties: { serial: { type: string }, mode: { type: string } }
turns:
  - user: My router RX-88812 will not connect.
    tool_calls:
      - name: lookup_device
        arguments: { serial: RX-88812 }
        output: '{"model":"AX3000","firmware":"1.0.3"}'
    assistant: It is an AX3000 on firmware 1.0.3.
  - user: Unplugging it did not help.
    assistant: Then we reset it.
facts:
  - { id: serial, text: RX-88812, turn: 1 }
  - { id: model, text: AX3000, turn: 1 }
probes:
  - id: exact
    after_turn: 2
    kind: tool
    question: Please do a hard reset of my router.
    expect_call: { name: reset-router, arguments: { serial: RX-88812, mode: hard } }
    facts: [serial]
  - id: wrong-tool
    after_turn: 2
    kind: tool
    question: Please wipe my router back to factory settings.
    expect_call: { name: reset-router, arguments: { serial: RX-88812 } }
    facts: [serial]
  - id: wrong-arg
    after_turn: 2
    kind: tool
    question: Please do a soft reset of my router.
    expect_call: { name: reset-router, arguments: { serial: RX-88812, mode: soft } }
    facts: [serial]
  - id: repeated
    after_turn: 2
    kind: tool
    question: Which firmware is the router on?
    expect_call: none
    answer: "1.0.3"
    must_include: ["1.0.3"]
  - id: from-memory
    after_turn: 2
    kind: tool
    question: Which model is the router?
    expect_call: none
    answer: AX3000
    must_include: [AX3000]
    facts: [model]
`;

/** What the model does per question: a call (right, wrong tool, wrong argument, a repeat) or a text answer. */
function answerFor(question: string): { calls: FakeCall[]; text?: string } {
  if (question.includes('hard reset')) return { calls: [{ name: 'reset-router', arguments: { serial: 'RX-88812', mode: 'hard' } }] };
  // A tool the transcript does not offer: the runner refuses it, and it must still come back as the call made.
  if (question.includes('factory settings')) return { calls: [{ name: 'factory_reset', arguments: { serial: 'RX-88812' } }] };
  if (question.includes('soft reset')) return { calls: [{ name: 'reset-router', arguments: { serial: 'RX-88812', mode: 'hard' } }] };
  // The lookup the conversation already made (the serial in another case): a repeated call.
  if (question.includes('firmware')) return { calls: [{ name: 'lookup_device', arguments: { serial: 'rx-88812' } }] };
  return { calls: [], text: 'It is an AX3000.' };
}

/** A reply body in the shape of the endpoint (`path` or a batch line's `url`). */
function replyBody(path: string, body: Record<string, unknown>): Record<string, unknown> {
  const { calls, text } = answerFor(lastUserText(body));
  return path.endsWith('/chat/completions') ? chatCallsBody(calls, text ?? null) : responsesCallsBody(calls, text ?? '');
}

interface Path {
  label: string;
  api: 'chat' | 'responses';
  agent: 'direct' | 'runner';
}

const PATHS: Path[] = [
  { label: 'Chat Completions', api: 'chat', agent: 'direct' },
  { label: 'Responses API', api: 'responses', agent: 'direct' },
  { label: 'runner on the Responses API', api: 'responses', agent: 'runner' },
  { label: 'runner on Chat Completions', api: 'chat', agent: 'runner' },
];

function suiteFile(baseURL: string, path: Pick<Path, 'api' | 'agent'>, cache: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-tool-probes-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'router-tools.yaml'), TRANSCRIPT);
  const file = join(dir, 'memeval.config.yaml');
  writeFileSync(
    file,
    `datasets: [data/*.yaml]
out: runs
model: local:agent-model
judge: offline
agent: ${path.agent}
cache: ${cache}
providers:
  local: { base_url: "${baseURL}", api_key_env: ${KEY_ENV}, api: ${path.api} }
strategies:
  - { id: full, use: full-history }
`,
  );
  return file;
}

async function runProbes(file: string, batch?: BatchSettings): Promise<Map<string, ProbeRecord>> {
  const { run, dir } = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: () => undefined, ...(batch ? { batch } : {}) });
  expect(run.info.status).toBe('complete');
  // As run.json holds them: a tool probe's calls and grade are cells of its job's table.
  const written = loadRun(dir).probes;
  expect(written).toEqual(run.probes);
  return new Map(written.map((p) => [p.probe, p]));
}

const record = (probes: Map<string, ProbeRecord>, id: string): ProbeRecord => {
  const found = probes.get(id);
  if (!found) throw new Error(`no record of probe ${id}`);
  return found;
};

/** The columns every path must fill alike. */
function expectGraded(probes: Map<string, ProbeRecord>): void {
  const exact = record(probes, 'exact');
  expect(exact.error).toBeUndefined();
  expect(exact.passed).toBe(true);
  expect(exact.tool).toMatchObject({ expected: 'reset-router', called: 'reset-router', rightTool: true, argsMatched: 2, argsExpected: 2, exactCall: true, extraCalls: 0 });
  expect(exact.repeatedCalls).toBeUndefined();

  const wrongTool = record(probes, 'wrong-tool');
  expect(wrongTool.error).toBeUndefined();
  expect(wrongTool.passed).toBe(false);
  expect(wrongTool.tool).toMatchObject({ called: 'factory_reset', rightTool: false, argsMatched: 0, exactCall: false });
  expect(wrongTool.toolCalls).toEqual([{ name: 'factory_reset', arguments: '{"serial":"RX-88812"}' }]);

  const wrongArg = record(probes, 'wrong-arg');
  expect(wrongArg.passed).toBe(false);
  expect(wrongArg.tool).toMatchObject({ rightTool: true, argsMatched: 1, argsExpected: 2, exactCall: false });
  expect(wrongArg.tool?.mismatches.join(' ')).toMatch(/mode: expected "soft", got "hard"/);

  const repeated = record(probes, 'repeated');
  expect(repeated.passed).toBe(false);
  expect(repeated.repeatedCalls).toBe(1);
  expect(repeated.tool).toMatchObject({ expected: null, called: 'lookup_device', rightTool: false, extraCalls: 1 });

  const fromMemory = record(probes, 'from-memory');
  expect(fromMemory.passed).toBe(true);
  expect(fromMemory.answer).toBe('It is an AX3000.');
  expect(fromMemory.toolCalls).toBeUndefined();
  expect(fromMemory.tool).toMatchObject({ rightTool: true, exactCall: true, extraCalls: 0 });
}

describe('tool probes graded through a run against an OpenAI-compatible server', () => {
  let server: FakeServer;

  beforeAll(async () => {
    process.env[KEY_ENV] = 'sk-tool-probes-not-a-real-key-0000';
    server = await startFakeOpenAI((req) => ({ json: replyBody(req.path, req.body) }));
  });
  afterAll(() => server.close());

  for (const path of PATHS) {
    it(`${path.label}: every answer request offers the tools, and each call lands in its column`, async () => {
      const before = server.requests.length;
      const cache = mkdtempSync(join(tmpdir(), 'memeval-tool-probes-cache-'));
      const probes = await runProbes(suiteFile(server.baseURL, path, cache));
      expectGraded(probes);
      const answers = server.requests.slice(before).filter((r) => r.body.model === 'agent-model');
      expect(answers).toHaveLength(5);
      expect(answers.every((r) => r.path === (path.api === 'chat' ? '/v1/chat/completions' : '/v1/responses'))).toBe(true);
      // The runner stops at the first call: one request per probe, and the tool keeps its '-'.
      for (const r of answers) expect(offeredToolNames(r.body)).toEqual(['lookup_device', 'reset-router']);

      // A rerun is served from the cache, calls and all, and grades the same.
      const made = server.requests.length;
      const again = await runProbes(suiteFile(server.baseURL, path, cache));
      expect(server.requests).toHaveLength(made);
      expect([...again.values()].every((p) => p.cached)).toBe(true);
      expectGraded(again);
    }, 60_000);
  }
});

describe('tool probes through the Batch API', () => {
  let batches: FakeBatchServer;

  beforeAll(async () => {
    process.env[KEY_ENV] = 'sk-tool-probes-not-a-real-key-0000';
    batches = await startFakeBatchServer({ answer: (line) => ({ body: replyBody(line.url, line.body) }) });
  });
  afterAll(() => batches.close());

  for (const api of ['chat', 'responses'] as const) {
    it(`${api}: the batched bodies offer the tools and the batched calls are graded as direct ones`, async () => {
      const cache = mkdtempSync(join(tmpdir(), 'memeval-tool-probes-batch-'));
      const before = batches.uploadedLines.length;
      const probes = await runProbes(suiteFile(batches.baseURL, { api, agent: 'direct' }, cache), { firstPollMs: 1, maxPollMs: 2 });
      expectGraded(probes);
      const lines = batches.uploadedLines.slice(before).map((l) => (l.line as { body: Record<string, unknown> }).body);
      expect(lines).toHaveLength(5);
      for (const body of lines) expect(offeredToolNames(body)).toEqual(['lookup_device', 'reset-router']);
    }, 60_000);
  }
});
