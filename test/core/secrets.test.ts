import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES, priceFor } from '../../harness/models/prices.js';
import { redact, redactDeep, registerSecret } from '../../core/secrets.js';

describe('redact', () => {
  it('replaces key-like strings', () => {
    expect(redact('key sk-proj-AbC123def456GHI789jkl0 used')).toBe('key [REDACTED] used');
    expect(redact('sk-abcdefghijklmnopqrstuvwx')).toBe('[REDACTED]');
    expect(redact('Authorization: Bearer eyJhbGciOi.J9xyz123')).toBe('Authorization: Bearer [REDACTED]');
    expect(redact('https://host/v1?api_key=abc123secret&x=1')).toBe('https://host/v1?api_key=[REDACTED]&x=1');
    expect(redact('api-key: 0123456789abcdef0123456789abcdef')).toBe('api-key: [REDACTED]');
    expect(redact('api-key 0123456789abcdef0123456789abcdef')).toBe('api-key [REDACTED]');
    expect(redact('{"apiKey":"zzzzsecretzzzz"}')).toBe('{"apiKey":"[REDACTED]"}');
  });

  it('leaves ordinary text alone', () => {
    const text = 'The task-list has 3 items; firmware v1.0.3; order RX-88812; ask-me anything; bearer bonds matured.';
    expect(redact(text)).toBe(text);
  });

  it('redacts registered secrets verbatim', () => {
    registerSecret('local-gateway-token-77');
    expect(redact('failed with local-gateway-token-77 twice')).toBe('failed with [REDACTED] twice');
    registerSecret('short');
    expect(redact('a short word')).toBe('a short word');
  });

  it('redactDeep walks JSON and blanks secret-named fields', () => {
    const config = {
      model: 'openai:gpt-4.1-mini',
      providers: { azure: { base_url: 'https://x.openai.azure.com/openai/v1', api_key_env: 'AZURE_KEY', api_key: 'plainvalue' } },
      notes: ['Bearer abc123def456ghi'],
      n: 3,
    };
    expect(redactDeep(config)).toEqual({
      model: 'openai:gpt-4.1-mini',
      providers: { azure: { base_url: 'https://x.openai.azure.com/openai/v1', api_key_env: 'AZURE_KEY', api_key: '[REDACTED]' } },
      notes: ['Bearer [REDACTED]'],
      n: 3,
    });
    expect(config.providers.azure.api_key).toBe('plainvalue');
  });
});

describe('prices', () => {
  it('computes cost from USD per 1M tokens', () => {
    const price = priceFor('openai:gpt-4.1-mini');
    expect(price).toEqual(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 500_000 }, price)).toBeCloseTo(0.4 + 0.8, 10);
    expect(priceFor('openai:gpt-4o-2024-08-06')).toEqual(DEFAULT_PRICES['gpt-4o']);
  });

  it('lets config override and price other providers; unknown is undefined', () => {
    const overrides = { 'gpt-4.1-mini': { input: 1, output: 2 }, 'azure:prod-4o': { input: 3, output: 4 } };
    expect(priceFor('openai:gpt-4.1-mini', overrides)).toEqual({ input: 1, output: 2 });
    expect(priceFor('azure:prod-4o', overrides)).toEqual({ input: 3, output: 4 });
    expect(priceFor('ollama:gpt-4o')).toBeUndefined();
    expect(priceFor('openai:my-finetune')).toBeUndefined();
    expect(costOf({ inputTokens: 10, outputTokens: 10 }, undefined)).toBeUndefined();
  });
});
