// Cost of a call from the provider's own token counts. Prices are USD per 1M
// tokens. The defaults are OpenAI list prices (standard tier), with their
// cached-input prices, as published in 2025; they go stale, so config
// `prices:` overrides them.
import type { Usage } from '../../core/types.js';
import { OPENAI_PROMPT_CACHE, type PromptCacheRule } from '../../core/prompt-cache.js';

/** USD per 1M tokens (the config's `prices:` entries have this shape). */
export interface Price {
  input: number;
  output: number;
  /** Input tokens served from the provider's prompt cache; absent: no discount is known. */
  cached_input?: number;
}

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'gpt-4.1': { input: 2.0, output: 8.0, cached_input: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cached_input: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'gpt-4o': { input: 2.5, output: 10.0, cached_input: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075 },
  'gpt-5': { input: 1.25, output: 10.0, cached_input: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2.0, cached_input: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cached_input: 0.005 },
  o3: { input: 2.0, output: 8.0, cached_input: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cached_input: 0.275 },
};

// Dated snapshots (`gpt-4o-2024-08-06`) cost what their family costs.
function undated(name: string): string {
  return name.replace(/-\d{4}-\d{2}-\d{2}$/, '');
}

/** `provider:name` split; a bare name is the openai provider's. */
function splitSpec(spec: string): { provider: string; name: string } {
  const colon = spec.indexOf(':');
  return colon >= 0 ? { provider: spec.slice(0, colon), name: spec.slice(colon + 1) } : { provider: 'openai', name: spec };
}

/**
 * The price of a model. `spec` is `provider:name` or a bare name; config entries
 * may use either form and win over the defaults. The defaults only apply to the
 * `openai` provider (a local server's `llama3` is free; an Azure deployment is
 * priced by config). Unknown → undefined.
 */
export function priceFor(spec: string, overrides: Record<string, Price> = {}): Price | undefined {
  const { provider, name } = splitSpec(spec);
  for (const key of [spec, `${provider}:${name}`, name, undated(name)]) {
    const hit = overrides[key];
    if (hit) return hit;
  }
  if (provider !== 'openai') return undefined;
  return DEFAULT_PRICES[name] ?? DEFAULT_PRICES[undated(name)];
}

/** USD for one call: input × in + output × out (per 1M); undefined without a price. */
export function costOf(usage: Usage, price: Price | undefined): number | undefined {
  return cachedCostOf(usage, price, 0);
}

/**
 * USD for one call when `cacheable` of its input tokens are served from the
 * prompt cache: (input − cacheable) × in + cacheable × cached_input + output × out
 * (per 1M). Without a cached-input price it is the nominal cost.
 */
export function cachedCostOf(usage: Usage, price: Price | undefined, cacheable: number): number | undefined {
  if (!price) return undefined;
  // The provider bills no more cached tokens than the call's input.
  const cached = price.cached_input === undefined ? 0 : Math.min(Math.max(cacheable, 0), usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (fresh * price.input + cached * (price.cached_input ?? 0) + usage.outputTokens * price.output) / 1_000_000;
}

/**
 * The prompt-cache rule of a model's provider: its `providers:` entry's
 * `prompt_cache`, else OpenAI's. `offline` and bare names are OpenAI's models
 * for this (the offline reader stands in for one).
 */
export function promptCacheFor(spec: string, providers: Record<string, { prompt_cache?: PromptCacheRule | false }>): PromptCacheRule | false {
  return providers[splitSpec(spec).provider]?.prompt_cache ?? OPENAI_PROMPT_CACHE;
}

/**
 * A recorded cost with `cacheable` input tokens at the cached-input price: the
 * recorded cost scaled by cached ÷ nominal list cost, so a cost the run already
 * discounted (a batch's half price) keeps its discount. Undefined without a
 * recorded cost; the cost itself when there is no price to discount by.
 */
export function discountedCost(cost: number | undefined, usage: Usage | undefined, price: Price | undefined, cacheable: number): number | undefined {
  if (cost === undefined) return undefined;
  const nominal = usage && costOf(usage, price);
  const cached = usage && cachedCostOf(usage, price, cacheable);
  if (!nominal || cached === undefined) return cost;
  return cost * (cached / nominal);
}
