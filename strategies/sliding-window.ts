// The last N items, whatever their kind, with system items kept in front.
import { dropOrphanToolItems, itemRole } from '../core/items.js';
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy } from './base.js';
import { num, type StrategyDefinition } from './registry.js';

export class SlidingWindowStrategy extends MemoryStrategy {
  readonly maxMessages: number;
  /**
   * The history split as it grows, so a view costs the window, not the whole
   * history: system items, and the other items (the window is their tail).
   */
  private system: AgentInputItem[] = [];
  private others: AgentInputItem[] = [];
  private indexed = 0;

  constructor(maxMessages: number, sessionId?: string) {
    super(sessionId);
    this.maxMessages = Math.max(1, Math.floor(maxMessages));
  }

  /**
   * `max_messages` counts non-system items. System items outside the window
   * are put back in front, in their original order. A window edge can split
   * a tool call from its result, so orphans on either side are dropped.
   */
  protected view(): AgentInputItem[] {
    this.index();
    return dropOrphanToolItems([...this.system, ...this.others.slice(-this.maxMessages)]);
  }

  /** Files the items added since the last view. */
  private index(): void {
    for (; this.indexed < this.history.length; this.indexed++) {
      const item = this.history[this.indexed];
      (itemRole(item) === 'system' ? this.system : this.others).push(item);
    }
  }

  protected override historyRemoved(): void {
    this.system = [];
    this.others = [];
    this.indexed = 0;
  }
}

export const slidingWindow: StrategyDefinition = {
  use: 'sliding-window',
  doc: 'Keeps the last max_messages non-system items; system items stay in front; cut tool pairs are dropped.',
  options: {
    max_messages: { type: 'int', required: true, min: 1, doc: 'Non-system items kept.' },
  },
  create: (options) => new SlidingWindowStrategy(num(options, 'max_messages')),
};
