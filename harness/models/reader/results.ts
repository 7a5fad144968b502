// Answers read straight from structured tool results: the record whose values match the
// question's words, then the field whose key names what the question asks for. A result is
// data, not prose: the sentence-level reader scores a whole record as one statement and so
// cannot tell `refund id` from `order id` in it, or the DE row of a table from the AT row.
// The rule is stated in the README ("Answers from tool results").
import { callIdOf, isUserMessage, itemText, itemType } from '../../../core/items.js';
import { isRecord } from '../../../core/record.js';
import { normalizeText, stem } from '../../../core/text.js';
import type { AgentInputItem } from '../../../core/types.js';
import { parseJson, tableRuleAt } from './context.js';
import { type DateStyle, MONTH_NAMES, formatDay } from './dates.js';
import { contentStems, isAskingWord, nameWords, stemsOf } from './words.js';

interface Field {
  key: string;
  value: string;
  /** Stems of the key's words (`cancel_free_until` → cancel, free, until). */
  keyStems: ReadonlySet<string>;
}

/** One record of a result: a JSON object (with its parents' scalars), a table row, or a log line. */
export interface ResultRecord {
  fields: Field[];
  /**
   * What the record is about: the stems of its values and keys (weight 1), and of the call's
   * name and arguments and the user's message that led to it (CALL_WEIGHT: free text, a note
   * or a query, names more than the result returns).
   */
  about: Map<string, number>;
  /** Position among all records, oldest first: a tie goes to the newer. */
  index: number;
}

export type AnswerType = 'id' | 'date' | 'number' | 'key';

const CALL_WEIGHT = 0.5;

/** The least share of the question's content words a record and its field must cover. */
const MIN_RESULT_COVERAGE = 0.6;

const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());

/** Month markers, so "November" meets `2025-11` and `2025-11-14`: results write months as ISO numbers. */
function monthStems(text: string, iso: boolean): string[] {
  if (iso) return [...text.matchAll(/\b\d{4}-(\d{2})(?:-\d{2})?\b/g)].map((m) => `month:${Number(m[1])}`);
  const words = normalizeText(text).split(' ');
  return MONTHS.flatMap((m, i) => (words.includes(m) || words.includes(m.slice(0, 3)) ? [`month:${i + 1}`] : []));
}

function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function field(key: string, value: string): Field {
  return { key, value, keyStems: stemsOf(nameWords(key)) };
}

/**
 * Records of a JSON value. An object's scalars, lists of scalars and nested objects' scalars
 * (`config.render_pool_size`) form one record; each object of a list is a record of its own
 * that keeps its parents' scalars (a `series` row keeps the `country` of its query).
 */
function jsonRecords(value: unknown, inherited: Field[], out: Field[][]): void {
  if (Array.isArray(value)) {
    for (const v of value) if (isRecord(v) || Array.isArray(v)) jsonRecords(v, inherited, out);
    return;
  }
  if (!isRecord(value)) return;
  const own: Field[] = [];
  const lists: unknown[] = [];
  const flatten = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix} ${k}` : k;
      const s = scalar(v);
      if (s !== undefined) own.push(field(key, s));
      else if (Array.isArray(v) && v.every((e) => scalar(e) !== undefined) && v.length > 0) own.push(field(key, v.map(String).join(', ')));
      else if (Array.isArray(v)) lists.push(v);
      else if (isRecord(v)) flatten(v, key);
    }
  };
  flatten(value, '');
  const fields = [...inherited, ...own];
  // A container whose rows hold the data is context for them, not a record to answer from.
  if (lists.length === 0 || own.length > 0) out.push(fields);
  for (const l of lists) jsonRecords(l, fields, out);
}

/** Rows of a text table (psql, markdown) as records, each cell under its column. */
function tableRecords(lines: string[]): Field[][] | undefined {
  const rule = tableRuleAt(lines);
  if (rule < 0) return undefined;
  const cells = (l: string) => l.replace(/^\s*\|/, '').replace(/\|\s*$/, '').split('|').map((c) => c.trim());
  const header = cells(lines[rule - 1]);
  const out: Field[][] = [];
  for (let i = rule + 1; i < lines.length && lines[i].includes('|'); i++) {
    out.push(cells(lines[i]).flatMap((v, c) => (header[c] && v ? [field(header[c], v)] : [])));
  }
  return out;
}

/** Log and text lines: each line a record of its `key=value` and `key: value` pairs, its words as context. */
function lineRecords(lines: string[]): { fields: Field[]; text: string }[] {
  return lines.map((text) => ({
    text,
    // `key=value` anywhere; `Key: value` only as the whole line, else it is a log's source (`FontCache: glyph …`).
    fields: [
      ...[...text.matchAll(/\b([A-Za-z][\w.-]{0,30})=("[^"]*"|[^\s,;()]+)/g)].map((m) => field(m[1], m[2].replace(/^"|"$/g, ''))),
      ...[...text.matchAll(/^\s*([A-Za-z][\w .-]{0,30}):\s+(\S.{0,60})$/g)].map((m) => field(m[1], m[2].trim())),
    ],
  }));
}

/** A value's stems; `churned_subscribers` is the words it joins. */
function valueStems(value: string): string[] {
  return [...stemsOf(value.replace(/_/g, ' '))];
}

function callStems(call: AgentInputItem | undefined): Set<string> {
  if (!call) return new Set();
  const rec = call as Record<string, unknown>;
  const args = typeof rec.arguments === 'string' ? rec.arguments : JSON.stringify(rec.arguments ?? '');
  return contentStems(`${nameWords(String(rec.name ?? ''))} ${args.replace(/[{}"\[\]]/g, ' ')}`);
}

/** Every record of the readable tool results in the items, oldest first. */
export function resultRecords(items: readonly AgentInputItem[]): ResultRecord[] {
  const calls = new Map<string, AgentInputItem>();
  const requests = new Map<string, ReadonlySet<string>>();
  const out: ResultRecord[] = [];
  // Stems of texts that recur across probes (keys, values, the user's messages) are worked out once.
  let request: ReadonlySet<string> = new Set();
  for (const item of items) {
    const type = itemType(item);
    const id = callIdOf(item);
    if (isUserMessage(item)) request = stemsOf(itemText(item));
    if (type === 'function_call' && id) {
      calls.set(id, item);
      requests.set(id, request);
    }
    if (type !== 'function_call_result') continue;
    const text = itemText(item).trim();
    // The user's words that led to the call ("file the *windscreen* claim") say what its result is about.
    const fromCall = new Set([...(id ? requests.get(id) ?? [] : []), ...callStems(id ? calls.get(id) : undefined)]);
    const add = (fields: Field[], extra = '') => {
      if (fields.length === 0) return;
      const about = new Map<string, number>();
      for (const s of fromCall) about.set(s, CALL_WEIGHT);
      const own = [...stemsOf(extra)];
      for (const f of fields) own.push(...valueStems(f.value), ...f.keyStems, ...monthStems(f.value, true));
      for (const s of own) about.set(s, 1);
      out.push({ fields, about, index: out.length });
    };
    const json = parseJson(text);
    if (json !== undefined) {
      const records: Field[][] = [];
      jsonRecords(json, [], records);
      records.forEach((r) => add(r));
      continue;
    }
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const table = tableRecords(lines);
    if (table) table.forEach((r) => add(r));
    else for (const { fields, text: line } of lineRecords(lines)) add(fields, line);
  }
  return out;
}

// ---------------------------------------------------------------------------
// The question

// Words that ask for an identifier, and the key words that file one.
const ID_ASK = /\b(?:reference|ref|id|ids|number|no|code|confirmation|locator|identifier)\b/i;
const ID_KEY = new Set(['id', 'ref', 'refer', 'referenc', 'number', 'no', 'code', 'confirm', 'confirmation', 'locator', 'identifi'].map(stem));
const DATE_ASK = /^\s*(?:(?:until|by|since|from)\s+)?when\b|\b(?:what|which)\s+(?:date|day|time)\b|\buntil when\b|\bdeadline\b/i;
const NUMBER_ASK = /\bhow\s+(?:many|much|long|big|large|far|high|low|fast|old)\b/i;
// Keys that hold the measured value of a row, when no key names what is asked.
const GENERIC_VALUE_KEYS = new Set(['value', 'count', 'total', 'amount', 'result', 'n'].map(stem));

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
// Words for one thing that results file under other keys: what was paid under `price`, `cost`
// or `fare`; how long under `duration` or `elapsed`. A family counts once toward what is asked.
const PRICE_WORDS = new Set(['pay', 'paid', 'price', 'cost', 'charge', 'charged', 'fare', 'spent', 'spend'].map(stem));
const DURATION_WORDS = new Set(['duration', 'elapsed', 'length', 'took', 'runtime'].map(stem));
const FAMILIES = [PRICE_WORDS, DURATION_WORDS];
const inFamily = (w: string) => FAMILIES.some((f) => f.has(w));

/** The question's content stems with month markers, digits for number words, and `price` for a word of paying. */
function askedStems(question: string, type: AnswerType): Set<string> {
  // A code word ("reference", "number") asks for the id type, which the field's fit answers; it need not be in the record.
  const asked = new Set([...contentStems(question)].filter((s) => !isAskingWord(s) && !(type === 'id' && ID_KEY.has(s))));
  for (const m of monthStems(question, false)) asked.add(m);
  for (const w of normalizeText(question).split(' ')) {
    const n = NUMBER_WORDS.indexOf(w);
    if (n >= 0) asked.add(String(n));
  }
  if (/\bhow long\b/i.test(question)) asked.add(stem('duration'));
  for (const family of FAMILIES) if ([...asked].some((s) => family.has(s))) for (const s of family) asked.add(s);
  return asked;
}

/** What kind of value the question asks for. */
export function answerType(question: string): AnswerType {
  if (DATE_ASK.test(question)) return 'date';
  if (NUMBER_ASK.test(question)) return 'number';
  if (ID_ASK.test(question)) return 'id';
  return 'key';
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?Z?)?$/;
const NUMERIC = /^-?[\d,]*\.?\d+(?:\s*[a-z%]{0,4})?$/i;
const ID_LIKE = /^(?=[A-Za-z0-9-_]*\d)(?=[A-Za-z0-9-_]*[A-Za-z])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+$|^[A-Z0-9]{5,}$/;

/**
 * How well a field's value has the asked type: 1 fits, 0 does not. A key the question names
 * ("the *run* number") makes a bare number an identifier (`run=8812`).
 */
function typeFit(type: AnswerType, f: Field, named: boolean): number {
  switch (type) {
    case 'date':
      return ISO_DATE.test(f.value) ? 1 : 0;
    case 'number':
      return NUMERIC.test(f.value) ? 1 : 0;
    case 'id':
      return [...f.keyStems].some((s) => ID_KEY.has(s)) || ID_LIKE.test(f.value) || (named && /^#?\d+$/.test(f.value)) ? 1 : 0;
    case 'key':
      return 1;
  }
}

interface Pick {
  record: ResultRecord;
  field: Field;
  score: number;
}

/**
 * The answer a result holds for the question, or undefined when no record matches well. Each
 * record scores the question's content words its values, keys and call contain (each weighted
 * by how few records hold it); each of its fields scores the question words its key holds,
 * whether its value has the asked type, and, for a number asked with no key named, a generic
 * value key (`value`, `count`). The best (record, field) answers when its words cover
 * MIN_RESULT_COVERAGE of the question's and the field's key or type was asked for; a tie
 * goes to the newer record. A value the question states itself is never the answer.
 */
export function resultAnswer(question: string, records: readonly ResultRecord[], style: DateStyle = 'month-day'): string | undefined {
  if (records.length === 0) return undefined;
  const type = answerType(question);
  const asked = askedStems(question, type);
  if (asked.size === 0) return undefined;
  // What the question states, number words as digits too: "the two nights" states `nights: 2`.
  const words = [...asked];
  const said = ` ${normalizeText(question)} ${words.filter((w) => /^\d+$/.test(w)).join(' ')} `;
  const rarity = new Map<string, number>();
  for (const w of asked) {
    // Rarity is counted over what records hold themselves: the words around a call repeat across its records.
    const df = records.filter((r) => r.about.get(w) === 1).length;
    // A word no record holds weighs least: a result never says "German" for `DE`.
    rarity.set(w, df === 0 ? 1 : 1 + Math.log(records.length / df));
  }
  const weight = (w: string) => rarity.get(w) ?? 1;
  // The words of a family stand in for each other: only one of them counts toward what the question says.
  const families = (words: string[]) => FAMILIES.filter((f) => words.some((w) => f.has(w))).length;
  const total = words.filter((w) => !inFamily(w)).reduce((s, w) => s + weight(w), 0) + families(words);
  const older = ORIGINAL.test(question);
  let best: Pick | undefined;
  for (const record of records) {
    const covered = words.filter((w) => record.about.has(w));
    const about = covered.filter((w) => !inFamily(w)).reduce((s, w) => s + weight(w) * (record.about.get(w) ?? 0), 0) + families(covered);
    for (const f of record.fields) {
      const pick = scoreField(f, covered, about, total, type, asked, said);
      // A tie goes to the newer record, or to the older when the question asks for the original.
      if (pick !== undefined && (!best || pick > best.score + 1e-9 || (!older && pick >= best.score - 1e-9))) best = { record, field: f, score: pick };
    }
  }
  return best ? asWritten(withUnit(best.field, best.record), style) : undefined;
}

const ORIGINAL = /\b(?:original|originally|first|initial|earliest|old)\b/i;

/** The score of answering with one field of a record, or undefined when it may not answer. */
function scoreField(f: Field, covered: string[], about: number, total: number, type: AnswerType, asked: Set<string>, said: string): number | undefined {
  const v = normalizeText(f.value);
  if (v === '' || said.includes(` ${v} `) || f.value.length > 80) return undefined;
  const keyHits = [...f.keyStems].filter((s) => asked.has(s)).length;
  const fit = typeFit(type, f, keyHits > 0);
  if (type !== 'key' && fit === 0) return undefined;
  const generic = type === 'number' && [...f.keyStems].some((s) => GENERIC_VALUE_KEYS.has(s));
  // The field must be what is asked: its key is named, or it is the record's value of the asked type.
  if (keyHits === 0 && !(generic || (type === 'id' && fit > 0 && [...f.keyStems].some((s) => ID_KEY.has(s))) || (type === 'date' && fit > 0))) return undefined;
  if (about / total < MIN_RESULT_COVERAGE) return undefined;
  // A key that is wholly asked for is better than one that shares a word with the question.
  const keyShare = f.keyStems.size === 0 ? 0 : keyHits / f.keyStems.size;
  return about + 2 * keyShare + keyHits + (generic ? 0.5 : 0) + fit * 0.5 + covered.length * 0.01;
}

/**
 * An ISO date or time as the conversation writes dates (`2026-06-13T18:00` → "June 13, 2026 at
 * 18:00"): results write for machines, answers are read by people.
 */
function asWritten(value: string, style: DateStyle): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}:\d{2}))?(?::\d{2}(?:\.\d+)?)?(Z)?$/.exec(value);
  if (!m || style === 'iso') return value;
  const day = formatDay({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, style, true);
  return m[4] ? `${day} at ${m[4]}${m[5] ? ' UTC' : ''}` : day;
}

/** A sum with the currency its record files it in (`amount: 98.97`, `currency: EUR` → "98.97 EUR"). */
function withUnit(f: Field, record: ResultRecord): string {
  if (!NUMERIC.test(f.value) || /[a-z%]$/i.test(f.value)) return f.value;
  const currency = record.fields.find((c) => /^(?:currency|ccy)$/i.test(c.key) && /^[A-Z]{3}$/.test(c.value));
  return currency && /amount|price|total|fare|sum|cost/i.test(f.key) ? `${f.value} ${currency.value}` : f.value;
}
