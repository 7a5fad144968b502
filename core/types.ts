// The data model shared by every seam: transcripts in, records out.
// Data flows one way: dataset → strategy → model → grader → report.
import type { AgentInputItem } from '@openai/agents';
import type { z } from 'zod';
import type { gateSchema } from './schema/gate.js';
import { ATTRIBUTIONS, ERROR_STAGES, PROBE_KINDS } from './schema/run.js';
import type * as run from './schema/run.js';

export { ATTRIBUTIONS, ERROR_STAGES, PROBE_KINDS };

export type { AgentInputItem };

/** Free-form user notes allowed under `meta:` anywhere in a transcript. */
export type Meta = Record<string, unknown>;

export interface ToolCallSpec {
  name: string;
  /** Arguments as the transcript wrote them; sent to the model as a JSON string. */
  arguments: Record<string, unknown> | string;
  output: string;
}

export interface MessageTurn {
  kind: 'message';
  user: string;
  assistant?: string;
  toolCalls: ToolCallSpec[];
  at?: string;
  meta?: Meta;
}

export interface ItemsTurn {
  kind: 'items';
  /** Raw Agents SDK input items, verbatim from the transcript. */
  items: AgentInputItem[];
  meta?: Meta;
}

export type Turn = MessageTurn | ItemsTurn;

export interface Fact {
  id: string;
  text: string;
  aliases: string[];
  /** 1-based turn where the fact is first stated. */
  turn: number;
  critical: boolean;
  supersededBy?: string;
  meta?: Meta;
}

export type ProbeKind = (typeof PROBE_KINDS)[number];

export interface Probe {
  id: string;
  /** 1-based: the probe is asked after this turn was replayed. */
  afterTurn: number;
  question: string;
  answer: string;
  /** Every entry must appear in the reply; an entry lists alternatives (any of). */
  mustInclude: string[][];
  facts: string[];
  kind: ProbeKind;
  meta?: Meta;
}

export interface Transcript {
  id: string;
  title?: string;
  tags: string[];
  system?: string;
  turns: Turn[];
  facts: Fact[];
  probes: Probe[];
  /** Path the transcript was loaded from (for error messages and reports). */
  file: string;
  meta?: Meta;
}

// What a run records (run.json) is defined by its schemas (core/schema/run.ts),
// which reading a run.json checks; these are their types.
export type Usage = z.output<typeof run.usageSchema>;
/** One record per strategy × transcript × turn. */
export type TurnRecord = z.output<typeof run.turnRecordSchema>;
/** One record per summary a strategy produced. */
export type SummaryRecord = z.output<typeof run.summaryRecordSchema>;
/** Deterministic checks every summary gets (no model needed). */
export type SummaryChecks = z.output<typeof run.summaryChecksSchema>;
/** One verdict of the summary judge (LLM or the documented offline rule). */
export type SummaryJudgement = z.output<typeof run.summaryJudgementSchema>;
/** How this summary differs from the previous one of the same strategy and transcript. */
export type SummaryDrift = z.output<typeof run.summaryDriftSchema>;
export type SummaryGrades = z.output<typeof run.summaryGradesSchema>;
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
export type RunResult = z.output<typeof run.runResultSchema>;

/** A quality gate of the suite config (`gates:`), as the config loader checked it. */
export type GateConfig = z.output<typeof gateSchema>;

/**
 * How many errored items a run may have and still count as measured:
 * `count` errored items, or `percent` of the attempted items of any stage.
 * The default is `{ count: 0 }`: one error and the run is incomplete (exit 3).
 */
export type MaxErrors = { kind: 'count'; value: number } | { kind: 'percent'; value: number };
