// Arguments of the offline model's tool calls, filled from a tool's JSON Schema with values
// the request or its context states; a value never stated is never written. Each parameter
// gets a kind from its schema (enum, integer, number, boolean, date, email, host, url, phone,
// identifier, text), and a value of that kind is looked for in this order:
//   1. the question: a value next to a word of the parameter's name ("ticket INC-4471",
//      "the payments-api service"), then any value of its kind (an enum value, a host, a date);
//   2. the context, newest first: an earlier call's argument of the same name (any tool), a
//      result's field under the parameter's name, or a value next to a word of its name;
//   3. for a required parameter only, the newest value of its kind anywhere in the context.
// A candidate must also fit the shape earlier values of the parameter had (shapes.ts) and
// belong to no other parameter of the tool. Optional parameters with no value are left out.
// The algorithm is in the README, "Tool probes".
import { normalizeText, stem } from '../../../core/text.js';
import { oncePerObject } from '../../../core/memo.js';
import { isRecord } from '../../../core/record.js';
import type { Unit } from './context.js';
import { TextMemo } from './memo.js';
import { type DateMention, type Day, findDates, pad2 } from './dates.js';
import { type Shape, fitsShapes, prefixOf, shapeOf } from './shapes.js';
import { type Span, findSpans } from './spans.js';
import { contentStems, nameWords } from './words.js';

export type ParameterKind = 'enum' | 'integer' | 'number' | 'boolean' | 'date' | 'email' | 'host' | 'url' | 'phone' | 'identifier' | 'text';

export interface Parameter {
  name: string;
  required: boolean;
  kind: ParameterKind;
  /** Declared enum values, as written in the schema. */
  values: readonly (string | number)[];
  /** Stems that name the parameter in prose: its name's words ("order" of `order_id`), else its description's. */
  names: ReadonlySet<string>;
  /** Other words of its description ("rows" of "Maximum rows" for `limit`): they name it when its own words are not there. */
  described: ReadonlySet<string>;
  /** A number parameter for a sum or a share: a money or percent value the request states is its value. */
  measure?: 'money' | 'percent';
  /** For one of two date parameters: which end of a range it takes. */
  end?: 'start' | 'end';
  /** Position in the schema's `properties`: arguments are written in this order. */
  index: number;
  /** Prose (a note, a message, a query): any words may be its value, whatever shape earlier values had. */
  freeText: boolean;
  /** The schema's `pattern`, when it compiles: a value must match it. */
  pattern?: RegExp;
}

/** A text the value may come from, with its typed spans and dates already read. */
export interface Source {
  text: string;
  spans: readonly Span[];
  dates: readonly DateMention[];
}

/** An earlier call in the context: its tool and its arguments as the model wrote them. */
export interface EarlierCall {
  name: string;
  args: Record<string, unknown>;
}

// Words that say what sort of value a name is rather than what it is about: `order_id` is about orders.
const GENERIC = new Set(['id', 'ids', 'identifier', 'name', 'number', 'num', 'no', 'code', 'value', 'key', 'ref', 'reference', 'str', 'text'].map(stem));

const KIND_WORDS: [ParameterKind, RegExp][] = [
  ['email', /\b(?:e-?mail|mail)\b/],
  ['url', /\b(?:url|uri|link|endpoint)\b/],
  ['phone', /\b(?:phone|mobile|tel|telephone)\b/],
  ['host', /\b(?:host|hostname|server|machine|node|instance)\b/],
  ['date', /\b(?:date|day|dates|yyyy-mm-dd)\b/],
  ['identifier', /\b(?:id|ids|identifier|number|code|ref|reference|serial|sku|key)\b/],
];

const START_WORDS = /\b(?:start|from|begin|beginning|since|after|min|earliest|first)\b/;
const END_WORDS = /\b(?:end|to|until|till|through|before|max|latest|last)\b/;

function schemaKind(name: string, schema: Record<string, unknown>): ParameterKind | undefined {
  if (Array.isArray(schema.enum) && schema.enum.some((v) => typeof v === 'string' || typeof v === 'number')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'integer') return 'integer';
  if (type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type !== undefined && type !== 'string') return undefined;
  const format = typeof schema.format === 'string' ? schema.format : '';
  if (/^date/.test(format)) return 'date';
  if (format === 'email') return 'email';
  if (format === 'uri' || format === 'url') return 'url';
  if (format === 'hostname') return 'host';
  // The name decides first ("host_id" is a host), then the description.
  const words = nameWords(name);
  const description = typeof schema.description === 'string' ? schema.description.toLowerCase() : '';
  for (const text of [words, description]) for (const [kind, re] of KIND_WORDS) if (re.test(text)) return kind;
  return 'text';
}

const MONEY_WORDS = /\b(?:amount|price|cost|total|fee|charge|refund|balance|payment|usd|eur|gbp|dollars?|euros?|pounds?|budget|credit)\b/i;
const PERCENT_WORDS = /\b(?:percent|percentage|pct|rate|share|ratio|discount)\b/i;

function measureOf(kind: ParameterKind, text: string): Parameter['measure'] {
  if (kind !== 'number' && kind !== 'integer') return undefined;
  return MONEY_WORDS.test(text) ? 'money' : PERCENT_WORDS.test(text) ? 'percent' : undefined;
}

function namingStems(name: string, description: string): Set<string> {
  const own = [...contentStems(nameWords(name))];
  const specific = own.filter((s) => !GENERIC.has(s));
  if (specific.length > 0) return new Set(specific);
  if (own.length > 0) return new Set(own);
  return new Set([...contentStems(description)].filter((s) => !GENERIC.has(s)));
}

// Names of parameters that hold prose: their values are sentences, not codes of a fixed shape.
const FREE_TEXT = /\b(?:description|desc|body|message|msg|note|notes|query|q|search|keywords?|title|subject|comment|comments|summary|reason|text|content|details|remark|remarks|explanation|instructions?)\b/;

function patternOf(raw: unknown): RegExp | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    return new RegExp(raw, 'u');
  } catch {
    // A pattern in a dialect JavaScript does not read constrains nothing here.
    return undefined;
  }
}

/** The parameters of a tool's schema that can take a scalar value: required ones first, each in declaration order. */
export function parametersOf(schema: Record<string, unknown>): Parameter[] {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const out: Parameter[] = [];
  const descriptions = new Map<string, string>();
  for (const [name, raw] of Object.entries(properties)) {
    const spec = isRecord(raw) ? raw : {};
    const kind = schemaKind(name, spec);
    if (!kind) continue;
    const description = typeof spec.description === 'string' ? spec.description : '';
    descriptions.set(name, description);
    const values = Array.isArray(spec.enum) ? spec.enum.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number') : [];
    const names = namingStems(name, description);
    // Words only: the stems of an example code ("e.g. ORD-10233") name nothing.
    const described = new Set([...contentStems(description)].filter((d) => !names.has(d) && !GENERIC.has(d) && /^[a-z]{3,}$/.test(d)));
    out.push({
      name,
      required: required.has(name),
      kind,
      values,
      names,
      described,
      measure: measureOf(kind, `${nameWords(name)} ${description}`),
      index: out.length,
      freeText: kind === 'text' && FREE_TEXT.test(nameWords(name)),
      pattern: patternOf(spec.pattern),
    });
  }
  markRangeEnds(out, descriptions);
  return [...out.filter((p) => p.required), ...out.filter((p) => !p.required)];
}

/** Two date parameters are a range: the one named like a start takes its first day, the other its last. */
function markRangeEnds(params: Parameter[], descriptions: ReadonlyMap<string, string>): void {
  const dates = params.filter((p) => p.kind === 'date');
  if (dates.length !== 2) return;
  const role = (p: Parameter) => {
    const words = nameWords(p.name);
    const described = descriptions.get(p.name)?.toLowerCase() ?? '';
    if (START_WORDS.test(words)) return 'start';
    if (END_WORDS.test(words)) return 'end';
    return START_WORDS.test(described) ? 'start' : END_WORDS.test(described) ? 'end' : undefined;
  };
  const [a, b] = dates;
  const ra = role(a) ?? (role(b) === 'start' ? 'end' : 'start');
  a.end = ra;
  b.end = ra === 'start' ? 'end' : 'start';
}

// ---------------------------------------------------------------------------
// Words of a source and values near them

interface Token {
  start: number;
  end: number;
  word: string;
  stem: string;
}

const TOKEN = /[\p{L}\p{N}](?:[\p{L}\p{N}._@:/+'-]*[\p{L}\p{N}])?/gu;

// Each statement of the context is searched once per parameter and tool: its words are read once.
const tokenized = new TextMemo<readonly Token[]>();

/** The words of a text with where they stand and their stems; never change the list. */
function tokens(text: string): readonly Token[] {
  return tokenized.get(text, () => readTokens(text));
}

function readTokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const word = m[0].toLowerCase();
    out.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, word, stem: stem(word.replace(/'s$/, '')) });
  }
  return out;
}

/** A value found in a source: its text or number, and where it stands. */
interface Found {
  value: string | number;
  start: number;
  end: number;
  /** The span type it was read from, for numbers ("$35" is money). */
  type?: Span['type'];
}

/** How far a value may stand from a word of the parameter's name: up to three words after it, two before. */
const AFTER = 3;
const BEFORE = 2;

/**
 * The value nearest a word of the parameter's name, after it first ("order ORD-58213", "limit 20"),
 * then before it ("the payments-api service"), or a value that holds the word ("50 lines").
 */
function nearName(p: Parameter, words: readonly Token[], found: Found[]): Found | undefined {
  return nearWords(p.names, words, found) ?? nearWords(p.described, words, found);
}

function nearWords(names: ReadonlySet<string>, words: readonly Token[], found: Found[]): Found | undefined {
  if (names.size === 0 || found.length === 0) return undefined;
  let best: { f: Found; distance: number } | undefined;
  for (let i = 0; i < words.length; i++) {
    if (!names.has(words[i].stem)) continue;
    for (const f of found) {
      const distance = wordDistance(words, i, f);
      if (distance !== undefined && (!best || distance < best.distance)) best = { f, distance };
    }
  }
  return best?.f;
}

/** Words between the name word `i` and a value: 0 when adjacent or holding it; a value before the word counts half a word more. */
function wordDistance(words: readonly Token[], i: number, f: Found): number | undefined {
  const w = words[i];
  if (f.start <= w.start && f.end >= w.end) return 0;
  if (f.start >= w.end) {
    const between = words.filter((t, k) => k > i && t.start < f.start).length;
    return between <= AFTER ? between : undefined;
  }
  if (f.end <= w.start) {
    const between = words.filter((t, k) => k < i && t.end > f.end).length;
    return between <= BEFORE ? between + 0.5 : undefined;
  }
  return undefined;
}

// Codes people type for a service, queue or file ("payments-api", "checkout_svc", "nginx.conf"), and quoted text.
const CODE = /^(?=.*[\p{L}])(?:[\p{L}\p{N}]+[-_./:][\p{L}\p{N}][\p{L}\p{N}\-_./:]*|[\p{L}]*\d[\p{L}\p{N}]*)$/u;
// An apostrophe inside a word ("there's", "I'd") opens and closes nothing.
const QUOTED = /(?<![\p{L}\p{N}])["'`\u201C\u2018]([^"'`\u201D\u2019\n]{1,80})["'`\u201D\u2019](?![\p{L}\p{N}])/gu;

function spanFound(s: Span): Found {
  return { value: s.text.replace(/[.,;:]+$/, ''), start: s.start, end: s.end };
}

const SPAN_KINDS: Partial<Record<ParameterKind, Span['type'][]>> = {
  email: ['email'],
  url: ['url'],
  phone: ['phone'],
  host: ['host', 'identifier'],
  identifier: ['identifier', 'number', 'host', 'version', 'email'],
  text: ['identifier', 'host', 'version', 'email', 'url', 'name'],
};

/** Codes and quoted text the span recognisers do not type (`payments-api`, `"disk full"`), outside any span. */
function looseCodes(source: Source, words: readonly Token[]): Found[] {
  const inSpan = (start: number, end: number) => source.spans.some((s) => s.start < end && s.end > start);
  const out: Found[] = [];
  for (const m of source.text.matchAll(QUOTED)) out.push({ value: m[1].trim(), start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  for (const t of words) if (CODE.test(source.text.slice(t.start, t.end)) && !inSpan(t.start, t.end)) out.push({ value: source.text.slice(t.start, t.end), start: t.start, end: t.end });
  return out;
}

function numberOf(s: Span, integer: boolean): number | undefined {
  if (s.value === undefined || !['number', 'quantity', 'money', 'percent'].includes(s.type)) return undefined;
  if (integer && !Number.isInteger(s.value)) return undefined;
  return s.value;
}

function isoDay(d: Day): string {
  return `${d.year}-${pad2(d.month)}-${pad2(d.day)}`;
}

function lastDayOfMonth(d: Day): Day {
  return { year: d.year, month: d.month, day: new Date(Date.UTC(d.year, d.month, 0)).getUTCDate() };
}

// The word before a date that makes it one end of a range only: "since March 1" starts it, "until Friday" ends it.
const OPENS = /\b(?:since|from|after|starting|beginning)\s+(?:on\s+)?$/i;
const CLOSES = /\b(?:until|till|before|through|thru|to|by|ending)\s+(?:on\s+)?$/i;

/**
 * The dates of a source as a parameter takes them: the start of a range its first date, the end
 * its last; a month spans its days; a lone date is both ends unless a word says which it is.
 */
function datesFor(p: Parameter, source: Source): Found[] {
  const fits = source.dates.filter((d) => {
    const before = source.text.slice(Math.max(0, d.start - 20), d.start);
    if (p.end === 'end' && source.dates.length === 1 && OPENS.test(before)) return false;
    if (p.end === 'start' && source.dates.length === 1 && CLOSES.test(before)) return false;
    return true;
  });
  const dates = fits.map((d) => ({ d, value: p.end === 'end' && d.precision === 'month' ? lastDayOfMonth(d.day) : d.day }));
  const ordered = p.end === 'end' && dates.length > 1 ? [...dates].reverse() : dates;
  return ordered.map(({ d, value }) => ({ value: isoDay(value), start: d.start, end: d.end }));
}

/** Every value of the parameter's kind in a source, in the order it prefers them. */
function valuesOfKind(p: Parameter, source: Source, words: readonly Token[]): Found[] {
  switch (p.kind) {
    case 'integer':
    case 'number': {
      const out: Found[] = [];
      for (const s of source.spans) {
        const n = numberOf(s, p.kind === 'integer');
        if (n !== undefined) out.push({ value: n, start: s.start, end: s.end, type: s.type });
      }
      return out;
    }
    case 'date':
      return datesFor(p, source);
    case 'enum':
      return enumValues(p, words);
    case 'boolean':
      return [];
    default: {
      const types = SPAN_KINDS[p.kind] ?? [];
      const spans = source.spans.filter((s) => types.includes(s.type)).map(spanFound);
      // Identifiers and free text may be codes no recogniser types; hosts, emails and the like may not.
      return p.kind === 'identifier' || p.kind === 'text' ? [...spans, ...looseCodes(source, words)].sort((a, b) => a.start - b.start) : spans;
    }
  }
}

/** Enum values the source says as whole words ("priority high", "the *errors* view" for `error`, "us-east-1"). */
function enumValues(p: Parameter, words: readonly Token[]): Found[] {
  const out: Found[] = [];
  const { forms, heads } = enumForms(p.values);
  for (const { value, whole, parts } of forms) {
    for (let i = 0; i < words.length; i++) {
      if (words[i].word === whole || (parts.length === 1 && words[i].stem === parts[0])) out.push({ value, start: words[i].start, end: words[i].end });
      else if (parts.length > 1 && parts.every((part, k) => words[i + k]?.stem === part)) out.push({ value, start: words[i].start, end: words[i + parts.length - 1].end });
      else if (parts.length > 1 && heads.get(words[i].stem) === value) out.push({ value, start: words[i].start, end: words[i].end });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

interface EnumForm {
  value: string | number;
  /** The value lower-cased, as one word. */
  whole: string;
  /** The stems of its words (`memory_pct` → memori, pct). */
  parts: string[];
}

/**
 * An enum's values as words, and the head words that stand for one value alone, worked out once
 * per parameter: the context is searched statement by statement.
 */
const enumForms = oncePerObject((values: readonly (string | number)[]) => {
  const forms: EnumForm[] = [];
  const count = new Map<string, number>();
  const owner = new Map<string, string | number>();
  for (const value of values) {
    const whole = String(value).toLowerCase();
    const words = nameWords(whole).split(' ').filter(Boolean);
    forms.push({ value, whole, parts: words.map(stem) });
    // The first word of a many-word value that no other value starts with: people say "memory"
    // for `memory_pct` and "p99" for `p99_latency_ms`, not the unit the name ends in.
    if (words.length < 2 || words[0].length < 2) continue;
    const head = stem(words[0]);
    count.set(head, (count.get(head) ?? 0) + 1);
    owner.set(head, value);
  }
  // A head that is also a whole one-word value ("error" beside "error_rate") is that value's.
  for (const { parts } of forms) if (parts.length === 1) count.set(parts[0], 2);
  return { forms, heads: new Map([...owner].filter(([head]) => count.get(head) === 1)) };
});

// ---------------------------------------------------------------------------
// The search

export interface FillOptions {
  question: Source;
  /** The context's statements, oldest first (calls among them are read from `calls`). */
  units: readonly Unit[];
  /** Earlier calls by the index of the item their units came from. */
  calls: ReadonlyMap<number, EarlierCall>;
  /** The tool being called. */
  tool: string;
  /** Where the word the request's action is said with ends, for a free-text object ("restart *nginx* on web-03"). */
  verbEnd?: number;
  /** String fields of the results in the context, by key (`member_id` of a lookup's record): they show a parameter's shape too. */
  resultFields: ReadonlyMap<string, readonly string[]>;
}

export interface Filled {
  args: Record<string, unknown>;
  /** Required parameters no value was found for. */
  missing: string[];
}

type Value = string | number | boolean;

/** How values are compared: text normalised, numbers and the rest as JSON writes them. */
export const valueKey = (v: unknown): string => (typeof v === 'string' ? normalizeText(v) : JSON.stringify(v));

/**
 * Span types another parameter of the tool is for: free text never takes them (with a `host`
 * parameter beside it, "web-03" is the host, not the service).
 */
function claimedTypes(params: readonly Parameter[]): Set<Span['type']> {
  const out = new Set<Span['type']>();
  for (const p of params) if (p.kind === 'host' || p.kind === 'email' || p.kind === 'url' || p.kind === 'phone') out.add(p.kind);
  return out;
}

/** Fills the tool's parameters; see the file comment for the order values are looked for in. */
export function fillArguments(params: readonly Parameter[], opts: FillOptions): Filled {
  const args: Record<string, unknown> = {};
  const used = new Set<string>();
  const missing: string[] = [];
  const search: Search = {
    ...opts,
    used,
    ownWords: new Set([...contentStems(nameWords(opts.tool)), ...params.flatMap((p) => [...p.names])]),
    claimed: claimedTypes(params),
    questionWords: tokens(opts.question.text),
    paramKeys: new Set(params.flatMap((p) => [valueKey(p.name), valueKey(nameWords(p.name))])),
    ...earlierShapes(opts.calls, opts.resultFields),
    owners: siblingValues(params, opts.calls),
  };
  for (const p of params) {
    const v = inQuestion(p, search) ?? inContext(p, search, true) ?? (p.required ? inContext(p, search, false) : undefined);
    if (v === undefined) {
      if (p.required) missing.push(p.name);
      continue;
    }
    args[p.name] = v;
    // Two parameters do not take one value, except the two ends of a one-day range.
    if (typeof v !== 'boolean' && p.kind !== 'date') used.add(valueKey(v));
  }
  return { args: ordered(args, params), missing };
}

interface Search extends FillOptions {
  used: Set<string>;
  /** Words naming the tool or any of its parameters: "the *host*" says which argument, not its value. */
  ownWords: ReadonlySet<string>;
  claimed: ReadonlySet<Span['type']>;
  questionWords: readonly Token[];
  /** The tool's parameter names as written and in words: keys, not values. */
  paramKeys: ReadonlySet<string>;
  /** The shapes of the values earlier calls (of any tool) passed under each parameter name. */
  shapes: ReadonlyMap<string, ReadonlySet<Shape>>;
  /** The capital prefixes of those values ("LM" of `LM-20931`), by parameter name. */
  prefixes: ReadonlyMap<string, ReadonlySet<string>>;
  /** Values that belong to a parameter of this tool (its enum, or what earlier calls passed for it), by value: the parameters they belong to. */
  owners: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The shapes and prefixes of string values earlier calls passed and results filed, by parameter name: one pass. */
function earlierShapes(
  calls: ReadonlyMap<number, EarlierCall>,
  fields: ReadonlyMap<string, readonly string[]>,
): { shapes: Map<string, Set<Shape>>; prefixes: Map<string, Set<string>> } {
  const shapes = new Map<string, Set<Shape>>();
  const prefixes = new Map<string, Set<string>>();
  const add = (name: string, v: unknown) => {
    if (typeof v !== 'string' || v.trim() === '') return;
    shapes.set(name, (shapes.get(name) ?? new Set<Shape>()).add(shapeOf(v)));
    const prefix = prefixOf(v);
    if (prefix) prefixes.set(name, (prefixes.get(name) ?? new Set<string>()).add(prefix));
  };
  for (const call of calls.values()) for (const [name, v] of Object.entries(call.args)) add(name, v);
  for (const [name, values] of fields) for (const v of values) add(name, v);
  return { shapes, prefixes };
}

/**
 * A value taken with no word of the parameter's name beside it must fit more closely: a code
 * whose capital prefix no earlier value of the parameter had ("BK-6012" for a member known as
 * `LM-20931`) names another kind of record.
 */
function fitsUnnamed(p: Parameter, v: Value, s: Search): boolean {
  if (typeof v !== 'string') return true;
  const known = s.prefixes.get(p.name);
  const prefix = prefixOf(v);
  return !known || known.size === 0 || prefix === undefined || known.has(prefix);
}

/**
 * Values each parameter of the tool is known to take: its enum values and what earlier calls
 * passed under its name. "prod-eu" is the environment, so it is not the service beside it.
 */
function siblingValues(params: readonly Parameter[], calls: ReadonlyMap<number, EarlierCall>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (v: unknown, name: string) => {
    if (typeof v !== 'string' || v.trim() === '') return;
    const k = valueKey(v);
    out.set(k, (out.get(k) ?? new Set<string>()).add(name));
  };
  const names = new Set(params.map((p) => p.name));
  for (const p of params) for (const v of p.values) add(v, p.name);
  for (const call of calls.values()) for (const [name, v] of Object.entries(call.args)) if (names.has(name)) add(v, name);
  return out;
}

/**
 * Whether a value may be the parameter's: it matches the schema's pattern, belongs to no other
 * parameter of the tool, and for a code-like parameter (an identifier, or text that is not prose)
 * has a shape earlier values of that name had. Hosts, dates and numbers are typed by their recognisers.
 */
function fits(p: Parameter, v: Value, s: Search): boolean {
  if (typeof v !== 'string') return true;
  if (p.pattern && !p.pattern.test(v)) return false;
  const owners = s.owners.get(valueKey(v));
  if (owners && !owners.has(p.name)) return false;
  if (p.kind !== 'identifier' && !(p.kind === 'text' && !p.freeText)) return true;
  return fitsShapes(v, s.shapes.get(p.name));
}

/** Arguments in the order the schema declares them, as a model writes them. */
function ordered(args: Record<string, unknown>, params: readonly Parameter[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const declared = [...params].sort((a, b) => a.index - b.index);
  for (const p of declared) if (Object.hasOwn(args, p.name)) out[p.name] = args[p.name];
  return out;
}

/** Values of the parameter's kind in a source that no other argument took. */
function candidates(p: Parameter, source: Source, words: readonly Token[], s: Search): Found[] {
  // A record's key ("line1: …", "sku: …") names the parameter; it is not its value.
  const own = s.paramKeys;
  const found = valuesOfKind(p, source, words).filter((f) => !s.used.has(valueKey(f.value)) && !own.has(valueKey(f.value)) && fits(p, f.value, s));
  if (p.kind !== 'text') return found;
  return found.filter((f) => !source.spans.some((sp) => s.claimed.has(sp.type) && sp.start === f.start));
}

// Typed values the question states are arguments even when it does not name the parameter:
// dates, enum values, hosts, emails, URLs and phones say what they are. A bare number or code
// could be anything, so it fills only a required parameter.
const SELF_EVIDENT = new Set<ParameterKind>(['enum', 'date', 'host', 'email', 'url', 'phone']);

function inQuestion(p: Parameter, s: Search): Value | undefined {
  const words = s.questionWords;
  // A flag is set only when the request says its name ("force the restart").
  if (p.kind === 'boolean') return words.some((w) => p.names.has(w.stem)) ? true : undefined;
  const found = candidates(p, s.question, words, s);
  if (p.kind === 'text') {
    const plain = plainWords(p, words, s).filter((f) => fits(p, f.value, s));
    const near = nearName(p, words, [...found, ...plain].sort((a, b) => a.start - b.start));
    // A code the request states ("the *payments-api* log") before the words that follow the verb.
    const object = objectOf(p, s);
    return near?.value ?? (p.required ? found.find((f) => fitsUnnamed(p, f.value, s))?.value : undefined) ?? (object !== undefined && fits(p, object, s) ? object : undefined);
  }
  const near = nearName(p, words, found);
  if (near) return near.value;
  // "$35" is the amount of a refund, named or not.
  if (p.measure !== undefined) {
    const measured = found.find((f) => f.type === p.measure);
    if (measured) return measured.value;
  }
  return SELF_EVIDENT.has(p.kind) || p.required ? found.find((f) => fitsUnnamed(p, f.value, s))?.value : undefined;
}

const STOPPING = new Set(
  'a an the my our your this that these those it its them is are was were be been on in at for from to with by of and or please can could would will you me us i we up all any some he she him her his hers they their theirs'.split(' '),
);
const PREPOSITION = /^(?:on|in|at|for|from|to|with|by|of|via|into|onto|using|and|please|now|again|asap|today|then|so|before|after|since|until|as)$/;
// A pronoun right after the verb means the thing acted on was named before ("restart *it* on web-04").
const PRONOUN = /^(?:it|them|that|this|those|these|one|same)$/;

/** Plain words of the question ("the *nginx* service"): a thing may be named with no code shape. Not the tool's or the parameters' own words. */
function plainWords(p: Parameter, words: readonly Token[], s: Search): Found[] {
  const own = s.ownWords;
  return words
    .filter((t) => t.word.length > 1 && !STOPPING.has(t.word) && !PREPOSITION.test(t.word) && !own.has(t.stem) && !s.used.has(valueKey(t.word)) && !inValue(s.question, t))
    .map((t) => ({ value: s.question.text.slice(t.start, t.end), start: t.start, end: t.end }));
}

/** The word is part of a number, amount, time or date: a value of another kind. */
function inValue(source: Source, t: Token): boolean {
  const over = (a: { start: number; end: number }) => a.start < t.end && a.end > t.start;
  return source.dates.some(over) || source.spans.some((sp) => over(sp) && ['number', 'quantity', 'money', 'percent', 'time'].includes(sp.type));
}

/**
 * The words between the request's verb and the first preposition ("restart *nginx* on web-03"),
 * without determiners and the tool's or parameters' own words: the thing acted on. None when
 * a pronoun stands there ("restart it"): the thing was named before.
 */
function objectOf(p: Parameter, s: Search): string | undefined {
  if (!p.required || s.verbEnd === undefined) return undefined;
  const own = s.ownWords;
  const out: Token[] = [];
  for (const t of s.questionWords) {
    if (t.start < s.verbEnd) continue;
    if (PREPOSITION.test(t.word)) break;
    if (PRONOUN.test(t.word) && out.length === 0) return undefined;
    const skip = STOPPING.has(t.word) || own.has(t.stem) || s.used.has(valueKey(t.word)) || inValue(s.question, t);
    if (skip && out.length > 0) break;
    if (!skip) out.push(t);
  }
  if (out.length === 0) return undefined;
  return s.question.text.slice(out[0].start, out[out.length - 1].end);
}

/** A scalar argument of an earlier call under the parameter's name. */
function fromCall(p: Parameter, call: EarlierCall): Value | undefined {
  const v = call.args[p.name];
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

/**
 * The context, newest statement first. `named`: an earlier call's argument of the same name, or a
 * value next to a word of the parameter's name, whichever is newer. Otherwise the newest value of
 * the parameter's kind; never for free text, flags or enums, where a word with no name beside it
 * could be anything.
 */
function inContext(p: Parameter, s: Search, named: boolean): Value | undefined {
  if (!named && (p.kind === 'text' || p.kind === 'boolean' || p.kind === 'enum')) return undefined;
  for (let i = s.units.length - 1; i >= 0; i--) {
    const unit = s.units[i];
    if (unit.speaker === 'call') {
      const call = s.calls.get(unit.item);
      const v = named && call ? fromCall(p, call) : undefined;
      if (v !== undefined && (typeof v === 'boolean' || !s.used.has(valueKey(v)))) return v;
      continue;
    }
    const field = named ? fieldValue(p, unit.text, s) : undefined;
    if (field !== undefined) return field;
    const words = tokens(unit.text);
    const found = candidates(p, unit, words, s);
    // In the context a code of another prefix is another record's ("refund RF-5602 of order FH-1188"), named or not.
    const fitting = found.filter((f) => fitsUnnamed(p, f.value, s));
    const v = named ? nearName(p, words, fitting)?.value : fitting[0]?.value;
    if (v !== undefined) return v;
  }
  return undefined;
}

const FIELD = /(?:^|, )([\p{L}][\p{L}\p{N} _]{0,40}?): (.*?)(?=, [\p{L}][\p{L}\p{N} _]{0,40}?: |$)/gu;

/** The `key: value` fields of a result's text as the context renders it (`carrier: DHL, total: 129.00`), in order. */
export function* fieldsOf(text: string): Generator<{ key: string; value: string }> {
  for (const [, key, value] of text.matchAll(FIELD)) yield { key, value };
}

/**
 * A record's field filed under the parameter's own name (`customer id: CUS-204411` for
 * `customer_id`), whole: a result states the value with its key, spaces and all.
 */
function fieldValue(p: Parameter, text: string, s: Search): Value | undefined {
  if (p.kind !== 'identifier' && p.kind !== 'text' && p.kind !== 'host' && p.kind !== 'email' && p.kind !== 'url') return undefined;
  const wanted = valueKey(nameWords(p.name));
  for (const { key: k, value: raw } of fieldsOf(text)) {
    const v = raw.trim();
    if (valueKey(nameWords(k)) !== wanted || v === '' || s.used.has(valueKey(v))) continue;
    if (fits(p, v, s) && fitsUnnamed(p, v, s)) return v;
  }
  return undefined;
}

/** The question read as a source: its spans, and its dates against the context's newest day (or the year it states). */
export function questionSource(text: string, today: Day | undefined): Source {
  const year = today?.year ?? findDates(text).find((d) => d.explicitYear)?.day.year;
  return { text, spans: findSpans(text), dates: findDates(text, today, year) };
}
