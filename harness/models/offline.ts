// The built-in `offline` model: a deterministic extractive reader, not an LLM.
// It lets a run measure what a strategy kept without a network or a key.
import type { Model, ModelRequest, ModelResult } from '../../core/model.js';
import { isUserMessage, itemText } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { ABSTAIN_ANSWER, MIN_COVERAGE, answerQuestion } from './reader/answer.js';
import { readContext, splitSentences } from './reader/context.js';
import { contentStems } from './reader/words.js';

export { ABSTAIN_ANSWER, MIN_COVERAGE, contentStems, splitSentences };

/** Splits a request into the question (last user item) and the context before it. */
export function questionAndContext(input: AgentInputItem[]): { question: string; context: AgentInputItem[] } {
  for (let i = input.length - 1; i >= 0; i--) {
    if (isUserMessage(input[i])) return { question: itemText(input[i]), context: input.slice(0, i) };
  }
  return { question: '', context: input };
}

/** The question without a leading `[at]` stamp, which only says when it was asked. */
function bareQuestion(text: string): string {
  return text.replace(/^\s*\[[^\]\n]{4,40}\]\s*/, '');
}

/**
 * The `offline` model: a deterministic extractive reader. It answers only from the
 * context it is given and never sees the expected answer.
 *
 * 1. Context. The question is the last user item; the context is the system text and
 *    every item before it. Each message is split into statements (sentences and
 *    clauses); JSON and text-table tool output into records ("key: value, …"). Each
 *    statement keeps who said it (user, assistant, tool, or the `Name:` a line starts
 *    with), the day of its message (`[at]` or `[Session n: date]` stamps) and its
 *    typed spans: dates (relative ones resolved against that day), times, money,
 *    quantities, percentages, identifiers, hosts, versions, names, phones, emails.
 * 2. Question. Its answer type comes from its form (who → a name; when → a date or
 *    time; how many/much → a quantity or amount; which ticket/number/id → an
 *    identifier; which host, version, phone, email, percentage); "did I say/report"
 *    asks for the user's statements and "did you recommend" for the assistant's;
 *    "now/current/latest" asks for the newest value. A question that asks two things
 *    ("what size, and which apartment") is answered part by part.
 * 3. Retrieval. Statements score the IDF-weighted question stems they contain (words
 *    rare in the context count most; asking words like "report" or "pick" little); a
 *    statement that is itself a question scores a fifth, one without a value of the
 *    asked type half, one by the other party 85%. A date in the question is met by
 *    statements of that day or naming it.
 * 4. Updates. Among statements within 80% of the best score that share its matched
 *    words and hold a value of the asked type, a newer one wins when the question asks
 *    for the current value, when it says the value changed ("now", "moved", "revised",
 *    "instead", …) or when it scores as high.
 * 5. Two hops. When the best statement leaves question words uncovered, two statements
 *    linked by a name or code the question does not mention (A: "Kestrel Foods had the
 *    most late shipments", B: "Kestrel Foods … account manager Marisol Ortega") answer
 *    together if they cover at least 15 points more of the question.
 * 6. Computation. "How many days/minutes between A and B", "after A did B", "until A"
 *    (from the newest day in the context) and "how much more was A than B" are
 *    computed from the dates, times or amounts of the statements that answer A and B.
 * 7. Answer. The span of the asked type nearest the matched words (a list when the
 *    values are listed together; a relative date resolved, with the words it was said
 *    in); for other questions the statement itself, or the next one in the message when
 *    it only repeats the question. At most 30 words around the match.
 * 8. Abstention. If the chosen statement(s) cover less than MIN_COVERAGE of the
 *    question's content (IDF-weighted, asking words left out), or no statement holds a
 *    value of the asked type, the reply is ABSTAIN_ANSWER.
 *
 * Limits, by design: it cannot paraphrase, infer what was never written, or do
 * arithmetic beyond the forms in 6. Usage is tiktoken counts of the request and the
 * reply; cost is 0. Judge and summary requests get the same treatment (the harness
 * routes those roles to its own offline rules).
 */
export class OfflineModel implements Model {
  readonly id = 'offline';
  readonly params: Record<string, unknown> = { algorithm: 'reader-v2' };
  private readonly counter: TokenCounter;

  constructor(opts: { counter?: TokenCounter } = {}) {
    this.counter = opts.counter ?? new TokenCounter();
  }

  /** The reply for a request, without usage accounting. */
  answer(request: Pick<ModelRequest, 'system' | 'input'>): string {
    const { question, context } = questionAndContext(request.input);
    return answerQuestion(bareQuestion(question), readContext(request.system, context));
  }

  async complete(request: ModelRequest): Promise<ModelResult> {
    const started = performance.now();
    const output = this.answer(request);
    const usage = {
      inputTokens: this.counter.request(request.system, request.input),
      outputTokens: this.counter.text(output),
    };
    return { output, usage, cost: 0, cached: false, latencyMs: performance.now() - started };
  }
}
