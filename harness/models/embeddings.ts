// Embeddings through any OpenAI-compatible `POST /embeddings` endpoint, for the
// retrieval strategy's `scorer: embeddings`. Each text's vector is cached on disk
// like a model call (CacheStore): the key is a hash of the model id, where it is
// served and the text, never the API key, so a rerun makes no embedding requests.
import { createHash } from 'node:crypto';
import type { LimitFunction } from 'p-limit';
import type { Embedder, ServerCallOutcome } from '../../strategies/registry.js';
import { CacheStore, canonicalJson, type ModelStats } from './cache.js';
import type { OpenAIRunnerTarget } from './openai.js';
import { PermanentError, withRetry } from './retry.js';

export interface EmbedderOptions {
  /** The model spec as configured. */
  spec: string;
  /** The client, model name, retry policy and breaker of the spec's provider. */
  target: OpenAIRunnerTarget;
  /** What besides the id changes a vector (the public base URL), part of every key. */
  params: Record<string, unknown>;
  cacheDir: string | false;
  /** The run's concurrency limit: a request takes one slot, a cache read none. */
  limit: LimitFunction;
  stats: ModelStats;
}

/** The cache key of one text's vector; `embedding` keeps it apart from any model call's key. */
export function embeddingKey(modelId: string, params: Record<string, unknown>, text: string): string {
  return createHash('sha256')
    .update(canonicalJson({ embedding: modelId, params, input: text }))
    .digest('hex');
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/** The vectors of a reply, in the order of the texts sent; a reply of another shape is final (retrying will not change it). */
export function vectorsOf(reply: unknown, count: number): number[][] {
  const data = (reply as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw new PermanentError(`the embeddings reply holds ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`);
  }
  const vectors: (number[] | undefined)[] = Array.from({ length: count }, () => undefined);
  data.forEach((entry: { index?: unknown; embedding?: unknown }, i) => {
    const at = entry.index === undefined ? i : entry.index;
    if (!isVector(entry.embedding)) throw new PermanentError('the embeddings reply has an entry that is not a vector of numbers');
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= count) throw new PermanentError(`the embeddings reply has an entry whose index ${JSON.stringify(at)} is not one of the ${count} texts`);
    if (vectors[at] !== undefined) throw new PermanentError(`the embeddings reply gives text ${at} two vectors`);
    vectors[at] = entry.embedding;
  });
  // Dense, so every hole is seen (a sparse array's holes are skipped by some()).
  if (vectors.some((v) => v === undefined)) throw new PermanentError('the embeddings reply leaves a text without a vector');
  const dims = (vectors as number[][])[0].length;
  // Cosine similarity over vectors of other lengths compares their first dimensions only: no measure.
  if (vectors.some((v) => (v as number[]).length !== dims)) throw new PermanentError('the embeddings reply holds vectors of different lengths');
  // A vector of zeros has no direction: cosine similarity is undefined, and the text would silently drop out of retrieval.
  const zero = (vectors as number[][]).findIndex((v) => v.every((x) => x === 0));
  if (zero >= 0) throw new PermanentError(`the embeddings reply gives text ${zero} a vector of zeros (no direction to compare)`);
  return vectors as number[][];
}

/** A stored vector, or undefined (none, or an entry that does not read back as a vector). */
async function readVector(store: CacheStore, key: string, stats: ModelStats): Promise<number[] | undefined> {
  const { result, corrupt } = await store.read(key);
  if (corrupt) stats.corruptEntries++;
  if (!result) return undefined;
  try {
    const vector: unknown = JSON.parse(result.output);
    return isVector(vector) ? vector : undefined;
  } catch {
    return undefined;
  }
}

export function createEmbedder(opts: EmbedderOptions): Embedder {
  const { spec, target, params, limit, stats } = opts;
  const store = opts.cacheDir === false ? undefined : new CacheStore(opts.cacheDir);
  /** The length of this run's vectors, from the first it was given. */
  let dims: number | undefined;

  async function request(texts: string[]): Promise<ServerCallOutcome<number[][]>> {
    stats.callBegins();
    const started = performance.now();
    const outcome = await limit(() =>
      withRetry(async (signal) => {
        const client = await target.client();
        // `float` explicitly: the client would otherwise ask for base64, which not every compatible server speaks.
        const reply = await client.embeddings.create({ model: target.name, input: texts, encoding_format: 'float' }, { signal });
        return vectorsOf(reply, texts.length);
      }, target),
    );
    if (!outcome.ok) {
      stats.errors++;
      return { ok: false, error: outcome.fatal ? outcome.error : `${target.id} (embeddings): ${outcome.error}` };
    }
    stats.calls++;
    const latencyMs = performance.now() - started;
    if (store) {
      // A failed write costs only a future cache miss; the vectors themselves are good.
      await Promise.all(
        texts.map((text, i) =>
          store
            .write(embeddingKey(target.id, params, text), { output: JSON.stringify(outcome.value[i]), usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs })
            .catch(() => undefined),
        ),
      );
    }
    return { ok: true, value: outcome.value };
  }

  /**
   * Vectors of one model have one length; one of another length (a changed model behind the
   * name, a cache written by another) cannot be compared with the rest, so it is an error.
   */
  function oneLength(value: number[][]): ServerCallOutcome<number[][]> {
    dims ??= value[0]?.length;
    if (value.every((v) => v.length === dims)) return { ok: true, value };
    stats.errors++;
    return { ok: false, error: `${target.id} (embeddings): vectors of ${[...new Set(value.map((v) => v.length))].join(' and ')} dimensions, where this run's have ${dims}` };
  }

  return {
    spec,
    async embed(texts) {
      const vectors: (number[] | undefined)[] = store
        ? await Promise.all(texts.map((text) => readVector(store, embeddingKey(target.id, params, text), stats)))
        : texts.map(() => undefined);
      const hits = vectors.filter((v) => v !== undefined).length;
      stats.cacheHits += hits;
      // A text listed twice is sent once.
      const missing = [...new Set(texts.filter((_, i) => vectors[i] === undefined))];
      if (missing.length === 0) return oneLength(vectors as number[][]);
      const fetched = await request(missing);
      if (!fetched.ok) return fetched;
      const byText = new Map(missing.map((text, i) => [text, fetched.value[i]]));
      return oneLength(texts.map((text, i) => vectors[i] ?? (byText.get(text) as number[])));
    },
  };
}
