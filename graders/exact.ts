// Deterministic answer checks: must_include matching, LoCoMo token F1 and abstention
// detection. No model is involved, so these are exact and repeatable. The offline judge is
// built from them, so each check is written to resist answers that only look right:
// a value that is denied, hedged, offered next to another value or guessed after "I don't know".
// Every check reads the answer without the harness's own scaffolding (`withoutScaffolding`):
// a session header or timestamp the reader copied from the context is not an answer.
import { withoutScaffolding } from '../core/items.js';
import { BoundedMemo } from '../core/memo.js';
import { answerF1, containsNormalized, normalizeAnswer, normalizeText, occurrencesNormalized } from '../core/text.js';

// LoCoMo's token F1 lives in core (reports render the official scores too); graders use it from there.
export { answerTokens, officialF1 } from '../core/text.js';

/**
 * What the answer says once the scaffolding memeval and its importers add to a
 * conversation is taken out (`withoutScaffolding`), trimmed; empty when the
 * answer was only scaffolding (or nothing).
 */
export function answerContent(answer: string): string {
  return withoutScaffolding(answer).trim();
}

/**
 * True when every `mustInclude` entry has at least one alternative the answer asserts: present
 * as whole words (after `normalizeAnswer`, a slash between letters and a dot before a word read as a space), in a clause that does not negate it, hedge it,
 * offer another value beside it or say it does not know, and not after the answer has said
 * it does not know. When the reference itself only ever negates the phrase ("No tree nuts at
 * all"), the answer must say the same negation: "no tree nuts in any food" agrees; "tree nuts
 * are fine" and "no restrictions on tree nuts" do not.
 */
export function mustIncludePass(answer: string, mustInclude: string[][], reference?: string): boolean {
  const content = answerContent(answer);
  // With nothing said, not even an empty must_include is met: scaffolding alone never passes.
  if (content.length === 0) return false;
  const said = wordsApart(content);
  const clauses = answerClauses(said);
  const whole = normalizeAnswer(said);
  const reading = referenceReading(reference ?? '');
  return mustInclude.every((alternatives) =>
    alternatives.some((raw) => {
      const { phrase, negated } = reading.phrase(raw);
      if (negated.length > 0) return assertsAny(clauses, negated, phrase);
      return asserts(clauses, whole, phrase) && !onlyAside(said, raw) && !onlyDayOfDate(whole, phrase);
    }),
  );
}

/** An amount as an answer writes it: `$400`, `78`, `75%`, `18 lb`, `2.5 mg`. */
const AMOUNT = /(?<![\p{L}\p{N}.,:/-])([$£€¥])?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\p{N}:/])(?:\s?(%|\p{L}+))?/gu;
/** A must_include entry that is an amount, perhaps with a unit (`500`, `$1,050`, `5 mg`); a time or a date is not. */
const AMOUNT_ENTRY = /^\s*[$£€¥]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?(?:%|\p{L}+)?\s*$/u;
// Words that make a clause after the first an aside about another value ("78; *originally* 84", "… 84 was a *typo*").
// Past tense alone does not: "the total was $500, the deposit $50" gives $500 as the answer.
const ASIDE_WORDS = /\b(?:originally|original|previously|formerly|typo|instead|initially|at first|used to|earlier)\b/i;
// Words after a number that are not its unit: "84 *was* a typo" is a bare 84.
const NOT_UNITS = new Set(['was', 'were', 'is', 'are', 'be', 'been', 'if', 'only', 'would', 'will', 'and', 'or', 'to', 'in', 'on', 'at', 'for', 'from', 'before', 'after', 'by', 'of', 'the', 'a', 'an', 'then', 'but', 'so', 'as', 'with', 'now', 'not']);

interface Amount {
  value: string;
  /** Its currency sign, `%`, its unit word, or '' for a bare number: amounts of one kind compete. */
  kind: string;
  aside: boolean;
}

/** A unit word as a kind: plural and case set aside ("lbs" and "lb", "Tenors" and "tenor"). */
function unitKind(unit: string | undefined, sign: string | undefined): string {
  if (sign) return sign;
  if (!unit) return '';
  return unit === '%' ? '%' : unit.toLowerCase().replace(/s$/, '');
}

/**
 * The amounts of an answer, each marked as an aside when it is in parentheses or in a later
 * clause that says it was the value before: "$400 (it was going to be $500)", "78; 84 was a typo".
 */
function amountsOf(answer: string): Amount[] {
  const out: Amount[] = [];
  let depth = 0;
  let clauseStart = 0;
  let scanned = 0;
  for (const m of answer.matchAll(AMOUNT)) {
    const at = m.index ?? 0;
    for (; scanned < at; scanned++) {
      const ch = answer[scanned];
      if (ch === '(') depth++;
      else if (ch === ')') depth = Math.max(0, depth - 1);
      if (/[;(—]/.test(ch) || (ch === ',' && answer[scanned + 1] === ' ')) clauseStart = scanned + 1;
    }
    const clauseEnd = answer.slice(at).search(/[;()—]|, /);
    const clause = answer.slice(clauseStart, clauseEnd < 0 ? answer.length : at + clauseEnd);
    const kind = unitKind(m[4], m[1]);
    // A word after a bare number that is not its unit ("84 was a typo") leaves it bare.
    const bare = m[4] !== undefined && m[4] !== '%' && !m[1] && NOT_UNITS.has(m[4].toLowerCase());
    // The first clause gives the answer whatever its words; a later one may set its value aside.
    out.push({ value: `${m[2].replace(/,/g, '')}${m[3] ?? ''}`, kind: bare ? '' : kind, aside: depth > 0 || (clauseStart > 0 && ASIDE_WORDS.test(clause)) });
  }
  return out;
}

/**
 * An amount the answer gives only as an aside, after giving another amount of its kind as the
 * answer: "$400 (it was going to be $500)" does not answer $500, nor "78 (84 was a typo)" 84.
 * An aside in another unit ("4 weeks (28 days)") or with nothing of its kind outside it stands.
 */
function onlyAside(answer: string, entry: string): boolean {
  if (!AMOUNT_ENTRY.test(entry)) return false;
  const [wanted] = amountsOf(entry.trim());
  if (!wanted) return false;
  const amounts = amountsOf(answer);
  const same = amounts.filter((a) => a.value === wanted.value && (wanted.kind === '' || a.kind === wanted.kind));
  if (same.length === 0 || same.some((a) => !a.aside)) return false;
  return same.some((s) => amounts.some((a) => !a.aside && a.kind === s.kind && a.value !== s.value));
}

const MONTH_WORDS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);

/** A bare number found only as the day of a date: "9 June" does not answer "9" days, nor "June 2" two. */
function onlyDayOfDate(whole: string, phrase: string): boolean {
  if (!/^\d{1,2}$/.test(phrase)) return false;
  const at = occurrencesNormalized(whole, phrase);
  return at.length > 0 && at.every((i) => {
    const { before, after } = around(whole, phrase, i);
    return MONTH_WORDS.has(after[0] ?? '') || MONTH_WORDS.has(before.at(-1) ?? '');
  });
}

/**
 * A slash between words separates them ("America/Chicago" holds Chicago, "Mon/Wed/Fri" Wed), a
 * unit written against its number is a word ("5mg" holds "5 mg"), and
 * so does a dot between a word and a word of two or more letters (`vpn-eu2.corp.example` holds
 * vpn-eu2), where the SQuAD normalisation (kept for token F1) would glue them into one word.
 * Between digits ("3/4", "v1.0.3") and in an abbreviation of single letters ("U.S.", "e.g.") they
 * stay. Answer, reference and must_include are all read so, so a path or a host matches itself.
 */
function wordsApart(text: string): string {
  return text
    .replace(/(?<=\p{L})\/(?=\p{L})/gu, ' ')
    .replace(/(?<=[\p{L}\p{N}]{2})\.(?=\p{L}{2})/gu, ' ')
    .replace(UNIT_AFTER_NUMBER, ' ');
}

/** A unit written against its number ("6:30am", "5mg", "9.8kg") is a word of its own, as "6:30 am" has it. */
const UNIT_AFTER_NUMBER = /(?<=\d)(?=(?:am|pm|mg|mcg|kg|lbs?|oz|km|mi|cm|mm|ml|gb|mb|tb|kb|ms|hrs?|mins?|kcal|ft)\b)/giu;

/** A must_include alternative as the checks read it: normalised, with the reference's negations of it. */
interface PhraseReading {
  phrase: string;
  negated: string[];
}

/**
 * What a reference says, split and normalised once: a probe's reference and must_include are
 * checked against every answer to it (each strategy, each repeat, the judge), and only the
 * answer changes. Pure functions of the strings, so remembering them cannot change a verdict.
 */
class ReferenceReading {
  private readonly clauses: Clause[];
  private readonly phrases = new Map<string, PhraseReading>();

  constructor(reference: string) {
    this.clauses = answerClauses(wordsApart(reference));
  }

  phrase(raw: string): PhraseReading {
    let reading = this.phrases.get(raw);
    if (reading === undefined) {
      const phrase = normalizeAnswer(wordsApart(raw));
      reading = { phrase, negated: negatedForms(this.clauses, phrase) };
      this.phrases.set(raw, reading);
    }
    return reading;
  }
}

/** References remembered; a suite's probes rarely exceed it, and a miss only costs the reading again. */
const REMEMBERED_REFERENCES = 4_000;
const readings = new BoundedMemo<string, ReferenceReading>(REMEMBERED_REFERENCES);

/** An absent reference reads like an empty one: it has no clauses, so nothing in it is negated. */
function referenceReading(reference: string): ReferenceReading {
  return readings.through(reference, () => new ReferenceReading(reference));
}

/**
 * When every occurrence of the phrase in the reference is negated, the negations as written,
 * from the negating word to the phrase ("no tree nuts"); otherwise none.
 */
function negatedForms(clauses: Clause[], phrase: string): string[] {
  const forms: string[] = [];
  for (const { text } of clauses) {
    for (const at of occurrencesNormalized(text, phrase)) {
      const { before } = around(text, phrase, at);
      const k = negatingWord(before);
      if (k < 0) return [];
      forms.push([...before.slice(k), phrase].join(' '));
    }
  }
  return forms;
}

/** A negated form of the phrase stated in a clause that does not hedge, abstain or offer another value. */
function assertsAny(clauses: Clause[], forms: string[], phrase: string): boolean {
  for (const clause of clauses) {
    // Nothing after "I don't know" counts, and a clause that says it or hedges asserts nothing.
    if (clause.abstains) return false;
    if (clause.hedged) continue;
    const stated = forms.some((form) =>
      occurrencesNormalized(clause.text, form).some((at) => !offeredBeside(clause.text, phrase, at + form.length - phrase.length)),
    );
    if (stated) return true;
  }
  return false;
}

interface Clause {
  text: string; // normalised with normalizeAnswer
  abstains: boolean;
  hedged: boolean;
}

// Negation and hedging only reach as far as the clause they are in: "It's RMA-66120, not RMA-66121".
// A comma before "or" does not end the clause, so "X, or Y" still offers a second value.
// "Unless" starts a clause of its own, which it hedges: "Use vpn-eu2 unless told otherwise" asserts vpn-eu2.
const CLAUSE_BREAK = /[;!?\n()]|,(?=\s|$)(?!\s+or\b)|[.:](?=\s|$)|\s[-\u2013\u2014]+\s|\u2014|\bbut\b|\bhowever\b|(?=\bunless\b)/i;
// "Leeds, unless the change to Mill Lane went through": what follows "unless" is not asserted.
const HEDGES = /\b(maybe|perhaps|possibly|either|guess|unsure|unless)\b/;
// "could be X" hedges X; "may be carried over by 31 March" does not, so modals count only right before the value.
const MODALS = new Set(['could', 'might', 'may']);

function answerClauses(answer: string): Clause[] {
  return answer
    .split(CLAUSE_BREAK)
    .map((raw) => {
      const text = normalizeAnswer(raw);
      return { text, abstains: abstains(raw), hedged: HEDGES.test(text) };
    })
    .filter((clause) => clause.text.length > 0);
}

function asserts(clauses: Clause[], whole: string, phrase: string): boolean {
  if (!containsNormalized(whole, phrase)) return false;
  if (!leadsItsKind(clauses, phrase)) return false;
  let abstained = false;
  let seen = false;
  for (const clause of clauses) {
    const found = occurrencesNormalized(clause.text, phrase);
    if (found.length > 0) {
      seen = true;
      if (!abstained && !clause.abstains && !clause.hedged && found.some((at) => !qualifiedAt(clause.text, phrase, at))) return true;
    }
    abstained ||= clause.abstains;
  }
  // A phrase split across a clause break ("Dr. Smith") is judged on the answer as a whole.
  return !seen && !abstained;
}

/** A code's letters and first digits (`vpneu2` → vpneu, 2; `chg3391` → chg, 3391); undefined for anything else. */
const CODE_HEAD = /^(\p{L}+)(\d+)/u;
/** A hexadecimal id with letters and digits (a commit `9f3c2ab`): one of another such of its length is of its kind. */
const HEX_ID = /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}$/;

/** Whether `word` is the code `phrase` itself (or a longer name it starts), another value of its kind, or neither. */
function kindOf(word: string, phrase: string): 'same' | 'other' | undefined {
  if (HEX_ID.test(phrase)) return word === phrase ? 'same' : HEX_ID.test(word) && word.length === phrase.length ? 'other' : undefined;
  const head = CODE_HEAD.exec(phrase);
  const other = head && CODE_HEAD.exec(word);
  if (!head || !other || other[1] !== head[1]) return undefined;
  // vpn-eu2.corp.example starts with vpn-eu2: it is the code, named in full.
  return other[2] === head[2] ? 'same' : 'other';
}

// Words before a value that set it aside as the old or the other one: "moved *from* vpn-eu1", "*was* CHG-3319".
const SET_ASIDE = new Set(['from', 'was', 'were', 'previously', 'formerly', 'originally', 'old', 'earlier', 'instead', 'replaced', 'replacing', 'until', 'than', 'not', 'never', 'no']);

/**
 * The first value the answer gives of the code's kind (same letters, other digits: vpn-eu1 for
 * vpn-eu2, CHG-3319 for CHG-3391; another hex id of its length for a commit) is the code itself, unless the answer sets that other value
 * aside ("moved from vpn-eu1", "not CHG-3319"): "You're on vpn-eu1; vpn-eu2 was only
 * mentioned" gives the old gateway as current, though it names the new one.
 */
function leadsItsKind(clauses: Clause[], phrase: string): boolean {
  if (phrase.includes(' ') || (!CODE_HEAD.test(phrase) && !HEX_ID.test(phrase))) return true;
  for (const clause of clauses) {
    const words = clause.text.split(' ');
    for (let i = 0; i < words.length; i++) {
      const kind = kindOf(words[i], phrase);
      if (kind === 'same') return true;
      if (kind === 'other' && !words.slice(Math.max(0, i - 3), i).some((w) => SET_ASIDE.has(w))) return false;
    }
  }
  return true;
}

// Normalised, so "isn't" is "isnt". "no" only counts before the value ("there is no RMA-1"),
// because after it ("RMA-1 with no changes") it rarely denies the value.
const NEGATIONS = new Set([
  'not', 'never', 'nor', 'neither', 'isnt', 'wasnt', 'arent', 'werent', 'dont', 'doesnt', 'didnt',
  'cannot', 'cant', 'wont', 'hasnt', 'havent', 'hadnt', 'couldnt', 'wouldnt', 'shouldnt', 'aint',
]);
// "Don't forget RMA-66120", "not only X": the negation is about something else.
const NOT_ABOUT_THE_VALUE = new Set(['forget', 'lose', 'miss', 'worry', 'hesitate', 'only', 'just']);

function around(text: string, phrase: string, at: number): { before: string[]; after: string[] } {
  return {
    before: text.slice(0, at).split(' ').filter(Boolean).slice(-4),
    after: text.slice(at + phrase.length).split(' ').filter(Boolean).slice(0, 3),
  };
}

/** Set against another value with "or", or hedged by "could be". */
function offeredBeside(text: string, phrase: string, at: number): boolean {
  const { before, after } = around(text, phrase, at);
  return before.at(-1) === 'or' || after[0] === 'or' || (before.at(-1) === 'be' && MODALS.has(before.at(-2) ?? ''));
}

/** True when the occurrence at `at` is denied by a nearby negation or set against another value with "or". */
function qualifiedAt(text: string, phrase: string, at: number): boolean {
  return offeredBeside(text, phrase, at) || negatedAt(text, phrase, at);
}

/** Index of the first word of `before` that negates what follows it, or -1. */
function negatingWord(before: string[]): number {
  return before.findIndex((w, i) => (NEGATIONS.has(w) || w === 'no') && !NOT_ABOUT_THE_VALUE.has(before[i + 1] ?? ''));
}

function negatedAt(text: string, phrase: string, at: number): boolean {
  const { before, after } = around(text, phrase, at);
  const negatedBefore = negatingWord(before) >= 0;
  return negatedBefore || after.some((w) => NEGATIONS.has(w));
}

/**
 * The F1 a probe record and the offline judge report: LoCoMo's counting over memeval's
 * normalisation (core/text.ts `answerF1`). The benchmark tables use LoCoMo's own (`officialF1`).
 */
export function tokenF1(answer: string, reference: string): number {
  return answerF1(answerContent(answer), reference);
}

// Phrasings of "I was not told that". Matched on normalizeText output, so apostrophes are plain `'`.
const ABSTENTION_PATTERNS: RegExp[] = [
  /\b(i|we) (do not|don't|dont) (know|have|recall|see)\b/,
  /\b(i'm|i am|im) (not sure|not aware|unsure|unable to (tell|say|determine|find))\b/,
  /\b(cannot|can't|cant|can not|could not|couldn't) (tell|say|determine|find|know|recall|see)\b/,
  /\b(was|were|is|has|have|had)( not|n't) (been )?(mentioned|given|provided|stated|specified|shared|said|told|discussed|included|recorded)\b/,
  /\b(never|not) (been )?(mentioned|given|provided|stated|specified|shared|said|told|discussed)\b/,
  /\b(did not|didn't|didnt|have not|haven't|has not|hasn't|never) (mention|say|tell|give|share|provide|specify|state)\b/,
  // "no data" alone is too broad ("no data loss"); it must be about the information itself.
  /\bno (information|info|records?|mention|details?|data|indication)( (about|on|of|regarding|for|in|was|were|is|has|given|provided|available|yet)\b|$)/,
  /\bno idea\b/,
  /\b(not|isn't|is not) (in|part of) (the|our|this) (conversation|context|history|record)\b/,
  // Bare "unknown" is too broad ("unknown host db-2" is a claim); it must be what the answer asserts.
  /\b(is|are|was|were|remains?) (still )?unknown\b/,
  /^unknown$/,
  // "db-1 is not available" is a claim about db-1; only the information itself being unavailable abstains.
  /\b(information|info|details?|data|answer|that)( is| was| are| were)? not (known|available)\b/,
];

// A guess after "I don't know" makes the answer neither a clean abstention nor a claim.
// "Either way" ("it doesn't say either way") offers nothing.
const GUESSES = /\b(maybe|perhaps|possibly|probably|likely)\b|\beither\b(?! way\b)|\b(i|we) (think|believe|guess|suspect)\b|\b(might|could|may) (be|have been)\b|\bmy (best )?guess\b/;

function abstains(text: string): boolean {
  const normalized = normalizeText(text);
  return normalized.length > 0 && ABSTENTION_PATTERNS.some((re) => re.test(normalized));
}

/** True when the answer says the information is unknown or was never given, and does not go on to guess. */
export function isAbstention(answer: string): boolean {
  const said = answerContent(answer);
  return abstains(said) && !GUESSES.test(normalizeText(said));
}

/**
 * For answers graded by F1 alone (a probe without `must_include`): true when the
 * answer takes back what its words share with the reference — it abstains,
 * guesses, hedges, or negates where the reference does not. Word overlap alone
 * would pass "it is not the Lisbon office" against "the Lisbon office".
 */
export function undercutsReference(answerText: string, reference: string): boolean {
  const answer = answerContent(answerText);
  const clauses = answerClauses(answer);
  if (clauses.some((c) => c.hedged) || GUESSES.test(normalizeText(answer))) return true;
  // A reference may itself read like a refusal ("lunch is not included"); only what it does not say counts.
  if (clauses.some((c) => c.abstains) && !answerClauses(reference).some((c) => c.abstains)) return true;
  const negated = (text: string) => normalizeAnswer(text).split(' ').some((w) => NEGATIONS.has(w));
  return negated(answer) && !negated(reference);
}
