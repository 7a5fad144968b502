// The baseline: the model sees every item ever added, system items included.
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy, type ViewChange } from './base.js';
import type { StrategyDefinition } from './registry.js';

export class FullHistoryStrategy extends MemoryStrategy {
  /** History items before this index are where the last view change described them. */
  private unchanged = 0;

  protected view(): AgentInputItem[] {
    return [...this.history];
  }

  /** The view is the history: only what was added since is new (a copy of the whole per turn made replay quadratic). */
  override viewChange(): ViewChange {
    const kept = Math.min(this.unchanged, this.history.length);
    this.unchanged = this.history.length;
    return { kept, added: this.history.slice(kept) };
  }

  protected override historyRemoved(): void {
    this.unchanged = Math.min(this.unchanged, this.history.length);
  }
}

export const fullHistory: StrategyDefinition = {
  use: 'full-history',
  doc: 'Sends the whole conversation every turn (the baseline).',
  options: {},
  create: () => new FullHistoryStrategy(),
};
