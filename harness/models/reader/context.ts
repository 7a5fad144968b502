// The reader's view of a context: every statement it could answer from, as a unit with
// who said it, on which day, and its content stems. Tool output that is JSON or a text
// table is read as records ("key: value, key: value"), so a value stays next to its name.
import { itemRole, itemText, itemType } from '../../../core/items.js';
import type { AgentInputItem } from '../../../core/types.js';
import { type DateMention, type DateStyle, type Day, dominantStyle, findDates, messageDay } from './dates.js';
import { type Span, findSpans } from './spans.js';
import { TextMemo } from './memo.js';
import { contentStems, stemsOf } from './words.js';

export type Speaker = 'user' | 'assistant' | 'tool' | 'call' | 'system';

export interface Unit {
  text: string;
  speaker: Speaker;
  /** The person a line is attributed to (`Caroline: …` in imported two-person chats). */
  speakerName?: string;
  /** Index of the item the unit came from; -1 for the system text. */
  item: number;
  /** Position among all units, oldest first. */
  index: number;
  /** The day of the message it belongs to (its own `[at]` stamp or the last one before it). */
  day?: Day;
  /** The unit asks rather than states ("Can you provide the error code?"). */
  isQuestion: boolean;
  stems: Set<string>;
  spans: Span[];
  dates: DateMention[];
  /**
   * The words of the question the other party asked just before this message ("Could you
   * confirm your patient number?" → "Born 11 March 1961, MRN 00482917."): a reply is about
   * what it was asked, in words it need not repeat.
   */
  replyTo?: ReadonlySet<string>;
  /**
   * The words of the heading before it in the same message: what it goes on about ("Region
   * owners, for the follow-up emails. AMER is Dana Whitcomb, EMEA-North is Katrin Vogel.").
   */
  follows?: ReadonlySet<string>;
}

export interface ReaderContext {
  units: Unit[];
  /** The newest day the context mentions in a message stamp: "today" for the question. */
  today?: Day;
  /** How the conversation writes dates, so computed dates read like its own. */
  style: DateStyle;
}

// Abbreviations that end in a dot without ending the sentence.
const ABBREVIATION = /(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Rev|St|Prof|Jr|Sr|Sgt|Capt|Gen|Lt|Col|No|Apt|Ave|Blvd|Rd|approx|vs|etc|Inc|Ltd|Co|Corp|e\.g|i\.e|a\.m|p\.m)|\b[A-Z])\.$/;

/** Sentences and clauses of a text: split at line breaks, sentence ends and semicolons. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    let current = '';
    for (const piece of line.split(/(?<=[.!?])\s+(?=\S)|;\s+/)) {
      current = current.length > 0 ? `${current} ${piece}` : piece;
      if (!ABBREVIATION.test(current)) {
        out.push(current.trim());
        current = '';
      }
    }
    if (current.trim().length > 0) out.push(current.trim());
  }
  return out.filter((s) => /[\p{L}\p{N}]/u.test(s));
}

function speakerOf(item: AgentInputItem): Speaker {
  const type = itemType(item);
  if (type === 'function_call') return 'call';
  if (type === 'function_call_result') return 'tool';
  const role = itemRole(item);
  if (role === 'user') return 'user';
  if (role === 'system' || role === 'developer') return 'system';
  return 'assistant';
}

const words = (key: string) => key.replace(/[_.]+/g, ' ').trim();

function scalarText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A code: a single token with a digit (`PO-2025-0412`, `RMA-55102`), not a measure or prose. */
const CODE_VALUE = /^(?=[^\s]*\p{L})(?=[^\s]*\d)[\p{L}\d][\p{L}\d._/-]*$/u;

/**
 * JSON as records: an object's scalar fields form one line; nested objects and arrays recurse.
 * A row of a list keeps its parents' codes after its own fields ("items serial: PF4X9K27, …,
 * po: PO-2025-0412"): a row says what it belongs to only with them, and the code links it to
 * what else is said of its parent. The parents' other fields describe the parent, not the row,
 * and repeated on every row they would make its words look common.
 */
function jsonRecords(value: unknown, path: string, out: string[], inherited: readonly string[] = []): void {
  if (Array.isArray(value)) {
    const scalars = value.map(scalarText).filter((v): v is string => v !== undefined);
    if (scalars.length > 0) out.push(`${path ? `${words(path)}: ` : ''}${scalars.join(', ')}`);
    for (const entry of value) if (typeof entry === 'object' && entry !== null) jsonRecords(entry, path, out, inherited);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const fields: string[] = [];
  const codes: string[] = [];
  const nested: [string, unknown][] = [];
  for (const [key, v] of Object.entries(value)) {
    const scalar = scalarText(v);
    if (scalar !== undefined) {
      fields.push(`${words(key)}: ${scalar}`);
      if (typeof v === 'string' && CODE_VALUE.test(v)) codes.push(`${words(key)}: ${v}`);
    } else if (typeof v === 'object' && v !== null) nested.push([key, v]);
  }
  if (fields.length > 0) out.push(`${path ? `${words(path)} ` : ''}${[...fields, ...inherited].join(', ')}`);
  for (const [key, v] of nested) jsonRecords(v, key, out, Array.isArray(v) ? codes : []);
}

// A tool's result is read here, by the tool rule's argument shapes and by its answers from
// results, and recurs across probes: each text is parsed once. Nothing changes the value.
const parsed = new TextMemo<unknown>();

/** A JSON object or array text, parsed; undefined for anything else. Never change the value. */
export function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  return parsed.get(trimmed, () => {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return undefined;
    }
  });
}

const TABLE_RULE = /^\s*[-+|=\s]{3,}$/;

function cells(line: string): string[] {
  return line.split('|').map((c) => c.trim());
}

/** Where a text table's rule under its header row is (psql's `----+----`, markdown's `|---|`), or -1. */
export function tableRuleAt(lines: readonly string[]): number {
  return lines.findIndex((l, i) => i > 0 && TABLE_RULE.test(l) && l.includes('-') && lines[i - 1].includes('|'));
}

/** A text table (psql, markdown) as records: each row becomes "column: value, …". */
function tableRecords(lines: string[]): string[] | undefined {
  const rule = tableRuleAt(lines);
  if (rule < 0) return undefined;
  const header = cells(lines[rule - 1]);
  const out = lines.slice(0, rule - 1).filter((l) => /[\p{L}\p{N}]/u.test(l));
  let i = rule + 1;
  for (; i < lines.length && lines[i].includes('|'); i++) {
    const row = cells(lines[i]);
    out.push(row.map((v, c) => (header[c] ? `${words(header[c])}: ${v}` : v)).filter((v) => v.replace(/[:\s]/g, '').length > 0).join(', '));
  }
  const rest = lines.slice(i);
  return [...out, ...(tableRecords(rest) ?? rest)];
}

/** The statements of one item's text, records for structured tool output. */
function statements(text: string, speaker: Speaker): string[] {
  if (speaker === 'tool' || speaker === 'call') {
    const call = speaker === 'call' ? /^([\w.-]+)\(([\s\S]*)\)$/.exec(text) : null;
    const json = parseJson(call ? call[2] : text);
    if (json !== undefined) {
      const out: string[] = [];
      jsonRecords(json, '', out);
      return call ? out.map((r) => `${words(call[1])} ${r}`) : out;
    }
    const table = tableRecords(text.split('\n'));
    if (table) return table.flatMap((line) => splitSentences(line));
  }
  return splitSentences(text);
}

const SPEAKER_PREFIX = /^(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*){0,2}): (?=\S)/u;

// A line's stems with its speaker's name: every line of an imported chat has one.
const spokenStems = new TextMemo<Set<string>>();

const SECOND_PERSON = /\b(?:you|your|yours|yourself|you're|you've|you'll|you'd)\b/i;

/**
 * A speaker's name set off by a comma or an exclamation at either end of a sentence addresses
 * that speaker: "Thanks, Caroline!", "Yep Jon, staying focused is key", "Yeah, Caroline, my
 * family's been great". A line of a named chat that only addresses someone says nothing about
 * them, so the name is not among its words, unless the line speaks to them of theirs ("you", "your").
 */
function addressed(text: string, speakerName: string, names: readonly string[]): string[] {
  // "Melanie, your bowl looked lovely" is about her all the same.
  if (SECOND_PERSON.test(text)) return [];
  return names.filter((name) => {
    // The name must appear once: "Caroline, Caroline's painting is lovely" still names her.
    if (name === speakerName || text.split(name).length !== 2) return false;
    const at = text.indexOf(name);
    const before = text.slice(0, at);
    const after = text.slice(at + name.length);
    const opens = /^(?:\p{L}+[\s,]+)?$/u.test(before) && /^\s*[,!]/.test(after);
    const closes = /,\s*$/.test(before) && /^\s*(?:[,!?.]|$)/.test(after);
    return opens || closes;
  });
}

/** A named line's words: its own, less the names it only addresses, and its speaker's name. */
function spokenBy(speakerName: string, text: string, stems: ReadonlySet<string>, names: readonly string[]): Set<string> {
  const out = new Set(stems);
  for (const name of addressed(text, speakerName, names)) for (const s of stemsOf(name)) out.delete(s);
  for (const s of stemsOf(speakerName)) out.add(s);
  return out;
}

/** Gives each line of a named chat (`Caroline: …`) its words as `spokenBy` reads them, once every speaker is known. */
function nameSpeakers(units: Unit[]): void {
  const speakers = [...new Set(units.flatMap((u) => (u.speakerName ? [u.speakerName] : [])))];
  const key = speakers.join('\0');
  for (const u of units) {
    const name = u.speakerName;
    if (name) u.stems = spokenStems.get(`${name}\0${key}\0${u.text}`, () => spokenBy(name, u.text, u.stems, speakers));
  }
}

const analyses = new TextMemo<{ stems: Set<string>; spans: Span[] }>();
// Dates depend on the day a statement was made, so they are kept per text and day.
const datings = new TextMemo<DateMention[]>();

function analyse(text: string): { stems: Set<string>; spans: Span[] } {
  return analyses.get(text, () => ({ stems: contentStems(text), spans: findSpans(text) }));
}

function datesOf(text: string, day: Day | undefined, fallbackYear?: number): DateMention[] {
  const key = day ? `${day.year}-${day.month}-${day.day}|${text}` : `${fallbackYear ?? ''}|${text}`;
  return datings.get(key, () => findDates(text, day, day?.year ?? fallbackYear));
}

/** A year placeholder that keeps 29 February a date, for a context that never says the year. */
const NO_YEAR = 2000;

/**
 * Statements said before any day stamp still have dates ("The deck is due Thursday 12 June"):
 * read in the year the context states elsewhere, or a placeholder year. Answers quote a
 * date as written, so the placeholder only ever takes part in day differences.
 */
function dateUndated(units: Unit[], today: Day | undefined): void {
  const undated = units.filter((u) => u.day === undefined);
  if (undated.length === 0) return;
  const stated = units.flatMap((u) => u.dates).find((d) => d.explicitYear)?.day.year;
  const year = today?.year ?? stated ?? NO_YEAR;
  for (const u of undated) u.dates = datesOf(u.text, undefined, year);
}

/** A session header as the conversation wrote it (`[Session 1: 1:56 pm on 8 May, 2023]`). */
const SESSION_TEXT = /\[Session[^\]]*\]/g;

interface Line {
  text: string;
  speakerName?: string;
}

/**
 * Lines of a message with their day stamps removed and speaker names split off. A written
 * session date (`[Session 1: 1:56 pm on 8 May, 2023]`) also tells how the conversation writes
 * dates; it goes to `styles`.
 */
function lines(text: string, day: { current?: Day }, styles: DateMention[]): Line[] {
  const out: Line[] = [];
  for (const raw of text.split('\n')) {
    // Only the header's own words: an `[at]` stamp before it is written by the harness, not the conversation.
    for (const header of raw.matchAll(SESSION_TEXT)) styles.push(...findDates(header[0]).filter((d) => !d.relative && d.precision === 'day'));
    let line = raw;
    for (let stamp = messageDay(line); stamp; stamp = messageDay(line)) {
      day.current = stamp.day;
      if (stamp.rest === line) break;
      line = stamp.rest;
    }
    line = line.trim();
    if (line.length === 0) continue;
    const named = SPEAKER_PREFIX.exec(line);
    out.push(named ? { text: line.slice(named[0].length), speakerName: named[1] } : { text: line });
  }
  return out;
}

/** A heading: a short statement with no value of its own ("Region owners, for the follow-up emails."). */
const HEADING_WORDS = 8;

/** Gives each statement of a user or assistant message that follows a heading the heading's words (see `Unit.follows`). */
function linkFollowing(units: Unit[]): void {
  for (let i = 1; i < units.length; i++) {
    const unit = units[i];
    const before = units[i - 1];
    if (before.item !== unit.item || (unit.speaker !== 'user' && unit.speaker !== 'assistant')) continue;
    if (before.spans.length === 0 && !before.isQuestion && before.text.split(/\s+/).length <= HEADING_WORDS) unit.follows = before.stems;
  }
}

/**
 * Gives the first unit of each user or assistant message the stems of the questions the other
 * party asked in its last message, and each unit of a tool's output the stems of the call it
 * answers; tool calls and output between two messages do not break their pair.
 */
function linkReplies(units: Unit[]): void {
  let asked: { speaker: Speaker; stems: Set<string> } | undefined;
  let current: { item: number; speaker: Speaker; stems: Set<string> } | undefined;
  let call: { item: number; stems: Set<string> } | undefined;
  for (const unit of units) {
    if (unit.speaker === 'call') {
      if (call?.item !== unit.item) call = { item: unit.item, stems: new Set() };
      for (const s of unit.stems) call.stems.add(s);
    }
    // Tool output answers the call just before it: `issue refund reason: duplicate_charge` → `expected by: 2026-03-12`.
    if (unit.speaker === 'tool' && call?.item === unit.item - 1) unit.replyTo = call.stems;
    if (unit.speaker !== 'user' && unit.speaker !== 'assistant') continue;
    const first = !current || current.item !== unit.item;
    if (first) {
      if (current) asked = { speaker: current.speaker, stems: current.stems };
      current = { item: unit.item, speaker: unit.speaker, stems: new Set() };
    }
    if (unit.isQuestion) for (const s of unit.stems) current!.stems.add(s);
    // The answer comes first; what follows may change the subject ("By the way, …"). A greeting
    // before it ("Cool, Gina!", "Yeah, me too!") passes the question on to the statement after it.
    const before = units[unit.index - 1];
    const afterGreeting = !first && before.replyTo !== undefined && greets(before);
    if ((first || afterGreeting) && asked && asked.speaker !== unit.speaker && asked.stems.size > 0) unit.replyTo = asked.stems;
    if (afterGreeting) before.replyTo = undefined;
  }
}

/** A short statement with no value in it: a greeting or an interjection ("Cool, Gina!"), not an answer; "Yes." and "No." answer. */
function greets(unit: Unit): boolean {
  if (unit.isQuestion || YES_OR_NO.test(unit.text)) return false;
  return unit.text.split(/\s+/).length <= GREETING_WORDS && unit.spans.every((s) => s.type === 'name');
}

const YES_OR_NO = /^\W*(?:yes|yeah|yep|yup|no|nope|nah|not|sure|of course|correct|right)\b/i;

const GREETING_WORDS = 3;

/** Builds the units of a request's context (the system text, then each item in order). */
export function readContext(system: string | undefined, items: AgentInputItem[]): ReaderContext {
  const units: Unit[] = [];
  const styles: DateMention[] = [];
  const day: { current?: Day } = {};
  let today: Day | undefined;
  const add = (text: string, speaker: Speaker, item: number, speakerName?: string) => {
    const { stems, spans } = analyse(text);
    units.push({
      text,
      speaker,
      speakerName,
      item,
      index: units.length,
      day: day.current,
      isQuestion: /\?["')\]]*$/.test(text),
      stems,
      spans,
      dates: datesOf(text, day.current),
    });
  };
  if (system) for (const s of splitSentences(system)) add(s, 'system', -1);
  items.forEach((item, i) => {
    const speaker = speakerOf(item);
    const text = itemText(item);
    if (speaker === 'tool' || speaker === 'call') {
      for (const s of statements(text, speaker)) add(s, speaker, i);
      return;
    }
    for (const line of lines(text, day, styles)) {
      for (const s of statements(line.text, speaker)) add(s, speaker, i, line.speakerName);
    }
    if (day.current) today = day.current;
  });
  nameSpeakers(units);
  dateUndated(units, today);
  linkReplies(units);
  linkFollowing(units);
  // How people in the conversation write dates; tool output and calls write ISO for machines.
  const written = units.filter((u) => u.speaker !== 'tool' && u.speaker !== 'call');
  const mentions = [...styles, ...written.flatMap((u) => u.dates.filter((d) => !d.relative))];
  return { units, today, style: dominantStyle(mentions) };
}
