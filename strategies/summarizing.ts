// The cookbook's SummarizingSession: once the conversation has more than
// `context_limit` real user turns, everything before the last
// `keep_last_n_turns` turns becomes one synthetic user→assistant pair.
import { dropOrphanToolItems, isUserMessage } from '../core/items.js';
import type { AgentInputItem } from '../core/types.js';
import { failedSummary, MemoryStrategy, type Summarizer, type SummaryOutput } from './base.js';
import { num, type StrategyDefinition } from './registry.js';
import { SUMMARY_SHADOW, summarizerOptionsOf } from './summary-input.js';
import { msSince } from '../core/model.js';
import { lowerBound } from '../core/text.js';

export type RecordMetadata = Record<string, unknown> & { synthetic: boolean };

/** One entry of `getFullHistory()`: what the model is sent, and what it never sees. */
export interface HistoryRecord {
  message: AgentInputItem;
  metadata: RecordMetadata;
}

interface ActiveSummary {
  shadow: HistoryRecord;
  summary: HistoryRecord;
  /** Full-history index where the verbatim part starts. */
  upTo: number;
}

/** Runs critical sections one after another (a promise-chain mutex). */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.tail.then(fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

function splitMetadata(item: AgentInputItem): { message: AgentInputItem; extra: Record<string, unknown> } {
  const rec = item as unknown as Record<string, unknown>;
  if (!Object.hasOwn(rec, 'metadata')) return { message: item, extra: {} };
  // Metadata is bookkeeping: it must never reach the model.
  const { metadata, ...rest } = rec;
  const extra = typeof metadata === 'object' && metadata !== null ? { ...(metadata as Record<string, unknown>) } : {};
  return { message: rest as unknown as AgentInputItem, extra };
}

export class SummarizingStrategy extends MemoryStrategy {
  readonly contextLimit: number;
  readonly keepLastNTurns: number;
  private readonly summarizer: Summarizer;
  /** Metadata of each full-history item (same index). */
  private meta: RecordMetadata[] = [];
  private active: ActiveSummary | undefined;
  private readonly lock = new Mutex();
  /** Serialises summarisation passes; each `addItems` queues one. */
  private passes: Promise<void> = Promise.resolve();
  /** Bumped whenever the records change other than by appending (pop, clear, summary). */
  private generation = 0;
  /**
   * Full-history indices of the real (not synthetic) user messages, ascending, kept as
   * items arrive and go: finding the turns to keep and counting the turns a summary
   * covers would otherwise scan the history on every add and every summary.
   */
  private userStarts: number[] = [];

  constructor(contextLimit: number, keepLastNTurns: number, summarizer: Summarizer, sessionId?: string) {
    super(sessionId);
    if (contextLimit < 1) throw new Error('context_limit must be at least 1');
    if (keepLastNTurns < 0 || keepLastNTurns > contextLimit) {
      throw new Error('keep_last_n_turns must be between 0 and context_limit');
    }
    this.contextLimit = contextLimit;
    this.keepLastNTurns = keepLastNTurns;
    this.summarizer = summarizer;
  }

  /** The records in order: the synthetic pair (if any), then the verbatim items. */
  private records(): HistoryRecord[] {
    const start = this.active?.upTo ?? 0;
    const verbatim = this.history.slice(start).map((message, i) => ({ message, metadata: this.meta[start + i] }));
    return this.active ? [this.active.shadow, this.active.summary, ...verbatim] : verbatim;
  }

  protected view(): AgentInputItem[] {
    return dropOrphanToolItems(this.records().map((r) => r.message));
  }

  /** Records with their metadata, for reports and debugging; never sent to the model. */
  getFullHistory(): { message: AgentInputItem; metadata: RecordMetadata }[] {
    return this.records().map((r) => ({ message: r.message, metadata: { ...r.metadata } }));
  }

  override async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.lock.run(() => {
      for (const item of items) {
        const { message, extra } = splitMetadata(item);
        const synthetic = extra.synthetic === true;
        if (isUserMessage(message) && !synthetic) this.userStarts.push(this.history.length);
        this.history.push(message);
        this.meta.push({ ...extra, synthetic });
      }
    });
    const pass = this.passes.then(() => this.summarizeWhileNeeded());
    this.passes = pass.catch(() => undefined);
    await pass;
  }

  override async popItem(): Promise<AgentInputItem | undefined> {
    return this.lock.run(() => {
      const item = this.history.pop();
      this.meta.pop();
      if (this.userStarts[this.userStarts.length - 1] === this.history.length) this.userStarts.pop();
      // Popping into the summarised range drops the summary rather than any item;
      // the remaining history is verbatim again and is re-summarised on the next add.
      if (this.active && this.history.length < this.active.upTo) {
        this.active = undefined;
        this.generation += 1;
      }
      return item;
    });
  }

  override async clearSession(): Promise<void> {
    await this.lock.run(async () => {
      await super.clearSession();
      this.meta = [];
      this.userStarts = [];
      this.active = undefined;
      this.generation += 1;
    });
  }

  /**
   * Full-history index before which everything is summarised, or undefined when
   * the real user turns in the records do not exceed `context_limit`.
   */
  private boundary(): number | undefined {
    const start = this.active?.upTo ?? 0;
    const starts = this.userStarts;
    // Real user turns from `start` on (every real user message before it is summarised).
    if (starts.length - lowerBound(starts, start) <= this.contextLimit) return undefined;
    if (this.keepLastNTurns === 0) return this.history.length;
    const cut = starts[starts.length - this.keepLastNTurns];
    // Nothing before the kept turns (and no earlier summary) means nothing to summarise.
    if (cut <= 0) return undefined;
    return cut;
  }

  private async summarizeWhileNeeded(): Promise<void> {
    for (;;) {
      const plan = await this.lock.run(() => {
        const cut = this.boundary();
        if (cut === undefined) return undefined;
        const prefix = this.records().slice(0, (this.active ? 2 : 0) + cut - (this.active?.upTo ?? 0));
        return { cut, prefix: prefix.map((r) => r.message), generation: this.generation };
      });
      if (!plan) return;
      // The lock is released while the summarizer runs, so items can keep arriving.
      const started = performance.now();
      let output: SummaryOutput;
      try {
        output = await this.summarizer.summarize(plan.prefix);
      } catch (err) {
        // The view stays unsummarised: a failed summary must never lose items.
        this.events.push(failedSummary(plan.cut - 1, err, msSince(started), SUMMARY_SHADOW));
        return;
      }
      const applied = await this.lock.run(() => this.apply(plan.cut, plan.generation, output));
      if (!applied) continue;
    }
  }

  /**
   * Applies a summary of everything before `cut`, unless the records changed
   * under it (pop, clear). Items that arrived meanwhile stay verbatim after it;
   * the next round of the loop decides whether they need summarising too.
   */
  private apply(cut: number, generation: number, output: SummaryOutput): boolean {
    if (generation !== this.generation || cut > this.history.length) return false;
    const turns = lowerBound(this.userStarts, cut);
    const covers = { summary_for_turns: [1, turns] };
    this.active = {
      shadow: {
        message: { type: 'message', role: 'user', content: output.userShadow || SUMMARY_SHADOW },
        metadata: { synthetic: true, kind: 'history_summary_prompt', ...covers },
      },
      summary: {
        message: {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: output.summary }],
        },
        metadata: { synthetic: true, kind: 'history_summary', ...covers },
      },
      upTo: cut,
    };
    this.generation += 1;
    this.events.push({ firstItem: 0, lastItem: cut - 1, output });
    return true;
  }
}

export const summarizing: StrategyDefinition = {
  use: 'summarizing',
  doc: 'The cookbook SummarizingSession: over context_limit real user turns, everything before the last keep_last_n_turns turns becomes a synthetic user/assistant summary pair.',
  options: {
    context_limit: { type: 'int', required: true, min: 1, doc: 'Real user turns allowed before summarising.' },
    keep_last_n_turns: { type: 'int', required: true, min: 0, doc: 'Turns kept verbatim when summarising (0 = summarise everything); at most context_limit.' },
    summarizer: { type: 'summarizer', doc: 'Summarizer (offline extractive or a model) and its prompt.' },
  },
  check: (options) => {
    const limit = options.context_limit;
    const keep = options.keep_last_n_turns;
    if (typeof limit === 'number' && typeof keep === 'number' && keep > limit) {
      return [`keep_last_n_turns (${keep}) must not exceed context_limit (${limit})`];
    }
    return [];
  },
  create: (options, ctx) =>
    new SummarizingStrategy(
      num(options, 'context_limit'),
      num(options, 'keep_last_n_turns'),
      ctx.makeSummarizer(summarizerOptionsOf(options)),
    ),
};
