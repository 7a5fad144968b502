// The summarizing strategy beyond the cookbook example: concurrency while the
// summarizer runs, failures, repeated summaries and their full-history ranges.
import { describe, expect, it } from 'vitest';
import { assistantMessage, isUserMessage, itemText, userMessage } from '../../core/items.js';
import { seededRandom } from '../../core/random.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import type { Summarizer, SummaryOutput } from '../../strategies/base.js';
import { type StrategyContext } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import { SummarizingStrategy } from '../../strategies/summarizing.js';
import { SUMMARY_SHADOW } from '../../strategies/summary-input.js';

function turn(n: number): AgentInputItem[] {
  return [userMessage(`question ${n}`), assistantMessage(`answer ${n}`)];
}

function output(summary: string): SummaryOutput {
  return { userShadow: SUMMARY_SHADOW, summary, request: { system: 'p', user: 'u' }, usage: { inputTokens: 1, outputTokens: 1 }, durationMs: 0 };
}

/** Answers `summary N` for the N-th call; a call can be held open until released. */
class ScriptedSummarizer implements Summarizer {
  readonly label = 'scripted';
  readonly calls: AgentInputItem[][] = [];
  hold = false;
  failWith: string | undefined;
  private releases: (() => void)[] = [];

  async summarize(items: AgentInputItem[]): Promise<SummaryOutput> {
    this.calls.push(items);
    const n = this.calls.length;
    if (this.hold) await new Promise<void>((resolve) => this.releases.push(resolve));
    if (this.failWith) throw new Error(this.failWith);
    return output(`summary ${n}`);
  }

  release(): void {
    for (const r of this.releases.splice(0)) r();
  }
}

const texts = (items: AgentInputItem[]) => items.map(itemText);

describe('summarizing', () => {
  it('keeps items that arrive while the summarizer is pending (nothing is lost)', async () => {
    const summarizer = new ScriptedSummarizer();
    const s = new SummarizingStrategy(2, 1, summarizer);
    await s.addItems(turn(1));
    await s.addItems(turn(2));
    summarizer.hold = true;
    const first = s.addItems(turn(3)); // 3 real turns > 2 → summarise turns 1-2
    await new Promise((r) => setTimeout(r, 0));
    expect(summarizer.calls).toHaveLength(1);
    // The lock is free while the summarizer runs: another turn gets in.
    const second = s.addItems(turn(4));
    await new Promise((r) => setTimeout(r, 0));
    expect(texts(await s.getItems())).toEqual(texts([...turn(1), ...turn(2), ...turn(3), ...turn(4)]));
    summarizer.hold = false;
    summarizer.release();
    await Promise.all([first, second]);
    // The summary covers what it saw (turns 1-2); turns 3 and 4 stay verbatim.
    // (Applying it at the re-checked boundary, as the cookbook does, would drop turn 3.)
    expect(texts(await s.getItems())).toEqual([SUMMARY_SHADOW, 'summary 1', ...texts([...turn(3), ...turn(4)])]);
    expect(summarizer.calls).toHaveLength(1);
    expect(s.events.map((e) => [e.firstItem, e.lastItem])).toEqual([[0, 3]]);

    // Turn 5 makes 3 real turns again: the pair and turns 3-4 are summarised.
    await s.addItems(turn(5));
    expect(texts(summarizer.calls[1])).toEqual([SUMMARY_SHADOW, 'summary 1', ...texts([...turn(3), ...turn(4)])]);
    expect(texts(await s.getItems())).toEqual([SUMMARY_SHADOW, 'summary 2', 'question 5', 'answer 5']);
    // The second summary stands for full-history items 0..7 (turns 1-4).
    expect(s.events.map((e) => [e.firstItem, e.lastItem])).toEqual([[0, 3], [0, 7]]);
    expect(s.getFullHistory()[0].metadata).toMatchObject({ synthetic: true, kind: 'history_summary_prompt', summary_for_turns: [1, 4] });
    expect(s.getHistory()).toHaveLength(10);
  });

  it('records a failed summary, keeps the view unsummarised and retries on the next add', async () => {
    const summarizer = new ScriptedSummarizer();
    summarizer.failWith = 'model unavailable';
    const s = new SummarizingStrategy(1, 1, summarizer);
    await s.addItems(turn(1));
    await expect(s.addItems(turn(2))).resolves.toBeUndefined();
    expect(texts(await s.getItems())).toEqual(texts([...turn(1), ...turn(2)]));
    expect(s.events).toHaveLength(1);
    expect(s.events[0]).toMatchObject({ firstItem: 0, lastItem: 1, error: 'model unavailable' });
    summarizer.failWith = undefined;
    await s.addItems(turn(3));
    expect(texts(await s.getItems())).toEqual([SUMMARY_SHADOW, 'summary 2', 'question 3', 'answer 3']);
    expect(s.events[1].error).toBeUndefined();
    expect(s.events[1]).toMatchObject({ firstItem: 0, lastItem: 3 });
  });

  it('keep_last_n_turns=0 summarises everything, and a limit not exceeded summarises nothing', async () => {
    const summarizer = new ScriptedSummarizer();
    const s = new SummarizingStrategy(2, 0, summarizer);
    await s.addItems(turn(1));
    await s.addItems(turn(2));
    expect(summarizer.calls).toHaveLength(0);
    expect(await s.getItems()).toHaveLength(4);
    await s.addItems(turn(3));
    expect(texts(summarizer.calls[0])).toEqual(texts([...turn(1), ...turn(2), ...turn(3)]));
    expect(texts(await s.getItems())).toEqual([SUMMARY_SHADOW, 'summary 1']);
    expect(s.events[0]).toMatchObject({ firstItem: 0, lastItem: 5 });
  });

  it('never counts the synthetic shadow prompt as a real user turn', async () => {
    const summarizer = new ScriptedSummarizer();
    const s = new SummarizingStrategy(2, 2, summarizer);
    for (let n = 1; n <= 3; n++) await s.addItems(turn(n));
    expect(summarizer.calls).toHaveLength(1);
    // Records: shadow, summary, turn 2, turn 3 → 2 real turns: no new summary.
    await s.addItems([assistantMessage('more')]);
    expect(summarizer.calls).toHaveLength(1);
    await s.addItems(turn(4));
    expect(summarizer.calls).toHaveLength(2);
  });

  it('moves item metadata out of what the model sees and marks real items synthetic: false', async () => {
    const s = new SummarizingStrategy(3, 1, new ScriptedSummarizer());
    const tagged = { ...userMessage('hello'), metadata: { source: 'import' } } as unknown as AgentInputItem;
    await s.addItems([tagged, assistantMessage('hi')]);
    const view = await s.getItems();
    expect(view[0]).toEqual(userMessage('hello'));
    expect(s.getFullHistory().map((r) => r.metadata)).toEqual([{ source: 'import', synthetic: false }, { synthetic: false }]);
  });

  it('does not send a tool result whose call was summarised', async () => {
    const s = new SummarizingStrategy(1, 1, new ScriptedSummarizer());
    await s.addItems([userMessage('q1'), { type: 'function_call', callId: 'x', name: 'slow', arguments: '{}' }]);
    await s.addItems([userMessage('q2'), { type: 'function_call_result', callId: 'x', name: 'slow', status: 'completed', output: 'late' }]);
    expect(texts(await s.getItems())).toEqual([SUMMARY_SHADOW, 'summary 1', 'q2']);
  });

  it('popItem never loses a summarised item; clearSession resets everything', async () => {
    const summarizer = new ScriptedSummarizer();
    const s = new SummarizingStrategy(1, 0, summarizer);
    await s.addItems(turn(1));
    await s.addItems(turn(2));
    expect(texts(await s.getItems())).toEqual([SUMMARY_SHADOW, 'summary 1']);
    expect(itemText((await s.popItem())!)).toBe('answer 2');
    // Popping into the summarised range drops the summary: the rest is verbatim again.
    expect(texts(await s.getItems())).toEqual(['question 1', 'answer 1', 'question 2']);
    expect(texts(await s.getItems(1))).toEqual(['question 2']);
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
    expect(s.getFullHistory()).toEqual([]);
    expect(s.events).toEqual([]);
  });

  it('a clear while the summarizer runs discards the stale summary', async () => {
    const summarizer = new ScriptedSummarizer();
    const s = new SummarizingStrategy(1, 1, summarizer);
    await s.addItems(turn(1));
    summarizer.hold = true;
    const pending = s.addItems(turn(2));
    await new Promise((r) => setTimeout(r, 0));
    await s.clearSession();
    summarizer.hold = false;
    summarizer.release();
    await pending;
    expect(await s.getItems()).toEqual([]);
    expect(s.events).toEqual([]);
  });

  it('summarises exactly where the rule worked out from scratch after every add, pop and clear does', async () => {
    const random = seededRandom(23);
    for (let round = 0; round < 40; round++) {
      const limit = 1 + Math.floor(random() * 4);
      const keep = Math.floor(random() * (limit + 1));
      const s = new SummarizingStrategy(limit, keep, new ScriptedSummarizer());
      // The rule from scratch: the real (not synthetic) user messages from the summarised
      // range's end on, over the limit, move that end to the start of the keep-th last.
      let history: { item: AgentInputItem; synthetic: boolean }[] = [];
      let upTo: number | undefined;
      let turns = 0;
      const realUsers = (from: number) => history.flatMap((h, i) => (i >= from && !h.synthetic && isUserMessage(h.item) ? [i] : []));
      for (let op = 0; op < 60; op++) {
        const roll = random();
        if (roll < 0.75) {
          const n = 1 + Math.floor(random() * 3);
          const items = Array.from({ length: n }, (_, i) => {
            const pick = random();
            if (pick < 0.45) return { item: userMessage(`q${op}.${i}`), synthetic: false };
            if (pick < 0.55) return { item: userMessage(`note ${op}.${i}`), synthetic: true };
            return { item: assistantMessage(`a${op}.${i}`), synthetic: false };
          });
          await s.addItems(items.map(({ item, synthetic }) => (synthetic ? ({ ...item, metadata: { synthetic: true } } as unknown as AgentInputItem) : item)));
          history.push(...items);
          for (;;) {
            const users = realUsers(upTo ?? 0);
            if (users.length <= limit) break;
            const cut = keep === 0 ? history.length : users[users.length - keep];
            if (cut <= 0) break;
            upTo = cut;
            turns = realUsers(0).filter((i) => i < cut).length;
          }
        } else if (roll < 0.95) {
          await s.popItem();
          history.pop();
          if (upTo !== undefined && history.length < upTo) upTo = undefined;
        } else {
          await s.clearSession();
          history = [];
          upTo = undefined;
        }
        const records = s.getFullHistory();
        const verbatim = history.slice(upTo ?? 0).map((h) => itemText(h.item));
        if (upTo === undefined) {
          expect(records.map((r) => itemText(r.message))).toEqual(verbatim);
        } else {
          expect(records[1].metadata).toMatchObject({ kind: 'history_summary', summary_for_turns: [1, turns] });
          expect(records.slice(2).map((r) => itemText(r.message))).toEqual(verbatim);
        }
      }
    }
  });

  it('builds its summarizer from the summarizer: option and checks keep ≤ limit', () => {
    const def = STRATEGIES.get('summarizing')!;
    expect(def.check!({ context_limit: 2, keep_last_n_turns: 3 })).toHaveLength(1);
    expect(def.check!({ context_limit: 2, keep_last_n_turns: 2 })).toEqual([]);
    const asked: unknown[] = [];
    const ctx: StrategyContext = {
      counter: new TokenCounter(),
      makeSummarizer: (o) => {
        asked.push(o);
        return new ScriptedSummarizer();
      },
    };
    def.create({ context_limit: 4, keep_last_n_turns: 2, summarizer: { model: 'offline', max_tokens: 100, tool_trim_limit: 50, word_limit: 120 } }, ctx);
    def.create({ context_limit: 4, keep_last_n_turns: 2 }, ctx);
    expect(asked).toEqual([
      { model: 'offline', max_tokens: 100, tool_trim_limit: 50, word_limit: 120 },
      { model: 'offline', max_tokens: 400, tool_trim_limit: 600, word_limit: 200 },
    ]);
    expect(() => new SummarizingStrategy(2, 3, new ScriptedSummarizer())).toThrow();
  });
});
