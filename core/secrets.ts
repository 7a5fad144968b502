// Keeps secrets out of everything memeval writes: error messages, logs, caches,
// journals, reports and the resolved config. Provider error bodies can echo a key
// (e.g. "Incorrect API key provided: sk-…"), and transcripts are real support or
// coding conversations that quote tokens, passwords and connection strings, so
// every record and every provider error passes here before it is written.
//
// The rules follow the families that maintained secret scanners detect
// (gitleaks' default rule set, detect-secrets' keyword and vendor plugins,
// trufflehog's detectors): a vendor prefix with its body length where the
// format has one, else a secret-looking name followed by a value. Each rule
// has a gate (its prefix or name); a text that contains none of them (almost
// every record) is returned after one scan, so redaction stays cheap on large runs.
import { createHash } from 'node:crypto';

export const REDACTED = '[REDACTED]';

/** One detector: the family it reports, a cheap pattern that must occur for it to run, and how to replace a match. */
interface Rule {
  family: string;
  /**
   * Regex source (matched case-insensitively) that every match of `re` contains:
   * the vendor prefix, or the secret-looking name and its separator. All gates
   * are scanned at once, so a text with none of them costs a single pass.
   */
  gate: string;
  re: RegExp;
  /** The replacement of one match; a prefix group (a header name, `user:` of a URL) is kept. */
  replace: (match: string, groups: readonly (string | undefined)[]) => string;
}

const whole = (): string => REDACTED;
/** Keeps group 1 (the name or header in front of the value) and redacts the rest. */
const keepPrefix = (_m: string, g: readonly (string | undefined)[]): string => `${g[0] ?? ''}${REDACTED}`;

// A value that is already the marker is not redacted (and counted) again.
const NOT_MARKER = String.raw`(?!\[REDACTED\])`;
// Vendor prefixes may follow `_` or `=` (`TOKEN=ghp_…`) but not a letter or digit
// (`task-list`, `shelf_…`), except the letter of a JSON escape: in text written as
// JSON a pasted line starts right after `\n`.
const START = String.raw`(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))`;

interface RuleSpec {
  family: string;
  gate: string;
  re: string;
  /** Extra flags of `re` (`i`); `g` is always added. */
  flags?: string;
  replace?: Rule['replace'];
}

const rule = ({ family, gate, re, flags = '', replace = whole }: RuleSpec): Rule => ({ family, gate, re: new RegExp(re, `g${flags}`), replace });

// Names under which a value is a secret (detect-secrets' keyword plugin, gitleaks'
// generic-api-key). The name must end at the separator: `inputTokens: 12`,
// `max_tokens: 500` and `api_key_env: NAME` are not secrets, and a bare `key:` is
// too common to count. Plurals (`passwords: rotated monthly`) are prose.
const SECRET_NAMES = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'token',
  'api[_-]?key',
  'apikey',
  'access[_-]?key',
  'secret[_-]?key',
  'private[_-]?key',
  'signing[_-]?key',
  'encryption[_-]?key',
].join('|');

// Quotes and escapes around names and values: JSON `"`, JSON inside a string `\"`
// (and inside that again, `\\\"`), CSV's doubled `""`, YAML and shell `'`.
const QUOTES = String.raw`[\\"']{0,8}`;
const SEPARATOR = String.raw`${QUOTES}[ \t]*(?::=|=>|[:=])[ \t]*`;

// `name: value`, `name=value`, `"name": "value"`, `name := value`, in JSON, YAML,
// env files, URLs, CSV cells and headers. A quoted value runs to its closing quote
// (it may hold spaces); a bare one to the next blank or delimiter, and must be 4+
// characters so `pwd: ~` stays readable.
const KEY_VALUE = [
  String.raw`((?:${SECRET_NAMES})(?![A-Za-z0-9])${SEPARATOR})`,
  String.raw`(?:(\\{0,7}"{1,2})${NOT_MARKER}([^"\\\r\n]+)`,
  String.raw`|(')${NOT_MARKER}([^'\\\r\n]+)`,
  String.raw`|${NOT_MARKER}([^\s"'${'`'}&,;<>(){}\[\]\\]{4,}))`,
].join('');

/** Keeps the name, separator and opening quote of a `name: value` match. */
const keepName = (_m: string, g: readonly (string | undefined)[]): string => `${g[0] ?? ''}${g[1] ?? g[3] ?? ''}${REDACTED}`;

// Order matters: whole blocks and URLs first, vendor formats next, then the
// context rules, which skip a value an earlier rule already replaced.
const RULES: readonly Rule[] = [
  // PEM / OpenSSH / PGP private key blocks, BEGIN through END; a block cut short (no END) loses its body.
  rule({
    family: 'private-key',
    gate: '-----begin',
    re: String.raw`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\[rnt])*)`,
  }),
  // Slack incoming webhooks: the URL path is the credential.
  rule({
    family: 'slack-webhook',
    gate: String.raw`\.(?<=hooks\.)slack\.com/`,
    re: String.raw`(hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/+-]{16,}`,
    replace: keepPrefix,
  }),
  // Credentials in a URL (scheme://user:password@host): the password goes, user and host stay readable.
  // The host starts after the last `@` of the authority, so a password may hold an unescaped `@`.
  rule({
    family: 'url-password',
    gate: String.raw`://[^\s/?#@]*@`,
    re: String.raw`(\b[a-z][a-z0-9+.-]{1,20}://[^\s/?#@:'"<>]*:)${NOT_MARKER}([^\s/?#'"<>]+)(?=@[^\s/?#@'"<>]*(?:[\s/?#'"<>]|$))`,
    flags: 'i',
    replace: keepPrefix,
  }),
  // JSON Web Tokens: base64url `{"` header and payload, optional signature.
  rule({ family: 'jwt', gate: String.raw`\.(?<=eyj[\w-]{6,}\.)eyj`, re: String.raw`${START}eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*` }),
  // OpenAI, Anthropic and other vendors' `sk-` keys (sk-proj-, sk-svcacct-, sk-ant-api03-…).
  rule({ family: 'sk-key', gate: String.raw`-(?<=${START}sk-)[\w-]{12}`, re: String.raw`${START}sk-[A-Za-z0-9_-]{12,}` }),
  // Stripe secret and restricted keys, and webhook signing secrets.
  rule({ family: 'stripe', gate: '_(?<=[sr]k_)(?:live|test)_', re: String.raw`${START}[sr]k_(?:live|test)_[A-Za-z0-9]{10,}` }),
  rule({ family: 'stripe-webhook-secret', gate: '_(?<=whsec_)', re: String.raw`${START}whsec_[A-Za-z0-9+/=]{20,}` }),
  // AWS access key ids: a four-letter kind (AKIA user key, ASIA temporary, …) and 16 more.
  rule({
    family: 'aws-access-key-id',
    gate: '(?:a3t[a-z0-9]|akia|asia|abia|acca|agpa|aida|aroa|aipa|anpa|anva|apka)[a-z0-9]{16}',
    re: String.raw`${START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])`,
  }),
  // AWS secret access keys: 40 base64 characters, only recognisable by the name in front.
  rule({
    family: 'aws-secret-access-key',
    gate: String.raw`key(?<=secret[_.\- ]?(?:access[_.\- ]?)?key)`,
    re: String.raw`((?:aws[_.\- ]?)?secret[_.\- ]?(?:access[_.\- ]?)?key(?:[_.\- ]?id)?${QUOTES}[ \t]*(?::=|=>|[:=]|\bis\b)?[ \t]*${QUOTES})${NOT_MARKER}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
    flags: 'i',
    replace: keepPrefix,
  }),
  // GitHub: classic (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh (ghr_), fine-grained PATs.
  rule({ family: 'github-token', gate: '_(?<=gh[pousr]_)[a-z0-9]{30}', re: String.raw`${START}gh[pousr]_[A-Za-z0-9]{30,255}` }),
  rule({ family: 'github-pat', gate: '_(?<=github_pat_)', re: String.raw`${START}github_pat_[A-Za-z0-9_]{22,255}` }),
  // GitLab personal, pipeline-trigger, deploy, runner, CI-build and service-account tokens.
  rule({ family: 'gitlab-token', gate: '-(?<=gl(?:pat|ptt|dt|rt|cbt|soat)-)', re: String.raw`${START}gl(?:pat|ptt|dt|rt|cbt|soat)-[A-Za-z0-9_-]{20,}` }),
  // Slack bot, user, app, refresh and config tokens (xoxb-, xoxp-, xoxa-, xoxe.xoxp-, xapp-…).
  rule({
    family: 'slack-token',
    gate: String.raw`[-.](?<=xox[a-z][-.])|-(?<=xapp-)\d`,
    re: String.raw`${START}(?:xox[a-z](?:\.xox[a-z])?-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})`,
  }),
  // Google: API keys (AIza + 35), OAuth client secrets (GOCSPX-), OAuth access tokens (ya29.).
  rule({ family: 'google-api-key', gate: String.raw`aiza[\w-]{35}`, re: String.raw`${START}AIza[0-9A-Za-z_-]{35}` }),
  rule({ family: 'google-oauth-secret', gate: '-(?<=gocspx-)', re: String.raw`${START}GOCSPX-[A-Za-z0-9_-]{20,}` }),
  rule({ family: 'google-oauth-token', gate: String.raw`\.(?<=ya29\.)`, re: String.raw`${START}ya29\.[0-9A-Za-z_-]{20,}` }),
  // Twilio API key SIDs (SK…) and account SIDs (AC…): 32 hex digits.
  rule({ family: 'twilio', gate: '(?:sk|ac)[0-9a-f]{32}', re: String.raw`${START}(?:SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9])` }),
  // SendGrid: SG.<22>.<43>.
  rule({ family: 'sendgrid', gate: String.raw`\.(?<=sg\.)[\w-]{16}`, re: String.raw`${START}SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}` }),
  // npm access tokens.
  rule({ family: 'npm-token', gate: '_(?<=npm_)[a-z0-9]{36}', re: String.raw`${START}npm_[A-Za-z0-9]{36,}` }),
  // PyPI and TestPyPI upload tokens (a macaroon whose base64 starts with the index's name).
  rule({ family: 'pypi-token', gate: '-(?<=pypi-)ag', re: String.raw`${START}pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{40,}` }),
  // Hugging Face user and organisation tokens.
  rule({ family: 'huggingface-token', gate: '_(?<=(?:hf|api_org)_)[a-z0-9]{30}', re: String.raw`${START}(?:hf|api_org)_[A-Za-z0-9]{30,}` }),
  // Azure storage and service-bus connection strings, and SAS URL signatures.
  rule({
    family: 'azure-key',
    gate: '=(?<=(?:accountkey|sharedaccesskey|[?&]sig)=)',
    re: String.raw`((?:AccountKey|SharedAccessKey)=|[?&]sig=)${NOT_MARKER}([A-Za-z0-9+/%]{20,}(?:=|%3D){0,2})`,
    flags: 'i',
    replace: keepPrefix,
  }),
  // Authorization headers and bearer tokens quoted in a message. A token carries a
  // digit or is long, which keeps prose such as "bearer bonds" intact.
  rule({
    family: 'bearer',
    gate: String.raw`bearer\s`,
    re: String.raw`${START}(Bearer\s+)(?=[A-Za-z._~+/=-]*\d|[A-Za-z0-9._~+/=-]{20})[A-Za-z0-9._~+/=-]{8,}`,
    flags: 'i',
    replace: keepPrefix,
  }),
  // Basic auth: base64 of user:password. It has a digit, padding, + or /, or a
  // lower-then-upper pair (dXNl…), which "Basic training" never has.
  rule({
    family: 'basic-auth',
    gate: String.raw`basic\s`,
    re: String.raw`${START}((?:Basic|basic|BASIC)\s+)(?=[A-Za-z0-9+/]*(?:\d|[+/=]|[a-z][A-Z]))[A-Za-z0-9+/]{8,}={0,2}`,
    replace: keepPrefix,
  }),
  // Azure OpenAI's `api-key` header written without a separator (`api-key 0123…`).
  rule({ family: 'azure-api-key', gate: String.raw`api-key\s`, re: String.raw`${START}(api-key\s+)[0-9a-fA-F]{32}(?![A-Za-z0-9])`, flags: 'i', replace: keepPrefix }),
  // Generic `name: value` pairs whose name says secret (password, token, api_key, client_secret, …).
  rule({
    family: 'secret-assignment',
    gate: String.raw`[:=](?<=(?:password|passwd|pwd|passphrase|secret|token|key)${QUOTES}[ \t]*[:=])`,
    re: KEY_VALUE,
    flags: 'i',
    replace: keepName,
  }),
];

/** Every family a rule reports, plus `registered` (values registered with `registerSecret`) and `field` (secret-named JSON fields). */
export const SECRET_FAMILIES: readonly string[] = [...RULES.map((r) => r.family), 'registered', 'field'];

// One case-insensitive scan over every rule's gate (one capture group per rule)
// decides which rules run at all; ordinary prose matches none of them.
const GATE = new RegExp(RULES.map((r) => `(${r.gate})`).join('|'), 'gi');

/** The rules whose gate occurs in `text`, in rule order; empty for ordinary prose. */
function rulesFor(text: string): readonly Rule[] {
  GATE.lastIndex = 0;
  let m = GATE.exec(text);
  // The common case: no gate at all, decided by one scan and no allocation.
  if (m === null) return [];
  const hit = new Set<number>();
  for (; m !== null && hit.size < RULES.length; m = GATE.exec(text)) {
    // Each gate is one whole group, so the group holding the match names the rule.
    hit.add(m.indexOf(m[0], 1) - 1);
    // Gates can overlap (`secret_key=` opens two rules): look again from the next character.
    GATE.lastIndex = m.index + 1;
  }
  return RULES.filter((_, i) => hit.has(i));
}

/** How many distinct values were redacted since the process started (or the last reset), in total and per family. */
export interface RedactionCounts {
  total: number;
  byFamily: Record<string, number>;
}

// One secret quoted in a transcript reaches many records (every probe context
// after it); the report counts it once. Only a short digest is kept, never the value.
const seen = new Map<string, Set<string>>();

function count(family: string, value: string): void {
  let digests = seen.get(family);
  if (!digests) seen.set(family, (digests = new Set()));
  digests.add(createHash('sha256').update(value).digest('hex').slice(0, 16));
}

/** Number of distinct values `redact` and `redactDeep` replaced since the process started (or `resetRedactionCount`). */
export function redactionCount(): number {
  return redactionCounts().total;
}

/** A copy of the counters, per family, for a report. */
export function redactionCounts(): RedactionCounts {
  const byFamily: Record<string, number> = {};
  let total = 0;
  for (const [family, digests] of seen) {
    byFamily[family] = digests.size;
    total += digests.size;
  }
  return { total, byFamily };
}

/** Sets the counters back to zero (tests; a process that runs several suites). */
export function resetRedactionCount(): void {
  seen.clear();
}

// Keys configured at run time may not look like any pattern (local gateways, Azure);
// the model layer registers them so they are redacted verbatim wherever they appear.
const knownSecrets = new Set<string>();
const MIN_REGISTERED_CHARS = 7;

/** Registers a secret value (e.g. the API key a provider was built with) for redaction. */
export function registerSecret(value: string | undefined): void {
  // Very short values would redact ordinary words; no real key is this short, but gateways'
  // documented defaults are only just longer (LiteLLM's "sk-1234").
  if (value && value.length >= MIN_REGISTERED_CHARS) knownSecrets.add(value);
}

function redactKnown(text: string): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (!out.includes(secret)) continue;
    count('registered', secret);
    out = out.split(secret).join(REDACTED);
  }
  return out;
}

function applyRule(text: string, r: Rule): string {
  return text.replace(r.re, (match: string, ...rest: unknown[]) => {
    // replace() passes the groups, then the offset (a number): the groups end there.
    const end = rest.findIndex((x) => typeof x === 'number');
    const groups = rest.slice(0, end) as (string | undefined)[];
    count(r.family, match);
    return r.replace(match, groups);
  });
}

/** Replaces secrets (API keys, tokens, passwords, private keys, registered values) with `[REDACTED]`. */
export function redact(text: string): string {
  let out = knownSecrets.size ? redactKnown(text) : text;
  for (const r of rulesFor(out)) out = applyRule(out, r);
  return out;
}

// JSON fields whose whole string value is a secret, whatever it looks like:
// `password`, `apiKey`, `client_secret`, `accessToken`, `Authorization`, …
// Counts such as `inputTokens` and names such as `api_key_env` (a variable name) are kept.
// The secret word must be the whole name or its last part after a separator or a
// camelCase boundary: `accessToken`, `x-api-key`, `client_secret`, but not `tiktoken`
// (a package name) or `inputTokens`.
const SECRET_FIELD = /(?:^|[_\-. ])(?:authorization|cookie|passwords?|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|credentials?)$/;

function secretFieldName(key: string): boolean {
  return SECRET_FIELD.test(key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());
}

/**
 * Deep copy of a JSON-like value with every string redacted and fields named like a
 * secret (`api_key`, `authorization`, `password`, …) replaced whole. `api_key_env` (a
 * variable name, not a key) is kept.
 */
export function redactDeep<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === 'object' && value !== null) {
    // A spread, then each value replaced in place: the copy keeps one hidden class.
    // Adding twenty-odd keys one by one to `{}` turned every probe record into a
    // dictionary-mode object, 1.6 KB of properties each where 0.2 KB do.
    const out: Record<string, unknown> = { ...value };
    for (const key in out) out[key] = redactField(key, out[key]);
    return out;
  }
  return value;
}

function redactField(key: string, inner: unknown): unknown {
  if (typeof inner !== 'string' || !secretFieldName(key) || inner === REDACTED || inner === '') return redactValue(inner);
  count('field', inner);
  return REDACTED;
}
