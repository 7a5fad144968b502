// Synthetic long transcripts for stress tests and the benchmark:
//
//   node --import tsx scripts/generate.ts --turns 200 --seed 7 --out DIR [--count N]
//     [--tokens-per-turn N] [--tool-output-chars N] [--tool-every K] [--facts N]
//     [--updates N] [--distractors N] [--multi-hop N] [--temporal N] [--abstentions N]
//
// Chat is templated sentences from small word lists (no digits, so it can never
// state a planted value by accident). Planted facts (order numbers, ids, licence
// keys, names, amounts, rooms, booking references, host names) sit at chosen
// depths; distractors state near-miss values later on; knowledge updates replace
// a fact (`superseded_by`); tool outputs have an exact size. Probes come after the
// last turn: recall, update, multi-hop (two facts joined by a person), temporal
// (which of two dated events comes first) and abstention (a detail never given).
// Everything derives from one seed through a small PRNG, so the same options give
// byte-identical files.
import { EXIT } from '../core/errors.js';
import { seededRandom } from '../core/random.js';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeTranscriptFile } from '../harness/datasets/yaml-write.js';
import type { Fact, MessageTurn, Probe, ToolCallSpec, Transcript } from '../core/types.js';

export interface GenerateOptions {
  turns: number;
  seed: number;
  /** Approximate tokens of user + assistant text per turn (tool output not included); whole sentences,
   * so below about 30 a turn is one sentence each way. Default 120. */
  tokensPerTurn?: number;
  /** Exact length of every tool output. Default 2000. */
  toolOutputChars?: number;
  /** A tool call on every K-th turn; 0 for none. Default 10. */
  toolEvery?: number;
  /** Planted facts, each asked about by a recall or update probe. Default 6. */
  facts?: number;
  /** Facts that are later replaced by a new value. Default 2. */
  updates?: number;
  /** Near-miss values stated after their fact. Default 3. */
  distractors?: number;
  multiHop?: number;
  temporal?: number;
  abstentions?: number;
  /** Where the planted facts go, as fractions (0–1) of the transcript; cycled if shorter than `facts`. */
  depths?: number[];
  /** Transcript id; default `synthetic-s<seed>-t<turns>`. */
  id?: string;
}

export interface SuiteOptions extends GenerateOptions {
  count: number;
}

const DEFAULTS = {
  tokensPerTurn: 120,
  toolOutputChars: 2000,
  toolEvery: 10,
  facts: 6,
  updates: 2,
  distractors: 3,
  multiHop: 1,
  temporal: 1,
  abstentions: 1,
};

const START_MS = Date.UTC(2025, 0, 6, 9, 0, 0);
/** Measured with o200k_base on this generator's sentences (about 4.8 characters a token). */
const CHARS_PER_TOKEN = 4.8;
const USER_SHARE = 0.35;
export const ABSTENTION_ANSWER = 'That was never mentioned in the conversation.';

// ---------------------------------------------------------------- randomness

/** The generator's stream for a seed (mulberry32 with the seed mixed, so small seeds differ widely). */
export function makeRng(seed: number): () => number {
  return seededRandom((Math.floor(seed) ^ 0x9e3779b9) >>> 0);
}

type Rng = () => number;

function pick<T>(rng: Rng, list: ArrayLike<T>): T {
  return list[Math.floor(rng() * list.length)];
}

function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

function digits(rng: Rng, n: number): string {
  let s = String(int(rng, 1, 9));
  while (s.length < n) s += String(int(rng, 0, 9));
  return s;
}

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function alnum(rng: Rng, n: number): string {
  let s = '';
  while (s.length < n) s += pick(rng, ALNUM);
  // A code of letters only would read like a word; one digit makes it a code.
  return /\d/.test(s) ? s : `${s.slice(0, -1)}${int(rng, 2, 9)}`;
}

function letters(rng: Rng, n: number): string {
  let s = '';
  while (s.length < n) s += pick(rng, ALNUM.slice(0, 24));
  return s;
}

/** Swaps two neighbouring different digits (`4471` → `4417`): the classic near miss. */
function swapDigits(value: string, rng: Rng): string {
  const spots: number[] = [];
  for (let i = 0; i + 1 < value.length; i++) {
    if (/\d/.test(value[i]) && /\d/.test(value[i + 1]) && value[i] !== value[i + 1]) spots.push(i);
  }
  if (spots.length === 0) return changeOne(value, rng);
  const i = pick(rng, spots);
  return value.slice(0, i) + value[i + 1] + value[i] + value.slice(i + 2);
}

function changeOne(value: string, rng: Rng): string {
  const spots = [...value].map((c, i) => (/[A-Z0-9]/.test(c) ? i : -1)).filter((i) => i >= 0);
  const i = pick(rng, spots);
  let c = value[i];
  while (c === value[i]) c = /\d/.test(value[i]) ? String(int(rng, 2, 9)) : pick(rng, ALNUM);
  return value.slice(0, i) + c + value.slice(i + 1);
}

// ---------------------------------------------------------------- word lists

const FIRST = ['Priya', 'Tomas', 'Aiko', 'Marcus', 'Lena', 'Rafael', 'Ines', 'Dmitri', 'Grace', 'Kwame', 'Sofia', 'Jonas'];
const LAST = ['Raman', 'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Costa', 'Novak', 'Haddad', 'Brennan', 'Alvarez', 'Fischer', 'Mensah'];
const CITIES = ['Lisbon', 'Oslo', 'Nairobi', 'Montreal', 'Kyoto', 'Porto', 'Tallinn', 'Austin', 'Dublin', 'Seoul', 'Valencia', 'Krakow'];
const ROLES = ['mentor', 'accountant', 'landlord', 'physiotherapist', 'project sponsor', 'editor', 'tax adviser', 'piano teacher'];
const EVENTS = ['dentist appointment', 'team offsite', 'car service', 'visa interview', 'kitchen inspection', 'quarterly review', 'piano recital', 'boiler repair', 'eye test', 'moving day'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const ACTIVITIES = ['baking bread', 'learning the guitar', 'training for a half marathon', 'reorganising the garage', 'planning a vegetable garden', 'studying for a certification', 'clearing out the inbox', 'writing a short story', 'repainting the hallway', 'cooking more at home', 'learning to sketch', 'sorting old photos'];
const OBJECTS = ['schedule', 'checklist', 'budget sheet', 'packing list', 'reading list', 'meal plan', 'workout plan', 'shopping list', 'to-do list', 'calendar'];
const ADJECTIVES = ['manageable', 'relaxed', 'realistic', 'flexible', 'simple', 'balanced', 'steady', 'clear'];
const VERBS = ['review', 'simplify', 'update', 'tidy', 'print', 'share', 'revisit', 'trim'];
const PERIODS = ['morning', 'evening', 'week', 'weekend', 'month'];
/** Periods that read well after "once a". */
const CADENCES = ['week', 'month', 'weekend', 'fortnight'];
const TOOLS = ['search_notes', 'fetch_logs', 'lookup_ticket', 'list_files'];
const LOG_WORDS = ['sync', 'index', 'upload', 'resize', 'verify', 'archive', 'notify', 'render'];

const USER_LINES: ((r: Rng) => string)[] = [
  (r) => `I've been ${pick(r, ACTIVITIES)} lately and could use some advice.`,
  (r) => `Do you think a ${pick(r, ADJECTIVES)} ${pick(r, OBJECTS)} would help with ${pick(r, ACTIVITIES)}?`,
  (r) => `My ${pick(r, PERIODS)} has been busy, so I want to keep things ${pick(r, ADJECTIVES)}.`,
  (r) => `Yesterday I spent a while ${pick(r, ACTIVITIES)}, and it went better than expected.`,
  (r) => `How should I organise my ${pick(r, OBJECTS)} for the coming ${pick(r, PERIODS)}?`,
  (r) => `Honestly, I keep putting off ${pick(r, ACTIVITIES)}.`,
  (r) => `Could you remind me why a ${pick(r, OBJECTS)} matters so much?`,
];

const ASSISTANT_LINES: ((r: Rng) => string)[] = [
  (r) => pick(r, ['That sounds like a good plan.', 'Good question.', 'That makes sense.', 'Nice progress so far.']),
  (r) => `A ${pick(r, ADJECTIVES)} approach usually works best: ${pick(r, VERBS)} your ${pick(r, OBJECTS)} once a ${pick(r, CADENCES)}.`,
  (r) => `Many people find ${pick(r, ACTIVITIES)} easier when they ${pick(r, VERBS)} the ${pick(r, OBJECTS)} first.`,
  (r) => `Try to keep the ${pick(r, OBJECTS)} ${pick(r, ADJECTIVES)}, and ${pick(r, VERBS)} it whenever things change.`,
  (r) => `It might help to set aside a little time each ${pick(r, PERIODS)} for ${pick(r, ACTIVITIES)}.`,
  (r) => `If it starts to feel overwhelming, ${pick(r, VERBS)} the ${pick(r, OBJECTS)} and take one step at a time.`,
  (r) => `Let me know how it goes, and we can adjust the ${pick(r, OBJECTS)} together.`,
];

// ---------------------------------------------------------------- fact templates

interface FactTemplate {
  key: string;
  topics: readonly string[];
  value: (r: Rng) => string;
  nearMiss: (value: string, r: Rng) => string;
  state: (topic: string, value: string) => string;
  question: (topic: string) => string;
  distract: (topic: string, value: string) => string;
}

const TEMPLATES: readonly FactTemplate[] = [
  {
    key: 'order',
    topics: ['desk', 'monitor', 'office chair', 'standing lamp', 'bookshelf', 'printer'],
    value: (r) => `ORD-${digits(r, 6)}`,
    nearMiss: swapDigits,
    state: (t, v) => `The order number for the new ${t} is ${v}.`,
    question: (t) => `What is the order number for the new ${t}?`,
    distract: (t, v) => `My colleague also ordered a ${t}, and theirs has the number ${v}.`,
  },
  {
    key: 'member',
    topics: ['gym membership', 'library card', 'loyalty card', 'parking permit', 'insurance policy', 'coworking pass'],
    value: (r) => `${letters(r, 2)}-${digits(r, 5)}`,
    nearMiss: swapDigits,
    state: (t, v) => `My ${t} number is ${v}.`,
    question: (t) => `What is my ${t} number?`,
    distract: (t, v) => `My partner's ${t} number is ${v}, which looks almost the same.`,
  },
  {
    key: 'licence',
    topics: ['design tool', 'video editor', 'tax software', 'password manager', 'diagram app', 'translation app'],
    value: (r) => `${alnum(r, 4)}-${alnum(r, 4)}`,
    nearMiss: changeOne,
    state: (t, v) => `The licence key for the ${t} is ${v}.`,
    question: (t) => `What is the licence key for the ${t}?`,
    distract: (t, v) => `The old trial key for the ${t} was ${v}, but that one has expired.`,
  },
  {
    key: 'contact',
    topics: ['manager', 'building manager', 'swim coach', 'wedding planner', 'family doctor', 'audit lead'],
    value: (r) => `${pick(r, FIRST)} ${pick(r, LAST)}`,
    nearMiss: (v, r) => {
      const [first, last] = v.split(' ');
      let other = last;
      while (other === last) other = pick(r, LAST);
      return `${first} ${other}`;
    },
    state: (t, v) => `My ${t} is called ${v}.`,
    question: (t) => `What is the name of my ${t}?`,
    distract: (t, v) => `${v} was my ${t} at my previous job, so please don't mix them up.`,
  },
  {
    key: 'budget',
    topics: ['kitchen renovation', 'team offsite', 'conference trip', 'garden project', 'marketing campaign', 'laptop upgrade'],
    value: (r) => `${int(r, 2, 89)},${digits(r, 1)}${int(r, 0, 9)}0 euros`,
    nearMiss: swapDigits,
    state: (t, v) => `The budget for the ${t} is ${v}.`,
    question: (t) => `What is the budget for the ${t}?`,
    distract: (t, v) => `Last year the ${t} cost ${v}, just for comparison.`,
  },
  {
    key: 'room',
    topics: ['workshop', 'board meeting', 'training session', 'job interview', 'yoga class', 'book club'],
    value: (r) => `room ${digits(r, 3)}`,
    nearMiss: swapDigits,
    state: (t, v) => `The ${t} is in ${v}.`,
    question: (t) => `Which room is the ${t} in?`,
    distract: (t, v) => `Last time the ${t} was in ${v}, so people may go there by mistake.`,
  },
  {
    key: 'booking',
    topics: ['ski trip', 'spring holiday', 'sales conference', "cousin's wedding", 'trade fair', 'research visit'],
    value: (r) => alnum(r, 6),
    nearMiss: changeOne,
    state: (t, v) => `The booking reference for the ${t} is ${v}.`,
    question: (t) => `What is the booking reference for the ${t}?`,
    distract: (t, v) => `The cancelled booking for the ${t} had the reference ${v}.`,
  },
  {
    key: 'host',
    topics: ['staging database', 'build server', 'metrics dashboard', 'backup store', 'mail relay', 'test cluster'],
    value: (r) => `${pick(r, ['srv', 'node', 'db', 'app'])}-${digits(r, 2)}${int(r, 0, 9)}`,
    nearMiss: swapDigits,
    state: (t, v) => `The ${t} runs on ${v}.`,
    question: (t) => `Which host does the ${t} run on?`,
    distract: (t, v) => `The old ${t} used to run on ${v} before the migration.`,
  },
];

/** How many distinct facts (plus abstention questions) the templates can supply. */
export const MAX_PLANTED = TEMPLATES.reduce((n, t) => n + t.topics.length, 0);

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

// ---------------------------------------------------------------- planning

interface Statement {
  turn: number;
  text: string;
}

interface Plan {
  statements: Statement[];
  facts: Fact[];
  probes: Probe[];
  distractors: { turn: number; text: string; near: string }[];
}

type Resolved = Required<Omit<GenerateOptions, 'depths' | 'id'>> & Pick<GenerateOptions, 'depths' | 'id'>;

function resolve(opts: GenerateOptions): Resolved {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as Resolved;
  const counts = ['turns', 'tokensPerTurn', 'toolOutputChars', 'toolEvery', 'facts', 'updates', 'distractors', 'multiHop', 'temporal', 'abstentions'] as const;
  for (const key of counts) {
    if (!Number.isInteger(o[key]) || o[key] < 0) throw new RangeError(`${key} must be a whole number ≥ 0 (got ${String(o[key])})`);
  }
  if (!Number.isFinite(o.seed)) throw new RangeError(`seed must be a number (got ${String(o.seed)})`);
  if (o.turns < 1) throw new RangeError('turns must be at least 1');
  if (o.updates > o.facts) throw new RangeError(`updates (${o.updates}) cannot exceed facts (${o.facts})`);
  if (o.updates > 0 && o.turns < 2) throw new RangeError('a knowledge update needs at least 2 turns');
  if (o.facts + o.abstentions > MAX_PLANTED) throw new RangeError(`facts + abstentions must be ≤ ${MAX_PLANTED}`);
  if (o.multiHop > ROLES.length) throw new RangeError(`multiHop must be ≤ ${ROLES.length}`);
  if (o.temporal > EVENTS.length / 2) throw new RangeError(`temporal must be ≤ ${EVENTS.length / 2}`);
  if (o.depths?.some((d) => !(d >= 0 && d <= 1))) throw new RangeError('depths must be fractions between 0 and 1');
  return o;
}

/** 1-based turn at `fraction` of the way through `turns`. */
function turnAt(fraction: number, turns: number): number {
  return Math.min(turns, Math.max(1, Math.floor(fraction * turns) + 1));
}

/** Default depths spread the facts over the first 60% so updates and distractors fit after them. */
function factDepth(i: number, o: Resolved): number {
  if (o.depths && o.depths.length > 0) return o.depths[i % o.depths.length];
  return o.facts === 1 ? 0.05 : 0.05 + (0.55 * i) / (o.facts - 1);
}

class Values {
  private readonly used = new Set<string>();
  /** A value never used before in this transcript (values must not collide with each other). */
  fresh(make: (attempt: number) => string): string {
    // The option limits in resolve() leave plenty of room; the cap only guards against a bad template.
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const v = make(attempt);
      if (!this.used.has(v.toLowerCase())) {
        this.used.add(v.toLowerCase());
        return v;
      }
    }
    throw new Error('the generator ran out of distinct values');
  }
}

function shuffledSlots(rng: Rng): { template: FactTemplate; topic: string }[] {
  const slots = TEMPLATES.flatMap((template) => template.topics.map((topic) => ({ template, topic })));
  for (let i = slots.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [slots[i], slots[j]] = [slots[j], slots[i]];
  }
  return slots;
}

function later(rng: Rng, after: number, turns: number): number {
  return after >= turns ? turns : int(rng, after + 1, turns);
}

function plantFacts(plan: Plan, o: Resolved, rng: Rng, values: Values): void {
  const slots = shuffledSlots(rng);
  const last = o.turns;
  for (let i = 0; i < o.facts; i++) {
    const { template, topic } = slots[i];
    const id = `${template.key}-${slug(topic)}`;
    const value = values.fresh(() => template.value(rng));
    const turn = turnAt(factDepth(i, o), last);
    plan.statements.push({ turn, text: template.state(topic, value) });
    const fact: Fact = { id, text: value, aliases: [], turn, critical: true, meta: { depth: round(turn / last) } };
    plan.facts.push(fact);
    let answerFact = fact;
    let kind: Probe['kind'] = 'recall';
    if (i < o.updates) {
      const newValue = values.fresh(() => template.value(rng));
      const updateTurn = Math.max(turn + 1, turnAt(0.65 + (0.3 * i) / Math.max(1, o.updates), last));
      const newTurn = Math.min(last, updateTurn);
      answerFact = { id: `${id}-v2`, text: newValue, aliases: [], turn: newTurn, critical: true, meta: { depth: round(newTurn / last) } };
      fact.supersededBy = answerFact.id;
      plan.facts.push(answerFact);
      plan.statements.push({ turn: newTurn, text: `Small change: ${lowerFirst(template.state(topic, newValue))} The earlier one no longer applies.` });
      kind = 'update';
    }
    if (i < o.distractors) {
      // A value with one swappable digit pair has one near miss; if that is taken, change a character instead.
      const near = values.fresh((attempt) => (attempt < 10 ? template.nearMiss(value, rng) : changeOne(value, rng)));
      const dTurn = later(rng, turn, last);
      plan.statements.push({ turn: dTurn, text: template.distract(topic, near) });
      plan.distractors.push({ turn: dTurn, text: near, near: id });
    }
    plan.probes.push(probe(`${kind}-${id}`, template.question(topic), answerFact, kind, o.turns, kind === 'update' ? { stale: value } : undefined));
  }
  for (let i = 0; i < o.abstentions; i++) {
    const { template, topic } = slots[o.facts + i];
    plan.probes.push({
      id: `abstain-${i + 1}`,
      afterTurn: o.turns,
      question: template.question(topic),
      answer: ABSTENTION_ANSWER,
      mustInclude: [],
      facts: [],
      kind: 'abstention',
    });
  }
}

function probe(id: string, question: string, fact: Fact, kind: Probe['kind'], after: number, meta?: Record<string, unknown>): Probe {
  const p: Probe = { id, afterTurn: after, question, answer: fact.text, mustInclude: [[fact.text]], facts: [fact.id], kind };
  if (meta) p.meta = meta;
  return p;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function plantMultiHop(plan: Plan, o: Resolved, rng: Rng, values: Values): void {
  for (let i = 0; i < o.multiHop; i++) {
    const role = ROLES[i % ROLES.length];
    const name = values.fresh(() => `${pick(rng, FIRST)} ${pick(rng, LAST)}`);
    const city = values.fresh(() => pick(rng, CITIES));
    const a = turnAt(0.1 + 0.4 * rng(), o.turns);
    const b = Math.max(a, turnAt(0.5 + 0.4 * rng(), o.turns));
    const personId = `multihop-${i + 1}-person`;
    const placeId = `multihop-${i + 1}-place`;
    plan.statements.push({ turn: a, text: `My new ${role} is ${name}.` });
    plan.statements.push({ turn: b, text: `${name} is based in the ${city} office, by the way.` });
    plan.facts.push({ id: personId, text: name, aliases: [], turn: a, critical: false });
    plan.facts.push({ id: placeId, text: city, aliases: [], turn: b, critical: false });
    plan.probes.push({
      id: `multihop-${i + 1}`,
      afterTurn: o.turns,
      question: `Which office is my ${role} based in?`,
      answer: city,
      mustInclude: [[city]],
      facts: [personId, placeId],
      kind: 'multi-hop',
    });
  }
}

function plantTemporal(plan: Plan, o: Resolved, rng: Rng, values: Values): void {
  for (let i = 0; i < o.temporal; i++) {
    const events = [EVENTS[(2 * i) % EVENTS.length], EVENTS[(2 * i + 1) % EVENTS.length]];
    const days = [0, 0];
    const dates = [0, 1].map((k) => values.fresh(() => dayText((days[k] = int(rng, 0, 364)))));
    const ids = [`temporal-${i + 1}-a`, `temporal-${i + 1}-b`];
    const turns = [turnAt(0.1 + 0.8 * rng(), o.turns), turnAt(0.1 + 0.8 * rng(), o.turns)];
    for (let k = 0; k < 2; k++) {
      plan.statements.push({ turn: turns[k], text: `The ${events[k]} is booked for ${dates[k]}.` });
      plan.facts.push({ id: ids[k], text: dates[k], aliases: [], turn: turns[k], critical: false, meta: { event: events[k] } });
    }
    const first = days[0] < days[1] ? events[0] : events[1];
    plan.probes.push({
      id: `temporal-${i + 1}`,
      afterTurn: o.turns,
      question: `Which comes first, the ${events[0]} or the ${events[1]}?`,
      answer: `The ${first}.`,
      mustInclude: [[first]],
      facts: ids,
      kind: 'temporal',
    });
  }
}

/** Day `d` of a non-leap year as `14 March`. */
function dayText(d: number): string {
  const date = new Date(Date.UTC(2025, 0, 1 + d));
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
}

// ---------------------------------------------------------------- chat text

/** Lead sentences, then chat lines until the text is as close to `chars` as whole sentences allow (at least one). */
function fill(rng: Rng, lines: readonly ((r: Rng) => string)[], chars: number, lead: string[]): string {
  let text = lead.join(' ');
  for (;;) {
    const line = pick(rng, lines)(rng);
    const next = text.length === 0 ? line : `${text} ${line}`;
    // Stop before a line that would overshoot by more than it closes the gap.
    if (text.length > 0 && next.length - chars > chars - text.length) return text;
    text = next;
    if (text.length >= chars) return text;
  }
}

function toolOutput(rng: Rng, chars: number, startMs: number): string {
  let out = '';
  let ms = startMs;
  while (out.length < chars) {
    ms += int(rng, 200, 4000);
    out += `${clock(ms)} info ${pick(rng, LOG_WORDS)} job ok in ${int(rng, 3, 900)} ms\n`;
  }
  return out.slice(0, chars);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `HH:MM:SS` (UTC) by arithmetic: Date formatting dominated the run time of long transcripts. */
function clock(ms: number): string {
  const s = Math.floor(ms / 1000) % 86_400;
  return `${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}`;
}

function toolCall(rng: Rng, o: Resolved, ms: number): ToolCallSpec {
  const name = pick(rng, TOOLS);
  return { name, arguments: { query: `${pick(rng, OBJECTS)} ${pick(rng, PERIODS)}` }, output: toolOutput(rng, o.toolOutputChars, ms) };
}

const dayCache = new Map<number, string>();

/** `2025-01-06T09:20:00Z`; the date part is formatted once per day. */
function isoSeconds(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  let date = dayCache.get(day);
  if (date === undefined) {
    date = new Date(day * 86_400_000).toISOString().slice(0, 10);
    dayCache.set(day, date);
  }
  return `${date}T${clock(ms)}Z`;
}

function buildTurns(plan: Plan, o: Resolved, rng: Rng): MessageTurn[] {
  const byTurn = new Map<number, string[]>();
  for (const s of plan.statements) byTurn.set(s.turn, [...(byTurn.get(s.turn) ?? []), s.text]);
  const userChars = Math.max(1, Math.round(o.tokensPerTurn * CHARS_PER_TOKEN * USER_SHARE));
  const assistantChars = Math.max(1, Math.round(o.tokensPerTurn * CHARS_PER_TOKEN * (1 - USER_SHARE)));
  const turns: MessageTurn[] = [];
  let ms = START_MS;
  for (let n = 1; n <= o.turns; n++) {
    const planted = byTurn.get(n) ?? [];
    const user = fill(rng, USER_LINES, userChars, planted);
    const ack = planted.length > 0 ? ['Got it, I will keep that in mind.'] : [];
    const turn: MessageTurn = { kind: 'message', user, at: isoSeconds(ms), toolCalls: [], assistant: '' };
    if (o.toolEvery > 0 && o.toolOutputChars > 0 && n % o.toolEvery === 0) turn.toolCalls.push(toolCall(rng, o, ms));
    turn.assistant = fill(rng, ASSISTANT_LINES, assistantChars, ack);
    turns.push(turn);
    ms += int(rng, 1, 20) * 60_000;
  }
  return turns;
}

// ---------------------------------------------------------------- public API

/** One synthetic transcript, fully determined by `opts` (same options → identical output). */
export function generateTranscript(opts: GenerateOptions): Transcript {
  const o = resolve(opts);
  const rng = makeRng(o.seed);
  const values = new Values();
  const plan: Plan = { statements: [], facts: [], probes: [], distractors: [] };
  plantFacts(plan, o, rng, values);
  plantMultiHop(plan, o, rng, values);
  plantTemporal(plan, o, rng, values);
  const turns = buildTurns(plan, o, rng);
  const id = o.id ?? `synthetic-s${o.seed}-t${o.turns}`;
  const meta: Record<string, unknown> = {
    generator: 'scripts/generate.ts',
    seed: o.seed,
    tokens_per_turn: o.tokensPerTurn,
    tool_every: o.toolEvery,
    tool_output_chars: o.toolOutputChars,
  };
  if (plan.distractors.length > 0) meta.distractors = plan.distractors;
  return {
    id,
    title: `Synthetic conversation, ${o.turns} turns (seed ${o.seed})`,
    tags: ['synthetic'],
    system: 'You are a helpful personal assistant. Keep track of the details the user shares and answer questions about them accurately.',
    turns,
    facts: plan.facts.sort((a, b) => a.turn - b.turn),
    probes: plan.probes,
    file: `${id}.yaml`,
    meta,
  };
}

/** `count` transcripts; the i-th uses a seed derived from `seed` and i, so suites are reproducible too. */
export function generateSuite(opts: SuiteOptions): Transcript[] {
  if (!Number.isInteger(opts.count) || opts.count < 1) throw new RangeError(`count must be a whole number ≥ 1 (got ${String(opts.count)})`);
  const width = String(opts.count).length;
  return Array.from({ length: opts.count }, (_, i) => {
    const seed = opts.count === 1 ? opts.seed : (Math.imul(opts.seed, 31) + i + 1) >>> 0;
    const id = opts.count === 1 ? opts.id : `${opts.id ?? `synthetic-s${opts.seed}-t${opts.turns}`}-${String(i + 1).padStart(width, '0')}`;
    return generateTranscript({ ...opts, seed, id });
  });
}

// ---------------------------------------------------------------- CLI

const FLAGS = {
  turns: 'turns',
  seed: 'seed',
  count: 'count',
  'tokens-per-turn': 'tokensPerTurn',
  'tool-output-chars': 'toolOutputChars',
  'tool-every': 'toolEvery',
  facts: 'facts',
  updates: 'updates',
  distractors: 'distractors',
  'multi-hop': 'multiHop',
  temporal: 'temporal',
  abstentions: 'abstentions',
} as const;

const USAGE =
  'usage: node --import tsx scripts/generate.ts --turns N --seed S --out DIR [--count N] [--tokens-per-turn N] ' +
  '[--tool-output-chars N] [--tool-every K] [--facts N] [--updates N] [--distractors N] [--multi-hop N] [--temporal N] [--abstentions N]';

function parseCli(argv: string[]): { suite: SuiteOptions; out: string } {
  const options = Object.fromEntries([...Object.keys(FLAGS), 'out'].map((k) => [k, { type: 'string' as const }]));
  const { values } = parseArgs({ args: argv, options, allowPositionals: false });
  if (!values.out) throw new RangeError('--out DIR is required');
  const nums: Record<string, number> = {};
  for (const [flag, key] of Object.entries(FLAGS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (typeof raw !== 'string' || raw.trim() === '' || !Number.isInteger(n) || n < 0) throw new RangeError(`--${flag} must be a whole number ≥ 0 (got "${String(raw)}")`);
    nums[key] = n;
  }
  if (nums.turns === undefined || nums.seed === undefined) throw new RangeError('--turns and --seed are required');
  return { suite: { count: 1, ...nums, turns: nums.turns, seed: nums.seed }, out: String(values.out) };
}

/** CLI entry; returns the exit code (2 on bad arguments, with a one-line message). */
export async function generateCommand(argv: string[]): Promise<number> {
  let parsed: { suite: SuiteOptions; out: string };
  let transcripts: Transcript[];
  try {
    parsed = parseCli(argv);
    transcripts = generateSuite(parsed.suite);
  } catch (e) {
    process.stderr.write(`generate: ${(e as Error).message}\n${USAGE}\n`);
    return EXIT.badInput;
  }
  for (const t of transcripts) await writeTranscriptFile(join(parsed.out, `${t.id}.yaml`), t);
  process.stdout.write(`${transcripts.length} transcript(s) → ${parsed.out}\n`);
  return EXIT.ok;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await generateCommand(process.argv.slice(2));
}
