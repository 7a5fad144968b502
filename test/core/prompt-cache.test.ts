import { describe, expect, it } from 'vitest';
import { OPENAI_PROMPT_CACHE, cacheStanding, cacheableOf } from '../../core/prompt-cache.js';
import { cachedCostOf, discountedCost, promptCacheFor } from '../../harness/models/prices.js';

describe('prompt-cache rule (OpenAI: from 1,024 tokens, in 128-token steps)', () => {
  it('serves nothing below the minimum and whole steps above it', () => {
    expect(cacheableOf(0, OPENAI_PROMPT_CACHE)).toBe(0);
    expect(cacheableOf(1023, OPENAI_PROMPT_CACHE)).toBe(0);
    expect(cacheableOf(1024, OPENAI_PROMPT_CACHE)).toBe(1024);
    expect(cacheableOf(1151, OPENAI_PROMPT_CACHE)).toBe(1024); // 1024 + floor(127/128)·128
    expect(cacheableOf(1152, OPENAI_PROMPT_CACHE)).toBe(1152); // 1024 + 1·128
    expect(cacheableOf(2090, OPENAI_PROMPT_CACHE)).toBe(2048); // 1024 + floor(1066/128)=8 → 1024 + 1024
  });

  it('follows a configured rule, and none at all for false', () => {
    expect(cacheableOf(700, { min_tokens: 512, step: 64 })).toBe(640); // 512 + floor(188/64)=2 → 512 + 128
    expect(cacheableOf(5000, false)).toBe(0);
  });

  it('a first request has nothing cached; growing by appending never breaks; dropping what was cached does', () => {
    expect(cacheStanding(10, undefined, OPENAI_PROMPT_CACHE)).toEqual({ cacheableTokens: 0, cacheBreak: false });
    expect(cacheStanding(1258, 1258, OPENAI_PROMPT_CACHE)).toEqual({ cacheableTokens: 1152, cacheBreak: false });
    // The previous request (1,258 tokens) left 1,152 cached; sharing 10 of them uses none.
    expect(cacheStanding(10, 1258, OPENAI_PROMPT_CACHE)).toEqual({ cacheableTokens: 0, cacheBreak: true });
    // Sharing 1,160 of 1,258: the cache still serves its whole 1,152.
    expect(cacheStanding(1160, 1258, OPENAI_PROMPT_CACHE)).toEqual({ cacheableTokens: 1152, cacheBreak: false });
    // A previous request too short to be cached cannot be broken.
    expect(cacheStanding(10, 842, OPENAI_PROMPT_CACHE)).toEqual({ cacheableTokens: 0, cacheBreak: false });
  });

  it('is set per provider, OpenAI\'s by default', () => {
    const providers = { local: { prompt_cache: false as const }, other: { prompt_cache: { min_tokens: 256, step: 256 } } };
    expect(promptCacheFor('offline', providers)).toEqual(OPENAI_PROMPT_CACHE);
    expect(promptCacheFor('openai:gpt-4.1-mini', providers)).toEqual(OPENAI_PROMPT_CACHE);
    expect(promptCacheFor('local:llama3', providers)).toBe(false);
    expect(promptCacheFor('other:m', providers)).toEqual({ min_tokens: 256, step: 256 });
  });
});

describe('cost with cached-input prices', () => {
  const price = { input: 0.4, output: 1.6, cached_input: 0.1 };
  const usage = { inputTokens: 3000, outputTokens: 20 };

  it('bills the cacheable tokens at the cached-input price', () => {
    // (3000 − 1152)·0.4 + 1152·0.1 + 20·1.6 = 739.2 + 115.2 + 32 = 886.4 per 1M
    expect(cachedCostOf(usage, price, 1152)).toBeCloseTo(886.4e-6, 12);
    // Never more cached tokens than the call's input: 3000·0.1 + 32 = 332
    expect(cachedCostOf(usage, price, 5000)).toBeCloseTo(332e-6, 12);
    // No cached-input price: the nominal 3000·0.4 + 32 = 1232
    expect(cachedCostOf(usage, { input: 0.4, output: 1.6 }, 1152)).toBeCloseTo(1232e-6, 12);
  });

  it('keeps a discount the recorded cost already has, and a cost without a price as it is', () => {
    // A batch's half price: 616 nominal → 443.2 with 1,152 cached.
    expect(discountedCost(616e-6, usage, price, 1152)).toBeCloseTo(443.2e-6, 12);
    expect(discountedCost(0, usage, undefined, 1152)).toBe(0);
    expect(discountedCost(undefined, usage, price, 1152)).toBeUndefined();
  });
});
