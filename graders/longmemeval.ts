// LongMemEval graded as its users grade it: the judge prompts of
// xiaowu0162/LongMemEval `src/evaluation/evaluate_qa.py` (`get_anscheck_prompt`),
// sent verbatim to the configured judge model, and its reply read as that
// script reads it (`'yes' in eval_response.lower()`). The metrics over these
// labels (print_qa_metrics.py) live in core/longmemeval.ts, so reports can use them.
//
// The prompts are the protocol: they are copied character for character
// (trailing spaces before the blank lines included) and must not be edited.
import { userMessage } from '../core/items.js';
import { LONGMEMEVAL_PROTOCOL, LONGMEMEVAL_TAG, isAbstentionId, isLongMemEvalType, type LongMemEvalType } from '../core/longmemeval.js';
import type { Model } from '../core/model.js';
import { answerContent } from './exact.js';
import type { AnswerInput, JudgeVerdict } from './types.js';

// ---------- the prompts: evaluate_qa.py get_anscheck_prompt, verbatim ----------

/** evaluate_qa.py `get_anscheck_prompt`: single-session-user, single-session-assistant, multi-session. */
const DEFAULT_TEMPLATE =
  'I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. \n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.';

/** evaluate_qa.py `get_anscheck_prompt`: temporal-reasoning. */
const TEMPORAL_TEMPLATE =
  "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. \n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.";

/** evaluate_qa.py `get_anscheck_prompt`: knowledge-update. */
const KNOWLEDGE_UPDATE_TEMPLATE =
  'I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer.\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.';

/** evaluate_qa.py `get_anscheck_prompt`: single-session-preference (the answer is a rubric). */
const PREFERENCE_TEMPLATE =
  "I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no only.";

/** evaluate_qa.py `get_anscheck_prompt`: abstention (`_abs` question ids), whatever the type. */
const ABSTENTION_TEMPLATE =
  'I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: {}\n\nExplanation: {}\n\nModel Response: {}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only.';

/** Which of the five prompts a question gets; `default` is the single-session-user/-assistant and multi-session one. */
export type LongMemEvalPromptName = 'default' | 'temporal-reasoning' | 'knowledge-update' | 'single-session-preference' | 'abstention';

export const LONGMEMEVAL_TEMPLATES: Readonly<Record<LongMemEvalPromptName, string>> = {
  default: DEFAULT_TEMPLATE,
  'temporal-reasoning': TEMPORAL_TEMPLATE,
  'knowledge-update': KNOWLEDGE_UPDATE_TEMPLATE,
  'single-session-preference': PREFERENCE_TEMPLATE,
  abstention: ABSTENTION_TEMPLATE,
};

/** The prompt a question of `type` gets; abstention first, as get_anscheck_prompt branches. */
export function longMemEvalPromptName(type: LongMemEvalType, abstention: boolean): LongMemEvalPromptName {
  if (abstention) return 'abstention';
  if (type === 'temporal-reasoning' || type === 'knowledge-update' || type === 'single-session-preference') return type;
  return 'default';
}

/**
 * Python's `template.format(a, b, c)` for templates whose only fields are `{}`:
 * each value goes in once, and braces inside the values are left alone
 * (String.replace would read `$&` in a value as a pattern).
 */
function pyFormat(template: string, values: string[]): string {
  const parts = template.split('{}');
  return parts.reduce((out, part, i) => out + (i === 0 ? '' : (values[i - 1] ?? '')) + part, '');
}

/** evaluate_qa.py `get_anscheck_prompt(task, question, answer, response, abstention)`. */
export function longMemEvalPrompt(type: LongMemEvalType, question: string, answer: string, response: string, abstention: boolean): string {
  return pyFormat(LONGMEMEVAL_TEMPLATES[longMemEvalPromptName(type, abstention)], [question, answer, response]);
}

/** evaluate_qa.py's label: `'yes' in eval_response.strip().lower()` (a substring test, as the script has it). */
export function readLongMemEvalLabel(reply: string): boolean {
  return reply.trim().toLowerCase().includes('yes');
}

// ---------- which probes get the protocol ----------

/** What the protocol needs of one probe, as the importer recorded it. */
export interface LongMemEvalQuestion {
  type: LongMemEvalType;
  abstention: boolean;
  /** The question as the dataset gives it (without the `[Current date: …]` line the importer adds for the reader). */
  question: string;
  answer: string;
}

function fromImporter(transcript: AnswerInput['transcript']): boolean {
  return transcript.tags.includes(LONGMEMEVAL_TAG) || transcript.meta?.source === LONGMEMEVAL_TAG;
}

/**
 * The LongMemEval question a probe is, or undefined when it is none. The rule:
 * the transcript came from the LongMemEval importer (`longmemeval` tag or
 * `meta.source: longmemeval`) and the probe's `meta.question_type` is one of the
 * six types (for any other type get_anscheck_prompt has no prompt, so memeval's
 * own judge grades it). Abstention is the script's test, `'_abs' in question_id`,
 * on the transcript's `meta.question_id`, or the probe's `kind: abstention`
 * when the id is not recorded.
 */
export function longMemEvalQuestionOf({ transcript, probe }: Pick<AnswerInput, 'transcript' | 'probe'>): LongMemEvalQuestion | undefined {
  const type = probe.meta?.question_type;
  if (!fromImporter(transcript) || !isLongMemEvalType(type)) return undefined;
  const questionId = transcript.meta?.question_id;
  const abstention = typeof questionId === 'string' ? isAbstentionId(questionId) : probe.kind === 'abstention';
  const question = typeof probe.meta?.question === 'string' ? probe.meta.question : probe.question;
  return { type, abstention, question, answer: probe.answer };
}

// ---------- the judge ----------

/**
 * evaluate_qa.py asks for `max_tokens: 10`; OpenAI's Responses API rejects a
 * limit below 16, and the reply read is one word either way.
 */
export const LONGMEMEVAL_MAX_OUTPUT_TOKENS = 16;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/** The verdict reason's opening: the protocol and the prompt, so a record says how it was graded. */
export function longMemEvalReasonHead(q: Pick<LongMemEvalQuestion, 'type' | 'abstention'>): string {
  return `${LONGMEMEVAL_PROTOCOL} ${longMemEvalPromptName(q.type, q.abstention)} prompt`;
}

/**
 * Grades one answer with the official prompt: the prompt is the only (user)
 * message, no system message, temperature 0, as evaluate_qa.py sends it. A
 * failed call or an empty reply is an error (the script would have read an
 * empty reply as "no"; here a judge that said nothing has not judged). An
 * answer that is only the harness's scaffolding fails without a call, as
 * memeval's own judge fails it (graders/exact.ts `answerContent`).
 */
export async function gradeLongMemEval(model: Model, q: LongMemEvalQuestion, response: string): Promise<JudgeVerdict> {
  const head = longMemEvalReasonHead(q);
  if (answerContent(response).length === 0) {
    return { verdict: 'fail', reason: `${head}: not asked; the answer is empty or only the conversation's scaffolding`, model: model.id };
  }
  const result = await model.complete({
    input: [userMessage(longMemEvalPrompt(q.type, q.question, q.answer, response, q.abstention))],
    temperature: 0,
    maxOutputTokens: LONGMEMEVAL_MAX_OUTPUT_TOKENS,
    purpose: 'judge',
  });
  if (result.error) return { verdict: 'error', reason: `${head}: judge call failed: ${result.error}`, model: model.id };
  const reply = result.output.trim();
  if (reply.length === 0) return { verdict: 'error', reason: `${head}: the judge replied with nothing`, model: model.id };
  const label = readLongMemEvalLabel(reply);
  return { verdict: label ? 'pass' : 'fail', reason: `${head}: judge replied "${preview(reply)}" (${label ? 'yes' : 'no'})`, model: model.id };
}
