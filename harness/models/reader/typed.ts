// What counts as a value of the asked type in a statement: the spans of the type, the dates
// for "when", and whether a value is filed under the asked attribute.
import { containsNormalized, normalizeText } from '../../../core/text.js';
import type { Unit } from './context.js';
import type { DateMention } from './dates.js';
import type { AnswerType, Question } from './question.js';
import type { Span, SpanType } from './spans.js';
import { TextMemo } from './memo.js';
import { contentStems, stemsOf } from './words.js';

export const TYPE_SPANS: Partial<Record<AnswerType, SpanType[]>> = {
  money: ['money', 'number'],
  quantity: ['quantity', 'number', 'money', 'percent'],
  number: ['number', 'quantity'],
  percent: ['percent'],
  identifier: ['identifier', 'number', 'host', 'version'],
  phone: ['phone'],
  email: ['email'],
  url: ['url', 'host'],
  host: ['host', 'identifier'],
  version: ['version', 'identifier'],
  time: ['time'],
  name: ['name'],
  weekday: ['weekday'],
  currency: ['currency'],
  platform: ['platform'],
  diet: ['diet'],
};

/** Spans of the asked type in a unit, leaving out values the question itself names. */
export function typedSpans(unit: Unit, q: Question): Span[] {
  const types = TYPE_SPANS[q.type];
  if (!types) return [];
  const asked = askedText(q.text);
  return unit.spans.filter((s) => types.includes(s.type) && !containsNormalized(asked, norm(s.text)) && countsWhatIsAsked(s, q));
}

/**
 * For "how many workers": a bare number, or a quantity of workers; not "15 minutes", "$180.00"
 * or "12%". Any value answers a question that names no counted thing.
 */
function countsWhatIsAsked(span: Span, q: Question): boolean {
  if (q.countOf === undefined) return true;
  // A span of time is given with its unit: a bare number is no duration.
  if (q.duration && span.type === 'number' && span.label === undefined) return false;
  // A number filed under another key (`elapsed_s=936` for "how many workers") counts something else.
  if (span.type === 'number') return span.label === undefined || [...labelStems(span.label)].some((l) => q.countOf?.includes(l));
  if (span.type !== 'quantity' || span.unit === undefined) return false;
  const unit = [...stemsOf(span.unit)];
  return unit.length === 0 || unit.some((u) => q.countOf?.includes(u));
}

// Span and question texts recur across thousands of probes; each is normalised once.
const normalized = new TextMemo<string>();

export const norm = (text: string) => normalized.get(text, () => normalizeText(text));

/** The question as values are looked for in it: a possessive is its name ("Teo's full name" names Teo). */
const askedTexts = new TextMemo<string>();
// Looked up for every statement a question is scored against: made once per question text.
const askedText = (text: string): string => askedTexts.get(text, () => norm(text.replace(/(?<=\p{L})['\u2019]s\b/gu, '')));

export function datesIn(unit: Unit, q: Question): DateMention[] {
  const asked = askedText(q.text);
  return unit.dates.filter((d) => !containsNormalized(asked, norm(d.text)));
}

/** The unit itself gives a date or a time (not only the day it was said). */
export function statesWhen(unit: Unit, q: Question): boolean {
  return datesIn(unit, q).length > 0 || unit.spans.some((s) => s.type === 'time');
}

/** The unit holds a value of the asked type itself, not only of a stand-in type (an identifier for a version). */
export function hasFirstType(spans: Span[], q: Question): boolean {
  const first = TYPE_SPANS[q.type]?.[0];
  return first === undefined || spans.some((s) => s.type === first);
}

const OPEN_DATE = /\b(?:dates?|deadlines?|tbd|tba|to be (?:decided|confirmed|announced))\b/i;

/** `spans`: the unit's `typedSpans`, when the caller has them already. */
export function hasTypedValue(unit: Unit, q: Question, spans = typedSpans(unit, q)): boolean {
  if (q.type === 'clause') return true;
  // "On what date did I open the account?": a statement of the event is dated by its message,
  // unless it speaks of a date it does not give ("new date TBD").
  if (q.type === 'date') return datesIn(unit, q).length > 0 || (unit.day !== undefined && !OPEN_DATE.test(unit.text));
  if (q.type === 'when') return datesIn(unit, q).length > 0 || unit.spans.some((s) => s.type === 'time') || unit.day !== undefined;
  return spans.length > 0;
}

const labels = new TextMemo<Set<string>>();

export const labelStems = (label: string) => labels.get(label, () => contentStems(label.replace(/[_.]+/g, ' ')));

/** The span's key or label is a word of the question's asked attribute (or, with none, of the question). */
export function labelNames(span: Span, q: Question): boolean {
  if (span.label === undefined) return false;
  const words = q.focus.size > 0 ? q.focus : q.stems;
  // `version: v4.12.1` for "which version": the key names the asked type.
  return [...labelStems(span.label)].some((l) => words.has(l) || q.typeStems.has(l));
}

/** The distinct values among `spans`, in order (a value said twice is one). */
export function distinctValues(spans: Span[]): Span[] {
  const seen = new Set<string>();
  return [...spans].sort((a, b) => a.start - b.start).filter((s) => {
    const key = norm(s.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
