import { describe, expect, it } from 'vitest';
import { assistantMessage, userMessage } from '../../../core/items.js';
import type { ModelRequest } from '../../../core/model.js';
import { ABSTAIN_ANSWER, OfflineModel, contentStems, identifiers, splitSentences } from '../../../harness/models/offline.js';
import { TokenCounter } from '../../../core/tokens.js';
import type { AgentInputItem } from '../../../core/types.js';

function ask(context: AgentInputItem[], question: string, system?: string): ModelRequest {
  return { system, input: [...context, userMessage(question)], purpose: 'answer' };
}

const router: AgentInputItem[] = [
  userMessage('Hi, my router keeps dropping the connection.'),
  assistantMessage('Sorry to hear that. Could you tell me your order number?'),
  userMessage('Sure, my order number is RX-88812. I bought it in March.'),
  assistantMessage('Thanks. Which model is it?'),
  userMessage('It is the AX3000 and the firmware is 1.0.3.'),
  assistantMessage('Please restart it and check the lights.'),
];

describe('offline extractive reader', () => {
  const model = new OfflineModel();

  it('answers with the sentence that states the fact', async () => {
    const result = await model.complete(ask(router, 'What is my order number?'));
    expect(result.output).toContain('RX-88812');
    expect(result.error).toBeUndefined();
    const firmware = await model.complete(ask(router, 'Which firmware is on the router?'));
    expect(firmware.output).toContain('1.0.3');
  });

  it('prefers a statement over an earlier question using the same words', () => {
    // The assistant's "Could you tell me your order number?" shares the words but states nothing.
    expect(model.answer(ask(router, 'What was the order number again?'))).not.toContain('Could you tell me');
  });

  it('abstains when nothing in the context shares a content word', async () => {
    const result = await model.complete(ask(router, "What is my dog's name?"));
    expect(result.output).toBe(ABSTAIN_ANSWER);
  });

  it('abstains on an empty context and on a question of stop words only', () => {
    expect(model.answer(ask([], 'What is my order number?'))).toBe(ABSTAIN_ANSWER);
    expect(model.answer(ask(router, 'What was it?'))).toBe(ABSTAIN_ANSWER);
  });

  it('never answers from a fact that was trimmed away', () => {
    const trimmed = router.slice(4);
    expect(model.answer(ask(trimmed, 'What is my order number?'))).toBe(ABSTAIN_ANSWER);
  });

  it('prefers the updated value after a knowledge update', () => {
    const context = [
      userMessage('My delivery address is 12 Oak Street.'),
      assistantMessage('Noted.'),
      userMessage('Actually, change my delivery address to 9 Elm Road.'),
      assistantMessage('Done.'),
    ];
    const answer = model.answer(ask(context, 'What is my delivery address?'));
    expect(answer).toContain('9 Elm Road');
    expect(answer).not.toContain('Oak');
  });

  it('reads the system text and tool outputs too', () => {
    const context: AgentInputItem[] = [
      userMessage('Look up my plan please.'),
      { type: 'function_call', callId: 'c1', name: 'get_plan', arguments: '{}' },
      { type: 'function_call_result', callId: 'c1', name: 'get_plan', status: 'completed', output: 'Plan: Gold tier, renews 2026-04-01.' },
    ];
    expect(model.answer(ask(context, 'When does the plan renew?'))).toContain('2026-04-01');
    expect(model.answer(ask([], 'Which store is this?', 'You are the help desk of Lumen Store.'))).toContain('Lumen Store');
  });

  it('only uses items before the question, never the reference answer', () => {
    const answer = model.answer({ input: [userMessage('What is my order number?')] });
    expect(answer).toBe(ABSTAIN_ANSWER);
  });

  it('cuts a long sentence to a window around the match', () => {
    const filler = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const context = [userMessage(`${filler} the serial code is QZ-7731 ${filler}`)];
    const answer = model.answer(ask(context, 'What is the serial code?'));
    expect(answer).toContain('QZ-7731');
    expect(answer.length).toBeLessThan(320);
  });

  it('is deterministic and reports tiktoken usage with zero cost', async () => {
    const request = ask(router, 'What is my order number?');
    const a = await model.complete(request);
    const b = await model.complete(request);
    expect(a.output).toBe(b.output);
    const counter = new TokenCounter();
    expect(a.usage.inputTokens).toBe(counter.request(undefined, request.input));
    expect(a.usage.outputTokens).toBe(counter.text(a.output));
    expect(a.cost).toBe(0);
    expect(a.cached).toBe(false);
    expect(model.id).toBe('offline');
  });

  it('has small, explainable text helpers', () => {
    expect(contentStems('codes coded code')).toEqual(contentStems('code'));
    expect(contentStems('moved')).toEqual(contentStems('moving'));
    expect(contentStems('firmware 1.0.3')).toEqual(new Set(['firmwar', '1.0.3']));
    expect([...contentStems('What is my order number?')].sort()).toEqual(['number', 'order']);
    expect(identifiers('Sure, my order is RX-88812 from Berlin.')).toEqual(new Set(['rx-88812', 'berlin']));
    expect(splitSentences('Firmware is v1.0.3. Model AX3000!\nNext line; clause two')).toEqual([
      'Firmware is v1.0.3.',
      'Model AX3000!',
      'Next line',
      'clause two',
    ]);
  });
});
