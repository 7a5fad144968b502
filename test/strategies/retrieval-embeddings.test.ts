// Retrieval with `scorer: embeddings`: dropped turns are scored by the cosine
// similarity of their vectors with the newest user message's, fetched from a
// local OpenAI-compatible server (POST /v1/embeddings, deterministic
// bag-of-words vectors with synonyms) and cached per text, so a rerun makes no
// embedding requests. A failed call is a failed summary record, an error of the
// run; an offline or unknown embedding model is refused at the option.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.js';
import { assistantMessage, itemText, userMessage } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { parseConfig, type SuiteConfig } from '../../harness/config.js';
import { buildGraders } from '../../harness/run/grading.js';
import { runSuite } from '../../harness/run/run.js';
import { apiError, embeddingsHandler, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';
import type { Embedder } from '../../strategies/registry.js';
import { EMBEDDING_SHADOW, RECALL_END, RECALL_HEADER, RetrievalStrategy } from '../../strategies/retrieval.js';
import { tinyTranscript } from '../helpers/cli.js';
import { vectorsOf } from '../../harness/models/embeddings.js';

/** What the fake's "model" knows: an ID at a border is a passport. */
const SYNONYMS = { id: 'passport', border: 'passport', identity: 'passport' };

function turn(user: string, assistant: string): AgentInputItem[] {
  return [userMessage(user), assistantMessage(assistant)];
}

const PASSPORT = turn('My passport number is X1234567, expiring in 2031.', 'Noted your passport number.');
const HIKING = turn('I love hiking in the Alps every summer.', 'The Alps are lovely for hiking.');
const RAMEN = turn('My favourite dinner is tonkotsu ramen.', 'Ramen it is.');
// Shares no word with PASSPORT: BM25 finds nothing, embeddings find it through the synonyms.
const QUESTION = turn('Which ID should I bring to the border?', 'Let me check.');

const counter = new TokenCounter();

function configText(baseURL: string, cache: string | false, retrieval = 'scorer: embeddings\n    embedding_model: local:embed-small'): string {
  return `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
cache: ${cache === false ? 'false' : JSON.stringify(cache)}
providers:
  local: { base_url: "${baseURL}", max_attempts: 2, retry_base_delay_ms: 1 }
strategies:
  - id: recall
    use: retrieval
    keep_last_n_turns: 1
    max_recall_tokens: 400
    ${retrieval}
`;
}

/** A config file with one transcript beside it, read as the CLI reads it. */
function suite(baseURL: string, cache: string | false): SuiteConfig {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-embed-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 't1.yaml'), tinyTranscript('t1'));
  const file = join(dir, 'memeval.config.yaml');
  writeFileSync(file, configText(baseURL, cache));
  return parseConfig(readFileSync(file, 'utf8'), file);
}

const embeddingRequests = (server: FakeServer) => server.requests.filter((r) => r.path === '/v1/embeddings');

function strategyWith(embedder: Embedder | undefined): RetrievalStrategy {
  return new RetrievalStrategy({ keepLastTurns: 1, maxRecallTokens: 1000 }, { counter }, undefined, embedder);
}

describe('retrieval by embeddings', () => {
  let server: FakeServer;

  beforeAll(async () => {
    server = await startFakeOpenAI(embeddingsHandler(SYNONYMS));
  });

  afterAll(() => server?.close());

  it('recalls the turn whose embedding matches the newest message, where BM25 finds no shared word', async () => {
    const embedder = buildGraders(suite(server.baseURL, false)).embedder('local:embed-small');
    const history = [...PASSPORT, ...HIKING, ...RAMEN, ...QUESTION];
    const byEmbeddings = strategyWith(embedder);
    await byEmbeddings.addItems(history);
    expect((await byEmbeddings.getItems()).map(itemText)).toEqual([RECALL_HEADER, ...PASSPORT.map(itemText), RECALL_END, ...QUESTION.map(itemText)]);
    expect(byEmbeddings.events).toEqual([]);

    const byBm25 = strategyWith(undefined);
    await byBm25.addItems(history);
    expect((await byBm25.getItems()).map(itemText)).toEqual(QUESTION.map(itemText));
  });

  it('embeds each dropped turn and the newest user message once, as float vectors of the configured model', async () => {
    const before = embeddingRequests(server).length;
    const s = strategyWith(buildGraders(suite(server.baseURL, false)).embedder('local:embed-small'));
    // One turn at a time, as a replay adds them: each add embeds what just left the kept window.
    for (const t of [PASSPORT, HIKING, RAMEN, QUESTION]) {
      await s.addItems(t.slice(0, 1));
      await s.getItems();
      await s.addItems(t.slice(1));
    }
    const sent = embeddingRequests(server).slice(before);
    expect(sent.every((r) => r.method === 'POST' && r.body.model === 'embed-small' && r.body.encoding_format === 'float')).toBe(true);
    const texts = sent.flatMap((r) => r.body.input as string[]);
    expect(new Set(texts).size).toBe(texts.length);
    expect(texts).toContain(`${itemText(PASSPORT[0])}\n${itemText(PASSPORT[1])}`);
    expect(texts).toContain(itemText(QUESTION[0]));
    expect((await s.getItems()).map(itemText)).toContain(itemText(PASSPORT[0]));
  });

  it('gives the same views on every run (the vectors and ties are deterministic)', async () => {
    const views: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const s = strategyWith(buildGraders(suite(server.baseURL, false)).embedder('local:embed-small'));
      await s.addItems([...HIKING, ...PASSPORT, ...RAMEN, ...turn('Passport or ID at the border?', 'Either.')]);
      views.push((await s.getItems()).map(itemText));
    }
    expect(views[1]).toEqual(views[0]);
  });
});

describe('retrieval by embeddings in a run', () => {
  let server: FakeServer;

  beforeAll(async () => {
    server = await startFakeOpenAI(embeddingsHandler(SYNONYMS));
  });

  afterAll(() => server?.close());

  it('caches every vector: a second run with the same cache makes no embedding request and gives the same records', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'memeval-embed-cache-'));
    const first = await runSuite({ config: suite(server.baseURL, cache), log: () => undefined });
    const made = embeddingRequests(server).length;
    expect(made).toBeGreaterThan(0);
    expect(first.run.info.status).toBe('complete');
    expect(first.run.info.calls?.made).toBe(made);

    const second = await runSuite({ config: suite(server.baseURL, cache), log: () => undefined });
    expect(embeddingRequests(server)).toHaveLength(made);
    expect(second.run.info.status).toBe('complete');
    expect(second.run.info.calls?.made).toBe(0);
    expect(second.run.info.calls?.cacheHits).toBeGreaterThan(0);
    const shape = (turns: typeof first.run.turns) => turns.map((t) => [t.turn, t.contextTokens, t.items]);
    expect(shape(second.run.turns)).toEqual(shape(first.run.turns));
    expect(second.run.summaries).toEqual([]);
  });

  it('reports a failed embedding call as a failed summary record, an error of the run', async () => {
    const failing = await startFakeOpenAI((req) => apiError(400, `no embeddings model at ${req.path}`));
    try {
      const outcome = await runSuite({ config: suite(failing.baseURL, false), log: () => undefined });
      const failed = outcome.run.summaries.filter((s) => s.strategy === 'recall');
      expect(failed.length).toBeGreaterThan(0);
      for (const s of failed) {
        expect(s.error).toMatch(/local:embed-small \(embeddings\): HTTP 400: no embeddings model at \/v1\/embeddings/);
        expect(s.summarizer).toBe('local:embed-small');
      }
      // As with a summarizer's failure: over the max_errors budget (0), the run is incomplete and resumable.
      expect(outcome.run.info.status).toBe('incomplete');
      expect(outcome.run.info.failure).toContain('max_errors');
      expect(outcome.run.info.errors?.find((e) => e.stage === 'summarizer')?.errors).toBe(failed.length);
    } finally {
      await failing.close();
    }
  });

  it('a failed call leaves the turns unrecalled and says so in the strategy events', async () => {
    const failing = await startFakeOpenAI(() => apiError(400, 'bad model'));
    try {
      const s = strategyWith(buildGraders(suite(failing.baseURL, false)).embedder('local:embed-small'));
      await s.addItems([...PASSPORT, ...QUESTION]);
      expect((await s.getItems()).map(itemText)).toEqual(QUESTION.map(itemText));
      expect(s.events).toHaveLength(1);
      expect(s.events[0].error).toContain('HTTP 400: bad model');
      expect(s.events[0].output.userShadow).toBe(EMBEDDING_SHADOW);
    } finally {
      await failing.close();
    }
  });
});

describe('retrieval by embeddings: a server without the endpoint', () => {
  it('a 404 trips the breaker with advice about embeddings, not about api: chat', async () => {
    const failing = await startFakeOpenAI(() => apiError(404, 'Not Found'));
    try {
      const embedder = buildGraders(suite(failing.baseURL, false)).embedder('local:embed-small');
      let last = await embedder.embed(['one']);
      for (let i = 0; i < 5 && !last.ok && !last.error.includes('was not found'); i++) last = await embedder.embed(['one']);
      expect(last.ok).toBe(false);
      const error = last.ok ? '' : last.error;
      expect(error).toContain('model "embed-small" was not found at');
      expect(error).toContain('The server must also offer embeddings (POST /embeddings).');
      expect(error).not.toContain('api: chat');
    } finally {
      await failing.close();
    }
  });
});

describe('retrieval by embeddings: bad config', () => {
  function problems(retrieval: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-embed-bad-'));
    const file = join(dir, 'memeval.config.yaml');
    const text = configText('http://127.0.0.1:9/v1', false, retrieval);
    writeFileSync(file, text);
    try {
      parseConfig(text, file);
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  }

  it('refuses an offline embedding model at the option', () => {
    const message = problems('scorer: embeddings\n    embedding_model: offline');
    expect(message).toMatch(/memeval\.config\.yaml:14:22: "embedding_model" "offline" in strategy "recall" cannot embed: embeddings need a model behind an OpenAI-compatible/);
  });

  it('refuses a provider that is not configured at the option', () => {
    const message = problems('scorer: embeddings\n    embedding_model: elsewhere:embed');
    expect(message).toMatch(/memeval\.config\.yaml:14:22: "embedding_model" "elsewhere:embed" .*uses provider "elsewhere", which is not defined/);
  });

  it('needs embedding_model with scorer: embeddings, and refuses it with bm25', () => {
    expect(problems('scorer: embeddings')).toContain('scorer: embeddings needs option embedding_model');
    expect(problems('embedding_model: local:embed-small')).toContain('embedding_model is only used with scorer: embeddings');
  });

  it('refuses an unknown scorer at the option', () => {
    expect(problems('scorer: bm52')).toMatch(/memeval\.config\.yaml:13:13: "scorer" in strategy "recall" must be one of bm25, embeddings, not "bm52" \(did you mean "bm25"\?\)/);
  });
});

describe('an embeddings reply that does not give each text one vector of one length', () => {
  const reply = (data: unknown[]) => ({ object: 'list', data, model: 'e' });
  const v = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('is refused, never read as vectors: holes, a text given two vectors, a bad index, different lengths', () => {
    expect(() => vectorsOf(reply([{ index: 0, embedding: v(4) }, { index: 0, embedding: v(4) }]), 2)).toThrow(/gives text 0 two vectors/);
    expect(() => vectorsOf(reply([{ index: 0, embedding: v(4) }, { index: 1.5, embedding: v(4) }]), 2)).toThrow(/index 1\.5 is not one of the 2 texts/);
    expect(() => vectorsOf(reply([{ index: 0, embedding: v(4) }, { index: 1, embedding: v(3) }]), 2)).toThrow(/vectors of different lengths/);
    expect(() => vectorsOf(reply([{ index: 0, embedding: v(3) }, { index: 1, embedding: [0, 0, 0] }]), 2)).toThrow(/gives text 1 a vector of zeros/);
    expect(vectorsOf(reply([{ index: 1, embedding: v(2) }, { index: 0, embedding: [9, 9] }]), 2)).toEqual([[9, 9], [1, 2]]);
  });

  it("is an error of the run when a later reply's vectors have another length than the first's", async () => {
    let dims = 4;
    const server = await startFakeOpenAI((req) => ({ json: reply(((req.body.input as string[]) ?? []).map((_, index) => ({ index, embedding: v(dims) }))) }));
    try {
      const embedder = buildGraders(suite(server.baseURL, false)).embedder('local:embed-small');
      expect((await embedder.embed(['one'])).ok).toBe(true);
      dims = 3;
      const later = await embedder.embed(['two']);
      expect(later.ok).toBe(false);
      expect(!later.ok && later.error).toMatch(/vectors of 3 dimensions, where this run's have 4/);
    } finally {
      await server.close();
    }
  });
});
