// One interface for every model role (agent, judge, summarizer). Every call
// returns one uniform result; a failed call carries `error` and never throws.
import type { AgentInputItem, ToolCall, ToolDefinition, Usage } from './types.js';
import { redact } from './secrets.js';

/** A JSON schema the reply must follow (structured output). */
export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
}

export interface ModelRequest {
  /** System instructions, sent as the instructions / system message. */
  system?: string;
  input: AgentInputItem[];
  maxOutputTokens?: number;
  temperature?: number;
  responseFormat?: JsonSchemaFormat;
  /** Tools the model may call instead of answering (a transcript's `tools:`); absent or empty: none. */
  tools?: ToolDefinition[];
  /** What the call is for; the offline model behaves differently per role. */
  purpose: 'answer' | 'judge' | 'summary';
}

/**
 * Milliseconds since `started` (a `performance.now()` reading), to a hundredth:
 * the timer's further digits are noise, and seventeen of them were 13 bytes of
 * every record in run.json.
 */
export function msSince(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

export interface ModelResult {
  output: string;
  /** The provider's own token counts (counted with tiktoken for the offline model). */
  usage: Usage;
  /** USD, from the price table; undefined when the model has no price. */
  cost?: number;
  /** Served from the cache (no call was made). */
  cached: boolean;
  latencyMs: number;
  /** The tool calls the model made, in order (absent or empty: none); `output` holds any text beside them. */
  toolCalls?: ToolCall[];
  /** Set when the call failed after all retries; `output` is then empty. */
  error?: string;
  /**
   * The provider reported no usable token counts (none, or not whole numbers of zero or
   * more): `usage` then reads 0 and `cost` is unknown, never a measured 0.
   */
  usageUnknown?: true;
}

/** What a call's `usage` and `cost` are when its reply did or did not report usable usage. */
export function accounting(usage: Usage | undefined, cost: (usage: Usage) => number | undefined): Pick<ModelResult, 'usage' | 'cost' | 'usageUnknown'> {
  if (!usage) return { usage: { inputTokens: 0, outputTokens: 0 }, cost: undefined, usageUnknown: true };
  return { usage, cost: cost(usage) };
}

/** A token count a reply reports: a whole number of zero or more, else undefined (not reported usably). */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export interface Model {
  /** Stable name used in reports and cache keys, e.g. `offline`, `openai:gpt-4.1-mini`. */
  readonly id: string;
  /** Request parameters that change the answer (part of the cache key). */
  readonly params: Record<string, unknown>;
  complete(request: ModelRequest): Promise<ModelResult>;
  /**
   * A view of this model whose calls are cached apart per sample (models
   * behind the call cache have it), so N samples are N answers, not one.
   */
  sample?(sample: number): Model;
  /**
   * Drops the stored reply to `request` (models behind the call cache have it): a caller that
   * found the reply unusable (a judge reply that does not match its schema) says so, and a
   * rerun or `--resume` asks again instead of reading the same unusable reply back.
   */
  forget?(request: ModelRequest): Promise<void>;
}

/**
 * The model to use for repeat `repeat` (0-based) of a probe or judgement:
 * repeats after the first are cached apart, so `repeat: N` measures N answers,
 * not one answer N times. A model without a cache has nothing to keep apart.
 */
export function modelForRepeat(model: Model, repeat: number): Model {
  return model.sample ? model.sample(repeat) : model;
}

/**
 * Models promise never to throw; this keeps the promise for one that does (a bug in it): the
 * throw becomes the call's error, redacted like any other, labelled with the model when given.
 */
export function thrownResult(error: unknown, latencyMs = 0, modelId?: string): ModelResult {
  const message = error instanceof Error ? error.message : String(error);
  return { output: '', usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs, error: redact(modelId ? `${modelId} threw: ${message}` : message) };
}
