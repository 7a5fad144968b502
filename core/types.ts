// The data model shared by every seam: transcripts in, records out.
// Data flows one way: dataset → strategy → model → grader → report.
import type { AgentInputItem } from '@openai/agents';
import type { z } from 'zod';
import type { gateSchema } from './schema/gate.js';
import type { maxErrorsSchema } from './schema/max-errors.js';
import { ATTRIBUTIONS, ERROR_STAGES, PROBE_KINDS } from './schema/run.js';
import type * as run from './schema/run.js';
import type * as transcript from './schema/transcript.js';
import type { ContextLookup } from './contexts.js';

export { ATTRIBUTIONS, ERROR_STAGES, PROBE_KINDS };

/** A job's key, as the run, its journal and a shard's `jobs` name it. */
export const jobKey = (strategy: string, transcript: string): string => `${strategy}::${transcript}`;

/**
 * The probe answers each job of a run owes: its transcript's probes × `repeat`, for every
 * strategy × transcript, or only a shard's jobs when the run is one. The run's verdict, the
 * rates of a finished run, a merge's checks and its verdict all count what is owed by it.
 */
export function answersPerJob(info: Pick<RunInfo, 'strategies' | 'transcripts' | 'repeat' | 'shard'>): Map<string, number> {
  const only = info.shard && new Set(info.shard.jobs);
  const out = new Map<string, number>();
  for (const { id: strategy } of info.strategies) {
    for (const t of info.transcripts) {
      const key = jobKey(strategy, t.id);
      if (!only || only.has(key)) out.set(key, t.probes * info.repeat);
    }
  }
  return out;
}

/** The judge model a tool probe's record names when its call was graded by rule (graders/tool-calls.ts), not by a judge. */
export const TOOL_CHECK = 'tool-check';

export type { AgentInputItem };

// A transcript as parsed and validated is defined by its schemas
// (core/schema/transcript.ts); the YAML readers of harness/schema/ produce
// values of these types.
/** Free-form user notes allowed under `meta:` anywhere in a transcript. */
export type Meta = z.output<typeof transcript.metaSchema>;
export type ToolCallSpec = z.output<typeof transcript.toolCallSpecSchema>;
export type ToolDefinition = z.output<typeof transcript.toolDefinitionSchema>;
export type ArgumentRule = z.output<typeof transcript.argumentRuleSchema>;
export type ExpectedCall = z.output<typeof transcript.expectedCallSchema>;
export type MessageTurn = z.output<typeof transcript.messageTurnSchema>;
export type ItemsTurn = z.output<typeof transcript.itemsTurnSchema>;
export type Turn = z.output<typeof transcript.turnSchema>;
export type Fact = z.output<typeof transcript.factSchema>;
export type ProbeKind = (typeof PROBE_KINDS)[number];
export type Probe = z.output<typeof transcript.probeSchema>;
export type Transcript = z.output<typeof transcript.transcriptSchema>;

// What a run records (run.json) is defined by its schemas (core/schema/run.ts),
// which reading a run.json checks; these are their types.
export type Usage = z.output<typeof run.usageSchema>;
/** One record per strategy × transcript × turn. */
export type TurnRecord = z.output<typeof run.turnRecordSchema>;
/** One record per summary a strategy produced. */
export type SummaryRecord = z.output<typeof run.summaryRecordSchema>;
export type SummaryRequest = z.output<typeof run.summaryRequestSchema>;
/** A summary as a replay made it (or a calibration set gives it): its request in hand, for the graders. */
export type MadeSummary = SummaryRecord & { request: SummaryRequest };
/** Deterministic checks every summary gets (no model needed). */
export type SummaryChecks = z.output<typeof run.summaryChecksSchema>;
/** One verdict of the summary judge (LLM or the documented offline rule). */
export type SummaryJudgement = z.output<typeof run.summaryJudgementSchema>;
/** How this summary differs from the previous one of the same strategy and transcript. */
export type SummaryDrift = z.output<typeof run.summaryDriftSchema>;
export type SummaryGrades = z.output<typeof run.summaryGradesSchema>;
/** A tool call a model made (name, JSON arguments as written). */
export type ToolCall = z.output<typeof run.toolCallSchema>;
/** How a `kind: tool` probe's answer was graded. */
export type ToolGrade = z.output<typeof run.toolGradeSchema>;
export type Attribution = (typeof ATTRIBUTIONS)[number];
/** One record per strategy × transcript × probe × repeat. */
export type ProbeRecord = z.output<typeof run.probeRecordSchema>;
export type ErrorStage = (typeof ERROR_STAGES)[number];
/** Errors of one stage: how many, out of how many attempts, and the first message as the server gave it. */
export type StageErrors = z.output<typeof run.stageErrorsSchema>;
/** Everything that makes a strategy's numbers what they are. */
export type StrategyFingerprint = z.output<typeof run.strategyFingerprintSchema>;
/** A configured strategy as it appears in reports. */
export type StrategyInfo = z.output<typeof run.strategyInfoSchema>;
/** Where a run's numbers came from. No key, no absolute local path. */
export type Provenance = z.output<typeof run.provenanceSchema>;
/** Everything needed to reproduce and label a run. */
export type RunInfo = z.output<typeof run.runInfoSchema>;
export type JudgeCalibration = z.output<typeof run.judgeCalibrationSchema>;
/**
 * A run as the reports read it: run.json's records, and the contexts its probe
 * records name by `contextRef` (contexts.jsonl), when they were read.
 */
export type RunResult = z.output<typeof run.runResultSchema> & { contexts?: ContextLookup };

/** A quality gate of the suite config (`gates:`), as the config loader checked it. */
export type GateConfig = z.output<typeof gateSchema>;

/**
 * How many errored items a run may have and still count as measured:
 * `count` errored items, or `percent` of the attempted items of any stage.
 * The default is `{ count: 0 }`: one error and the run is incomplete (exit 3).
 */
export type MaxErrors = z.output<typeof maxErrorsSchema>;
