// Edge cases of the cutting strategies: limits, tool pairs at the cut,
// getItems(limit), popItem/clearSession, token-budget arithmetic.
import { describe, expect, it } from 'vitest';
import { assistantMessage, callIdOf, dropOrphanToolItems, itemRole, itemText, itemType, systemMessage, userMessage } from '../../core/items.js';
import { seededRandom } from '../../core/random.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { type StrategyContext } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import type { Summarizer } from '../../strategies/base.js';
import { FullHistoryStrategy } from '../../strategies/full-history.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import { SlidingWindowStrategy } from '../../strategies/sliding-window.js';
import { budgetOf, TokenBudgetStrategy, type TokenBudgetSettings } from '../../strategies/token-budget.js';
import { TrimmingStrategy } from '../../strategies/trimming.js';

function turn(n: number, withTool = false): AgentInputItem[] {
  const items: AgentInputItem[] = [userMessage(`question ${n}`)];
  if (withTool) {
    items.push({ type: 'function_call', callId: `call_${n}`, name: 'lookup', arguments: `{"n":${n}}` });
    items.push({ type: 'function_call_result', callId: `call_${n}`, name: 'lookup', status: 'completed', output: `result ${n}` });
  }
  items.push(assistantMessage(`answer ${n}`));
  return items;
}

/** Every tool result in `items` has its call, and every call its result. */
function pairsConsistent(items: AgentInputItem[]): boolean {
  const calls = new Set(items.filter((i) => itemType(i) === 'function_call').map(callIdOf));
  const results = new Set(items.filter((i) => itemType(i) === 'function_call_result').map(callIdOf));
  return [...calls].every((id) => results.has(id)) && [...results].every((id) => calls.has(id));
}

const ctx: StrategyContext = { counter: new TokenCounter(), makeSummarizer: (o) => new OfflineSummarizer(o) };

describe('full-history', () => {
  it('sends every item, system items included, and supports pop/clear', async () => {
    const s = new FullHistoryStrategy();
    const items = [systemMessage('rules'), ...turn(1), ...turn(2, true)];
    await s.addItems(items);
    expect(await s.getItems()).toEqual(items);
    expect(await s.getItems(2)).toEqual(items.slice(-2));
    expect(await s.getItems(0)).toEqual([]);
    expect(await s.popItem()).toBe(items[items.length - 1]);
    expect(await s.getItems()).toHaveLength(items.length - 1);
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
    expect(await s.popItem()).toBeUndefined();
  });
});

describe('trimming', () => {
  it('keeps everything with fewer turns than the limit', async () => {
    const s = new TrimmingStrategy(5);
    const items = [...turn(1), ...turn(2)];
    await s.addItems(items);
    expect(await s.getItems()).toEqual(items);
  });

  it('max_turns=1 keeps only the newest turn, tool pair included', async () => {
    const s = new TrimmingStrategy(1);
    await s.addItems([...turn(1, true), ...turn(2, true)]);
    const view = await s.getItems();
    expect(view.map(itemText)).toEqual(['question 2', 'lookup({"n":2})', 'result 2', 'answer 2']);
    expect(pairsConsistent(view)).toBe(true);
  });

  it('clamps a limit of 0 to 1 turn as the cookbook does', async () => {
    const s = new TrimmingStrategy(0);
    await s.addItems([...turn(1), ...turn(2)]);
    expect((await s.getItems()).map(itemText)).toEqual(['question 2', 'answer 2']);
  });

  it('drops a tool result whose call sits in a cut turn', async () => {
    const s = new TrimmingStrategy(1);
    const call: AgentInputItem = { type: 'function_call', callId: 'late', name: 'slow', arguments: '{}' };
    const result: AgentInputItem = { type: 'function_call_result', callId: 'late', name: 'slow', status: 'completed', output: 'done' };
    await s.addItems([userMessage('q1'), call, userMessage('q2'), result, assistantMessage('a2')]);
    const view = await s.getItems();
    expect(view.map(itemText)).toEqual(['q2', 'a2']);
    expect(s.getHistory()).toHaveLength(5);
  });

  it('getItems(limit) returns the newest items of the trimmed view; pop and clear act on history', async () => {
    const s = new TrimmingStrategy(2);
    await s.addItems([...turn(1), ...turn(2), ...turn(3)]);
    expect((await s.getItems(3)).map(itemText)).toEqual(['answer 2', 'question 3', 'answer 3']);
    expect((await s.getItems(100)).map(itemText)).toEqual(['question 2', 'answer 2', 'question 3', 'answer 3']);
    expect(itemText((await s.popItem())!)).toBe('answer 3');
    expect((await s.getItems()).map(itemText)).toEqual(['question 2', 'answer 2', 'question 3']);
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
  });

  it('the registry rejects max_turns below 1 through the schema', () => {
    expect(STRATEGIES.get('trimming')!.options.max_turns).toMatchObject({ type: 'int', required: true, min: 1 });
  });
});

describe('sliding-window', () => {
  it('keeps the last N non-system items with system items in front', async () => {
    const s = new SlidingWindowStrategy(3);
    const sys = systemMessage('rules');
    await s.addItems([sys, ...turn(1), ...turn(2)]);
    const view = await s.getItems();
    expect(view[0]).toBe(sys);
    expect(view.slice(1).map(itemText)).toEqual(['answer 1', 'question 2', 'answer 2']);
  });

  it('never leaves half a tool pair at the window edge', async () => {
    const s = new SlidingWindowStrategy(2);
    await s.addItems(turn(1, true)); // user, call, result, assistant
    const view = await s.getItems();
    // The window [result, assistant] would orphan the result; it is dropped.
    expect(view.map(itemText)).toEqual(['answer 1']);
    expect(pairsConsistent(view)).toBe(true);
  });

  it('max_messages=1 keeps a single item', async () => {
    const s = new SlidingWindowStrategy(1);
    await s.addItems([...turn(1), ...turn(2)]);
    expect((await s.getItems()).map(itemText)).toEqual(['answer 2']);
  });

  /** The view by its definition, from the whole history (what the incremental view must equal). */
  function windowOf(history: readonly AgentInputItem[], n: number): AgentInputItem[] {
    const isSystem = (item: AgentInputItem) => itemRole(item) === 'system';
    const window = new Set(history.filter((i) => !isSystem(i)).slice(-n));
    const kept = history.filter((i) => isSystem(i) || window.has(i));
    return dropOrphanToolItems([...kept.filter(isSystem), ...kept.filter((i) => !isSystem(i))]);
  }

  it('its view, kept as the history grows, equals the definition after every add, pop and clear', async () => {
    const random = seededRandom(7);
    for (const n of [1, 2, 3, 5, 8]) {
      const s = new SlidingWindowStrategy(n);
      for (let step = 0; step < 200; step++) {
        const roll = random();
        if (roll < 0.1) await s.popItem();
        else if (roll < 0.12) await s.clearSession();
        else if (roll < 0.2) await s.addItems([systemMessage(`rule ${step}`)]);
        else await s.addItems(turn(step, roll > 0.7));
        expect(await s.getItems(), `max ${n}, step ${step}`).toEqual(windowOf(s.getHistory(), n));
      }
    }
  });
});

describe('token-budget', () => {
  // Hand arithmetic: with o200k_base, "question N" and "answer N" are 3 tokens
  // each and the role label 1, so every item costs 3 + 1 + 3 = 7 tokens and a
  // turn 14; a request adds 3 reply-priming tokens, so n turns cost 3 + 14n.
  // Instructions "Be brief." cost 3 + 1 ("system") + 3 = 7.
  const settings = (over: Partial<TokenBudgetSettings> = {}): TokenBudgetSettings => ({
    budget: 50,
    preserveSystem: true,
    compactAt: 0.9,
    compactTo: 0.7,
    ...over,
  });

  it('counts items as the arithmetic above says', () => {
    const counter = new TokenCounter();
    expect(counter.request(undefined, turn(1))).toBe(3 + 14);
    expect(counter.request('Be brief.', turn(1))).toBe(3 + 7 + 14);
  });

  it('compacts past compact_at down to compact_to, then holds the cut until the next compaction', async () => {
    const counter = new TokenCounter();
    const s = new TokenBudgetStrategy(settings(), { counter });
    const tokens = async () => counter.request(undefined, await s.getItems());
    // Thresholds: 0.9 × 50 = 45 to compact, down to ≤ 0.7 × 50 = 35.
    for (let n = 1; n <= 3; n++) await s.addItems(turn(n));
    expect(await tokens()).toBe(45); // 3 + 3 × 14 = 45, not above 45: untouched
    expect(await s.getItems()).toHaveLength(6);
    await s.addItems(turn(4));
    // 59 > 45 → cut turn 1 (45 > 35) → cut turn 2 (31 ≤ 35).
    expect((await s.getItems()).map(itemText)).toEqual(['question 3', 'answer 3', 'question 4', 'answer 4']);
    expect(await tokens()).toBe(31);
    await s.addItems(turn(5));
    // 45 ≤ 45: the cut stays, the view grows (hysteresis).
    expect(await tokens()).toBe(45);
    expect((await s.getItems())[0]).toEqual(userMessage('question 3'));
    await s.addItems(turn(6));
    expect((await s.getItems()).map(itemText)).toEqual(['question 5', 'answer 5', 'question 6', 'answer 6']);
    expect(s.getHistory()).toHaveLength(12);
  });

  it('counts what a request carries: a reasoning item in the history is no part of the budget', async () => {
    const counter = new TokenCounter();
    const s = new TokenBudgetStrategy(settings(), { counter });
    const thoughts = { type: 'reasoning', content: [{ type: 'input_text', text: 'step '.repeat(200) }] } as unknown as AgentInputItem;
    for (let n = 1; n <= 3; n++) await s.addItems([...turn(n), thoughts]);
    // 45 tokens sent, as without the reasoning: untouched (counting the reasoning would have cut two turns).
    expect((await s.getItems()).filter((i) => itemType(i) === 'message')).toHaveLength(6);
  });

  it("keeps a call before the cut when its result is after it: the newest turn's result is never dropped as an orphan", async () => {
    const counter = new TokenCounter();
    const s = new TokenBudgetStrategy(settings({ budget: 40 }), { counter });
    await s.addItems(turn(1));
    await s.addItems([userMessage('question 2'), { type: 'function_call', callId: 'c1', name: 'lookup', arguments: '{}' }]);
    const result: AgentInputItem = { type: 'function_call_result', callId: 'c1', name: 'lookup', status: 'completed', output: 'code APR-77123' };
    await s.addItems([userMessage('question 3'), result]);
    const view = await s.getItems();
    expect(view).toContain(result);
    expect(view.some((i) => itemType(i) === 'function_call' && callIdOf(i) === 'c1')).toBe(true);
    expect(view.map(itemText)).not.toContain('question 1');
  });

  it('counts the instructions against the budget', async () => {
    const counter = new TokenCounter();
    const s = new TokenBudgetStrategy(settings(), { counter, instructions: 'Be brief.' });
    for (let n = 1; n <= 3; n++) await s.addItems(turn(n));
    // 7 + 45 = 52 > 45 → cut turn 1 (38 > 35) → cut turn 2 (24 ≤ 35); without
    // the instructions the same three turns (45) were left alone above.
    expect((await s.getItems()).map(itemText)).toEqual(['question 3', 'answer 3']);
  });

  it('keeps system items when preserve_system and drops them otherwise', async () => {
    const counter = new TokenCounter();
    const sys = systemMessage('rules');
    const kept = new TokenBudgetStrategy(settings({ budget: 30 }), { counter });
    const dropped = new TokenBudgetStrategy(settings({ budget: 30, preserveSystem: false }), { counter });
    for (const s of [kept, dropped]) {
      await s.addItems([sys]);
      for (let n = 1; n <= 4; n++) await s.addItems(turn(n));
    }
    expect((await kept.getItems())[0]).toBe(sys);
    expect(await dropped.getItems()).not.toContain(sys);
  });

  it('never drops protected items, and keeps their tool pair whole', async () => {
    const counter = new TokenCounter();
    const protect = (item: AgentInputItem) => itemText(item).includes('result 1') || itemText(item) === 'question 2';
    const s = new TokenBudgetStrategy(settings({ budget: 40 }), { counter, protect });
    for (let n = 1; n <= 5; n++) await s.addItems(turn(n, true));
    const view = await s.getItems();
    const texts = view.map(itemText);
    expect(texts).toContain('result 1');
    expect(texts).toContain('lookup({"n":1})'); // its call came along
    expect(texts).toContain('question 2');
    expect(texts.indexOf('lookup({"n":1})')).toBeLessThan(texts.indexOf('result 1'));
    expect(texts.indexOf('result 1')).toBeLessThan(texts.indexOf('question 2'));
    expect(texts).not.toContain('answer 1');
    expect(pairsConsistent(view)).toBe(true);
  });

  it('keeps the newest turn even when it alone is over budget', async () => {
    const counter = new TokenCounter();
    const s = new TokenBudgetStrategy(settings({ budget: 10 }), { counter });
    await s.addItems(turn(1));
    await s.addItems(turn(2));
    expect((await s.getItems()).map(itemText)).toEqual(['question 2', 'answer 2']);
  });

  it('derives the budget from context_window − max_output − safety_margin', () => {
    expect(budgetOf({ max_tokens: 2000 })).toBe(2000);
    expect(budgetOf({ context_window: 8000, max_output: 1000, safety_margin: 500 })).toBe(6500);
    expect(budgetOf({ context_window: 8000 })).toBe(8000);
    const def = STRATEGIES.get('token-budget')!;
    expect(def.check!({ max_tokens: 10, context_window: 10 })).toHaveLength(1);
    expect(def.check!({})).toHaveLength(1);
    expect(def.check!({ context_window: 100, max_output: 100 })).toHaveLength(1);
    expect(def.check!({ max_tokens: 100, compact_at: 0.5, compact_to: 0.6 })).toHaveLength(1);
    expect(def.check!({ max_tokens: 100 })).toEqual([]);
    const s = def.create({ context_window: 100, max_output: 20, safety_margin: 10 }, ctx) as TokenBudgetStrategy;
    expect(s.settings).toEqual({ budget: 70, preserveSystem: true, compactAt: 0.9, compactTo: 0.7 });
  });

  it('recomputes the cut after popping into it, and resets on clear', async () => {
    const counter = new TokenCounter();
    const s = new TokenBudgetStrategy(settings(), { counter });
    for (let n = 1; n <= 4; n++) await s.addItems(turn(n));
    expect(await s.getItems()).toHaveLength(4);
    for (let i = 0; i < 4; i++) await s.popItem();
    // History is turns 1-2 now (31 tokens): nothing needs cutting.
    expect((await s.getItems()).map(itemText)).toEqual(['question 1', 'answer 1', 'question 2', 'answer 2']);
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
  });
});

describe('soft-limit-compaction', () => {
  it('replaces everything with one summary message at the limit, then compacts summary + newer turns again', async () => {
    const counter = new TokenCounter();
    const seen: AgentInputItem[][] = [];
    const short: Summarizer = {
      label: 'short',
      summarize: async (items) => {
        seen.push(items);
        const summary = `summary ${seen.length}`;
        return { userShadow: '', summary, request: { system: '', user: '' }, usage: { inputTokens: 0, outputTokens: 0 }, durationMs: 0 };
      },
    };
    const s = STRATEGIES.get('soft-limit-compaction')!.create({ max_prompt_tokens: 50 }, { counter, makeSummarizer: () => short });
    await s.addItems(turn(1));
    await s.addItems(turn(2));
    expect(await s.getItems()).toHaveLength(4); // 31 < 50
    await s.addItems(turn(3)); // 45 < 50
    expect(s.events).toHaveLength(0);
    await s.addItems(turn(4)); // 59 ≥ 50 → compact all 8 items
    let view = await s.getItems();
    expect(view).toHaveLength(1);
    expect(view[0]).toMatchObject({ role: 'user' });
    expect(itemText(view[0])).toBe('Summary of the conversation so far:\nsummary 1');
    expect(seen[0]).toHaveLength(8);
    expect(s.events).toHaveLength(1);
    expect(s.events[0]).toMatchObject({ firstItem: 0, lastItem: 7 });

    await s.addItems(turn(5));
    view = await s.getItems();
    expect(view.slice(1).map(itemText)).toEqual(['question 5', 'answer 5']);
    expect(itemType(view[0])).toBe('message');
    expect(view[0]).not.toMatchObject({ type: 'compaction' });
    const compactTokens = counter.request(undefined, [view[0]]) - 3;
    // k turns after the compact message cost 3 + compactTokens + 14k; the limit is hit at the smallest k with ≥ 50.
    const turnsToLimit = Math.ceil((50 - 3 - compactTokens) / 14);
    expect(turnsToLimit).toBeGreaterThanOrEqual(2);
    for (let n = 6; n < 4 + turnsToLimit; n++) await s.addItems(turn(n));
    expect(s.events).toHaveLength(1);
    await s.addItems(turn(4 + turnsToLimit));
    expect(s.events).toHaveLength(2);
    // The second summary saw the first summary message plus every newer item…
    expect(itemText(seen[1][0])).toBe('Summary of the conversation so far:\nsummary 1');
    expect(seen[1]).toHaveLength(1 + 2 * turnsToLimit);
    // …and stands for the whole history so far.
    expect(s.events[1].firstItem).toBe(0);
    expect(s.events[1].lastItem).toBe(s.getHistory().length - 1);
    expect((await s.getItems()).map(itemText)).toEqual(['Summary of the conversation so far:\nsummary 2']);
  });

  it('keeps the view uncompacted when the summarizer fails', async () => {
    const counter = new TokenCounter();
    const s = STRATEGIES.get('soft-limit-compaction')!.create(
      { max_prompt_tokens: 20 },
      {
        counter,
        makeSummarizer: () => ({
          label: 'broken',
          summarize: async () => {
            throw new Error('summarizer down');
          },
        }),
      },
    );
    await s.addItems(turn(1));
    await s.addItems(turn(2));
    expect(await s.getItems()).toHaveLength(4);
    expect(s.events.at(-1)?.error).toBe('summarizer down');
  });
});

describe('soft-limit-compaction housekeeping', () => {
  it('pop into the compacted range drops the summary, never an item; clear resets', async () => {
    const counter = new TokenCounter();
    const short: Summarizer = {
      label: 'short',
      summarize: async () => ({ userShadow: '', summary: 'S', request: { system: '', user: '' }, usage: { inputTokens: 0, outputTokens: 0 }, durationMs: 0 }),
    };
    const s = STRATEGIES.get('soft-limit-compaction')!.create({ max_prompt_tokens: 30 }, { counter, makeSummarizer: () => short });
    await s.addItems(turn(1));
    await s.addItems(turn(2)); // 31 ≥ 30 → compacted
    expect((await s.getItems()).map(itemText)).toEqual(['Summary of the conversation so far:\nS']);
    expect(itemText((await s.popItem())!)).toBe('answer 2');
    expect((await s.getItems()).map(itemText)).toEqual(['question 1', 'answer 1', 'question 2']);
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
    expect(s.events).toEqual([]);
  });
});
