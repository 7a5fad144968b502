// What a provider's prompt cache can serve of a request, from the prefix it
// shares with the request before it. OpenAI's documented rule: prompts of
// 1,024 tokens or more are cached, and a hit covers the longest cached prefix
// in 128-token increments from 1,024 on. Other providers set their own rule
// (or none) in the config's `providers:` entries.

/** A provider's prompt-cache rule: no hit below `min_tokens`, then hits grow in `step`-token increments. */
export interface PromptCacheRule {
  min_tokens: number;
  step: number;
}

/** OpenAI's rule, the default for every provider a config does not say otherwise for. */
export const OPENAI_PROMPT_CACHE: PromptCacheRule = { min_tokens: 1024, step: 128 };

/** Tokens of a `shared`-token prefix the cache can serve: 0 below the minimum, else the minimum plus whole steps. */
export function cacheableOf(shared: number, rule: PromptCacheRule | false): number {
  if (!rule || shared < rule.min_tokens) return 0;
  return rule.min_tokens + Math.floor((shared - rule.min_tokens) / rule.step) * rule.step;
}

/** One request's standing against the request before it. */
export interface CacheStanding {
  /** Tokens the cache can serve (cacheableOf the shared prefix). */
  cacheableTokens: number;
  /**
   * The request no longer starts with all the previous request had cached:
   * earlier content was rewritten or dropped (a summary replaced turns, trimming
   * moved the start). Growth that only appends never breaks the cache.
   */
  cacheBreak: boolean;
}

/**
 * `shared`: tokens of the prefix this request has in common with the previous
 * one; `previous`: the previous request's tokens (undefined for a job's first).
 * A break is a turn whose cacheable tokens fall below what the previous request
 * left cached (cacheableOf its whole length): some of the cache went unused.
 */
export function cacheStanding(shared: number, previous: number | undefined, rule: PromptCacheRule | false): CacheStanding {
  const cacheableTokens = previous === undefined ? 0 : cacheableOf(shared, rule);
  const cacheBreak = previous !== undefined && cacheableTokens < cacheableOf(previous, rule);
  return { cacheableTokens, cacheBreak };
}
