import pLimit from 'p-limit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Breakers, DEFAULT_BREAKER_THRESHOLD, type Endpoint } from '../../../harness/models/breaker.js';
import { userMessage } from '../../../core/items.js';
import type { ModelRequest } from '../../../core/model.js';
import { createModel, ModelSetupError, modelBreakers, type CreateModelOptions } from '../../../harness/models/create.js';
import { OpenAIModel, type OpenAIModelOptions } from '../../../harness/models/openai.js';
import type { FailureInfo } from '../../../harness/models/retry.js';
import { apiError, closedBaseURL, echoHandler, responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';

const KEY = 'sk-proj-BREAKERKEY0123456789abcdefXYZ';
const request: ModelRequest = { input: [userMessage('Which firmware?')], purpose: 'answer' };

const endpoint = (model = 'gpt-x', baseURL = 'http://127.0.0.1:9/v1'): Endpoint => ({ provider: 'openai', model, baseURL });
const status = (code: number): FailureInfo => ({ retryable: false, status: code, message: `${code} no` });
const refused: FailureInfo = { retryable: true, code: 'ECONNREFUSED', message: 'Connection error. (ECONNREFUSED)' };

describe('Breakers (the registry alone)', () => {
  it('trips after the threshold of one kind in a row, and stays tripped', () => {
    const breakers = new Breakers();
    expect(DEFAULT_BREAKER_THRESHOLD).toBe(3);
    const at = endpoint();
    expect(breakers.failed(at, status(401))).toBeUndefined();
    expect(breakers.failed(at, status(401))).toBeUndefined();
    expect(breakers.fatal()).toBeUndefined();
    const message = breakers.failed(at, status(401));
    // The run's reason names the server; each blocked call puts its own model in front.
    expect(breakers.fatal()).toBe("the API key was rejected by http://127.0.0.1:9/v1 (HTTP 401: no). Check OPENAI_API_KEY (or the provider's api_key_env).");
    expect(message).toBe(`openai:gpt-x: ${breakers.fatal()}`);
    expect(breakers.blocked(at)).toBe(message);
    breakers.succeeded(at);
    expect(breakers.blocked(at)).toBe(message);
  });

  it('starts over after a success or a different kind of failure; other failures do not count', () => {
    const breakers = new Breakers();
    const at = endpoint();
    breakers.failed(at, status(404));
    breakers.failed(at, status(404));
    breakers.succeeded(at);
    breakers.failed(at, status(404));
    breakers.failed(at, status(404));
    expect(breakers.fatal()).toBeUndefined();
    breakers.failed(at, status(403));
    breakers.failed(at, status(403));
    breakers.failed(at, { retryable: true, status: 500, message: '500 boom' });
    expect(breakers.fatal()).toBeUndefined();
    expect(breakers.failed(at, status(403))).toMatch(/permission denied/);
  });

  it("explains a 404 in the terms of the route that got it, sharing the model's breaker", () => {
    const breakers = new Breakers(2);
    const at = endpoint('gpt-x');
    breakers.failed({ ...at, route: 'embeddings' }, status(404));
    const embeddings = breakers.failed({ ...at, route: 'embeddings' }, status(404));
    expect(embeddings).toContain('The server must also offer embeddings (POST /embeddings).');
    expect(embeddings).not.toContain('api: chat');
    // One model, one breaker: its answers are blocked too, with the message of the trip.
    expect(breakers.blocked(at)).toBe(embeddings);
    const compaction = new Breakers(1).failed({ ...at, route: 'compaction' }, status(404));
    expect(compaction).toContain('Server compaction needs the Responses API');
    const answers = new Breakers(1).failed(at, status(404));
    expect(answers).toContain("If the server has no Responses API, set the provider's api: chat.");
    expect(new Breakers(1).failed({ ...at, api: 'chat' }, status(404))).not.toContain('api: chat');
  });

  it('blocks the whole server for a rejected key, but only the one model for a 404', () => {
    const breakers = new Breakers(2);
    const server = 'http://127.0.0.1:9/v1';
    for (let i = 0; i < 2; i++) breakers.failed(endpoint('typo-model', server), status(404));
    expect(breakers.blocked(endpoint('typo-model', server))).toMatch(/model "typo-model" was not found at http:\/\/127.0.0.1:9\/v1/);
    expect(breakers.blocked(endpoint('good-model', server))).toBeUndefined();
    for (let i = 0; i < 2; i++) breakers.failed(endpoint('a', 'http://127.0.0.1:10/v1'), refused);
    expect(breakers.blocked(endpoint('b', 'http://127.0.0.1:10/v1'))).toMatch(/nothing is listening at http:\/\/127.0.0.1:10\/v1/);
    expect(breakers.reasons()).toHaveLength(2);
    expect(breakers.fatal()).toMatch(/typo-model/);
  });

  it('names the fix for an unknown host and for another provider', () => {
    const breakers = new Breakers(1);
    const local: Endpoint = { provider: 'local', model: 'tiny', baseURL: 'http://gpu-box:8000/v1', keyEnv: 'LOCAL_KEY' };
    expect(breakers.failed(local, { retryable: true, code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND gpu-box' })).toBe(
      'local:tiny: the host of http://gpu-box:8000/v1 was not found (DNS lookup failed). Is the base_url of provider "local" right?',
    );
    const other: Endpoint = { ...local, baseURL: 'http://127.0.0.1:11/v1' };
    expect(breakers.failed(other, status(401))).toContain('Check LOCAL_KEY (the api_key_env of provider "local")');
  });
});

describe('breakers against a local OpenAI-compatible server', () => {
  let server: FakeServer;
  let sleeps: number[];
  const make = (breakers: Breakers, opts: Partial<OpenAIModelOptions> = {}) =>
    new OpenAIModel({
      name: 'gpt-x',
      baseURL: server.baseURL,
      apiKey: KEY,
      timeoutMs: 5_000,
      breakers,
      sleep: async (ms) => void sleeps.push(ms),
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

  it('a rejected key: three failed calls trip it, the fourth makes no request and says how to fix it', async () => {
    server.setHandler((req) => apiError(401, `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}`));
    const breakers = new Breakers();
    const model = make(breakers);
    const first = await model.complete(request);
    await model.complete(request);
    const third = await model.complete(request);
    expect(server.requests).toHaveLength(3);
    expect(first.error).toMatch(/^openai:gpt-x: HTTP 401/);
    const fatal = breakers.fatal();
    expect(fatal).toBe(
      `the API key was rejected by ${server.baseURL} (HTTP 401: Incorrect API key provided: [REDACTED]). Check OPENAI_API_KEY (or the provider's api_key_env).`,
    );
    expect(third.error).toBe(`openai:gpt-x: ${fatal}`);
    const started = performance.now();
    const fourth = await model.complete(request);
    expect(performance.now() - started).toBeLessThan(100);
    expect(server.requests).toHaveLength(3);
    expect(fourth.error).toBe(`openai:gpt-x: ${fatal}`);
    expect(fourth.output).toBe('');
    // A second model on the same server and key is stopped too, before any request, under its own name.
    expect((await make(breakers, { name: 'gpt-y' }).complete(request)).error).toBe(`openai:gpt-y: ${fatal}`);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([]);
  });

  it('an unknown model: trips for that model only', async () => {
    server.setHandler((req) =>
      req.body.model === 'gpt-typo' ? apiError(404, 'The model `gpt-typo` does not exist or you do not have access to it.') : echoHandler(req, 0),
    );
    const breakers = new Breakers();
    const typo = make(breakers, { name: 'gpt-typo' });
    for (let i = 0; i < 3; i++) await typo.complete(request);
    const blocked = await typo.complete(request);
    expect(server.requests).toHaveLength(3);
    expect(blocked.error).toBe(`openai:gpt-typo: ${breakers.fatal()}`);
    expect(blocked.error).toMatch(new RegExp(`^openai:gpt-typo: model "gpt-typo" was not found at ${server.baseURL} \\(HTTP 404: The model`));
    expect(blocked.error).toContain('Check the model name, and that the base URL ends in /v1.');
    const other = await make(breakers, { name: 'gpt-real' }).complete(request);
    expect(other.error).toBeUndefined();
    expect(other.output).toBe('echo: Which firmware?');
  });

  it('a success between failures starts the count over', async () => {
    const script = ['fail', 'fail', 'ok', 'fail', 'fail', 'fail'];
    server.setHandler((_req, i) => (script[i] === 'ok' ? { json: responsesBody('fine') } : apiError(401, 'bad key')));
    const breakers = new Breakers();
    const model = make(breakers);
    for (let i = 0; i < 5; i++) await model.complete(request);
    expect(breakers.fatal()).toBeUndefined();
    expect(server.requests).toHaveLength(5);
    await model.complete(request);
    expect(breakers.fatal()).toMatch(/API key was rejected/);
    await model.complete(request);
    expect(server.requests).toHaveLength(6);
  });

  it('a closed port: trips during the first call’s retries, within a second or two', async () => {
    const baseURL = await closedBaseURL();
    const breakers = new Breakers();
    // Real (short) waits, so the wall time is what a run would see with small delays.
    const model = make(breakers, { baseURL, baseDelayMs: 50, maxDelayMs: 200, sleep: undefined });
    const started = performance.now();
    const calls = await Promise.all([model.complete(request), model.complete(request), model.complete(request)]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(2_000);
    const fatal = breakers.fatal();
    expect(fatal).toBe(
      `nothing is listening at ${baseURL} (connection refused). Is OPENAI_BASE_URL (or the provider's base_url) right, and is the server running?`,
    );
    for (const call of calls) expect(call.error).toBe(`openai:gpt-x: ${fatal}`);
    const again = performance.now();
    expect((await model.complete(request)).error).toBe(`openai:gpt-x: ${fatal}`);
    expect(performance.now() - again).toBeLessThan(100);
  });

  it('createModel shares the run’s breakers, or the process-wide ones', async () => {
    server.setHandler(() => apiError(403, 'Project does not have access to model gpt-x'));
    const options = (extra: Partial<CreateModelOptions> = {}): CreateModelOptions => ({
      providers: { local: { base_url: server.baseURL, api_key_env: 'LOCAL_KEY' } },
      prices: {},
      cacheDir: false,
      limit: pLimit(4),
      env: { LOCAL_KEY: KEY },
      sleep: async () => {},
      ...extra,
    });
    const breakers = new Breakers();
    const model = createModel('local:gpt-x', options({ breakers }));
    // Distinct requests: identical ones in flight would be deduplicated.
    for (let i = 0; i < 4; i++) await model.complete({ ...request, input: [userMessage(`question ${i}`)] });
    expect(server.requests).toHaveLength(3);
    expect(breakers.fatal()).toMatch(/^permission denied for model "gpt-x" at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 403: Project does not have access/);
    expect(modelBreakers().fatal()).toBeUndefined();
    const shared = createModel('local:gpt-x', options());
    for (let i = 0; i < 3; i++) await shared.complete({ ...request, input: [userMessage(`again ${i}`)] });
    expect(modelBreakers().fatal()).toMatch(/permission denied/);
    expect(JSON.stringify([breakers.reasons(), modelBreakers().reasons()])).not.toContain(KEY);
  });
});

describe('bad model setup is a ModelSetupError', () => {
  const options = (extra: Partial<CreateModelOptions> = {}): CreateModelOptions => ({
    providers: { local: { base_url: 'http://127.0.0.1:9/v1', api_key_env: 'LOCAL_KEY' } },
    prices: {},
    cacheDir: false,
    limit: pLimit(1),
    env: {},
    ...extra,
  });

  function setupError(spec: string, extra: Partial<CreateModelOptions> = {}): ModelSetupError {
    try {
      createModel(spec, options(extra));
    } catch (error) {
      expect(error).toBeInstanceOf(ModelSetupError);
      return error as ModelSetupError;
    }
    throw new Error(`createModel("${spec}") did not throw`);
  }

  it('reports an unset key, an unknown provider, a missing base_url or name, and a bad api', () => {
    expect(setupError('openai:gpt-4.1-mini').message).toBe('OPENAI_API_KEY is not set (needed by openai:gpt-4.1-mini)');
    expect(setupError('local:tiny').message).toBe('LOCAL_KEY is not set (needed by local:tiny)');
    expect(setupError('mystery:m').message).toMatch(/^unknown model provider "mystery" in "mystery:m".*configured providers: local/);
    expect(setupError('nourl:m', { providers: { nourl: {} } }).message).toBe('provider "nourl" needs a base_url');
    expect(setupError('openai:', { env: { OPENAI_API_KEY: KEY } }).message).toBe('model "openai:" has no model name');
    expect(setupError('odd:m', { providers: { odd: { base_url: 'http://127.0.0.1:9/v1', api: 'completions' } } }).message).toMatch(
      /provider "odd": unknown api "completions"/,
    );
    expect(setupError('openai:x').name).toBe('ModelSetupError');
  });
});
