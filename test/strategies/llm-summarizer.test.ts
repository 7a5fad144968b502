import { readFileSync } from 'node:fs';
import { Usage, type Model as SdkModel, type ModelRequest as SdkModelRequest, type ModelResponse as SdkModelResponse } from '@openai/agents';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { turnItems } from '../../core/items.js';
import { OpenAIModel } from '../../harness/models/openai.js';
import type { MessageTurn } from '../../core/types.js';
import { createLlmSummarizer, LlmSummarizer, SDK_MODEL_LABEL } from '../../strategies/llm-summarizer.js';
import { DEFAULT_SUMMARIZER } from '../../strategies/registry.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';

const cookbookPrompt = readFileSync(new URL('../../strategies/prompts/cookbook-summary.md', import.meta.url), 'utf8');
const longOutput = `{"log":"${'x'.repeat(700)}"}`;
const turns: MessageTurn[] = [
  { kind: 'message', user: "Hi, my router won't connect. I'm on Windows 10.", assistant: "Let's check your firmware version.", toolCalls: [] },
  {
    kind: 'message',
    user: 'Firmware v1.0.3; still failing.',
    assistant: 'Try a factory reset.',
    toolCalls: [{ name: 'lookup_device', arguments: { serial: 'RX-88812' }, output: longOutput }],
  },
];
const items = turns.flatMap((t, i) => turnItems(t, i + 1));

describe('LlmSummarizer (the cookbook LLMSummarizer)', () => {
  let server: FakeServer;
  let model: OpenAIModel;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    model = new OpenAIModel({ name: 'sum-model', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 });
  });

  it('sends the cookbook prompt as system, ROLE lines with the tool output cut, and max_output_tokens', async () => {
    server.setHandler(() => ({ json: responsesBody('• Product & Environment:\n  - Windows 10 ', { input: 321, output: 45 }) }));
    const summarizer = createLlmSummarizer({ ...DEFAULT_SUMMARIZER, model: 'openai:sum-model' }, model);
    const out = await summarizer.summarize(items);

    const expectedUser = [
      "USER: Hi, my router won't connect. I'm on Windows 10.",
      "ASSISTANT: Let's check your firmware version.",
      'USER: Firmware v1.0.3; still failing.',
      'TOOL_CALL: lookup_device({"serial":"RX-88812"})',
      `TOOL: ${longOutput.slice(0, 600)} …`,
      'ASSISTANT: Try a factory reset.',
    ].join('\n');
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0].body;
    expect(body.instructions).toBe(cookbookPrompt);
    expect(body.input).toEqual([{ role: 'user', content: expectedUser }]);
    expect(body.max_output_tokens).toBe(400);
    expect(body.model).toBe('sum-model');

    expect(out.userShadow).toBe('Summarize the conversation we had so far.');
    expect(out.summary).toBe('• Product & Environment:\n  - Windows 10');
    expect(out.request).toEqual({ system: cookbookPrompt, user: expectedUser });
    expect(out.usage).toEqual({ inputTokens: 321, outputTokens: 45, cachedTokens: 0 });
    expect(out.durationMs).toBeGreaterThanOrEqual(0);
    expect(out.promptPath).toMatch(/cookbook-summary\.md$/);
    expect(out.promptHash).toMatch(/^[0-9a-f]{12}$/);
    expect(summarizer.label).toBe('openai:sum-model');
  });

  it('honours max_tokens and tool_trim_limit', async () => {
    server.setHandler(() => ({ json: responsesBody('ok') }));
    const summarizer = new LlmSummarizer({ model, maxTokens: 123, toolTrimLimit: 10 });
    await summarizer.summarize(items);
    const body = server.requests[0].body as { max_output_tokens: number; input: { content: string }[] };
    expect(body.max_output_tokens).toBe(123);
    expect(body.input[0].content).toContain(`TOOL: ${longOutput.slice(0, 10)} …\n`);
  });

  it('throws the error message when the call fails', async () => {
    server.setHandler(() => ({ json: { error: { message: 'model overloaded' } }, status: 500 }));
    const summarizer = new LlmSummarizer({ model, maxTokens: 400, toolTrimLimit: 600 });
    await expect(summarizer.summarize(items)).rejects.toThrow(/summarizer openai:sum-model failed: .*/);
  });

  it('throws on an empty summary', async () => {
    server.setHandler(() => ({ json: responsesBody('   ') }));
    const summarizer = new LlmSummarizer({ model, maxTokens: 400, toolTrimLimit: 600 });
    await expect(summarizer.summarize(items)).rejects.toThrow(/empty summary/);
  });

  it('reports a missing prompt file at construction', () => {
    expect(() => new LlmSummarizer({ model, maxTokens: 400, toolTrimLimit: 600, promptPath: '/nonexistent/prompt.md' })).toThrow(/prompt\.md.*summary prompt/);
  });
});

/** An Agents SDK Model that records each request and answers with a scripted response (or throws it). */
class StubSdkModel implements SdkModel {
  readonly requests: SdkModelRequest[] = [];
  constructor(private readonly respond: () => SdkModelResponse) {}

  async getResponse(request: SdkModelRequest): Promise<SdkModelResponse> {
    this.requests.push(request);
    return this.respond();
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the summarizer never streams');
  }
}

function sdkResponse(...texts: string[]): SdkModelResponse {
  return {
    usage: new Usage({ requests: 1, inputTokens: 210, outputTokens: 12, totalTokens: 222 }),
    output: [
      // Not assistant text: a reasoning model's notes must not leak into the summary.
      { type: 'reasoning', content: [{ type: 'input_text', text: 'thinking about routers' }] },
      { type: 'message', role: 'assistant', status: 'completed', content: texts.map((text) => ({ type: 'output_text' as const, text })) },
    ],
  };
}

describe('LlmSummarizer with an Agents SDK Model', () => {
  it('sends the prompt as system instructions and the ROLE lines as input, with maxTokens and no tools', async () => {
    const model = new StubSdkModel(() => sdkResponse('• Product: ', 'router RX-88812 '));
    const summarizer = new LlmSummarizer({ model, maxTokens: 250, toolTrimLimit: 600 });
    const out = await summarizer.summarize(items);

    expect(model.requests).toHaveLength(1);
    const request = model.requests[0];
    expect(request.systemInstructions).toBe(cookbookPrompt);
    expect(request.input).toEqual([{ type: 'message', role: 'user', content: out.request.user }]);
    expect(out.request.user).toContain('USER: Firmware v1.0.3; still failing.');
    expect(request.modelSettings).toEqual({ maxTokens: 250 });
    expect(request.tools).toEqual([]);
    expect(request.outputType).toBe('text');

    expect(out.summary).toBe('• Product: router RX-88812');
    expect(out.usage).toEqual({ inputTokens: 210, outputTokens: 12 });
    expect(out.promptHash).toMatch(/^[0-9a-f]{12}$/);
    expect(summarizer.label).toBe(SDK_MODEL_LABEL);
  });

  it('names the model by the label it is given', async () => {
    const model = new StubSdkModel(() => sdkResponse('ok'));
    const summarizer = new LlmSummarizer({ model, label: 'openai:gpt-4.1-mini', maxTokens: 400, toolTrimLimit: 600 });
    expect(summarizer.label).toBe('openai:gpt-4.1-mini');
  });

  it('turns a thrown SDK error into a summarizer failure, with keys redacted', async () => {
    const model = new StubSdkModel(() => {
      throw new Error('401 Incorrect API key provided: sk-proj-abcdefghijklmnop1234');
    });
    const summarizer = new LlmSummarizer({ model, label: 'sdk:sum', maxTokens: 400, toolTrimLimit: 600 });
    const error = await summarizer.summarize(items).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/^summarizer sdk:sum failed: 401 Incorrect API key provided: \[REDACTED\]$/);
  });

  it('throws on an SDK response without assistant text', async () => {
    const model = new StubSdkModel(() => ({ usage: new Usage(), output: [] }));
    const summarizer = new LlmSummarizer({ model, maxTokens: 400, toolTrimLimit: 600 });
    await expect(summarizer.summarize(items)).rejects.toThrow(/empty summary/);
  });
});
