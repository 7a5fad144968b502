// Keeps API keys out of everything memeval writes: error messages, logs, caches
// and the resolved config in reports. Provider error bodies can echo a key
// (e.g. "Incorrect API key provided: sk-…"), so every provider error passes here.

export const REDACTED = '[REDACTED]';

const PATTERNS: { re: RegExp; keep: (match: string, ...groups: string[]) => string }[] = [
  // OpenAI-style keys: sk-…, sk-proj-…, sk-svcacct-… (also other vendors' sk- keys).
  { re: /\bsk-[A-Za-z0-9_-]{12,}/g, keep: () => REDACTED },
  // Authorization headers and any bearer token quoted in a message.
  // Tokens carry a digit or are long, which keeps prose such as "bearer bonds" intact.
  { re: /\b(Bearer\s+)(?=[A-Za-z._~+/=-]*\d|[A-Za-z0-9._~+/=-]{20})[A-Za-z0-9._~+/=-]{8,}/gi, keep: (_m, prefix) => `${prefix}${REDACTED}` },
  // key=value / key: value pairs, in URLs, JSON, env dumps and header listings (Azure's `api-key`).
  {
    re: /\b((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|password)["']?\s*[:=]\s*["']?)([^\s"'&,;}]{4,})/gi,
    keep: (_m, prefix) => `${prefix}${REDACTED}`,
  },
  // Azure-style 32-hex keys written after `api-key` without a separator.
  { re: /\b(api-key\s+)[0-9a-fA-F]{32}\b/gi, keep: (_m, prefix) => `${prefix}${REDACTED}` },
];

// Keys configured at run time may not look like any pattern (local gateways, Azure);
// the model layer registers them so they are redacted verbatim wherever they appear.
const knownSecrets = new Set<string>();

/** Registers a secret value (e.g. the API key a provider was built with) for redaction. */
export function registerSecret(value: string | undefined): void {
  // Very short values would redact ordinary words; no real key is this short.
  if (value && value.length >= 8) knownSecrets.add(value);
}

/** Replaces API-key-like strings and registered secrets with `[REDACTED]`. */
export function redact(text: string): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const { re, keep } of PATTERNS) {
    out = out.replace(re, (match: string, ...groups: unknown[]) => keep(match, ...(groups.filter((g) => typeof g === 'string') as string[])));
  }
  return out;
}

const SECRET_FIELD = /^(api[_-]?key|apikey|authorization|access[_-]?token|auth[_-]?token|password|client[_-]?secret|secret)$/i;

/**
 * Deep copy of a JSON-like value with every string redacted and fields named like a
 * secret (`api_key`, `authorization`, …) replaced whole. `api_key_env` (a variable
 * name, not a key) is kept.
 */
export function redactDeep<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = SECRET_FIELD.test(key) && typeof inner === 'string' ? REDACTED : redactValue(inner);
    }
    return out;
  }
  return value;
}
