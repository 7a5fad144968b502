// How a --batch run answers each call (BatchRun.route): results of its own
// batches count as made once, calls still out or built on an outstanding
// result are held back, and nothing unanswered ever passes as an answer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userMessage } from '../../../core/items.js';
import type { ModelRequest } from '../../../core/model.js';
import { CacheStore } from '../../../harness/models/cache.js';
import { OpenAIModel } from '../../../harness/models/openai.js';
import { BATCHES_FILE, BATCH_PRICE_FACTOR, BatchRun } from '../../../harness/run/batch.js';

const model = new OpenAIModel({ name: 'm', provider: 'local', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k' });
const ask = (text: string): ModelRequest => ({ input: [userMessage(text)], purpose: 'answer' });

function setUp(lines: object[] = []): { run: BatchRun; store: CacheStore; dir: string } {
  const cache = mkdtempSync(join(tmpdir(), 'memeval-router-cache-'));
  const dir = mkdtempSync(join(tmpdir(), 'memeval-router-run-'));
  if (lines.length) writeFileSync(join(dir, BATCHES_FILE), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const run = new BatchRun(cache, {}, () => undefined);
  run.open(dir);
  return { run, store: new CacheStore(cache), dir };
}

describe('BatchRun.route', () => {
  it('counts a result of its own batches as made once; asked again, it is a cache hit', async () => {
    const { run, store } = setUp([
      { type: 'submitted', batch: 'b1', model: 'local:m', endpoint: '/v1/responses', keys: ['k1'] },
      { type: 'done', batch: 'b1', status: 'completed', ok: ['k1'], failed: {} },
    ]);
    await store.write('k1', { output: 'blue', usage: { inputTokens: 3, outputTokens: 1 }, cost: 0.5, cached: false, latencyMs: 0 });
    await store.write('k0', { output: 'old', usage: { inputTokens: 3, outputTokens: 1 }, cached: false, latencyMs: 0 });
    run.endRounds();
    const call = (key: string) => run.route({ key, request: ask('q'), model, store });
    // At batch prices; the cache keeps the list price for other runs.
    expect(await call('k1')).toMatchObject({ output: 'blue', cached: false, cost: 0.5 * BATCH_PRICE_FACTOR });
    expect(await call('k1')).toMatchObject({ output: 'blue', cached: true, cost: 0.5 * BATCH_PRICE_FACTOR });
    expect((await store.read('k1')).result?.cost).toBe(0.5);
    // An earlier run's result is a cache hit, as always.
    expect(await call('k0')).toMatchObject({ output: 'old', cached: true });
    // Unanswered when the run is made: an error, never an empty answer.
    const missing = await call('k9');
    expect(missing.error).toMatch(/unanswered/);
  });

  it('holds back calls still out and calls built on an outstanding result; collects the rest', async () => {
    const { run, store } = setUp([{ type: 'submitted', batch: 'b1', model: 'local:m', endpoint: '/v1/responses', keys: ['out'] }]);
    const pending = await run.route({ key: 'out', request: ask('q'), model, store });
    expect(pending.error).toBeUndefined();

    const other = setUp();
    const downstream = await other.run.route({ key: 'next', request: ask(`Summary so far: ${pending.output}`), model, store: other.store });
    expect(downstream.output).toBe(pending.output);
    // Its input is not known yet: nothing to submit.
    expect(other.run.outstanding).toBe(false);
    await other.run.route({ key: 'new', request: ask('a question'), model, store: other.store });
    expect(other.run.outstanding).toBe(true);
  });

  it('submits again a line the batch of an earlier process failed (--resume re-attempts errors)', async () => {
    const { run, store } = setUp([
      { type: 'submitted', batch: 'b1', model: 'local:m', endpoint: '/v1/responses', keys: ['bad'] },
      { type: 'done', batch: 'b1', status: 'completed', ok: [], failed: { bad: 'local:m: batch b1: 500: the server had an error' } },
    ]);
    // Read back from an earlier process: a resumed run submits it again rather than reporting the old error.
    const collected = await run.route({ key: 'bad', request: ask('q'), model, store });
    expect(collected.error).toBeUndefined();
    expect(run.outstanding).toBe(true);
  });
});
