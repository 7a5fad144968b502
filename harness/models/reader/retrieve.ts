// Finding the statement that answers: IDF scoring, updates of a slot, two-statement links,
// and the abstention rule. The algorithm is described in harness/models/offline.ts.
import { normalizeText, stem } from '../../../core/text.js';
import type { ReaderContext, Unit } from './context.js';
import { type Day, daysBetween, findDates } from './dates.js';
import { NOT_POSSESSORS, type AnswerType, type Question } from './question.js';
import { type Span, findSpans, recordEntries } from './spans.js';
import { datesIn, distinctValues, hasFirstType, hasTypedValue, labelNames, labelStems, norm, statesWhen, typedSpans } from './typed.js';
import { contentStems, isAskingWord, stemsOf } from './words.js';
import { valueBesideAllWords } from './clauses.js';

/**
 * The one abstention threshold: the share of the question's content (IDF-weighted stems,
 * asking words left out) that the chosen statement, or the two linked statements, must cover.
 */
export const MIN_COVERAGE = 0.3;
/** A unit that asks ("Can you provide the error code?") is not an answer; it only scores this share. */
const QUESTION_FACTOR = 0.2;
/** A unit without a span of the asked type keeps this share of its score. */
const UNTYPED_FACTOR = 0.5;
/** A statement whose only value is of a stand-in type (an identifier for "which version") keeps this share. */
const STAND_IN_FACTOR = 0.85;
/** A statement whose value shares a clause with every question word it has wins a near-tie by this much. */
const CLAUSE_BONUS = 0.1;
/** For "which three days", a statement with fewer values of the type keeps this share. */
const FEW_VALUES_FACTOR = 0.7;
/** For "when" and "what date", a statement dated only by the day it was said keeps this share against one that gives a date. */
const DAY_ONLY_FACTOR = 0.75;
/** A value filed under the asked attribute (`manager: Rosa Delgado` for "who is my manager") counts this much more. */
const LABELLED_FACTOR = 1.25;
/** Statements by the other party than the question asks about keep this share. */
const OTHER_SPEAKER_FACTOR = 0.85;
/** Asking words ("report", "pick") count this much of their weight when matched. */
const ASKING_FACTOR = 0.3;
/** A question word met only in the question a unit replies to counts this share of its weight. */
const REPLY_FACTOR = 0.6;
/** A question word met only in the statement before a unit in its message counts this share of its weight. */
const FOLLOWS_FACTOR = 0.5;
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

const CHANGE_CUE = /\b(now|chang(?:e|es|ed|ing)|instead|mov(?:e|es|ed|ing)|switch(?:es|ed|ing)?|revis(?:e|es|ed|ion)|updat(?:e|es|ed|ing)|correct(?:ed|ion)|actually|new|no longer|push(?:es|ed|ing)?|rais(?:e|es|ed)|lower(?:s|ed)?|extend(?:s|ed)?|replac(?:e|es|ed)|final(?:ly)?|upgrad(?:e|es|ed)|downgrad(?:e|es|ed)|reschedul(?:e|es|ed)|cancel(?:s|led|ed)?|bump(?:s|ed)?|delay(?:s|ed)?|slip(?:s|ped)?)\b/i;

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

/** How many units hold the stem, counted once per answer in `cache`. */
export function df(ctx: ReaderContext, stem: string, cache: Map<string, number>): number {
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

/** What a statement holding a value of a closed kind (a diet, a currency, an operating system) matches: the kind the question names. */
const KIND = '@kind';
/** Kinds whose values the reader knows by name, so a value of one answers the word for the kind ("pescatarian" the word "diet"). */
const NAMED_KINDS = new Set<Question['type']>(['diet', 'currency', 'platform']);

/**
 * "What diet should the guide plan for *me*?": of the statements naming a diet, the user's own
 * about themselves ("I'm not strictly vegetarian, I eat fish, so pescatarian") rather than one
 * about a restaurant or another traveller.
 */
function ownKind(unit: Unit, q: Question): boolean {
  // A question naming someone ("what Sam can't eat") is about them, whoever asks; a name after
  // "the" names a place or a thing ("the Sintra guide").
  const namesSomeone = /(?<!\bthe )\b(?!I\b)\p{Lu}\p{Ll}+\b/u.test(q.text.replace(/^\s*\S+/, ''));
  return NAMED_KINDS.has(q.type) && !namesSomeone && unit.speaker === 'user' && /\b(?:me|my|i|i'm)\b/i.test(q.text) && /\b(?:i|i'm|my|me)\b/i.test(unit.text);
}

function weightedStems(ctx: ReaderContext, q: Question, context: Set<string>, cache: Map<string, number>): Weighted[] {
  const out: Weighted[] = [];
  // "What diet should the guide plan lunch for?": a statement naming a diet has the asked word, as a rare word weighs.
  if (NAMED_KINDS.has(q.type)) out.push({ stem: KIND, weight: Math.log(1 + ctx.units.length), content: true });
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

function sameDay(a: Day | undefined, b: Day): boolean {
  return a !== undefined && a.year === b.year && a.month === b.month && a.day === b.day;
}

/**
 * The statement has a value of the asked type in the clause that holds all (two or more) of
 * the question words it has: "The first error is at 08:58:11 UTC" rather than "rolled out at
 * 08:41, 17 minutes before the first error".
 */
function valueBesideWords(unit: Unit, q: Question, spans: Span[], matched: Set<string>): boolean {
  const words = [...matched].filter((m) => !m.startsWith('@'));
  if (words.length < 2) return false;
  const dated = q.type === 'date' || q.type === 'when';
  const values: { start: number }[] = dated ? [...datesIn(unit, q), ...unit.spans.filter((s) => s.type === 'time')] : spans;
  return values.length > 0 && valueBesideAllWords(unit, new Set(words), values);
}

/** The unit has the word, a code whose letters abbreviate it ("CHG-3391" for "change"), or the noun of its event ("decision" for "decide"). */
function hasWord(unit: Unit, stem: string, q: Question): boolean {
  if (stem === KIND) return unit.spans.some((s) => s.type === q.type);
  return (
    unit.stems.has(stem) ||
    (q.abbreviations?.get(stem)?.some((letters) => unit.stems.has(letters)) ?? false) ||
    (q.nouns?.get(stem)?.some((noun) => unit.stems.has(noun)) ?? false)
  );
}

function scoreUnit(unit: Unit, q: Question, stems: Weighted[], days: Day[], n: number): Scored {
  const matched = new Set<string>();
  let score = 0;
  for (const w of stems) {
    if (hasWord(unit, w.stem, q)) {
      matched.add(w.stem);
      score += w.weight;
    } else if (q.type !== 'clause' && unit.follows?.has(w.stem)) {
      // A value said after its heading ("AMER is Dana Whitcomb" after "Region owners") answers
      // with the heading's words; a statement asked for whole is the heading itself.
      matched.add(w.stem);
      score += w.weight * FOLLOWS_FACTOR;
    } else if (unit.replyTo?.has(w.stem)) {
      // A tool's output is scored by its call's words but does not cover them: a search
      // for "budget sheet" returns lines that need not be about a budget.
      if (unit.speaker !== 'tool') matched.add(w.stem);
      score += w.weight * REPLY_FACTOR;
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
  const spans = typedSpans(unit, q);
  const typed = hasTypedValue(unit, q, spans);
  if (unit.isQuestion) score *= QUESTION_FACTOR;
  if (!typed) score *= UNTYPED_FACTOR;
  else if (q.type === 'when' && !statesWhen(unit, q)) score *= DAY_ONLY_FACTOR;
  else if (q.type === 'date' && datesIn(unit, q).length === 0) score *= DAY_ONLY_FACTOR;
  else if (spans.some((s) => labelNames(s, q)) || statesAttribute(unit, q) || filesCode(unit, q)) score *= LABELLED_FACTOR;
  else if (!hasFirstType(spans, q)) score *= STAND_IN_FACTOR;
  if (q.count && distinctValues(spans).length < q.count) score *= FEW_VALUES_FACTOR;
  if (q.speaker && unit.speaker !== q.speaker && unit.speaker !== 'tool') score *= OTHER_SPEAKER_FACTOR;
  if (ownKind(unit, q)) score *= LABELLED_FACTOR;
  // Near-ties go to the statement with its value beside the question's words, then to the
  // newer one; neither outweighs a shared word.
  if (typed && valueBesideWords(unit, q, spans, matched)) score += CLAUSE_BONUS;
  const age = unit.index / Math.max(1, n - 1);
  score += 0.05 * (q.event && !plans(unit, q) ? 1 - age : age);
  return { unit, score, matched, typed };
}

/**
 * For a question asked for whole ("which venue are we using"), the statement says what the
 * attribute is ("Venue is now Harbor View Pavilion"), not only names it ("the final
 * walkthrough at the venue").
 */
function statesAttribute(unit: Unit, q: Question): boolean {
  return q.type === 'clause' && q.head !== undefined && statesWord(unit, q.head);
}

/** For a question asked for whole, the statement files a code under the asked attribute's head ("with form RW-12" for "which form"). */
function filesCode(unit: Unit, q: Question): boolean {
  const head = q.head;
  return q.type === 'clause' && head !== undefined && unit.spans.some((s) => s.type === 'identifier' && s.label !== undefined && labelStems(s.label).has(head));
}

/** `statesAttribute` by any word of the asked attribute: "Take-home is now $4,610" for "the take-home pay". */
function statesAnyWord(unit: Unit, q: Question): boolean {
  return [...q.focus].some((f) => statesWord(unit, f));
}

/** The unit has a word of stem `s` followed by "is", "was", "to", … ("Venue is now …", "change my address to …"). */
function statesWord(unit: Unit, s: string): boolean {
  if (!unit.stems.has(s)) return false;
  // A stem is a word's start, but for a final i that was a y ("compani" of "company").
  const start = s.replace(/[^\p{L}\p{N}]/gu, '.').replace(/i$/, '[iy]');
  return new RegExp(`\\b${start}[\\p{L}]*\\s+(?:is|are|was|were|will be|has been|have been|to|now)\\b`, 'iu').test(unit.text);
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

export interface Found {
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
    // A code links as a whole: its parts ("2025" of PO-2025-0412) are in every other code of the year.
    const stems = s.type === 'name' ? stemsOf(s.text) : s.type === 'identifier' || s.type === 'host' ? codeStems(s.text) : [];
    for (const stem of stems) if (!q.stems.has(stem)) out.add(stem);
  }
  // An acronym or a name with one ("EMEA-North", "APAC") names a thing wherever it stands, at
  // the start of a sentence too, where a capital says nothing.
  for (const m of unit.text.matchAll(ACRONYM)) for (const stem of codeStems(m[0])) if (!q.stems.has(stem)) out.add(stem);
  return out;
}

const ACRONYM = /(?<![\p{L}\p{N}-])\p{Lu}{2,}[\p{L}\p{N}]*(?:-[\p{L}\p{N}]+)*(?![\p{L}\p{N}-])/gu;

/** The stems of a code's words taken whole (`po-2025-0412`; "SK 604 118 273" has four), not its parts. */
function codeStems(text: string): string[] {
  return normalizeText(text)
    .split(' ')
    .flatMap((word) => [...stemsOf(word)].slice(0, 1));
}

/** A link is not the answer, unless its key names what is asked (`order: BC-4471829` for "the order number"). */
export function isBridge(span: Span, bridge: Set<string> | undefined, q: Question): boolean {
  if (!bridge || labelNames(span, q)) return false;
  if (span.type === 'identifier' || span.type === 'host') {
    const codes = codeStems(span.text);
    return codes.length > 0 && codes.every((c) => bridge.has(c));
  }
  const stems = stemsOf(span.text);
  return stems.size > 0 && [...stems].every((s) => bridge.has(s));
}

/**
 * The words naming the slot the best statement fills: the head of the asked attribute if it
 * has it ("threshold" in "the materiality threshold"), else, when the question asks for the
 * current value, its matched content words, of which a later statement needs half ("press
 * release" of "who owns the press release now").
 */
function slotWords(best: Scored, q: Question, stems: Weighted[]): { words: string[]; need: number; or?: string[] } {
  if (q.head !== undefined && best.matched.has(q.head)) {
    // Without the head, the attribute's other words name it when they hold its rarest word
    // ("Take-home is now $4,610" for "the take-home pay"; "raise protein" does not name "the protein powder").
    const focus = stems.filter((w) => q.focus.has(w.stem) && best.matched.has(w.stem)).sort((a, b) => b.weight - a.weight);
    const rarest = focus[0]?.stem;
    const or = rarest !== undefined && rarest !== q.head && focus.length > 1 ? focus.map((w) => w.stem) : undefined;
    return { words: [q.head], need: 1, or };
  }
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
  // The subject the attribute is asked of ("which PO are the *monitors* on"): a later statement
  // needs it when the best has it, not only the attribute.
  const subject = [...q.subject].filter((s) => best.matched.has(s));
  const names = [...q.names].every((n) => !best.matched.has(n) || later.matched.has(n));
  if (names && (subject.length === 0 || subject.some((s) => later.matched.has(s)))) return true;
  const codes = codesOf(best.unit, ctx);
  return [...codesOf(later.unit, ctx)].some((c) => codes.has(c));
}

/** Types whose value says what it is: a later version, host, email, phone or URL stated with a change names its slot. */
const SELF_NAMING_TYPES = new Set<AnswerType>(['version', 'host', 'email', 'phone', 'url']);

/** "Router update done, it says 1.1.8 now" names the firmware slot of "which firmware version …" by its value. */
function namesSlotByType(r: Scored, q: Question): boolean {
  return SELF_NAMING_TYPES.has(q.type) && hasFirstType(typedSpans(r.unit, q), q);
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
  // A statement that says what the attribute is ("Venue is now Harbor View Pavilion") is not
  // replaced by one that only names it ("the final walkthrough at the venue").
  const stated = statesAttribute(best.unit, q);
  for (const r of later) {
    if (stated && !statesAnyWord(r.unit, q)) continue;
    const cue = signalsChange(r.unit, q);
    const sameSlot = [...best.matched].filter((s) => r.matched.has(s)).length >= Math.max(1, best.matched.size - 1);
    const tie = r.score >= best.score * UPDATE_TIE && sameSlot && (q.latest || cue || r.score >= best.score);
    // The statement itself names the slot: the words of the question it replies to do not.
    const byOthers = slot.or !== undefined && r.unit.stems.has(slot.or[0]) && slot.or.filter((w) => r.unit.stems.has(w)).length * 2 >= slot.or.length;
    const named = (byOthers ? slot.need : slot.words.filter((w) => r.unit.stems.has(w)).length) + (namesSlotByType(r, q) ? slot.need : 0);
    const change = cue && !namedVersion && slot.need > 0 && named >= slot.need && r.score >= best.score * CHANGE_TIE && sameThing(best, r, q, ctx);
    if (tie || change) chosen = r;
  }
  return countedChange(chosen, q, ctx) ?? chosen;
}

/**
 * "Which three days am I training on?": a later statement that says the values changed and
 * gives that many values of the asked type, others than the chosen one's ("we'll switch to
 * Tuesday, Thursday and Sunday"), replaces them, though it repeats no word of the question.
 */
function countedChange(chosen: Scored, q: Question, ctx: ReaderContext): Scored | undefined {
  if (!q.count) return undefined;
  const values = (u: Unit) => distinctValues(typedSpans(u, q)).map((s) => norm(s.text));
  const old = new Set(values(chosen.unit));
  let newest: Unit | undefined;
  for (const u of ctx.units.slice(chosen.unit.index + 1)) {
    if (u.isQuestion || !signalsChange(u, q)) continue;
    const now = values(u);
    if (now.length >= q.count && now.some((v) => !old.has(v))) newest = u;
  }
  return newest ? { unit: newest, score: chosen.score, matched: chosen.matched, typed: true } : undefined;
}

/**
 * The statement dates something after the day it was said: a plan ("visit: 2026-03-12"), which
 * a later statement may move. An event reported on or after its day is not moved by a later
 * mention of it ("since the page").
 */
function plans(unit: Unit, q: Question): boolean {
  const said = unit.day;
  return said !== undefined && datesIn(unit, q).some((d) => daysBetween(said, d.day) > 0);
}

const NOT_SCORED = (unit: Unit): Scored => ({ unit, score: 0, matched: new Set(), typed: false });

/** The stems of the names lines are attributed to (`Caroline: …` in an imported two-person chat), per context. */
const speakerStems = new WeakMap<ReaderContext, Set<string>>();

function speakersOf(ctx: ReaderContext): Set<string> {
  let out = speakerStems.get(ctx);
  if (!out) {
    out = new Set();
    for (const u of ctx.units) if (u.speakerName) for (const s of stemsOf(u.speakerName)) out.add(s);
    speakerStems.set(ctx, out);
  }
  return out;
}

/** The one speaker of the chat the question is about ("What did *Melanie* realize …"); undefined when it names none or both. */
function askedSpeaker(q: Question, ctx: ReaderContext): string | undefined {
  const speakers = speakersOf(ctx);
  if (speakers.size < 2) return undefined;
  const asked = [...q.names].filter((s) => speakers.has(s));
  return asked.length === 1 ? asked[0] : undefined;
}

/**
 * A line another speaker said that does not name the asked one is about that speaker ("I ran a
 * charity race" by Caroline answers nothing about what Melanie did): it cannot answer.
 */
function aboutOther(unit: Unit, person: string): boolean {
  return unit.speakerName !== undefined && !unit.stems.has(person);
}

/**
 * Finds the statement(s) answering `q`; undefined when nothing covers enough of it.
 * `exclude`: statements that may not answer (the other event of a computation).
 */
export function find(ctx: ReaderContext, q: Question, context: Set<string>, cache: Map<string, number>, exclude?: ReadonlySet<Unit>): Found | undefined {
  const mentions = findDates(q.text, ctx.today, ctx.today?.year);
  const days = mentions.map((d) => d.day);
  // "last week" counts once, as the day it stands for, not again as the words "last" and "week".
  const dateWords = new Set(mentions.filter((m) => m.relative).flatMap((m) => [...contentStems(m.text)]));
  const stems = weightedStems(ctx, q, context, cache).filter((w) => !dateWords.has(w.stem));
  const n = ctx.units.length;
  const person = askedSpeaker(q, ctx);
  const ranked = ctx.units.map((u) => (person && aboutOther(u, person) ? NOT_SCORED(u) : scoreUnit(u, q, stems, days, n))).filter((r) => r.score > 0);
  ranked.sort((a, b) => b.score - a.score || (q.event ? a.unit.index - b.unit.index : b.unit.index - a.unit.index));
  const answerable = ranked.filter((r) => !r.unit.isQuestion && r.typed && !exclude?.has(r.unit));
  // A code or name the question has and no statement states: nothing can answer.
  if (unknownCode(q, ctx) || unknownName(q, ctx)) return undefined;
  // The best statement that covers the question; a near-top one that does when the top one does not.
  for (const first of answerable.slice(0, CANDIDATES)) {
    const best = q.event && !plans(first.unit, q) ? first : newestOfSlot(first, answerable, q, stems, ctx);
    // An update that does not cover the question falls back to the statement it would replace.
    for (const from of best === first ? [first] : [best, first]) {
      const found = foundFrom(first, from, ranked, q, stems, days, ctx, cache);
      if (covered(found, q, ctx)) return found;
    }
  }
  return continued(ranked, q, stems, days, ctx, exclude);
}

/**
 * When no statement with a value of the asked type answers, the best one without a value may
 * be continued by the next statement of its message, which has one ("Another, alert when lock
 * waits exceed 30 seconds. Owner Hyun-woo." for who owns the lock-wait alert).
 */
function continued(ranked: Scored[], q: Question, stems: Weighted[], days: Day[], ctx: ReaderContext, exclude?: ReadonlySet<Unit>): Found | undefined {
  if (q.type === 'clause' || q.type === 'date' || q.type === 'when') return undefined;
  for (const first of ranked.filter((r) => !r.typed && !r.unit.isQuestion).slice(0, CANDIDATES)) {
    const next = ctx.units[first.unit.index + 1];
    if (next === undefined || exclude?.has(next) || next.item !== first.unit.item || next.isQuestion || typedSpans(next, q).length === 0) continue;
    const found: Found = { unit: next, via: first.unit, coverage: coverage(first.matched, stems, days), matched: first.matched };
    if (covered(found, q, ctx)) return found;
  }
  return undefined;
}

function foundFrom(first: Scored, best: Scored, ranked: Scored[], q: Question, stems: Weighted[], days: Day[], ctx: ReaderContext, cache: Map<string, number>): Found {
  // An update is judged with the statement it replaces: together they name the slot and the new value.
  const union = best === first ? best.matched : new Set([...first.matched, ...best.matched]);
  let found: Found = { unit: best.unit, coverage: coverage(union, stems, days), matched: best.matched };
  if (best !== first) found.replaces = first.unit;
  if (found.coverage < 1) found = linked(found, ranked, q, stems, days, ctx, cache) ?? found;
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
 * utilisation" does not answer a question about a credit score. (A code or a name the
 * context never states is ruled out once, in `find`.)
 */
function covered(found: Found, q: Question, ctx: ReaderContext): boolean {
  if (found.coverage < MIN_COVERAGE) return false;
  if (q.owner && !namesOwner(found, q.owner, ctx)) return false;
  if (anotherPossessor(found, q, ctx)) return false;
  if (q.type === 'clause' && onlyListsIt(found.unit, q)) return false;
  const around = ctx.units.slice(Math.max(0, found.unit.index - NEAR_UNITS), found.unit.index + NEAR_UNITS + 1);
  const near = [...around.filter((u) => nextTo(u, found.unit)), ...[found.via, found.replaces].filter((u): u is Unit => u !== undefined)];
  if (q.focus.size === 0) return true;
  // "Which *customer* had the most late shipments": the answer names a customer, rarely the word.
  const category = /^\s*(?:\S+\s+){0,3}?which\b/i.test(q.text) ? q.head : undefined;
  // "Which *rate table*" picks one of the tables, which the statement need not call a rate table.
  if (category === undefined && q.compound && splitsCompound(found.unit, q.compound)) return false;
  const stated = (f: string) => near.some((u) => hasWord(u, f, q));
  const asked = (f: string) => near.some((u) => u.replyTo?.has(f));
  const others = [...q.focus].filter((f) => f !== category);
  // A reply names what it was asked about only through the question; it does not also stand for the category.
  if (category !== undefined && q.focus.has(category) && others.length > 0 && !others.some(stated)) return false;
  return others.every((f) => stated(f) || asked(f));
}

/**
 * A statement with every word of a compound attribute, but never in one clause ("type 2
 * diabetes since 2014, high blood pressure" for "what blood type"), does not state it.
 */
function splitsCompound(unit: Unit, compound: string[]): boolean {
  if (!compound.every((s) => unit.stems.has(s))) return false;
  return !unit.text.split(/[,;](?=\s)|[()]|[.!?](?:\s|$)/).some((clause) => {
    const stems = contentStems(clause);
    return compound.every((s) => stems.has(s));
  });
}

/** A list has at least this many items, and an item of a list of names at most this many words. */
const LIST_ITEMS = 3;
/** The share of a list's items that are short, for it to be a list of names. */
const LIST_SHARE = 0.75;

/**
 * A statement that names the asked thing only as an item of a list of names ("Summary,
 * timeline, root cause, impact, what went well, action items." for "what was the root cause";
 * "DJ, hair and makeup, rentals …" for "which DJ did we book") says nothing about it.
 */
function onlyListsIt(unit: Unit, q: Question): boolean {
  if (q.focus.size === 0) return false;
  const items = unit.text
    .replace(/[.!?]+$/, '')
    .split(/,|;|\band\b|\bor\b/)
    .map((item) => item.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0);
  const short = items.filter((words) => words.length <= LIST_ITEMS);
  // A list of names is mostly short items; a sentence with a comma or two is not one.
  if (items.length < LIST_ITEMS || short.length < items.length * LIST_SHARE) return false;
  return short.some((words) => {
    const stems = contentStems(words.join(' '));
    return stems.size > 0 && [...stems].every((s) => q.stems.has(s)) && [...q.focus].some((f) => stems.has(f));
  });
}

/**
 * The answer is about the thing the question asks it of (`Question.owner`) when its message,
 * the message it updates or links through, or the question it replies to names it: "tracking
 * 9400 …" in a reply about the lamp is no tracking number for the blender.
 */
/** Capitalised names written as possessors ("Benji's", "Hana's"), lower-cased; not "What's" or "It's". */
function namedPossessors(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.replace(/\u2019/g, "'").matchAll(/(?<![\p{L}\p{N}'-])(\p{Lu}[\p{Ll}-]+)'s\b/gu)) {
    const name = m[1].toLowerCase();
    if (!NOT_NAMES.has(name)) out.add(name);
  }
  return out;
}

// Capitalised at a sentence's start, these are no one's name either.
const NOT_NAMES = new Set([...NOT_POSSESSORS, 'today', 'tomorrow', 'yesterday', 'everyone', 'nobody', 'somebody', 'someone']);

/**
 * "What's Hana's jersey number?" is not answered by "Benji's jersey number is 7": the statement
 * gives another person's, and its message never names the one asked about.
 */
function anotherPossessor(found: Found, q: Question, ctx: ReaderContext): boolean {
  const asked = namedPossessors(q.text);
  if (asked.size === 0) return false;
  const stated = namedPossessors(found.unit.text);
  if (stated.size === 0 || [...asked].some((a) => stated.has(a))) return false;
  const askedStems = [...asked].map((a) => stem(a));
  return !ctx.units.some((u) => u.item === found.unit.item && askedStems.some((a) => u.stems.has(a)));
}

function namesOwner(found: Found, owner: Set<string>, ctx: ReaderContext): boolean {
  const units = [found.unit, found.via, found.replaces].filter((u): u is Unit => u !== undefined);
  const items = new Set(units.map((u) => u.item));
  const said = (s: string) =>
    units.some((u) => u.replyTo?.has(s) || u.follows?.has(s)) || ctx.units.some((u) => items.has(u.item) && !u.isQuestion && u.stems.has(s));
  return [...owner].some(said);
}

/**
 * Two statements joined by a name, acronym or whole code neither is asked about ("Kestrel
 * Foods had the most late shipments" + "Kestrel Foods: account manager Marisol Ortega"): when
 * together they cover clearly more of the question than the best single one, or supply the
 * value it lacks, the answer comes from the one that holds a value of the asked type. A
 * statement without such a value also links through rare words (`rarePhrases`), and to any
 * statement, not only those that share a word with the question.
 */
function linked(single: Found, ranked: Scored[], q: Question, stems: Weighted[], days: Day[], ctx: ReaderContext, cache: Map<string, number>): Found | undefined {
  let best: Found | undefined;
  const verbs = (r: Scored) => [...q.focus].filter((f) => r.matched.has(f)).length;
  const scored = new Map(ranked.map((r) => [r.unit, r]));
  // "When" is answered through a link to the statement that gives the date, unless the best
  // statement gives one itself.
  const dated = q.type === 'when' || q.type === 'date';
  if (dated && !q.event && statesWhen(single.unit, q)) return undefined;
  for (const first of ranked.slice(0, 5)) {
    // A statement dated only by its message gives no date of its own: for "when" it has no value either.
    const valueless = !first.typed || (dated && !statesWhen(first.unit, q));
    const links = bridges(first.unit, q);
    const phrases = valueless ? rarePhrases(first.unit, q, ctx, cache) : [];
    const common = valueless && q.focus.size > 0 ? commonPhrases(first.unit, q) : [];
    if (links.size === 0 && phrases.length === 0 && common.length === 0) continue;
    // A statement that covers the question but holds no value of the asked type may link to one
    // that shares no word with the question: "EMEA-North had the highest growth" + "EMEA-North
    // is Katrin Vogel" answers who owns the region with the highest growth.
    for (const unit of valueless ? ctx.units : ranked.map((r) => r.unit)) {
      if (unit === first.unit || unit.isQuestion) continue;
      const shared = new Set([...links].filter((l) => unit.stems.has(l)));
      for (const phrase of phrases) if (hasPhrase(unit, phrase)) for (const w of phrase.stems) shared.add(w);
      // A phrase many statements share links only to one stating the asked attribute with a value of its type.
      if (common.length > 0 && [...q.focus].every((f) => hasWord(unit, f, q)) && hasTypedValue(unit, q)) {
        for (const phrase of common) if (hasPhrase(unit, phrase)) for (const w of phrase.stems) shared.add(w);
      }
      if (shared.size === 0) continue;
      const second = scored.get(unit) ?? { unit, score: 0, matched: new Set<string>(), typed: hasTypedValue(unit, q) };
      const matched = new Set([...first.matched, ...second.matched]);
      const cov = coverage(matched, stems, days);
      if (best && cov <= best.coverage) continue;
      // An event of a computation is dated through a link too ("the shoes" are BC-4471829, which "was delivered April 28").
      // Of two dated statements, the one with the event's verb ("was *delivered* April 28") dates it.
      const holder =
        q.event || dated
          ? [second, first].filter((r) => statesWhen(r.unit, q)).sort((a, b) => verbs(b) - verbs(a))[0]
          : [second, first].find((r) => typedSpans(r.unit, q).some((s) => !isBridge(s, shared, q)));
      // A statement asked for whole is the one that names the asked attribute ("which *vendor*"):
      // a serial's row that links to its quote does not say who quoted it.
      const named = q.head !== undefined && second.unit.stems.has(q.head) && !first.unit.stems.has(q.head);
      const answerUnit = q.type === 'clause' ? (named ? second : first) : holder;
      if (!answerUnit) continue;
      best = { unit: answerUnit.unit, via: answerUnit === second ? first.unit : second.unit, coverage: cov, matched, bridge: shared };
    }
  }
  // A question for the current value is not answered by a link to an older value than the best statement's.
  if (best && q.latest && best.unit.index < single.unit.index) return undefined;
  // A link that supplies the value the best statement lacks (its date) need not cover more of the question.
  const lacks = dated ? !statesWhen(single.unit, q) : !hasTypedValue(single.unit, q);
  const gain = lacks && best?.via === single.unit ? 0 : 0.15;
  return best && best.coverage >= single.coverage + gain ? best : undefined;
}

interface Phrase {
  stems: [string, string];
  pattern: RegExp;
}

/** A word this long that one other statement uses is a link. */
const RARE_WORD_LETTERS = 8;
/** Two content words in a row that at most this many statements share are a link. */
const RARE_PHRASE = 3;

/**
 * Pairs of adjacent content words of a statement that the question does not have and few
 * statements share: "since I moved from my *home country*" links to "a gift from my grandma in
 * my *home country*, Sweden" as a name would. Only for a statement without a value of the asked
 * type, which needs another to answer.
 */
function rarePhrases(unit: Unit, q: Question, ctx: ReaderContext, cache: Map<string, number>): Phrase[] {
  const { words, stems } = linkWords(unit, q);
  const out: Phrase[] = [];
  // A long word only one other statement uses is such a link on its own ("the *gallbladder*
  // surgery" and "my gallbladder was removed in 2009").
  const seen = new Set<string>();
  words.forEach((word, i) => {
    const s = stems[i];
    if (s === undefined || seen.has(word) || word.length < RARE_WORD_LETTERS || df(ctx, s, cache) !== 2) return;
    seen.add(word);
    out.push({ stems: [s, s], pattern: new RegExp(`\\b${escape(word)}`, 'iu') });
  });
  for (const phrase of pairs(words, stems)) {
    const [a, b] = phrase.stems;
    // A pair is at most as common as its rarer word; otherwise count, and stop once it is not rare.
    if (Math.min(df(ctx, a, cache), df(ctx, b, cache)) <= RARE_PHRASE || fewHave(ctx, phrase, RARE_PHRASE)) out.push(phrase);
  }
  return out;
}

/**
 * Pairs of adjacent content words of a statement that the question does not have, however many
 * statements share them: "paid from the *emergency fund*" links to "The emergency fund now lives
 * in the Northbank account ending 7731" for which account the money came out of. `linked` takes
 * them only to a statement with the asked attribute and a value of its type.
 */
function commonPhrases(unit: Unit, q: Question): Phrase[] {
  const { words, stems } = linkWords(unit, q);
  return pairs(words, stems);
}

/** A statement's words, with each one's stem, or none for a stop word, a question word or an asking word. */
function linkWords(unit: Unit, q: Question): { words: string[]; stems: (string | undefined)[] } {
  const words = unit.text.toLowerCase().match(/[\p{L}][\p{L}'-]*/gu) ?? [];
  const stems = words.map((word) => {
    const s = [...stemsOf(word)][0];
    return s === undefined || q.stems.has(s) || isAskingWord(s) ? undefined : s;
  });
  return { words, stems };
}

function pairs(words: string[], stems: (string | undefined)[]): Phrase[] {
  const out: Phrase[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [stems[i], stems[i + 1]];
    if (a !== undefined && b !== undefined) out.push({ stems: [a, b], pattern: new RegExp(`\\b${escape(words[i])}\\s+${escape(words[i + 1])}\\b`, 'iu') });
  }
  return out;
}

/** At most `most` statements have the phrase. */
function fewHave(ctx: ReaderContext, phrase: Phrase, most: number): boolean {
  let n = 0;
  for (const u of ctx.units) if (hasPhrase(u, phrase) && ++n > most) return false;
  return true;
}

function hasPhrase(unit: Unit, phrase: Phrase): boolean {
  return unit.stems.has(phrase.stems[0]) && unit.stems.has(phrase.stems[1]) && phrase.pattern.test(unit.text);
}

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A call says what was asked for; its result says what came back. When the best statement is
 * a call ("create ticket …, summary: three red blinks") and its result files a value of the
 * asked type under the asked attribute (`ticket: TCK-40977`), the result answers.
 */
export function throughResult(found: Found, q: Question, ctx: ReaderContext): Found {
  if (found.unit.speaker !== 'call') return found;
  for (let i = found.unit.index + 1; i < ctx.units.length; i++) {
    const u = ctx.units[i];
    if (u.item === found.unit.item) continue;
    if (u.speaker !== 'tool' || u.item !== found.unit.item + 1) break;
    if (typedSpans(u, q).some((s) => labelNames(s, q)) || filesAttribute(u, q)) return { ...found, unit: u, via: found.unit };
  }
  return found;
}

/** For a question asked for whole ("which seats do we have"), the result files a value under the asked attribute (`seats: 42, 43`). */
function filesAttribute(result: Unit, q: Question): boolean {
  if (q.type !== 'clause' || q.focus.size === 0) return false;
  return recordEntries(result.text).some((e) => [...stemsOf(e.key)].some((k) => q.focus.has(k)));
}

/** "Your manager approves requests in Workday": a role in place of the person asked for. */
const ROLE_SUBJECT = /^(?:your|my|our|the)\s+(?:[a-z]+\s+)?([a-z]{3,})\s+(?:approves|approve|handles|handle|signs|sign|decides|decide|reviews|review|owns|own|assigns|assign|is|will|can|must|should|has|does)\b/i;

/**
 * For a "who" question whose best statement names a role instead of a person ("Your manager
 * approves requests in Workday"), the newest statement that names the person in that role
 * ("Kenji Ito is your interim manager until April 10") answers, anchored at the role word.
 */
export function throughRole(found: Found, q: Question, ctx: ReaderContext): Found {
  if (q.type !== 'name') return found;
  const role = ROLE_SUBJECT.exec(found.unit.text)?.[1]?.toLowerCase();
  if (!role) return found;
  const roleStem = [...stemsOf(role)][0];
  if (roleStem === undefined || q.stems.has(roleStem)) return found;
  for (let i = ctx.units.length - 1; i >= 0; i--) {
    const u = ctx.units[i];
    if (u === found.unit || u.isQuestion || !u.stems.has(roleStem)) continue;
    if (u.spans.some((s) => s.type === 'name')) return { ...found, unit: u, via: found.unit, matched: new Set([roleStem]) };
  }
  return found;
}
