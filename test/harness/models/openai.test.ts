import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assistantMessage, userMessage } from '../../../core/items.js';
import type { ModelRequest } from '../../../core/model.js';
import pLimit from 'p-limit';
import { createModel, runnerTargetOf } from '../../../harness/models/create.js';
import { DEFAULT_MAX_ATTEMPTS, OpenAIModel, type OpenAIModelOptions } from '../../../harness/models/openai.js';
import type { AgentInputItem } from '../../../core/types.js';
import {
  chatBody,
  echoHandler,
  htmlPage,
  responsesBody,
  startFakeOpenAI,
  truncatedJson,
  type FakeReply,
  type FakeServer,
} from '../../../scripts/lib/fake-openai.js';

const KEY = 'sk-proj-TESTKEY0123456789abcdefABCDEF';

const history: AgentInputItem[] = [
  userMessage('My router is the AX3000.'),
  { type: 'function_call', callId: 'call_1', name: 'lookup', arguments: '{"model":"AX3000"}' },
  { type: 'function_call', callId: 'call_2', name: 'firmware', arguments: '{}' },
  { type: 'function_call_result', callId: 'call_1', name: 'lookup', status: 'completed', output: 'in stock' },
  { type: 'function_call_result', callId: 'call_2', name: 'firmware', status: 'completed', output: '1.0.3' },
  { type: 'reasoning', content: [{ type: 'input_text', text: 'private thoughts' }] },
  assistantMessage('It is in stock and on firmware 1.0.3.'),
  { type: 'message', role: 'system', content: 'Be brief.' },
  userMessage('Which firmware?'),
];

const request: ModelRequest = {
  system: 'You are a support agent.',
  input: history,
  maxOutputTokens: 50,
  temperature: 0,
  responseFormat: { name: 'answer', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } },
  purpose: 'answer',
};

describe('OpenAIModel against a local OpenAI-compatible server', () => {
  let server: FakeServer;
  let sleeps: number[];
  const make = (opts: Partial<OpenAIModelOptions> = {}) =>
    new OpenAIModel({
      name: 'gpt-4.1-mini',
      baseURL: server.baseURL,
      apiKey: KEY,
      timeoutMs: 5_000,
      maxAttempts: 3,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...opts,
    });

  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.setHandler(echoHandler);
    sleeps = [];
  });

  it('records the cached_tokens a reply reports, on either API, and none when it reports none', async () => {
    server.setHandler(() => ({ json: responsesBody('ok', { input: 2000, output: 5, cached: 1152 }) }));
    expect((await make().complete(request)).usage).toEqual({ inputTokens: 2000, outputTokens: 5, cachedTokens: 1152 });
    server.setHandler(() => ({ json: chatBody('ok', { input: 1500, output: 5, cached: 1024 }) }));
    expect((await make({ api: 'chat' }).complete(request)).usage).toEqual({ inputTokens: 1500, outputTokens: 5, cachedTokens: 1024 });
    server.setHandler(() => ({ json: chatBody('ok', { input: 1500, output: 5 }) }));
    expect((await make({ api: 'chat' }).complete(request)).usage).toEqual({ inputTokens: 1500, outputTokens: 5 });
  });

  it('reads usage a reply does not report usably (none, negative, text) as unknown: cost unknown, never a measured 0', async () => {
    const priced = { price: { input: 1, output: 2 } };
    const withUsage = (usage: unknown) => ({ ...responsesBody('ok'), usage });
    for (const usage of [undefined, { input_tokens: -5_000_000, output_tokens: 5 }, { input_tokens: '12', output_tokens: '7' }, { input_tokens: 1.5, output_tokens: 2 }]) {
      server.setHandler(() => ({ json: withUsage(usage) }));
      const result = await make(priced).complete(request);
      expect(result.output).toBe('ok');
      expect(result.usageUnknown).toBe(true);
      expect(result.cost).toBeUndefined();
      expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    }
    server.setHandler(() => ({ json: { ...chatBody('ok'), usage: { prompt_tokens: null, completion_tokens: 3 } } }));
    expect((await make({ ...priced, api: 'chat' }).complete(request)).usageUnknown).toBe(true);
    server.setHandler(() => ({ json: withUsage({ input_tokens: 1_000_000, output_tokens: 0 }) }));
    const known = await make(priced).complete(request);
    expect(known.usageUnknown).toBeUndefined();
    expect(known.cost).toBe(1);
  });

  it('sends the Responses API shape: instructions, converted items, limits, json schema', async () => {
    server.setHandler(() => ({ json: responsesBody('{"a":"1.0.3"}', { input: 321, output: 7 }) }));
    const result = await make().complete(request);
    expect(result.output).toBe('{"a":"1.0.3"}');
    const [req] = server.requests;
    expect(req.path).toBe('/v1/responses');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body;
    expect(body.model).toBe('gpt-4.1-mini');
    expect(body.instructions).toBe('You are a support agent.');
    expect(body.max_output_tokens).toBe(50);
    expect(body.temperature).toBe(0);
    expect(body.text).toEqual({ format: { type: 'json_schema', name: 'answer', schema: request.responseFormat?.schema, strict: true } });
    expect(body.input).toEqual([
      { role: 'user', content: 'My router is the AX3000.' },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"model":"AX3000"}' },
      { type: 'function_call', call_id: 'call_2', name: 'firmware', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'in stock' },
      { type: 'function_call_output', call_id: 'call_2', output: '1.0.3' },
      { role: 'assistant', content: 'It is in stock and on firmware 1.0.3.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Which firmware?' },
    ]);
    // The API's own token counts surface, and the price table gives the cost.
    expect(result.usage).toEqual({ inputTokens: 321, outputTokens: 7, cachedTokens: 0 });
    expect(result.cost).toBeUndefined();
    const priced = await make({ price: { input: 0.4, output: 1.6 } }).complete(request);
    expect(priced.cost).toBeCloseTo((321 * 0.4 + 7 * 1.6) / 1e6, 12);
  });

  it('sends the Chat Completions shape: system message, tool_calls, tool messages, response_format', async () => {
    server.setHandler(() => ({ json: chatBody('1.0.3', { input: 99, output: 3 }) }));
    const result = await make({ api: 'chat' }).complete(request);
    expect(result.output).toBe('1.0.3');
    expect(result.usage).toEqual({ inputTokens: 99, outputTokens: 3 });
    const body = server.requests[0].body;
    expect(server.requests[0].path).toBe('/v1/chat/completions');
    expect(body.max_completion_tokens).toBe(50);
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema: request.responseFormat?.schema, strict: true } });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'My router is the AX3000.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"model":"AX3000"}' } },
          { id: 'call_2', type: 'function', function: { name: 'firmware', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'in stock' },
      { role: 'tool', tool_call_id: 'call_2', content: '1.0.3' },
      { role: 'assistant', content: 'It is in stock and on firmware 1.0.3.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Which firmware?' },
    ]);
    const legacy = make({ api: 'chat', chatMaxTokensField: 'max_tokens' });
    await legacy.complete(request);
    expect(server.requests[1].body.max_tokens).toBe(50);
    expect(server.requests[1].body.max_completion_tokens).toBeUndefined();
  });

  it('keeps the key and base URL secrets out of id and params', () => {
    const model = make({ baseURL: `http://user:pw@127.0.0.1:9/v1?api-key=${KEY}` });
    expect(model.id).toBe('openai:gpt-4.1-mini');
    expect(JSON.stringify(model.params)).not.toContain(KEY);
    expect(JSON.stringify(model.params)).not.toContain('pw');
    expect(model.params).toEqual({ api: 'responses', baseURL: 'http://127.0.0.1:9/v1' });
  });

  it('honours Retry-After (seconds) and retry-after-ms on 429', async () => {
    const replies: FakeReply[] = [
      { json: { error: { message: 'slow down' } }, status: 429, headers: { 'retry-after': '7' } },
      { json: { error: { message: 'slow down' } }, status: 429, headers: { 'retry-after-ms': '1234' } },
    ];
    server.setHandler((_req, i) => replies[i] ?? { json: responsesBody('ok') });
    const result = await make().complete(request);
    expect(result.output).toBe('ok');
    expect(result.error).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([7000, 1234]);
  });

  it('retries a 500 and then succeeds, with jittered backoff within the cap', async () => {
    server.setHandler((_req, i) => (i === 0 ? { json: { error: { message: 'boom' } }, status: 500 } : { json: responsesBody('fine') }));
    const result = await make({ baseDelayMs: 200 }).complete(request);
    expect(result.output).toBe('fine');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(0);
    expect(sleeps[0]).toBeLessThanOrEqual(200);
  });

  it('ends with an error result after the bounded number of attempts', async () => {
    server.setHandler(() => ({ json: { error: { message: 'overloaded' } }, status: 503 }));
    const result = await make({ maxAttempts: 3 }).complete(request);
    expect(server.requests).toHaveLength(3);
    expect(result.output).toBe('');
    expect(result.error).toMatch(/HTTP 503: .*overloaded.*after 3 attempts/);
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it('does not retry 400/401/403/404/422', async () => {
    for (const status of [400, 401, 403, 404, 422]) {
      server.requests.length = 0;
      server.setHandler(() => ({ json: { error: { message: `no ${status}` } }, status }));
      const result = await make().complete(request);
      expect(server.requests).toHaveLength(1);
      expect(result.error).toContain(`HTTP ${status}`);
    }
    expect(sleeps).toEqual([]);
  });

  it('takes attempts and retry delays from the provider settings, on both paths', async () => {
    server.setHandler(() => ({ json: { error: { message: 'overloaded' } }, status: 503 }));
    const model = createModel('local:tiny', {
      providers: { local: { base_url: server.baseURL, max_attempts: 4, retry_base_delay_ms: 2, retry_max_delay_ms: 3 } },
      prices: {},
      cacheDir: false,
      limit: pLimit(1),
      env: {},
      sleep: async (ms) => void sleeps.push(ms),
    });
    const result = await model.complete(request);
    expect(result.error).toMatch(/after 4 attempts/);
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    // Unflowed defaults (1 s base) would make waits this short all but impossible.
    for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(3);
    expect(runnerTargetOf(model)).toMatchObject({ maxAttempts: 4, baseDelayMs: 2, maxDelayMs: 3 });
  });

  it('times out a slow attempt and retries it', async () => {
    server.setHandler((_req, i) => (i === 0 ? { json: responsesBody('late'), delayMs: 2_000 } : { json: responsesBody('quick') }));
    const result = await make({ timeoutMs: 300 }).complete(request);
    expect(result.output).toBe('quick');
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.setHandler(() => ({ json: responsesBody('late'), delayMs: 2_000 }));
    const failed = await make({ timeoutMs: 200, maxAttempts: 2 }).complete(request);
    expect(failed.error).toMatch(/timed out after 200 ms.*after 2 attempts/);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a connection reset', async () => {
    server.setHandler((_req, i) => (i === 0 ? { destroy: true } : { json: responsesBody('after reset') }));
    const result = await make().complete(request);
    expect(result.output).toBe('after reset');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 200 whose body is a gateway HTML page or cut-off JSON', async () => {
    const replies: FakeReply[] = [htmlPage(), truncatedJson(responsesBody('never seen'))];
    server.setHandler((_req, i) => replies[i] ?? { json: responsesBody('third time') });
    const result = await make({ maxAttempts: 3 }).complete(request);
    expect(result.error).toBeUndefined();
    expect(result.output).toBe('third time');
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    // The same on Chat Completions.
    server.requests.length = 0;
    server.setHandler((_req, i) => (i === 0 ? { text: 'upstream connect error' } : { json: chatBody('chat ok') }));
    expect((await make({ api: 'chat' }).complete(request)).output).toBe('chat ok');
    expect(server.requests).toHaveLength(2);
  });

  it('names the body and the likely cause when every reply is HTML', async () => {
    server.setHandler(() => ({ text: `<html><body>Sign in to the proxy. token: ${KEY}</body></html>`, headers: { 'content-type': 'text/html' } }));
    const result = await make({ maxAttempts: 4 }).complete(request);
    expect(server.requests).toHaveLength(4);
    expect(result.output).toBe('');
    expect(result.error).toContain('not valid JSON: "<html><body>Sign in to the proxy. token: [REDACTED]');
    expect(result.error).toContain('OpenAI-compatible /v1 endpoint');
    expect(result.error).toContain('after 4 attempts');
    expect(result.error).not.toContain(KEY.slice(0, 12));
  });

  it('reads a failed or unfinished Responses reply as an error, never as an empty answer', async () => {
    const failed = (code: string) => ({ ...responsesBody(''), status: 'failed', output: [], error: { code, message: 'The model failed to generate a response.' } });
    server.setHandler(() => ({ json: failed('server_error') }));
    const transient = await make({ maxAttempts: 2 }).complete(request);
    expect(transient.error).toMatch(/reply failed \(server_error\): The model failed/);
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.setHandler(() => ({ json: failed('invalid_prompt') }));
    expect((await make().complete(request)).error).toMatch(/failed \(invalid_prompt\)/);
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    const incomplete = (text: string) => ({ ...responsesBody(text), status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, ...(text ? {} : { output: [{ type: 'reasoning', summary: [] }] }) });
    server.setHandler(() => ({ json: incomplete('') }));
    expect((await make().complete(request)).error).toMatch(/incomplete \(max_output_tokens\) and holds no answer.*raise max_output_tokens/);
    expect(server.requests).toHaveLength(1);
    // Cut off mid-answer, the text is the model's answer, graded as it stands.
    server.setHandler(() => ({ json: incomplete('The firmware is 1.0') }));
    const partial = await make().complete(request);
    expect(partial.error).toBeUndefined();
    expect(partial.output).toBe('The firmware is 1.0');
  });

  it('retries a finished reply with nothing in it, then ends with an error, on both APIs', async () => {
    server.setHandler(() => ({ json: { ...responsesBody(''), output: [] } }));
    const responses = await make({ maxAttempts: 2 }).complete(request);
    expect(responses.error).toMatch(/the reply is empty: no text and no tool call/);
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.setHandler(() => ({ json: chatBody('') }));
    expect((await make({ api: 'chat', maxAttempts: 2 }).complete(request)).error).toMatch(/the reply is empty/);
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    const cut = chatBody('');
    (cut.choices as Record<string, unknown>[])[0].finish_reason = 'length';
    server.setHandler(() => ({ json: cut }));
    expect((await make({ api: 'chat' }).complete(request)).error).toMatch(/stopped \(length\) before any answer/);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry JSON of the wrong shape', async () => {
    server.setHandler(() => ({ json: { id: 'x', object: 'response' } }));
    const responses = await make().complete(request);
    expect(responses.error).toMatch(/no `output` list/);
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    server.setHandler(() => ({ json: { id: 'x', choices: [] } }));
    const chat = await make({ api: 'chat' }).complete(request);
    expect(chat.error).toMatch(/no choices/);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it(`makes ${DEFAULT_MAX_ATTEMPTS} attempts by default, waiting within the configured delays`, async () => {
    expect(DEFAULT_MAX_ATTEMPTS).toBe(6);
    server.setHandler(() => ({ json: { error: { message: 'overloaded' } }, status: 503 }));
    const result = await make({ maxAttempts: undefined, baseDelayMs: 2, maxDelayMs: 3 }).complete(request);
    expect(server.requests).toHaveLength(6);
    expect(result.error).toMatch(/after 6 attempts/);
    expect(sleeps).toHaveLength(5);
    for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(3);
  });

  it('never puts the API key in an error message', async () => {
    server.setHandler((req) => ({
      json: { error: { message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}` } },
      status: 401,
    }));
    const result = await make().complete(request);
    expect(result.error).toContain('HTTP 401');
    expect(result.error).not.toContain(KEY);
    // A key that looks like nothing in particular is redacted because the model registered it.
    const odd = 'plainlocalkey-42-zz';
    server.setHandler(() => ({ json: { error: { message: `bad key ${odd}` } }, status: 401 }));
    const other = await make({ apiKey: odd }).complete(request);
    expect(other.error).not.toContain(odd);
  });
});
