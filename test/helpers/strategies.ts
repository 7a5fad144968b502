// Minimal strategies for tests that need facts to drop out of the context, or not.
import { isUserMessage } from '../../core/items.js';
import type { AgentInputItem } from '../../core/types.js';
import { MemoryStrategy } from '../../strategies/base.js';

/** Keeps only the newest turn, so a fact stated in turn 1 is missing from the context after turn 2. */
export class LastTurnOnly extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    let start = 0;
    this.history.forEach((item, i) => {
      if (isUserMessage(item)) start = i;
    });
    return this.history.slice(start);
  }
}

/** Keeps every item. */
export class Everything extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    return [...this.history];
  }
}
