// Circuit breakers, one per endpoint. A rejected key, a model the server does
// not know or a server that is not there fails every call the same way, so
// retrying each call for minutes only hides the cause. After a few such failures
// in a row the breaker trips: later calls to that endpoint return at once with a
// message that says what to fix, and the run can stop on `fatal()`.
import { failureText, type FailureInfo, type RetryGuard } from './retry.js';
import { redact } from '../../core/secrets.js';

/** Failures of one kind in a row, with no success between, that trip a breaker. */
export const DEFAULT_BREAKER_THRESHOLD = 3;

/** Where a model's calls go, and what a fix hint should name. Never holds the key. */
export interface Endpoint {
  /** Provider label, e.g. `openai` or a `providers:` entry. */
  provider: string;
  /** The model name the server knows. */
  model: string;
  /** Public base URL (no credentials, query or fragment). */
  baseURL: string;
  /** The variable holding the key, e.g. `OPENAI_API_KEY`. */
  keyEnv?: string;
  api?: 'responses' | 'chat';
  /** Calls to another route than the model's answers (which `api` names): what a 404 there means differs. */
  route?: EndpointRoute;
}

/** The routes a model is called on besides its answers: server compaction (Responses API) and embeddings. */
export type EndpointRoute = 'compaction' | 'embeddings';

type FatalKind = 'unauthorized' | 'forbidden' | 'not_found' | 'refused' | 'host_not_found';

interface Streak {
  kind: FatalKind;
  count: number;
}

function fatalKind(info: FailureInfo): FatalKind | undefined {
  if (info.status === 401) return 'unauthorized';
  if (info.status === 403) return 'forbidden';
  if (info.status === 404) return 'not_found';
  if (info.code === 'ECONNREFUSED') return 'refused';
  if (info.code === 'ENOTFOUND') return 'host_not_found';
  // Timeouts, resets and EAI_AGAIN (a DNS server's temporary failure) can pass; they stay retried.
  return undefined;
}

// A key and a listening server belong to the whole base URL: every model there
// fails alike. A 403 or 404 usually concerns one model (a typo, a model the key's
// project may not use), so it must not stop the other models of the same server.
function serverKey(endpoint: Endpoint): string {
  return endpoint.baseURL;
}

function modelKey(endpoint: Endpoint): string {
  return `${endpoint.baseURL} ${endpoint.model}`;
}

function scopeKey(endpoint: Endpoint, kind: FatalKind): string {
  return kind === 'forbidden' || kind === 'not_found' ? modelKey(endpoint) : serverKey(endpoint);
}

const MAX_SERVER_TEXT = 200;

// A wrong base URL can answer 404 with a whole HTML page.
function serverText(info: FailureInfo): string {
  const text = failureText(info).replace(/\s+/g, ' ').trim();
  return text.length > MAX_SERVER_TEXT ? `${text.slice(0, MAX_SERVER_TEXT)}…` : text;
}

function keyHint(endpoint: Endpoint): string {
  const env = endpoint.keyEnv;
  if (env === undefined || env === 'OPENAI_API_KEY') return "OPENAI_API_KEY (or the provider's api_key_env)";
  return `${env} (the api_key_env of provider "${endpoint.provider}")`;
}

function urlHint(endpoint: Endpoint): string {
  return endpoint.provider === 'openai' ? "OPENAI_BASE_URL (or the provider's base_url)" : `the base_url of provider "${endpoint.provider}"`;
}

/**
 * What else a 404 may mean: a server without the route itself. Servers without
 * the Responses API (older Ollama, some gateways) answer answers through Chat
 * Completions; compaction and embeddings have no such stand-in.
 */
function routeHint(endpoint: Endpoint): string {
  if (endpoint.route === 'compaction') return ' Server compaction needs the Responses API (POST /responses, and /responses/compact in mode compact), which api: chat cannot stand in for.';
  if (endpoint.route === 'embeddings') return ' The server must also offer embeddings (POST /embeddings).';
  return endpoint.api === 'chat' ? '' : " If the server has no Responses API, set the provider's api: chat.";
}

/**
 * What is wrong and how to fix it; names the endpoint (and the model, where the
 * fault is the model's), never the key. No caller's model id in front: a
 * server-wide fault blocks every model there, and each blocked call puts its own.
 */
function fatalMessage(endpoint: Endpoint, kind: FatalKind, info: FailureInfo): string {
  const url = endpoint.baseURL;
  switch (kind) {
    case 'unauthorized':
      return redact(`the API key was rejected by ${url} (${serverText(info)}). Check ${keyHint(endpoint)}.`);
    case 'forbidden':
      return redact(
        `permission denied for model "${endpoint.model}" at ${url} (${serverText(info)}). Check that the key's project or organisation has access to it.`,
      );
    case 'not_found':
      return redact(
        `model "${endpoint.model}" was not found at ${url} (${serverText(info)}). Check the model name, and that the base URL ends in /v1.${routeHint(endpoint)}`,
      );
    case 'refused':
      return redact(`nothing is listening at ${url} (connection refused). Is ${urlHint(endpoint)} right, and is the server running?`);
    case 'host_not_found':
      return redact(`the host of ${url} was not found (DNS lookup failed). Is ${urlHint(endpoint)} right?`);
  }
}

/**
 * The breakers of one run (or one process), keyed by endpoint. Models built for
 * the same run share one registry, so the run sees every trip through `fatal()`.
 */
export class Breakers {
  private readonly streaks = new Map<string, Streak>();
  private readonly open = new Map<string, string>();
  private first: string | undefined;

  readonly threshold: number;

  constructor(threshold: number = DEFAULT_BREAKER_THRESHOLD) {
    this.threshold = Math.max(1, Math.floor(threshold));
  }

  /** Set once the run stops: no call starts after it (`halt`). */
  private halted: string | undefined;

  /**
   * No call starts after this: one waiting for a concurrency slot or between retries ends
   * at once with `reason` instead of a request. Calls in flight finish. Not a breaker trip:
   * `fatal()` is unchanged, since a stop by the user is an interruption, not a failure.
   */
  halt(reason: string): void {
    this.halted ??= reason;
  }

  /** The message of the first breaker that tripped; undefined while none has. Cheap enough to ask after every item. */
  fatal(): string | undefined {
    return this.first;
  }

  /** Every tripped breaker's message, in the order they tripped. */
  reasons(): string[] {
    return [...this.open.values()];
  }

  /** The message that blocks calls to `endpoint`, if its breaker (server-wide or the model's own) has tripped. */
  blocked(endpoint: Endpoint): string | undefined {
    const message = this.halted ?? this.open.get(serverKey(endpoint)) ?? this.open.get(modelKey(endpoint));
    return message === undefined ? undefined : `${endpoint.provider}:${endpoint.model}: ${message}`;
  }

  /** Counts a failed attempt; returns the blocking message once the endpoint's breaker has tripped. */
  failed(endpoint: Endpoint, info: FailureInfo): string | undefined {
    const kind = fatalKind(info);
    if (kind !== undefined) this.count(endpoint, kind, info);
    // Also for other failures: another call may have tripped the breaker meanwhile.
    return this.blocked(endpoint);
  }

  /** A success proves the key, the server and the model fine: their streaks start over. */
  succeeded(endpoint: Endpoint): void {
    this.streaks.delete(serverKey(endpoint));
    this.streaks.delete(modelKey(endpoint));
  }

  /** The retry guard of one endpoint (what OpenAIModel and the runner path hand to withRetry). */
  guard(endpoint: Endpoint): RetryGuard {
    return {
      blocked: () => this.blocked(endpoint),
      failed: (info) => this.failed(endpoint, info),
      succeeded: () => this.succeeded(endpoint),
    };
  }

  private count(endpoint: Endpoint, kind: FatalKind, info: FailureInfo): void {
    const key = scopeKey(endpoint, kind);
    if (this.open.has(key)) return;
    const streak = this.streaks.get(key);
    const count = streak?.kind === kind ? streak.count + 1 : 1;
    this.streaks.set(key, { kind, count });
    if (count < this.threshold) return;
    const message = fatalMessage(endpoint, kind, info);
    this.open.set(key, message);
    this.first ??= message;
  }
}
