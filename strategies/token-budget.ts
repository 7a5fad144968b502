// Ephemeral compaction to a token budget: the stored history is never touched;
// the view drops whole turns from the oldest side once it grows past a high
// watermark, down to a low watermark, and stays put until the next compaction.
import { callIdOf, dropOrphanToolItems, isUserMessage, itemRole, itemType, sentItems } from '../core/items.js';
import type { TokenCounter } from '../core/tokens.js';
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy, type ProtectPredicate } from './base.js';
import { optionalNum, type StrategyDefinition, type StrategyOptions } from './registry.js';

export interface TokenBudgetSettings {
  /** Tokens the prompt (instructions + view) may use. */
  budget: number;
  preserveSystem: boolean;
  /** Compact when the prompt exceeds this share of the budget. */
  compactAt: number;
  /** …down to at most this share of the budget. */
  compactTo: number;
}

/** `max_tokens`, or `context_window − max_output − safety_margin`. */
export function budgetOf(options: StrategyOptions): number | undefined {
  const maxTokens = optionalNum(options, 'max_tokens');
  if (maxTokens !== undefined) return maxTokens;
  const window = optionalNum(options, 'context_window');
  if (window === undefined) return undefined;
  return window - (optionalNum(options, 'max_output') ?? 0) - (optionalNum(options, 'safety_margin') ?? 0);
}

export class TokenBudgetStrategy extends MemoryStrategy {
  readonly settings: TokenBudgetSettings;
  private readonly counter: TokenCounter;
  private readonly instructions: string | undefined;
  private readonly protect: ProtectPredicate;
  /** The predicate may scan text for facts; each item is judged once. */
  private readonly protectedCache = new WeakMap<object, boolean>();
  /** Full-history index of the oldest turn in the view; older turns are cut. */
  private cut = 0;
  /** What survives the cut, kept as the cut moves forward (see Survivors). */
  private survivors = new Survivors();
  /** Indices of the history's turn starts, kept as items arrive. */
  private starts: number[] = [];
  private indexed = 0;

  constructor(
    settings: TokenBudgetSettings,
    ctx: { counter: TokenCounter; instructions?: string; protect?: ProtectPredicate },
    sessionId?: string,
  ) {
    super(sessionId);
    this.settings = settings;
    this.counter = ctx.counter;
    this.instructions = ctx.instructions;
    this.protect = ctx.protect ?? (() => false);
  }

  protected view(): AgentInputItem[] {
    return this.viewAt(this.cut);
  }

  /** Whether an item before the cut survives it on its own: a system item (when preserved) or a protected one. */
  private keeps(item: AgentInputItem): boolean {
    return (this.settings.preserveSystem && itemRole(item) === 'system') || this.isProtected(item);
  }

  private isProtected(item: AgentInputItem): boolean {
    const key = item as object;
    let hit = this.protectedCache.get(key);
    if (hit === undefined) {
      hit = this.protect(item);
      this.protectedCache.set(key, hit);
    }
    return hit;
  }

  private viewAt(cut: number): AgentInputItem[] {
    if (cut < this.survivors.cut) this.survivors = new Survivors();
    this.survivors.advance(this.history, cut, (item) => this.keeps(item));
    const kept = this.history.slice(cut);
    // A call before the cut whose result is after it comes back: without it the result would be
    // dropped as an orphan, and with it whatever it states (a critical fact of the newest turn).
    const ids = new Set(kept.filter(isPairHalf).map(callIdOf).filter((id): id is string => id !== undefined));
    return dropOrphanToolItems([...this.survivors.items(this.history, ids), ...kept]);
  }

  private tokensAt(cut: number): number {
    // What a request would carry: reasoning items stay in the history but are never sent.
    return this.counter.request(this.instructions, sentItems(this.viewAt(cut)));
  }

  /** Turn starts after `cut`, from the index kept as items arrive (not a scan of the whole history). */
  private startsAfter(cut: number): number[] {
    for (; this.indexed < this.history.length; this.indexed++) if (isUserMessage(this.history[this.indexed])) this.starts.push(this.indexed);
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= cut) lo = mid + 1;
      else hi = mid;
    }
    return this.starts.slice(lo);
  }

  /**
   * Moves the cut forward turn by turn until the prompt fits the low
   * watermark. The newest turn is always kept, even when it alone is over
   * budget: a view without the current question is useless to the model.
   */
  private compact(): void {
    const { budget, compactAt, compactTo } = this.settings;
    if (this.tokensAt(this.cut) <= compactAt * budget) return;
    for (const start of this.startsAfter(this.cut)) {
      this.cut = start;
      if (this.tokensAt(start) <= compactTo * budget) return;
    }
  }

  protected override async afterAdd(): Promise<void> {
    this.compact();
  }

  /** Removing from the history invalidates the indexes; they are rebuilt from the start. */
  private forget(): void {
    this.survivors = new Survivors();
    this.starts = [];
    this.indexed = 0;
  }

  override async popItem(): Promise<AgentInputItem | undefined> {
    const item = await super.popItem();
    this.forget();
    if (this.cut >= this.history.length) {
      // The cut turn is gone; decide again from the full history.
      this.cut = 0;
      this.compact();
    }
    return item;
  }

  override async clearSession(): Promise<void> {
    await super.clearSession();
    this.cut = 0;
    this.forget();
  }
}

/**
 * Items before the cut that survive it: those kept on their own (system,
 * protected), plus the other half of any tool call/result pair one of them
 * belongs to, so the view never carries half a pair. The cut only moves
 * forward between compactions, so each history item is looked at once as it
 * falls behind the cut, not again at every compaction.
 */
class Survivors {
  /** How far the history has been looked at. */
  cut = 0;
  /** History indices of the survivors, ascending. */
  private readonly kept: number[] = [];
  /** Call ids of items kept on their own: their pair halves survive too. */
  private readonly pairedIds = new Set<string>();
  /** Pair halves not (yet) kept, by call id, waiting for a kept item of the same id. */
  private readonly waiting = new Map<string, number[]>();

  advance(history: readonly AgentInputItem[], cut: number, keeps: (item: AgentInputItem) => boolean): void {
    for (; this.cut < cut; this.cut++) {
      const item = history[this.cut];
      const id = callIdOf(item);
      if (keeps(item)) {
        this.kept.push(this.cut);
        if (id && !this.pairedIds.has(id)) this.pair(id);
      } else if (id !== undefined && isPairHalf(item)) {
        if (this.pairedIds.has(id)) this.kept.push(this.cut);
        else this.waiting.set(id, [...(this.waiting.get(id) ?? []), this.cut]);
      }
    }
  }

  /** A newly kept id brings back the earlier halves of its pair, in history order. */
  private pair(id: string): void {
    this.pairedIds.add(id);
    const earlier = this.waiting.get(id);
    if (!earlier) return;
    this.waiting.delete(id);
    this.kept.push(...earlier);
    this.kept.sort((a, b) => a - b);
  }

  /** The survivors, with the pair halves waiting under `partnered` (ids of halves after the cut), in history order. */
  items(history: readonly AgentInputItem[], partnered: ReadonlySet<string> = new Set()): AgentInputItem[] {
    const partners = [...partnered].flatMap((id) => this.waiting.get(id) ?? []);
    const at = partners.length === 0 ? this.kept : [...this.kept, ...partners].sort((a, b) => a - b);
    return at.map((i) => history[i]);
  }
}

function isPairHalf(item: AgentInputItem): boolean {
  const type = itemType(item);
  return type === 'function_call' || type === 'function_call_result';
}

function bool(options: StrategyOptions, key: string, fallback: boolean): boolean {
  const value = options[key];
  return typeof value === 'boolean' ? value : fallback;
}

export const tokenBudget: StrategyDefinition = {
  use: 'token-budget',
  doc: 'Keeps instructions + view under a token budget by dropping whole oldest turns (at compact_at × budget, down to compact_to × budget); system and protected items stay.',
  options: {
    max_tokens: { type: 'int', min: 1, doc: 'Prompt budget in tokens (or give context_window).' },
    context_window: { type: 'int', min: 1, doc: 'Model context window; budget = context_window − max_output − safety_margin.' },
    max_output: { type: 'int', min: 0, default: 0, sweep: false, doc: 'Tokens reserved for the reply (with context_window).' },
    safety_margin: { type: 'int', min: 0, default: 0, sweep: false, doc: 'Extra tokens held back (with context_window).' },
    preserve_system: { type: 'boolean', default: true, doc: 'Never drop system items.' },
    compact_at: { type: 'number', min: 0, max: 1, default: 0.9, doc: 'Compact when the prompt exceeds this share of the budget.' },
    compact_to: { type: 'number', min: 0, max: 1, default: 0.7, doc: 'Compact down to this share of the budget.' },
  },
  check: (options) => {
    const problems: string[] = [];
    const hasMax = options.max_tokens !== undefined;
    const hasWindow = options.context_window !== undefined;
    if (hasMax === hasWindow) problems.push('give exactly one of max_tokens or context_window');
    const budget = budgetOf(options);
    if (hasWindow && budget !== undefined && budget < 1) {
      problems.push(`context_window − max_output − safety_margin must be at least 1 (got ${budget})`);
    }
    const at = optionalNum(options, 'compact_at') ?? 0.9;
    const to = optionalNum(options, 'compact_to') ?? 0.7;
    if (at <= 0) problems.push('compact_at must be above 0');
    if (to > at) problems.push(`compact_to (${to}) must not exceed compact_at (${at})`);
    return problems;
  },
  create: (options, ctx) => {
    const budget = budgetOf(options);
    if (budget === undefined || budget < 1) throw new Error('token-budget needs max_tokens or context_window');
    const settings: TokenBudgetSettings = {
      budget,
      preserveSystem: bool(options, 'preserve_system', true),
      compactAt: optionalNum(options, 'compact_at') ?? 0.9,
      compactTo: optionalNum(options, 'compact_to') ?? 0.7,
    };
    return new TokenBudgetStrategy(settings, ctx);
  },
};
