import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { turnItems } from '../../core/items.js';
import { OpenAIModel } from '../../harness/models/openai.js';
import type { MessageTurn } from '../../core/types.js';
import { createLlmSummarizer, LlmSummarizer } from '../../strategies/llm-summarizer.js';
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
    expect(out.usage).toEqual({ inputTokens: 321, outputTokens: 45 });
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
