// Values given by tiers: "1 month's notice with less than 5 years of service and 2 months'
// notice with 5 years or more". A question that gives its own case ("an engineer with 6 years of
// service") is answered by the tier whose condition that case meets, never by the condition.
import { stem } from '../../../core/text.js';
import { clauseAt, clauseBounds } from './clauses.js';
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

/**
 * Of the statement's candidate values, the one in the clause whose threshold the question's own
 * quantity meets, when the statement gives tiers in the unit of that quantity; the thresholds
 * themselves are no answer. Undefined when the question states no quantity, or no one tier fits.
 */
export function tierFor(question: string, text: string, spans: Span[]): Span | undefined {
  const given = givenQuantities(question);
  if (given.length === 0 || spans.length < 2) return undefined;
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
