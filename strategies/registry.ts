// Strategies register by their `use:` name with a typed option schema, so the
// config loader can reject a bad option with its file:line:col.
import type OpenAI from 'openai';
import type { TokenCounter } from '../core/tokens.js';
import type { Usage } from '../core/types.js';
import type { MemoryStrategy, ProtectPredicate, Summarizer } from './base.js';

/** The `summarizer:` block of a strategy's config. */
export interface SummarizerOptions {
  /** `offline` or a model name such as `openai:gpt-4.1-mini`. */
  model: string;
  /** Path of the summary prompt file (already resolved against the config file). */
  prompt?: string;
  max_tokens: number;
  tool_trim_limit: number;
  /** Word limit for the summary (the default prompt asks for ≤ 200 words). */
  word_limit: number;
}

export const DEFAULT_SUMMARIZER: SummarizerOptions = {
  model: 'offline',
  max_tokens: 400,
  tool_trim_limit: 600,
  word_limit: 200,
};

/** How one server call of a strategy ended; a failure carries the final, redacted message. */
export type ServerCallOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** An OpenAI-compatible model a strategy calls itself (`openai-compaction`), as the run set it up. */
export interface ServerModel {
  /** The model spec as configured, e.g. `local:gpt-4.1-mini`. */
  spec: string;
  /** The name the server knows, e.g. `gpt-4.1-mini`. */
  name: string;
  /** The run's `openai` client for the model (built on first use). */
  client(): Promise<OpenAI>;
  /** Runs one call under the run's retries, circuit breaker and concurrency limit, and counts it. Never throws. */
  call<T>(fn: () => Promise<T>): Promise<ServerCallOutcome<T>>;
  /** USD of a call with this usage at the run's price table; undefined when the model has no price. */
  cost(usage: Usage): number | undefined;
}

/** An OpenAI-compatible embeddings model (`retrieval`'s `embedding_model`), as the run set it up. */
export interface Embedder {
  /** The model spec as configured, e.g. `openai:text-embedding-3-small`. */
  readonly spec: string;
  /**
   * One vector per text, in order: from the run's cache where it holds them, the rest in one
   * request under the run's retries, breaker and concurrency limit. Never throws.
   */
  embed(texts: readonly string[]): Promise<ServerCallOutcome<number[][]>>;
}

/** What the harness hands a strategy when it builds one for a transcript. */
export interface StrategyContext {
  counter: TokenCounter;
  /** Agent instructions (the transcript's `system`), counted by token-based strategies. */
  instructions?: string;
  /** Items that must survive any trimming (they state a critical fact). */
  protect?: ProtectPredicate;
  makeSummarizer(options: SummarizerOptions): Summarizer;
  /** The model of a `type: 'model'` option; absent where nothing may call a server (benchmarks). */
  serverCompaction?(spec: string): ServerModel;
  /** The embedder of a `type: 'embedding-model'` option; absent where nothing may call a server (benchmarks). */
  embedder?(spec: string): Embedder;
}

/**
 * `model`: a model the strategy calls itself through the Responses API (`offline` or `<provider>:<name>`),
 * checked against the config's providers: never one of a provider set to `api: chat`.
 * `embedding-model`: the same, but `offline` is refused (no local model embeds).
 * `string-list`: a list of non-empty texts (e.g. tool names); it never sweeps.
 */
export type OptionType = 'int' | 'number' | 'boolean' | 'string' | 'string-list' | 'model' | 'embedding-model' | 'summarizer';

export interface OptionSpec {
  type: OptionType;
  required?: boolean;
  min?: number;
  max?: number;
  default?: number | boolean | string;
  /** A `string` option's allowed values; anything else is refused at the option. */
  values?: readonly [string, ...string[]];
  doc: string;
  /**
   * False for a number whose larger values are the cheaper ones (a margin held
   * back): a sweep's knee is its smallest setting within the best accuracy's
   * CI, which assumes smaller is cheaper, so such an option takes no list.
   */
  sweep?: false;
}

export type StrategyOptions = Record<string, number | boolean | string | string[] | SummarizerOptions | undefined>;

export interface StrategyDefinition {
  use: string;
  doc: string;
  options: Record<string, OptionSpec>;
  /** Cross-option checks (e.g. keep_last_n_turns ≤ context_limit); returns problems. */
  check?(options: StrategyOptions): string[];
  create(options: StrategyOptions, ctx: StrategyContext): MemoryStrategy;
}

/**
 * The strategies a config may name, fixed when built: config parsing and runs
 * take one explicitly, so nothing depends on what some import registered.
 */
export class StrategyRegistry {
  private readonly byUse = new Map<string, StrategyDefinition>();

  constructor(definitions: readonly StrategyDefinition[]) {
    for (const def of definitions) {
      // Checked at load: two definitions under one name would make configs ambiguous.
      if (this.byUse.has(def.use)) throw new Error(`strategy "${def.use}" is registered twice`);
      this.byUse.set(def.use, def);
    }
  }

  get(use: string): StrategyDefinition | undefined {
    return this.byUse.get(use);
  }

  names(): string[] {
    return [...this.byUse.keys()].sort();
  }

  /** This registry plus `more` (a project's own strategies beside the built-in ones). */
  with(more: readonly StrategyDefinition[]): StrategyRegistry {
    return new StrategyRegistry([...this.byUse.values(), ...more]);
  }
}

/** Reads a numeric option that the schema has already validated. */
export function num(options: StrategyOptions, key: string): number {
  const value = options[key];
  if (typeof value !== 'number') throw new Error(`option ${key} is not a number`);
  return value;
}

export function optionalNum(options: StrategyOptions, key: string): number | undefined {
  const value = options[key];
  return typeof value === 'number' ? value : undefined;
}

/** Reads a `string-list` option that the schema has already validated; empty when it was left out. */
export function strings(options: StrategyOptions, key: string): string[] {
  const value = options[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`option ${key} is not a list`);
  return value;
}
