// The data model shared by every seam: transcripts in, records out.
// Data flows one way: dataset → strategy → model → grader → report.
import type { AgentInputItem } from '@openai/agents';

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

export const PROBE_KINDS = ['recall', 'update', 'temporal', 'multi-hop', 'abstention'] as const;
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

/** Token usage as reported by a provider (or counted, for the offline model). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** One record per strategy × transcript × turn. */
export interface TurnRecord {
  strategy: string;
  transcript: string;
  turn: number;
  /** Tokens the full history would cost at this turn (instructions + every item). */
  fullTokens: number;
  /** Tokens of what the strategy would send at this turn. */
  contextTokens: number;
  items: number;
  factsPresent: string[];
  factsMissing: string[];
  /** Critical facts stated by now that are absent from the context. */
  criticalDropped: string[];
  /** Summarisation events that happened while this turn was added. */
  summaries: number;
}

/** One record per summary a strategy produced. */
export interface SummaryRecord {
  strategy: string;
  transcript: string;
  /** The turn whose addition triggered the summary. */
  turn: number;
  /** 1-based inclusive range of real turns the summary replaced. */
  coveredTurns: [number, number];
  /** Which summary of this strategy/transcript this is (1-based). */
  index: number;
  summarizer: string;
  promptPath?: string;
  promptHash?: string;
  /** Exact request the summarizer sent (system prompt and user content). */
  request: { system: string; user: string };
  text: string;
  usage: Usage;
  durationMs: number;
  error?: string;
  /** Filled by summary graders. */
  grades?: SummaryGrades;
}

/** Deterministic checks every summary gets (no model needed). */
export interface SummaryChecks {
  /** Share (0–1) of the facts stated in the covered turns that the summary keeps; 1 when none were due. */
  factCoverage: number;
  factsKept: string[];
  factsMissing: string[];
  /** Identifiers, numbers or codes in the summary that never appear in the source. */
  unsupported: string[];
  words: number;
  wordLimit: number;
  overLimit: boolean;
  headingsMissing: string[];
  /** Superseded facts stated without their update. */
  staleFacts: string[];
}

/** One verdict of the summary judge (LLM or the documented offline rule). */
export interface SummaryJudgement {
  model: string;
  /** 0–1: share of the fixed yes/no coverage questions answered yes. */
  coverage: number;
  /** 0–1: share of summary claims supported by the source. */
  faithfulness: number;
  /** 0–1 */
  temporal: number;
  /** 0–1 */
  format: number;
  /** 1–5 */
  overall: number;
  /** min(coverage, faithfulness), as DeepEval's summarization metric. */
  score: number;
  invented: string[];
  reasons: Record<string, string>;
  /** Set when the judge failed; the numbers are then 0 and must not count as a pass. */
  error?: string;
}

/** How this summary differs from the previous one of the same strategy and transcript. */
export interface SummaryDrift {
  lost: string[];
  changed: string[];
  /** An updated fact that went back to its superseded value (context poisoning). */
  reverted: string[];
}

export interface SummaryGrades {
  checks: SummaryChecks;
  judge?: SummaryJudgement;
  drift?: SummaryDrift;
}

export type Attribution = 'trimmed' | 'lost-in-summary' | 'present-but-missed' | 'abstain-fail' | 'error';

/** One record per strategy × transcript × probe × repeat. */
export interface ProbeRecord {
  strategy: string;
  transcript: string;
  probe: string;
  kind: ProbeKind;
  afterTurn: number;
  repeat: number;
  question: string;
  reference: string;
  contextTokens: number;
  contextItems: number;
  factsNeeded: string[];
  factsPresent: string[];
  factsMissing: string[];
  /** The model that answered (e.g. `offline`, `openai:gpt-4.1-mini`). */
  model?: string;
  answer?: string;
  exact?: boolean;
  f1?: number;
  judge?: { verdict: 'pass' | 'fail' | 'error'; reason: string; model: string };
  passed?: boolean;
  attribution?: Attribution;
  usage?: Usage;
  /** tiktoken count of the whole request (instructions, context, question), beside the API's `usage.inputTokens`. */
  countedInputTokens?: number;
  cost?: number;
  latencyMs?: number;
  cached?: boolean;
  error?: string;
  /** Which call failed when `error` is set: the answering model, or the judge grading the answer. */
  errorStage?: 'answer' | 'judge';
  /** The exact context sent with the question (instructions and messages as text), for the failures view. */
  context?: { role: string; text: string }[];
}

/** The four places a run can fail to measure; every report counts errors per stage. */
export const ERROR_STAGES = ['answer', 'answer-judge', 'summarizer', 'summary-judge'] as const;
export type ErrorStage = (typeof ERROR_STAGES)[number];

/** Errors of one stage: how many, out of how many attempts, and the first message as the server gave it. */
export interface StageErrors {
  stage: ErrorStage;
  errors: number;
  attempted: number;
  firstError?: string;
}

/**
 * Everything that makes a strategy's numbers what they are. Two runs whose
 * fingerprints differ for a strategy id are not measuring the same thing,
 * and the diff says so field by field.
 */
export interface StrategyFingerprint {
  use: string;
  /** Resolved options (defaults filled in), summarizer block included. */
  options: Record<string, unknown>;
  /** Summarizer model spec, for strategies that summarise. */
  summarizer?: string;
  /** Summary prompt: path relative to the config, sha256, and the text (so a diff can show the change). */
  prompt?: { path: string; hash: string; text: string };
  /** The model that answered probes, the judge, and where they were served from (public URL, never a key). */
  answerModel: string;
  judge: string;
  endpoint?: string;
  agent: 'direct' | 'runner';
}

/** A configured strategy as it appears in reports. */
export interface StrategyInfo {
  id: string;
  use: string;
  options: Record<string, unknown>;
  /** Absent in runs made before fingerprints were recorded. */
  fingerprint?: StrategyFingerprint;
}

/** Where a run's numbers came from. No key, no absolute local path. */
export interface Provenance {
  /** Model spec → public base URL it was called at (`offline` has none). */
  endpoints: Record<string, string>;
  answerModel: string;
  judge: string;
  summarizers: string[];
  agent: 'direct' | 'runner';
  memevalVersion: string;
  gitSha?: string;
}

/** Everything needed to reproduce and label a run. */
export interface RunInfo {
  runId: string;
  /**
   * `running` while journaling; `interrupted` after Ctrl-C (resumable);
   * `complete` when every item was measured within `max_errors`;
   * `incomplete` when it finished with more errors than `max_errors` allows;
   * `failed` when it stopped early on an error retries cannot fix (bad key,
   * unknown model, nothing listening). Only `complete` runs can pass a gate.
   */
  status: 'running' | 'interrupted' | 'complete' | 'incomplete' | 'failed';
  /** Why the run is `incomplete` or `failed`: stage, count and the first error as the server gave it. */
  failure?: string;
  /** Errors per stage, counted over every attempted item. */
  errors?: StageErrors[];
  provenance?: Provenance;
  startedAt: string;
  finishedAt?: string;
  memevalVersion: string;
  /** Model calls made, served from cache, and shared by in-flight dedup. */
  calls?: { made: number; cacheHits: number; dedupHits: number; errors: number };
  node: string;
  packages: Record<string, string>;
  gitSha?: string;
  /** The agent model that answered probes (`offline` is the built-in reader, not an LLM). */
  model: string;
  judge: string;
  /** The judge's agreement with human labels (`memeval calibrate`), when on record. */
  judgeCalibration?: JudgeCalibration;
  repeat: number;
  baseline?: string;
  configFile?: string;
  /** The resolved config, with secrets removed. */
  config: Record<string, unknown>;
  strategies: StrategyInfo[];
  transcripts: { id: string; file: string; title?: string; tags: string[]; turns: number; probes: number }[];
}

export interface JudgeCalibration {
  createdAt: string;
  items: number;
  /** Per criterion: agreement with the human labels and Cohen's kappa with its 95% CI. */
  criteria: { criterion: string; accuracy: number | null; kappa: number | null; ci: [number, number] | null }[];
}

export interface RunResult {
  info: RunInfo;
  turns: TurnRecord[];
  probes: ProbeRecord[];
  summaries: SummaryRecord[];
}

/** A quality gate of the suite config (`gates:`), as the config loader checked it. */
export interface GateConfig {
  metric: string;
  strategy: string;
  min?: number;
  max?: number;
  max_drop?: number;
  vs?: 'baseline-run' | 'baseline-strategy';
  significant?: boolean;
  /**
   * An optional gate that cannot be evaluated (no baseline, no data, only
   * errored data) is reported as skipped; any other gate fails then.
   */
  optional?: boolean;
  /** `file:line:col` of the gate, for messages. */
  where: string;
}

/**
 * How many errored items a run may have and still count as measured:
 * `count` errored items, or `percent` of the attempted items of any stage.
 * The default is `{ count: 0 }`: one error and the run is incomplete (exit 3).
 */
export type MaxErrors = { kind: 'count'; value: number } | { kind: 'percent'; value: number };
