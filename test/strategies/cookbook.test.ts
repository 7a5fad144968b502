// Parity with the OpenAI cookbook "Context Engineering - Short-Term Memory
// Management with Sessions": its two published examples, replayed turn by turn.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadTranscriptFile } from '../../harness/datasets/transcript.js';
import { assistantMessage, itemRole, itemText, itemType, turnItems, userMessage } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import type { MemoryStrategy, Summarizer, SummaryOutput } from '../../strategies/base.js';
import { DEFAULT_SUMMARIZER, type StrategyContext, type StrategyOptions } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import { SummarizingStrategy } from '../../strategies/summarizing.js';
import { TrimmingStrategy } from '../../strategies/trimming.js';
import { loadSummaryPrompt } from '../../strategies/summary-input.js';

interface ExpectedItem {
  role: string;
  content: string;
  metadata?: Record<string, unknown>;
}

interface Expected {
  strategy: StrategyOptions & { use: string };
  items_after_last_turn: ExpectedItem[];
}

function expectedFile(name: string): Expected {
  return parse(readFileSync(new URL(`../fixtures/cookbook/${name}.expected.yaml`, import.meta.url), 'utf8')) as Expected;
}

function datasetPath(name: string): string {
  return new URL(`../../datasets/cookbook/${name}.yaml`, import.meta.url).pathname;
}

/** A summarizer that remembers what it was given and delegates to the offline one. */
class SpySummarizer implements Summarizer {
  readonly label = 'spy';
  readonly calls: AgentInputItem[][] = [];
  readonly outputs: SummaryOutput[] = [];
  private readonly inner = new OfflineSummarizer(DEFAULT_SUMMARIZER);

  async summarize(items: AgentInputItem[]): Promise<SummaryOutput> {
    this.calls.push(items);
    const out = await this.inner.summarize(items);
    this.outputs.push(out);
    return out;
  }
}

function context(summarizer: Summarizer): StrategyContext {
  return { counter: new TokenCounter(), makeSummarizer: () => summarizer };
}

async function replay(strategy: MemoryStrategy, file: string): Promise<void> {
  const transcript = loadTranscriptFile(file);
  for (const [i, turn] of transcript.turns.entries()) await strategy.addItems(turnItems(turn, i + 1));
}

function roleAndText(item: AgentInputItem): { role: string; text: string } {
  return { role: itemRole(item) ?? itemType(item), text: itemText(item) };
}

describe('cookbook TrimmingSession parity', () => {
  it('keeps the last three user turns of the laptop example', async () => {
    const expected = expectedFile('trimming-laptop');
    const def = STRATEGIES.get(expected.strategy.use);
    expect(def).toBeDefined();
    const strategy = def!.create(expected.strategy, context(new SpySummarizer()));
    await replay(strategy, datasetPath('trimming-laptop'));

    const view = await strategy.getItems();
    expect(view.map(roleAndText)).toEqual(expected.items_after_last_turn.map((e) => ({ role: e.role, text: e.content })));
    // The stored history is never trimmed: 3 items in turn 1, then 2 per turn.
    expect(strategy.getHistory()).toHaveLength(11);
    expect((await strategy.getItems(2)).map(itemText)).toEqual([
      'Yes, I see error 404 now.',
      'Do you see it on the browser while accessing a website?',
    ]);
  });

  it('keeps items 4..7 of the eight-item example with max_turns=2', async () => {
    const items: AgentInputItem[] = [
      userMessage('Hi'),
      assistantMessage('Hello!'),
      { type: 'function_call', callId: 'c1', name: 'lookup', arguments: '{}' },
      { type: 'function_call_result', callId: 'c1', name: 'lookup', status: 'completed', output: '…' },
      userMessage("It didn't work"),
      assistantMessage('Try rebooting'),
      userMessage('Rebooted, now error 42'),
      assistantMessage('On it'),
    ];
    const strategy = new TrimmingStrategy(2);
    await strategy.addItems(items);
    const view = await strategy.getItems();
    expect(view).toEqual(items.slice(4));
    // The view holds the stored objects themselves (the replay relies on identity).
    view.forEach((item, i) => expect(item).toBe(items[4 + i]));
  });
});

describe('cookbook SummarizingSession parity', () => {
  it('replaces turns 1-3 of the router example with a synthetic pair', async () => {
    const expected = expectedFile('summarizing-router');
    const spy = new SpySummarizer();
    const strategy = STRATEGIES.get('summarizing')!.create(expected.strategy, context(spy)) as SummarizingStrategy;
    await replay(strategy, datasetPath('summarizing-router'));

    const full = strategy.getFullHistory();
    const want = expected.items_after_last_turn;
    expect(full).toHaveLength(want.length);
    full.forEach((record, i) => {
      expect(itemRole(record.message)).toBe(want[i].role);
      if (!want[i].content.startsWith('<any')) expect(itemText(record.message)).toBe(want[i].content);
      expect(record.metadata).toMatchObject(want[i].metadata ?? { synthetic: false });
    });
    expect(full[0].metadata.summary_for_turns).toEqual([1, 3]);

    // What the model is sent carries no metadata.
    const view = await strategy.getItems();
    expect(view).toHaveLength(6);
    for (const item of view) expect(Object.hasOwn(item, 'metadata')).toBe(false);
    expect(itemText(view[1])).toBe(spy.outputs[0].summary);

    // One summary, of exactly the first six messages, under the cookbook prompt.
    expect(spy.calls).toHaveLength(1);
    expect(spy.calls[0].map(itemText)).toEqual(strategy.getHistory().slice(0, 6).map(itemText));
    expect(spy.outputs[0].request.system).toBe(loadSummaryPrompt().text);
    expect(spy.outputs[0].request.system).toContain('• Next Recommended Step:');
    expect(spy.outputs[0].request.user.split('\n')).toHaveLength(6);
    expect(spy.outputs[0].request.user.startsWith("USER: Hi, my router won't connect.")).toBe(true);
    expect(strategy.events).toHaveLength(1);
    expect(strategy.events[0]).toMatchObject({ firstItem: 0, lastItem: 5 });
    expect(strategy.events[0].error).toBeUndefined();
    // The offline summary keeps the facts the probes ask about.
    expect(spy.outputs[0].summary).toContain('Windows 10');
    expect(spy.outputs[0].summary).toContain('v1.0.3');
  });
});
