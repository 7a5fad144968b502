// Registers every built-in strategy (importing this module has that effect)
// and re-exports the classes.
import { fullHistory } from './full-history.js';
import { getStrategy, registerStrategy, type StrategyDefinition } from './registry.js';
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
];

for (const def of BUILTIN_STRATEGIES) {
  if (!getStrategy(def.use)) registerStrategy(def);
}

export { FullHistoryStrategy, fullHistory } from './full-history.js';
export { TrimmingStrategy, trimming, lastTurnsStart } from './trimming.js';
export { SummarizingStrategy, summarizing, type HistoryRecord, type RecordMetadata } from './summarizing.js';
export { TokenBudgetStrategy, tokenBudget, budgetOf, type TokenBudgetSettings } from './token-budget.js';
export { SlidingWindowStrategy, slidingWindow } from './sliding-window.js';
export { SoftLimitCompactionStrategy, softLimitCompaction, COMPACT_HEADER } from './soft-limit-compaction.js';
export { OfflineSummarizer, SUMMARY_HEADINGS, extractiveSummary, scoreSentence, sectionFor } from './offline-summarizer.js';
export { SUMMARY_SHADOW, buildSummaryInput, loadSummaryPrompt, summarizerOptionsOf } from './summary-input.js';
