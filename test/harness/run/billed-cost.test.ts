// Cost as billed, checked by hand on a 6-turn transcript: every turn is the
// same number of tokens, so each request's length, the prefix it shares with
// the turn before, what OpenAI's prompt cache serves of it (from 1,024 tokens
// on, in 128-token steps), the cache breaks and the cost at cached-input
// prices can be worked out on paper and compared with summary.csv.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../harness/config.js';
import { runSuite, type RunOutcome } from '../../../harness/run/run.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { parseCsv } from '../../helpers/cli.js';
import { TokenCounter } from '../../../core/tokens.js';
import { turnItems } from '../../../core/items.js';
import type { Turn } from '../../../core/types.js';

const KEY_ENV = 'BILLED_COST_TEST_KEY';
// 200 distinct words: each turn's user message is 408 tokens and its reply 8.
const FILLER = Array.from({ length: 200 }, (_, i) => `note${i}`).join(' ');
const userText = (n: number) => `Turn ${n}: ${FILLER}`;

const TRANSCRIPT = `id: six
system: Be brief.
turns:
${[1, 2, 3, 4, 5, 6].map((n) => `  - user: "${userText(n)}"\n    assistant: "Ack ${n}."`).join('\n')}
facts:
  - { id: first, text: note0, turn: 1 }
probes:
  - { id: at-4, after_turn: 4, question: Which note came first?, answer: note0, must_include: [note0], facts: [first] }
  - { id: at-6, after_turn: 6, question: Which note came first?, answer: note0, must_include: [note0], facts: [first] }
`;

// Every answer reports 3,000 input tokens, 20 output tokens, 1,024 of them served from the cache.
const USAGE = { input: 3000, output: 20, cached: 1024 };

describe('cost as billed on a 6-turn transcript', () => {
  let server: FakeServer;
  let dir: string;
  let outcome: RunOutcome;
  let rows: Map<string, Record<string, string>>;

  beforeAll(async () => {
    process.env[KEY_ENV] = 'sk-billed-cost-test-not-a-real-key';
    server = await startFakeOpenAI(() => ({ json: responsesBody('note0', USAGE) }));
    dir = mkdtempSync(join(tmpdir(), 'memeval-billed-'));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'six.yaml'), TRANSCRIPT);
    const file = join(dir, 'memeval.config.yaml');
    writeFileSync(
      file,
      `datasets: [data/*.yaml]
out: runs
model: local:m
judge: offline
cache: false
prices:
  local:m: { input: 0.4, output: 1.6, cached_input: 0.1 }
providers:
  local: { base_url: "${server.baseURL}", api_key_env: ${KEY_ENV}, prompt_cache: { min_tokens: 1024, step: 128 } }
strategies:
  - { id: full, use: full-history }
  - { id: trim-3, use: trimming, max_turns: 3 }
`,
    );
    outcome = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: () => undefined });
    const [header, ...body] = parseCsv(readFileSync(join(outcome.dir, 'summary.csv'), 'utf8'));
    rows = new Map(body.map((r) => [r[header.indexOf('strategy')], Object.fromEntries(header.map((h, i) => [h, r[i]]))]));
  });

  afterAll(async () => {
    await server.close();
    delete process.env[KEY_ENV];
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the token counts the arithmetic below assumes', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    // Instructions "Be brief." with framing and reply priming: 10 tokens.
    expect(counter.request('Be brief.', [])).toBe(10);
    for (let n = 1; n <= 6; n++) {
      const turn: Turn = { kind: 'message', user: userText(n), assistant: `Ack ${n}.`, toolCalls: [] };
      expect(turnItems(turn, n).map((item) => counter.item(item))).toEqual([408, 8]);
    }
    expect(outcome.run.info.status).toBe('complete');
  });

  it('full history: the cache serves the previous request in 128-token steps from 1,024 on, and never breaks', () => {
    // Request at turn n: 10 + 416·n = 426, 842, 1258, 1674, 2090, 2506; each starts with the one before.
    // Shared with the previous request, and cacheable = 0 below 1024, else 1024 + floor((shared − 1024)/128)·128:
    //   turn 1: no previous request → 0
    //   turn 2: 426 → 0;  turn 3: 842 → 0
    //   turn 4: 1258 → 1024 + floor(234/128)·128 = 1152
    //   turn 5: 1674 → 1024 + floor(650/128)·128 = 1664
    //   turn 6: 2090 → 1024 + floor(1066/128)·128 = 2048
    const full = rows.get('full')!;
    expect(outcome.run.turns.filter((t) => t.strategy === 'full').map((t) => t.cacheableTokens)).toEqual([0, 0, 0, 1152, 1664, 2048]);
    expect(Number(full.cacheable_input_tokens)).toBe(1152 + 1664 + 2048); // 4864
    // Of 6·10 + 416·(1+2+3+4+5+6) = 8796 context tokens.
    expect(Number(full.cacheable_share)).toBeCloseTo(4864 / 8796, 10);
    expect(Number(full.cache_breaks)).toBe(0);
  });

  it('trimming to 3 turns: each turn from 4 on drops the first item, so nothing is served and the cache breaks', () => {
    // Requests 426, 842, 1258, then 1258 each; from turn 4 the first item differs, so only the
    // 10 tokens of instructions are shared → 0 cacheable, below the 1152 turn 3's request left cached.
    // Turns 5 and 6 alike (the previous request, 1258 tokens, left 1152 cached each time).
    const trim = rows.get('trim-3')!;
    expect(outcome.run.turns.filter((t) => t.strategy === 'trim-3').map((t) => t.cacheBreak)).toEqual([false, false, false, true, true, true]);
    expect(Number(trim.cacheable_input_tokens)).toBe(0);
    expect(Number(trim.cache_breaks)).toBe(3);
  });

  it('prices the cacheable tokens at the cached-input price beside the nominal cost', () => {
    // Nominal, per answer: (3000·0.4 + 20·1.6) / 1M = 1232e-6; two answers per strategy.
    // full, at turn 4 (1152 cacheable): ((3000 − 1152)·0.4 + 1152·0.1 + 32) / 1M = (739.2 + 115.2 + 32) / 1M = 886.4e-6
    // full, at turn 6 (2048 cacheable): ((3000 − 2048)·0.4 + 2048·0.1 + 32) / 1M = (380.8 + 204.8 + 32) / 1M = 617.6e-6
    const full = rows.get('full')!;
    const trim = rows.get('trim-3')!;
    expect(Number(full.cost)).toBeCloseTo(2 * 1232e-6, 12);
    expect(Number(full.cost_cached)).toBeCloseTo(886.4e-6 + 617.6e-6, 12); // 1504e-6
    // trim-3 has nothing cacheable: billed as nominal.
    expect(Number(trim.cost)).toBeCloseTo(2 * 1232e-6, 12);
    expect(Number(trim.cost_cached)).toBeCloseTo(2 * 1232e-6, 12);
    // What the server reported as cached, recorded beside the estimate: 1024 per answer.
    expect(Number(full.api_cached_tokens)).toBe(2048);
    expect(outcome.run.probes.map((p) => p.usage?.cachedTokens)).toEqual([1024, 1024, 1024, 1024]);
  });

  it('reports turn latency from the measured calls', () => {
    // No summarizer here: a turn's latency is its answer's, so p50 and p95 are of the answers' latencies.
    const full = rows.get('full')!;
    const latencies = outcome.run.probes.filter((p) => p.strategy === 'full').map((p) => p.latencyMs!).sort((a, b) => a - b);
    expect(Number(full.turn_latency_p50_ms)).toBe(latencies[0]);
    expect(Number(full.turn_latency_p95_ms)).toBe(latencies[1]);
  });
});
