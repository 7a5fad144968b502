import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userMessage } from '../../../core/items.js';
import type { ModelRequest } from '../../../core/model.js';
import {
  BatchClient,
  BatchRequestError,
  batchInputFile,
  type BatchClientOptions,
  type BatchEndpoint,
  type BatchRequestLine,
  type BatchStatus,
} from '../../../harness/models/batch.js';
import { chatBody, parseChatReply, parseResponsesReply, responsesBody } from '../../../harness/models/openai.js';
import { echoAnswer, startFakeBatchServer, type FakeBatchOptions, type FakeBatchServer, type FakeInterruption } from '../../../scripts/lib/fake-batch.js';

// Looks like no vendor's key, so only its registration keeps it out of error text.
const KEY = 'memeval-batch-test-key-7f3a9c2e1b';

const request = (text: string): ModelRequest => ({ system: 'Answer briefly.', input: [userMessage(text)], maxOutputTokens: 20, purpose: 'answer' });

function linesFor(endpoint: BatchEndpoint, texts: Record<string, string>): BatchRequestLine[] {
  return Object.entries(texts).map(([customId, text]) => ({
    customId,
    body: endpoint === '/v1/chat/completions' ? { ...chatBody('gpt-4.1-mini', request(text)) } : { ...responsesBody('gpt-4.1-mini', request(text)) },
  }));
}

const THREE = { a: 'first question', b: 'second question', c: 'third question' };

// Knobs every test starts from: the fake's defaults, set again because tests change them.
const DEFAULTS: FakeBatchOptions = {
  answer: echoAnswer,
  pollsBeforeDone: 1,
  fail: new Set(),
  expire: false,
  expireAfterLines: undefined,
  reportExpired: true,
  outputOrder: 'reversed',
  rewriteResults: undefined,
  apiKey: KEY,
  interrupt: undefined,
};

describe('BatchClient against a local batch server', () => {
  let server: FakeBatchServer;
  let retrySleeps: number[];
  const make = (opts: Partial<BatchClientOptions> = {}) =>
    new BatchClient({
      baseURL: server.baseURL,
      apiKey: KEY,
      timeoutMs: 5_000,
      maxAttempts: 3,
      sleep: async (ms) => {
        retrySleeps.push(ms);
      },
      ...opts,
    });
  const noWait = { sleep: async () => {} };

  /** Submits, waits and reads the results of `lines`. */
  async function run(client: BatchClient, endpoint: BatchEndpoint, lines: BatchRequestLine[]) {
    const id = await client.submit(endpoint, lines);
    const status = await client.wait(id, noWait);
    return { id, status, results: await client.results(status, lines.map((l) => l.customId)) };
  }

  beforeAll(async () => {
    server = await startFakeBatchServer({ apiKey: KEY });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.configure(DEFAULTS);
    server.requests.length = 0;
    server.uploadedLines.length = 0;
    server.batches.length = 0;
    retrySleeps = [];
  });

  it('runs a Responses API batch: one JSONL line per request, results matched by custom_id', async () => {
    const lines = linesFor('/v1/responses', THREE);
    const { id, status, results } = await run(make(), '/v1/responses', lines);

    expect(status).toMatchObject({ id, status: 'completed', endpoint: '/v1/responses', counts: { total: 3, completed: 3, failed: 0 } });
    expect(status.outputFileId).toBeDefined();
    expect(status.errorFileId).toBeUndefined();
    // The fake writes results in reverse order; each still reaches its own request.
    for (const [customId, text] of Object.entries(THREE)) {
      const result = results.get(customId);
      expect(result?.ok).toBe(true);
      if (result?.ok) expect(parseResponsesReply(result.body).output).toBe(`echo: ${text}`);
    }
    expect(results.malformedLines).toBe(0);
    expect(server.uploadedLines.map((l) => l.line)).toEqual(lines.map((l) => ({ custom_id: l.customId, method: 'POST', url: '/v1/responses', body: l.body })));
    expect(server.batches).toEqual([{ id, inputFileId: expect.any(String), endpoint: '/v1/responses', customIds: ['a', 'b', 'c'] }]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/files',
      'POST /v1/batches',
      `GET /v1/batches/${id}`,
      `GET /v1/batches/${id}`,
      `GET /v1/files/${status.outputFileId}/content`,
    ]);
  });

  it('runs a Chat Completions batch the same way', async () => {
    const lines = linesFor('/v1/chat/completions', THREE);
    const { status, results } = await run(make(), '/v1/chat/completions', lines);
    expect(status.status).toBe('completed');
    for (const [customId, text] of Object.entries(THREE)) {
      const result = results.get(customId);
      if (!result?.ok) throw new Error(`no reply for ${customId}`);
      expect(parseChatReply(result.body)).toEqual({ output: `echo: ${text}`, usage: { inputTokens: 10, outputTokens: 5 } });
    }
    expect(server.uploadedLines.every((l) => (l.line as { url: string }).url === '/v1/chat/completions')).toBe(true);
  });

  it('waits longer after each poll, up to the cap, and reports every poll', async () => {
    server.configure({ pollsBeforeDone: 6 });
    const client = make();
    const id = await client.submit('/v1/responses', linesFor('/v1/responses', THREE));
    const delays: number[] = [];
    const polled: string[] = [];
    const status = await client.wait(id, {
      firstDelayMs: 100,
      maxDelayMs: 500,
      sleep: async (ms) => {
        delays.push(ms);
      },
      onPoll: (s) => polled.push(s.status),
    });
    expect(status.status).toBe('completed');
    expect(delays).toEqual([100, 200, 400, 500, 500, 500]);
    expect(polled).toEqual([...Array(6).fill('in_progress'), 'completed']);
  });

  it('gives a failed line its status and message, and the others their replies', async () => {
    server.configure({
      fail: new Set(['b']),
      answer: (line) => (line.customId === 'c' ? { status: 400, message: "Invalid value for 'temperature'." } : echoAnswer(line)),
    });
    const { status, results } = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    expect(status.counts).toEqual({ total: 3, completed: 1, failed: 2 });
    expect(status.errorFileId).toBeDefined();
    expect(results.get('a')?.ok).toBe(true);
    expect(results.get('b')).toEqual({ ok: false, error: '500: The server had an error processing b.' });
    expect(results.get('c')).toEqual({ ok: false, error: "400: Invalid value for 'temperature'." });
  });

  it('gives the lines an expired batch never ran an error, whether or not the error file lists them', async () => {
    server.configure({ expire: true, expireAfterLines: 1, outputOrder: 'input' });
    const listed = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    expect(listed.status.status).toBe('expired');
    expect(listed.results.get('a')?.ok).toBe(true);
    for (const id of ['b', 'c']) {
      expect(listed.results.get(id)).toEqual({ ok: false, error: 'batch_expired: This request could not be executed before the completion window expired.' });
    }

    server.configure({ reportExpired: false });
    const unlisted = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    expect(unlisted.status.errorFileId).toBeUndefined();
    expect(unlisted.results.get('a')?.ok).toBe(true);
    for (const id of ['b', 'c']) {
      expect(unlisted.results.get(id)).toEqual({ ok: false, error: `batch ${unlisted.id} expired: no result for this request` });
    }
  });

  it('gives every line of a batch that failed validation an error naming the reason', async () => {
    const lines = linesFor('/v1/responses', THREE);
    lines[1] = { ...lines[1], body: { ...lines[1].body, model: 'gpt-4.1' } };
    const { id, status, results } = await run(make(), '/v1/responses', lines);
    expect(status.status).toBe('failed');
    expect(status.outputFileId).toBeUndefined();
    expect(status.errors).toEqual([expect.stringMatching(/^line 2: mismatched_model: /)]);
    expect([...results.keys()].sort()).toEqual(['a', 'b', 'c']);
    for (const result of results.values()) {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(new RegExp(`^batch ${id} failed: no result for this request \\(line 2: mismatched_model: `));
    }
    // No result file was asked for: a failed batch has none.
    expect(server.requests.some((r) => r.path.startsWith('/v1/files/'))).toBe(false);
  });

  it('reads results in any order, skips blank lines, and survives a line cut short', async () => {
    server.configure({
      outputOrder: 'input',
      // Blank lines around, and the line of `b` cut in half.
      rewriteResults: (text) => `\n${text.split('\n').map((line) => (line.includes('"custom_id":"b"') ? line.slice(0, line.length / 2) : line)).join('\n\n')}\n`,
    });
    const { results } = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    expect(results.malformedLines).toBe(1);
    expect(results.get('a')?.ok).toBe(true);
    expect(results.get('c')?.ok).toBe(true);
    expect(results.get('b')).toEqual({ ok: false, error: 'the result line could not be read' });
  });

  it('names unreadable lines in the error of a request that has no result', async () => {
    server.configure({ rewriteResults: (text) => text.replace(/"custom_id":"b"/, '"custom_id":b') });
    const { id, results } = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    expect(results.malformedLines).toBe(1);
    expect(results.get('b')).toEqual({ ok: false, error: `batch ${id} completed: no result for this request (1 result line(s) could not be read)` });
  });

  it('skips results of requests it was not asked about', async () => {
    const client = make();
    const id = await client.submit('/v1/responses', linesFor('/v1/responses', THREE));
    const results = await client.results(await client.wait(id, noWait), ['a', 'c']);
    expect([...results.keys()].sort()).toEqual(['a', 'c']);
  });

  it('refuses to read the results of a batch that has not ended', async () => {
    server.configure({ pollsBeforeDone: 5 });
    const client = make();
    const status = await client.retrieve(await client.submit('/v1/responses', linesFor('/v1/responses', THREE)));
    expect(status.status).toBe('in_progress');
    await expect(client.results(status, ['a'])).rejects.toThrow(/is in_progress/);
  });

  it('rejects at once when the signal aborts during a wait, with the real sleep or one that ignores the signal', async () => {
    server.configure({ pollsBeforeDone: 1_000 });
    const client = new BatchClient({ baseURL: server.baseURL, apiKey: KEY, timeoutMs: 5_000 });
    const id = await client.submit('/v1/responses', linesFor('/v1/responses', THREE));
    for (const sleep of [undefined, () => new Promise<void>(() => {})]) {
      const controller = new AbortController();
      const started = performance.now();
      const waiting = client.wait(id, { signal: controller.signal, firstDelayMs: 60_000, sleep, onPoll: () => setTimeout(() => controller.abort(), 5) });
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    // An aborted signal stops a call before it is sent.
    const before = server.requests.length;
    await expect(client.retrieve(id, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests.length).toBe(before);
   }, 10_000);

  it('retries a 500 on retrieve, a 429 and a reset connection on upload', async () => {
    const uploadCuts: FakeInterruption[] = ['reset', { status: 429, message: 'Rate limit reached.', headers: { 'retry-after-ms': '7' } }];
    let retrieveCut = false;
    server.configure({
      interrupt: (req) => {
        if (req.method === 'POST' && req.path === '/v1/files') return uploadCuts.shift();
        if (req.method !== 'GET' || !req.path.startsWith('/v1/batches/') || retrieveCut) return undefined;
        retrieveCut = true;
        return { status: 500, message: 'The server had an error.' };
      },
    });
    const { status, results } = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    expect(status.status).toBe('completed');
    expect([...results.values()].every((r) => r.ok)).toBe(true);
    expect(uploadCuts).toEqual([]);
    expect(retrieveCut).toBe(true);
    expect(server.requests.filter((r) => r.path === '/v1/files')).toHaveLength(3);
    // The 429's retry-after is honoured; the other waits are jittered backoff.
    expect(retrySleeps).toHaveLength(3);
    expect(retrySleeps[1]).toBe(7);
  });

  it('gives up after its attempts with the last error, status included', async () => {
    server.configure({ interrupt: (req) => (req.method === 'GET' ? { status: 503, message: 'Service unavailable.' } : undefined) });
    const client = make();
    const id = await client.submit('/v1/responses', linesFor('/v1/responses', THREE));
    const error = await client.retrieve(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchRequestError);
    expect(error).toMatchObject({ status: 503, message: `retrieving batch ${id}: HTTP 503: Service unavailable. (after 3 attempts)` });
  });

  it('does not create a second batch when the reply to the first was lost', async () => {
    let lost = false;
    server.configure({
      interrupt: (req) => {
        if (lost || req.method !== 'POST' || req.path !== '/v1/batches') return undefined;
        lost = true;
        return 'lose-reply';
      },
    });
    const lines = linesFor('/v1/responses', THREE);
    const { id, results } = await run(make(), '/v1/responses', lines);
    expect(server.batches.map((b) => b.id)).toEqual([id]);
    const submitted = server.submittedIds();
    expect(new Set(submitted).size).toBe(submitted.length);
    expect([...results.values()].every((r) => r.ok)).toBe(true);
  });

  it('never lets the API key into error text', async () => {
    // The server quotes a rejected key back, as OpenAI's does.
    server.configure({ apiKey: 'the-right-key-0123456789' });
    const error = await make()
      .submit('/v1/responses', linesFor('/v1/responses', THREE))
      .then(
        (id) => new Error(`batch ${id} was created with a wrong key`),
        (e: unknown) => e as Error,
      );
    expect(error).toBeInstanceOf(BatchRequestError);
    expect(error.message).toContain('HTTP 401: Incorrect API key provided: [REDACTED]');
    expect(error.message).not.toContain(KEY);
    expect(error.stack ?? '').not.toContain(KEY);

    // A line's error and a batch's own errors are redacted too.
    server.configure({ apiKey: KEY, answer: () => ({ status: 401, message: `Incorrect API key provided: ${KEY}.` }) });
    const { results } = await run(make(), '/v1/responses', linesFor('/v1/responses', THREE));
    for (const result of results.values()) expect(result).toEqual({ ok: false, error: '401: Incorrect API key provided: [REDACTED].' });
    const lines = linesFor('/v1/responses', { [KEY]: 'x', b: 'y' });
    lines[1].body.model = KEY;
    const failed = await run(make(), '/v1/responses', lines);
    const texts = [...(failed.status.errors ?? []), ...[...failed.results.values()].map((r) => (r.ok ? '' : r.error))];
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).not.toContain(KEY);
  });

  it('checks the input before uploading it', async () => {
    const lines = linesFor('/v1/responses', THREE);
    expect(() => batchInputFile('/v1/responses', [])).toThrow(/at least one request/);
    expect(() => batchInputFile('/v1/responses', [...lines, lines[0]])).toThrow(/"a" is in the batch twice/);
    const text = batchInputFile('/v1/responses', lines);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trim().split('\n').map((l) => (JSON.parse(l) as { custom_id: string }).custom_id)).toEqual(['a', 'b', 'c']);
    await expect(make().submit('/v1/responses', [])).rejects.toThrow(/at least one request/);
    expect(server.requests).toHaveLength(0);
  });

  it('describes a batch by the fields a caller resumes from', async () => {
    const client = make();
    const id = await client.submit('/v1/chat/completions', linesFor('/v1/chat/completions', THREE));
    const status: BatchStatus = await client.retrieve(id);
    expect(status).toEqual({ id, status: 'in_progress', endpoint: '/v1/chat/completions', inputFileId: server.batches[0].inputFileId, counts: { total: 3, completed: 0, failed: 0 } });
  });
});
