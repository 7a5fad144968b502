// The baseline: the model sees every item ever added, system items included.
import type { AgentInputItem } from '../core/types.js';
import { MemoryStrategy } from './base.js';
import type { StrategyDefinition } from './registry.js';

export class FullHistoryStrategy extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    return [...this.history];
  }
}

export const fullHistory: StrategyDefinition = {
  use: 'full-history',
  doc: 'Sends the whole conversation every turn (the baseline).',
  options: {},
  create: () => new FullHistoryStrategy(),
};
