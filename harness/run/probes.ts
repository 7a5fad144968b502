// Answers one probe with the context a strategy kept, then grades it. The
// probe never enters the strategy's session.
import type { Graders } from './grading.js';
import { itemLabel, itemText, userMessage } from '../../core/items.js';
import type { ContextMessage } from '../../core/contexts.js';
import { msSince, thrownResult, type ModelRequest, type ModelResult } from '../../core/model.js';
import { modelForRepeat } from '../models/create.js';
import { discountedCost } from '../models/prices.js';
import type { ProbeContext } from './replay.js';
import { TOOL_CHECK, type AgentInputItem, type ProbeRecord, type ToolCall, type ToolDefinition, type ToolGrade, type Transcript } from '../../core/types.js';
import { answerableOf, attribute, evidenceTurnsOf } from '../../graders/attribution.js';
import { isAbstention, mustIncludePass, tokenF1 } from '../../graders/exact.js';
import { flatCopy } from '../../core/flat.js';
import type { JudgeVerdict } from '../../graders/types.js';
import { asksUser, callsUpTo, expectedCallMade, gradeToolCalls, repeatedCalls, toolGradeReason, userGaveNeededValue } from '../../graders/tool-calls.js';

export interface ProbeTask {
  transcript: Transcript;
  strategy: string;
  context: ProbeContext;
  /** 1-based repeat index (`repeat: N` asks every probe N times). */
  repeat: number;
  /** Stores the context sent (once per distinct context) and returns its ref for the record. */
  keepContext: (context: ContextMessage[]) => string;
}

function request(task: ProbeTask): { system: string | undefined; input: AgentInputItem[]; tools?: ToolDefinition[] } {
  const { tools } = task.transcript;
  // The transcript's tools go with every probe: a model may call one instead of answering.
  return { system: task.transcript.system, input: [...task.context.items, userMessage(task.context.probe.question)], ...(tools?.length ? { tools } : {}) };
}

/** A reply with no text and no tool call: no answer to grade, whatever path gave it. */
function repliedNothing(result: ModelResult): boolean {
  return result.output.trim() === '' && !result.toolCalls?.length;
}

async function ask(req: ReturnType<typeof request>, repeat: number, graders: Graders): Promise<ModelResult> {
  // Repeats are separate samples: each gets its own cache entry.
  const model = modelForRepeat(graders.answerModel, repeat - 1);
  const started = performance.now();
  try {
    const call: ModelRequest = { ...req, purpose: 'answer' };
    const result = await model.complete(call);
    // A reply with nothing in it is an error (answerProbe): not kept in the cache, so a rerun or --resume asks again.
    if (!result.error && repliedNothing(result)) await model.forget?.(call);
    return result;
  } catch (error) {
    // A model that throws (a bug in it; the offline reader is not behind the call cache, which
    // catches for the others) fails this answer, as an error the run counts, not the whole run.
    return thrownResult(error, msSince(started), model.id);
  }
}

/** The exact context that was sent, as role/text pairs, for the failures view and diffs. */
function sentContext(task: ProbeTask): ContextMessage[] {
  const lines = task.context.items.map((item) => ({ role: itemLabel(item).toLowerCase(), text: itemText(item) }));
  if (task.transcript.system) lines.unshift({ role: 'system', text: task.transcript.system });
  return lines;
}

function exactPass(task: ProbeTask, answer: string): boolean {
  const { probe } = task.context;
  if (probe.kind === 'abstention' && probe.mustInclude.length === 0) return isAbstention(answer);
  return mustIncludePass(answer, probe.mustInclude, probe.answer);
}

function baseRecord(task: ProbeTask, model: string): ProbeRecord {
  const { probe } = task.context;
  const evidenceTurns = evidenceTurnsOf(probe, task.transcript.turns);
  return {
    strategy: task.strategy,
    transcript: task.transcript.id,
    probe: probe.id,
    kind: probe.kind,
    afterTurn: probe.afterTurn,
    repeat: task.repeat,
    question: probe.question,
    reference: probe.answer,
    contextTokens: task.context.contextTokens,
    contextItems: task.context.items.length,
    factsNeeded: probe.facts,
    factsPresent: task.context.factsPresent,
    factsMissing: task.context.factsMissing,
    ...(task.context.factsOpaque.length > 0 ? { factsOpaque: task.context.factsOpaque } : {}),
    ...(evidenceTurns.length > 0 ? { evidenceTurns } : {}),
    // Set before the model is asked: it depends on the context alone, so an errored answer still has it.
    // A needed fact inside an opaque compacted span makes it unknown, not a guess either way.
    answerable: answerableOf({ kind: probe.kind, factsNeeded: probe.facts, factsMissing: task.context.factsMissing, factsOpaque: task.context.factsOpaque }),
    model,
    // Every probe's context, passed or not: a diff shows what each side sent.
    contextRef: task.keepContext(sentContext(task)),
    ...(probe.meta && Object.keys(probe.meta).length ? { meta: probe.meta } : {}),
  };
}

async function judge(task: ProbeTask, answer: string, graders: Graders): Promise<JudgeVerdict> {
  try {
    return await graders.answerJudge.grade({ transcript: task.transcript, probe: task.context.probe, answer });
  } catch (error) {
    // A judge that throws is an error, never a pass.
    return { verdict: 'error', reason: error instanceof Error ? error.message : String(error), model: graders.judge };
  }
}

export async function answerProbe(task: ProbeTask, graders: Graders): Promise<ProbeRecord> {
  const record = baseRecord(task, graders.model);
  const req = request(task);
  record.countedInputTokens = graders.counter.request(req.system, req.input, req.tools);
  const result = await ask(req, task.repeat, graders);
  Object.assign(record, { usage: result.usage, cost: result.cost, latencyMs: result.latencyMs, cached: result.cached });
  // Not reported is not 0: the record has no usage, and its cost stays unknown.
  if (result.usageUnknown) delete record.usage;
  // The probe stands for the agent's request at its turn: what that request shares with the turn before is cacheable.
  record.cacheableTokens = task.context.cacheableTokens;
  record.costCached = discountedCost(result.cost, result.usage, graders.answerPrice, task.context.cacheableTokens);
  // Whatever path answered (a provider, the Agents SDK runner, a batch), a reply with nothing
  // in it is no answer to grade: an empty string would be graded a wrong answer the model never gave.
  const error = result.error ?? (repliedNothing(result) ? 'the model replied with nothing: no text and no tool call' : undefined);
  if (error) {
    Object.assign(record, { error, errorStage: 'answer', passed: false, attribution: 'error' });
    const expected = ungradedToolCall(task);
    if (expected) record.tool = expected;
    return record;
  }
  // Copied flat: the reader cuts its answer out of the context's text, and the record, which lives
  // to the end of the run, would keep that whole message (and the transcript text it holds) alive.
  record.answer = flatCopy(result.output);
  const calls = result.toolCalls ?? [];
  if (calls.length > 0) record.toolCalls = calls.map((c) => ({ name: flatCopy(c.name), arguments: flatCopy(c.arguments) }));
  await gradeAnswer(task, record, result.output, calls, graders);
  return record;
}

/** What grading sets on a record: cleared before an answer is graded again. */
const GRADE_FIELDS = ['error', 'errorStage', 'exact', 'f1', 'judge', 'passed', 'attribution', 'tool', 'repeatedCalls', 'reask'] as const;

/**
 * A journaled answer whose grading did not finish (the judge failed, or the run stopped
 * before it judged) is graded again on the same answer, without asking the model again:
 * the answer was paid for, and a model that samples would give another one. The journal
 * holds the answer redacted, so a secret the answer quoted is graded as its mask.
 */
export async function regradeProbe(task: ProbeTask, answered: ProbeRecord, graders: Graders): Promise<ProbeRecord> {
  const record: ProbeRecord = { ...answered };
  for (const field of GRADE_FIELDS) delete record[field];
  await gradeAnswer(task, record, answered.answer ?? '', answered.toolCalls ?? [], graders);
  return record;
}

/** Grades an answer into `record` and places a miss (the strategy lost it, or the reader missed it). */
async function gradeAnswer(task: ProbeTask, record: ProbeRecord, answer: string, calls: ToolCall[], graders: Graders): Promise<void> {
  await grade(task, record, answer, calls, graders);
  noteContinuity(task, record, answer, calls);
  record.attribution = attribute({
    kind: record.kind,
    passed: record.passed === true,
    error: record.error,
    factsNeeded: record.factsNeeded,
    factsPresent: record.factsPresent,
    factsOpaque: record.factsOpaque,
    facts: task.transcript.facts,
    summaries: summariesInView(task.context),
    // A probe naming no facts is placed by where its evidence turns stood in the context sent.
    evidenceTurns: record.evidenceTurns,
    view: task.context,
  });
}

/**
 * A tool probe whose answer call failed still says what it expected: the
 * reports count it as a failed call and its expected arguments stay in the
 * argument-accuracy denominator (an error never leaves a rate). Graded as a
 * miss in every field, so a reader of the record never takes it for a pass.
 */
function ungradedToolCall(task: ProbeTask): ToolGrade | undefined {
  const { probe } = task.context;
  if (probe.kind !== 'tool' || probe.expectCall === undefined) return undefined;
  const argsExpected = probe.expectCall ? Object.keys(probe.expectCall.arguments).length : 0;
  const expected = probe.expectCall?.name ?? null;
  return { expected, called: null, rightTool: false, argsMatched: 0, argsExpected, exactCall: false, extraCalls: 0, mismatches: ['not graded: the answer call failed'] };
}

/** Sets exact, f1, judge and passed: an expected call is checked by rule, anything else by the answer judge. */
async function grade(task: ProbeTask, record: ProbeRecord, answer: string, calls: ToolCall[], graders: Graders): Promise<void> {
  const { probe } = task.context;
  if (probe.kind === 'tool' && probe.expectCall !== undefined) {
    record.tool = gradeToolCalls(probe.expectCall, calls);
    // A call where none was expected fails without asking the judge; so does any answer to an expected call.
    if (probe.expectCall !== null || calls.length > 0) {
      record.exact = record.tool.exactCall;
      record.judge = { verdict: record.tool.exactCall ? 'pass' : 'fail', reason: toolGradeReason(record.tool), model: TOOL_CHECK };
      record.passed = record.tool.exactCall;
      return;
    }
  }
  record.exact = exactPass(task, answer);
  record.f1 = tokenF1(answer, probe.answer);
  record.judge = await judge(task, answer, graders);
  record.passed = record.judge.verdict === 'pass';
  if (record.judge.verdict === 'error') {
    // The stage is in errorStage; the prefix keeps the message readable on its own.
    record.error = /^judge\b/i.test(record.judge.reason) ? record.judge.reason : `judge: ${record.judge.reason}`;
    record.errorStage = 'judge';
  }
}

/** The continuity counters: calls that repeat the conversation's own, and asking the user for what they said. */
function noteContinuity(task: ProbeTask, record: ProbeRecord, answer: string, calls: ToolCall[]): void {
  const { probe } = task.context;
  if (calls.length > 0) {
    const repeated = repeatedCalls(calls, callsUpTo(task.transcript.turns, probe.afterTurn), expectedCallMade(probe.expectCall, calls));
    if (repeated > 0) record.repeatedCalls = repeated;
  }
  // A re-ask: no call, a request for information, and the user had given a value the probe needs.
  // The cheap tests first: only an answer that asks the user anything is checked against what the user said.
  if (calls.length === 0 && asksUser(answer) && userGaveNeededValue(probe, task.transcript)) record.reask = true;
}

function summariesInView(context: ProbeContext): { coveredTurns: [number, number]; text: string }[] {
  if (context.summarizedTurns.length === 0) return [];
  const first = context.summarizedTurns[0];
  const last = context.summarizedTurns[context.summarizedTurns.length - 1];
  return context.summaryTexts.map((text) => ({ coveredTurns: [first, last], text }));
}
