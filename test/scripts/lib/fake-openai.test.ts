import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';

describe('local OpenAI-compatible test server', () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());

  it('answers the real openai client on both endpoints and records requests', async () => {
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    const r = await client.responses.create({ model: 'm', input: [{ role: 'user', content: 'hello' }] });
    expect(r.output_text).toBe('echo: hello');
    const c = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(c.choices[0].message.content).toBe('echo: hi');
    expect(server.requests.map((q) => q.path)).toEqual(['/v1/responses', '/v1/chat/completions']);
    expect(server.baseURL.startsWith('http://127.0.0.1:')).toBe(true);
  });
});
