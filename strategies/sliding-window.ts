// The last N items, whatever their kind, with system items kept in front.
import { dropOrphanToolItems, itemRole } from '../core/items.js';
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy } from './base.js';
import { num, type StrategyDefinition } from './registry.js';

export class SlidingWindowStrategy extends MemoryStrategy {
  readonly maxMessages: number;

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
    const isSystem = (item: AgentInputItem): boolean => itemRole(item) === 'system';
    const others = this.history.filter((item) => !isSystem(item));
    const window = new Set<AgentInputItem>(others.slice(-this.maxMessages));
    const kept = this.history.filter((item) => isSystem(item) || window.has(item));
    const system = kept.filter(isSystem);
    const rest = kept.filter((item) => !isSystem(item));
    return dropOrphanToolItems([...system, ...rest]);
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
