import { describe, expect, it } from 'vitest';
import { backoffMs, classifyFailure, PermanentError, retryAfterMs, TransientError, withRetry, type FailureInfo, type RetryGuard } from '../../../harness/models/retry.js';

function httpError(status: number, headers: Record<string, string> = {}, message = `${status} failed`): Error {
  return Object.assign(new Error(message), { status, headers: new Headers(headers) });
}

const fast = { baseDelayMs: 100, maxDelayMs: 1_000, timeoutMs: 1_000 };

describe('retry policy', () => {
  it('parses Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5_000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '2' }, now)).toBe(2_000);
  });

  it('classifies what is retried', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504]) expect(classifyFailure(httpError(status)).retryable).toBe(true);
    for (const status of [400, 401, 403, 404, 422]) expect(classifyFailure(httpError(status)).retryable).toBe(false);
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyFailure(reset).retryable).toBe(true);
    const wrapped = Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(classifyFailure(wrapped).retryable).toBe(true);
    expect(classifyFailure(wrapped).code).toBe('ECONNREFUSED');
    expect(classifyFailure(new PermanentError('bad reply')).retryable).toBe(false);
    expect(classifyFailure(new TypeError('x is not a function')).retryable).toBe(false);
  });

  it("names the cause a client's generic message hides", () => {
    // What the openai client throws when Node's fetch refuses a port (6000 here).
    const refused = Object.assign(new Error('Connection error.'), { cause: Object.assign(new TypeError('fetch failed'), { cause: new Error('bad port') }) });
    expect(classifyFailure(refused).message).toBe('Connection error. (fetch failed: bad port)');
    const wrapped = Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(classifyFailure(wrapped).message).toBe('fetch failed (ECONNREFUSED)');
  });

  it('retries a transient body even when a client wrapped it as a connection error', () => {
    expect(classifyFailure(new TransientError('the reply was not valid JSON: "<html>"')).retryable).toBe(true);
    // The openai client turns whatever its fetch throws into APIConnectionError("Connection error.").
    const wrapped = Object.assign(new Error('Connection error.'), { name: 'APIConnectionError', cause: new TransientError('the reply was not valid JSON: "<h"') });
    expect(classifyFailure(wrapped)).toEqual({ retryable: true, message: 'the reply was not valid JSON: "<h"' });
  });

  it('uses full jitter below an exponentially growing cap', () => {
    expect(backoffMs(1, { ...fast, random: () => 0.999 })).toBeLessThan(100);
    expect(backoffMs(3, { ...fast, random: () => 0.5 })).toBe(200);
    expect(backoffMs(10, { ...fast, random: () => 0.5 })).toBe(500);
    expect(backoffMs(2, { ...fast, random: () => 0 })).toBe(0);
  });

  it('waits what Retry-After asks (capped) instead of the backoff', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const outcome = await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw httpError(429, { 'retry-after': '2' });
        if (calls === 2) throw httpError(429, { 'retry-after': '3600' });
        return 'done';
      },
      { ...fast, maxAttempts: 5, maxRetryAfterMs: 10_000, sleep: async (ms) => void sleeps.push(ms) },
    );
    expect(outcome).toEqual({ ok: true, value: 'done', attempts: 3 });
    expect(sleeps).toEqual([2_000, 10_000]);
  });

  it('stops after maxAttempts and reports the status, never throwing', async () => {
    let calls = 0;
    const outcome = await withRetry(
      async () => {
        calls++;
        throw httpError(503, {}, '503 overloaded');
      },
      { ...fast, maxAttempts: 4, sleep: async () => {} },
    );
    expect(calls).toBe(4);
    expect(outcome).toEqual({ ok: false, error: 'HTTP 503: overloaded (after 4 attempts)', status: 503, attempts: 4 });
  });

  it('aborts an attempt at its timeout even if the call ignores the signal', async () => {
    let aborted = false;
    const outcome = await withRetry(
      (signal) =>
        new Promise<string>(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
      { ...fast, timeoutMs: 50, maxAttempts: 1 },
    );
    expect(aborted).toBe(true);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBe('timed out after 50 ms');
  });

  it('redacts keys in final errors', async () => {
    const outcome = await withRetry(
      async () => {
        throw httpError(401, {}, '401 Incorrect API key provided: sk-abcdefghijklmnopqrstuvwxyz');
      },
      { ...fast, maxAttempts: 3 },
    );
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBe('HTTP 401: Incorrect API key provided: [REDACTED]');
  });
});

describe('retry guard (what a circuit breaker plugs into)', () => {
  function recordingGuard(stopAfter: number): RetryGuard & { seen: FailureInfo[]; successes: number } {
    const seen: FailureInfo[] = [];
    const guard = {
      seen,
      successes: 0,
      blocked: () => (seen.length >= stopAfter ? 'stopped by the guard' : undefined),
      failed: (info: FailureInfo) => {
        seen.push(info);
        return seen.length >= stopAfter ? 'stopped by the guard' : undefined;
      },
      succeeded: () => {
        guard.successes++;
      },
    };
    return guard;
  }

  it('ends the retries as soon as the guard says so, with its message', async () => {
    const guard = recordingGuard(2);
    let calls = 0;
    const outcome = await withRetry(
      async () => {
        calls++;
        throw Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      },
      { ...fast, maxAttempts: 6, sleep: async () => {}, guard },
    );
    expect(calls).toBe(2);
    expect(outcome).toEqual({ ok: false, error: 'stopped by the guard', attempts: 2, fatal: true });
    expect(guard.seen.map((i) => i.code)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('makes no attempt while the guard blocks, and reports successes to it', async () => {
    const blocked = recordingGuard(0);
    let calls = 0;
    const outcome = await withRetry(async () => ++calls, { ...fast, maxAttempts: 3, guard: blocked });
    expect(calls).toBe(0);
    expect(outcome).toEqual({ ok: false, error: 'stopped by the guard', attempts: 0, fatal: true });
    const open = recordingGuard(10);
    expect(await withRetry(async () => 'fine', { ...fast, maxAttempts: 3, guard: open })).toEqual({ ok: true, value: 'fine', attempts: 1 });
    expect(open.successes).toBe(1);
  });
});
