// What a question asks for: the type of its answer, whose statements answer it, whether the
// newest value is wanted, and whether the answer must be computed (days between two events).
import type { SpanType } from './spans.js';
import { contentStems, isAskingWord } from './words.js';
import { stem } from '../../../core/text.js';

/** `when` accepts a date or a time; `clause` takes the statement itself. */
export type AnswerType = SpanType | 'date' | 'when' | 'clause';

export type Computation =
  | { op: 'elapsed'; unit: 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year'; from: string; to: string; unitAsked?: boolean }
  | { op: 'difference'; a: string; b: string }
  | { op: 'order'; a: string; b: string };

export interface Question {
  text: string;
  stems: Set<string>;
  type: AnswerType;
  /** Stems that a span of the answer type stands for ("number", "date", "version"). */
  typeStems: Set<string>;
  /** "did I say", "my …": the user's own statements answer it; "did you recommend": the assistant's. */
  speaker?: 'user' | 'assistant';
  /** "now", "current", "latest": the newest statement of the slot wins outright. */
  latest: boolean;
  computation?: Computation;
  /** Stems of what is asked about ("which *vanity colour*", "how much is my *annual premium*"); may be empty. */
  focus: Set<string>;
  /** Stems of what the attribute is asked of, when the question names it after a verb ("which PO are *the monitors* on"). */
  subject: Set<string>;
  /** Stem of the head noun of the asked attribute, its last word ("sublimit" in "my mold sublimit"). */
  head?: string;
  /** Stems of the names the question mentions ("Natalie Brooks", "Sintra"): a context without them cannot answer. */
  names: Set<string>;
  /** For a word of the asked attribute, the code letters of the context that abbreviate it (`chang` → `chg` of CHG-3391). */
  abbreviations?: Map<string, string[]>;
  /** For the event verb of the question, the noun that names the same event (`decid` → `decision`). */
  nouns?: Map<string, string[]>;
  /** Stems of what "how many" counts ("how many *workers*"): a quantity of another unit ("15 minutes") does not answer. */
  countOf?: string[];
  /**
   * An event of a computation ("the page" of "how long before the page did …"): the first
   * statement of it dates it, not a later one that refers back to it, and it has no newer value.
   */
  event?: boolean;
  /**
   * Stems of the part a "how much of X is for Y" question asks about (Y): the value sits next to
   * them, not next to the whole X ("New estimate is $7,420, including $1,260 for mold").
   */
  part?: Set<string>;
  /** How many values are asked for ("which *three* days", "what *two* things"): the answer lists that many. */
  count?: number;
  /** "How long has she been painting?": a span of time answers ("7 years"), not a bare number. */
  duration?: boolean;
  /**
   * The stems of the asked attribute when it is a compound of several words ("blood type",
   * "credit score"): a statement has them in one clause, not one word here and one there.
   */
  compound?: string[];
  /**
   * Stems of whose or what thing the attribute is asked of, by its possessor ("the *monitors'*
   * serial numbers", "*APAC's* churn rate"). The answer's message, or the question it replies
   * to, names it. ("The guest count for the caterer" is not asked of the caterer: "for" is left out.)
   */
  owner?: Set<string>;
}

const COUNTS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7 };

/** The number of values a question asks for, and the stem of its count word (which names nothing). */
function askedCount(q: string): { count: number; word: string } | undefined {
  const m = /\b(?:which|what)\s+(two|three|four|five|six|seven|[2-9])\s+[\w'-]+/.exec(q);
  if (!m) return undefined;
  return { count: COUNTS[m[1]] ?? Number(m[1]), word: stem(m[1]) };
}

// Months and weekdays are capitalised but name no one; a date in the question is matched as a date.
const CALENDAR_WORDS = /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday)$/i;

// A title names no one ("Dr." of "Dr. Amsel"): the name after it does.
const TITLE_WORDS = /^(?:dr|mr|mrs|ms|mx|prof|rev|sir|dame)$/i;

/** Capitalised words that do not start a sentence, and not "I": names of people, places and products. */
function nameStems(text: string, fragment: boolean): Set<string> {
  const out = new Set<string>();
  // A fragment ("Hartwell's revised quote") starts mid-sentence, so its first word may be a name.
  const capitalised = fragment ? /\b\p{Lu}[\p{L}'\u2019-]*/gu : /(?<![.?!:]\s|^|["(]\s?)\b\p{Lu}[\p{L}'\u2019-]*/gu;
  // The dot of a title ("Dr. Amsel") ends no sentence: the name after it is a name.
  const untitled = text.replace(/\b(Dr|Mr|Mrs|Ms|Mx|Prof|Rev)\./g, '$1');
  for (const m of untitled.matchAll(capitalised)) {
    if (m[0] === 'I' || /^I['\u2019]/.test(m[0]) || CALENDAR_WORDS.test(m[0]) || TITLE_WORDS.test(m[0])) continue;
    // The letters of a code ("PF" of PF4X9K27) are no name; the code is matched as a code.
    if (/[\d_]/.test(untitled[(m.index ?? 0) + m[0].length] ?? '')) continue;
    for (const s of contentStems(m[0])) out.add(s);
  }
  return out;
}

/**
 * What a quantity measures: a statement gives the value in its unit ("set to 25 °C", "79.1 kg")
 * and often leaves the word out, so the word counts where it is said but is not required.
 */
const END_STEM = stem('end');
const END_UP = /\bend(?:s|ed)? up\b/;

const MEASURE_STEMS = new Set(['temperature', 'weight', 'distance', 'height', 'mileage', 'word', 'count'].map(stem));

const TYPE_WORDS: [RegExp, AnswerType, string[]][] = [
  [/\bphone( number)?\b|\bnumber will .* call\b|\bcall me on\b/, 'phone', ['phone', 'number']],
  [/\be-?mail\b/, 'email', ['email', 'address']],
  [/\b(url|link|website address)\b/, 'url', ['url', 'link']],
  [/\bversion\b|\bfirmware\b|\brelease\b/, 'version', ['version']],
  [/\b(?:which|what)(?:'s| is| was)? (?:the )?(?:[\w-]+ ){0,2}(?:host|hostname|server|machine|node)\b|\bname of the (?:[\w-]+ )?(?:host|server|machine)\b/, 'host', ['host', 'hostname', 'name']],
  [/\bwhat time\b|\bat what time\b|\bwhich time\b|\b(?:what|which)(?:'s| is| was)? (?:[\w-]+ ){0,4}time\b(?! (?:zone|frame|line))/, 'time', ['time']],
  [/\bwhat percentage\b|\bwhat percent\b|\bhow many percent\b|\bwhat (?:is|'s|was) the [\w ]*\b(?:rate|match|share)\b|\bwhat (?:interest )?rate\b/, 'percent', ['percentage', 'percent', 'rate']],
  // A measure named by what it measures: the statement gives the value in its unit ("set to 25 °C"), rarely the word.
  [/\b(?:what|which)(?:'s| is| was)? (?:the |my |our |your |its |their )?(?:[\w'-]+ )?(?:temperature|weight|distance|height|mileage|word count)\b/, 'quantity', []],
  // "the number of guests" is a count; "the serial of the replacement" is a code.
  [/\b(?:number(?! of)|id|code|tag|serial|reference|ticket|po|rma|invoice|claim|policy|incident|account|confirmation|booking|sku|mrn|order|pr|mr|pull request|merge request|commit|sha|changeset)\b/, 'identifier', ['number', 'id', 'identifier']],
];

const MONEY_WORDS = /\b(cost|costs|price|priced|pay|paid|paying|refund|refunding|budget|spend|spent|charge|charged|fee|fees|quote|quoted|total|amount|salary|deposit|credit|bonus|premium|owe|bill|billed|expense|stipend|worth|\$|dollars?|euros?|pounds?)\b/;

// What a sum of money is called; "the retail price" is answered by "retails at $189".
const MONEY_NOUNS = ['amount', 'price', 'cost', 'sum', 'money', 'cash'];

// Things "how much is the …" measures in other units than money.
const NOT_MONEY = /\b(?:dose|dosage|time|weight|distance|storage|space|memory|disk|data|leave|protein|water|sleep|traffic|load|capacity|lag|delay|overlap|difference|left|remaining)\b/;

/**
 * "How much X" asks for money when X is a sum ("how much *credit*", "how much *money*"); "how
 * much paid *leave*" asks for a quantity though "paid" is a money word. Without a noun after
 * it ("how much is the deposit", "how much did it cost"), any money word says so.
 */
function howMuchIsMoney(q: string): boolean {
  const words = wordsAfter(/\bhow much ([a-z$][^?]*)/.exec(q)?.[1]);
  // "How much is the cabinet order?" asks a price, as "how much was the trip" does; "how much is
  // the dose" or "how much is left" a quantity.
  const thing = /\bhow much (?:is|was|are|were|will) (?:the|my|our|your|this|that) ([\w' -]+?)(?: from| for| of| at| in| on|\?|$)/.exec(q)?.[1];
  if (words.length === 0 && thing !== undefined && !NOT_MONEY.test(thing)) return true;
  if (words.length === 0) return MONEY_WORDS.test(q);
  return MONEY_WORDS.test(words[words.length - 1]) || words.some((w) => /^(?:money|cash)$/.test(w));
}

/** Up to three words of `text` before the first stop word (a verb like "am" or "do", a preposition, a pronoun). */
function wordsAfter(text: string | undefined): string[] {
  const words: string[] = [];
  for (const word of (text ?? '').split(/[^a-z$'-]+/).slice(0, 3)) {
    if (word === '' || contentStems(word).size === 0) break;
    words.push(word);
  }
  return words;
}

/**
 * "How long has she been painting?", "how long is the warranty?": a span of time ("7 years"),
 * not a time between two events ("how long *before* the page", "how long *ago*"), which is computed.
 */
function asksDuration(q: string): boolean {
  return /\bhow long\b/.test(q) && !/\bhow long (?:ago|before|after|until|till|since|between|from|was it from)\b/.test(q);
}

/** The units a span of time is given in, as stems. */
const TIME_UNIT_STEMS = ['second', 'minut', 'hour', 'day', 'night', 'week', 'month', 'year', 'decad'];

function answerType(q: string): { type: AnswerType; typeStems: string[] } {
  if (/\bhow much\b/.test(q)) return howMuchIsMoney(q) ? { type: 'money', typeStems: MONEY_NOUNS } : { type: 'quantity', typeStems: [] };
  if (/\bhow many\b|\bthe (?:total )?number of\b/.test(q)) return { type: 'quantity', typeStems: ['number'] };
  if (asksDuration(q)) return { type: 'quantity', typeStems: [] };
  if (/\b(?:what|which)(?:'s| is| was)? (?:the |my |our |your )?(?:[\w'-]+ )?(?:dose|dosage)\b/.test(q)) return { type: 'quantity', typeStems: ['dose', 'dosage'] };
  // "What's the phone number of the family member *who* sorted it out": a "who" after the
  // question's own asking word starts a relative clause; it does not ask for a name.
  const asking = [...q.matchAll(/\b(?:who|whom|whose|what|which|when|where|how)\b/g)].find((m) => !RELATIVE_WHO.test(q.slice(Math.max(0, (m.index ?? 0) - 16), (m.index ?? 0) + m[0].length)))?.[0];
  const asksWho = asking === 'who' || asking === 'whom' || asking === 'whose';
  if ((asksWho && /\bwho\b|\bwhom\b|\bwhose\b/.test(q)) || /\bwhat(?:'s| is| was| are| were)? (?:[\w'-]+ ){0,3}names?\b(?! of)|\bname of (?!(?:the |my |our |your )?(?:[\w-]+ )?(?:host|hostname|server|machine|node|file|table|database|db|bucket|branch|repo|project|company|product|app|service|team|channel|store|hotel|restaurant|venue)\b)|\bwhich (?:[\w-]+ )?(?:person|doctor|engineer|technician|contact|manager|owner)s?\b/.test(q)) {
    return { type: 'name', typeStems: ['name'] };
  }
  // A place or a language is named: "what country is her grandma from" → Sweden; so is where someone is from.
  if (/\b(?:what|which)(?:'s| is| was)? (?:the |my |our |your |his |her |their )?(?:country|countries|city|cities|town|state|province|island|language|nationality)\b|\bwhere (?:\w+ ){1,4}from\b/.test(q)) {
    return { type: 'name', typeStems: [] };
  }
  // "Which currency is the pack in?": a currency named as one ("EUR", "euros"), not a sum.
  if (/\b(?:what|which)(?:'s| is| was)? (?:the |my |our |your |their )?(?:[\w'-]+ )?currenc(?:y|ies)\b/.test(q)) return { type: 'currency', typeStems: ['currency'] };
  // "Which operating system am I on?", "what browser": an operating system or a browser by name.
  if (/\b(?:what|which)(?:'s| is| was)? (?:the |my |our |your |their )?(?:[\w'-]+ )?(?:operating systems?|os|browsers?)\b/.test(q)) {
    return { type: 'platform', typeStems: ['operating', 'system', 'os', 'browser'] };
  }
  // "What diet should the guide plan for?", "any dietary needs": a diet by name.
  // "What Sam can't eat", "which two things must the cake be free of" ask for one too.
  if (/\b(?:what|which)(?:'s| is| was)? (?:the |my |our |your |his |her |their )?(?:[\w'-]+ )?(?:diet|dietary (?:needs?|restrictions?|requirements?))\b|\bwhat (?:[\w'-]+ )?(?:can't|cannot|can not|mustn't|must not|shouldn't|should not) eat\b|\b(?:what|which) (?:[\w'-]+ ){0,5}?(?:be|is|are) free of\b/.test(q)) {
    return { type: 'diet', typeStems: ['diet', 'dietary', 'eat', 'food', 'free', 'thing'] };
  }
  // "What value did orders_id_seq get set to?": a number.
  if (/\bwhat(?:'s| is| was)? (?:the |its )?(?:new |final |current )?value\b/.test(q)) return { type: 'number', typeStems: ['value'] };
  if (/\b(?:day|date) and time\b/.test(q)) return { type: 'when', typeStems: ['date', 'day', 'time'] };
  // "Which three days am I training on?": days of the week, not dates.
  if (/\b(?:what|which) (?:weekdays|(?:\w+ )?days of the week|(?:two|three|four|five|six|\d) days)\b|\b(?:what|which) days\b/.test(q)) {
    return { type: 'weekday', typeStems: ['day', 'weekday'] };
  }
  // "What date of loss is on my claim?" asks for a date, whatever else it names.
  // "What's the launch date right now?": a noun phrase whose head is "date" or "day" ("what time of day" asks a time).
  if (/\b(what|which)(?:'s| is| was)? (?:the |my |our |your |their )?(?!time of )(?:[\w'-]+ ){0,2}?(date|day)(?=\s*(?:[?,.]|$|\b(?:for|of|on|is|was|will|did|does|do|should|that|we|i|you|they|right|now|again)\b))|\bby when\b|\bon what date\b|\b(?:what|which) week (?:did|do|does|was|were|is|will)\b|\bat (?:which|what) (?:[\w-]+ )?(?:sync|meeting|check-in|standup|stand-up|review|appointment)\b/.test(q)) {
    return { type: 'date', typeStems: ['date', 'day'] };
  }
  // "Which card will the next invoice be charged to?" asks for a card: a code word counts only
  // in the noun phrase after "which/what" when there is one.
  const asked = /\b(?:what|which)(?:'s| is| was| are| were)?\s+((?:[\w'-]+\s+){0,3}[\w'-]+)/.exec(q)?.[1] ?? q;
  for (const [re, type, words] of TYPE_WORDS) if (re.test(type === 'identifier' ? asked : q)) return { type, typeStems: words };
  if (/\bwhen\b|\bwhat year\b|\bwhich year\b|\bwhat month\b|\bwhich month\b/.test(q)) return { type: 'when', typeStems: ['date', 'time', 'year', 'month'] };
  if (/\b(what|which) weekday\b/.test(q)) return { type: 'weekday', typeStems: ['weekday'] };
  // "What's the final price", "what deposit": the asked noun is a sum; "which card did the refund go to" asks a card.
  if (/\b(?:what|which)(?:'s| is| was| are| were)? (?:the |my |our |your |their )?(?:(?!(?:did|does|do|is|was|are|were|will|would|should|can|could|has|have|had)\b)[\w'-]+ ){0,3}?(price|cost|budget|quote|total|amount|fee|deposit|refund|salary|stipend|bonus|premium)s?\b/.test(q)) {
    return { type: 'money', typeStems: MONEY_NOUNS };
  }
  return { type: 'clause', typeStems: [] };
}

const UNITS: Record<string, 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year'> = {
  minute: 'minute', minutes: 'minute', hour: 'hour', hours: 'hour', day: 'day', days: 'day', night: 'day', nights: 'day',
  week: 'week', weeks: 'week', month: 'month', months: 'month', year: 'year', years: 'year',
};

/**
 * Questions that ask for the time between two events, in the forms people ask them:
 * "how many days between A and B", "from A until/to B", "after A did B", "before A did B",
 * "how long … until A" (from now), "how many days ago did A".
 */
function elapsed(q: string): Computation | undefined {
  const m = /\bhow (?:many (minutes|hours|days|nights|weeks|months|years)|long)\b(.*)$/.exec(q);
  if (!m) return undefined;
  const unit = m[1] ? UNITS[m[1]] : /\b(minute|page|alert|deploy|error|rollout)\b|\d{1,2}:\d{2}/.test(q) ? 'minute' : 'day';
  const rest = m[2];
  const c = elapsedParts(rest, unit);
  return c && m[1] ? { ...c, unitAsked: true } : c;
}

type Elapsed = Extract<Computation, { op: 'elapsed' }>;

function elapsedParts(rest: string, unit: Elapsed['unit']): Elapsed | undefined {
  let parts = /\bbetween (.+?) and (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: parts[1], to: parts[2] };
  parts = /\bfrom (.+?) (?:until|till|to|and) (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: parts[1], to: parts[2] };
  // "later is the final launch date than the original target": from the second to the first.
  parts = /^ (?:later|earlier|sooner|after|before) (?:is|was|are|were|will|does|did) (.+?) than (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: parts[2], to: parts[1] };
  // "did replication take to drain to zero after we stopped writes".
  parts = /^ (?:did|does|will|would) (.+?) take (?:to )?(.+?) (?:after|since) (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: parts[3], to: `${parts[1]} ${parts[2]}` };
  // "after the shoes were delivered did UPS scan": "did" splits the two events before "were" does.
  parts = /\b(?:after|since|past) (.+?) (?:did|will|do|does) (.+)$/.exec(rest) ?? /\b(?:after|since) (.+?) (?:was|were|is|are|had|has) (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: parts[1], to: parts[2] };
  parts = /\bbefore (.+?) (?:did|will|do|does) (.+)$/.exec(rest) ?? /\bbefore (.+?) (?:was|were|is|are|had|has) (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: parts[2], to: parts[1] };
  parts = /^(?: \w+){0,3}? (?:until|till|before|to) (.+)$/.exec(rest);
  if (parts) return { op: 'elapsed', unit, from: 'today', to: parts[1] };
  parts = /^ (?:ago )?(?:did|was|were) (.+?)(?: ago)?$/.exec(rest);
  if (parts && /\bago\b/.test(rest)) return { op: 'elapsed', unit, from: parts[1], to: 'today' };
  return undefined;
}

/** "How much more was A than B" / "how many more A than B": the difference of two values. */
function difference(q: string): Computation | undefined {
  const m = /\bhow (?:much|many) (?:more|less|fewer|higher|lower|cheaper|bigger|larger|smaller)\b(.*?) than (.+)$/.exec(q);
  return m ? { op: 'difference', a: m[1], b: m[2] } : undefined;
}

/**
 * "Which came first, my raise or the balance transfer?", "Did the audit happen before or after
 * the launch?": which of two events is the earlier, from their dates.
 */
function order(q: string): Computation | undefined {
  const m =
    /\bwhich (?:one )?(?:came|happened|was|occurred|started|went) (?:first|earlier|sooner)\b[,:]?\s*(.+?) or (.+?)[?.!]*$/.exec(q) ??
    /^(?:did|was|were|is|does|do) (.+?) (?:happen |come |take place |start |go )?(?:before or after|after or before) (.+?)[?.!]*$/.exec(q);
  return m ? { op: 'order', a: m[1], b: m[2] } : undefined;
}

/** The phrases of a computation as the question wrote them, so "Hartwell's" still reads as a name. */
function withCase(c: Computation | undefined, lower: string, text: string): Computation | undefined {
  if (!c || lower.length !== text.length) return c;
  const cased = (phrase: string) => {
    const at = lower.lastIndexOf(phrase);
    return at < 0 ? phrase : text.slice(at, at + phrase.length);
  };
  return c.op === 'elapsed' ? { ...c, from: cased(c.from), to: cased(c.to) } : { ...c, a: cased(c.a), b: cased(c.b) };
}

/** Splits "What size, and which apartment …?" into its questions; one part when it asks one thing. */
const RELATIVE_WHO = /\b(?:someone|anyone|everyone|somebody|anybody|those|people|person|one|hires|employees|customers)\s+who$/i;

export function questionParts(text: string): string[] {
  const sentences = text.split(/(?<=\?)\s+/).filter((s) => /\?\s*$/.test(s));
  const asking = sentences.length > 0 ? sentences : [text];
  const wh = /\b(what|which|who|whom|whose|when|where|how (?:many|much|long)|is it|does it|are they)\b/gi;
  const out: string[] = [];
  for (const sentence of asking) {
    // "And someone *who* started on 20 February, which stipend applies?": a "who" after the one
    // it describes starts no question of its own.
    const starts = [...sentence.matchAll(wh)].map((m) => m.index ?? 0).filter((at) => !RELATIVE_WHO.test(sentence.slice(Math.max(0, at - 16), at + 3)));
    let from = 0;
    for (const at of starts.slice(1)) {
      // "…, and by when must they use them": the preposition belongs to the next part.
      const joint = /(?:,\s*and|\band|,)\s+((?:by|from|on|at|in|to|for|until|since)\s+)?$/i.exec(sentence.slice(from, at));
      if (!joint) continue;
      out.push(sentence.slice(from, from + joint.index).trim());
      from = at - (joint[1]?.length ?? 0);
    }
    out.push(sentence.slice(from).trim());
  }
  return out.filter((p) => /[\p{L}\p{N}]/u.test(p));
}

// Verbs that follow the asked noun ("which incident id *goes* on …", "which card *holds* …"); right
// after a determiner they are the noun ("what is the *cause* of the damage").
const PHRASE_VERBS = new Set(
  ('go goes went come comes came get gets got hold holds held make makes made take takes took keep keeps kept ' +
   'run runs ran need needs needed say says use uses used work works worked mean means meant cause caused ' +
   'belong belongs apply applies applied cover covers covered happen happens happened stand stands').split(' '),
);

// Words that end the noun phrase a question asks about.
const PHRASE_END = new Set([
  ...('did do does am is are was were will would should can could has have had may might must i we you he she they it me us ' +
   'for of on in at to with from by about after before during than that which who when where if so and or but again ' +
   'exactly now right currently still then there here this these those').split(' '),
  ...PHRASE_VERBS,
]);
const CONTRACTIONS = new Set(["what's", "who's", "where's", "when's", "how's", "it's", "that's", "there's", "here's"]);
const DETERMINERS = new Set('the my our your his her their its a an this that these those'.split(' '));
const COUNT_WORDS = /^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|both|all)$/;
const TYPE_NOUNS = new Set('name number id code date day time amount value month year week hour minute percentage percent'.split(' ').map(stem));

/**
 * The noun phrase a question asks about: the words after "what/which" (and a copula and
 * determiner) or after "how much/many is/are", up to a verb or preposition. "The name of X" and
 * "the number for X" ask about X. Empty for who/when/where/why questions, which name no attribute.
 */
export function focusPhrase(text: string): string[] {
  // Names and possessors ("Oakline's", "Natalie Brooks'") say whose attribute is asked, not which: they stay out.
  // The phrase ends at a comma or sentence end: "what Sam can't eat, I'm filling in the form".
  const asked = /\b(?:what|which|whose|how (?:much|many))\b[^,;.?!]*/i.exec(text)?.[0] ?? text;
  const words = asked
    .replace(/[\u2018\u2019]/g, "'")
    .split(/[^\p{L}\p{N}'-]+/u)
    .filter(Boolean)
    .map((w, k) => {
      const lower = w.toLowerCase();
      if (CONTRACTIONS.has(lower)) return lower.replace(/'s$/, '');
      // Acronyms ("the *RMA* number", "*VAT* number") name a kind of thing, not whose it is: they stay.
      return (k > 0 && /^\p{Lu}(?!\p{Lu}+(?:-\p{Lu}+)*$)/u.test(w)) || /'s?$/.test(w) ? '' : lower;
    });
  const start = words.findIndex((w) => w === 'what' || w === 'which' || w === 'whose');
  let i = start;
  if (i < 0) {
    const how = words.findIndex((w, k) => w === 'how' && (words[k + 1] === 'much' || words[k + 1] === 'many'));
    if (how < 0) return [];
    i = how + 1;
  }
  i++;
  while (i < words.length && (['is', 'are', 'was', 'were', "what's"].includes(words[i]) || DETERMINERS.has(words[i]))) i++;
  const phrase: string[] = [];
  // A past-tense verb after the noun ends it too: "which vendor *quoted* the laptop" asks for a vendor
  // ("which *revised* quote" starts with its modifier, which stays).
  const ends = (k: number) =>
    (PHRASE_END.has(words[k]) && !(PHRASE_VERBS.has(words[k]) && DETERMINERS.has(words[k - 1]))) || (phrase.length > 0 && /^[a-z]{3,}ed$/.test(words[k]));
  for (; i < words.length && !ends(i); i++) if (words[i]) phrase.push(words[i]);
  // "which *three* days": a count says how many, not which.
  // "the *full* name", "the *exact* date": a word that only says how much of the value to give.
  const content = phrase.filter((w, k) => !TYPE_NOUNS.has(stem(w)) && !COUNT_WORDS.test(w) && !(w === 'full' && TYPE_NOUNS.has(stem(phrase[k + 1] ?? ''))));
  if (content.length === 0 && ['of', 'for', 'on'].includes(words[i] ?? '')) return focusPhrase(`what ${words.slice(i + 1).join(' ')}`);
  // "What *name* did I give for my partner": a type noun alone is the value of what follows "for".
  if (content.length === 0 && phrase.length > 0) {
    const forThing = words.indexOf('for', i);
    if (forThing > 0 && DETERMINERS.has(words[forThing + 1] ?? '')) return focusPhrase(`what ${words.slice(forThing + 1).join(' ')}`);
  }
  return content;
}

/**
 * The subject a question asks the attribute of, when it follows the asked noun phrase and a
 * verb ("which PO are *the monitors* on" → monitors); empty when there is none ("what's the
 * threshold for commenting on variances" asks about the threshold alone).
 */
function subjectPhrase(q: string): Set<string> {
  const m = /\b(?:what|which|whose)\s+(?:[\w'-]+\s+){1,3}?(?:is|are|was|were|do|does|did|will|would|should|can|could|has|have|had)\s+((?:the|my|our|your|his|her|their|its|this|that|these|those)\s+[\w' -]+?)(?=\s+(?:on|in|at|to|for|from|with|by|about|of|under|into|going|being|get|got|go|be|have|has|had|need|use|used|using)\b|\s*[?,.;!]|$)/.exec(q);
  return m ? contentStems(m[1]) : new Set();
}

const POSSESSOR = /(?:^|[^\p{L}\p{N}'-])((?:\p{Ll}[\p{Ll}-]+|\p{Lu}{2,}[\p{Lu}\p{N}-]*))(?:'s|s')\s+(?=\p{L})/gu;
export const NOT_POSSESSORS: ReadonlySet<string> = new Set(['what', 'who', 'that', 'there', 'here', 'it', 'let', 'where', 'when', 'how', 'he', 'she']);

/**
 * Whose or what thing the attribute is asked of (see `Question.owner`). A capitalised name
 * is left to the name check; a possessor written in lower case or as an acronym is a thing
 * the answer must be about.
 */
function ownerOf(text: string): Set<string> | undefined {
  const plain = text.replace(/[\u2018\u2019]/g, "'");
  const words = [...plain.matchAll(POSSESSOR)].map((m) => m[1]).filter((w) => !NOT_POSSESSORS.has(w.toLowerCase()));
  const stems = contentStems(words.join(' '));
  return stems.size > 0 ? stems : undefined;
}

/** Y of "how much/many of X is/goes for/on/to Y", as stems; undefined for other questions. */
function partAsked(q: string): Set<string> | undefined {
  const m = /\bhow (?:much|many) of .+? (?:is|was|are|were|goes|went|will go) (?:for|on|to|towards?|into) (.+?)[?.!]*$/.exec(q);
  const stems = m ? contentStems(m[1]) : undefined;
  return stems && stems.size > 0 ? stems : undefined;
}

function headOf(phrase: string[], typeStems: string[]): string | undefined {
  const words = phrase.filter((w) => !typeStems.includes(stem(w)) && !isAskingWord(stem(w)));
  const last = words.at(-1);
  return last === undefined ? undefined : [...contentStems(last)][0];
}

// Modifiers that rarely restrict what is asked: "our *overall* budget" is answered by "the budget is $48k".
const LOOSE_MODIFIERS = new Set(
  'total overall current final exact actual whole real working general usual main new old latest best right correct official'.split(' ').map(stem),
);

/**
 * The words "how many" or "the number of" may count: the first three before a stop word
 * ("how many unused leave *days* can …"). A verb may follow the noun without one ("how
 * many engineers *work* on …"), so any of them may be the unit a quantity is written in.
 */
function countedWords(q: string): string[] | undefined {
  const after = /\bhow many ([a-z][^?]*)|\bthe (?:total )?number of ([a-z][^?]*)/.exec(q);
  const words = wordsAfter(after?.[1] ?? after?.[2]).map(stem);
  return words.length > 0 ? words : undefined;
}

/**
 * "What kind of books", "which type of pot": the words "kind of" ask for a sort of thing; the
 * thing is what the question names ("books"), and a statement about "all kinds of people" is
 * no nearer the answer for having the word.
 */
function withoutKindOf(text: string): string {
  return text.replace(/\b(what|which)\s+(?:kinds?|types?|sorts?)\s+of\s+/gi, '$1 ');
}

/** `fragment`: a phrase cut from a question (an event or a value of a computation), not a whole sentence. */
export function analyseQuestion(asked: string, fragment = false): Question {
  const text = withoutKindOf(asked);
  const q = text.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  const answer = answerType(q);
  const { type } = answer;
  const typeStems = answer.typeStems.map(stem);
  const phrase = focusPhrase(text);
  const speaker = /\b(did|have|had) (i|we) (say|tell|mention|report|give|share|note|list|write)\b|\b(i|we) (said|told|mentioned|reported|gave)\b/.test(q)
    ? 'user'
    : /\b(did|have|had) you (say|tell|recommend|suggest|mention|note|add|put|find|set|give|refund|book)\b|\byou (said|told|recommended|suggested)\b/.test(q)
      ? 'assistant'
      : undefined;
  const counted = askedCount(q);
  const duration = type === 'quantity' && asksDuration(q);
  const countWords = type === 'quantity' ? (duration ? TIME_UNIT_STEMS : countedWords(q)) : undefined;
  const stems = contentStems(text);
  if (counted) stems.delete(counted.word);
  const event = eventVerbOf(q, type);
  const owner = fragment ? undefined : ownerOf(text);
  // The words of the asked attribute: the focus, and a compound when there are two.
  const attribute = [...contentStems(phrase.join(' '))].filter(
    (f) =>
      !isAskingWord(f) &&
      !typeStems.includes(f) &&
      !LOOSE_MODIFIERS.has(f) &&
      f !== counted?.word &&
      !(type === 'quantity' && MEASURE_STEMS.has(f)),
  );
  const nouns = new Map(event.flatMap((verb) => (EVENT_NOUN_STEMS.has(verb) ? [[verb, EVENT_NOUN_STEMS.get(verb) ?? []] as [string, string[]]] : [])));
  return {
    text,
    stems,
    count: counted?.count,
    countOf: countWords,
    ...(duration ? { duration: true } : {}),
    type,
    typeStems: new Set(typeStems),
    speaker,
    latest: /\b(now|current|currently|latest|right now|at this point|these days|final|anymore|most recent|end up|ended up|so far)\b/.test(q),
    computation: withCase(elapsed(q) ?? difference(q) ?? order(q), q, text),
    names: nameStems(text, fragment),
    head: headOf(phrase, typeStems),
    subject: subjectPhrase(q),
    part: partAsked(q),
    // "Which corydoras did I *end up* with?" asks for the final value, not about an end.
    focus: new Set([...attribute, ...event, ...yesNoSubject(q)].filter((f) => !(f === END_STEM && END_UP.test(q)))),
    ...(nouns.size > 0 ? { nouns } : {}),
    ...(owner ? { owner } : {}),
    ...(attribute.length === 2 ? { compound: attribute } : {}),
  };
}

/** The nouns of the asking verbs that name their event: "the decision from the standup" answers "what did we decide". */
const EVENT_NOUNS: Record<string, string> = {
  decide: 'decision', choose: 'choice', agree: 'agreement', approve: 'approval', recommend: 'recommendation',
  suggest: 'suggestion', find: 'finding', plan: 'plan', pick: 'pick', note: 'note', report: 'report',
};
const EVENT_NOUN_STEMS = new Map(Object.entries(EVENT_NOUNS).map(([verb, noun]) => [stem(verb), [...contentStems(noun)]]));

/** Verbs whose object is the event ("give a speech", "take a trip", "make the call"): the object, not the verb, tells it apart. */
const LIGHT_VERBS = new Set(['give', 'gave', 'make', 'made', 'take', 'took', 'have', 'had', 'get', 'got', 'do', 'did', 'go', 'went', 'come', 'came', 'keep', 'kept', 'put'].map(stem));

/**
 * "Is *breakfast* included at Casa do Largo?": the thing a yes/no question asks about. It is the
 * question's focus, so a context that never mentions it abstains rather than answering from a
 * statement about the hotel.
 */
function yesNoSubject(q: string): string[] {
  const thing = /^(?:is|are|was|were|has|have|had) (?:the |a |an |my |our |your |their )?([a-z][a-z-]{2,}) (?:[a-z]+ed|been|being|included|still)\b/.exec(q)?.[1];
  return thing ? [...contentStems(thing)] : [];
}

/**
 * "When did I first *find* the damage?": the verb of a when-question is the event asked about,
 * even one that elsewhere only asks ("find", "set", "decide"), and so is the verb of "what did
 * we *decide*", whose answer is the decision. It is the question's focus, so a
 * statement with it ("I only found it the morning of March 3") outweighs one that only shares
 * the object ("covered when it caused sudden damage"). The deed of a who-question counts so too.
 */
const VERB_AFTER_SUBJECT = String.raw` (?:did|do|does|will|would|should|can|could) (?:i|we|you|he|she|they|[a-z]+) (?:first |last |finally |actually |originally |ever )?([a-z]{3,})\b`;
const WHEN_VERB = new RegExp(String.raw`\bwhen` + VERB_AFTER_SUBJECT);
const WHAT_VERB = new RegExp(String.raw`\bwhat` + VERB_AFTER_SUBJECT);
const WHICH_VERB = /^which [a-z]+ (?:did|do|does|will|would|should|can|could) (?:i|we|you|he|she|they) (?:first |last |finally |actually |originally |ever )?([a-z]{3,})\b/;

function eventVerbOf(q: string, type: AnswerType): string[] {
  // "Who on your side *approved* the credit?": the deed is what the person is asked by; a
  // context that never tells of it has no answer, whatever names it holds.
  if (type === 'name') {
    const deed = /^who\b(?: (?!did|does|do|is|was|are|were|will|would|has|have|had)[a-z']+){0,3}? ([a-z]{4,}ed)\b/.exec(q)?.[1];
    const verb = deed ? [...contentStems(deed)][0] : undefined;
    return verb && !LIGHT_VERBS.has(verb) ? [verb] : [];
  }
  // "What did we *decide* at the 10 February check-in?" asks for the decision, as "when" asks for its day.
  const asking = type === 'when' || type === 'date' ? WHEN_VERB : type === 'clause' ? WHAT_VERB : undefined;
  const m = asking?.exec(q);
  const verb = m ? [...contentStems(m[1])][0] : undefined;
  if (verb && isAskingWord(verb) && !LIGHT_VERBS.has(verb)) return [verb];
  // "Which DJ did we *book*?": the deed picks the DJ out of all those the context names.
  const deed = type === 'clause' ? WHICH_VERB.exec(q) : null;
  const did = deed ? [...contentStems(deed[1])][0] : undefined;
  return did && !LIGHT_VERBS.has(did) ? [did] : [];
}
