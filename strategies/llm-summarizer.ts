// The cookbook's LLMSummarizer on the `Model` interface: the summary prompt as
// system message, the prefix as `ROLE: text` lines as the user message.
import { userMessage } from '../core/items.js';
import type { Model } from '../core/model.js';
import type { AgentInputItem } from '../core/types.js';
import type { Summarizer, SummaryOutput } from './base.js';
import type { SummarizerOptions } from './registry.js';
import { buildSummaryInput, loadSummaryPrompt, promptLabel, SUMMARY_SHADOW } from './summary-input.js';

export interface LlmSummarizerOptions {
  model: Model;
  /** Output cap sent as `maxOutputTokens` (the cookbook's max_tokens). */
  maxTokens: number;
  /** Tool outputs longer than this many characters are cut with " …". */
  toolTrimLimit: number;
  /** Summary prompt file; the cookbook prompt when omitted. */
  promptPath?: string;
}

export class LlmSummarizer implements Summarizer {
  readonly label: string;
  private readonly model: Model;
  private readonly maxTokens: number;
  private readonly toolTrimLimit: number;
  private readonly prompt: { text: string; path: string; hash: string };

  constructor(options: LlmSummarizerOptions) {
    this.model = options.model;
    this.label = options.model.id;
    this.maxTokens = options.maxTokens;
    this.toolTrimLimit = options.toolTrimLimit;
    // Loaded once: every summary of a run uses the same prompt, and its hash labels the records.
    this.prompt = loadSummaryPrompt(options.promptPath);
  }

  async summarize(items: AgentInputItem[]): Promise<SummaryOutput> {
    const request = { system: this.prompt.text, user: buildSummaryInput(items, this.toolTrimLimit) };
    const result = await this.model.complete({
      system: request.system,
      input: [userMessage(request.user)],
      maxOutputTokens: this.maxTokens,
      purpose: 'summary',
    });
    // Thrown so the summarising strategy records the failure as an event error.
    if (result.error) throw new Error(`summarizer ${this.label} failed: ${result.error}`);
    const summary = result.output.trim();
    if (summary.length === 0) throw new Error(`summarizer ${this.label} returned an empty summary`);
    return {
      userShadow: SUMMARY_SHADOW,
      summary,
      request,
      usage: result.usage,
      durationMs: result.latencyMs,
      // Relative to the working directory: the summarizer does not know the config's folder.
      promptPath: promptLabel(this.prompt.path),
      promptHash: this.prompt.hash,
    };
  }
}

/** Builds the summarizer a strategy's `summarizer:` block asks for, given its model. */
export function createLlmSummarizer(options: SummarizerOptions, model: Model): LlmSummarizer {
  return new LlmSummarizer({
    model,
    maxTokens: options.max_tokens,
    toolTrimLimit: options.tool_trim_limit,
    promptPath: options.prompt,
  });
}
