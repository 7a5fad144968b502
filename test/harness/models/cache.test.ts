import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CachedModel, CacheStore, cacheKey, canonicalJson, flightKey, ModelStats } from '../../../harness/models/cache.js';
import { assistantMessage, userMessage } from '../../../core/items.js';
import type { ModelRequest, ModelResult } from '../../../core/model.js';
import { createModel, modelForRepeat, parseModelSpec, runnerTargetOf, type CreateModelOptions } from '../../../harness/models/create.js';
import { OfflineModel } from '../../../harness/models/offline.js';
import { OpenAIModel } from '../../../harness/models/openai.js';
import { echoHandler, lastUserText, responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';

const KEY = 'sk-proj-CACHETESTKEY0123456789abcdef';

function ask(text: string): ModelRequest {
  return { system: 'Answer briefly.', input: [userMessage(text)], purpose: 'answer', temperature: 0 };
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('model cache and createModel', () => {
  let server: FakeServer;
  let dir: string;
  let stats: ModelStats;
  const options = (extra: Partial<CreateModelOptions> = {}): CreateModelOptions => ({
    providers: { local: { base_url: server.baseURL, api_key_env: 'LOCAL_KEY' } },
    prices: { 'local:tiny': { input: 1, output: 2 } },
    cacheDir: dir,
    limit: pLimit(4),
    stats,
    sleep: async () => {},
    env: { LOCAL_KEY: KEY },
    ...extra,
  });

  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memeval-cache-'));
    stats = new ModelStats();
    server.requests.length = 0;
    server.setHandler(echoHandler);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('a second identical run of N calls makes zero new requests', async () => {
    const questions = Array.from({ length: 6 }, (_, i) => `question ${i}`);
    const first = createModel('local:tiny', options());
    const fresh = await Promise.all(questions.map((q) => first.complete(ask(q))));
    expect(server.requests).toHaveLength(6);
    expect(fresh.every((r) => !r.cached && r.error === undefined)).toBe(true);
    // A new model object (a new run) reads the same files.
    const second = createModel('local:tiny', options());
    const again = await Promise.all(questions.map((q) => second.complete(ask(q))));
    expect(server.requests).toHaveLength(6);
    expect(again.map((r) => r.output)).toEqual(fresh.map((r) => r.output));
    expect(again.every((r) => r.cached)).toBe(true);
    expect(again[0].usage).toEqual(fresh[0].usage);
    expect(again[0].cost).toBeCloseTo((10 * 1 + 5 * 2) / 1e6, 12);
    expect(stats.snapshot()).toMatchObject({ calls: 6, cacheHits: 6, dedupHits: 0, errors: 0 });
    // A different request (temperature) is a different entry.
    await second.complete({ ...ask('question 0'), temperature: 1 });
    expect(server.requests).toHaveLength(7);
  });

  it('stores entries as <dir>/<k[0..2]>/<k>.json with key, result and hash, never the key', async () => {
    const model = createModel('local:tiny', options());
    await model.complete(ask('where is it stored?'));
    const key = cacheKey(model.id, model.params, ask('where is it stored?'));
    const path = join(dir, key.slice(0, 2), `${key}.json`);
    const entry = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    expect(entry.key).toBe(key);
    expect((entry.result as { output: string }).output).toBe('echo: where is it stored?');
    expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
    for (const file of await listFiles(dir)) {
      expect(await readFile(file, 'utf8')).not.toContain(KEY);
      expect(file.endsWith('.tmp')).toBe(false);
    }
  });

  it('deduplicates identical concurrent requests into one call, even with the cache off', async () => {
    server.setHandler(async (req) => ({ json: responsesBody(`slow ${lastUserText(req.body)}`), delayMs: 100 }));
    const model = createModel('local:tiny', options({ cacheDir: false }));
    const results = await Promise.all(Array.from({ length: 5 }, () => model.complete(ask('same'))));
    expect(server.requests).toHaveLength(1);
    expect(new Set(results.map((r) => r.output))).toEqual(new Set(['slow same']));
    expect(results.filter((r) => r.cached)).toHaveLength(4);
    expect(stats.snapshot()).toMatchObject({ calls: 1, dedupHits: 4, cacheHits: 0 });
    // With the cache off, a later identical call is made again.
    await model.complete(ask('same'));
    expect(server.requests).toHaveLength(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('tells a listener once when the next call begins, cache hits included, and not after it is forgotten', async () => {
    const model = createModel('local:tiny', options());
    let told = 0;
    stats.onceCallBegins(() => told++);
    const first = model.complete(ask('one'));
    expect(told).toBe(1);
    await first;
    await model.complete(ask('one'));
    expect(told).toBe(1);
    stats.onceCallBegins(() => told++);
    await model.complete(ask('one'));
    expect(stats.snapshot()).toMatchObject({ calls: 1, cacheHits: 2 });
    expect(told).toBe(2);
    const forget = stats.onceCallBegins(() => told++);
    forget();
    await model.complete(ask('two'));
    expect(told).toBe(2);
  });

  it('removes temp files a killed writer left in a shard, and keeps those of a live one', async () => {
    const store = new CacheStore(dir);
    const key = 'ab'.padEnd(64, '0');
    const shard = join(dir, 'ab');
    const { spawnSync } = await import('node:child_process');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid ?? 999_999;
    await store.write('ab'.padEnd(64, '1'), { output: 'first', usage: { inputTokens: 1, outputTokens: 1 }, cached: false, latencyMs: 1 });
    const left = `${'ab'.padEnd(64, '2')}.json.${dead}.a1b2c3.tmp`;
    const live = `${'ab'.padEnd(64, '3')}.json.${process.pid}.d4e5f6.tmp`;
    await writeFile(join(shard, left), 'half');
    await writeFile(join(shard, live), 'half');
    // A new store (the next run) sweeps each shard once, before its first write there.
    await new CacheStore(dir).write(key, { output: 'second', usage: { inputTokens: 1, outputTokens: 1 }, cached: false, latencyMs: 1 });
    const names = await readdir(shard);
    expect(names).not.toContain(left);
    expect(names).toContain(live);
    expect((await store.read(key)).result?.output).toBe('second');
  });

  it('detects a damaged entry, deletes it and refetches', async () => {
    const model = createModel('local:tiny', options());
    const request = ask('fragile');
    await model.complete(request);
    const store = new CacheStore(dir);
    const path = store.pathOf(cacheKey(model.id, model.params, request));
    const good = await readFile(path, 'utf8');
    const entry = JSON.parse(good) as { key: string; result: { output: string }; sha256: string };
    const damaged = [
      good.slice(0, good.length / 2), // truncated
      JSON.stringify({ ...entry, result: { ...entry.result, output: 'tampered' } }), // wrong hash
      JSON.stringify({ ...entry, key: 'f'.repeat(64) }), // key mismatch
    ];
    for (const [i, text] of damaged.entries()) {
      await writeFile(path, text);
      const result = await model.complete(request);
      expect(result.output).toBe('echo: fragile');
      expect(result.cached).toBe(false);
      expect(server.requests).toHaveLength(2 + i);
      // The refetched answer replaced the damaged file with a sound one.
      expect((await store.read(cacheKey(model.id, model.params, request))).result?.output).toBe('echo: fragile');
    }
    expect(stats.corruptEntries).toBe(3);
    const hit = await model.complete(request);
    expect(hit.cached).toBe(true);
    expect(server.requests).toHaveLength(4);
  });

  it('never caches errors', async () => {
    server.setHandler(() => ({ json: { error: { message: 'bad request' } }, status: 400 }));
    const model = createModel('local:tiny', options());
    const failed = await model.complete(ask('will fail'));
    expect(failed.error).toContain('HTTP 400');
    expect(await listFiles(dir)).toEqual([]);
    server.setHandler(echoHandler);
    const ok = await model.complete(ask('will fail'));
    expect(ok.output).toBe('echo: will fail');
    expect(server.requests).toHaveLength(2);
    expect(stats.errors).toBe(1);
  });

  it('caches repeats apart so repeat N draws N answers', async () => {
    const model = createModel('local:tiny', options());
    await modelForRepeat(model, 0).complete(ask('sample me'));
    await modelForRepeat(model, 1).complete(ask('sample me'));
    await modelForRepeat(model, 1).complete(ask('sample me'));
    expect(server.requests).toHaveLength(2);
    expect(modelForRepeat(model, 0)).toBe(model);
  });

  it('limits model calls in flight with the shared p-limit', async () => {
    let inFlight = 0;
    let peak = 0;
    server.setHandler(async (req) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      return { json: responsesBody(lastUserText(req.body)) };
    });
    const limit = pLimit(2);
    const a = createModel('local:tiny', options({ limit, cacheDir: false }));
    const b = createModel('openai:gpt-4.1-mini', options({ limit, cacheDir: false, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL } }));
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).complete(ask(`q${i}`))));
    expect(server.requests).toHaveLength(8);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it('parses specs and routes them to the right model', () => {
    expect(parseModelSpec('offline')).toEqual({ provider: 'offline', name: '' });
    expect(parseModelSpec('openai:gpt-4.1-mini')).toEqual({ provider: 'openai', name: 'gpt-4.1-mini' });
    expect(parseModelSpec('ollama:llama3.1:8b')).toEqual({ provider: 'ollama', name: 'llama3.1:8b' });
    expect(createModel('offline', options())).toBeInstanceOf(OfflineModel);
    const local = createModel('local:tiny', options());
    expect(local).toBeInstanceOf(CachedModel);
    expect(local.id).toBe('local:tiny');
    expect(runnerTargetOf(local)?.name).toBe('tiny');
    expect(runnerTargetOf(new OfflineModel())).toBeUndefined();
    const chat = createModel('chatty:m', options({ providers: { chatty: { base_url: server.baseURL, api: 'chat' } } }));
    expect(chat.params).toMatchObject({ api: 'chat', maxTokensField: 'max_tokens' });
    expect((chat as CachedModel).inner).not.toBeInstanceOf(OpenAIModel);
  });

  it('fails clearly on unknown providers and missing keys', () => {
    expect(() => createModel('mystery:m', options())).toThrow(/unknown model provider "mystery".*configured providers: local/);
    expect(() => createModel('local:tiny', options({ env: {} }))).toThrow(/LOCAL_KEY is not set/);
    expect(() => createModel('openai:gpt-4.1-mini', options({ env: {} }))).toThrow(/OPENAI_API_KEY is not set/);
    expect(() => createModel('nourl:m', options({ providers: { nourl: {} } }))).toThrow(/needs a base_url/);
  });

  it('keys are canonical: field order and undefined fields do not matter', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [1, { y: 2, x: 1 }] } })).toBe('{"a":{"c":[1,{"x":1,"y":2}]},"b":1}');
    const a: ModelRequest = { purpose: 'answer', input: [userMessage('x')], temperature: undefined };
    const b: ModelRequest = { input: [userMessage('x')], purpose: 'answer' };
    expect(cacheKey('m', {}, a)).toBe(cacheKey('m', {}, b));
    expect(cacheKey('m', {}, a)).not.toBe(cacheKey('m2', {}, a));
  });

  it('keeps the stored key of a request the same from run to run', () => {
    // Entries written by earlier runs are found only while this hash stays put.
    const request: ModelRequest = { system: 'Answer briefly.', input: [userMessage('where is it stored?')], purpose: 'answer' };
    expect(cacheKey('openai:gpt-4.1-mini', { temperature: 0 }, request)).toBe('9b6fee5334e8f65de6bbfc14fd4a43858f7b227134991b35c55ac4dd9cc1de51');
  });

  it('in-flight keys match equal requests whatever order their fields were given in', () => {
    const a: ModelRequest = { purpose: 'answer', input: [userMessage('x'), assistantMessage('y')], temperature: undefined, system: 's' };
    const b: ModelRequest = { system: 's', input: [userMessage('x'), assistantMessage('y')], purpose: 'answer' };
    expect(flightKey('m', {}, a)).toBe(flightKey('m', {}, b));
    // Items are built with one key order, so a copy of a request (as a loaded transcript gives) matches too.
    expect(flightKey('m', {}, JSON.parse(JSON.stringify(b)) as ModelRequest)).toBe(flightKey('m', {}, b));
    expect(flightKey('m', {}, a)).not.toBe(flightKey('m', { sample: 1 }, a));
    expect(flightKey('m', {}, a)).not.toBe(flightKey('m', {}, { ...a, temperature: 0 }));
    expect(flightKey('m', {}, a)).not.toBe(flightKey('m', {}, { ...a, system: undefined }));
    expect(flightKey('m', {}, a)).not.toBe(flightKey('m', {}, { ...a, input: [userMessage('x')] }));
    // A field beyond ModelRequest still tells requests apart.
    expect(flightKey('m', {}, a)).not.toBe(flightKey('m', {}, { ...a, extra: 1 } as ModelRequest));
  });

  it('joins equal requests in flight with the cache off, whatever order their fields were given in', async () => {
    let calls = 0;
    const inner = { id: 'slow', params: {}, complete: async (): Promise<ModelResult> => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { output: 'ok', usage: { inputTokens: 1, outputTokens: 1 }, cached: false, latencyMs: 20 };
    } };
    const model = new CachedModel(inner, { dir: false });
    const results = await Promise.all([
      model.complete({ purpose: 'answer', system: 's', input: [userMessage('x')] }),
      model.complete({ input: [userMessage('x')], system: 's', purpose: 'answer' }),
      model.complete({ input: [userMessage('x')], system: 's', purpose: 'judge' }),
    ]);
    expect(calls).toBe(2);
    expect(results.map((r) => r.cached)).toEqual([false, true, false]);
  });
});
