// Answer graders: a reference-guided yes/no LLM rubric, and the documented
// offline rule. A judge that cannot decide returns 'error', never 'pass'.
// LongMemEval probes are graded by an LLM judge with LongMemEval's own prompts
// instead (graders/longmemeval.ts); the offline rule grades every probe alike.
import { z } from 'zod';
import { userMessage } from '../core/items.js';
import type { JsonSchemaFormat, Model, ModelRequest } from '../core/model.js';
import type { ProbeKind } from '../core/types.js';
import { answerContent, isAbstention, mustIncludePass, tokenF1, undercutsReference } from './exact.js';
import { gradeLongMemEval, longMemEvalQuestionOf } from './longmemeval.js';
import type { AnswerInput, Grader, JudgeVerdict } from './types.js';

/** What each probe kind asks of a correct answer; shown to the judge verbatim. */
export const RUBRIC: Record<ProbeKind, string> = {
  recall:
    'Answer "yes" when the answer states the same fact as the reference answer (wording may differ). Answer "no" when it is missing, different, or hedged between options.',
  update:
    'The fact changed during the conversation; the reference answer is its latest value. Answer "yes" when the answer presents the latest value as the current one, even if it also mentions the old value as superseded. Answer "no" when it presents the old value as current or does not commit to the latest one.',
  temporal:
    'The question is about dates, times, order or durations. Answer "yes" when the answer matches the reference; a date or duration off by one day is acceptable. Answer "no" when the order is wrong or the value is off by more than one day.',
  'multi-hop':
    'The answer must combine several facts. Answer "yes" only when the conclusion matches the reference answer; a partly right chain of reasoning with a wrong conclusion is "no".',
  abstention:
    'The information was never given in the conversation. Answer "yes" only when the answer says it does not know or that this was not mentioned. Answer "no" when it states any concrete value, even a plausible one.',
  // Only a tool probe whose right move is to answer without calling a tool reaches the judge: an expected call is checked by rule.
  tool: 'The information is already in the conversation, so the right move is to answer from it instead of calling a tool again. Answer "yes" when the answer states the same fact as the reference answer. Answer "no" when it is missing, different, or only says it will look it up.',
};

const answerVerdictSchema = z.object({ verdict: z.enum(['yes', 'no']), reason: z.string() }).strict();

export const ANSWER_VERDICT_FORMAT: JsonSchemaFormat = { name: 'answer_verdict', schema: strictJsonSchema(answerVerdictSchema) };

/**
 * The JSON Schema of a reply schema as OpenAI's strict structured output
 * takes it: no `$schema` line, and every object closed with every property
 * required (strict mode rejects a schema that leaves either open).
 */
export function strictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema);
  return closeObjects(json) as Record<string, unknown>;
}

function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (typeof node !== 'object' || node === null) return node;
  const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closeObjects(value)]));
  if (out.type !== 'object' || typeof out.properties !== 'object' || out.properties === null) return out;
  return { ...out, required: Object.keys(out.properties), additionalProperties: false };
}

const JUDGE_SYSTEM = [
  'You grade answers given by an assistant about an earlier conversation.',
  'Compare the answer with the reference answer using the rubric. Judge only the facts, not style or length.',
  'Reply with JSON only: {"verdict": "yes" | "no", "reason": "<one or two sentences>"}.',
].join('\n');

/** The `meta.source` the dataset importers set (harness/datasets/importers/): LoCoMo and LongMemEval. */
export const IMPORTED_SOURCES: readonly string[] = ['locomo', 'longmemeval'];

/** A transcript made by an importer: its `meta.source` is one of IMPORTED_SOURCES. */
export function isImported(transcript: AnswerInput['transcript']): boolean {
  const source = transcript.meta?.source;
  return typeof source === 'string' && IMPORTED_SOURCES.includes(source);
}

/**
 * How the judge is told about `must_include`. A hand-written probe's entries are
 * chosen as terms every right answer has. An importer derives them from the
 * gold answer itself (`[[answer]]` for short answers), so "each must be present"
 * would fail a right answer worded otherwise ("the weekend before May 24, 2023"
 * said as "May 20–21"), stricter than the benchmarks' own judges; for imported
 * probes they are facts to convey. The deterministic must_include gate
 * (`exact`) reads them literally either way.
 */
function mustIncludeLine(input: AnswerInput, required: string): string {
  return isImported(input.transcript)
    ? `Key facts the answer should convey (equivalent wording counts, alternatives separated by |): ${required}`
    : `Key terms (each must be present, alternatives separated by |): ${required}`;
}

/** The user message the judge receives for one probe. */
export function answerJudgePrompt(input: AnswerInput): string {
  const { probe, answer } = input;
  const required = probe.mustInclude.map((alts) => alts.join(' | ')).join('; ');
  return [
    `Question: ${probe.question}`,
    `Reference answer: ${probe.answer}`,
    required ? mustIncludeLine(input, required) : undefined,
    `Probe kind: ${probe.kind}`,
    `Rubric: ${RUBRIC[probe.kind]}`,
    '',
    'Answer to grade:',
    answer,
  ]
    .filter((line) => line !== undefined)
    .join('\n');
}

export type ParsedJson<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Parses a structured reply. A markdown code fence around the JSON is tolerated
 * (some OpenAI-compatible servers add one); anything else that is not valid JSON
 * matching `schema` is rejected with the reason.
 */
export function parseJsonReply<T>(output: string, schema: z.ZodType<T>): ParsedJson<T> {
  const text = stripFence(output.trim());
  if (text.length === 0) return { ok: false, reason: 'empty reply' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: `reply is not JSON: ${preview(text)}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'reply';
    return { ok: false, reason: `reply does not match the schema (${where}: ${issue?.message ?? 'invalid'}): ${preview(text)}` };
  }
  return { ok: true, value: parsed.data };
}

function stripFence(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(text);
  return fenced ? fenced[1].trim() : text;
}

function preview(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Reference-guided yes/no LLM judge; temperature 0 and a JSON schema reply.
 * A LongMemEval probe (graders/longmemeval.ts `longMemEvalQuestionOf`: a
 * transcript from the LongMemEval importer whose probe has one of the six
 * question types) is graded with LongMemEval's own prompt for its type instead,
 * and its verdict's reason names that protocol.
 */
export class LlmAnswerJudge implements Grader<AnswerInput, JudgeVerdict> {
  readonly name = 'llm-answer-judge';

  constructor(
    private readonly model: Model,
    private readonly maxOutputTokens = 300,
  ) {}

  get modelId(): string {
    return this.model.id;
  }

  async grade(input: AnswerInput): Promise<JudgeVerdict> {
    const longMemEval = longMemEvalQuestionOf(input);
    if (longMemEval) return gradeLongMemEval(this.model, longMemEval, input.answer);
    // The judge sees the answer as written, but an answer that is only scaffolding passes nothing, whatever a model would say.
    if (answerContent(input.answer).length === 0) return { ...SCAFFOLDING_ONLY, model: this.model.id };
    const request: ModelRequest = {
      system: JUDGE_SYSTEM,
      input: [userMessage(answerJudgePrompt(input))],
      temperature: 0,
      maxOutputTokens: this.maxOutputTokens,
      responseFormat: ANSWER_VERDICT_FORMAT,
      purpose: 'judge',
    };
    const result = await this.model.complete(request);
    const model = this.model.id;
    if (result.error) return { verdict: 'error', reason: `judge call failed: ${result.error}`, model };
    const parsed = parseJsonReply(result.output, answerVerdictSchema);
    if (!parsed.ok) {
      // Not kept in the cache: a rerun or --resume asks the judge again.
      await this.model.forget?.(request);
      return { verdict: 'error', reason: parsed.reason, model };
    }
    return { verdict: parsed.value.verdict === 'yes' ? 'pass' : 'fail', reason: parsed.value.reason, model };
  }
}

/** The verdict on an answer with nothing in it once the harness's scaffolding is taken out (`answerContent`). */
const SCAFFOLDING_ONLY = {
  verdict: 'fail',
  reason: 'rule: the answer is empty or only the conversation\'s scaffolding (timestamps, session headers)',
} as const;

/**
 * The offline judge is a fixed rule, not a language model. Every rule reads the
 * answer without the harness's scaffolding (`answerContent`), and an answer with
 * nothing else fails every probe, abstention probes included;
 * - abstention probes pass iff the answer abstains (`isAbstention`);
 * - other probes pass iff every `must_include` entry is present, or, when a probe
 *   has no `must_include`, iff token F1 against the reference is at least 0.5
 *   and the answer does not take it back (abstain, guess, hedge or negate where
 *   the reference does not: `undercutsReference`).
 * LongMemEval probes get this rule too: LongMemEval's own protocol needs an LLM
 * judge, so with `judge: offline` its official metrics read "not scored"
 * (core/longmemeval.ts) rather than numbers made from this rule.
 */
export class OfflineAnswerJudge implements Grader<AnswerInput, JudgeVerdict> {
  readonly name = 'offline-answer-rule';
  readonly modelId = 'offline';

  async grade(input: AnswerInput): Promise<JudgeVerdict> {
    return offlineVerdict(input);
  }
}

export const OFFLINE_F1_THRESHOLD = 0.5;

export function offlineVerdict({ probe, answer }: AnswerInput): JudgeVerdict {
  const model = 'offline';
  if (answerContent(answer).length === 0) return { ...SCAFFOLDING_ONLY, model };
  if (probe.kind === 'abstention') {
    return isAbstention(answer)
      ? { verdict: 'pass', reason: 'rule: the answer abstains', model }
      : { verdict: 'fail', reason: 'rule: the answer makes a claim instead of abstaining', model };
  }
  if (probe.mustInclude.length > 0) {
    return mustIncludePass(answer, probe.mustInclude, probe.answer)
      ? { verdict: 'pass', reason: 'rule: every must_include entry is present', model }
      : { verdict: 'fail', reason: 'rule: a must_include entry is missing', model };
  }
  const f1 = tokenF1(answer, probe.answer);
  const shown = f1.toFixed(2);
  if (f1 >= OFFLINE_F1_THRESHOLD && undercutsReference(answer, probe.answer)) {
    return { verdict: 'fail', reason: `rule: token F1 ${shown}, but the answer abstains, hedges or negates it`, model };
  }
  return f1 >= OFFLINE_F1_THRESHOLD
    ? { verdict: 'pass', reason: `rule: token F1 ${shown} ≥ ${OFFLINE_F1_THRESHOLD}`, model }
    : { verdict: 'fail', reason: `rule: token F1 ${shown} < ${OFFLINE_F1_THRESHOLD}`, model };
}

export type AnswerJudge = LlmAnswerJudge | OfflineAnswerJudge;

/** `offline` gives the rule; any other spec needs the judge `Model` built for it. */
export function createAnswerJudge(spec: string, model?: Model): AnswerJudge {
  if (spec === 'offline') return new OfflineAnswerJudge();
  if (!model) throw new Error(`judge "${spec}" needs a model; build it with createModel first`);
  return new LlmAnswerJudge(model);
}
