// Values given by tiers: "1 month's notice with less than 5 years of service and 2 months'
// notice with 5 years or more", "€750 for hires starting on or after 1 March 2025; earlier hires
// keep €600". A question that gives its own case ("an engineer with 6 years of service", "someone
// who started on 20 February 2025") is answered by the tier that case meets, never by the condition.
import { stem } from '../../../core/text.js';
import { clauseAt, clauseBounds } from './clauses.js';
import { type Day, daysBetween, findDates } from './dates.js';
import { type Span, findSpans } from './spans.js';

type Op = '<' | '<=' | '>' | '>=';

/** Words before a threshold and the comparison they make ("less than 5 years" → < 5). */
const BEFORE: [RegExp, Op][] = [
  [/\b(?:less|fewer) than\s*$|\b(?:under|below)\s*$/i, '<'],
  [/\b(?:up to|at most|no more than|not more than|a maximum of|max(?:imum)?)\s*$/i, '<='],
  [/\b(?:more|greater) than\s*$|\b(?:over|above|beyond)\s*$/i, '>'],
  [/\b(?:at least|a minimum of|min(?:imum)?|from)\s*$/i, '>='],
];
/** Words after a threshold ("5 years or more" → ≥ 5). */
const AFTER: [RegExp, Op][] = [
  [/^\s*(?:or (?:more|longer|over|above|older|higher)|\+|and (?:up|over|above))/i, '>='],
  [/^\s*(?:or (?:less|fewer|under|below|younger|shorter))/i, '<='],
];

function unitStem(span: Span): string | undefined {
  const word = span.unit?.toLowerCase().split(/\s+/).pop();
  return word ? stem(word) : undefined;
}

function meets(value: number, op: Op, threshold: number): boolean {
  switch (op) {
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
  }
}

/** The comparison a quantity in `text` is a threshold of, if words around it make it one. */
function thresholdOp(text: string, span: Span): Op | undefined {
  const before = text.slice(Math.max(0, span.start - 24), span.start);
  const after = text.slice(span.end, span.end + 16);
  for (const [re, op] of BEFORE) if (re.test(before)) return op;
  for (const [re, op] of AFTER) if (re.test(after)) return op;
  return undefined;
}

/** The quantities a question states as its case ("6 years of service"). */
function givenQuantities(question: string): Span[] {
  return findSpans(question).filter((s) => s.type === 'quantity' && s.value !== undefined && unitStem(s) !== undefined);
}

/** Words before a date that make it a threshold ("on or after 1 March 2025" → ≥). */
const DATE_BEFORE: [RegExp, Op][] = [
  [/\bon or after\s*$|\b(?:from|since|starting|effective)\s*(?:on\s*)?$/i, '>='],
  [/\bafter\s*$/i, '>'],
  [/\bon or before\s*$|\b(?:until|through|up to)\s*$/i, '<='],
  [/\b(?:before|prior to)\s*$/i, '<'],
];
/** A clause for the other side of a date threshold said without its date ("earlier hires keep €600"). */
const EARLIER = /\b(?:earlier|before that|before then|older)\b/i;
const LATER = /\b(?:later|after that|after then|newer)\b/i;
const OPPOSITE: Record<Op, Op> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' };

function meetsDay(day: Day, op: Op, threshold: Day): boolean {
  return meets(daysBetween(threshold, day), op, 0);
}

/**
 * Tiers by date ("€750 for hires starting on or after 1 March 2025; earlier hires keep €600"):
 * the value of the clause whose condition the question's date meets ("someone who started on 20
 * February 2025" → €600).
 */
function dateTierFor(question: string, text: string, spans: Span[]): Span | undefined {
  const asked = findDates(question).filter((d) => d.precision === 'day');
  if (asked.length !== 1) return undefined;
  const day = asked[0].day;
  const bounds = clauseBounds(text);
  const clauses = new Map<number, Op>();
  let threshold: Day | undefined;
  let thresholdOp: Op | undefined;
  for (const d of findDates(text, undefined, day.year)) {
    const before = text.slice(Math.max(0, d.start - 24), d.start);
    const op = DATE_BEFORE.find(([re]) => re.test(before))?.[1];
    if (!op || d.precision !== 'day') continue;
    clauses.set(clauseAt(bounds, d.start), op);
    threshold = d.day;
    thresholdOp = op;
  }
  if (!threshold || !thresholdOp) return undefined;
  // The clause that states the other side without a date.
  for (let i = 0; i < bounds.length; i++) {
    const clause = text.slice(bounds[i], bounds[i + 1] ?? text.length);
    if (clauses.has(i + 1)) continue;
    if ((EARLIER.test(clause) && (thresholdOp === '>=' || thresholdOp === '>')) || (LATER.test(clause) && (thresholdOp === '<' || thresholdOp === '<='))) clauses.set(i + 1, OPPOSITE[thresholdOp]);
  }
  const fitting = spans.filter((s) => {
    const op = clauses.get(clauseAt(bounds, s.start));
    return op !== undefined && threshold !== undefined && meetsDay(day, op, threshold);
  });
  return fitting.length === 1 ? fitting[0] : undefined;
}

/**
 * Of the statement's candidate values, the one in the clause whose threshold the question's own
 * quantity meets, when the statement gives tiers in the unit of that quantity; the thresholds
 * themselves are no answer. Undefined when the question states no quantity, or no one tier fits.
 */
export function tierFor(question: string, text: string, spans: Span[]): Span | undefined {
  if (spans.length < 2) return undefined;
  const given = givenQuantities(question);
  if (given.length === 0) return dateTierFor(question, text, spans);
  const bounds = clauseBounds(text);
  const fitting: Span[] = [];
  let tiered = false;
  for (const g of given) {
    const unit = unitStem(g);
    const thresholds = findSpans(text).filter((s) => s.type === 'quantity' && s.value !== undefined && unitStem(s) === unit);
    for (const t of thresholds) {
      const op = thresholdOp(text, t);
      if (!op || t.value === undefined || g.value === undefined) continue;
      tiered = true;
      if (!meets(g.value, op, t.value)) continue;
      const clause = clauseAt(bounds, t.start);
      fitting.push(...spans.filter((s) => clauseAt(bounds, s.start) === clause && unitStem(s) !== unit));
    }
  }
  if (!tiered) return undefined;
  const distinct = [...new Map(fitting.map((s) => [s.start, s])).values()];
  return distinct.length === 1 ? distinct[0] : undefined;
}
