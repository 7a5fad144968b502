// `memeval run --batch`: the run's model calls go through OpenAI's Batch API
// instead of one request each. A call's inputs may be other calls' outputs (a
// summary before the probes that see it, an answer before its judge), so the
// calls go out in rounds: each round replays the whole run against what is
// known so far, collects the calls whose inputs are all known, submits them
// as batches (custom_id = the call's cache key), waits for them, and puts
// their results in the call cache. A call whose input holds a result still
// outstanding is not sent: it waits for a later round. When a round finds
// nothing left to send, the run is made for real, its calls answered from
// the batches' results.
//
// batches.jsonl in the run directory records each batch as it is submitted
// and as its results are stored, so a process killed while it waits resumes
// (`memeval run --resume`) by waiting on the same batches: no call is
// submitted twice. A line the batch answered with an error is an error of
// the run (counted against max_errors); `--resume` submits those again.
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { accounting, type Model, type ModelRequest, type ModelResult } from '../../core/model.js';
import { readLines } from '../../core/lines.js';
import { isRecord } from '../../core/record.js';
import { redact } from '../../core/secrets.js';
import { CacheStore, type CallRouter, type RoutedCall } from '../models/cache.js';
import { BatchClient, BatchRequestError, MAX_BATCH_BYTES, MAX_BATCH_LINES, inputLine, type BatchEndpoint, type BatchLineResult, type BatchRequestLine, type BatchStatus, type Sleep } from '../models/batch.js';
import { openAIModelOf } from '../models/create.js';
import type { OpenAIBatchTarget, ParsedReply } from '../models/openai.js';
import type { SuiteConfig } from '../config.js';
import { costOf } from '../models/prices.js';

export const BATCHES_FILE = 'batches.jsonl';

/**
 * What a batch costs against the price table: OpenAI bills Batch API calls at
 * half its standard price, input and output alike.
 */
export const BATCH_PRICE_FACTOR = 0.5;


/**
 * What a call whose result is still outstanding answers during a round. It
 * flows on into later requests (a summary into the probes that see it), and
 * a request that holds it is held back: its input is not known yet.
 */
const OUTSTANDING = '\u2063[memeval: batch result outstanding]\u2063';

export interface BatchSettings {
  /** First wait between polls of a batch, doubling up to `maxPollMs`. */
  firstPollMs?: number;
  maxPollMs?: number;
  /** Injected in tests. */
  sleep?: Sleep;
}

/** A batch submitted and not yet stored. */
interface PendingBatch {
  id: string;
  model: string;
  keys: string[];
}

/** An input file uploaded whose batch may not exist yet (the process stopped between the two). */
interface Upload {
  file: string;
  model: string;
  endpoint: BatchEndpoint;
  keys: string[];
}

type BatchLine =
  | ({ type: 'uploaded' } & Upload)
  | { type: 'abandoned'; file: string }
  | { type: 'submitted'; batch: string; file?: string; model: string; endpoint: string; keys: string[] }
  | { type: 'done'; batch: string; status: string; ok: string[]; failed: Record<string, string> };

function parseBatchLine(text: string): BatchLine | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isRecord(value)) return undefined;
    if (value.type === 'uploaded' && typeof value.file === 'string' && typeof value.model === 'string' && Array.isArray(value.keys)) return value as BatchLine;
    if (value.type === 'abandoned' && typeof value.file === 'string') return value as BatchLine;
    if (typeof value.batch !== 'string') return undefined;
    if (value.type === 'submitted' && typeof value.model === 'string' && Array.isArray(value.keys)) return value as BatchLine;
    if (value.type === 'done' && Array.isArray(value.ok) && isRecord(value.failed)) return value as BatchLine;
  } catch {
    // A torn last line: the write it belonged to did not finish, and is redone.
  }
  return undefined;
}

/** A chain of calls each of which may read the one before: a job's replay, one probe's answer and its judgement. */
interface CallChain {
  /** A call of the chain got an outstanding result: whatever follows it may be built on it. */
  held: boolean;
}

/** What `info.batch` of run.json records. */
export interface BatchCounts {
  /** Calls submitted through batches (over every process of the run). */
  requests: number;
  batches: number;
  /** Lines a batch answered with an error. */
  failedLines: number;
}

const result = (output: string, extra: Partial<ModelResult> = {}): ModelResult => ({ output, usage: { inputTokens: 0, outputTokens: 0 }, cached: true, latencyMs: 0, ...extra });

/**
 * The batch side of a run: routes each model call (CachedModel's router),
 * collects the calls to submit, submits and waits for them, and keeps
 * batches.jsonl.
 */
export class BatchRun implements CallRouter {
  /** `collect` while rounds run; `deliver` for the run made for real. */
  private mode: 'collect' | 'deliver' = 'collect';
  /** Calls this run's batches answered (in any of its processes): served as calls the run made, at batch prices. */
  private readonly delivered = new Set<string>();
  /** Delivered calls the run has been given once: later requests for them are cache hits, as in a direct run. */
  private readonly served = new Set<string>();
  /** Lines a batch of this process answered with an error; a resumed process submits them again. */
  private readonly failed = new Map<string, string>();
  private readonly pending = new Map<string, PendingBatch>();
  /** Input files uploaded by an earlier process that stopped before batches.jsonl named their batch. */
  private readonly unclaimed = new Map<string, Upload>();
  private readonly pendingKeys = new Set<string>();
  /** Keys submitted by this process: never twice, even should the cache lose a result. */
  private readonly submitted = new Set<string>();
  private collected = new Map<string, { target: OpenAIBatchTarget; request: ModelRequest }>();
  private readonly targets = new Map<string, OpenAIBatchTarget>();
  private readonly clients = new Map<string, BatchClient>();
  readonly counts: BatchCounts = { requests: 0, batches: 0, failedLines: 0 };
  private readonly store: CacheStore;
  private readonly chains = new AsyncLocalStorage<CallChain>();
  private file = '';

  constructor(
    cacheDir: string,
    private readonly settings: BatchSettings,
    private readonly log: (line: string) => void,
  ) {
    this.store = new CacheStore(cacheDir);
  }

  /** Takes the run directory: batches.jsonl is read back (a resumed run) and appended to. */
  open(runDir: string): void {
    this.file = join(runDir, BATCHES_FILE);
    this.readBack();
  }

  /** A resumed run's batches: those still out are waited on, those stored are this run's calls. */
  private readBack(): void {
    if (!existsSync(this.file)) return;
    for (const { text } of readLines(this.file, { invalidUtf8: 'replace' })) {
      const line = parseBatchLine(text);
      if (!line) continue;
      if (line.type === 'uploaded') {
        this.unclaimed.set(line.file, line);
        for (const key of line.keys) this.pendingKeys.add(key);
      } else if (line.type === 'abandoned') {
        const upload = this.unclaimed.get(line.file);
        if (upload) this.dropUpload(upload);
      } else if (line.type === 'submitted') {
        if (line.file !== undefined) this.unclaimed.delete(line.file);
        this.track({ id: line.batch, model: line.model, keys: line.keys });
      } else {
        this.settle(line.batch);
        for (const key of line.ok) this.delivered.add(key);
        this.counts.failedLines += Object.keys(line.failed).length;
      }
    }
  }

  /** A batch made (by this process or, read back, by an earlier one): waited on, its calls held back until then. */
  private track(batch: PendingBatch): void {
    this.pending.set(batch.id, batch);
    for (const key of batch.keys) this.pendingKeys.add(key);
    this.counts.batches++;
    this.counts.requests += batch.keys.length;
  }

  private settle(batch: string): void {
    for (const key of this.pending.get(batch)?.keys ?? []) this.pendingKeys.delete(key);
    this.pending.delete(batch);
  }

  private append(line: BatchLine): void {
    const fd = openSync(this.file, 'a');
    try {
      appendFileSync(fd, `${JSON.stringify(line)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Runs `work` as a chain of calls branching from the current one, held back
   * from the start if that one is. A round finds which calls may go out by
   * their chains, not only by their text: an outstanding result read by a
   * step that makes no call (the offline reader answering from a context that
   * holds a pending summary) leaves no trace in the next request's text.
   */
  readonly chain = <T>(work: () => Promise<T>): Promise<T> => this.chains.run({ held: this.chains.getStore()?.held ?? false }, work);

  /** While rounds collect, every caller is seen: a call after an outstanding one in its chain is held back. */
  get seesEveryCall(): boolean {
    return this.mode === 'collect';
  }

  /** The rounds are over: the run is made for real, from the batches' results. */
  endRounds(): void {
    this.mode = 'deliver';
    // Chains only matter to rounds; the run made for real need not pay for following them.
    this.chains.disable();
  }

  /** The router every cached model of the run calls through (CachedModel's `router`). */
  readonly route = async ({ key, request, model, store }: RoutedCall): Promise<ModelResult> => {
    // Every model seen is known by id: a resumed process waits on its earlier batches once a round has met their calls again.
    const target = this.targetOf(model);
    const stored = await store.read(key);
    // A result of this run's batches is a call this run made (whichever process stored it), once:
    // asked for again, it is a cache hit, as a direct run's second identical request is.
    if (stored.result) {
      const ours = this.delivered.has(key);
      const made = this.mode === 'deliver' && ours && !this.served.has(key);
      if (made) this.served.add(key);
      // The cache keeps the list price, which every other run reads; this run's batches cost less.
      const cost = ours && stored.result.cost !== undefined ? stored.result.cost * BATCH_PRICE_FACTOR : stored.result.cost;
      // A batched call's latency is not measured: NaN (null in run.json), never a 0 a latency gate would pass on.
      return { ...stored.result, cached: !made, ...(made ? { latencyMs: Number.NaN } : {}), ...(cost === undefined ? {} : { cost }) };
    }
    const failure = this.failed.get(key);
    if (failure !== undefined) return result('', { cached: false, error: failure });
    if (this.mode === 'deliver') {
      return result('', { cached: false, error: 'the batches left this call unanswered (its result was not in the cache when the run was made); run again with --resume' });
    }
    const chain = this.chains.getStore();
    // Plain JSON: only whether the marker is in there matters, not a canonical key order.
    if (chain?.held || this.pendingKeys.has(key) || JSON.stringify(request).includes(OUTSTANDING)) return this.holdBack(chain);
    if (this.submitted.has(key)) return result('', { cached: false, error: 'a batch answered this call but its result could not be stored in the cache' });
    this.collected.set(key, { target, request });
    return this.holdBack(chain);
  };

  /** The answer of a call whose result is not known yet; what its chain does next waits for a later round. */
  private holdBack(chain: CallChain | undefined): ModelResult {
    if (chain) chain.held = true;
    return result(OUTSTANDING);
  }

  private targetOf(model: Model): OpenAIBatchTarget {
    const known = this.targets.get(model.id);
    if (known) return known;
    const openai = openAIModelOf(model);
    // Checked before the run starts (batchProblem); a model that slips past is a bug, said plainly.
    if (!openai) throw new Error(`${model.id} cannot be called through the Batch API`);
    const target = openai.batchTarget();
    this.targets.set(target.id, target);
    return target;
  }

  /** Whether a round found calls to send, or batches are still out. */
  get outstanding(): boolean {
    return this.collected.size > 0 || this.pending.size > 0 || this.unclaimed.size > 0;
  }

  private clientFor(target: OpenAIBatchTarget): BatchClient {
    let client = this.clients.get(target.id);
    if (!client) {
      client = new BatchClient({ baseURL: target.baseURL, apiKey: target.apiKey, timeoutMs: target.timeoutMs, sleep: this.settings.sleep });
      this.clients.set(target.id, client);
    }
    return client;
  }

  /**
   * Submits the calls the last round collected, one batch per model (split at
   * the API's limits). Each input file is recorded as soon as it is uploaded,
   * and its batch as soon as it is made: a process stopped in between leaves a
   * file that the next one gives to the batch already reading it, if any.
   */
  async submit(signal: AbortSignal): Promise<void> {
    await this.claimUploads(signal);
    const byModel = new Map<string, [string, { target: OpenAIBatchTarget; request: ModelRequest }][]>();
    for (const entry of this.collected) byModel.set(entry[1].target.id, [...(byModel.get(entry[1].target.id) ?? []), entry]);
    this.collected = new Map();
    for (const [model, calls] of byModel) {
      const target = calls[0][1].target;
      for (const chunk of chunks(calls.map(([key, c]) => ({ customId: key, body: target.body(c.request) })), target.endpoint)) {
        const client = this.clientFor(target);
        const keys = chunk.map((l) => l.customId);
        const file = await client.upload(target.endpoint, chunk, signal);
        this.append({ type: 'uploaded', file, model, endpoint: target.endpoint, keys });
        for (const key of keys) {
          this.pendingKeys.add(key);
          this.submitted.add(key);
        }
        this.madeBatch({ file, model, endpoint: target.endpoint, keys }, await client.create(target.endpoint, file, signal));
      }
    }
  }

  private madeBatch(upload: Upload, id: string): void {
    const { file, model, endpoint, keys } = upload;
    this.append({ type: 'submitted', batch: id, file, model, endpoint, keys });
    this.unclaimed.delete(file);
    this.track({ id, model, keys });
    this.log(`batch ${id}: ${keys.length} calls to ${model} submitted`);
  }

  /** Input files an earlier process uploaded but did not see a batch made for: the batch reading one is found, or made. */
  private async claimUploads(signal: AbortSignal): Promise<void> {
    for (const upload of [...this.unclaimed.values()]) {
      const target = this.targets.get(upload.model);
      if (!target) throw new Error(`batch input ${upload.file} was uploaded for ${upload.model}, which this run does not call`);
      const client = this.clientFor(target);
      const id = (await client.findBatchReading(upload.file, signal)) ?? (await this.createOrAbandon(client, upload, signal));
      if (id !== undefined) this.madeBatch(upload, id);
    }
  }

  /**
   * Makes the batch of an earlier process's upload, or gives the upload up when
   * the server does not know the file (404: another key or base URL since; the
   * server did answer the listing just before): its calls are collected again.
   */
  private async createOrAbandon(client: BatchClient, upload: Upload, signal: AbortSignal): Promise<string | undefined> {
    try {
      return await client.create(upload.endpoint, upload.file, signal);
    } catch (error) {
      if (!(error instanceof BatchRequestError) || error.status !== 404 || signal.aborted) throw error;
      this.log(`batch input ${upload.file}: the server does not know it (${error.message}); its ${upload.keys.length} calls will be submitted again`);
      this.append({ type: 'abandoned', file: upload.file });
      this.dropUpload(upload);
      return undefined;
    }
  }

  private dropUpload(upload: Upload): void {
    this.unclaimed.delete(upload.file);
    for (const key of upload.keys) {
      this.pendingKeys.delete(key);
      this.submitted.delete(key);
    }
  }

  /**
   * Waits for every batch still out and stores its results. An abort leaves
   * them running, for a resumed process to wait on. When one wait fails the
   * others are stopped too (their batches go on, and a resume waits on them):
   * a run that has failed must not keep polling for hours.
   */
  async waitAll(signal: AbortSignal): Promise<void> {
    const round = new AbortController();
    const stop = (): void => round.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    try {
      const waits = [...this.pending.values()].map((batch) =>
        this.waitOne(batch, round.signal).catch((error: unknown) => {
          round.abort(error);
          throw error;
        }),
      );
      const settled = await Promise.allSettled(waits);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      // Every failing wait aborts the round with its error first, so the round's reason is the first cause.
      if (failed) throw signal.aborted ? signal.reason : round.signal.reason;
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  private async waitOne(batch: PendingBatch, signal: AbortSignal): Promise<void> {
    const target = this.targets.get(batch.model);
    if (!target) throw new Error(`batch ${batch.id} was made for ${batch.model}, which this run does not call; it cannot be read`);
    const client = this.clientFor(target);
    let said = '';
    const status = await this.waitFor(client, batch, signal, (s) => {
      const line = statusLine(s);
      if (line !== said) this.log((said = line));
    });
    if (!status) return;
    const results = await client.results(status, batch.keys, signal);
    const ok: string[] = [];
    const failed: Record<string, string> = {};
    for (const key of batch.keys) {
      const line = results.get(key) ?? { ok: false, error: 'no result' };
      const made = await this.storeLine(key, line, target, batch.id);
      if (made === undefined) ok.push(key);
      else failed[key] = made;
    }
    this.append({ type: 'done', batch: batch.id, status: status.status, ok, failed });
    for (const key of ok) this.delivered.add(key);
    for (const [key, error] of Object.entries(failed)) this.failed.set(key, error);
    this.counts.failedLines += Object.keys(failed).length;
    this.settle(batch.id);
  }

  /**
   * The batch once it has ended, or undefined for a batch the server does not
   * know (404: another key, organisation or base URL since it was submitted):
   * its calls are submitted again rather than every resume failing on it.
   */
  private async waitFor(client: BatchClient, batch: PendingBatch, signal: AbortSignal, onPoll: (s: BatchStatus) => void): Promise<BatchStatus | undefined> {
    try {
      return await client.wait(batch.id, { signal, firstDelayMs: this.settings.firstPollMs, maxDelayMs: this.settings.maxPollMs, onPoll });
    } catch (error) {
      if (!(error instanceof BatchRequestError) || error.status !== 404 || signal.aborted) throw error;
      // A 404 from a server that does not list batches either is a wrong route, not a lost batch: resubmitting would pay twice.
      await client.listsBatches(signal);
      this.log(`batch ${batch.id}: the server does not know it (${error.message}); its ${batch.keys.length} calls will be submitted again`);
      this.append({ type: 'done', batch: batch.id, status: 'lost', ok: [], failed: {} });
      for (const key of batch.keys) this.submitted.delete(key);
      this.settle(batch.id);
      return undefined;
    }
  }

  /** Stores a line's result in the cache; returns its error, if it is one. */
  private async storeLine(key: string, line: BatchLineResult, target: OpenAIBatchTarget, batch: string): Promise<string | undefined> {
    if (!line.ok) return redact(`${target.id}: batch ${batch}: ${line.error}`);
    let reply: ParsedReply;
    try {
      reply = target.parse(line.body);
    } catch (error) {
      return redact(`${target.id}: batch ${batch}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // At list price, as every cache entry is: the batch discount applies where this run reads it back.
    const { usage, cost, usageUnknown } = accounting(reply.usage, (u) => costOf(u, target.price));
    // Latency is not measured for a batched call: the batch took as long as it took.
    const made: ModelResult = { output: redact(reply.output), usage, cached: false, latencyMs: 0 };
    if (cost !== undefined) made.cost = cost;
    if (usageUnknown) made.usageUnknown = true;
    // The calls are read by the same parser as a direct call's; the store redacts them as it writes.
    if (reply.toolCalls?.length) made.toolCalls = reply.toolCalls;
    await this.store.write(key, made);
    return undefined;
  }
}

function statusLine(s: BatchStatus): string {
  const counts = s.counts ? ` ${s.counts.completed + s.counts.failed}/${s.counts.total}` : '';
  return `batch ${s.id}: ${s.status}${counts}`;
}

/** An input file's bytes at most: under the API's 200 MB whether it means 10^6 or 2^20 bytes. */
const CHUNK_BYTES = Math.min(MAX_BATCH_BYTES, 190_000_000);

/** Lines split at the API's limits per batch: lines, and bytes of the input file (UTF-8, as uploaded). */
function* chunks<T extends BatchRequestLine>(lines: T[], url: BatchEndpoint): Generator<T[]> {
  let chunk: T[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(inputLine(url, line)) + 1;
    if (chunk.length > 0 && (chunk.length >= MAX_BATCH_LINES || bytes + size > CHUNK_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(line);
    bytes += size;
  }
  if (chunk.length) yield chunk;
}

/** Why a run cannot go through the Batch API, or undefined. */
export function batchProblem(config: Pick<SuiteConfig, 'cache' | 'agent'>, apiModels: readonly string[]): string | undefined {
  if (config.cache === false) return '--batch hands the batches\' results to the run through the call cache; it cannot run with --no-cache or cache: false';
  if (config.agent === 'runner') return '--batch sends each call as the direct path builds it; the Agents SDK runner (agent: runner) makes its own requests and cannot be batched';
  if (apiModels.length === 0) return '--batch needs a model behind an API: the answer model, the judge and every summarizer are offline, which runs locally';
  return undefined;
}
