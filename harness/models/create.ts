// Turns a model spec from config (`offline`, `openai:<name>`, `<provider>:<name>`)
// into a ready Model: cache → concurrency limit → retries → provider.
import type { LimitFunction } from 'p-limit';
import { Breakers, type EndpointRoute } from './breaker.js';
import { CachedModel, ModelStats, type CallRouter } from './cache.js';
import type { Model, ModelRequest, ModelResult } from '../../core/model.js';
import { OfflineModel } from './offline.js';
import { priceFor, type Price } from './prices.js';
import { OpenAIModel, parseApi, type OpenAIApi, type OpenAIRunnerTarget } from './openai.js';

/** A `providers:` entry of the config (same shape as config.ts's ProviderConfig). */
export interface ProviderSettings {
  base_url?: string;
  /** Name of the environment variable holding the key (never the key itself). */
  api_key_env?: string;
  /** `responses` (default) or `chat`. */
  api?: string;
  timeout_ms?: number;
  max_attempts?: number;
  retry_base_delay_ms?: number;
  retry_max_delay_ms?: number;
}

export interface CreateModelOptions {
  providers: Record<string, ProviderSettings>;
  /** USD per 1M tokens, keyed by `provider:name` or bare name; wins over the defaults. */
  prices: Record<string, Price>;
  cacheDir: string | false;
  /** Shared by every model of a run: `concurrency:` is model calls in flight. */
  limit: LimitFunction;
  /** Counters for the run summary; defaults to process-wide ones shared by every model built without them. */
  stats?: ModelStats;
  /** Circuit breakers the run watches (`fatal()`); defaults to the process-wide ones (`modelBreakers()`). */
  breakers?: Breakers;
  /** Loads of provider clients started ahead of the first call (cache off) are added here, for a run to wait on. */
  preloads?: Promise<void>[];
  /** Injected in tests to record backoff waits. */
  sleep?: (ms: number) => Promise<void>;
  /** Environment to read keys and `OPENAI_BASE_URL` from; default process.env. */
  env?: Record<string, string | undefined>;
  /** Decides the calls of every cached model in place of cache and provider (a `--batch` run). */
  router?: CallRouter;
}

const defaultStats = new ModelStats();
const defaultBreakers = new Breakers();

/** The circuit breakers of every model built without explicit `breakers`. */
export function modelBreakers(): Breakers {
  return defaultBreakers;
}

/**
 * A model spec or provider setup that cannot work (unknown provider, no base_url,
 * no model name, an unset key variable): bad input, found before any call is made.
 */
export class ModelSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelSetupError';
  }
}

export interface ModelSpec {
  provider: string;
  name: string;
}

/** Splits `provider:name`; `offline` has no name. A bare name means the openai provider. */
export function parseModelSpec(spec: string): ModelSpec {
  const trimmed = spec.trim();
  if (trimmed === 'offline') return { provider: 'offline', name: '' };
  const colon = trimmed.indexOf(':');
  if (colon < 0) return { provider: 'openai', name: trimmed };
  return { provider: trimmed.slice(0, colon), name: trimmed.slice(colon + 1) };
}

/** The concurrency limit sits under the cache, so hits never wait for a slot. */
class LimitedModel implements Model {
  readonly id: string;
  readonly params: Record<string, unknown>;

  constructor(
    readonly inner: Model,
    private readonly limit: LimitFunction,
  ) {
    this.id = inner.id;
    this.params = inner.params;
  }

  complete(request: ModelRequest): Promise<ModelResult> {
    return this.limit(() => this.inner.complete(request));
  }
}

function apiOf(spec: ModelSpec, settings: ProviderSettings | undefined): OpenAIApi {
  try {
    return parseApi(settings?.api);
  } catch (error) {
    throw new ModelSetupError(`provider "${spec.provider}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

function openAIModel(spec: ModelSpec, opts: CreateModelOptions): OpenAIModel {
  const env = opts.env ?? process.env;
  const settings = opts.providers[spec.provider];
  if (!settings && spec.provider !== 'openai') {
    const known = Object.keys(opts.providers);
    const hint = known.length > 0 ? `configured providers: ${known.join(', ')}` : 'no providers are configured';
    throw new ModelSetupError(`unknown model provider "${spec.provider}" in "${spec.provider}:${spec.name}" (use offline, openai:<name> or a providers: entry; ${hint})`);
  }
  if (spec.name.length === 0) throw new ModelSetupError(`model "${spec.provider}:" has no model name`);
  const isOpenAI = spec.provider === 'openai';
  if (!isOpenAI && !settings?.base_url) {
    // Falling back to api.openai.com would send this provider's traffic (and key) to the wrong place.
    throw new ModelSetupError(`provider "${spec.provider}" needs a base_url`);
  }
  const keyEnv = settings?.api_key_env ?? (isOpenAI ? 'OPENAI_API_KEY' : undefined);
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  const baseURL = settings?.base_url ?? (isOpenAI ? env.OPENAI_BASE_URL : undefined);
  // A named key variable must be set; OpenAI's own endpoint always needs a key,
  // while a local server reached through OPENAI_BASE_URL may not.
  const keyRequired = settings?.api_key_env !== undefined || (isOpenAI && !baseURL);
  if (keyEnv && !apiKey && keyRequired) {
    throw new ModelSetupError(`${keyEnv} is not set (needed by ${spec.provider}:${spec.name})`);
  }
  return new OpenAIModel({
    name: spec.name,
    provider: spec.provider,
    api: apiOf(spec, settings),
    baseURL,
    // '' (not undefined) so the model does not fall back to process.env behind an injected env.
    apiKey: apiKey ?? '',
    keyEnv,
    breakers: opts.breakers ?? defaultBreakers,
    timeoutMs: settings?.timeout_ms,
    maxAttempts: settings?.max_attempts,
    baseDelayMs: settings?.retry_base_delay_ms,
    maxDelayMs: settings?.retry_max_delay_ms,
    price: priceFor(`${spec.provider}:${spec.name}`, opts.prices),
    // OpenAI wants max_completion_tokens; other compatible servers widely know only max_tokens.
    chatMaxTokensField: isOpenAI ? 'max_completion_tokens' : 'max_tokens',
    sleep: opts.sleep,
  });
}

/**
 * Builds the model a spec names. `offline` is returned bare: it is deterministic
 * and cheaper than a cache read. Anything else is wrapped as cache → limit →
 * (retrying, breaker-guarded) provider. A setup that cannot work throws
 * ModelSetupError, so the CLI reports it as bad input before anything runs.
 */
export function createModel(spec: string, opts: CreateModelOptions): Model {
  const parsed = parseModelSpec(spec);
  if (parsed.provider === 'offline') return new OfflineModel();
  const provider = openAIModel(parsed, opts);
  // With the cache off every call goes out, so the client is needed for sure; with it on,
  // a run answered from the cache never loads it.
  if (opts.cacheDir === false) {
    const loading = provider.preload();
    opts.preloads?.push(loading);
  }
  return new CachedModel(new LimitedModel(provider, opts.limit), { dir: opts.cacheDir, stats: opts.stats ?? defaultStats, router: opts.router });
}

export { modelForRepeat } from '../../core/model.js';


/** The OpenAI model behind a model built by createModel (under its cache and limit); undefined for others. */
export function openAIModelOf(model: Model): OpenAIModel | undefined {
  let current: Model | undefined = model;
  for (let depth = 0; current && depth < 4; depth++) {
    if (current instanceof OpenAIModel) return current;
    current = current instanceof CachedModel ? current.inner : current instanceof LimitedModel ? current.inner : undefined;
  }
  return undefined;
}

/** The OpenAI client settings behind a model built by createModel, for the Agents SDK runner; undefined for others. */
export function runnerTargetOf(model: Model, route?: EndpointRoute): OpenAIRunnerTarget | undefined {
  return openAIModelOf(model)?.runnerTarget(route);
}
