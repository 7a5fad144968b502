// The offline extractive summarizer and the summary input it shares with
// model summarizers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../../core/errors.js';
import { assistantMessage, userMessage } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { OfflineSummarizer, SUMMARY_HEADINGS, scoreSentence, sectionFor } from '../../strategies/offline-summarizer.js';
import { DEFAULT_SUMMARIZER } from '../../strategies/registry.js';
import { buildSummaryInput, loadSummaryPrompt, SUMMARY_SHADOW } from '../../strategies/summary-input.js';

const router: AgentInputItem[] = [
  userMessage("Hi, my router won't connect. I am using Windows 10. I am based in the US and one of Premium customers."),
  assistantMessage("Let's check your firmware version."),
  userMessage('Firmware v1.0.3; still failing.'),
  assistantMessage('Try a factory reset.'),
  { type: 'function_call', callId: 'c1', name: 'lookup_device', arguments: '{"serial":"RX-88812"}' },
  { type: 'function_call_result', callId: 'c1', name: 'lookup_device', status: 'completed', output: '{"model":"AX3000","firmware":"1.0.3"}' },
  userMessage('Reset done; error 42 now. On 2025-03-02 at 10:32 I opened ticket #4417.'),
  assistantMessage('Install the new firmware from the support site.'),
];

const words = (text: string) => text.split(/\s+/).filter((w) => w.length > 0).length;

describe('buildSummaryInput', () => {
  it('writes one ROLE: text line per item with text and trims long tool outputs', () => {
    const items: AgentInputItem[] = [
      userMessage('  hello  '),
      { type: 'reasoning', content: [] } as unknown as AgentInputItem,
      { type: 'function_call', callId: 'a', name: 'f', arguments: '{}' },
      { type: 'function_call_result', callId: 'a', name: 'f', status: 'completed', output: 'x'.repeat(12) },
      assistantMessage('bye'),
    ];
    expect(buildSummaryInput(items, 5).split('\n')).toEqual(['USER: hello', 'TOOL_CALL: f({})', 'TOOL: xxxxx …', 'ASSISTANT: bye']);
    expect(buildSummaryInput(items, 12)).toContain('TOOL: xxxxxxxxxxxx\n');
  });

  it('leaves out reasoning items with text: no request carries them, so no summary may', () => {
    const thoughts = { type: 'reasoning', content: [{ type: 'input_text', text: 'private step0 step1' }] } as unknown as AgentInputItem;
    expect(buildSummaryInput([userMessage('hello'), thoughts, assistantMessage('bye')], 100)).toBe('USER: hello\nASSISTANT: bye');
  });

  it('loads the cookbook prompt by default, hashes it, and reports a missing prompt as an InputError', () => {
    const prompt = loadSummaryPrompt();
    expect(prompt.text.startsWith('You are a senior customer-support assistant')).toBe(true);
    for (const h of SUMMARY_HEADINGS) expect(prompt.text).toContain(`• ${h}:`);
    expect(prompt.hash).toMatch(/^[0-9a-f]{12}$/);
    const dir = mkdtempSync(join(tmpdir(), 'memeval-prompt-'));
    const other = join(dir, 'p.md');
    writeFileSync(other, 'Summarise briefly.');
    expect(loadSummaryPrompt(other)).toMatchObject({ text: 'Summarise briefly.', path: other });
    expect(loadSummaryPrompt(other).hash).not.toBe(prompt.hash);
    try {
      loadSummaryPrompt(join(dir, 'missing.md'));
      expect.unreachable();
    } catch (err) {
      expect(isInputError(err)).toBe(true);
      expect(String((err as Error).message)).toContain('missing.md');
    }
  });
});

describe('OfflineSummarizer', () => {
  it('keeps identifiers, numbers, names and dates under the cookbook headings', async () => {
    const out = await new OfflineSummarizer(DEFAULT_SUMMARIZER).summarize(router);
    const headings = out.summary.split('\n').filter((l) => l.startsWith('• '));
    expect(headings).toEqual(SUMMARY_HEADINGS.map((h) => `• ${h}:`));
    for (const fact of ['Windows 10', 'US', 'Premium', 'v1.0.3', 'error 42', 'RX-88812', 'AX3000', '#4417', '10:32']) {
      expect(out.summary).toContain(fact);
    }
    // Assistant questions and filler state no facts.
    expect(out.summary).not.toContain("Let's check your firmware version.");
    const next = out.summary.split('• Next Recommended Step:\n')[1];
    expect(next).toBe('  - Install the new firmware from the support site.');
    expect(out.userShadow).toBe(SUMMARY_SHADOW);
    expect(out.request.system).toBe(loadSummaryPrompt().text);
    expect(out.request.user).toBe(buildSummaryInput(router, DEFAULT_SUMMARIZER.tool_trim_limit));
    expect(out.promptHash).toBe(loadSummaryPrompt().hash);
  });

  it('is deterministic and counts usage with tiktoken', async () => {
    const counter = new TokenCounter();
    const a = await new OfflineSummarizer(DEFAULT_SUMMARIZER, counter).summarize(router);
    const b = await new OfflineSummarizer(DEFAULT_SUMMARIZER, counter).summarize(router);
    expect(a.summary).toBe(b.summary);
    expect(a.usage.outputTokens).toBe(counter.text(a.summary));
    expect(a.usage.inputTokens).toBe(counter.request(a.request.system, [userMessage(a.request.user)]));
  });

  it('stays within word_limit, newer statements winning ties', async () => {
    const many: AgentInputItem[] = [];
    for (let i = 1; i <= 30; i++) many.push(userMessage(`Order ORD-${1000 + i} shipped to Berlin.`));
    const out = await new OfflineSummarizer({ ...DEFAULT_SUMMARIZER, word_limit: 60 }).summarize(many);
    expect(words(out.summary)).toBeLessThanOrEqual(60);
    expect(out.summary).toContain('ORD-1030');
    expect(out.summary).not.toContain('ORD-1001');
    for (const h of SUMMARY_HEADINGS) expect(out.summary).toContain(`• ${h}:`);
  });

  it('re-summarises an earlier summary without losing its facts, keeping the newer value', async () => {
    const s = new OfflineSummarizer(DEFAULT_SUMMARIZER);
    const first = await s.summarize(router);
    const second = await s.summarize([
      userMessage(SUMMARY_SHADOW),
      assistantMessage(first.summary),
      userMessage('I upgraded to firmware v1.0.4 now and error 42 is gone.'),
    ]);
    for (const fact of ['Windows 10', 'RX-88812', '#4417', 'v1.0.4']) expect(second.summary).toContain(fact);
    expect(second.summary).not.toContain(SUMMARY_SHADOW);
    // Each heading appears once, not nested from the first summary.
    expect(second.summary.split('• Identifiers:')).toHaveLength(2);
  });

  it('scores and files sentences by the documented rules', () => {
    expect(scoreSentence('Let me know?', 'ASSISTANT')).toBeLessThan(2);
    expect(scoreSentence('This is my third time calling you.', 'USER')).toBeLessThan(2);
    expect(scoreSentence('My serial is RX-88812.', 'USER')).toBeGreaterThanOrEqual(4);
    expect(sectionFor('My serial is RX-88812.', 'USER')).toBe('Identifiers');
    expect(sectionFor('It broke on 2025-03-02 at 10:32.', 'USER')).toBe('Timeline Milestones');
    expect(sectionFor('Firmware v1.0.3 installed.', 'USER')).toBe('Product & Environment');
    expect(sectionFor('I tried a reboot.', 'USER')).toBe('Steps Tried & Results');
    expect(sectionFor('{"ok":true}', 'TOOL')).toBe('Tool Performance Insights');
    expect(sectionFor('The router will not connect, error shown.', 'USER')).toBe('Reported Issue');
  });
});

describe('the offline summarizer’s token counter', () => {
  it('gives the offline summarizer the same usage with its own or a shared counter', async () => {
    const shared = new TokenCounter();
    const out = await new OfflineSummarizer(DEFAULT_SUMMARIZER, shared).summarize(router);
    expect(out.usage.inputTokens).toBe(new TokenCounter().request(out.request.system, [userMessage(out.request.user)]));
    expect(shared.distinctTexts).toBeGreaterThan(0);
    // With a counter of its own the summarizer counts the same.
    expect((await new OfflineSummarizer(DEFAULT_SUMMARIZER).summarize(router)).usage).toEqual(out.usage);
  });
});
