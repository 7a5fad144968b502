import pLimit from 'p-limit';
import type { ModelRequest as SdkModelRequest } from '@openai/agents';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { answerWithRunner, prepareProbe, probeRequest, ProbeSession, SdkModelAdapter } from '../../../harness/models/agent-path.js';
import { Breakers } from '../../../harness/models/breaker.js';
import { assistantMessage, itemText, userMessage } from '../../../core/items.js';
import type { Model, ModelRequest, ModelResult } from '../../../core/model.js';
import { ABSTAIN_ANSWER, OfflineModel } from '../../../harness/models/offline.js';
import { OpenAIModel } from '../../../harness/models/openai.js';
import type { AgentInputItem } from '../../../core/types.js';
import { MemoryStrategy } from '../../../strategies/base.js';
import { apiError, chatBody, echoHandler, htmlPage, responsesBody, startFakeOpenAI, truncatedJson, type FakeReply, type FakeServer } from '../../../scripts/lib/fake-openai.js';

/** Shows only the last four items: enough to tell the view from the full history. */
class LastFour extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    return this.history.slice(-4);
  }
}

async function strategyWithHistory(): Promise<LastFour> {
  const strategy = new LastFour();
  await strategy.addItems([
    userMessage('My order number is RX-88812.'),
    assistantMessage('Thanks, noted.'),
    userMessage('The router is an AX3000.'),
    assistantMessage('Got it.'),
    userMessage('Firmware is 1.0.3.'),
    assistantMessage('Okay.'),
  ]);
  return strategy;
}

describe('agent path: probes through the @openai/agents runner', () => {
  let server: FakeServer;
  const KEY = 'sk-proj-AGENTPATHKEY0123456789ab';

  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.setHandler(echoHandler);
  });

  it('sends the strategy view plus the question (Responses API) and leaves the strategy unchanged', async () => {
    server.setHandler(() => ({ json: responsesBody('It is an AX3000.', { input: 77, output: 6 }) }));
    const strategy = await strategyWithHistory();
    const before = structuredClone(strategy.getHistory());
    const model = new OpenAIModel({ name: 'gpt-4.1-mini', baseURL: server.baseURL, apiKey: KEY, price: { input: 1, output: 1 } });
    const answer = await answerWithRunner({
      session: strategy,
      question: 'Which router do I have?',
      instructions: 'You are a support agent.',
      model: model.runnerTarget(),
      maxOutputTokens: 40,
      temperature: 0,
    });
    expect(answer.error).toBeUndefined();
    expect(answer.output).toBe('It is an AX3000.');
    expect(answer.usage).toEqual({ inputTokens: 77, outputTokens: 6 });
    expect(answer.cost).toBeCloseTo(83 / 1e6, 12);
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0].body;
    expect(server.requests[0].path).toBe('/v1/responses');
    expect(body.model).toBe('gpt-4.1-mini');
    expect(body.instructions).toBe('You are a support agent.');
    expect(body.max_output_tokens).toBe(40);
    const sent = (body.input as { role?: string; content: unknown }[]).map((m) => `${m.role}:${JSON.stringify(m.content)}`).join('\n');
    expect(sent).toContain('The router is an AX3000.');
    expect(sent).toContain('Which router do I have?');
    // The trimmed part of the history never reaches the model.
    expect(sent).not.toContain('RX-88812');
    expect(body.input as unknown[]).toHaveLength(5);
    // The probe did not pollute the strategy.
    expect(strategy.getHistory()).toEqual(before);
    expect(await strategy.getItems()).toHaveLength(4);
    expect(answer.added.map(itemText)).toEqual(['Which router do I have?', 'It is an AX3000.']);
  });

  it('uses Chat Completions through the SDK when the model is configured for it', async () => {
    const strategy = await strategyWithHistory();
    const model = new OpenAIModel({ name: 'gpt-4.1-mini', api: 'chat', baseURL: server.baseURL, apiKey: KEY });
    const answer = await answerWithRunner({ session: strategy, question: 'What firmware?', instructions: 'Be brief.', model: model.runnerTarget() });
    expect(answer.output).toBe('echo: What firmware?');
    expect(answer.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    const messages = server.requests[0].body.messages as { role: string; content: string }[];
    expect(server.requests[0].path).toBe('/v1/chat/completions');
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: 'What firmware?' });
    expect(messages).toHaveLength(6);
  });

  it('reads usage the server did not report usably as unknown on either API (the SDK would read 0, or add "12" as text)', async () => {
    const strategy = await strategyWithHistory();
    const price = { input: 1, output: 1 };
    for (const api of ['responses', 'chat'] as const) {
      for (const usage of [undefined, api === 'chat' ? { prompt_tokens: '12', completion_tokens: '7' } : { input_tokens: '12', output_tokens: '7' }]) {
        server.setHandler(() => {
          const body = api === 'chat' ? chatBody('ok') : responsesBody('ok');
          return { json: { ...body, usage } };
        });
        const model = new OpenAIModel({ name: 'gpt-4.1-mini', api, baseURL: server.baseURL, apiKey: KEY, price });
        const answer = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
        expect(answer.output).toBe('ok');
        expect(answer.usageUnknown).toBe(true);
        expect(answer.cost).toBeUndefined();
        expect(answer.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
      }
      server.setHandler(() => ({ json: api === 'chat' ? chatBody('ok', { input: 500_000, output: 500_000 }) : responsesBody('ok', { input: 500_000, output: 500_000 }) }));
      const model = new OpenAIModel({ name: 'gpt-4.1-mini', api, baseURL: server.baseURL, apiKey: KEY, price });
      const known = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
      expect(known.usageUnknown).toBeUndefined();
      expect(known.cost).toBe(1);
    }
  });

  it('times latency from the start of the call, not from when it queued for a concurrency slot', async () => {
    const strategy = await strategyWithHistory();
    const model = new OpenAIModel({ name: 'gpt-4.1-mini', baseURL: server.baseURL, apiKey: KEY });
    server.setHandler(() => ({ json: responsesBody('slow'), delayMs: 200 }));
    const one = pLimit(1);
    const answers = await Promise.all([1, 2, 3].map(() => answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget(), limit: one })));
    // Queued one after another, the third waited ~400 ms for its slot; each call itself took ~200 ms.
    for (const answer of answers) expect(answer.latencyMs).toBeLessThan(390);
    expect(Math.max(...answers.map((a) => a.latencyMs))).toBeGreaterThanOrEqual(190);
  });

  it('retries the run on a 500 and reports a final failure as an error result', async () => {
    const sleeps: number[] = [];
    const strategy = await strategyWithHistory();
    const model = new OpenAIModel({
      name: 'gpt-4.1-mini',
      baseURL: server.baseURL,
      apiKey: KEY,
      maxAttempts: 2,
      sleep: async (ms) => void sleeps.push(ms),
    });
    server.setHandler((_req, i) => (i === 0 ? { json: { error: { message: 'boom' } }, status: 500 } : { json: responsesBody('second try') }));
    const ok = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    expect(ok.output).toBe('second try');
    expect(sleeps).toHaveLength(1);
    server.requests.length = 0;
    server.setHandler(() => ({ json: { error: { message: `denied for ${KEY}` } }, status: 401 }));
    const failed = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    expect(failed.output).toBe('');
    expect(failed.error).toContain('HTTP 401');
    expect(failed.error).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a failed or empty reply through the runner as the direct path does, then ends with an error result', async () => {
    const strategy = await strategyWithHistory();
    const model = new OpenAIModel({ name: 'gpt-4.1-mini', baseURL: server.baseURL, apiKey: KEY, maxAttempts: 2, sleep: async () => undefined });
    const failed = { ...responsesBody(''), status: 'failed', output: [], error: { code: 'server_error', message: 'model crashed' } };
    const empty = { ...responsesBody(''), output: [] };
    for (const bad of [failed, empty]) {
      server.requests.length = 0;
      server.setHandler((_req, i) => (i === 0 ? { json: bad } : { json: responsesBody('second try') }));
      const ok = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
      expect(ok.output).toBe('second try');
      expect(server.requests).toHaveLength(2);
    }
    server.setHandler(() => ({ json: empty }));
    const none = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    expect(none.output).toBe('');
    expect(none.error).toMatch(/the reply is empty: no text and no tool call/);
  });

  it("a failed reply through the runner says what the server said, and is retried only when the server's fault", async () => {
    const strategy = await strategyWithHistory();
    const model = new OpenAIModel({ name: 'gpt-4.1-mini', baseURL: server.baseURL, apiKey: KEY, maxAttempts: 3, sleep: async () => undefined });
    const failed = (code: string) => ({ ...responsesBody(''), status: 'failed', output: [], error: { code, message: 'The prompt was refused by policy.' } });
    server.requests.length = 0;
    server.setHandler(() => ({ json: failed('invalid_prompt') }));
    const permanent = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    expect(permanent.error).toMatch(/the Responses API reply failed \(invalid_prompt\): The prompt was refused by policy\./);
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    server.setHandler(() => ({ json: failed('server_error') }));
    const transient = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    expect(transient.error).toMatch(/the Responses API reply failed \(server_error\): The prompt was refused by policy\. \(after 3 attempts\)/);
    expect(server.requests).toHaveLength(3);
  });

  it('retries a 200 HTML page or cut-off JSON through the runner too, within the model’s delays', async () => {
    const sleeps: number[] = [];
    const replies: FakeReply[] = [htmlPage(), truncatedJson(responsesBody('lost'))];
    server.setHandler((_req, i) => replies[i] ?? { json: responsesBody('through the gateway') });
    const model = new OpenAIModel({
      name: 'gpt-4.1-mini',
      baseURL: server.baseURL,
      apiKey: KEY,
      baseDelayMs: 4,
      maxDelayMs: 5,
      sleep: async (ms) => void sleeps.push(ms),
    });
    const strategy = await strategyWithHistory();
    const answer = await answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    expect(answer.error).toBeUndefined();
    expect(answer.output).toBe('through the gateway');
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(4);
    server.requests.length = 0;
    server.setHandler(() => htmlPage('Proxy sign-in'));
    const twice = new OpenAIModel({ name: 'gpt-4.1-mini', baseURL: server.baseURL, apiKey: KEY, maxAttempts: 2, sleep: async () => {} });
    const failed = await answerWithRunner({ session: strategy, question: 'Firmware?', model: twice.runnerTarget() });
    expect(failed.error).toMatch(/not valid JSON: "<html><head><title>Proxy sign-in.*OpenAI-compatible \/v1 endpoint.*after 2 attempts/);
    expect(server.requests).toHaveLength(2);
  });

  it('trips the model’s breaker on the runner path, and shares it with direct calls', async () => {
    server.setHandler(() => apiError(404, 'The model `gpt-nope` does not exist'));
    const breakers = new Breakers();
    const model = new OpenAIModel({ name: 'gpt-nope', baseURL: server.baseURL, apiKey: KEY, breakers, sleep: async () => {} });
    const strategy = await strategyWithHistory();
    const ask = () => answerWithRunner({ session: strategy, question: 'Firmware?', model: model.runnerTarget() });
    const first = await ask();
    expect(first.error).toMatch(/^openai:gpt-nope: HTTP 404/);
    await ask();
    const third = await ask();
    expect(server.requests).toHaveLength(3);
    const fatal = breakers.fatal();
    expect(fatal).toMatch(new RegExp(`^model "gpt-nope" was not found at ${server.baseURL} \\(HTTP 404: The model`));
    expect(third.error).toBe(`openai:gpt-nope: ${fatal}`);
    const fourth = await ask();
    expect(fourth.error).toBe(`openai:gpt-nope: ${fatal}`);
    expect(fourth.output).toBe('');
    expect((await model.complete(probeRequest(fourth.probe))).error).toBe(`openai:gpt-nope: ${fatal}`);
    expect(server.requests).toHaveLength(3);
  });

  it('runs the offline reader through the same runner via the SDK model adapter', async () => {
    const strategy = await strategyWithHistory();
    const seen: ModelRequest[] = [];
    const offline = new OfflineModel();
    const spy: Model = {
      id: offline.id,
      params: offline.params,
      complete: (request) => {
        seen.push(request);
        return offline.complete(request);
      },
    };
    const answer = await answerWithRunner({ session: strategy, question: 'What firmware is installed?', instructions: 'Support.', model: spy });
    expect(answer.output).toContain('1.0.3');
    expect(answer.cost).toBe(0);
    expect(answer.usage.inputTokens).toBeGreaterThan(0);
    expect(seen).toHaveLength(1);
    expect(seen[0].system).toBe('Support.');
    expect(seen[0].input.map(itemText)).toEqual([...(await strategy.getItems()).map(itemText), 'What firmware is installed?']);
    // The order number was trimmed from the view, so the reader cannot know it.
    const trimmed = await answerWithRunner({ session: strategy, question: 'What is my order number?', model: offline });
    expect(trimmed.output).toBe(ABSTAIN_ANSWER);
    expect(strategy.getHistory()).toHaveLength(6);
  });

  it('exposes the exact probe so callers can cache at the answer level', async () => {
    const strategy = await strategyWithHistory();
    const probe = await prepareProbe(strategy, 'Which router?', 'Support.');
    expect(probe.items).toEqual(await strategy.getItems());
    const request = probeRequest(probe, { temperature: 0 });
    const seen: ModelRequest[] = [];
    const recorder: Model = {
      id: 'recorder',
      params: {},
      complete: async (r): Promise<ModelResult> => {
        seen.push(r);
        return { output: 'ok', usage: { inputTokens: 1, outputTokens: 1 }, cached: true, latencyMs: 0 };
      },
    };
    const answer = await answerWithRunner({ prepared: probe, question: probe.question, model: recorder, temperature: 0 });
    expect(answer.cached).toBe(true);
    expect(answer.cost).toBeUndefined();
    expect(seen[0].system).toBe(request.system);
    expect(seen[0].temperature).toBe(0);
    expect(seen[0].input.map(itemText)).toEqual(request.input.map(itemText));
  });

  it('a failing model gives an error result, not an exception', async () => {
    const failing: Model = {
      id: 'failing',
      params: {},
      complete: async () => ({ output: '', usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs: 1, error: 'HTTP 503: overloaded' }),
    };
    const strategy = await strategyWithHistory();
    const answer = await answerWithRunner({ session: strategy, question: 'Anything?', model: failing });
    expect(answer.error).toBe('HTTP 503: overloaded');
    expect(answer.output).toBe('');
  });

  it('ProbeSession keeps writes local and honours limit', async () => {
    const view = [userMessage('a'), assistantMessage('b'), userMessage('c')];
    const session = new ProbeSession(view);
    await session.addItems([assistantMessage('d')]);
    expect((await session.getItems(2)).map(itemText)).toEqual(['c', 'd']);
    expect(await session.getItems(0)).toEqual([]);
    expect(view).toHaveLength(3);
    expect(await session.popItem()).toEqual(assistantMessage('d'));
  });

  it('SdkModelAdapter turns SDK requests into Model requests and a failed call into a thrown error', async () => {
    const sdkRequest = (over: Partial<SdkModelRequest> = {}): SdkModelRequest => ({
      input: 'Which router?',
      modelSettings: {},
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
      ...over,
    });
    const adapter = new SdkModelAdapter(new OfflineModel(), 'judge');
    const schema = { type: 'object' as const, properties: {}, required: [], additionalProperties: false as const };
    expect(
      adapter.toRequest(
        sdkRequest({
          systemInstructions: 'Grade it.',
          modelSettings: { maxTokens: 50, temperature: 0 },
          outputType: { type: 'json_schema', name: 'verdict', strict: true, schema },
        }),
      ),
    ).toEqual({ input: [userMessage('Which router?')], purpose: 'judge', system: 'Grade it.', maxOutputTokens: 50, temperature: 0, responseFormat: { name: 'verdict', schema } });

    const input = [userMessage('The router is an AX3000.'), assistantMessage('Noted.'), userMessage('Which router do I have?')];
    const response = await adapter.getResponse(sdkRequest({ input }));
    expect(response.output).toEqual([expect.objectContaining({ role: 'assistant', content: [{ type: 'output_text', text: 'The router is an AX3000.' }] })]);
    expect(response.usage.inputTokens).toBe(adapter.results[0].usage.inputTokens);
    expect(adapter.results).toHaveLength(1);

    const failing: Model = { id: 'down', params: {}, complete: async () => ({ output: '', usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs: 1, error: 'HTTP 503' }) };
    const broken = new SdkModelAdapter(failing);
    await expect(broken.getResponse(sdkRequest())).rejects.toThrow('HTTP 503');
    // The failed call is still kept, so its cost and latency are accounted for.
    expect(broken.results.map((r) => r.error)).toEqual(['HTTP 503']);
  });
});
