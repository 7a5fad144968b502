// The cookbook's TrimmingSession: keep the last N user turns verbatim. Unlike
// the cookbook, the stored history stays full; only the view is trimmed.
import { dropOrphanToolItems, isUserMessage } from '../core/items.js';
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy } from './base.js';
import { num, type StrategyDefinition } from './registry.js';

/**
 * Index where the last `maxTurns` turns begin: the earliest of the last
 * `maxTurns` user messages, or 0 when there are fewer (keep everything).
 */
export function lastTurnsStart(items: readonly AgentInputItem[], maxTurns: number): number {
  let seen = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    if (!isUserMessage(items[i])) continue;
    seen += 1;
    if (seen === maxTurns) return i;
  }
  return 0;
}

export class TrimmingStrategy extends MemoryStrategy {
  readonly maxTurns: number;

  constructor(maxTurns: number, sessionId?: string) {
    super(sessionId);
    // The cookbook clamps to at least one turn; a zero-turn view would drop the question itself.
    this.maxTurns = Math.max(1, Math.floor(maxTurns));
  }

  protected view(): AgentInputItem[] {
    const kept = this.history.slice(lastTurnsStart(this.history, this.maxTurns));
    // A cut at a user message keeps tool pairs whole unless a pair spans turns.
    return dropOrphanToolItems(kept);
  }
}

export const trimming: StrategyDefinition = {
  use: 'trimming',
  doc: 'Keeps the last max_turns user turns (a turn = a user message and everything until the next one), as the cookbook TrimmingSession.',
  options: {
    max_turns: { type: 'int', required: true, min: 1, doc: 'User turns kept verbatim (at least 1, as the cookbook clamps).' },
  },
  create: (options) => new TrimmingStrategy(num(options, 'max_turns')),
};
