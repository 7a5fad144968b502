// The reader's answer: find the statement (or the two linked statements) that covers the
// question, take the span of the asked type from it, compute what must be computed, and
// abstain when the question's content is not covered. The algorithm is described in
// harness/models/offline.ts and the README.
import type { ReaderContext, Unit } from './context.js';
import { alignToContext } from './align.js';
import { analyseQuestion, questionParts, type Question } from './question.js';
import { atRate, computeDifference, computeElapsed, computeOrder, offsetDate } from './compute.js';
import { corrected, extract, statement, withFollowing } from './extract.js';
import { type Found, find, throughResult, throughRole } from './retrieve.js';
import { contentStems, isAskingWord } from './words.js';

export { MIN_COVERAGE } from './retrieve.js';

export const ABSTAIN_ANSWER = "I don't know — that was not mentioned in our conversation.";

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

/**
 * A part that names nothing ("how much is it?") asks about the topic the question put first
 * ("The credit you gave us, which outage date was it for and how much is it?").
 */
function withTopic(part: string, whole: string): string {
  if (part === whole || [...contentStems(part)].some((s) => !isAskingWord(s))) return part;
  const topic = /^(.*?\p{L}.*?),\s*(?=(?:what|which|who|whom|whose|when|where|how)\b)/iu.exec(whole)?.[1];
  return topic ? `${part.replace(/[?.!\s]+$/, '')}, ${topic.charAt(0).toLowerCase()}${topic.slice(1)}?` : part;
}

/**
 * The words of a many-part question that set the topic of `part`: all of the question's but the
 * attributes its other parts ask for. "For the replacement shoes, what size and which apartment
 * …": the apartment is looked for near the shoes, not near a size.
 */
function topicStems(part: string, whole: string): Set<string> {
  const out = contentStems(whole);
  const own = contentStems(part);
  for (const other of questionParts(whole)) {
    if (other === part) continue;
    for (const f of analyseQuestion(other).focus) if (!own.has(f)) out.delete(f);
  }
  return out;
}

function answerPart(part: string, whole: string, ctx: ReaderContext, cache: Map<string, number>): string | undefined {
  const q = alignToContext(analyseQuestion(withTopic(part, whole)), ctx, cache);
  if (q.computation?.op === 'elapsed') {
    const computed = computeElapsed(q.computation, ctx, cache);
    if (computed) return computed;
  }
  if (q.computation?.op === 'order') {
    const computed = computeOrder(q.computation, ctx, cache);
    if (computed) return computed;
  }
  if (q.computation?.op === 'difference') {
    const computed = computeDifference(q.computation, whole, ctx, cache);
    if (computed) return computed;
  }
  const context = part === whole ? new Set<string>() : topicStems(part, whole);
  // A code read as an abbreviation of the asked word ("BLD-2026-04417" for "building permit") is
  // a last resort: where the word itself is stated, the statement that states it is better.
  let found = find(ctx, { ...q, abbreviations: undefined }, context, cache) ?? (q.abbreviations ? find(ctx, q, context, cache) : undefined);
  if (!found) return undefined;
  found = throughRole(throughResult(found, q, ctx), q, ctx);
  if (deniesHaving(found.unit)) return `${NOT_GIVEN}: ${statement(found)}`;
  if (asksMoney(q)) {
    const priced = atRate(found, q, ctx);
    if (priced) return priced;
  }
  // "4 weeks before launch": a date given relative to another event is counted from that event's date.
  if (q.type === 'date' || q.type === 'when') {
    const offset = offsetDate(found.unit, ctx, cache);
    if (offset) return offset;
  }
  const answer = extract(q.type === 'clause' ? withFollowing(found, q, ctx) : corrected(found, q, ctx), q, ctx);
  return q.count && q.type !== 'clause' ? withMoreValues(answer, found, q, context, ctx, cache) : answer;
}

/**
 * "Which two things must the cake be free of?" when the best statement names one ("dairy-free
 * chocolate for the cake"): the next statements that answer the question add theirs
 * ("a gluten-free flour blend") until there are as many as asked.
 */
function withMoreValues(answer: string, found: Found, q: Question, context: Set<string>, ctx: ReaderContext, cache: Map<string, number>): string {
  const values = [answer];
  const seen = new Set([found.unit]);
  const wanted = q.count ?? 0;
  // Bounded: `find` can hand back a statement it reached through another (a link, the next
  // statement of a message) even when that statement is excluded, and would again and again.
  for (let tries = 0; values.length < wanted && tries < 2 * wanted && !/,| and /.test(answer); tries++) {
    const next = find(ctx, q, context, cache, seen);
    if (!next || seen.has(next.unit)) break;
    seen.add(next.unit);
    const value = extract(corrected(next, q, ctx), q, ctx);
    if (!values.some((v) => v.toLowerCase() === value.toLowerCase())) values.push(value);
  }
  return values.length === 1 ? answer : `${values.slice(0, -1).join(', ')} and ${values[values.length - 1]}`;
}

/** A sum of money is asked for: "how much", "what will catering cost", "in dollars, what is the target". */
function asksMoney(q: Question): boolean {
  return q.type === 'money' || /\bin (?:dollars|euros|pounds)\b|\b(?:what|how much) (?:will|would|does|do|did) [\w' -]+? cost\b/i.test(q.text);
}

const APART = /\bhow (?:many \w+|long|far) apart\b/i;

/** The reader's reply to `question` from `ctx`. */
export function answerQuestion(question: string, ctx: ReaderContext): string {
  if (contentStems(question).size === 0) return ABSTAIN_ANSWER;
  const cache = new Map<string, number>();
  // "Which came first, A or B, and how many days apart were they?": the order's answer says how far apart.
  const parts = questionParts(question).filter((p, i, all) => !(i > 0 && APART.test(p) && analyseQuestion(all[i - 1]).computation?.op === 'order'));
  const answers = parts.map((p) => answerPart(p, question, ctx, cache));
  const known = answers.filter((a): a is string => a !== undefined);
  if (known.length === 0) return ABSTAIN_ANSWER;
  // The unknown part goes last: an answer that says "I don't know" first reads as a guess after it.
  return known.length === answers.length ? known.join('; ') : `${known.join('; ')}; the rest was not mentioned`;
}
