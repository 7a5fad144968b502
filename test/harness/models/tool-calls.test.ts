// Tools on the wire: a request's tools reach both APIs in their own shapes, a
// request without tools is sent as it was before tools existed, the calls a
// reply makes come back as toolCalls, and the cache keys and keeps them.
// Everything talks to a local OpenAI-compatible server started here.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userMessage } from '../../../core/items.js';
import type { Model, ModelRequest } from '../../../core/model.js';
import { answerWithRunner, type PreparedProbe } from '../../../harness/models/agent-path.js';
import type { ToolDefinition } from '../../../core/types.js';
import { CachedModel, cacheKey } from '../../../harness/models/cache.js';
import { chatBody, OpenAIModel, parseChatReply, parseResponsesReply, responsesBody, type OpenAIApi } from '../../../harness/models/openai.js';
import { callsReply, chatCallsBody, offeredToolNames, responsesCallsBody, startFakeOpenAI, type FakeCall, type FakeServer } from '../../../scripts/lib/fake-openai.js';

const KEY = 'sk-proj-TOOLCALLSKEY0123456789abcdef';

const tools: ToolDefinition[] = [
  { name: 'lookup_device', description: 'Look up a device by serial number.', parameters: { type: 'object', properties: { serial: { type: 'string' } }, required: ['serial'] } },
  { name: 'reset-router', parameters: { type: 'object', properties: {} } },
];

// Written out, not built with userMessage: the cache key below is pinned to these exact items.
const plain: ModelRequest = { system: 'You are a support agent.', input: [{ type: 'message', role: 'user', content: 'Which firmware?' }], maxOutputTokens: 50, purpose: 'answer' };
const withTools: ModelRequest = { ...plain, tools };

const allFiles = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));

describe('request bodies', () => {
  it('offer the tools in the Responses shape: name, description and parameters at the top, not strict', () => {
    expect(responsesBody('m', withTools).tools).toEqual([
      { type: 'function', name: 'lookup_device', description: 'Look up a device by serial number.', parameters: tools[0].parameters, strict: false },
      { type: 'function', name: 'reset-router', parameters: { type: 'object', properties: {} }, strict: false },
    ]);
  });

  it('offer the tools in the Chat Completions shape: under `function`', () => {
    expect(chatBody('m', withTools).tools).toEqual([
      { type: 'function', function: { name: 'lookup_device', description: 'Look up a device by serial number.', parameters: tools[0].parameters } },
      { type: 'function', function: { name: 'reset-router', parameters: { type: 'object', properties: {} } } },
    ]);
  });

  it('have no tools key without tools, or with an empty list: the body is what it always was', () => {
    const responses = { model: 'm', input: [{ role: 'user', content: 'Which firmware?' }], instructions: 'You are a support agent.', max_output_tokens: 50 };
    const chat = { model: 'm', messages: [{ role: 'system', content: 'You are a support agent.' }, { role: 'user', content: 'Which firmware?' }], max_completion_tokens: 50 };
    for (const request of [plain, { ...plain, tools: [] }]) {
      expect(JSON.stringify(responsesBody('m', request))).toBe(JSON.stringify(responses));
      expect(JSON.stringify(chatBody('m', request))).toBe(JSON.stringify(chat));
    }
  });
});

describe('reply parsing', () => {
  it('reads Responses function_call items, in order, with the arguments as the model wrote them', () => {
    const raw = responsesCallsBody([
      { name: 'lookup_device', arguments: '{ "serial" : "RX-88812" }' },
      { name: 'reset-router', arguments: '{}' },
    ]);
    expect(parseResponsesReply(raw)).toEqual({
      output: '',
      usage: { inputTokens: 10, outputTokens: 5, cachedTokens: 0 },
      toolCalls: [
        { name: 'lookup_device', arguments: '{ "serial" : "RX-88812" }' },
        { name: 'reset-router', arguments: '{}' },
      ],
    });
  });

  it('reads Chat Completions tool_calls with content null as calls and an empty answer', () => {
    const parsed = parseChatReply(chatCallsBody([{ name: 'lookup_device', arguments: 'not json' }]));
    expect(parsed.output).toBe('');
    expect(parsed.toolCalls).toEqual([{ name: 'lookup_device', arguments: 'not json' }]);
  });

  it('keeps a call without a name as a call named "" (a wrong tool), never as no call', () => {
    const chat = parseChatReply({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { arguments: '{}' } }] } }] });
    expect(chat.toolCalls).toEqual([{ name: '', arguments: '{}' }]);
    const responses = parseResponsesReply({ output: [{ type: 'function_call', call_id: 'c1', arguments: '{}' }] });
    expect(responses.toolCalls).toEqual([{ name: '', arguments: '{}' }]);
  });

  it('keeps text written beside the calls, and reports no calls for a plain answer', () => {
    expect(parseResponsesReply(responsesCallsBody([{ name: 'a', arguments: {} }], 'Checking.')).output).toBe('Checking.');
    expect(parseChatReply(chatCallsBody([{ name: 'a', arguments: {} }], 'Checking.')).output).toBe('Checking.');
    expect(parseResponsesReply(responsesCallsBody([], 'Hi')).toolCalls).toBeUndefined();
    expect(parseChatReply(chatCallsBody([], 'Hi')).toolCalls).toBeUndefined();
  });
});

describe('OpenAIModel with tools against a local server', () => {
  let server: FakeServer;
  const make = (api: OpenAIApi) => new OpenAIModel({ name: 'gpt-4.1-mini', api, baseURL: server.baseURL, apiKey: KEY, maxAttempts: 1 });

  beforeAll(async () => {
    server = await startFakeOpenAI((req) => callsReply(req, [{ name: 'lookup_device', arguments: { serial: 'RX-88812' } }]));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
  });

  for (const api of ['responses', 'chat'] as const) {
    it(`${api}: sends the tools and returns a calls-only reply as a call with empty output, not an error`, async () => {
      const result = await make(api).complete(withTools);
      expect(result.error).toBeUndefined();
      expect(result.output).toBe('');
      expect(result.toolCalls).toEqual([{ name: 'lookup_device', arguments: '{"serial":"RX-88812"}' }]);
      const body = server.requests[0].body;
      expect(body.tools).toEqual(JSON.parse(JSON.stringify(api === 'chat' ? chatBody('gpt-4.1-mini', withTools).tools : responsesBody('gpt-4.1-mini', withTools).tools)));
    });

    it(`${api}: a request without tools reaches the server with no tools key`, async () => {
      await make(api).complete(plain);
      expect(Object.keys(server.requests[0].body)).not.toContain('tools');
    });
  }

  it('the batch target builds the very body a direct call sends and reads calls with the same parser', async () => {
    for (const api of ['responses', 'chat'] as const) {
      server.requests.length = 0;
      const model = make(api);
      await model.complete(withTools);
      const target = model.batchTarget();
      expect(JSON.parse(JSON.stringify(target.body(withTools)))).toEqual(server.requests[0].body);
      const raw = api === 'chat' ? chatCallsBody([{ name: 'x', arguments: '{}' }]) : responsesCallsBody([{ name: 'x', arguments: '{}' }]);
      expect(target.parse(raw).toolCalls).toEqual([{ name: 'x', arguments: '{}' }]);
    }
  });

  describe('the call cache', () => {
    it('keeps the key of a request without tools (existing entries stay valid); tools change it', () => {
      const params = { api: 'responses' };
      // The key this request had before tools existed (computed with the cache as it was then).
      const before = 'af7957366a919ec06734c959ed7b21d1f3b8a75aa7092955893038fdf07e6097';
      expect(cacheKey('openai:gpt-4.1-mini', params, plain)).toBe(before);
      expect(cacheKey('openai:gpt-4.1-mini', params, { ...plain, tools: [] })).toBe(before);
      const keyed = cacheKey('openai:gpt-4.1-mini', params, withTools);
      expect(keyed).not.toBe(before);
      expect(cacheKey('openai:gpt-4.1-mini', params, { ...plain, tools: [tools[0]] })).not.toBe(keyed);
      // Equal tools written in another key order are the same call.
      const reordered: ToolDefinition[] = tools.map((t) => ({ parameters: t.parameters, name: t.name, ...(t.description ? { description: t.description } : {}) }));
      expect(cacheKey('openai:gpt-4.1-mini', params, { ...plain, tools: reordered })).toBe(keyed);
    });

    it('serves a cached call with its tool calls, redacted, and never writes the key', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'memeval-toolcache-'));
      const leaked = 'sk-proj-LEAKEDINARGUMENT0123456789abcd';
      server.setHandler((req) => callsReply(req, [{ name: 'lookup_device', arguments: { serial: 'RX-88812', note: leaked } }]));
      try {
        const first = await new CachedModel(make('chat'), { dir }).complete(withTools);
        expect(first.toolCalls?.[0].arguments).not.toContain(leaked);
        const again = await new CachedModel(make('chat'), { dir }).complete(withTools);
        expect(server.requests).toHaveLength(1);
        expect(again.cached).toBe(true);
        expect(again.toolCalls).toEqual(first.toolCalls);
        expect(JSON.parse(again.toolCalls?.[0].arguments ?? '')).toMatchObject({ serial: 'RX-88812' });
        // The same question without tools is another call.
        server.setHandler((req) => callsReply(req, [], 'Firmware 1.0.3.'));
        const answered = await new CachedModel(make('chat'), { dir }).complete(plain);
        expect(answered.toolCalls).toBeUndefined();
        expect(server.requests).toHaveLength(2);
        const files = allFiles(dir);
        expect(files).toHaveLength(2);
        for (const file of files) {
          const text = readFileSync(file, 'utf8');
          expect(text).not.toContain(KEY);
          expect(text).not.toContain(leaked);
        }
        // An answer without calls is stored as before calls existed: no toolCalls field.
        const stored = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as { result: Record<string, unknown> });
        expect(stored.filter((e) => 'toolCalls' in e.result)).toHaveLength(1);
      } finally {
        server.setHandler((req) => callsReply(req, [{ name: 'lookup_device', arguments: { serial: 'RX-88812' } }]));
      }
    });
  });
});

describe('the @openai/agents runner with tools', () => {
  let server: FakeServer;
  let calls: FakeCall[];
  const probe: PreparedProbe = { instructions: 'You are a support agent.', items: [userMessage('My serial is RX-88812.')], question: 'Reset it, please.', tools };
  const target = (api: OpenAIApi) => new OpenAIModel({ name: 'gpt-4.1-mini', api, baseURL: server.baseURL, apiKey: KEY, maxAttempts: 1 }).runnerTarget();

  beforeAll(async () => {
    // No calls: a plain answer.
    server = await startFakeOpenAI((req) => callsReply(req, calls, calls.length ? undefined : 'Done, it is reset.'));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    calls = [{ name: 'reset-router', arguments: { serial: 'RX-88812' } }];
  });

  for (const api of ['responses', 'chat'] as const) {
    it(`${api}: offers the tools under their own names and stops at the first call, in one request`, async () => {
      const answer = await answerWithRunner({ prepared: probe, question: probe.question, model: target(api) });
      expect(answer.error).toBeUndefined();
      expect(answer.toolCalls).toEqual([{ name: 'reset-router', arguments: '{"serial":"RX-88812"}' }]);
      // The stub's result is not an answer: the model wrote no text.
      expect(answer.output).toBe('');
      expect(server.requests).toHaveLength(1);
      // `reset-router` keeps its '-' (the SDK alone would send `reset_router`).
      expect(offeredToolNames(server.requests[0].body)).toEqual(['lookup_device', 'reset-router']);
    });

    it(`${api}: a call to a tool the agent lacks comes back as that call, not an error`, async () => {
      calls = [{ name: 'factory_reset', arguments: '{}' }];
      const answer = await answerWithRunner({ prepared: probe, question: probe.question, model: target(api) });
      expect(answer.error).toBeUndefined();
      expect(answer.toolCalls).toEqual([{ name: 'factory_reset', arguments: '{}' }]);
      expect(answer.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
      expect(server.requests).toHaveLength(1);
    });

    it(`${api}: without tools, the runner offers none and answers with text`, async () => {
      calls = [];
      const { tools: _offered, ...bare } = probe;
      const answer = await answerWithRunner({ prepared: bare, question: probe.question, model: target(api) });
      expect(answer.toolCalls).toBeUndefined();
      expect(answer.output).toBe('Done, it is reset.');
      // The request is the SDK's own (its Responses model always sends a `tools` list, empty here).
      expect(offeredToolNames(server.requests[0].body)).toEqual([]);
    });
  }

  it('through the adapter, a Model is offered the tools and its calls come back', async () => {
    const seen: ModelRequest[] = [];
    const model: Model = {
      id: 'stub',
      params: {},
      async complete(request) {
        seen.push(request);
        return { output: '', usage: { inputTokens: 3, outputTokens: 2 }, cached: false, latencyMs: 1, toolCalls: [{ name: 'lookup_device', arguments: '{"serial":"RX-88812"}' }] };
      },
    };
    const answer = await answerWithRunner({ prepared: probe, question: probe.question, model });
    expect(answer.error).toBeUndefined();
    expect(answer.toolCalls).toEqual([{ name: 'lookup_device', arguments: '{"serial":"RX-88812"}' }]);
    expect(seen).toHaveLength(1);
    expect(seen[0].tools).toEqual(tools);
  });
});
