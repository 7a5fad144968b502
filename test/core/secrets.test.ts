import { describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES, priceFor } from '../../harness/models/prices.js';
import { REDACTED, SECRET_FAMILIES, redact, redactDeep, redactionCount, redactionCounts, registerSecret, resetRedactionCount } from '../../core/secrets.js';
import { FAKE_SECRETS, INNOCENT_LOOKALIKES, type FakeSecret } from '../fixtures/secrets.js';

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
    // LiteLLM's documented default master key.
    registerSecret('sk-1234');
    expect(redact('401: bad key sk-1234')).toBe('401: bad key [REDACTED]');
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

  it('redactDeep blanks every secret-named field and keeps counts, ids and variable names', () => {
    const record = {
      password: 'p',
      clientSecret: 'opaque-value',
      accessToken: 'opaque',
      headers: { Authorization: 'opaque', 'x-api-key': 'opaque' },
      usage: { inputTokens: 12, outputTokens: 3 },
      key: 'full::t1::probe::1',
      api_key_env: 'FAKE_API_KEY',
      tokens: 'five',
      empty: { password: '' },
      // Names that merely end in a secret word are not secret: a run records its package versions.
      packages: { tiktoken: '1.0.22', 'js-tiktoken': '1.0.0' },
    };
    expect(redactDeep(record)).toEqual({
      password: REDACTED,
      clientSecret: REDACTED,
      accessToken: REDACTED,
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED },
      usage: { inputTokens: 12, outputTokens: 3 },
      key: 'full::t1::probe::1',
      api_key_env: 'FAKE_API_KEY',
      tokens: 'five',
      empty: { password: '' },
      packages: { tiktoken: '1.0.22', 'js-tiktoken': '1.0.0' },
    });
  });
});

// The same fake in the places transcripts and records carry it.
const contexts: Record<string, (f: FakeSecret) => string | undefined> = {
  sentence: (f) => `Sure, here is what I found: ${f.text} (from the old notes), let me know.`,
  json: (f) => JSON.stringify({ role: 'tool', output: f.text, n: 3 }),
  'json in a string': (f) => JSON.stringify(JSON.stringify({ config: f.text })),
  // Written as JSON, a pasted line follows the letter of an escape (`\n`, `\t`).
  'json, after a newline or tab': (f) => JSON.stringify({ output: `first line\n${f.text}\n\t${f.text}\nlast line` }),
  yaml: (f) => `turns:\n  - user: |\n${f.text
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n')}\n    assistant: Noted.\n`,
  url: (f) => (f.standalone ? `https://api.example.com/v1/callback?code=${f.secret}&state=ok` : f.family === 'url-password' ? `see ${f.text}` : undefined),
  csv: (f) => `id,comment,owner\n17,"${f.text.replace(/"/g, '""')}",ops\n18,plain,ops\n`,
};

describe('redact: the fake corpus', () => {
  it('has a fake for every family the rules report, 30 or more in all', () => {
    expect(FAKE_SECRETS.length).toBeGreaterThanOrEqual(30);
    const covered = new Set(FAKE_SECRETS.map((f) => f.family));
    const missing = SECRET_FAMILIES.filter((family) => !['registered', 'field'].includes(family) && !covered.has(family));
    expect(missing).toEqual([]);
    // A fixture naming a family no rule reports would test nothing.
    expect([...covered].filter((family) => !SECRET_FAMILIES.includes(family))).toEqual([]);
  });

  for (const [where, place] of Object.entries(contexts)) {
    it(`redacts every fake inside ${where}`, () => {
      const leaks: string[] = [];
      for (const fake of FAKE_SECRETS) {
        const text = place(fake);
        if (text === undefined) continue;
        const out = redact(text);
        if (out.includes(fake.secret) || !out.includes(REDACTED)) leaks.push(`${fake.family}: ${fake.text.slice(0, 24)}… → ${out.slice(0, 120)}`);
      }
      expect(leaks).toEqual([]);
    });
  }

  it('keeps what is not secret: the host of a URL, the header or name in front of a value', () => {
    const lost = FAKE_SECRETS.filter((f) => f.keep !== undefined && !redact(contexts.sentence(f) ?? '').includes(f.keep)).map((f) => f.family);
    expect(lost).toEqual([]);
    expect(redact('postgres://app:s3cr3t-Pa55@db.example:5432/prod')).toBe(`postgres://app:${REDACTED}@db.example:5432/prod`);
    expect(redact('password: hunter2 and then')).toBe(`password: ${REDACTED} and then`);
    // An unescaped `@` in the password: the host is what follows the last one.
    expect(redact('clone https://bob:p@ss:w0rd@git.example/x.git now')).toBe(`clone https://bob:${REDACTED}@git.example/x.git now`);
    expect(redact('redis://:Sup3r-s3cret@cache.example:6379/0')).toBe(`redis://:${REDACTED}@cache.example:6379/0`);
  });

  it('counts each planted value once, under its own family', () => {
    const wrong: string[] = [];
    for (const fake of FAKE_SECRETS) {
      resetRedactionCount();
      redact(contexts.sentence(fake) ?? '');
      const { total, byFamily } = redactionCounts();
      if (total !== 1 || byFamily[fake.family] !== 1) wrong.push(`${fake.family}: ${JSON.stringify(byFamily)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('is idempotent: redacting redacted text changes and counts nothing', () => {
    const all = FAKE_SECRETS.map((f) => contexts.sentence(f)).join('\n');
    const once = redact(all);
    resetRedactionCount();
    expect(redact(once)).toBe(once);
    expect(redactionCount()).toBe(0);
  });
});

describe('redact: innocent look-alikes', () => {
  it('leaves every look-alike unchanged and counts nothing', () => {
    expect(INNOCENT_LOOKALIKES.length).toBeGreaterThanOrEqual(30);
    resetRedactionCount();
    const changed = INNOCENT_LOOKALIKES.map((text) => [text, redact(text)]).filter(([text, out]) => text !== out);
    expect(changed).toEqual([]);
    expect(redactionCount()).toBe(0);
  });

  it('leaves them unchanged inside JSON and CSV too', () => {
    const json = JSON.stringify({ lines: INNOCENT_LOOKALIKES });
    expect(redact(json)).toBe(json);
    const csv = INNOCENT_LOOKALIKES.map((t, i) => `${i},"${t.replace(/"/g, '""')}"`).join('\n');
    expect(redact(csv)).toBe(csv);
  });
});

describe('redaction counter', () => {
  it('counts distinct values replaced by redact and redactDeep, per family, until reset', () => {
    resetRedactionCount();
    expect(redactionCount()).toBe(0);
    const aws = FAKE_SECRETS.find((f) => f.family === 'aws-access-key-id')?.secret ?? '';
    const ghp = FAKE_SECRETS.find((f) => f.family === 'github-token')?.secret ?? '';
    // One secret quoted in many records is one value redacted.
    redact(`keys ${aws} and ${ghp} and ${aws}`);
    redact(`again ${aws}`);
    expect(redactionCounts()).toEqual({ total: 2, byFamily: { 'aws-access-key-id': 1, 'github-token': 1 } });
    redactDeep({ note: `pw in url https://u:${'x'.repeat(6)}@h.example`, password: 'plainvalue', n: 2 });
    expect(redactionCounts()).toEqual({ total: 4, byFamily: { 'aws-access-key-id': 1, 'github-token': 1, 'url-password': 1, field: 1 } });
    // A snapshot is a copy: later redactions do not change it.
    const snapshot = redactionCounts();
    const other = FAKE_SECRETS.filter((f) => f.family === 'github-token')[1]?.secret ?? '';
    expect(other).not.toBe(ghp);
    redact(other);
    expect(snapshot.total).toBe(4);
    expect(redactionCount()).toBe(5);
    resetRedactionCount();
    expect(redactionCounts()).toEqual({ total: 0, byFamily: {} });
  });
});

describe('redact: cost', () => {
  // Inputs built to make a careless pattern backtrack; each must still finish at once.
  const hostile = [
    'password='.repeat(20_000),
    `-----BEGIN RSA PRIVATE KEY-----${' MIIE'.repeat(40_000)}`,
    `https://${'user:'.repeat(20_000)}`,
    `eyJ${'a'.repeat(50_000)}.eyJ${'b'.repeat(50_000)}`,
    `secret key ${'A'.repeat(100_000)}`,
    `${'Bearer '.repeat(20_000)}`,
    `"token": "${'\\"'.repeat(30_000)}`,
    'x://u:p@'.repeat(20_000),
    `https://u:${'a@'.repeat(50_000)}`,
    'secret_access_key='.repeat(20_000),
    'AKIA'.repeat(30_000),
    'sk-'.repeat(40_000),
    `${'a'.repeat(1_000)}.`.repeat(200),
  ];
  for (const text of hostile) {
    it(`stays linear on ${JSON.stringify(text.slice(0, 24))}…`, () => {
      const started = performance.now();
      redact(text);
      expect(performance.now() - started).toBeLessThan(1500);
    });
  }
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
