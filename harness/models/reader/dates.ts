// Dates for the offline reader: finds the calendar days a chat text mentions and does
// the day arithmetic temporal questions need ("when…", "how many days between…").
// Free text is never handed to `Date.parse`: it accepts far too much ("May 2" in
// "May 2 of us join?", bare numbers) and applies the machine's time zone. Instead a few
// explicit patterns are matched, each conservative — a missed date costs one answer,
// a false one misleads every temporal question after it. `Date` is used only as a UTC
// day counter, so results never depend on where the harness runs.

/** A calendar day (no time zone: all arithmetic in UTC days). */
export interface Day {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

export type DateStyle = 'month-day' | 'day-month' | 'iso';

export interface DateMention {
  /** Character offsets in the text searched. */
  start: number;
  end: number;
  /** The matched text. */
  text: string;
  /** Resolved; the year comes from `reference` (or the fallback) when the text has none. */
  day: Day;
  explicitYear: boolean;
  /** "yesterday", "last Friday", "two weeks ago", "next Thursday"... */
  relative: boolean;
  /** "May 2023" → month (day 1), "in 2022" → year (January 1). */
  precision: 'day' | 'month' | 'year';
  /** How the text wrote it; relative and year-only mentions show no style and say 'day-month'. */
  style: DateStyle;
}

export interface Duration {
  start: number;
  end: number;
  text: string;
  amount: number;
  unit: 'day' | 'week' | 'month' | 'year';
}

type Unit = Duration['unit'];

const MS_PER_DAY = 86_400_000;
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const NUMBER_WORDS = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty',
];

// ---------------------------------------------------------------------------
// Day arithmetic

function utcMs(d: Day): number {
  return Date.UTC(d.year, d.month - 1, d.day);
}

function fromUtcMs(ms: number): Day {
  const date = new Date(ms);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** The day, or undefined when it does not exist (February 30, month 13). */
function validDay(year: number, month: number, day: number): Day | undefined {
  if (!Number.isInteger(year) || month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const back = fromUtcMs(Date.UTC(year, month - 1, day));
  return back.year === year && back.month === month && back.day === day ? back : undefined;
}

/** b - a in days (signed). */
export function daysBetween(a: Day, b: Day): number {
  return Math.round((utcMs(b) - utcMs(a)) / MS_PER_DAY);
}

export function addDays(d: Day, n: number): Day {
  return fromUtcMs(utcMs(d) + n * MS_PER_DAY);
}

/** The first day of the month `n` months after `d`'s month. */
function addMonths(d: Day, n: number): Day {
  const index = d.year * 12 + (d.month - 1) + n;
  return { year: Math.floor(index / 12), month: (index % 12) + 1, day: 1 };
}

/** 0 = Sunday. */
export function weekday(d: Day): number {
  return new Date(utcMs(d)).getUTCDay();
}

/** "Monday". */
export function weekdayName(d: Day): string {
  return WEEKDAY_NAMES[weekday(d)];
}

export function monthName(month: number): string {
  return MONTH_NAMES[month - 1];
}

/**
 * Formats like the conversation writes dates: month-day → "May 8", day-month → "8 May",
 * iso → "2026-05-08" (always with its year: ISO without one is not a form people write);
 * withYear gives "May 8, 2026" and "8 May 2026".
 */
export function formatDay(d: Day, style: DateStyle, withYear: boolean): string {
  const month = MONTH_NAMES[d.month - 1];
  if (style === 'iso') return `${d.year}-${pad2(d.month)}-${pad2(d.day)}`;
  if (style === 'month-day') return withYear ? `${month} ${d.day}, ${d.year}` : `${month} ${d.day}`;
  return withYear ? `${d.day} ${month} ${d.year}` : `${d.day} ${month}`;
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * The most common style among mentions, for answering in the conversation's own style.
 * Only mentions that show a style count: written (not relative) days. Ties → 'month-day';
 * a day-month/iso tie → 'day-month', as prose is what an answer is read as.
 */
export function dominantStyle(mentions: DateMention[]): DateStyle {
  const counts: Record<DateStyle, number> = { 'month-day': 0, 'day-month': 0, iso: 0 };
  for (const m of mentions) if (!m.relative && m.precision === 'day') counts[m.style]++;
  const top = Math.max(counts['month-day'], counts['day-month'], counts.iso);
  if (counts['month-day'] === top) return 'month-day';
  return counts['day-month'] === top ? 'day-month' : 'iso';
}

// ---------------------------------------------------------------------------
// Patterns (compiled once; every scan is one linear pass per pattern)

const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';
const FULL_MONTH = MONTH_NAMES.join('|').toLowerCase();
const WEEKDAY = 'sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues|tue|wed|thurs|thu|fri|sat';
const FULL_WEEKDAY = WEEKDAY_NAMES.join('|').toLowerCase();
const NUMBER = `\\d{1,3}|${NUMBER_WORDS.slice(1).reverse().join('|')}|an|a`;
/** A weekday that opens a date is part of the mention: "Monday May 18", "Friday, January 23". */
const WEEKDAY_PREFIX = `(?<wd>\\b(?:${WEEKDAY})\\b\\.?,?\\s+)?`;
/** A year after a written date; a digit or decimal right after means it was a longer number. */
const YEAR_TAIL = `(?:(?:,\\s*|\\s+)(?<year>\\d{4})(?!\\d|[.,:]\\d))?`;

/** `2026-04-28`, also in JSON strings and datetimes (`2026-04-28T10:00:00Z`); `2023/05/20` (year first is unambiguous). */
const ISO_DATE = /(?<![\w.])(?<year>\d{4})(?<sep>[-/])(?<month>\d{1,2})\k<sep>(?<day>\d{1,2})(?!\d|[-/.]\d)/dg;
/** `May 8`, `May 8th, 2026`, `Monday May 18`, `March the 3rd`. */
const MONTH_DAY = new RegExp(
  `${WEEKDAY_PREFIX}(?<core>\\b(?<month>${MONTH})\\b\\.?\\s+(?:the\\s+(?=\\d{1,2}(?:st|nd|rd|th)))?(?<dayPart>\\d{1,2}(?:st|nd|rd|th)?)\\b(?!:\\d|[.,]\\d))${YEAR_TAIL}`,
  'dgi',
);
/** `8 May`, `8 May, 2023`, `Thursday 24 April`, `the 8th of May`. */
const DAY_MONTH = new RegExp(
  `${WEEKDAY_PREFIX}(?<core>(?:\\bthe\\s+)?(?<![\\w.,:/$£€])(?<dayPart>\\d{1,2}(?:st|nd|rd|th)?)\\s+(?:of\\s+)?(?<month>${MONTH})\\b)\\.?${YEAR_TAIL}`,
  'dgi',
);
/** `May 2023`, `March, 2025` (month precision). */
const MONTH_YEAR = new RegExp(`\\b(?<month>${MONTH})\\b\\.?,?\\s+(?<year>\\d{4})(?!\\d|[.,:]\\d)`, 'dgi');
/** `in March`, `since May`: a bare month name reads as a date only after such a word (never "march on"). */
const BARE_MONTH = new RegExp(`\\b(?:in|of|since|during|until|till|through|from|by|before|after|early|late|mid)[\\s-]+(?<month>${FULL_MONTH})\\b`, 'dgi');
/** `in 2022`, `since early 2019`, `summer of 2021` → `of 2021`. */
const PREPOSITION_YEAR = /\b(?<prep>in|since|of|from|by|during|until|till|through|before|after|around|circa|spring|summer|fall|autumn|winter)\s+(?:(?:early|late|mid)[\s-]+)?(?<year>\d{4})(?!\d|\w|[.,:/-]\d|%)/dgi;
/** A year on a line of its own. */
const LONE_YEAR = /^[ \t]*(?<year>\d{4})[ \t]*$/dgm;
/** `4/28/2026`, `28/04/2026`, `4/28`. A two-digit third part (`4/28/26`) is left alone. */
const NUMERIC_DATE = /(?<![\w.,:/$£€-])(?<a>\d{1,2})\/(?<b>\d{1,2})(?:\/(?<year>\d{4}))?(?![\w/%]|[.,:]\d)/dg;
/** A yearless `4/28` is a date only when something date-like introduces it; otherwise it may be a score or a fraction. */
const NUMERIC_INTRO = new RegExp(`\\b(?:on|by|until|till|before|after|since|from|through|due|starting|dated|effective|${WEEKDAY})\\.?,?\\s+$`, 'i');

const RELATIVE_FIXED = /\b(?:(?:the\s+)?day\s+before\s+yesterday|(?:the\s+)?day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening))\b/gi;
const RELATIVE_WEEKDAY = new RegExp(`\\b(?<dir>this\\s+past|this\\s+coming|last|next|this|coming)\\s+(?<wd>${FULL_WEEKDAY})\\b`, 'dgi');
const RELATIVE_AGO = new RegExp(`\\b(?<n>${NUMBER})\\s+(?<unit>day|week|month|year)s?\\s+ago\\b`, 'dgi');
const RELATIVE_IN = new RegExp(`\\bin\\s+(?<n>${NUMBER})\\s+(?<unit>day|week)s?\\b(?!\\s+(?:ago|later|before|after)\\b)`, 'dgi');
const RELATIVE_PERIOD = /\b(?<dir>this\s+past|this\s+coming|last|next|this)\s+(?<unit>weekend|week|month|year)\b/dgi;
const RELATIVE_MONTH = new RegExp(`\\b(?<dir>last|next)\\s+(?<month>${FULL_MONTH})\\b`, 'dgi');

const DURATION = new RegExp(
  `(?<![\\w.,])(?<n>\\d+(?:\\.\\d+)?|${NUMBER_WORDS.slice(1).reverse().join('|')}|an|a)[\\s-]+(?:(?:more|full|whole|extra|additional|straight|long)\\s+)?(?<unit>day|week|month|year)s?\\b`,
  'dgi',
);
/** "once a week", "365 days a year": a rate, not a length of time; "half a day" is not one day. */
const RATE_BEFORE = /\b(?:once|twice|times|per|every|each|half|(?:day|week|month|hour|minute|night|time)s?)\s+$/i;
/** "One day I'd love to…" is "some day"; "for one day" is a length of time. */
const ONE_DAY_DURATION_BEFORE = /\b(?:for|in|within|after|about|only|just|than|over|take|takes|took|lasted|lasts|spent|spend|whole|full)\s+$/i;

/** A number followed by one of these counts things ("2000 people", "May 2 miles"), it is not a date. */
const COUNTED_AFTER = /^\s*(?:%|(?:percent|people|persons|users|customers|members|guests|students|employees|participants|followers|subscribers|views|votes|units|items|pieces|rows|records|entries|words|pages|steps|miles|km|kilometers|kilometres|meters|metres|feet|ft|calories|kcal|dollars|euros|pounds|lbs|kg|grams|points|pts|times|tickets|hours|hrs|minutes|mins|seconds|secs)\b)/i;
/** "out of 2000", "a budget of 2000", "increased by 2000", "up to 2000": the number after is an amount. */
const AMOUNT_BEFORE = /\b(?:out|total|sum|budget|average|maximum|minimum|number|amount|score|cost|price|limit|increased?|decreased?|grew|grow|rose|rise|fell|fall|dropped|drop|reduced?|raised?|up|down)\s+$/i;

// ---------------------------------------------------------------------------
// Finding dates

interface Scan {
  text: string;
  reference: Day | undefined;
  /** The year of yearless dates: the reference's, else the caller's fallback. */
  defaultYear: number | undefined;
}

/** A yearless numeric date waiting for the conversation's order (`05/06/2026`). */
interface AmbiguousNumeric {
  start: number;
  end: number;
  first: number;
  second: number;
  year: number;
}

type MentionShape = Pick<DateMention, 'explicitYear' | 'relative' | 'precision' | 'style'>;

const WRITTEN: MentionShape = { explicitYear: true, relative: false, precision: 'day', style: 'iso' };
const RELATIVE: MentionShape = { explicitYear: false, relative: true, precision: 'day', style: 'day-month' };

function mention(scan: Scan, start: number, end: number, day: Day, shape: MentionShape): DateMention {
  return { start, end, text: scan.text.slice(start, end), day, ...shape };
}

/**
 * Every date the text mentions, in order. `reference` is the day the text was written
 * (resolves relative dates and missing years). Without it, relative mentions are skipped
 * and missing years use `fallbackYear` if given, else the mention is skipped.
 * `numericOrder` settles numeric dates like `05/06/2026` (pass the conversation's
 * `dominantStyle`); without it the text's own written dates decide, and with no evidence
 * such a date is skipped rather than guessed.
 */
export function findDates(text: string, reference?: Day, fallbackYear?: number, numericOrder?: DateStyle): DateMention[] {
  const scan: Scan = { text, reference, defaultYear: reference?.year ?? fallbackYear };
  const ambiguous: AmbiguousNumeric[] = [];
  const written = [
    ...scanIso(scan),
    ...scanWritten(scan, MONTH_DAY, 'month-day'),
    ...scanWritten(scan, DAY_MONTH, 'day-month'),
    ...scanMonthYear(scan),
    ...scanBareMonth(scan),
    ...scanYears(scan),
    ...scanNumeric(scan, ambiguous),
  ];
  const order = numericOrder === 'month-day' || numericOrder === 'day-month' ? numericOrder : evidentOrder(written);
  if (order) written.push(...resolveAmbiguous(scan, ambiguous, order));
  const relative = reference ? scanRelative(scan, reference) : [];
  return mergeMentions(written, relative);
}

/**
 * Non-overlapping mentions in text order. Written dates win over relative ones
 * ("last Friday, May 8" is May 8, whatever Friday that is); among equals the earlier,
 * then the longer, wins ("8 May 2026" over "May 2026"). Sorting plus sweeps: n log n.
 */
function mergeMentions(written: DateMention[], relative: DateMention[]): DateMention[] {
  const kept = sweep(written);
  const free = relative.filter((r) => !overlapsAny(r, kept));
  return [...kept, ...sweep(free)].sort((a, b) => a.start - b.start);
}

function sweep(mentions: DateMention[]): DateMention[] {
  const sorted = [...mentions].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: DateMention[] = [];
  for (const m of sorted) if (out.length === 0 || m.start >= out[out.length - 1].end) out.push(m);
  return out;
}

/** `sorted` is non-overlapping and in order, so only the last one starting before `m` ends can overlap it. */
function overlapsAny(m: DateMention, sorted: DateMention[]): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start < m.end) {
      last = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return last >= 0 && sorted[last].end > m.start;
}

function scanIso(scan: Scan): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(ISO_DATE)) {
    const g = m.groups ?? {};
    const day = validDay(Number(g.year), Number(g.month), Number(g.day));
    if (day) out.push(mention(scan, m.index, m.index + m[0].length, day, WRITTEN));
  }
  return out;
}

/** "may" is a date only as "May": "may be", "I may 2x it" are the verb. */
function isModalMay(word: string): boolean {
  return word.toLowerCase() === 'may' && word[0] !== 'M';
}

/** "Sun", "Sat" lower-cased are more often words than weekdays; only full names may be lower-case. */
function isWeekdayWord(prefix: string): boolean {
  const word = prefix.replace(/[.,\s]+$/, '');
  return word.length > 5 || /^[A-Z]/.test(word);
}

function monthNumber(word: string): number {
  const head = word.slice(0, 3).toLowerCase();
  return MONTH_NAMES.findIndex((m) => m.toLowerCase().startsWith(head)) + 1;
}

function countedAfter(scan: Scan, end: number): boolean {
  return COUNTED_AFTER.test(scan.text.slice(end, end + 16));
}

/** "May 8" / "8 May" with optional weekday, ordinal and year. */
function scanWritten(scan: Scan, pattern: RegExp, style: DateStyle): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(pattern)) {
    const found = writtenDate(scan, m, style);
    if (found) out.push(found);
  }
  return out;
}

function writtenDate(scan: Scan, m: RegExpExecArray, style: DateStyle): DateMention | undefined {
  const g = m.groups ?? {};
  const at = m.indices?.groups ?? {};
  if (isModalMay(g.month)) return undefined;
  const dateEnd = Math.max(at.month[1], at.dayPart[1]);
  // "On May 8, 2000 people came": the 2000 counts people, the date is still May 8.
  const yearKept = g.year !== undefined && !countedAfter(scan, at.year[1]);
  if (!yearKept && countedAfter(scan, dateEnd)) return undefined;
  const year = yearKept ? Number(g.year) : scan.defaultYear;
  if (year === undefined || year < 1000 || year > 2999) return undefined;
  const day = validDay(year, monthNumber(g.month), parseInt(g.dayPart, 10));
  if (!day) return undefined;
  const start = g.wd !== undefined && isWeekdayWord(g.wd) ? m.index : at.core[0];
  const end = yearKept ? at.year[1] : dateEnd;
  return mention(scan, start, end, day, { explicitYear: yearKept, relative: false, precision: 'day', style });
}

function scanMonthYear(scan: Scan): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(MONTH_YEAR)) {
    const g = m.groups ?? {};
    const year = Number(g.year);
    const end = m.index + m[0].length;
    if (isModalMay(g.month) || year < 1000 || year > 2999 || countedAfter(scan, end)) continue;
    const day = { year, month: monthNumber(g.month), day: 1 };
    out.push(mention(scan, m.index, end, day, { explicitYear: true, relative: false, precision: 'month', style: 'month-day' }));
  }
  return out;
}

function scanBareMonth(scan: Scan): DateMention[] {
  const out: DateMention[] = [];
  if (scan.defaultYear === undefined) return out;
  for (const m of scan.text.matchAll(BARE_MONTH)) {
    const g = m.groups ?? {};
    const [start, end] = m.indices?.groups?.month ?? [m.index, m.index];
    if (isModalMay(g.month)) continue;
    const day = { year: scan.defaultYear, month: monthNumber(g.month), day: 1 };
    out.push(mention(scan, start, end, day, { explicitYear: false, relative: false, precision: 'month', style: 'month-day' }));
  }
  return out;
}

/** "in 2022", "since 2019", a year on its own line: only 1900-2100, never an amount. */
function scanYears(scan: Scan): DateMention[] {
  const out: DateMention[] = [];
  for (const pattern of [PREPOSITION_YEAR, LONE_YEAR]) {
    for (const m of scan.text.matchAll(pattern)) {
      const [start, end] = m.indices?.groups?.year ?? [m.index, m.index];
      const year = Number(m.groups?.year);
      if (year < 1900 || year > 2100 || countedAfter(scan, end)) continue;
      if (AMOUNT_BEFORE.test(scan.text.slice(Math.max(0, m.index - 30), m.index))) continue;
      const day = { year, month: 1, day: 1 };
      out.push(mention(scan, start, end, day, { explicitYear: true, relative: false, precision: 'year', style: 'day-month' }));
    }
  }
  return out;
}

/** Numeric dates: kept when the order shows (a part over 12), else held for the conversation's order. */
function scanNumeric(scan: Scan, ambiguous: AmbiguousNumeric[]): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(NUMERIC_DATE)) {
    const g = m.groups ?? {};
    const start = m.index;
    const end = start + m[0].length;
    const first = Number(g.a);
    const second = Number(g.b);
    if (countedAfter(scan, end)) continue;
    if (g.year === undefined) {
      const found = yearlessNumeric(scan, start, end, first, second);
      if (found) out.push(found);
      continue;
    }
    const year = Number(g.year);
    const style = numericStyle(first, second);
    if (style === undefined) ambiguous.push({ start, end, first, second, year });
    else pushNumeric(out, scan, { start, end, first, second, year }, style, true);
  }
  return out;
}

/** 'month-day' when the second part can only be a day, 'day-month' when the first can, else undefined. */
function numericStyle(first: number, second: number): 'month-day' | 'day-month' | undefined {
  if (first === second) return 'month-day'; // 05/05 is May 5 either way
  if (second > 12 && first <= 12) return 'month-day';
  if (first > 12 && second <= 12) return 'day-month';
  return undefined;
}

function yearlessNumeric(scan: Scan, start: number, end: number, first: number, second: number): DateMention | undefined {
  const style = numericStyle(first, second);
  const year = scan.defaultYear;
  if (style === undefined || first === second || year === undefined) return undefined;
  if (!NUMERIC_INTRO.test(scan.text.slice(Math.max(0, start - 20), start))) return undefined;
  const out: DateMention[] = [];
  pushNumeric(out, scan, { start, end, first, second, year }, style, false);
  return out[0];
}

function pushNumeric(out: DateMention[], scan: Scan, n: AmbiguousNumeric, style: 'month-day' | 'day-month', explicitYear: boolean): void {
  const [month, day] = style === 'month-day' ? [n.first, n.second] : [n.second, n.first];
  const resolved = validDay(n.year, month, day);
  if (resolved) out.push(mention(scan, n.start, n.end, resolved, { explicitYear, relative: false, precision: 'day', style }));
}

/** The order the text's written dates show, when one clearly leads. */
function evidentOrder(mentions: DateMention[]): 'month-day' | 'day-month' | undefined {
  let monthDay = 0;
  let dayMonth = 0;
  for (const m of mentions) {
    if (m.precision !== 'day') continue;
    if (m.style === 'month-day') monthDay++;
    else if (m.style === 'day-month') dayMonth++;
  }
  if (monthDay === dayMonth) return undefined;
  return monthDay > dayMonth ? 'month-day' : 'day-month';
}

function resolveAmbiguous(scan: Scan, ambiguous: AmbiguousNumeric[], order: 'month-day' | 'day-month'): DateMention[] {
  const out: DateMention[] = [];
  for (const n of ambiguous) pushNumeric(out, scan, n, order, true);
  return out;
}

// ---------------------------------------------------------------------------
// Relative dates (need the day the text was written)

function scanRelative(scan: Scan, ref: Day): DateMention[] {
  return [
    ...scanFixedRelative(scan, ref),
    ...scanRelativeWeekdays(scan, ref),
    ...scanOffsets(scan, ref, RELATIVE_AGO, -1),
    ...scanOffsets(scan, ref, RELATIVE_IN, 1),
    ...scanRelativePeriods(scan, ref),
    ...scanRelativeMonths(scan, ref),
  ];
}

/** Days from the reference of the fixed phrases. */
function fixedOffset(phrase: string): number {
  const p = phrase.toLowerCase();
  if (p.includes('before yesterday')) return -2;
  if (p.includes('after tomorrow')) return 2;
  if (p === 'yesterday' || p.startsWith('last')) return -1;
  if (p === 'tomorrow') return 1;
  return 0; // today, tonight, this morning/afternoon/evening
}

function scanFixedRelative(scan: Scan, ref: Day): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(RELATIVE_FIXED)) {
    const day = addDays(ref, fixedOffset(m[0].replace(/\s+/g, ' ')));
    out.push(mention(scan, m.index, m.index + m[0].length, day, RELATIVE));
  }
  return out;
}

/**
 * "last Friday": the most recent Friday strictly before the reference; "next Thursday":
 * the first strictly after; "this Friday": the coming one, the reference itself included
 * ("this coming" excludes it). A bare "Friday" is left alone: in past-tense talk it may be
 * any recent Friday.
 */
function scanRelativeWeekdays(scan: Scan, ref: Day): DateMention[] {
  const out: DateMention[] = [];
  const refWeekday = weekday(ref);
  for (const m of scan.text.matchAll(RELATIVE_WEEKDAY)) {
    const g = m.groups ?? {};
    const dir = g.dir.toLowerCase().replace(/\s+/g, ' ');
    const target = WEEKDAY_NAMES.findIndex((w) => w.toLowerCase() === g.wd.toLowerCase());
    const back = (refWeekday - target + 7) % 7 || 7;
    const ahead = (target - refWeekday + 7) % 7;
    let offset: number;
    if (dir === 'last' || dir === 'this past') offset = -back;
    else if (dir === 'this') offset = ahead;
    else offset = ahead || 7;
    out.push(mention(scan, m.index, m.index + m[0].length, addDays(ref, offset), RELATIVE));
  }
  return out;
}

function numberValue(word: string): number {
  const w = word.toLowerCase();
  if (w === 'a' || w === 'an') return 1;
  const index = NUMBER_WORDS.indexOf(w);
  return index >= 0 ? index : Number(w);
}

/** "two weeks ago" (sign -1), "in 3 days" (sign +1); months and years keep their precision. */
function scanOffsets(scan: Scan, ref: Day, pattern: RegExp, sign: number): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(pattern)) {
    const g = m.groups ?? {};
    const n = numberValue(g.n) * sign;
    const unit = g.unit.toLowerCase() as Unit;
    const end = m.index + m[0].length;
    out.push(mention(scan, m.index, end, ...shiftBy(ref, n, unit)));
  }
  return out;
}

function shiftBy(ref: Day, n: number, unit: Unit): [Day, MentionShape] {
  if (unit === 'day') return [addDays(ref, n), RELATIVE];
  if (unit === 'week') return [addDays(ref, 7 * n), RELATIVE];
  if (unit === 'month') return [addMonths(ref, n), { ...RELATIVE, precision: 'month' }];
  return [{ year: ref.year + n, month: 1, day: 1 }, { ...RELATIVE, precision: 'year' }];
}

/**
 * "last week" → 7 days before; "last weekend" → the Saturday of the previous weekend (on
 * a Sunday that is 8 days back: "last weekend" then means the one before this one);
 * "last month"/"last year" at their precision; "next …" mirrors them; "this month/year"
 * is the reference's own. "this week/weekend" name no single day and are skipped.
 */
function scanRelativePeriods(scan: Scan, ref: Day): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(RELATIVE_PERIOD)) {
    const g = m.groups ?? {};
    const dir = g.dir.toLowerCase().replace(/\s+/g, ' ');
    const sign = dir === 'last' || dir === 'this past' ? -1 : dir === 'this' ? 0 : 1;
    const unit = g.unit.toLowerCase();
    const end = m.index + m[0].length;
    if (sign === 0 && (unit === 'week' || unit === 'weekend')) continue;
    if (unit === 'weekend') out.push(mention(scan, m.index, end, weekendSaturday(ref, sign), RELATIVE));
    else out.push(mention(scan, m.index, end, ...shiftBy(ref, sign, unit as Unit)));
  }
  return out;
}

function weekendSaturday(ref: Day, sign: number): Day {
  const wd = weekday(ref);
  if (sign > 0) return addDays(ref, (6 - wd + 7) % 7 || 7);
  return addDays(ref, -(wd === 0 ? 8 : wd + 1));
}

/** "last May": the most recent May before the reference's month; "next June": the first after. */
function scanRelativeMonths(scan: Scan, ref: Day): DateMention[] {
  const out: DateMention[] = [];
  for (const m of scan.text.matchAll(RELATIVE_MONTH)) {
    const g = m.groups ?? {};
    if (isModalMay(g.month)) continue;
    const month = monthNumber(g.month);
    const last = g.dir.toLowerCase() === 'last';
    const shift = last ? -((ref.month - month + 12) % 12 || 12) : (month - ref.month + 12) % 12 || 12;
    const end = m.index + m[0].length;
    out.push(mention(scan, m.index, end, addMonths(ref, shift), { ...RELATIVE, precision: 'month' }));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Message timestamps

/** `[2026-03-02T07:19:00Z] text`, also a bare date or a space before the time. */
const ISO_STAMP = /^\s*\[(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:[T ][^\]\n]*)?\][ \t]*/;
/** `[Session 3: 1:56 pm on 8 May, 2023]` on a line of its own (LoCoMo and LongMemEval imports). */
const SESSION_HEADER = /^[ \t]*\[Session[ \t]*\d+[ \t]*[:,-]?(?<when>[^\]\n]*)\][ \t]*(?:\r?\n)?/gim;

/**
 * The timestamp a message starts with: `[2026-03-02T07:19:00Z] text`, or a line
 * `[Session 3: 1:56 pm on 8 May, 2023]` anywhere at a line start. Returns the day and the
 * text without the bracket (trimmed). The time and any zone are ignored: the day as
 * written is the one the speakers mean by "today". Imports put a session header right
 * after the ISO stamp; that header is removed too, as it says nothing the day does not.
 */
export function messageDay(text: string): { day: Day; rest: string } | undefined {
  const stamp = ISO_STAMP.exec(text);
  const g = stamp?.groups;
  const day = g && validDay(Number(g.year), Number(g.month), Number(g.day));
  if (stamp && day) {
    const after = text.slice(stamp[0].length);
    const header = sessionHeader(after);
    const rest = header && header.start === 0 ? after.slice(header.end) : after;
    return { day, rest: rest.trim() };
  }
  const header = sessionHeader(text);
  if (!header) return undefined;
  return { day: header.day, rest: (text.slice(0, header.start) + text.slice(header.end)).trim() };
}

/** The first session header line with a full date, and where that line is. */
function sessionHeader(text: string): { day: Day; start: number; end: number } | undefined {
  for (const m of text.matchAll(SESSION_HEADER)) {
    const found = findDates(m.groups?.when ?? '').find((d) => d.precision === 'day' && d.explicitYear);
    if (found) return { day: found.day, start: m.index, end: m.index + m[0].length };
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Durations

/** Durations the text states: "30 days", "4 weeks", "two weeks", "a week", "3 months", "10 years", "a 30-day trial". */
export function findDurations(text: string): Duration[] {
  const out: Duration[] = [];
  for (const m of text.matchAll(DURATION)) {
    const g = m.groups ?? {};
    const before = text.slice(Math.max(0, m.index - 12), m.index);
    const word = g.n.toLowerCase();
    const unit = g.unit.toLowerCase() as Unit;
    if ((word === 'a' || word === 'an') && RATE_BEFORE.test(before)) continue;
    if (word === 'one' && unit === 'day' && !ONE_DAY_DURATION_BEFORE.test(before)) continue;
    const end = m.index + m[0].length;
    out.push({ start: m.index, end, text: m[0], amount: numberValue(word), unit });
  }
  return out;
}
