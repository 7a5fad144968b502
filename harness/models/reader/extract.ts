// Taking the answer out of the statement that answers: the span of the asked type near the
// question's words, a date in the conversation's style, or the statement itself.
import { stem } from '../../../core/text.js';
import type { ReaderContext, Unit } from './context.js';
import { type DateMention, type Day, MONTH_NAMES, WEEKDAY_NAMES, findDates, formatDay, monthName } from './dates.js';
import type { Question } from './question.js';
import { type Span, listAround, recordEntries } from './spans.js';
import { type Found, isBridge } from './retrieve.js';
import { TYPE_SPANS, datesIn, distinctValues, labelNames, typedSpans } from './typed.js';
import { anchorGroups, clauseAt, clauseBounds } from './clauses.js';
import { stemsOf } from './words.js';
import { tierFor } from './tiers.js';

/** Long statements (tool output lines) are cut to this many words around the match. */
const MAX_ANSWER_WORDS = 30;

/** Positions in a unit's text where the question words it matched start (a part of a matched code is not one). */
export function anchors(unit: Unit, matched: Set<string>): number[] {
  return anchorGroups(unit, matched).flat();
}

interface Anchors {
  /** Positions of the anchor words, one list per word. */
  groups: number[][];
  /** Positions of every matched question word, one list per word. */
  all: number[][];
  /** The anchors are names of the question: the subject a value follows ("*Oakline* quoted $57,200"). */
  subject: boolean;
}

/**
 * Where the answer should sit near: the names of the question when the unit has them, else
 * every matched question word.
 */
function answerAnchors(unit: Unit, matched: Set<string>, q: Question, bridge?: ReadonlySet<string>): Anchors {
  const names = new Set([...matched].filter((m) => q.names.has(m)));
  // The name or code that links two statements is what the answer is about ("Hana says the
  // website is in staging" + "…, Hana Sato owns the website" → Hana Sato, not the first owner named).
  const links = new Set([...(bridge ?? [])].filter((b) => unit.stems.has(b)));
  const part = new Set([...matched].filter((m) => q.part?.has(m)));
  const at = links.size > 0 ? anchorGroups(unit, links) : part.size > 0 ? anchorGroups(unit, part) : names.size > 0 ? anchorGroups(unit, names) : [];
  const all = anchorGroups(unit, matched);
  // The part asked about is the only place the value may sit beside: "$7,420, including $1,260 for mold".
  if (links.size === 0 && part.size > 0 && at.length > 0) return { groups: at, all: at, subject: false };
  return at.length > 0 ? { groups: at, all, subject: true } : { groups: all, all, subject: false };
}

/** Distance from an anchor to a value; after a subject, a value before it counts double ("Hartwell quoted $61,900 and Oakline …"). */
function gap(at: number, point: number, subject: boolean): number {
  return at >= point || !subject ? Math.abs(at - point) : (point - at) * 2;
}

/**
 * How far a value is from the question's words: the mean, over the words, of its distance to
 * the word's nearest occurrence. "Amara Okafor owns the press release, Rui Costa owns the launch
 * event": Amara Okafor is near both "owns" and "press release".
 */
function closeness(at: number, groups: number[][], subject: boolean): number {
  let total = 0;
  for (const group of groups) total += Math.min(...group.map((p) => gap(at, p, subject)));
  return total / groups.length;
}

export function nearest<T extends { start: number }>(items: T[], points: number[]): T | undefined {
  if (points.length === 0) return items[0];
  let best: T | undefined;
  let bestDistance = Infinity;
  for (const item of items) {
    const d = Math.min(...points.map((p) => Math.abs(item.start - p)));
    if (d < bestDistance) {
      best = item;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The span that answers: one whose key or label names what is asked (`po: PO-2025-0412` for
 * "the PO number"), then the most fitting type (an identifier before a bare number for
 * "which order number"), then the nearest to the matched question words.
 */
function pickSpan(spans: Span[], q: Question, { groups, all, subject }: Anchors, text: string): Span | undefined {
  const order = TYPE_SPANS[q.type] ?? [];
  const clauses = clauseBounds(text);
  const rank = (s: Span): number[] => {
    const labelled = labelNames(s, q);
    const distance = groups.length === 0 ? s.start : closeness(s.start, groups, subject);
    return [labelled ? 0 : 1, order.indexOf(s.type), -wordsInClause(s, all, clauses), distance];
  };
  let best: Span | undefined;
  let bestKey: number[] | undefined;
  for (const s of spans) {
    const key = rank(s);
    if (!bestKey || before(key, bestKey)) {
      best = s;
      bestKey = key;
    }
  }
  return best;
}

/**
 * Of the values, those in the clause holding the most question words, then the nearest of them
 * ("lamp BC-4472310 arrives May 8, and the replacement shoes BC-4473558 arrive May 9" → May 8 for the lamp).
 */
export function besideWords<T extends { start: number }>(items: T[], groups: number[][], clauses: number[], points: number[]): T | undefined {
  if (items.length < 2 || groups.length < 2) return nearest(items, points);
  const count = (item: T) => wordsInClause(item, groups, clauses);
  const most = Math.max(...items.map(count));
  return nearest(items.filter((item) => count(item) === most), points);
}

function before(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/**
 * How many question words share the value's clause: "Amara Okafor owns the press release, Rui
 * Costa owns the launch event" gives Amara Okafor for "who owns the press release".
 */
function wordsInClause(span: { start: number }, groups: number[][], bounds: number[]): number {
  const own = clauseAt(bounds, span.start);
  return groups.filter((g) => g.some((p) => clauseAt(bounds, p) === own)).length;
}

function dateText(m: DateMention, ctx: ReaderContext, unit: Unit): string {
  // A record's "2026-05-12T14:00:00Z" reads as the conversation writes dates: "May 12 at 14:00".
  const iso = /^\d{4}-\d{2}-\d{2}(?:[T ](\d{2}:\d{2}))?/.exec(m.text);
  if (iso && ctx.style !== 'iso') return `${formatDay(m.day, ctx.style, m.day.year !== ctx.today?.year)}${iso[1] ? ` at ${iso[1]}` : ''}`;
  if (!m.relative) return m.text;
  return relativeText(m, ctx, unit.day);
}

/**
 * A relative date at the precision it was said with: "yesterday" → the day, "last month" →
 * "April 2023", "last week" → "the week before 9 June 2023", "two weeks ago" → "2 weeks
 * before 9 June 2023" (a week is not a day, so no day is made up for it).
 */
function relativeText(m: DateMention, ctx: ReaderContext, said: Day | undefined): string {
  if (m.precision === 'year') return String(m.day.year);
  if (m.precision === 'month') return `${monthName(m.day.month)} ${m.day.year}`;
  if (said && /\bweeks?\b/i.test(m.text)) {
    const saidText = formatDay(said, ctx.style, true);
    const count = /\b(\w+) weeks? ago\b/i.exec(m.text);
    if (count) return `${count[1]} weeks before ${saidText}`;
    return /\bnext\b/i.test(m.text) ? `the week after ${saidText}` : `the week before ${saidText}`;
  }
  return formatDay(m.day, ctx.style, true);
}

/** A machine time's "Z" (15:30:12Z) is said as UTC. */
function utc(time: string): string {
  return time.replace(/(\d)Z$/, '$1 UTC');
}

/**
 * A statement that takes its value back: a correction that negates it ("Correction, the
 * $1,148 didn't include bags."). A plain negation ("$1,200, which doesn't include
 * utilities") keeps its value.
 */
const TAKES_BACK = /\b(?:didn't|did not|doesn't|does not|wasn't|was not|isn't|is not|won't|will not)\b/i;
const CORRECTION = /\b(?:correction|actually|sorry|my mistake|mistake|wrong|i mean)\b/i;

/**
 * The statement after `found` in the same message, when `found` takes its value back and the
 * next one gives a value of the asked type ("… didn't include bags. With one checked bag each,
 * the total is $1,284.").
 */
export function corrected(found: Found, q: Question, ctx: ReaderContext): Found {
  const text = found.unit.text.replace(/[\u2018\u2019]/g, "'");
  if (q.type === 'clause') return found;
  const retraction = retractedBy(found.unit, q, ctx);
  if (retraction) return { ...found, unit: retraction };
  if (!TAKES_BACK.test(text) || !CORRECTION.test(text)) return found;
  const next = nextInMessage(found.unit, ctx);
  if (!next || next.isQuestion || typedSpans(next, q).length === 0) return found;
  return { ...found, unit: next };
}

/** A statement that opens by taking back what was just said: "Actually scratch that, let's say 6:30." */
const RETRACTS = /^\s*(?:(?:ok(?:ay)?|oh|hmm+|wait|no|sorry)[,.!]*\s+)*(?:actually,?\s+)?(?:scratch that|correction|make (?:that|it)\b|on second thought|change of plans?|no,? wait|wait,? no|i meant|sorry,? i meant)\b/i;

/**
 * The speaker's next statement, when it takes back the value just given and gives one of the
 * asked type itself ("Leave at 7am." … "Actually scratch that, let's say 6:30."): it rarely
 * repeats the words the question and the first statement share. It is the next statement of
 * the message, or the first of the speaker's next message with at most one reply between.
 */
function retractedBy(unit: Unit, q: Question, ctx: ReaderContext): Unit | undefined {
  const items = new Set<number>();
  for (let i = unit.index + 1; i < ctx.units.length; i++) {
    const next = ctx.units[i];
    if (next.item !== unit.item && next.speaker !== unit.speaker) {
      items.add(next.item);
      if (items.size > 1) return undefined;
      continue;
    }
    if (next.speaker !== unit.speaker) return undefined;
    if (next.isQuestion || !RETRACTS.test(next.text.replace(/[\u2018\u2019]/g, "'"))) return undefined;
    return typedSpans(next, q).length > 0 ? next : undefined;
  }
  return undefined;
}

/** The statement after `unit` in the same message, if any. */
function nextInMessage(unit: Unit, ctx: ReaderContext): Unit | undefined {
  const next = ctx.units[unit.index + 1];
  return next?.item === unit.item ? next : undefined;
}

const NOT_BEFORE = /\b(?:not|no|never|instead of|rather than)\b[^,;.]*$/i;

/** The span of the asked type, or the statement itself for a question that asks for one. */
export function extract(found: Found, q: Question, ctx: ReaderContext): string {
  const { unit } = found;
  const anchored = answerAnchors(unit, found.matched, q, found.bridge);
  const points = anchored.groups.flat();
  if (q.type === 'date' || q.type === 'when') {
    const clauses = clauseBounds(unit.text);
    // Through a link, the date in the clause of the linking word: "since 2014, and my *gallbladder* was removed in 2009".
    const linkedDates = found.bridge ? datesIn(unit, q).filter((d) => anchored.groups.some((g) => g.some((p) => clauseAt(clauses, p) === clauseAt(clauses, d.start)))) : [];
    const date = besideWords(linkedDates.length > 0 ? linkedDates : datesIn(unit, q), anchored.all, clauses, points);
    const time = q.type === 'when' ? besideWords(unit.spans.filter((s) => s.type === 'time'), anchored.all, clauses, points) : undefined;
    if (date && time && Math.abs(time.start - date.end) < 12) return unit.text.slice(Math.min(date.start, time.start), Math.max(date.end, time.end));
    if (date && !time && DAY_AND_TIME.test(q.text)) {
      const timed = timeOnDay(date.day, unit, ctx);
      if (timed) return timed;
    }
    if (date) return dateText(date, ctx, unit);
    if (time) {
      // "Tuesdays at 06:30": a weekday just before the time belongs to the answer.
      const day = unit.spans.find((s) => s.type === 'weekday' && s.end <= time.start && time.start - s.end < 5);
      return utc(day ? unit.text.slice(day.start, time.end) : time.text);
    }
    if (unit.day) return formatDay(unit.day, ctx.style, true);
    return statement(found);
  }
  if (q.type === 'clause') {
    const title = WORKS.has(q.head ?? '') ? titleIn(unit, anchored.all.flat()) : undefined;
    if (title) return title;
    // A record answers "which card" with the value filed under `card:`, not the whole record.
    // "…, not the spot table fx_spot_daily.csv": a value the statement turns down is no answer.
    const filed = unit.spans.filter((sp) => q.focus.size > 0 && labelNames(sp, q) && !NOT_BEFORE.test(unit.text.slice(Math.max(0, sp.start - 25), sp.start)));
    if (filed.length === 1) return filed[0].text;
    return (unit.speaker === 'tool' ? recordField(unit.text, q) : undefined) ?? objectOfVerb(unit, q) ?? withReasons(statement(found), found, q, ctx);
  }
  const candidates = typedSpans(unit, q).filter((s) => !isBridge(s, found.bridge, q));
  // "I'm not strictly vegetarian, …, so pescatarian": a value the statement turns down is no answer while another is left.
  const kept = candidates.filter((sp) => !NOT_BEFORE.test(unit.text.slice(Math.max(0, sp.start - 25), sp.start)));
  const spans = kept.length > 0 ? kept : candidates;
  const tier = tiered(q, unit, spans, ctx);
  // A tier's value from the next statement is given as written there.
  if (tier?.inNext) return tier.span.text;
  const span = tier?.span ?? pickSpan(spans, q, anchored, unit.text);
  if (!span) return statement(found);
  if (span.type === 'time') return utc(span.text);
  // "What can't Sam eat?" → gluten, from "strictly gluten-free": the thing the diet is free of.
  if (span.type === 'diet' && AVOIDS.test(q.text)) {
    const avoided = /(\p{L}+)-free$/iu.exec(span.text)?.[1];
    if (avoided) return avoided;
  }
  const counted = q.count ? countedList(spans, span, q.count) : undefined;
  return counted ?? listAround(unit.text, span, unit.spans)?.text ?? fullName(span, ctx);
}

/**
 * The value of the tier the question's case meets, reading the statement with the next one of
 * its message, where the other tier often stands ("… on or after 1 March 2025; earlier hires
 * keep €600").
 */
function tiered(q: Question, unit: Unit, spans: Span[], ctx: ReaderContext): { span: Span; inNext: boolean } | undefined {
  const next = nextInMessage(unit, ctx);
  const offset = unit.text.length + 2;
  const more = next ? typedSpans(next, q).map((s) => ({ ...s, start: s.start + offset, end: s.end + offset })) : [];
  const span = tierFor(q.text, next ? `${unit.text}; ${next.text}` : unit.text, [...spans, ...more]);
  return span && { span, inNext: span.start >= offset };
}

/** A question asking a day and a time ("what day and time is our train"). */
const DAY_AND_TIME = /\b(?:day|date) and time\b/i;

/**
 * A statement that gives the asked day but no time ("search trains … date: 2026-05-20") is
 * completed by the newest later statement that gives that day with a time beside it ("Booked
 * AP 123 on May 20 at 09:09").
 */
function timeOnDay(day: Day, unit: Unit, ctx: ReaderContext): string | undefined {
  for (let i = ctx.units.length - 1; i > unit.index; i--) {
    const u = ctx.units[i];
    if (u.isQuestion) continue;
    for (const d of u.dates) {
      if (d.day.year !== day.year || d.day.month !== day.month || d.day.day !== day.day) continue;
      const time = u.spans.find((s) => s.type === 'time' && s.start >= d.end && s.start - d.end < 6);
      if (time) return u.text.slice(d.start, time.end);
    }
  }
  return undefined;
}

/** A question asking what is to be avoided ("what Sam can't eat", "must it be free of"). */
const AVOIDS = /\b(?:can't|cannot|can not|mustn't|must not|shouldn't|should not) eat\b|\bfree of\b/i;

/**
 * A question that asks leave or advice ("Can we knock out the wall?", "Should I …"): its
 * answer is a verdict and a reason. "Would she …" and "did he …" ask a fact or a guess.
 */
const ASKS_LEAVE = /^(?:can|could|should|shall|may|must)\b/i;
/** A question about what someone said ("what the engineer said about the wall"). */
const ASKS_SAID = /\b(?:what|how) (?:[\w'-]+ ){0,3}(?:said|say|says|told|tell|advised|recommended|suggested)\b/i;
/** A statement that relays someone's words as they stand ("Lena says …", "according to the engineer"). */
const RELAYS = /\b(?:says|tells|suggests|recommends|according to)\b/i;
/** The following statements of the message an answer may take along, and the words they may add up to. */
const REASONS = 2;
const REASON_WORDS = 30;

/**
 * A question that asks leave or advice is answered with the statement and what its message goes
 * on to say ("Lena says the wall is load-bearing. We can't remove it without a beam."): the
 * reason or condition comes after the verdict, not in the same sentence. So is a question about what was said when
 * the statement relays someone's words, which go on past its first sentence. A statement that
 * is itself the words asked for ("Creating a special experience is the key…") stands alone.
 */
function withReasons(text: string, found: Found, q: Question, ctx: ReaderContext): string {
  if (text !== found.unit.text) return text;
  const asked = q.text.trim();
  if (!ASKS_LEAVE.test(asked) && !(ASKS_SAID.test(asked) && RELAYS.test(text))) return withAddition(text, found.unit, ctx);
  let out = text;
  let unit = found.unit;
  for (let i = 0; i < REASONS; i++) {
    const next = nextInMessage(unit, ctx);
    // A bracketed aside (a shared photo's caption) is not what was said.
    if (!next || next.isQuestion || next.text.startsWith('[') || (out + ' ' + next.text).split(/\s+/).length > REASON_WORDS) break;
    out = `${out} ${next.text}`;
    unit = next;
  }
  return out;
}

/** A short fragment that adds to the list before it ("I'm allergic to latex. And sulfa drugs."). */
const ADDITION = /^(?:and|also|plus|as well as)\b/i;
const ADDITION_WORDS = 8;

/** The statement with the fragment after it in its message that only adds to what it listed. */
function withAddition(text: string, unit: Unit, ctx: ReaderContext): string {
  const next = nextInMessage(unit, ctx);
  if (!next || next.isQuestion || !ADDITION.test(next.text) || next.text.split(/\s+/).length > ADDITION_WORDS) return text;
  return `${text} ${next.text}`;
}

/** Head nouns of questions that ask for a work by its title ("What book did she recommend?"). */
const WORKS = new Set(
  'book novel song album film movie show series play poem podcast game piece painting title track record'.split(' ').map(stem),
);

/** A quoted title of one to eight words that starts with a capital, and who it is by when the text says so. */
const TITLE = /["\u201C]((?:\p{Lu}|\d)[^"\u201C\u201D\n]{0,60}?)[.,!?]?["\u201D](\s+by\s+\p{Lu}[\p{L}.'-]*(?:\s+\p{Lu}[\p{L}.'-]*){0,2})?/gu;

/**
 * "What book did Caroline recommend?" → "Becoming Nicole" by Amy Ellis Nutt, from "I loved
 * "Becoming Nicole" by Amy Ellis Nutt.": a work is named by its title. The one nearest the
 * question's words when the statement quotes several; undefined when it quotes none.
 */
function titleIn(unit: Unit, points: number[]): string | undefined {
  const titles = [...unit.text.matchAll(TITLE)]
    .filter((m) => m[1].trim().split(/\s+/).length <= 8)
    .map((m) => ({ start: m.index ?? 0, text: `${m[1].trim()}${(m[2] ?? '').replace(/\.$/, '')}` }));
  return (nearest(titles, points) ?? titles[0])?.text;
}

/**
 * A name as the conversation gives it in full: "Hyun-woo" is "Hyun-woo Park" when that is the
 * one longer name it starts; several ("Sam Okoye", "Sam Lee") leave it as it is.
 */
function fullName(span: Span, ctx: ReaderContext): string {
  if (span.type !== 'name') return span.text;
  const longer = new Set<string>();
  for (const u of ctx.units) for (const s of u.spans) if (s.type === 'name' && s.text.startsWith(`${span.text} `)) longer.add(s.text);
  return longer.size === 1 ? [...longer][0] : span.text;
}

/**
 * The value of a record's field whose key is the asked attribute's head ("which *vendor*" →
 * `vendor: Tessaract IT`), whatever its type; undefined when no one field is.
 */
function recordField(text: string, q: Question): string | undefined {
  const head = q.head;
  if (head === undefined) return undefined;
  const hits = recordEntries(text).filter((f) => stemsOf(f.key).has(head));
  return hits.length === 1 ? hits[0].value : undefined;
}

/**
 * "Which three days": the asked number of distinct values, from the chosen one on ("No problem,
 * we'll switch to Tuesday, Thursday and Sunday: Tuesday easy run, …" → "Tuesday, Thursday and
 * Sunday"); undefined when the statement has fewer.
 */
function countedList(spans: Span[], span: Span, count: number): string | undefined {
  const values = distinctValues(spans.filter((s) => s.type === span.type && s.start >= span.start));
  if (values.length < count) return undefined;
  const texts = values.slice(0, count).map((s) => s.text);
  return `${texts.slice(0, -1).join(', ')} and ${texts[texts.length - 1]}`;
}

/** "What does her drawing *symbolize*?", "what did the race raise awareness *for*?": the question ends at its verb. */
const ENDS_AT_VERB = /^what (?:did|does|do|is|was|were|will|would|has|have|had) [\w' -]+? ([a-z]{3,})(?: (for|about|to|with|on|in|at|of|from|by|into))?\s*\?*$/i;
/** Where the thing after the verb ends: a clause break, a verb of being, or a joining word. */
const OBJECT_END = /[,.;:!?()\u2013\u2014]|\s-\s|\b(?:is|are|was|were|be|been|has|have|had|and then|because|since|when|while|which|who|that|so|but|if|as|to)\b/i;
// "working on *opening*": a preposition right before the last word takes it as its verb.
const INNER_PHRASE = /\b(?:after|before|during|while|since|until|when|where)\s+[\w' -]*$|\b(?:with|at|in|on|from|about|for|of|to|by)\s+[\w'-]+\s+[\w' -]*$/i;
const PRONOUN = /^(?:i|me|my|we|us|our|you|your|he|him|his|she|her|they|them|their|it|its|this|that|these|those|and|or|but|so|then)$/i;
const MAX_OBJECT_WORDS = 8;

/**
 * The words right after the question's last verb where the statement uses it ("The eagle
 * *symbolizes* freedom and pride, …" → "freedom and pride"): what the verb takes is the
 * answer, not the whole statement. Undefined unless that is a short phrase naming something
 * the question does not.
 */
function objectOfVerb(unit: Unit, q: Question): string | undefined {
  const m = ENDS_AT_VERB.exec(q.text.trim());
  // "… after the charity *race*", "… while *camping*": a last word inside a phrase of its own is no verb.
  if (!m || /ly$/.test(m[1]) || INNER_PHRASE.test(q.text.slice(0, m.index + m[0].lastIndexOf(m[1])))) return undefined;
  const verb = [...stemsOf(m[1])][0];
  if (verb === undefined) return undefined;
  for (const w of unit.text.matchAll(/[\p{L}][\p{L}'-]*/gu)) {
    if ([...stemsOf(w[0])][0] !== verb) continue;
    let rest = unit.text.slice((w.index ?? 0) + w[0].length);
    if (m[2]) {
      const prep = new RegExp(`^\\s+${m[2]}\\b`, 'i').exec(rest);
      if (!prep) continue;
      rest = rest.slice(prep[0].length);
    }
    const phrase = rest.split(OBJECT_END)[0].trim();
    const words = phrase.split(/\s+/).filter(Boolean);
    if (words.length === 0 || words.length > MAX_OBJECT_WORDS || PRONOUN.test(words[0])) continue;
    if (![...stemsOf(phrase)].some((s) => !q.stems.has(s))) continue;
    return phrase;
  }
  return undefined;
}

/** A statement as an answer: the unit, at most MAX_ANSWER_WORDS words around the match. */
export function statement(found: Found): string {
  const words = found.unit.text.split(/\s+/);
  if (words.length <= MAX_ANSWER_WORDS) return found.unit.text;
  // The first match's word index: words before a position only grow with it, so one count at the
  // earliest match does (counting before every match was quadratic in a long statement).
  const first = anchors(found.unit, found.matched).reduce((m, p) => Math.min(m, p), Number.POSITIVE_INFINITY);
  // No match at all keeps the window at the end, as the minimum of no counts (Infinity) did.
  const at = Number.isFinite(first) ? Math.max(0, found.unit.text.slice(0, first).split(/\s+/).length - 1) : Number.POSITIVE_INFINITY;
  const start = Math.max(0, Math.min(at - MAX_ANSWER_WORDS / 2, words.length - MAX_ANSWER_WORDS));
  return `${start > 0 ? '…' : ''}${words.slice(start, start + MAX_ANSWER_WORDS).join(' ')}…`;
}

const CALENDAR_STEMS = new Set(
  [...WEEKDAY_NAMES, ...MONTH_NAMES, 'week', 'day', 'morning', 'afternoon', 'evening'].map((w) => stem(w.toLowerCase())),
);

const SMALL_TALK = new Set(
  ['sorry', 'please', 'thanks', 'thank', 'hi', 'hello', 'hey', 'ok', 'okay', 'well', 'today', 'tonight', 'now', 'again'].map(stem),
);

/**
 * When the best statement only repeats the question ("Friday March 27, we decided."), what
 * follows it in the same message answers. A question that names a date ("at the March 23
 * check-in") finds the statement that heads that day ("Week 4 check-in, Monday March 23."):
 * there, dates, numbers and up to two more words count as repeating.
 */
export function withFollowing(found: Found, q: Question, ctx: ReaderContext): Found {
  // Pleasantries and "today" add nothing: "Two problems today, sorry." only repeats "which of my two problems".
  const own = [...found.unit.stems].filter((s) => !q.stems.has(s) && !s.startsWith('@') && !SMALL_TALK.has(s));
  // Any year will do: only whether the question names a day matters here.
  const dated = findDates(q.text, ctx.today, ctx.today?.year ?? 2000).length > 0;
  const header = dated && own.filter((s) => !/^\d/.test(s) && !CALENDAR_STEMS.has(s)).length < 3;
  // A name or code the question does not have is an answer in itself ("Keeping APAC out.").
  const names = [...found.unit.text.matchAll(/(?<!^)\b\p{Lu}[\p{L}\d-]*|\b\p{Lu}{2,}\d*\b/gu)].some((m) => !q.stems.has(stem(m[0].toLowerCase())));
  if ((own.length >= 2 || names) && !header) return found;
  const next = nextInMessage(found.unit, ctx);
  return next ? { ...found, unit: next } : found;
}
