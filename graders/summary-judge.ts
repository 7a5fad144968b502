// Summary judges. The LLM judge follows DeepEval's summarization metric: coverage
// is asked as fixed yes/no questions built from the transcript's facts (so scores
// stay comparable night to night) and answered from the summary alone, alignment
// as claim-by-claim support against the source, and score = min(coverage,
// alignment). The offline judge derives the same fields from the deterministic checks.
import { z } from 'zod';
import { userMessage } from '../core/items.js';
import { modelForRepeat, type JsonSchemaFormat, type Model, type ModelRequest } from '../core/model.js';
import type { Fact, SummaryGrades, SummaryJudgement } from '../core/types.js';
import { median } from '../core/stats.js';
import { parseJsonReply, strictJsonSchema } from './answer-judge.js';
import { summaryDrift } from './drift.js';
import {
  checkSummary,
  dueFacts,
  parsePromptHeadings,
  renderTurns,
  summaryIdentifiers,
  type SummaryCheckOptions,
} from './summary-checks.js';
import type { Grader, SummaryInput } from './types.js';

export interface CoverageQuestion {
  factId: string;
  question: string;
}

/**
 * The fixed coverage question for a fact; its wording never depends on the
 * summary. Fact texts are values ("v1.0.4", "Windows 10"), so the value is
 * quoted; a fact that replaced an earlier one must be stated as current.
 */
export function coverageQuestion(fact: Fact, replacesAnother = false): CoverageQuestion {
  const also = fact.aliases.length > 0 ? ` (also written ${fact.aliases.map((a) => `"${a}"`).join(', ')})` : '';
  const current = replacesAnother ? ' as the current value' : '';
  return { factId: fact.id, question: `Does the summary state "${fact.text}"${also}${current}?` };
}

export function coverageQuestions(input: SummaryInput): CoverageQuestion[] {
  const { facts } = input.transcript;
  const replacements = new Set(facts.flatMap((f) => f.supersededBy ?? []));
  return dueFacts(facts, input.summary.coveredTurns).map((f) => coverageQuestion(f, replacements.has(f.id)));
}

const yesNo = z.enum(['yes', 'no']);
const coverageVerdictSchema = z.object({ coverage: z.array(z.object({ id: z.string(), answer: yesNo }).strict()) }).strict();
const summaryVerdictSchema = z
  .object({
    claims: z.array(z.object({ claim: z.string(), verdict: z.enum(['supported', 'unsupported', 'contradicted']) }).strict()),
    temporal: z.object({ verdict: yesNo, reason: z.string() }).strict(),
    format: z.object({ verdict: yesNo, reason: z.string() }).strict(),
    // An enum, not minimum/maximum: strict structured output has long taken enums and not always number bounds.
    overall: z.literal([1, 2, 3, 4, 5]),
    reasons: z.object({ faithfulness: z.string(), overall: z.string() }).strict(),
  })
  .strict();

type CoverageAnswers = z.infer<typeof coverageVerdictSchema>['coverage'];
/** One sample: the coverage answers (summary alone) and the verdict with the source in view. */
type SummaryVerdict = z.infer<typeof summaryVerdictSchema> & { coverage: CoverageAnswers };

export const COVERAGE_VERDICT_FORMAT: JsonSchemaFormat = { name: 'coverage_verdict', schema: strictJsonSchema(coverageVerdictSchema) };
export const SUMMARY_VERDICT_FORMAT: JsonSchemaFormat = { name: 'summary_verdict', schema: strictJsonSchema(summaryVerdictSchema) };

// The coverage call never sees the source: with the source in view a judge
// credits a summary with facts it only hints at, because it knows what was meant.
const COVERAGE_SYSTEM = [
  'You read a summary of an earlier support conversation and answer questions about what the summary itself states.',
  'You do not see the conversation: answer from the SUMMARY alone.',
  'Answer "yes" only if the summary states that value (wording may differ); "no" when it is missing, only hinted at, or given differently.',
  'Reply with one JSON object: {"coverage": [{"id": "<question id>", "answer": "yes" | "no"}, …]}, one entry per question, using the ids given.',
].join('\n');

const JUDGE_SYSTEM = [
  'You evaluate a summary of the earlier part of a support conversation. The summary replaces that part in the assistant\'s memory.',
  'Work only from the SOURCE. Do the following and reply with one JSON object:',
  '- claims: split the summary into its factual claims; mark each "supported" by the source, "unsupported" (not in the source: invented) or "contradicted" (the source says otherwise).',
  '- temporal: "yes" when every fact that changed is given with its latest value as current and events are in the right order; otherwise "no".',
  '- format: "yes" when every required heading is present and the summary keeps within the word limit; otherwise "no".',
  '- overall: 1 (useless or misleading) to 5 (complete, faithful, well-formed) for continuing the conversation from the summary alone.',
  '- reasons: one or two sentences each for faithfulness and overall.',
].join('\n');

/** The user message of the coverage call: the summary and the questions, no source. */
function coveragePrompt(summaryText: string, questions: CoverageQuestion[]): string {
  return ['SUMMARY:', summaryText, '', 'QUESTIONS:', ...questions.map((q) => `[${q.factId}] ${q.question}`)].join('\n');
}

/** The user message of the faithfulness/temporal/format/overall call. */
export function summaryJudgePrompt(input: SummaryInput, wordLimit: number): string {
  const source = input.summary.request.user || renderTurns(input.transcript, input.summary.coveredTurns);
  const headings = parsePromptHeadings(input.summary.request.system);
  return [
    'SOURCE (the conversation the summary replaces):',
    source,
    '',
    'SUMMARY:',
    input.summary.text,
    '',
    `REQUIRED HEADINGS: ${headings.length > 0 ? headings.join(' | ') : '(none)'}`,
    `WORD LIMIT: ${wordLimit}`,
  ].join('\n');
}

export interface LlmSummaryJudgeOptions {
  wordLimit: number;
  /**
   * Calls per summary. Yes/no answers take the majority (a tie counts as "no");
   * faithfulness and overall take the median. Each sample is cached apart
   * (`modelForRepeat`); at temperature 0 samples differ only as much as the
   * server is nondeterministic.
   */
  samples?: number;
  maxOutputTokens?: number;
}

/** One structured verdict per sample, folded into a `SummaryJudgement`. */
export class LlmSummaryJudge implements Grader<SummaryInput, SummaryJudgement> {
  readonly name = 'llm-summary-judge';
  private readonly samples: number;

  constructor(
    private readonly model: Model,
    private readonly options: LlmSummaryJudgeOptions,
  ) {
    this.samples = Math.max(1, Math.floor(options.samples ?? 1));
  }

  get modelId(): string {
    return this.model.id;
  }

  async grade(input: SummaryInput): Promise<SummaryJudgement> {
    const questions = coverageQuestions(input);
    const prompt = summaryJudgePrompt(input, this.options.wordLimit);
    const verdicts: SummaryVerdict[] = [];
    for (let i = 0; i < this.samples; i++) {
      const model = modelForRepeat(this.model, i);
      const coverage = await this.coverage(model, input.summary.text, questions);
      // One failed sample fails the judgement: a partial vote could turn a failure into a pass.
      if (typeof coverage === 'string') return judgementError(this.model.id, coverage);
      const one = await this.verdict(model, prompt);
      if (typeof one === 'string') return judgementError(this.model.id, one);
      verdicts.push({ ...one, coverage });
    }
    return combine(this.model.id, questions, verdicts);
  }

  /** `unusable` says why a reply that matches the schema still cannot be used (it is then forgotten too). */
  private async call<T>(model: Model, system: string, prompt: string, format: JsonSchemaFormat, schema: z.ZodType<T>, unusable?: (value: T) => string | undefined): Promise<T | string> {
    const request: ModelRequest = {
      system,
      input: [userMessage(prompt)],
      temperature: 0,
      maxOutputTokens: this.options.maxOutputTokens ?? 1500,
      responseFormat: format,
      purpose: 'judge',
    };
    const result = await model.complete(request);
    if (result.error) return `judge call failed: ${result.error}`;
    const parsed = parseJsonReply(result.output, schema);
    const reason = parsed.ok ? unusable?.(parsed.value) : parsed.reason;
    if (parsed.ok && reason === undefined) return parsed.value;
    // Not kept in the cache: a rerun or --resume asks the judge again.
    await model.forget?.(request);
    return reason ?? 'unusable reply';
  }

  /** Coverage answers from the summary alone; no call when no fact is due. */
  private async coverage(model: Model, summaryText: string, questions: CoverageQuestion[]): Promise<CoverageAnswers | string> {
    if (questions.length === 0) return [];
    const skippedIn = (reply: z.infer<typeof coverageVerdictSchema>): string | undefined => {
      const answered = new Set(reply.coverage.map((c) => c.id));
      const skipped = questions.filter((q) => !answered.has(q.factId)).map((q) => q.factId);
      return skipped.length > 0 ? `reply skipped coverage questions: ${skipped.join(', ')}` : undefined;
    };
    const reply = await this.call(model, COVERAGE_SYSTEM, coveragePrompt(summaryText, questions), COVERAGE_VERDICT_FORMAT, coverageVerdictSchema, skippedIn);
    return typeof reply === 'string' ? reply : reply.coverage;
  }

  private verdict(model: Model, prompt: string): Promise<z.infer<typeof summaryVerdictSchema> | string> {
    return this.call(model, JUDGE_SYSTEM, prompt, SUMMARY_VERDICT_FORMAT, summaryVerdictSchema);
  }
}

/** A judgement that failed: no score at all (NaN, written as null), never a 0 a reader could take for a verdict. */
export function judgementError(model: string, error: string): SummaryJudgement {
  return {
    model,
    coverage: Number.NaN,
    faithfulness: Number.NaN,
    temporal: Number.NaN,
    format: Number.NaN,
    overall: Number.NaN,
    score: Number.NaN,
    invented: [],
    reasons: {},
    error,
  };
}

function majority(votes: boolean[]): boolean {
  return votes.filter(Boolean).length * 2 > votes.length;
}

// A summary that makes no claim carries nothing forward; scoring it 1 would
// rank an empty summary as perfectly faithful.
function alignment(v: SummaryVerdict): number {
  if (v.claims.length === 0) return 0;
  return v.claims.filter((c) => c.verdict === 'supported').length / v.claims.length;
}

function combine(model: string, questions: CoverageQuestion[], verdicts: SummaryVerdict[]): SummaryJudgement {
  const yesFor = (v: SummaryVerdict, id: string): boolean => v.coverage.some((c) => c.id === id && c.answer === 'yes');
  const covered = questions.filter((q) => majority(verdicts.map((v) => yesFor(v, q.factId))));
  const coverage = questions.length === 0 ? 1 : covered.length / questions.length;
  const aligns = verdicts.map(alignment);
  const faithfulness = median(aligns);
  // Lists and free text come from the sample whose alignment is the (lower) median.
  const order = aligns.map((a, i) => ({ a, i })).sort((x, y) => x.a - y.a);
  const pick = verdicts[order[Math.floor((order.length - 1) / 2)].i];
  const temporal = majority(verdicts.map((v) => v.temporal.verdict === 'yes')) ? 1 : 0;
  const format = majority(verdicts.map((v) => v.format.verdict === 'yes')) ? 1 : 0;
  const missing = questions.filter((q) => !covered.includes(q)).map((q) => q.factId);
  return {
    model,
    coverage,
    faithfulness,
    temporal,
    format,
    overall: median(verdicts.map((v) => v.overall)),
    score: Math.min(coverage, faithfulness),
    invented: pick.claims.filter((c) => c.verdict !== 'supported').map((c) => `${c.verdict}: ${c.claim}`),
    reasons: {
      coverage: coverageReason(questions.length, missing),
      faithfulness: pick.reasons.faithfulness,
      temporal: pick.temporal.reason,
      format: pick.format.reason,
      overall: pick.reasons.overall,
    },
  };
}

function coverageReason(asked: number, missing: string[]): string {
  const stated = `${asked - missing.length}/${asked} coverage questions answered "yes" from the summary alone`;
  return missing.length > 0 ? `${stated} (not covered: ${missing.join(', ')})` : stated;
}

/**
 * The offline summary judge is a fixed rule over the deterministic checks, not a
 * language model:
 * - coverage = share of due facts found in the summary (`factCoverage`);
 * - faithfulness = share of identifiers/numbers in the summary found in the source;
 * - temporal = 0 when a superseded fact is stated without its update, else 1;
 * - format = 1 when no required heading is missing and the word limit holds, else 0;
 * - overall = 1 + round(4 × score), minus one point for a stale fact and one
 *   for a format failure, never below 1: a summary is as useful as the weaker
 *   of coverage and faithfulness (a confident wrong value misleads);
 * - score = min(coverage, faithfulness).
 */
export class OfflineSummaryJudge implements Grader<SummaryInput, SummaryJudgement> {
  readonly name = 'offline-summary-rule';
  readonly modelId = 'offline';

  constructor(private readonly options: SummaryCheckOptions) {}

  async grade(input: SummaryInput): Promise<SummaryJudgement> {
    const checks = checkSummary(input.transcript, input.summary, this.options);
    const ids = summaryIdentifiers(input.transcript, input.summary);
    const coverage = checks.factCoverage;
    const faithfulness = ids.checked === 0 ? 1 : 1 - ids.unsupported.length / ids.checked;
    const temporal = checks.staleFacts.length === 0 ? 1 : 0;
    const format = checks.headingsMissing.length === 0 && !checks.overLimit ? 1 : 0;
    const score = Math.min(coverage, faithfulness);
    return {
      model: 'offline',
      coverage,
      faithfulness,
      temporal,
      format,
      overall: offlineOverall(score, temporal, format),
      score,
      invented: ids.unsupported,
      // No reasons: they were the rule's text with the checks' values filled in, the
      // same words in every record (a quarter of a long run's summary records). The rule
      // is in the run's protocol (info.protocol.summaryJudge.rule), and the report
      // prints it; the values are the checks' (factsMissing, staleFacts, words) and `invented`.
      reasons: {},
    };
  }
}

export function offlineOverall(score: number, temporal: number, format: number): number {
  return Math.max(1, 1 + Math.round(4 * score) - (1 - temporal) - (1 - format));
}

export type SummaryJudge = LlmSummaryJudge | OfflineSummaryJudge;

/** `offline` gives the rule; any other spec needs the judge `Model` built for it. */
export function createSummaryJudge(spec: string, options: LlmSummaryJudgeOptions, model?: Model): SummaryJudge {
  if (spec === 'offline') return new OfflineSummaryJudge({ wordLimit: options.wordLimit });
  if (!model) throw new Error(`judge "${spec}" needs a model; build it with createModel first`);
  return new LlmSummaryJudge(model, options);
}

/** Every grade of one summary: the checks always, the judge when given, drift when there is a previous summary. */
export async function gradeSummary(
  input: SummaryInput,
  options: SummaryCheckOptions,
  judge?: Grader<SummaryInput, SummaryJudgement>,
): Promise<SummaryGrades> {
  const grades: SummaryGrades = { checks: checkSummary(input.transcript, input.summary, options) };
  if (input.summary.error) return grades;
  if (judge) grades.judge = await judge.grade(input);
  if (input.previous && !input.previous.error && !input.previous.opaque) grades.drift = summaryDrift(input.transcript, input.previous, input.summary);
  return grades;
}
