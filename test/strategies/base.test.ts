// `viewChange` must describe exactly the view `getItems()` returns: the replay
// measures every turn from these changes alone, so a change that leaves out an
// item (or keeps one that moved) would measure a context no model is sent.
import { describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, userMessage } from '../../core/items.js';
import { seededRandom, type Random } from '../../core/random.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { sharedPrefix, type MemoryStrategy } from '../../strategies/base.js';
import { STRATEGIES } from '../../strategies/index.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import type { StrategyContext } from '../../strategies/registry.js';
import { withDefaults } from '../../harness/schema/config.js';

const ctx: StrategyContext = { counter: new TokenCounter(), makeSummarizer: (o) => new OfflineSummarizer(o) };

/** Every strategy that runs without a server, in settings that cut, mask, summarise and recall within a few turns. */
const CASES: [string, Record<string, unknown>][] = [
  ['full-history', {}],
  ['trimming', { max_turns: 2 }],
  ['sliding-window', { max_messages: 3 }],
  ['token-budget', { max_tokens: 120 }],
  ['summarizing', { context_limit: 3, keep_last_n_turns: 1 }],
  ['soft-limit-compaction', { max_prompt_tokens: 150 }],
  ['observation-masking', { keep_last: 1 }],
  ['observation-masking', { keep_last: 0, exclude_tools: ['lookup'] }],
  ['retrieval', { keep_last_n_turns: 1, max_recall_tokens: 60 }],
];

/** A turn of an agent session: tool calls (some answered a turn later), reasoning, now and then a system message. */
function agentTurn(n: number, random: Random, pending: AgentInputItem[]): AgentInputItem[] {
  const items: AgentInputItem[] = [userMessage(`turn ${n}: check order ${1000 + n} in region ${n % 3}`)];
  items.push(...pending.splice(0));
  if (random() < 0.2) items.push(systemMessage(`policy ${n}`));
  if (random() < 0.4) items.push({ type: 'reasoning', id: `rs_${n}`, content: [{ type: 'input_text', text: `thinking about ${n}` }] } as AgentInputItem);
  const calls = Math.floor(random() * 3);
  for (let i = 0; i < calls; i++) {
    const name = random() < 0.5 ? 'lookup' : 'run_sql';
    const callId = `c${n}_${i}`;
    items.push({ type: 'function_call', callId, name, arguments: JSON.stringify({ id: 1000 + n, i }) });
    const result: AgentInputItem = { type: 'function_call_result', callId, name, status: 'completed', output: `row ${n}.${i}: status shipped, total ${n * 7}` };
    if (random() < 0.25) pending.push(result);
    else items.push(result);
  }
  items.push(assistantMessage(`order ${1000 + n} is shipped`));
  return items;
}

/** Follows a strategy's view from its changes alone, checking each change against getItems(). */
class Mirror {
  view: AgentInputItem[] = [];
  constructor(private readonly strategy: MemoryStrategy) {}

  async check(): Promise<void> {
    const change = this.strategy.viewChange();
    expect(change.kept).toBeLessThanOrEqual(this.view.length);
    this.view = [...this.view.slice(0, change.kept), ...change.added];
    const items = await this.strategy.getItems();
    expect(this.view).toEqual(items);
    // Kept means the same objects where the view has them.
    expect(sharedPrefix(this.view, items)).toBeGreaterThanOrEqual(change.kept);
  }
}

describe('viewChange', () => {
  it.each(CASES)('%s %j: the changes add up to the view getItems() returns, turn by turn', async (use, given) => {
    const def = STRATEGIES.get(use)!;
    const strategy = def.create(withDefaults(def, given), ctx);
    const mirror = new Mirror(strategy);
    const random = seededRandom(7);
    const pending: AgentInputItem[] = [];
    for (let n = 1; n <= 40; n++) {
      await strategy.addItems(agentTurn(n, random, pending));
      await mirror.check();
      // Items removed and others added in their place: what a change keeps must still be there.
      if (n % 13 === 0) {
        await strategy.popItem();
        await strategy.popItem();
        await mirror.check();
        await strategy.addItems([userMessage(`again ${n}`)]);
        await mirror.check();
        // Removed and added again with no view between: the new item sits where a kept one was.
        await strategy.popItem();
        await strategy.popItem();
        await strategy.addItems([userMessage(`once more ${n}`)]);
        await mirror.check();
      }
    }
    await strategy.clearSession();
    await mirror.check();
    expect(mirror.view).toEqual([]);
    await strategy.addItems(agentTurn(41, random, []));
    await mirror.check();
  });

  it('a full history and a masked one keep all the previous view has in common with the new one', async () => {
    for (const [use, given] of [['full-history', {}], ['observation-masking', { keep_last: 2 }]] as const) {
      const def = STRATEGIES.get(use)!;
      const strategy = def.create(withDefaults(def, given), ctx);
      const random = seededRandom(3);
      let before: AgentInputItem[] = [];
      for (let n = 1; n <= 30; n++) {
        await strategy.addItems(agentTurn(n, random, []));
        const change = strategy.viewChange();
        const now = await strategy.getItems();
        // The replay measures only `added`: anything more is work a long view repeats every turn.
        expect(change.kept, `${use}, turn ${n}`).toBe(sharedPrefix(before, now));
        before = now;
      }
    }
  });
});
