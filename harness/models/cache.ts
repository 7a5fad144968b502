// Content-addressed cache of model calls, plus in-flight deduplication.
// The key covers everything that changes an answer (model id, its params, the
// full request) and nothing secret: API keys never reach the key or the files.
// The key is a hash of the real request, so a transcript that quotes a secret
// still hits its entry; the files hold only the stored fields, redacted.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { thrownResult, tokenCount, type Model, type ModelRequest, type ModelResult } from '../../core/model.js';
import { processAlive } from '../../core/process.js';
import { isRecord } from '../../core/record.js';
import { redact } from '../../core/secrets.js';
import type { ToolCall, Usage } from '../../core/types.js';

/** JSON with object keys sorted and `undefined` fields dropped, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const inner = (value as Record<string, unknown>)[key];
      if (inner !== undefined) out[key] = sortKeys(inner);
    }
    return out;
  }
  return value;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The cache key of one call. A request's tools are part of it (the same question
 * with tools on offer may be answered by a call); an empty tool list is left out,
 * so a request without tools keeps the key it had before tools existed.
 */
export function cacheKey(modelId: string, params: Record<string, unknown>, request: ModelRequest): string {
  return sha256(canonicalJson({ model: modelId, params, request: withoutEmptyTools(request) }));
}

function withoutEmptyTools(request: ModelRequest): ModelRequest {
  if (request.tools === undefined || request.tools.length > 0) return request;
  const { tools: _none, ...rest } = request;
  return rest;
}

/**
 * The key of a call while it is in flight, when nothing is stored. It lives only as long as
 * the call, so unlike `cacheKey` it need not be canonical across runs, only equal for equal
 * requests: the request's fields are listed in a fixed order whatever order the caller gave
 * them in, and items are always built with one key order (core/items.ts, which the
 * strategies follow), so plain JSON text matches without sorting every item's keys per call.
 */
export function flightKey(modelId: string, params: Record<string, unknown>, request: ModelRequest): string {
  const { purpose, system, maxOutputTokens, temperature, responseFormat, input, tools, ...rest } = request;
  // `rest` keeps any field a caller adds beyond ModelRequest: requests that differ there stay apart.
  const offered = tools?.length ? tools : null;
  return JSON.stringify([modelId, params, purpose, system ?? null, maxOutputTokens ?? null, temperature ?? null, responseFormat ?? null, offered, input, rest]);
}

/** Counters a run reports (one object can be shared by every model of a run). */
export class ModelStats {
  /** Calls that reached the provider. */
  calls = 0;
  /** Calls answered from the cache files. */
  cacheHits = 0;
  /** Calls that joined an identical call already in flight. */
  dedupHits = 0;
  /** Calls whose final result carried an error. */
  errors = 0;
  /** Cache files found damaged, deleted and refetched. */
  corruptEntries = 0;

  private readonly beginListeners = new Set<() => void>();

  snapshot(): ModelStatsSnapshot {
    const { calls, cacheHits, dedupHits, errors, corruptEntries } = this;
    return { calls, cacheHits, dedupHits, errors, corruptEntries };
  }

  /**
   * Calls `listener` once, when the next call begins (its caller then waits on
   * a cache read or a request). Returns a function that forgets the listener.
   */
  onceCallBegins(listener: () => void): () => void {
    this.beginListeners.add(listener);
    return () => this.beginListeners.delete(listener);
  }

  /** A call began: tells, and forgets, every listener. */
  callBegins(): void {
    if (this.beginListeners.size === 0) return;
    const listeners = [...this.beginListeners];
    this.beginListeners.clear();
    for (const listener of listeners) listener();
  }
}

export interface ModelStatsSnapshot {
  calls: number;
  cacheHits: number;
  dedupHits: number;
  errors: number;
  corruptEntries: number;
}

interface CacheEntry {
  key: string;
  result: ModelResult;
  /** sha256 of the canonical JSON of `result`. */
  sha256: string;
}

/** The on-disk store: `<dir>/<key[0..2]>/<key>.json`, written atomically. */
export class CacheStore {
  constructor(readonly dir: string) {}

  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The stored result, or undefined. A damaged entry is deleted and reported as `corrupt`. */
  async read(key: string): Promise<{ result?: ModelResult; corrupt: boolean }> {
    const path = this.pathOf(key);
    let raw: string;
    try {
      raw = await readFile(path, 'utf8');
    } catch {
      return { corrupt: false };
    }
    const result = parseEntry(raw, key);
    if (result) return { result, corrupt: false };
    await unlink(path).catch(() => undefined);
    return { corrupt: true };
  }

  /** Deletes the entry of `key`, if there is one. */
  async remove(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch(() => undefined);
  }

  async write(key: string, result: ModelResult): Promise<void> {
    const path = this.pathOf(key);
    const stored = storedResult(result);
    const entry: CacheEntry = { key, result: stored, sha256: sha256(canonicalJson(stored)) };
    await mkdir(dirname(path), { recursive: true });
    await this.sweep(dirname(path));
    // Rename is atomic on one file system: a reader sees the old file or the whole new one.
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, JSON.stringify(entry), 'utf8');
      await rename(tmp, path);
    } catch (error) {
      await unlink(tmp).catch(() => undefined);
      throw error;
    }
  }

  private readonly swept = new Set<string>();

  /**
   * Removes temp files that writers killed mid-write left in a shard, once per
   * shard per process. Only files of processes that are gone: another run may
   * share this cache and be writing right now.
   */
  private async sweep(shard: string): Promise<void> {
    if (this.swept.has(shard)) return;
    this.swept.add(shard);
    const names = await readdir(shard).catch(() => [] as string[]);
    for (const name of names) {
      const pid = TEMP_NAME.exec(name)?.[1];
      if (pid && !processAlive(Number(pid))) await unlink(join(shard, name)).catch(() => undefined);
    }
  }
}

/** `<key>.json.<pid>.<random>.tmp`: a write in progress, or one a killed process left. */
const TEMP_NAME = /\.json\.(\d+)\.[0-9a-f]+\.tmp$/;


/**
 * Exactly what an entry keeps: the answer and its tool calls (redacted) and its
 * accounting. Fields a wrapped model adds beyond ModelResult (the runner's prepared
 * probe, the items it added) hold request text and are never stored; errors are
 * never stored at all. An answer without calls is stored as it was before calls
 * existed, so its entry's checksum is unchanged.
 */
function storedResult(result: ModelResult): ModelResult {
  const { output, usage, cost, latencyMs, toolCalls, usageUnknown } = result;
  const stored: ModelResult = { output: redact(output), usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }, cached: false, latencyMs };
  // Served again, a reply that reported no usage must not read as a measured 0.
  if (usageUnknown) stored.usageUnknown = true;
  if (usage.cachedTokens !== undefined) stored.usage.cachedTokens = usage.cachedTokens;
  if (cost !== undefined) stored.cost = cost;
  if (toolCalls?.length) stored.toolCalls = redactedCalls(toolCalls);
  return stored;
}

/** Calls with only their name and arguments, redacted: a model may write a key it saw into an argument. */
function redactedCalls(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((c) => ({ name: redact(c.name), arguments: redact(c.arguments) }));
}

/** Whether an entry's `toolCalls` is absent or a list of {name, arguments} strings. */
function validCalls(value: unknown): value is ToolCall[] | undefined {
  if (value === undefined) return true;
  return Array.isArray(value) && value.every((c) => isRecord(c) && typeof c.name === 'string' && typeof c.arguments === 'string');
}

function parseEntry(raw: string, key: string): ModelResult | undefined {
  let entry: Partial<CacheEntry>;
  try {
    entry = JSON.parse(raw) as Partial<CacheEntry>;
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null || entry.key !== key) return undefined;
  if (typeof entry.result !== 'object' || entry.result === null) return undefined;
  if (entry.sha256 !== sha256(canonicalJson(entry.result))) return undefined;
  if (typeof entry.result.output !== 'string' || entry.result.error !== undefined) return undefined;
  if (!validCalls(entry.result.toolCalls)) return undefined;
  // Counts that are not whole numbers (a server's "12") would be added up as text.
  const usage = entry.result.usage as Partial<Usage> | undefined;
  if (tokenCount(usage?.inputTokens) === undefined || tokenCount(usage?.outputTokens) === undefined) return undefined;
  // An entry written before a secret family was known may still hold one; it leaves redacted.
  const result: ModelResult = { ...entry.result, output: redact(entry.result.output) };
  if (entry.result.toolCalls) result.toolCalls = redactedCalls(entry.result.toolCalls);
  return result;
}

export interface CachedModelOptions {
  /** Cache directory, or false to keep only in-flight deduplication. */
  dir: string | false;
  stats?: ModelStats;
  /** Decides every call that is not in flight already, in place of the cache read and the provider (a `--batch` run). Needs `dir`. */
  router?: CallRouter;
}

/** A call as a router sees it: its cache key, the request, the model behind the cache, and the cache. */
export interface RoutedCall {
  key: string;
  request: ModelRequest;
  model: Model;
  store: CacheStore;
}

/**
 * Answers calls in place of the cache read and the provider: a `--batch` run
 * (harness/run/batch.ts) serves its batches' results and collects the calls to
 * submit. A result with `cached: false` counts as a call the run made.
 */
export interface CallRouter {
  route(call: RoutedCall): Promise<ModelResult>;
  /** Whether it must see each caller, even of a call identical to one in flight (which is otherwise shared). */
  readonly seesEveryCall: boolean;
}

/**
 * Wraps a model with the disk cache and in-flight deduplication. Hits come back
 * with `cached: true` and the usage, cost and latency of the call that made them
 * (reports sum cost over uncached results for the money spent by a run). A call
 * that joined an identical one in flight is also `cached: true`: it made no call.
 * Errors are never stored.
 */
export class CachedModel implements Model {
  readonly id: string;
  readonly params: Record<string, unknown>;
  readonly stats: ModelStats;
  private readonly store: CacheStore | undefined;
  private readonly router: CallRouter | undefined;
  private readonly pending = new Map<string, Promise<ModelResult>>();

  constructor(
    readonly inner: Model,
    opts: CachedModelOptions,
  ) {
    this.id = inner.id;
    this.params = inner.params;
    this.stats = opts.stats ?? new ModelStats();
    this.store = opts.dir === false ? undefined : new CacheStore(opts.dir);
    this.router = opts.router;
  }

  complete(request: ModelRequest): Promise<ModelResult> {
    return this.completeSample(request, 0);
  }

  /**
   * A view of this model whose calls are cached apart per `sample`, so repeating a
   * probe N times draws N answers instead of one answer N times. Sample 0 is `this`.
   */
  sample(sample: number): Model {
    if (sample === 0) return this;
    return {
      id: this.id,
      params: { ...this.params, sample },
      complete: (request) => this.completeSample(request, sample),
      forget: (request) => this.forgetSample(request, sample),
    };
  }

  forget(request: ModelRequest): Promise<void> {
    return this.forgetSample(request, 0);
  }

  private async forgetSample(request: ModelRequest, sample: number): Promise<void> {
    if (!this.store) return;
    await this.store.remove(cacheKey(this.id, sample === 0 ? this.params : { ...this.params, sample }, request));
  }

  private completeSample(request: ModelRequest, sample: number): Promise<ModelResult> {
    this.stats.callBegins();
    const params = sample === 0 ? this.params : { ...this.params, sample };
    // Without a store the key only finds identical calls in flight (`flightKey`); hashing
    // and sorting every request body would cost more than the lookup.
    const key = this.store ? cacheKey(this.id, params, request) : flightKey(this.id, params, request);
    // A router that follows each caller (a --batch round holds back every call after an outstanding one) sees them all.
    if (this.router?.seesEveryCall && this.store) return this.routed(key, request, this.store, this.router);
    const inFlight = this.pending.get(key);
    if (inFlight) {
      this.stats.dedupHits++;
      return inFlight.then((result) => ({ ...result, cached: true }));
    }
    const call = this.lookupOrCall(key, request).finally(() => this.pending.delete(key));
    this.pending.set(key, call);
    return call;
  }

  private async routed(key: string, request: ModelRequest, store: CacheStore, router: CallRouter): Promise<ModelResult> {
    const result = await router.route({ key, request, model: this.inner, store });
    if (result.error !== undefined) this.stats.errors++;
    else if (result.cached) this.stats.cacheHits++;
    else this.stats.calls++;
    return result;
  }

  private async lookupOrCall(key: string, request: ModelRequest): Promise<ModelResult> {
    if (this.router && this.store) return this.routed(key, request, this.store, this.router);
    if (this.store) {
      const { result, corrupt } = await this.store.read(key);
      if (corrupt) this.stats.corruptEntries++;
      if (result) {
        this.stats.cacheHits++;
        return { ...result, cached: true };
      }
    }
    this.stats.calls++;
    const raw = await this.inner.complete(request).catch((error: unknown) => thrownResult(error));
    // A model may echo a key it saw in a transcript; nothing key-like is stored or passed on.
    const result: ModelResult = { ...raw, output: redact(raw.output) };
    if (raw.toolCalls) result.toolCalls = redactedCalls(raw.toolCalls);
    if (raw.error !== undefined) result.error = redact(raw.error);
    if (result.error !== undefined) {
      this.stats.errors++;
      return result;
    }
    // A failed write costs only a future cache miss; the answer itself is good.
    if (this.store) await this.store.write(key, { ...result, cached: false }).catch(() => undefined);
    return result;
  }
}
