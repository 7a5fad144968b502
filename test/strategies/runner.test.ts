// The strategies as real @openai/agents sessions: the SDK runner reads the
// view with getItems(), sends it plus the new user message to the model, and
// stores the turn with addItems().
import { Agent, Runner } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { itemRole, itemText } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { MemoryStrategy } from '../../strategies/base.js';
import { DEFAULT_SUMMARIZER, type StrategyOptions } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import { SummarizingStrategy } from '../../strategies/summarizing.js';
import { SUMMARY_SHADOW } from '../../strategies/summary-input.js';
import { RecordingModel } from '../helpers/recording-model.js';

const questions = [
  'My router is an AX3000 on firmware v1.0.3.',
  'It shows error 42 after the reset.',
  'I am on Windows 10.',
  'Ticket number is #4417.',
  'What should I do next?',
];

function build(use: string, options: StrategyOptions): MemoryStrategy {
  const counter = new TokenCounter();
  return STRATEGIES.get(use)!.create(options, { counter, makeSummarizer: (o) => new OfflineSummarizer(o, counter) });
}

async function drive(strategy: MemoryStrategy): Promise<RecordingModel> {
  const model = new RecordingModel((i) => `answer ${i + 1}`);
  const agent = new Agent({ name: 'support', instructions: 'Be brief.', model });
  const runner = new Runner({ tracingDisabled: true });
  for (const q of questions) {
    const result = await runner.run(agent, q, { session: strategy });
    expect(result.finalOutput).toBe(`answer ${model.inputs.length}`);
  }
  return model;
}

const roleText = (items: readonly unknown[]) =>
  (items as Parameters<typeof itemText>[0][]).map((item) => `${itemRole(item)}: ${itemText(item)}`);

describe('strategies under the Agents SDK runner', () => {
  it('trimming: the model gets the last max_turns turns plus the new message', async () => {
    const strategy = build('trimming', { max_turns: 2 });
    const model = await drive(strategy);
    expect(model.inputs).toHaveLength(5);
    expect(model.instructions[4]).toBe('Be brief.');
    expect(roleText(model.lastInput)).toEqual([
      `user: ${questions[2]}`,
      'assistant: answer 3',
      `user: ${questions[3]}`,
      'assistant: answer 4',
      `user: ${questions[4]}`,
    ]);
    // First call: an empty session, only the new message.
    expect(roleText(model.inputs[0])).toEqual([`user: ${questions[0]}`]);
    // The session stored every turn in full: 5 × (user + assistant).
    expect(strategy.getHistory()).toHaveLength(10);
    expect(await strategy.getItems()).toHaveLength(4);
  });

  it('summarizing: the model gets the summary pair, the kept turns and the new message', async () => {
    const strategy = build('summarizing', { context_limit: 3, keep_last_n_turns: 2, summarizer: { ...DEFAULT_SUMMARIZER } });
    const model = await drive(strategy);
    const last = roleText(model.lastInput);
    expect(last).toHaveLength(7);
    expect(last[0]).toBe(`user: ${SUMMARY_SHADOW}`);
    expect(last[1].startsWith('assistant: • Product & Environment:')).toBe(true);
    // Turns 1-2 were summarised after the 4th turn; their facts live on in the summary.
    expect(last[1]).toContain('AX3000');
    expect(last[1]).toContain('error 42');
    expect(last.slice(2)).toEqual([
      `user: ${questions[2]}`,
      'assistant: answer 3',
      `user: ${questions[3]}`,
      'assistant: answer 4',
      `user: ${questions[4]}`,
    ]);
    // The 4th call still saw everything verbatim (3 turns + the new message).
    expect(model.inputs[3]).toHaveLength(7);
    expect(roleText(model.inputs[3])[0]).toBe(`user: ${questions[0]}`);
    expect(strategy.getHistory()).toHaveLength(10);
    expect(strategy.events).toHaveLength(1);
    expect(strategy.events[0]).toMatchObject({ firstItem: 0, lastItem: 3 });
    const full = (strategy as SummarizingStrategy).getFullHistory();
    expect(full.map((r) => r.metadata.synthetic)).toEqual([true, true, false, false, false, false, false, false]);
    for (const item of model.lastInput) expect(Object.hasOwn(item, 'metadata')).toBe(false);
  });
});
