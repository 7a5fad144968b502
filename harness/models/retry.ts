// Retries with exponential backoff and full jitter, one policy for every provider.
// The openai client's own retries are switched off so that this file alone decides
// what is retried, how long to wait and when to give up (and tests can observe it).
import { redact } from '../../core/secrets.js';

export interface RetryOptions {
  /** Total attempts including the first (≥ 1). */
  maxAttempts: number;
  /** Backoff cap of the first retry; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of any computed backoff. */
  maxDelayMs: number;
  /** Per-attempt timeout; the attempt's AbortSignal fires when it passes. */
  timeoutMs: number;
  /** Longest server-requested wait (`Retry-After`) honoured; longer requests are capped. */
  maxRetryAfterMs?: number;
  /** Injected in tests to record delays instead of waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** Injected in tests; defaults to Math.random. */
  random?: () => number;
  /** Sees every attempt's outcome and may end the call early (a circuit breaker, harness/breaker.ts). */
  guard?: RetryGuard;
}

/**
 * Lets something outside the loop stop calls that cannot succeed: `blocked` is
 * asked before every attempt, `failed` after every failure; a message from
 * either ends the call with that message, whatever the attempts left.
 */
export interface RetryGuard {
  blocked(): string | undefined;
  failed(info: FailureInfo): string | undefined;
  succeeded(): void;
}

export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  /** `fatal`: the guard ended the call; `error` is its complete message. */
  | { ok: false; error: string; status?: number; attempts: number; fatal?: true };

/** What one failure means for the retry loop. */
export interface FailureInfo {
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  /** The socket error code of a connection failure (`ECONNREFUSED`, `ENOTFOUND`, …). */
  code?: string;
  message: string;
}

/** A failure that is final whatever its shape (e.g. a reply that is not JSON). */
export class PermanentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentError';
  }
}

/**
 * A failure worth another attempt whatever its shape, e.g. a 200 whose body a
 * gateway cut short or replaced with its own HTML page.
 */
export class TransientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientError';
  }
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

const RETRY_STATUS = new Set([408, 409, 429]);
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type HeaderBag = Headers | Record<string, string | string[] | undefined> | undefined;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const raw = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** Milliseconds a server asked us to wait (`retry-after-ms`, or `Retry-After` in seconds or as an HTTP date). */
export function retryAfterMs(headers: HeaderBag, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = header(headers, 'retry-after');
  if (after === undefined || after.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

// Clients wrap what their fetch throws (the openai client in APIConnectionError)
// and Node puts a socket error's code on a `cause`, so the error and a few of
// its causes are searched.
function* causes(error: unknown): Generator<unknown> {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

function transientCause(error: unknown): TransientError | undefined {
  for (const cause of causes(error)) if (cause instanceof TransientError) return cause;
  return undefined;
}

/** A PermanentError behind the error: one our fetch threw, which the client wrapped as a connection error. */
function permanentCause(error: unknown): PermanentError | undefined {
  for (const cause of causes(error)) if (cause instanceof PermanentError) return cause;
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  for (const cause of causes(error)) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return code;
  }
  return undefined;
}

/** A connection failure that carries no socket error code (those are found by errorCode). */
function isConnectionError(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return true;
  const message = String((error as { message?: unknown })?.message ?? '');
  return /fetch failed|socket hang up|network|terminated|other side closed/i.test(message);
}

/**
 * The error's message with what its causes add: a client's "Connection error." says nothing
 * of why, and the reason ("fetch failed: bad port", "getaddrinfo ENOTFOUND api.example") is
 * on a cause a few levels down.
 */
function withCauses(error: unknown): string {
  const parts: string[] = [];
  for (const cause of causes(error)) {
    const said = typeof cause === 'string' ? cause : (cause as { message?: unknown }).message;
    const text = typeof said === 'string' ? said.trim() : '';
    if (text !== '' && !parts.some((p) => p.includes(text))) parts.push(text);
  }
  return parts.length <= 1 ? (parts[0] ?? String(error)) : `${parts[0]} (${parts.slice(1).join(': ')})`;
}

/** Classifies an error thrown by a provider call. */
export function classifyFailure(error: unknown): FailureInfo {
  const message = redact(withCauses(error));
  if (error instanceof PermanentError) return { retryable: false, message };
  if (error instanceof AttemptTimeout) return { retryable: true, message };
  const permanent = permanentCause(error);
  if (permanent) return { retryable: false, message: redact(permanent.message) };
  const transient = transientCause(error);
  if (transient) return { retryable: true, message: redact(transient.message) };
  const status = (error as { status?: unknown })?.status;
  if (typeof status === 'number') {
    const headers = (error as { headers?: HeaderBag }).headers;
    const retryable = RETRY_STATUS.has(status) || status >= 500;
    return { retryable, status, retryAfterMs: retryable ? retryAfterMs(headers) : undefined, message };
  }
  const code = errorCode(error);
  if (code !== undefined || isConnectionError(error)) {
    return { retryable: true, code, message: code && !message.includes(code) ? `${message} (${code})` : message };
  }
  return { retryable: false, message };
}

/** Full jitter: a uniform wait in [0, min(max, base · 2^(retry-1))]. */
export function backoffMs(retry: number, opts: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const cap = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (retry - 1));
  return Math.floor((opts.random ?? Math.random)() * cap);
}

// Races the attempt against its timeout so a call that ignores the signal still ends.
async function attempt<T>(fn: (signal: AbortSignal, attempt: number) => Promise<T>, n: number, timeoutMs: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = new AttemptTimeout(timeoutMs);
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  try {
    return await Promise.race([fn(controller.signal, n), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `HTTP <status>: <message>`, or the bare message when there was no reply; redacted. */
export function failureText(info: FailureInfo): string {
  // The openai client already starts its messages with the status code.
  const message = info.status !== undefined ? info.message.replace(new RegExp(`^${info.status}\\s+`), '') : info.message;
  const status = info.status !== undefined ? `HTTP ${info.status}: ` : '';
  return redact(`${status}${message}`);
}

function finalMessage(info: FailureInfo, attempts: number): string {
  return attempts > 1 ? `${failureText(info)} (after ${attempts} attempts)` : failureText(info);
}

/**
 * Runs `fn` until it succeeds, fails permanently or runs out of attempts. Never
 * throws: the outcome carries the value or a final, redacted error message.
 */
export async function withRetry<T>(
  fn: (signal: AbortSignal, attempt: number) => Promise<T>,
  opts: RetryOptions,
): Promise<RetryOutcome<T>> {
  const sleep = opts.sleep ?? realSleep;
  const maxAttempts = Math.max(1, Math.floor(opts.maxAttempts));
  const maxRetryAfter = opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const guard = opts.guard;
  for (let n = 1; ; n++) {
    // Asked again after every wait: another call may have found the endpoint unusable meanwhile.
    const blocked = guard?.blocked();
    if (blocked !== undefined) return { ok: false, error: blocked, attempts: n - 1, fatal: true };
    try {
      const value = await attempt(fn, n, opts.timeoutMs);
      guard?.succeeded();
      return { ok: true, value, attempts: n };
    } catch (error) {
      const info = classifyFailure(error);
      const fatal = guard?.failed(info);
      if (fatal !== undefined) return { ok: false, error: fatal, status: info.status, attempts: n, fatal: true };
      if (!info.retryable || n >= maxAttempts) {
        return { ok: false, error: finalMessage(info, n), status: info.status, attempts: n };
      }
      const wait = info.retryAfterMs !== undefined ? Math.min(info.retryAfterMs, maxRetryAfter) : backoffMs(n, opts);
      await sleep(wait);
    }
  }
}
