// OpenAI's Batch API (/v1/files + /v1/batches) through the official `openai`
// client: a run's requests go up as one JSONL file, come back within 24 hours
// at half the price, and are matched to their requests by `custom_id`.
// The control calls (upload, create, retrieve, download) are retried here by
// harness/retry.ts, so the client is built with `maxRetries: 0` as in openai.ts.
// The requests inside a batch are never retried by us: a failed line is reported
// as failed, and whoever submitted it decides whether to send it again.
import type OpenAI from 'openai';
import type { Batch } from 'openai/resources/batches';
import { isRecord } from '../../core/record.js';
import { redact, registerSecret } from '../../core/secrets.js';
import { withRetry, type RetryOptions } from './retry.js';

export type BatchEndpoint = '/v1/responses' | '/v1/chat/completions';

/** One request of a batch: `body` is what `responsesBody` or `chatBody` (openai.ts) build. */
export interface BatchRequestLine {
  /** Unique within the batch; the cache key of the call. */
  customId: string;
  body: Record<string, unknown>;
}

export interface BatchClientOptions {
  /** Default: `OPENAI_BASE_URL`, then the client's default (the openai client reads it). */
  baseURL?: string;
  apiKey: string;
  /** Per-attempt timeout of a control call; default 120 s. */
  timeoutMs?: number;
  /** Per-attempt timeout of downloading a result file, which can be large; default 10 min. */
  downloadTimeoutMs?: number;
  /** Attempts of a control call, the first included; default 6. */
  maxAttempts?: number;
  /** Backoff cap of a control call's first retry (doubles per retry, full jitter); default 1 s. */
  retryBaseDelayMs?: number;
  /** Longest backoff between retries of a control call; default 30 s. */
  retryMaxDelayMs?: number;
  /** Waits between retries and, unless `wait` gets its own, between polls. Injected in tests. */
  sleep?: Sleep;
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** One line's outcome: the reply body of a 2xx line, or the error as text (redacted, never containing the key). */
export type BatchLineResult = { ok: true; body: unknown } | { ok: false; error: string };

/** What `results` returns: customId → result, and how many result lines could not be read. */
export interface BatchResults extends Map<string, BatchLineResult> {
  malformedLines: number;
}

export interface BatchStatus {
  id: string;
  /** validating, in_progress, finalizing, completed, failed, expired, cancelling or cancelled. */
  status: string;
  endpoint?: string;
  inputFileId?: string;
  outputFileId?: string;
  errorFileId?: string;
  counts?: { total: number; completed: number; failed: number };
  /** The batch's own errors (a failed validation), one redacted text each: `line 3: duplicate_custom_id: …`. */
  errors?: string[];
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Wait after the first poll; doubles after each poll. Default 5 s. */
  firstDelayMs?: number;
  /** Longest wait between polls. Default 60 s. */
  maxDelayMs?: number;
  sleep?: Sleep;
  /** Called with each polled status, the terminal one included. */
  onPoll?: (status: BatchStatus) => void;
}

/** OpenAI's limits on one batch: requests, and size of its input file. */
export const MAX_BATCH_LINES = 50_000;
export const MAX_BATCH_BYTES = 200 * 1024 * 1024;

const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_DOWNLOAD_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_ATTEMPTS = 6;
const DEFAULT_RETRY_BASE_DELAY_MS = 1_000;
const DEFAULT_RETRY_MAX_DELAY_MS = 30_000;
const DEFAULT_FIRST_POLL_MS = 5_000;
const DEFAULT_MAX_POLL_MS = 60_000;
// How many of the newest batches are searched for one a lost reply may have created.
const RECENT_BATCHES = 100;
const BODY_PREVIEW_CHARS = 200;

/** Whether a batch has stopped changing (its files, if any, are final). */
export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

/** Rejects with the signal's reason (an AbortError unless the caller gave another). */
function throwIfAborted(signal: AbortSignal | undefined): void {
  signal?.throwIfAborted();
}

const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** `promise`, or the signal's reason as soon as it aborts: an injected sleep may ignore the signal. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as unknown);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A control call that failed for good (after its retries); the message is redacted. */
export class BatchRequestError extends Error {
  readonly status?: number;
  constructor(message: string, status?: number) {
    super(redact(message));
    this.name = 'BatchRequestError';
    this.status = status;
  }
}

/**
 * The input file of a batch: one `{custom_id, method, url, body}` line per request.
 * Checked first against what would fail the whole batch later (after a wait in
 * OpenAI's queue): no requests, a custom_id twice, more than OpenAI accepts.
 */
/** One line of a batch's input file, as uploaded. */
export function inputLine(endpoint: BatchEndpoint, line: BatchRequestLine): string {
  return JSON.stringify({ custom_id: line.customId, method: 'POST', url: endpoint, body: line.body });
}

export function batchInputFile(endpoint: BatchEndpoint, lines: readonly BatchRequestLine[]): string {
  if (lines.length === 0) throw new Error('a batch needs at least one request');
  if (lines.length > MAX_BATCH_LINES) throw new Error(`a batch takes at most ${MAX_BATCH_LINES} requests, not ${lines.length}`);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of lines) {
    if (seen.has(line.customId)) throw new Error(`custom_id ${JSON.stringify(line.customId)} is in the batch twice`);
    seen.add(line.customId);
    out.push(inputLine(endpoint, line));
  }
  const text = `${out.join('\n')}\n`;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_BATCH_BYTES) throw new Error(`a batch's input file may be at most ${MAX_BATCH_BYTES} bytes, not ${bytes}`);
  return text;
}

function batchErrors(batch: Batch): string[] | undefined {
  const data = batch.errors?.data;
  if (!data?.length) return undefined;
  return data.map((e) => {
    const where = typeof e.line === 'number' ? `line ${e.line}: ` : '';
    const code = e.code ? `${e.code}: ` : '';
    return redact(`${where}${code}${e.message ?? 'no message'}`);
  });
}

/** The parts of a batch object this module and its callers use. */
export function toBatchStatus(batch: Batch): BatchStatus {
  const status: BatchStatus = { id: batch.id, status: batch.status };
  if (batch.endpoint) status.endpoint = batch.endpoint;
  if (batch.input_file_id) status.inputFileId = batch.input_file_id;
  if (batch.output_file_id) status.outputFileId = batch.output_file_id;
  if (batch.error_file_id) status.errorFileId = batch.error_file_id;
  if (batch.request_counts) {
    const { total, completed, failed } = batch.request_counts;
    status.counts = { total, completed, failed };
  }
  const errors = batchErrors(batch);
  if (errors) status.errors = errors;
  return status;
}

/** The value as an object, or undefined (core/record.ts's check, for optional chaining). */
function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** The message of an error body (`{error: {message}}`), else a short preview of the body. */
function bodyMessage(body: unknown): string {
  const error = asRecord(asRecord(body)?.error);
  if (typeof error?.message === 'string') return error.message;
  if (typeof body === 'string') return body.slice(0, BODY_PREVIEW_CHARS);
  return body === undefined ? 'no body' : JSON.stringify(body).slice(0, BODY_PREVIEW_CHARS);
}

/** One parsed result line: its custom_id and outcome, or undefined when it has no custom_id. */
export function lineResult(line: unknown): { customId: string; result: BatchLineResult } | undefined {
  const rec = asRecord(line);
  if (!rec || typeof rec.custom_id !== 'string') return undefined;
  const response = asRecord(rec.response);
  const statusCode = typeof response?.status_code === 'number' ? response.status_code : undefined;
  const error = asRecord(rec.error);
  // A line the batch never ran (batch_expired, …) has an error and no response.
  if (error) {
    const label = statusCode ?? (typeof error.code === 'string' ? error.code : 'error');
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error).slice(0, BODY_PREVIEW_CHARS);
    return { customId: rec.custom_id, result: { ok: false, error: redact(`${label}: ${message}`) } };
  }
  if (statusCode === undefined) return { customId: rec.custom_id, result: { ok: false, error: 'the result line has no response status' } };
  if (statusCode >= 400) return { customId: rec.custom_id, result: { ok: false, error: redact(`${statusCode}: ${bodyMessage(response?.body)}`) } };
  return { customId: rec.custom_id, result: { ok: true, body: response?.body } };
}

// A cut-off or mangled line is not JSON, yet its custom_id (written first) is often readable.
const CUSTOM_ID = /"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")/;

function customIdOf(text: string): string | undefined {
  const match = CUSTOM_ID.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]) as string;
  } catch {
    return undefined;
  }
}

/**
 * Adds the lines of one result file to `into`. A success is never replaced by an
 * error for the same custom_id: the output file is read first, and a duplicate
 * line (which the API should not write) cannot undo a paid-for answer.
 */
function readResultFile(text: string, expected: ReadonlySet<string>, into: BatchResults): void {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    let parsed: ReturnType<typeof lineResult>;
    try {
      parsed = lineResult(JSON.parse(line) as unknown);
    } catch {
      parsed = undefined;
    }
    if (!parsed) {
      into.malformedLines++;
      const id = customIdOf(line);
      if (id !== undefined && expected.has(id) && !into.has(id)) into.set(id, { ok: false, error: 'the result line could not be read' });
      continue;
    }
    if (!expected.has(parsed.customId)) continue;
    if (into.get(parsed.customId)?.ok) continue;
    into.set(parsed.customId, parsed.result);
  }
}

/** The error of an expected line that neither file mentions. */
function missingError(batch: BatchStatus, malformedLines: number): string {
  const reasons = [...(batch.errors ?? [])];
  if (malformedLines > 0) reasons.push(`${malformedLines} result line(s) could not be read`);
  const why = reasons.length ? ` (${reasons.join('; ')})` : '';
  return redact(`batch ${batch.id} ${batch.status}: no result for this request${why}`);
}

export class BatchClient {
  private client?: Promise<OpenAI>;
  private readonly opts: BatchClientOptions;
  private readonly retry: Omit<RetryOptions, 'sleep' | 'timeoutMs'>;
  private readonly sleep: Sleep;

  constructor(opts: BatchClientOptions) {
    this.opts = opts;
    registerSecret(opts.apiKey);
    this.sleep = opts.sleep ?? realSleep;
    this.retry = {
      maxAttempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      baseDelayMs: opts.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
      maxDelayMs: opts.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS,
    };
  }

  // Built on first use: the `openai` package is hundreds of modules the CLI must not load to start.
  private clientFor(): Promise<OpenAI> {
    this.client ??= import('openai').then(
      ({ default: Client }) =>
        new Client({
          // A local server needs no key, but the client insists on one.
          apiKey: this.opts.apiKey || 'no-key',
          baseURL: this.opts.baseURL,
          maxRetries: 0,
          timeout: this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        }),
    );
    return this.client;
  }

  /**
   * Runs one control call under the retry policy. Each attempt gets a signal that
   * fires on its timeout or on the caller's abort; an abort ends the call with the
   * abort's reason rather than an error message.
   */
  private async call<T>(
    what: string,
    fn: (client: OpenAI, signal: AbortSignal, attempt: number) => Promise<T>,
    signal: AbortSignal | undefined,
    timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  ): Promise<T> {
    throwIfAborted(signal);
    const client = await this.clientFor();
    const outcome = await withRetry(
      (attemptSignal, attempt) => {
        throwIfAborted(signal);
        return fn(client, signal ? AbortSignal.any([attemptSignal, signal]) : attemptSignal, attempt);
      },
      { ...this.retry, timeoutMs, sleep: (ms) => untilAborted(this.sleep(ms, signal), signal) },
    );
    throwIfAborted(signal);
    if (!outcome.ok) throw new BatchRequestError(`${what}: ${outcome.error}`, outcome.status);
    return outcome.value;
  }

  /** Uploads the JSONL (one line per request: {custom_id, method:'POST', url, body}) and creates the batch; returns its id. */
  async submit(endpoint: BatchEndpoint, lines: readonly BatchRequestLine[], signal?: AbortSignal): Promise<string> {
    return this.create(endpoint, await this.upload(endpoint, lines, signal), signal);
  }

  /** Uploads the input file of a batch; returns the file's id. */
  async upload(endpoint: BatchEndpoint, lines: readonly BatchRequestLine[], signal?: AbortSignal): Promise<string> {
    const text = batchInputFile(endpoint, lines);
    const { toFile } = await import('openai');
    // A lost reply means at worst one unused file, which no batch reads.
    const file = await this.call(
      'uploading the batch input',
      async (client, s) => client.files.create({ file: await toFile(Buffer.from(text), 'batch.jsonl'), purpose: 'batch' }, { signal: s }),
      signal,
    );
    return file.id;
  }

  /**
   * Creates the batch that reads an uploaded file; returns its id. Asked again
   * for a file a batch already reads (a retry, or a process that stopped
   * before it learnt the id), it returns that batch rather than a second one.
   */
  async create(endpoint: BatchEndpoint, fileId: string, signal?: AbortSignal): Promise<string> {
    const file = { id: fileId };
    const batch = await this.call(
      'creating the batch',
      async (client, s, attempt) => {
        // A retry after a lost reply could start the same requests twice and pay for them
        // twice; the input file is ours alone, so a batch that reads it is the one we created.
        if (attempt > 1) {
          const existing = await this.batchReading(client, file.id, s);
          if (existing) return existing;
        }
        return client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' }, { signal: s });
      },
      signal,
    );
    return batch.id;
  }

  /**
   * Succeeds when the server answers for its batches at all (it lists them): a
   * 404 for one batch then means the server does not know that batch, not that
   * the base URL or a gateway lacks the route.
   */
  async listsBatches(signal?: AbortSignal): Promise<void> {
    await this.call('listing batches', (client, s) => client.batches.list({ limit: 1 }, { signal: s }), signal);
  }

  /** The id of the batch that reads an uploaded file, if one of the recent batches does. */
  async findBatchReading(fileId: string, signal?: AbortSignal): Promise<string | undefined> {
    const found = await this.call(`looking for the batch of file ${fileId}`, (client, s) => this.batchReading(client, fileId, s), signal);
    return found?.id;
  }

  /** The newest batch that reads `fileId`, if there is one among the recent ones. */
  private async batchReading(client: OpenAI, fileId: string, signal: AbortSignal): Promise<Batch | undefined> {
    const page = await client.batches.list({ limit: RECENT_BATCHES }, { signal });
    return page.data.find((b) => b.input_file_id === fileId);
  }

  async retrieve(id: string, signal?: AbortSignal): Promise<BatchStatus> {
    const batch = await this.call(`retrieving batch ${id}`, (client, s) => client.batches.retrieve(id, { signal: s }), signal);
    return toBatchStatus(batch);
  }

  /**
   * Polls until the batch is terminal (completed, failed, expired, cancelled), waiting
   * firstDelayMs after the first poll and twice as long after each next one, up to
   * maxDelayMs. An abort rejects with the signal's reason and leaves the batch running:
   * a later process resumes from its id.
   */
  async wait(id: string, opts: WaitOptions = {}): Promise<BatchStatus> {
    const { signal, onPoll } = opts;
    const sleep = opts.sleep ?? this.sleep;
    const maxDelay = opts.maxDelayMs ?? DEFAULT_MAX_POLL_MS;
    let delay = Math.min(opts.firstDelayMs ?? DEFAULT_FIRST_POLL_MS, maxDelay);
    for (;;) {
      const status = await this.retrieve(id, signal);
      onPoll?.(status);
      if (isTerminal(status.status)) return status;
      await untilAborted(sleep(delay, signal), signal);
      delay = Math.min(delay * 2, maxDelay);
    }
  }

  private async fileText(fileId: string, signal: AbortSignal | undefined): Promise<string> {
    return this.call(
      `downloading batch file ${fileId}`,
      async (client, s) => (await client.files.content(fileId, { signal: s })).text(),
      signal,
      this.opts.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
    );
  }

  /**
   * Reads the output and error files of a terminal batch into customId → result, for
   * the ids in `expected` (others in the files are skipped). Every expected id gets a
   * result: one neither file mentions (an expired or cancelled batch, a batch that
   * failed validation) gets `batch <id> <status>: no result for this request`, with the
   * batch's own errors when it has them. Lines are matched by custom_id, in any order;
   * a line that is not JSON is counted in `malformedLines`, and its custom_id, when it
   * can be read, gets an error.
   */
  async results(batch: BatchStatus, expected: readonly string[], signal?: AbortSignal): Promise<BatchResults> {
    if (!isTerminal(batch.status)) throw new Error(`batch ${batch.id} is ${batch.status}; its results can be read once it has ended`);
    const wanted = new Set(expected);
    const out = Object.assign(new Map<string, BatchLineResult>(), { malformedLines: 0 });
    for (const fileId of [batch.outputFileId, batch.errorFileId]) {
      if (fileId) readResultFile(await this.fileText(fileId, signal), wanted, out);
    }
    for (const id of wanted) if (!out.has(id)) out.set(id, { ok: false, error: missingError(batch, out.malformedLines) });
    return out;
  }
}
