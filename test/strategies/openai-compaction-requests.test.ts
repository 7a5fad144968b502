// What openai-compaction sends the server must be a request the Responses API takes: no
// reasoning item the server never issued in this session, and no call result whose call was
// compacted away (compaction waits while a call awaits its result).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../harness/config.js';
import { runSuite } from '../../harness/run/run.js';
import { compactionHandler, lastUserText, startFakeOpenAI, type FakeServer, type RecordedRequest } from '../../scripts/lib/fake-openai.js';

const TRANSCRIPT = `id: deferred
turns:
  - items:
      - { role: user, content: "Start the slow audit query." }
      - { type: reasoning, id: rs_1, content: [{ type: input_text, text: "Plan: run the audit." }] }
      - { type: function_call, callId: c1, name: run_sql, arguments: '{"q":"audit"}' }
      - { type: message, role: assistant, status: completed, content: [{ type: output_text, text: "Started." }] }
  - items:
      - { role: user, content: "Results?" }
      - { type: function_call_result, callId: c1, name: run_sql, output: '{"approval_code":"APR-77123"}' }
probes:
  - { id: p, after_turn: 2, question: "What is the approval code?", answer: APR-77123, must_include: [APR-77123] }
`;

type Item = { type?: string; role?: string; call_id?: string; callId?: string };

/** Problems of one request's input: reasoning items, results before (or without) their calls, calls without results. */
function problemsOf(request: RecordedRequest): string[] {
  const input = (request.body.input ?? []) as Item[];
  const calls = new Set<string>();
  const results = new Set<string>();
  const problems: string[] = [];
  for (const item of input) {
    const id = item.call_id ?? item.callId ?? '';
    if (item.type === 'reasoning') problems.push(`${request.path}: reasoning item`);
    if (item.type === 'function_call') calls.add(id);
    if (item.type === 'function_call_output' || item.type === 'function_call_result') {
      results.add(id);
      if (!calls.has(id)) problems.push(`${request.path}: result ${id} without its call`);
    }
  }
  for (const id of calls) if (!results.has(id)) problems.push(`${request.path}: call ${id} without its result`);
  return problems;
}

describe('openai-compaction requests', () => {
  let server: FakeServer;
  let dir: string;

  beforeAll(async () => {
    server = await startFakeOpenAI(compactionHandler({ outputTokens: 50, answer: (body) => `no idea: ${lastUserText(body)}` }));
    dir = mkdtempSync(join(tmpdir(), 'memeval-compaction-requests-'));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 't.yaml'), TRANSCRIPT);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['trigger_items: 3', 'mode: context-management, compact_threshold: 10'])('carry no reasoning item and no half of a call pair (%s)', async (trigger) => {
    server.requests.length = 0;
    const text = `datasets: [data/*.yaml]
out: runs
model: local:gpt-4.1-mini
judge: offline
cache: false
max_errors: 100%
providers:
  local: { base_url: "${server.baseURL}" }
strategies:
  - { id: compact, use: openai-compaction, model: "local:gpt-4.1-mini", ${trigger} }
`;
    writeFileSync(join(dir, 'memeval.yaml'), text);
    await runSuite({ config: parseConfig(text, join(dir, 'memeval.yaml')), log: () => undefined });
    const sent = server.requests.filter((r) => r.path.startsWith('/v1/responses'));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.flatMap(problemsOf)).toEqual([]);
  });
});
