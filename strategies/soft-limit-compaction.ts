// Soft-limit compaction, as agent tool loops do it (the tool runner of
// Anthropic's TypeScript SDK, `compactionControl.contextTokenThreshold`, fires
// once the tokens reach the threshold and swaps the whole message list for one
// user message holding a summary): once the prompt (instructions + view)
// reaches `max_prompt_tokens`, the whole history so far is replaced by
// ONE user message carrying a summary; later turns append after it, and the
// next time the limit is reached the summary message and everything newer are
// compacted again. The summary is a plain user message, not an SDK
// `compaction` item, because the runner drops everything before those.
import { dropOrphanToolItems, sentItems, userMessage } from '../core/items.js';
import { msSince } from '../core/model.js';
import type { TokenCounter } from '../core/tokens.js';
import type { AgentInputItem } from '../core/types.js';
import { failedSummary, MemoryStrategy, type Summarizer, type SummaryOutput } from './base.js';
import { num, type StrategyDefinition } from './registry.js';
import { SUMMARY_SHADOW, summarizerOptionsOf } from './summary-input.js';

/** First line of the compact-history message; the summary follows on the next line. */
export const COMPACT_HEADER = 'Summary of the conversation so far:';

interface Compacted {
  message: AgentInputItem;
  /** Full-history index of the first item after the compacted range. */
  upTo: number;
}

export class SoftLimitCompactionStrategy extends MemoryStrategy {
  readonly maxPromptTokens: number;
  private readonly summarizer: Summarizer;
  private readonly counter: TokenCounter;
  private readonly instructions: string | undefined;
  private compacted: Compacted | undefined;
  /** Bumped by pop and clear, so a summary finished after either is discarded. */
  private generation = 0;
  /** One compaction at a time; a later add re-checks after the running one. */
  private pending: Promise<void> = Promise.resolve();

  constructor(
    maxPromptTokens: number,
    summarizer: Summarizer,
    ctx: { counter: TokenCounter; instructions?: string },
    sessionId?: string,
  ) {
    super(sessionId);
    this.maxPromptTokens = maxPromptTokens;
    this.summarizer = summarizer;
    this.counter = ctx.counter;
    this.instructions = ctx.instructions;
  }

  protected view(): AgentInputItem[] {
    if (!this.compacted) return dropOrphanToolItems([...this.history]);
    return dropOrphanToolItems([this.compacted.message, ...this.history.slice(this.compacted.upTo)]);
  }

  protected override afterAdd(): Promise<void> {
    const next = this.pending.then(() => this.compactIfNeeded());
    this.pending = next.catch(() => undefined);
    return next;
  }

  private async compactIfNeeded(): Promise<void> {
    const items = this.view();
    // Measured as sent: reasoning items are in the view's history but no request carries them.
    if (this.counter.request(this.instructions, sentItems(items)) < this.maxPromptTokens) return;
    const upTo = this.history.length;
    const generation = this.generation;
    if (upTo === (this.compacted?.upTo ?? 0)) return;
    const started = performance.now();
    let output: SummaryOutput;
    try {
      output = await this.summarizer.summarize(items);
    } catch (err) {
      // The view stays as it was: a failed summary must never lose items.
      this.events.push(failedSummary(upTo - 1, err, msSince(started), SUMMARY_SHADOW));
      return;
    }
    // A clear or pop while the summarizer ran makes this summary stale.
    if (generation !== this.generation) return;
    this.compacted = { message: userMessage(`${COMPACT_HEADER}\n${output.summary}`), upTo };
    this.events.push({ firstItem: 0, lastItem: upTo - 1, output });
  }

  override async popItem(): Promise<AgentInputItem | undefined> {
    const item = await super.popItem();
    this.generation += 1;
    // Popping into the compacted range drops the summary, never an item.
    if (this.compacted && this.history.length < this.compacted.upTo) this.compacted = undefined;
    return item;
  }

  override async clearSession(): Promise<void> {
    await super.clearSession();
    this.compacted = undefined;
    this.generation += 1;
  }
}

export const softLimitCompaction: StrategyDefinition = {
  use: 'soft-limit-compaction',
  doc: 'When instructions + view reach max_prompt_tokens, replaces everything so far with one user message holding a summary; repeats on the summary plus newer turns.',
  options: {
    max_prompt_tokens: { type: 'int', required: true, min: 1, doc: 'Soft limit on the prompt (instructions + view) in tokens.' },
    summarizer: { type: 'summarizer', doc: 'Summarizer (offline extractive or a model) and its prompt.' },
  },
  create: (options, ctx) =>
    new SoftLimitCompactionStrategy(
      num(options, 'max_prompt_tokens'),
      ctx.makeSummarizer(summarizerOptionsOf(options)),
      ctx,
    ),
};
