// The built-in strategies as one static registry, and the classes for use in
// production code (`import { SummarizingStrategy } from 'memeval/strategies'`).
import { fullHistory } from './full-history.js';
import { observationMasking } from './observation-masking.js';
import { openaiCompaction } from './openai-compaction.js';
import { StrategyRegistry, type StrategyDefinition } from './registry.js';
import { retrieval } from './retrieval.js';
import { slidingWindow } from './sliding-window.js';
import { softLimitCompaction } from './soft-limit-compaction.js';
import { summarizing } from './summarizing.js';
import { tokenBudget } from './token-budget.js';
import { trimming } from './trimming.js';

export const BUILTIN_STRATEGIES: readonly StrategyDefinition[] = [
  fullHistory,
  trimming,
  summarizing,
  tokenBudget,
  slidingWindow,
  softLimitCompaction,
  retrieval,
  openaiCompaction,
  observationMasking,
];

/** What a config's `use:` may name, unless a caller passes its own registry. */
export const STRATEGIES = new StrategyRegistry(BUILTIN_STRATEGIES);

export { StrategyRegistry, DEFAULT_SUMMARIZER, type StrategyDefinition, type StrategyOptions, type SummarizerOptions, type ServerModel, type ServerCallOutcome } from './registry.js';
export { MemoryStrategy, type OpaqueSpan, type Summarizer, type SummaryEvent, type SummaryOutput, type ViewChange } from './base.js';
export { LlmSummarizer, fromSdkModel, SDK_MODEL_LABEL, type LlmSummarizerOptions } from './llm-summarizer.js';
export type { Model, ModelRequest, ModelResult } from '../core/model.js';

export { FullHistoryStrategy, fullHistory } from './full-history.js';
export { TrimmingStrategy, trimming, lastTurnsStart } from './trimming.js';
export { SummarizingStrategy, summarizing, type HistoryRecord, type RecordMetadata } from './summarizing.js';
export { TokenBudgetStrategy, tokenBudget, budgetOf, type TokenBudgetSettings } from './token-budget.js';
export { SlidingWindowStrategy, slidingWindow } from './sliding-window.js';
export { SoftLimitCompactionStrategy, softLimitCompaction, COMPACT_HEADER } from './soft-limit-compaction.js';
export { RetrievalStrategy, retrieval, retrievalTerms, RECALL_HEADER, RECALL_END, type RetrievalSettings } from './retrieval.js';
export { ObservationMaskingStrategy, observationMasking, compactArguments, maskedText } from './observation-masking.js';
export { OpenAICompactionStrategy, openaiCompaction, sdkCompactionName, type CompactionTrigger } from './openai-compaction.js';
export { OfflineSummarizer, SUMMARY_HEADINGS, extractiveSummary, scoreSentence, sectionFor } from './offline-summarizer.js';
export { SUMMARY_SHADOW, buildSummaryInput, loadSummaryPrompt, summarizerOptionsOf } from './summary-input.js';
