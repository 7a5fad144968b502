// Computed answers: time between two events, and the difference of two amounts.
import { stem } from '../../../core/text.js';
import type { ReaderContext, Unit } from './context.js';
import { type Day, addDays, daysBetween, findDurations, formatDay, pad2 } from './dates.js';
import { type Question, analyseQuestion } from './question.js';
import { type Span, parseNumber } from './spans.js';
import { anchors, besideWords, nearest } from './extract.js';
import { anchorGroups, clauseBounds } from './clauses.js';
import { find } from './retrieve.js';
import { datesIn, typedSpans } from './typed.js';
import { contentStems } from './words.js';

interface Moment {
  /** The statement that dates it. */
  unit?: Unit;
  day: Day;
  /** How precisely it was dated: "ten years ago" names a year, not the day. */
  precision?: 'day' | 'month' | 'year';
  minutes?: number;
  label: string;
}

function timeOfDay(text: string): number | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::\d{2})?\s*(am|pm|a\.m\.|p\.m\.)?/i.exec(text.trim());
  if (!m) return undefined;
  let hours = Number(m[1]);
  const pm = m[3]?.toLowerCase().startsWith('p');
  if (pm && hours < 12) hours += 12;
  if (m[3] && !pm && hours === 12) hours = 0;
  return hours * 60 + Number(m[2]);
}

const IRREGULAR_PAST = new Set(
  (
    'began begun broke broken came went gone got gotten left lost made paid sent sold spent took taken told won wrote written ran ' +
    'held kept met found bought brought caught fell fallen flew flown gave given grew hit hurt quit rose saw seen set shut ' +
    'sat stood stole struck swore threw thrown woke'
  ).split(' '),
);

/**
 * The verbs of an event phrase ("the shoes were *delivered*", "the error ratio *dropping*"): what
 * tells one event about the shoes from another, so a statement that has them dates it first.
 */
function eventVerbs(phrase: string): Set<string> {
  const out = new Set<string>();
  for (const word of phrase.toLowerCase().split(/[^\p{L}]+/u)) {
    if (word.length > 4 && /(?:ed|ing)$/.test(word)) out.add(stem(word));
    else if (IRREGULAR_PAST.has(word)) out.add(word);
  }
  return out;
}

/** Endings of nouns that name an event by its verb ("mitigation", "delivery", "arrival", "payment"), and what stays of the verb. */
const EVENT_NOUN_ENDINGS: [RegExp, string][] = [
  [/ation$/, 'at'],
  [/ion$/, ''],
  [/ment$/, ''],
  [/al$/, ''],
  [/ur$/, ''],
  [/ery$/, 'er'],
];

/**
 * The verb an event noun of the phrase comes from, as a stem ("mitigation" → "mitigat", which
 * "mitigated" has): "from the first error to *mitigation*" is dated by "Good, *mitigated* at 11:47".
 */
function nounVerbs(phrase: string): Set<string> {
  const out = new Set<string>();
  for (const word of contentStems(phrase)) {
    for (const [ending, rest] of EVENT_NOUN_ENDINGS) {
      if (word.length < 7 || !ending.test(word)) continue;
      out.add(word.replace(ending, rest));
      break;
    }
  }
  return out;
}

/** Verbs of finding something out: "*spotting* the cents problem" happened when it was first mentioned. */
const DISCOVERY = /^(?:(?:we|i|you|they)\s+)?(?:first\s+)?(?:spott(?:ed|ing)|spot|notic(?:e|ed|ing)|discover(?:ed|ing)?|flagg(?:ed|ing)|first (?:mention(?:ed|ing)?|rais(?:ed|ing)))\s+(.+)$/i;
/** Nouns that only say there was something ("the cents *problem*"): the word before them tells which. */
const GENERIC_NOUNS = new Set(['problem', 'issue', 'bug', 'error', 'thing', 'glitch', 'mistake', 'mix-up', 'discrepancy'].map(stem));

/**
 * An event of finding something out ("spotting the cents problem", "noticing the leak") is
 * dated by the first statement that mentions the thing, which is when it came up, not by a
 * later one that refers back to it ("that closes the cents problem").
 */
function firstMention(phrase: string, ctx: ReaderContext, other?: Moment): Moment | undefined {
  const object = DISCOVERY.exec(phrase.trim().replace(/[?.!]+$/, ''))?.[1];
  if (!object) return undefined;
  const stems = [...contentStems(object)].filter((s) => !GENERIC_NOUNS.has(s));
  if (stems.length === 0) return undefined;
  const unit = ctx.units.find((u) => !u.isQuestion && u !== other?.unit && stems.every((s) => u.stems.has(s)));
  // It came up the day it was said, whatever dates the statement names.
  const day = unit?.day;
  if (!unit || !day) return undefined;
  return { unit, day, precision: 'day', label: formatDay(day, ctx.style, false) };
}

/** "The *original* window end": the first value of a slot that later changed. */
const ORIGINAL = /\b(?:original(?:ly)?|initial(?:ly)?|old|previous(?:ly)?|planned)\b/i;
/** Words that name the end or the start of a range, not what it is of. */
const RANGE_END = /\b(?:end|ends|ending|close|closes|finish|finishes)\b/i;
const RANGE_START = /\b(?:start|starts|starting|begin|begins|beginning|open|opens|opening)\b/i;
const RANGE_WORDS = new Set(['end', 'ending', 'close', 'finish', 'start', 'begin', 'beginning', 'open', 'opening'].map(stem));

/**
 * The earliest statement of the slot `found` states, when the phrase asks its original value:
 * one with every noun of the phrase but the version and range words and a value of the
 * wanted kind ("Window is 01:00 to 03:00 UTC" before "The window now ends at 03:30").
 */
function firstOfSlot(found: Unit, phrase: string, ctx: ReaderContext, wantTime: boolean): Unit | undefined {
  const words = [...contentStems(phrase.replace(ORIGINAL, ' '))].filter((s) => !RANGE_WORDS.has(s) && found.stems.has(s));
  if (words.length === 0) return undefined;
  const hasValue = (u: Unit) => (wantTime ? u.spans.some((s) => s.type === 'time') : u.dates.length > 0);
  return ctx.units.find((u) => u.index < found.index && !u.isQuestion && hasValue(u) && words.every((w) => u.stems.has(w)));
}

/** The end of a range of two times ("01:00 to 03:00") for a phrase about its end, its start for one about its start. */
function rangeEnd(times: Span[], text: string, phrase: string): Span | undefined {
  for (let i = 0; i + 1 < times.length; i++) {
    const between = text.slice(times[i].end, times[i + 1].start);
    if (!/^\s*(?:to|until|till|-|–|and)\s*$/i.test(between)) continue;
    if (RANGE_END.test(phrase)) return times[i + 1];
    if (RANGE_START.test(phrase)) return times[i];
  }
  return undefined;
}

/** When an event happened: the date or time its statement gives, else the day it was said. */
function momentOf(phrase: string, ctx: ReaderContext, cache: Map<string, number>, wantTime: boolean, other?: Moment): Moment | undefined {
  if (/^(today|now|this (?:intake|check-in|call|chat))\b/i.test(phrase.trim()) || /\btoday\b/i.test(phrase)) {
    return ctx.today ? { day: ctx.today, label: formatDay(ctx.today, ctx.style, false) } : undefined;
  }
  const first = firstMention(phrase, ctx, other);
  if (first) return first;
  const q = analyseQuestion(phrase, true);
  const verbs = nounVerbs(phrase);
  const asWhen: Question = { ...q, stems: new Set([...q.stems, ...verbs]), type: wantTime ? 'time' : 'date', focus: new Set([...eventVerbs(phrase), ...verbs]), event: true };
  // The two events of a computation are two statements: the other event's is not this one's.
  const exclude = other?.unit ? new Set([other.unit]) : undefined;
  // A statement with the event's verb first; failing that, the best statement about it at all.
  const found = find(ctx, asWhen, new Set(), cache, exclude) ?? find(ctx, { ...asWhen, focus: q.focus }, new Set(), cache, exclude);
  if (!found) return undefined;
  const unit = (ORIGINAL.test(phrase) && firstOfSlot(found.unit, phrase, ctx, wantTime)) || found.unit;
  const groups = anchorGroups(unit, found.matched);
  const points = groups.flat();
  const clauses = clauseBounds(unit.text);
  const times = unit.spans.filter((s) => s.type === 'time');
  const time = rangeEnd(times, unit.text, phrase) ?? besideWords(times, groups, clauses, points);
  const minutes = time ? timeOfDay(time.text) : undefined;
  const date = besideWords(datesIn(unit, asWhen), groups, clauses, points);
  const day = date?.day ?? unit.day;
  if (!day) return undefined;
  if (wantTime && minutes !== undefined) return { unit, day, minutes, label: `${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}` };
  const precision = date?.precision ?? 'day';
  return { unit, day, precision, label: precision === 'year' ? String(day.year) : formatDay(day, ctx.style, false) };
}

const UNIT_DAYS = { day: 1, week: 7, month: 30.4375, year: 365.25 } as const;

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

export function computeElapsed(c: Extract<NonNullable<Question['computation']>, { op: 'elapsed' }>, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  const unit = c.unit;
  const wantTime = unit === 'minute' || unit === 'hour';
  const from = momentOf(c.from, ctx, cache, wantTime);
  const to = momentOf(c.to, ctx, cache, wantTime, from);
  if (!from || !to) return undefined;
  if (unit === 'minute' || unit === 'hour') {
    if (from.minutes === undefined || to.minutes === undefined) return undefined;
    const total = Math.abs(daysBetween(from.day, to.day) * 1440 + to.minutes - from.minutes);
    const amount = unit === 'hour' ? `${plural(Math.floor(total / 60), 'hour')}${total % 60 ? ` ${plural(total % 60, 'minute')}` : ''}` : plural(total, 'minute');
    return `${amount} (${from.label} to ${to.label})`;
  }
  // "How long ago was her 18th birthday": an event dated to a year is that many years ago, not 3,946 days.
  if (!c.unitAsked && (from.precision === 'year' || to.precision === 'year')) {
    return `${plural(Math.abs(to.day.year - from.day.year), 'year')} (${from.day.year} to ${to.day.year})`;
  }
  const days = Math.abs(daysBetween(from.day, to.day));
  const amount = unit === 'day' ? days : Math.round((days / UNIT_DAYS[unit]) * 10) / 10;
  return `${plural(amount, unit)} (${from.label} to ${to.label})`;
}

/** "my raise" as the reader says it back: "your raise". */
function saidBack(phrase: string): string {
  return phrase.replace(/\bmy\b/gi, 'your').replace(/\bI\b/g, 'you').replace(/\bour\b/gi, 'your').trim();
}

/** Which of two events came first, and how long before the other: "your raise (February 3), 14 days before the balance transfer (February 17)". */
export function computeOrder(c: Extract<NonNullable<Question['computation']>, { op: 'order' }>, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  const a = momentOf(c.a, ctx, cache, false);
  const b = momentOf(c.b, ctx, cache, false, a);
  if (!a || !b) return undefined;
  const days = daysBetween(a.day, b.day);
  if (days === 0) return undefined;
  const [first, firstLabel, then, thenLabel] = days > 0 ? [c.a, a.label, c.b, b.label] : [c.b, b.label, c.a, a.label];
  const opening = saidBack(first);
  return `${opening.charAt(0).toUpperCase()}${opening.slice(1)} (${firstLabel}), ${plural(Math.abs(days), 'day')} before ${saidBack(then)} (${thenLabel})`;
}

function valueOf(phrase: string, context: string, ctx: ReaderContext, cache: Map<string, number>): Span | undefined {
  const q: Question = { ...analyseQuestion(phrase, true), type: 'quantity' };
  const found = find(ctx, q, contentStems(context), cache);
  if (!found) return undefined;
  return nearest(typedSpans(found.unit, q).filter((s) => parseNumber(s.text) !== undefined), anchors(found.unit, found.matched));
}

export function computeDifference(c: Extract<NonNullable<Question['computation']>, { op: 'difference' }>, question: string, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  const a = valueOf(c.a, question, ctx, cache);
  const b = valueOf(c.b, question, ctx, cache);
  if (!a || !b || a.text === b.text) return undefined;
  const va = parseNumber(a.text);
  const vb = parseNumber(b.text);
  if (va === undefined || vb === undefined) return undefined;
  const diff = Math.abs(va - vb);
  const money = /[$€£]/.exec(a.text)?.[0] ?? '';
  const formatted = `${money}${diff.toLocaleString('en-US', { maximumFractionDigits: 2 })}${a.unit && !money ? ` ${a.unit}` : ''}`;
  return `${formatted} (${a.text} vs ${b.text})`;
}

/** "4 weeks before launch", "two days after the kickoff": a duration, its direction and the event it counts from. */
const OFFSET_AFTER = /^\s+(before|after|ahead of|prior to|following)\s+(?:the\s+|our\s+|your\s+|my\s+)?([\p{L}\p{N}' -]+?)(?=[.,;:!?)]|\s+(?:and|but|so|which|when|if)\b|$)/iu;

/**
 * A date a statement gives only relative to another event ("Homewise needs units in its DCs 4
 * weeks before launch"): that event's newest date ("the final launch date is Tuesday 4
 * November") moved by the duration, "7 October (4 weeks before 4 November)". Undefined when the
 * statement gives a date itself or no event date is found.
 */
export function offsetDate(unit: Unit, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  if (unit.dates.some((d) => !d.relative)) return undefined;
  for (const duration of findDurations(unit.text)) {
    if (duration.unit === 'year') continue;
    const m = OFFSET_AFTER.exec(unit.text.slice(duration.end));
    if (!m) continue;
    const event = m[2].trim();
    // The event's date as it stands now: plans move, and the newest statement of them counts.
    const q: Question = { ...analyseQuestion(`when is the ${event}?`), type: 'date', latest: true };
    const found = find(ctx, q, new Set(), cache, new Set([unit]));
    if (!found) continue;
    const groups = anchorGroups(found.unit, found.matched);
    const date = besideWords(datesIn(found.unit, q).filter((d) => d.precision === 'day'), groups, clauseBounds(found.unit.text), groups.flat());
    if (!date) continue;
    const sign = /^(before|ahead of|prior to)$/i.test(m[1]) ? -1 : 1;
    const day = addDays(date.day, sign * Math.round(duration.amount * UNIT_DAYS[duration.unit]));
    return `${formatDay(day, ctx.style, false)} (${duration.text} ${m[1].toLowerCase()} ${formatDay(date.day, ctx.style, false)})`;
  }
  return undefined;
}

/** Unit words that name the same thing a rate is given per ("110 guests" at "$72 per head"). */
const UNIT_KINDS: Record<string, string> = Object.fromEntries(
  (
    'head:person person:person people:person guest:person attendee:person pax:person adult:person plate:person cover:person ' +
    'month:month monthly:month week:week weekly:week day:day daily:day night:night nightly:night hour:hour hourly:hour ' +
    'year:year yearly:year annual:year unit:unit item:unit piece:unit seat:seat ticket:ticket room:room license:license licence:license'
  )
    .split(' ')
    .map((pair) => {
      const [word, kind] = pair.split(':');
      return [stem(word), kind];
    }),
);

function unitKind(word: string | undefined): string | undefined {
  return word === undefined ? undefined : UNIT_KINDS[stem(word.toLowerCase())];
}

/** "$72 per head", "$3,100 a month": the unit word right after an amount. */
const PER_UNIT = /^\s*(?:a|an|per|each|every|\/)\s*([a-z]+)/i;
/** An amount the statement turns down ("it's $72 per head, not $68"). */
const TURNED_DOWN = /\b(?:not|no|never|instead of|rather than|down from|up from|was)\s*$/i;

/**
 * A money question answered by a count ("what will catering cost at the current count" →
 * "Final count is 110 guests"; "in dollars, what is the target" → "4 months of fixed
 * expenses"): the count times the rate the conversation gives per the same unit ("$72 per
 * head", "$3,100 a month"), the newest such rate among those sharing the most words with the
 * two statements, leaving out a rate turned down where it stands or later ("not $68"). Undefined when the statement has no count with a unit or no rate matches it.
 */
export function atRate(found: { unit: Unit; matched: Set<string> }, q: Question, ctx: ReaderContext): string | undefined {
  if (found.unit.spans.some((s) => s.type === 'money')) return undefined;
  const count = found.unit.spans.find((s) => s.type === 'quantity' && s.value !== undefined && unitKind(s.unit) !== undefined);
  if (!count || count.value === undefined) return undefined;
  const kind = unitKind(count.unit);
  const about = new Set([...found.unit.stems, ...q.stems]);
  const turnedDown = new Map<number, number>();
  for (const unit of ctx.units) {
    for (const span of unit.spans) if (span.type === 'money' && span.value !== undefined && TURNED_DOWN.test(unit.text.slice(Math.max(0, span.start - 14), span.start))) turnedDown.set(span.value, unit.index);
  }
  let best: { span: Span; shared: number; index: number } | undefined;
  for (const unit of ctx.units) {
    if (unit === found.unit || unit.isQuestion) continue;
    for (const span of unit.spans) {
      if (span.type !== 'money' || span.value === undefined) continue;
      const per = PER_UNIT.exec(unit.text.slice(span.end));
      // A rate turned down here or in a later statement ("it's $72 per head, not $68") is no rate.
      if (unitKind(per?.[1]) !== kind || (turnedDown.get(span.value) ?? -1) >= unit.index) continue;
      const shared = [...unit.stems].filter((w) => about.has(w)).length;
      if (!best || shared > best.shared || (shared === best.shared && unit.index >= best.index)) best = { span: { ...span, text: unit.text.slice(span.start, span.end + (per?.[0].length ?? 0)) }, shared, index: unit.index };
    }
  }
  if (!best || best.span.value === undefined) return undefined;
  const total = count.value * best.span.value;
  const symbol = /[$€£¥₹]/.exec(best.span.text)?.[0] ?? '';
  const amount = `${symbol}${total.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
  return `${amount} (${count.text} × ${best.span.text.trim()})`;
}
