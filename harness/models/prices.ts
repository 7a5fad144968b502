// Cost of a call from the provider's own token counts. Prices are USD per 1M
// tokens. The defaults are OpenAI list prices (standard tier, no cached-input
// discount) as published in 2025; they go stale, so config `prices:` overrides them.
import type { Usage } from '../../core/types.js';

/** USD per 1M tokens (the config's `prices:` entries have this shape). */
export interface Price {
  input: number;
  output: number;
}

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'gpt-4.1': { input: 2.0, output: 8.0 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10.0 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-5': { input: 1.25, output: 10.0 },
  'gpt-5-mini': { input: 0.25, output: 2.0 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  o3: { input: 2.0, output: 8.0 },
  'o4-mini': { input: 1.1, output: 4.4 },
};

// Dated snapshots (`gpt-4o-2024-08-06`) cost what their family costs.
function undated(name: string): string {
  return name.replace(/-\d{4}-\d{2}-\d{2}$/, '');
}

/**
 * The price of a model. `spec` is `provider:name` or a bare name; config entries
 * may use either form and win over the defaults. The defaults only apply to the
 * `openai` provider (a local server's `llama3` is free; an Azure deployment is
 * priced by config). Unknown → undefined.
 */
export function priceFor(spec: string, overrides: Record<string, Price> = {}): Price | undefined {
  const colon = spec.indexOf(':');
  const provider = colon >= 0 ? spec.slice(0, colon) : 'openai';
  const name = colon >= 0 ? spec.slice(colon + 1) : spec;
  for (const key of [spec, `${provider}:${name}`, name, undated(name)]) {
    const hit = overrides[key];
    if (hit) return hit;
  }
  if (provider !== 'openai') return undefined;
  return DEFAULT_PRICES[name] ?? DEFAULT_PRICES[undated(name)];
}

/** USD for one call: input × in + output × out (per 1M); undefined without a price. */
export function costOf(usage: Usage, price: Price | undefined): number | undefined {
  if (!price) return undefined;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
