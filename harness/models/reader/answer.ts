// The reader's answer: find the statement (or the two linked statements) that covers the
// question, take the span of the asked type from it, compute what must be computed, and
// abstain when the question's content is not covered. The algorithm is described in
// harness/models/offline.ts and the README.
import { containsNormalized, normalizeText, stem } from '../../../core/text.js';
import type { ReaderContext, Unit } from './context.js';
import { type DateMention, type Day, daysBetween, findDates, formatDay } from './dates.js';
import { type AnswerType, type Question, analyseQuestion, questionParts } from './question.js';
import { type Span, type SpanType, findSpans, listAround, parseNumber } from './spans.js';
import { TextMemo } from './memo.js';
import { contentStems, isAskingWord } from './words.js';

export const ABSTAIN_ANSWER = "I don't know — that was not mentioned in our conversation.";

/**
 * The one abstention threshold: the share of the question's content (IDF-weighted stems,
 * asking words left out) that the chosen statement, or the two linked statements, must cover.
 */
export const MIN_COVERAGE = 0.3;
/** A unit that asks ("Can you provide the error code?") is not an answer; it only scores this share. */
const QUESTION_FACTOR = 0.2;
/** A unit without a span of the asked type keeps this share of its score. */
const UNTYPED_FACTOR = 0.5;
/** For "when", a statement dated only by the day it was said keeps this share against one that gives a date. */
const DAY_ONLY_FACTOR = 0.75;
/** A value filed under the asked attribute (`manager: Rosa Delgado` for "who is my manager") counts this much more. */
const LABELLED_FACTOR = 1.25;
/** Statements by the other party than the question asks about keep this share. */
const OTHER_SPEAKER_FACTOR = 0.85;
/** Asking words ("report", "pick") count this much of their weight when matched. */
const ASKING_FACTOR = 0.3;
/** Units within this share of the best score compete as statements of the same slot; the newest wins. */
const UPDATE_TIE = 0.8;
/** How far, in statements of the same message, the asked attribute may be from the answer. */
const NEAR_UNITS = 2;
/** How many of the best-scoring statements are tried, in order, before the reader abstains. */
const CANDIDATES = 3;
/** A later statement that signals a change of the slot needs this share of the best score. */
const CHANGE_TIE = 0.25;
/** The words naming what is asked about weigh this much more than other question words. */
const FOCUS_FACTOR = 1.5;
/** Stems of the question outside the part being answered count this much. */
const CONTEXT_FACTOR = 0.35;
/** Long statements (tool output lines) are cut to this many words around the match. */
const MAX_ANSWER_WORDS = 30;

const CHANGE_CUE = /\b(now|chang(?:e|ed|ing)|instead|mov(?:e|ed|ing)|switch(?:ed|ing)?|revis(?:e|ed|ion)|updat(?:e|ed|ing)|correct(?:ed|ion)|actually|new|no longer|push(?:ed|ing)?|rais(?:e|ed)|lower(?:ed)?|extend(?:ed)?|replac(?:e|ed)|final(?:ly)?|upgrad(?:e|ed)|downgrad(?:e|ed)|reschedul(?:e|ed)|cancel(?:led|ed)?|bump(?:ed)?|delay(?:ed)?)\b/i;

/**
 * A statement by the assistant, a tool or the instructions that says the asked information is
 * not there ("The handbook doesn't cover parking", "I don't have the guest Wi-Fi password"):
 * the reader passes that on as not known rather than as an answer. The user's own negations
 * ("I don't have any allergies") are facts and stay answers.
 */
const DENIAL = /\b(?:do(?:es)?n't|do(?:es)? not|didn't|did not|never|can't|cannot)\s+(?:\w+\s+)?(?:have|cover|mention|say|give|record|list|specify|state|know|see)\b|\bnot (?:covered|given|mentioned|specified|listed|recorded|on file|stated)\b|\bno (?:record|mention|information|details)\b/i;
export const NOT_GIVEN = 'That was not given in our conversation';

function deniesHaving(unit: Unit): boolean {
  return unit.speaker !== 'user' && DENIAL.test(unit.text.replace(/[\u2018\u2019]/g, "'"));
}

const VERSION_WORDS = /\b(original(?:ly)?|initial(?:ly)?|first|old|previous(?:ly)?|earlier|before)\b/i;
const CHANGE_CUES = new RegExp(CHANGE_CUE.source, 'gi');

/** The unit signals a change with a word the question does not use itself ("the *revised* quote" asks about one). */
function signalsChange(unit: Unit, q: Question): boolean {
  for (const m of unit.text.matchAll(CHANGE_CUES)) if (!q.stems.has(stem(m[0].toLowerCase()))) return true;
  return false;
}

interface Weighted {
  stem: string;
  weight: number;
  /** Counts toward coverage (content words; not asking words). */
  content: boolean;
}

interface Scored {
  unit: Unit;
  score: number;
  matched: Set<string>;
  /** The unit holds a value of the asked type. */
  typed: boolean;
}

/** How many units hold the stem. */
function df(ctx: ReaderContext, stem: string, cache: Map<string, number>): number {
  let n = cache.get(stem);
  if (n === undefined) {
    n = 0;
    for (const u of ctx.units) if (u.stems.has(stem)) n++;
    cache.set(stem, n);
  }
  return n;
}

/** Inverse document frequency over the context's units; an absent stem weighs the most. */
function idf(ctx: ReaderContext, stem: string, cache: Map<string, number>): number {
  return Math.log(1 + ctx.units.length / (1 + df(ctx, stem, cache)));
}

/**
 * What counts toward coverage: the question's content words that the context uses somewhere,
 * the names it mentions whether used or not, and not its asking words. A common word no
 * statement uses ("lunch", "ping") says nothing about which statement answers, and the asked
 * attribute is checked on its own; a name no statement uses means nothing can answer.
 */
function counts(ctx: ReaderContext, q: Question, stem: string, cache: Map<string, number>): boolean {
  return q.names.has(stem) || q.focus.has(stem) || df(ctx, stem, cache) > 0;
}

function weightedStems(ctx: ReaderContext, q: Question, context: Set<string>, cache: Map<string, number>): Weighted[] {
  const out: Weighted[] = [];
  for (const stem of q.stems) {
    if (q.typeStems.has(stem)) continue;
    const asking = isAskingWord(stem) && !q.focus.has(stem);
    const factor = asking ? ASKING_FACTOR : q.focus.has(stem) ? FOCUS_FACTOR : 1;
    out.push({ stem, weight: idf(ctx, stem, cache) * factor, content: !asking && counts(ctx, q, stem, cache) });
  }
  for (const stem of context) {
    if (q.stems.has(stem) || q.typeStems.has(stem) || isAskingWord(stem)) continue;
    out.push({ stem, weight: idf(ctx, stem, cache) * CONTEXT_FACTOR, content: false });
  }
  return out;
}

const TYPE_SPANS: Partial<Record<AnswerType, SpanType[]>> = {
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
};

/** Spans of the asked type in a unit, leaving out values the question itself names. */
function typedSpans(unit: Unit, q: Question): Span[] {
  const types = TYPE_SPANS[q.type];
  if (!types) return [];
  const asked = norm(q.text);
  return unit.spans.filter((s) => types.includes(s.type) && !containsNormalized(asked, norm(s.text)));
}

// Span and question texts recur across thousands of probes; each is normalised once.
const normalized = new TextMemo<string>();
const norm = (text: string) => normalized.get(text, () => normalizeText(text));

function datesIn(unit: Unit, q: Question): DateMention[] {
  const asked = norm(q.text);
  return unit.dates.filter((d) => !containsNormalized(asked, norm(d.text)));
}

/** The unit itself gives a date or a time (not only the day it was said). */
function statesWhen(unit: Unit, q: Question): boolean {
  return datesIn(unit, q).length > 0 || unit.spans.some((s) => s.type === 'time');
}

function hasTypedValue(unit: Unit, q: Question): boolean {
  if (q.type === 'clause') return true;
  if (q.type === 'date') return datesIn(unit, q).length > 0;
  if (q.type === 'when') return datesIn(unit, q).length > 0 || unit.spans.some((s) => s.type === 'time') || unit.day !== undefined;
  return typedSpans(unit, q).length > 0;
}

function sameDay(a: Day | undefined, b: Day): boolean {
  return a !== undefined && a.year === b.year && a.month === b.month && a.day === b.day;
}

function scoreUnit(unit: Unit, q: Question, stems: Weighted[], days: Day[], n: number): Scored {
  const matched = new Set<string>();
  let score = 0;
  for (const w of stems) {
    if (unit.stems.has(w.stem)) {
      matched.add(w.stem);
      score += w.weight;
    }
  }
  // A date in the question ("the meeting on Friday March 27") is met by a unit of that day or naming it.
  for (const d of days) {
    if (sameDay(unit.day, d) || unit.dates.some((m) => sameDay(m.day, d))) {
      matched.add(`@${d.year}-${d.month}-${d.day}`);
      score += 1;
    }
  }
  if (score === 0) return { unit, score, matched, typed: false };
  const typed = hasTypedValue(unit, q);
  if (unit.isQuestion) score *= QUESTION_FACTOR;
  if (!typed) score *= UNTYPED_FACTOR;
  else if (q.type === 'when' && !statesWhen(unit, q)) score *= DAY_ONLY_FACTOR;
  else if (typedSpans(unit, q).some((s) => labelNames(s, q))) score *= LABELLED_FACTOR;
  if (q.speaker && unit.speaker !== q.speaker && unit.speaker !== 'tool') score *= OTHER_SPEAKER_FACTOR;
  // Near-ties go to the newer statement; it never outweighs a shared word.
  score += 0.05 * (unit.index / Math.max(1, n - 1));
  return { unit, score, matched, typed };
}

function coverage(matched: Set<string>, stems: Weighted[], days: Day[]): number {
  let total = 0;
  let got = 0;
  for (const w of stems) {
    if (!w.content) continue;
    total += w.weight;
    if (matched.has(w.stem)) got += w.weight;
  }
  for (const d of days) {
    total += 1;
    if (matched.has(`@${d.year}-${d.month}-${d.day}`)) got += 1;
  }
  return total === 0 ? 1 : got / total;
}

interface Found {
  /** The unit the answer is taken from. */
  unit: Unit;
  /** The other unit of a two-statement answer, linked to `unit` by a shared name or code. */
  via?: Unit;
  coverage: number;
  matched: Set<string>;
  /** Stems of the names or codes linking `unit` and `via`: a link is never the answer. */
  bridge?: Set<string>;
  /** The older statement of the same slot that `unit` updates. */
  replaces?: Unit;
}

/** Names and codes of a unit that the question does not mention: what can link it to another statement. */
function bridges(unit: Unit, q: Question): Set<string> {
  const out = new Set<string>();
  for (const s of unit.spans) {
    if (s.type !== 'identifier' && s.type !== 'name' && s.type !== 'host') continue;
    for (const stem of contentStems(s.text)) if (!q.stems.has(stem)) out.add(stem);
  }
  return out;
}

/** A link is not the answer, unless its key names what is asked (`order: BC-4471829` for "the order number"). */
function isBridge(span: Span, bridge: Set<string> | undefined, q: Question): boolean {
  if (!bridge || labelNames(span, q)) return false;
  const stems = contentStems(span.text);
  return stems.size > 0 && [...stems].every((s) => bridge.has(s));
}

/**
 * The words naming the slot the best statement fills: the head of the asked attribute if it
 * has it ("threshold" in "the materiality threshold"), else, when the question asks for the
 * current value, its matched content words, of which a later statement needs half ("press
 * release" of "who owns the press release now").
 */
function slotWords(best: Scored, q: Question, stems: Weighted[]): { words: string[]; need: number } {
  if (q.head !== undefined && best.matched.has(q.head)) return { words: [q.head], need: 1 };
  // Without a named attribute only a question asking for the current value looks this far.
  if (!q.latest) return { words: [], need: 0 };
  const words = stems.filter((w) => w.content && best.matched.has(w.stem)).map((w) => w.stem);
  return { words, need: Math.ceil(words.length / 2) };
}

/** Codes and hosts in the message a unit belongs to. */
function codesOf(unit: Unit, ctx: ReaderContext): Set<string> {
  const out = new Set<string>();
  for (let i = unit.index; i >= 0 && ctx.units[i].item === unit.item; i--) addCodes(ctx.units[i], out);
  for (let i = unit.index + 1; i < ctx.units.length && ctx.units[i].item === unit.item; i++) addCodes(ctx.units[i], out);
  return out;
}

function addCodes(unit: Unit, out: Set<string>): void {
  for (const s of unit.spans) if (s.type === 'identifier' || s.type === 'host') out.add(norm(s.text));
}

/**
 * A later statement is about the same thing as the best one when it has every name of the
 * question the best one has ("Oakline's", "the Latitudes"), or its message shares a code with
 * the best one's ("BR-4471 left out the dock; the revised unit price is $1,412").
 */
function sameThing(best: Scored, later: Scored, q: Question, ctx: ReaderContext): boolean {
  if ([...q.names].every((n) => !best.matched.has(n) || later.matched.has(n))) return true;
  const codes = codesOf(best.unit, ctx);
  return [...codesOf(later.unit, ctx)].some((c) => codes.has(c));
}

/**
 * An update replaces the old value. A later statement of the same slot wins when it nearly
 * ties with the best (and signals a change, is asked for as the newest, or scores as well), or
 * when it signals a change ("is now", "revised", "instead"), is about the same thing and names
 * the slot (the head of the asked attribute, "threshold" in "the materiality threshold").
 */
function newestOfSlot(best: Scored, ranked: Scored[], q: Question, stems: Weighted[], ctx: ReaderContext): Scored {
  const slot = slotWords(best, q, stems);
  // "Oakline's revised quote", "the original target": the question names which version it wants.
  const namedVersion = !q.latest && (CHANGE_CUE.test(q.text) || VERSION_WORDS.test(q.text));
  const later = ranked
    .filter((r) => r.unit.index > best.unit.index && !r.unit.isQuestion && r.typed)
    .sort((a, b) => a.unit.index - b.unit.index);
  let chosen = best;
  for (const r of later) {
    const cue = signalsChange(r.unit, q);
    const sameSlot = [...best.matched].filter((s) => r.matched.has(s)).length >= Math.max(1, best.matched.size - 1);
    const tie = r.score >= best.score * UPDATE_TIE && sameSlot && (q.latest || cue || r.score >= best.score);
    const named = slot.words.filter((w) => r.matched.has(w)).length;
    const change = cue && !namedVersion && slot.need > 0 && named >= slot.need && r.score >= best.score * CHANGE_TIE && sameThing(best, r, q, ctx);
    if (tie || change) chosen = r;
  }
  return chosen;
}

/** Finds the statement(s) answering `q`; undefined when nothing covers enough of it. */
function find(ctx: ReaderContext, q: Question, context: Set<string>, cache: Map<string, number>): Found | undefined {
  const mentions = findDates(q.text, ctx.today, ctx.today?.year);
  const days = mentions.map((d) => d.day);
  // "last week" counts once, as the day it stands for, not again as the words "last" and "week".
  const dateWords = new Set(mentions.filter((m) => m.relative).flatMap((m) => [...contentStems(m.text)]));
  const stems = weightedStems(ctx, q, context, cache).filter((w) => !dateWords.has(w.stem));
  const n = ctx.units.length;
  const ranked = ctx.units.map((u) => scoreUnit(u, q, stems, days, n)).filter((r) => r.score > 0);
  ranked.sort((a, b) => b.score - a.score || b.unit.index - a.unit.index);
  const answerable = ranked.filter((r) => !r.unit.isQuestion && r.typed);
  // The best statement that covers the question; a near-top one that does when the top one does not.
  for (const first of answerable.slice(0, CANDIDATES)) {
    const best = newestOfSlot(first, answerable, q, stems, ctx);
    // An update that does not cover the question falls back to the statement it would replace.
    for (const from of best === first ? [first] : [best, first]) {
      const found = foundFrom(first, from, ranked, q, stems, days);
      if (covered(found, q, ctx)) return found;
    }
  }
  return undefined;
}

function foundFrom(first: Scored, best: Scored, ranked: Scored[], q: Question, stems: Weighted[], days: Day[]): Found {
  // An update is judged with the statement it replaces: together they name the slot and the new value.
  const union = best === first ? best.matched : new Set([...first.matched, ...best.matched]);
  let found: Found = { unit: best.unit, coverage: coverage(union, stems, days), matched: best.matched };
  if (best !== first) found.replaces = first.unit;
  if (found.coverage < 1) found = linked(found, ranked, q, stems, days) ?? found;
  return found;
}

/** Codes and hosts the question names ("PHX-1", "db-orders-16a"): if the context never states one, nothing can answer. */
function unknownCode(q: Question, ctx: ReaderContext): boolean {
  const codes = findSpans(q.text).filter((s) => s.type === 'identifier' || s.type === 'host');
  return codes.some((code) => {
    const stem = normalizeText(code.text);
    return !ctx.units.some((u) => !u.isQuestion && u.stems.has(stem));
  });
}

/** A statement of the same message just before or after (a long tool output is many messages' worth). */
function nextTo(u: Unit, unit: Unit): boolean {
  return u.item === unit.item && !u.isQuestion && Math.abs(u.index - unit.index) <= NEAR_UNITS;
}

/** A name the question mentions ("the AWS account", "Natalie Brooks' phone") that no statement has. */
function unknownName(q: Question, ctx: ReaderContext): boolean {
  return [...q.names].some((name) => !ctx.units.some((u) => !u.isQuestion && u.stems.has(name)));
}

/**
 * The abstention rule. The answering statement(s) must cover MIN_COVERAGE of the question's
 * content, and every word of the attribute it names ("which *vanity colour*", "my *credit
 * score*") must be in them or in the message they are in: a statement about "credit
 * utilisation" does not answer a question about a credit score. A code or a name the context
 * never states is never covered.
 */
function covered(found: Found, q: Question, ctx: ReaderContext): boolean {
  if (unknownCode(q, ctx) || unknownName(q, ctx)) return false;
  if (found.coverage < MIN_COVERAGE) return false;
  if (q.focus.size === 0) return true;
  const near = ctx.units.filter((u) => u === found.via || u === found.replaces || nextTo(u, found.unit));
  // "Which *customer* had the most late shipments": the answer names a customer, rarely the word.
  const category = /^\s*(?:\S+\s+){0,3}?which\b/i.test(q.text) ? q.head : undefined;
  return [...q.focus].every((f) => f === category || near.some((u) => u.stems.has(f)));
}

/**
 * Two statements joined by a name or code neither is asked about ("Kestrel Foods had the
 * most late shipments" + "Kestrel Foods: account manager Marisol Ortega"): when together
 * they cover clearly more of the question than the best single one, the answer comes from
 * the one that holds a value of the asked type.
 */
function linked(single: Found, ranked: Scored[], q: Question, stems: Weighted[], days: Day[]): Found | undefined {
  let best: Found | undefined;
  for (const first of ranked.slice(0, 5)) {
    const links = bridges(first.unit, q);
    if (links.size === 0) continue;
    for (const second of ranked) {
      if (second.unit === first.unit || second.unit.isQuestion) continue;
      const shared = new Set([...links].filter((l) => second.unit.stems.has(l)));
      if (shared.size === 0) continue;
      const matched = new Set([...first.matched, ...second.matched]);
      const cov = coverage(matched, stems, days);
      if (best && cov <= best.coverage) continue;
      const holder = [second, first].find((r) => typedSpans(r.unit, q).some((s) => !isBridge(s, shared, q)));
      const answerUnit = q.type === 'clause' ? first : holder;
      if (!answerUnit) continue;
      best = { unit: answerUnit.unit, via: answerUnit === second ? first.unit : second.unit, coverage: cov, matched, bridge: shared };
    }
  }
  return best && best.coverage >= single.coverage + 0.15 ? best : undefined;
}

/** Positions in a unit's text where the question words it matched start (a part of a matched code is not one). */
function anchors(unit: Unit, matched: Set<string>): number[] {
  return anchorGroups(unit, matched).flat();
}

/** The positions of each matched question word, one list per word. */
function anchorGroups(unit: Unit, matched: Set<string>): number[][] {
  const lower = unit.text.toLowerCase();
  const stems = [...matched].filter((s) => !s.startsWith('@'));
  const out: number[][] = [];
  for (const stem of stems) {
    if (stems.some((other) => other !== stem && other.includes(stem))) continue;
    const group: number[] = [];
    for (let at = lower.indexOf(stem); at >= 0; at = lower.indexOf(stem, at + 1)) {
      if (at === 0 || !/[\p{L}\p{N}]/u.test(lower[at - 1])) group.push(at);
    }
    if (group.length > 0) out.push(group);
  }
  return out;
}

interface Anchors {
  /** Positions of the anchor words, one list per word. */
  groups: number[][];
  /** The anchors are names of the question: the subject a value follows ("*Oakline* quoted $57,200"). */
  subject: boolean;
}

/**
 * Where the answer should sit near: the names of the question when the unit has them, else
 * every matched question word.
 */
function answerAnchors(unit: Unit, matched: Set<string>, q: Question): Anchors {
  const names = new Set([...matched].filter((m) => q.names.has(m)));
  const at = names.size > 0 ? anchorGroups(unit, names) : [];
  return at.length > 0 ? { groups: at, subject: true } : { groups: anchorGroups(unit, matched), subject: false };
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

function nearest<T extends { start: number }>(items: T[], points: number[]): T | undefined {
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
function pickSpan(spans: Span[], q: Question, { groups, subject }: Anchors, text: string): Span | undefined {
  const order = TYPE_SPANS[q.type] ?? [];
  const clauses = clauseBounds(text);
  const rank = (s: Span): number[] => {
    const labelled = labelNames(s, q);
    const distance = groups.length === 0 ? s.start : closeness(s.start, groups, subject);
    return [labelled ? 0 : 1, order.indexOf(s.type), -wordsInClause(s, groups, clauses), distance];
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

function before(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** Where the clauses of a statement start: at commas, semicolons, "and", "but". */
function clauseBounds(text: string): number[] {
  const out = [0];
  for (const m of text.matchAll(/[,;]\s|\s(?:and|but|while|whereas)\s/g)) out.push((m.index ?? 0) + m[0].length);
  return out;
}

/**
 * How many question words share the value's clause: "Amara Okafor owns the press release, Rui
 * Costa owns the launch event" gives Amara Okafor for "who owns the press release".
 */
function wordsInClause(span: Span, groups: number[][], bounds: number[]): number {
  const clause = (at: number) => bounds.filter((b) => b <= at).length;
  const own = clause(span.start);
  return groups.filter((g) => g.some((p) => clause(p) === own)).length;
}

const labels = new TextMemo<Set<string>>();
const labelStems = (label: string) => labels.get(label, () => contentStems(label.replace(/[_.]+/g, ' ')));

/** The span's key or label is a word of the question's asked attribute (or, with none, of the question). */
function labelNames(span: Span, q: Question): boolean {
  if (span.label === undefined) return false;
  const words = q.focus.size > 0 ? q.focus : q.stems;
  return [...labelStems(span.label)].some((l) => words.has(l));
}

function dateText(m: DateMention, ctx: ReaderContext, unit: Unit): string {
  // A record's "2026-05-12T14:00:00Z" reads as the conversation writes dates: "May 12 at 14:00".
  const iso = /^\d{4}-\d{2}-\d{2}(?:[T ](\d{2}:\d{2}))?/.exec(m.text);
  if (iso && ctx.style !== 'iso') return `${formatDay(m.day, ctx.style, m.day.year !== ctx.today?.year)}${iso[1] ? ` at ${iso[1]}` : ''}`;
  if (!m.relative) return m.text;
  const resolved = formatDay(m.day, ctx.style, true);
  return unit.day ? `${resolved} (${m.text} before ${formatDay(unit.day, ctx.style, true)})` : resolved;
}

/** The span of the asked type, or the statement itself for a question that asks for one. */
function extract(found: Found, q: Question, ctx: ReaderContext): string {
  const { unit } = found;
  const anchored = answerAnchors(unit, found.matched, q);
  const points = anchored.groups.flat();
  if (q.type === 'date' || q.type === 'when') {
    const date = nearest(datesIn(unit, q), points);
    const time = q.type === 'when' ? nearest(unit.spans.filter((s) => s.type === 'time'), points) : undefined;
    if (date && time && Math.abs(time.start - date.end) < 12) return unit.text.slice(Math.min(date.start, time.start), Math.max(date.end, time.end));
    if (date) return dateText(date, ctx, unit);
    if (time) {
      // "Tuesdays at 06:30": a weekday just before the time belongs to the answer.
      const day = unit.spans.find((s) => s.type === 'weekday' && s.end <= time.start && time.start - s.end < 5);
      return day ? unit.text.slice(day.start, time.end) : time.text;
    }
    if (unit.day) return formatDay(unit.day, ctx.style, true);
    return statement(found);
  }
  if (q.type === 'clause') {
    // A record answers "which card" with the value filed under `card:`, not the whole record.
    const filed = unit.spans.filter((sp) => q.focus.size > 0 && labelNames(sp, q));
    return filed.length === 1 ? filed[0].text : statement(found);
  }
  const spans = typedSpans(unit, q).filter((s) => !isBridge(s, found.bridge, q));
  const span = pickSpan(spans, q, anchored, unit.text);
  if (!span) return statement(found);
  return listAround(unit.text, span, unit.spans)?.text ?? span.text;
}

/** A statement as an answer: the unit, at most MAX_ANSWER_WORDS words around the match. */
function statement(found: Found): string {
  const words = found.unit.text.split(/\s+/);
  if (words.length <= MAX_ANSWER_WORDS) return found.unit.text;
  const at = Math.max(0, Math.min(...anchors(found.unit, found.matched).map((p) => found.unit.text.slice(0, p).split(/\s+/).length - 1)));
  const start = Math.max(0, Math.min(at - MAX_ANSWER_WORDS / 2, words.length - MAX_ANSWER_WORDS));
  return `${start > 0 ? '…' : ''}${words.slice(start, start + MAX_ANSWER_WORDS).join(' ')}…`;
}

const CALENDAR_STEMS = new Set(
  'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december week day morning afternoon evening'
    .split(' ')
    .map(stem),
);

/**
 * When the best statement only repeats the question ("Friday March 27, we decided."), what
 * follows it in the same message answers. A question that names a date ("at the March 23
 * check-in") finds the statement that heads that day ("Week 4 check-in, Monday March 23."):
 * there, dates, numbers and up to two more words count as repeating.
 */
function withFollowing(found: Found, q: Question, ctx: ReaderContext): Found {
  const own = [...found.unit.stems].filter((s) => !q.stems.has(s) && !s.startsWith('@'));
  // Any year will do: only whether the question names a day matters here.
  const dated = findDates(q.text, ctx.today, ctx.today?.year ?? 2000).length > 0;
  const header = dated && own.filter((s) => !/^\d/.test(s) && !CALENDAR_STEMS.has(s)).length < 3;
  // A name or code the question does not have is an answer in itself ("Keeping APAC out.").
  const names = [...found.unit.text.matchAll(/(?<!^)\b\p{Lu}[\p{L}\d-]*|\b\p{Lu}{2,}\d*\b/gu)].some((m) => !q.stems.has(stem(m[0].toLowerCase())));
  if ((own.length >= 2 || names) && !header) return found;
  const next = ctx.units[found.unit.index + 1];
  if (!next || next.item !== found.unit.item) return found;
  return { ...found, unit: next };
}

// ---------------------------------------------------------------------------------------
// Computed answers

interface Moment {
  day: Day;
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

function pad(n: number): string {
  return String(n).padStart(2, '0');
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

/** When an event happened: the date or time its statement gives, else the day it was said. */
function momentOf(phrase: string, ctx: ReaderContext, cache: Map<string, number>, wantTime: boolean): Moment | undefined {
  if (/^(today|now|this (?:intake|check-in|call|chat))\b/i.test(phrase.trim()) || /\btoday\b/i.test(phrase)) {
    return ctx.today ? { day: ctx.today, label: formatDay(ctx.today, ctx.style, false) } : undefined;
  }
  const q = analyseQuestion(phrase, true);
  const asWhen: Question = { ...q, type: wantTime ? 'time' : 'when', focus: eventVerbs(phrase) };
  // A statement with the event's verb first; failing that, the best statement about it at all.
  const found = find(ctx, asWhen, new Set(), cache) ?? find(ctx, { ...asWhen, focus: q.focus }, new Set(), cache);
  if (!found) return undefined;
  const { unit } = found;
  const points = anchors(unit, found.matched);
  const time = nearest(unit.spans.filter((s) => s.type === 'time'), points);
  const minutes = time ? timeOfDay(time.text) : undefined;
  const date = nearest(datesIn(unit, asWhen), points);
  const day = date?.day ?? unit.day;
  if (!day) return undefined;
  if (wantTime && minutes !== undefined) return { day, minutes, label: `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}` };
  return { day, label: formatDay(day, ctx.style, false) };
}

const UNIT_DAYS = { day: 1, week: 7, month: 30.4375, year: 365.25 } as const;

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

function computeElapsed(c: Extract<NonNullable<Question['computation']>, { op: 'elapsed' }>, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  const unit = c.unit;
  const wantTime = unit === 'minute' || unit === 'hour';
  const from = momentOf(c.from, ctx, cache, wantTime);
  const to = momentOf(c.to, ctx, cache, wantTime);
  if (!from || !to) return undefined;
  if (unit === 'minute' || unit === 'hour') {
    if (from.minutes === undefined || to.minutes === undefined) return undefined;
    const total = Math.abs(daysBetween(from.day, to.day) * 1440 + to.minutes - from.minutes);
    const amount = unit === 'hour' ? `${plural(Math.floor(total / 60), 'hour')}${total % 60 ? ` ${plural(total % 60, 'minute')}` : ''}` : plural(total, 'minute');
    return `${amount} (${from.label} to ${to.label})`;
  }
  const days = Math.abs(daysBetween(from.day, to.day));
  const amount = unit === 'day' ? days : Math.round((days / UNIT_DAYS[unit]) * 10) / 10;
  return `${plural(amount, unit)} (${from.label} to ${to.label})`;
}

function valueOf(phrase: string, context: string, ctx: ReaderContext, cache: Map<string, number>): Span | undefined {
  const q: Question = { ...analyseQuestion(phrase, true), type: 'quantity' };
  const found = find(ctx, q, contentStems(context), cache);
  if (!found) return undefined;
  return nearest(typedSpans(found.unit, q).filter((s) => parseNumber(s.text) !== undefined), anchors(found.unit, found.matched));
}

function computeDifference(c: Extract<NonNullable<Question['computation']>, { op: 'difference' }>, question: string, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
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

// ---------------------------------------------------------------------------------------

function answerPart(part: string, whole: string, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  const q = analyseQuestion(part);
  if (q.computation?.op === 'elapsed') {
    const computed = computeElapsed(q.computation, ctx, cache);
    if (computed) return computed;
  }
  if (q.computation?.op === 'difference') {
    const computed = computeDifference(q.computation, whole, ctx, cache);
    if (computed) return computed;
  }
  const context = part === whole ? new Set<string>() : contentStems(whole);
  const found = find(ctx, q, context, cache);
  if (!found) return undefined;
  if (deniesHaving(found.unit)) return `${NOT_GIVEN}: ${statement(found)}`;
  return extract(q.type === 'clause' ? withFollowing(found, q, ctx) : found, q, ctx);
}

/** The reader's reply to `question` from `ctx`. */
export function answerQuestion(question: string, ctx: ReaderContext): string {
  if (contentStems(question).size === 0) return ABSTAIN_ANSWER;
  const cache = new Map<string, number>();
  const parts = questionParts(question);
  const answers = parts.map((p) => answerPart(p, question, ctx, cache));
  const known = answers.filter((a): a is string => a !== undefined);
  if (known.length === 0) return ABSTAIN_ANSWER;
  // The unknown part goes last: an answer that says "I don't know" first reads as a guess after it.
  return known.length === answers.length ? known.join('; ') : `${known.join('; ')}; the rest was not mentioned`;
}
