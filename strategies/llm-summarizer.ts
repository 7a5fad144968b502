// The cookbook's LLMSummarizer on the `Model` interface: the summary prompt as
// system message, the prefix as `ROLE: text` lines as the user message. It
// takes memeval's own Model or an Agents SDK Model, so production code can
// summarise with the model object its agents already use.
import type { Model as SdkModel, ModelRequest as SdkModelRequest, ModelResponse as SdkModelResponse } from '@openai/agents';
import { userMessage } from '../core/items.js';
import { msSince, type Model, type ModelRequest, type ModelResult } from '../core/model.js';
import { redact } from '../core/secrets.js';
import type { AgentInputItem } from '../core/types.js';
import type { Summarizer, SummaryOutput } from './base.js';
import type { SummarizerOptions } from './registry.js';
import { buildSummaryInput, loadSummaryPrompt, SUMMARY_SHADOW, type SummaryPrompt } from './summary-input.js';

/** How records name an Agents SDK model, which carries no name of its own. */
export const SDK_MODEL_LABEL = 'agents-sdk-model';

export interface LlmSummarizerOptions {
  /** memeval's Model, or an `@openai/agents` Model (anything with `getResponse`). */
  model: Model | SdkModel;
  /** The summarizer's name in records; defaults to the Model's `id`, or SDK_MODEL_LABEL for an SDK model. */
  label?: string;
  /** Output cap sent as `maxOutputTokens` (the cookbook's max_tokens). */
  maxTokens: number;
  /** Tool outputs longer than this many characters are cut with " …". */
  toolTrimLimit: number;
  /** Summary prompt file; the cookbook prompt when omitted. */
  promptPath?: string;
}

function isMemevalModel(model: Model | SdkModel): model is Model {
  return typeof (model as Partial<Model>).complete === 'function';
}

/** A text-only request: a summary needs no tools, handoffs or structured output. */
function sdkRequest(request: ModelRequest): SdkModelRequest {
  const modelSettings: SdkModelRequest['modelSettings'] = {};
  if (request.maxOutputTokens !== undefined) modelSettings.maxTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) modelSettings.temperature = request.temperature;
  return {
    systemInstructions: request.system,
    input: request.input,
    modelSettings,
    tools: [],
    handoffs: [],
    outputType: 'text',
    tracing: false,
  };
}

/** The assistant's text: every output_text part of every assistant message, in order. */
function outputText(response: SdkModelResponse): string {
  const texts: string[] = [];
  for (const item of response.output) {
    if (item.type !== 'message' || item.role !== 'assistant') continue;
    for (const part of item.content) if (part.type === 'output_text') texts.push(part.text);
  }
  return texts.join('');
}

function failed(error: unknown, latencyMs: number): ModelResult {
  const message = error instanceof Error ? error.message : String(error);
  // Provider errors can echo a key, and this message ends up in records.
  return { output: '', usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs, error: redact(message) };
}

/** An Agents SDK Model behind memeval's Model interface: one getResponse per call, failures returned, not thrown. */
export function fromSdkModel(model: SdkModel, id: string = SDK_MODEL_LABEL): Model {
  return {
    id,
    params: {},
    async complete(request: ModelRequest): Promise<ModelResult> {
      const started = performance.now();
      try {
        const response = await model.getResponse(sdkRequest(request));
        const usage = { inputTokens: response.usage?.inputTokens ?? 0, outputTokens: response.usage?.outputTokens ?? 0 };
        return { output: outputText(response), usage, cached: false, latencyMs: msSince(started) };
      } catch (error) {
        return failed(error, msSince(started));
      }
    },
  };
}

export class LlmSummarizer implements Summarizer {
  readonly label: string;
  private readonly model: Model;
  private readonly maxTokens: number;
  private readonly toolTrimLimit: number;
  private readonly prompt: SummaryPrompt;

  constructor(options: LlmSummarizerOptions) {
    this.model = isMemevalModel(options.model) ? options.model : fromSdkModel(options.model, options.label);
    this.label = options.label ?? this.model.id;
    this.maxTokens = options.maxTokens;
    this.toolTrimLimit = options.toolTrimLimit;
    // Loaded once: every summary of a run uses the same prompt, and its hash labels the records.
    this.prompt = loadSummaryPrompt(options.promptPath);
  }

  async summarize(items: AgentInputItem[]): Promise<SummaryOutput> {
    const request = { system: this.prompt.text, user: buildSummaryInput(items, this.toolTrimLimit) };
    const call: ModelRequest = { system: request.system, input: [userMessage(request.user)], maxOutputTokens: this.maxTokens, purpose: 'summary' };
    const result = await this.model.complete(call);
    // Thrown so the summarising strategy records the failure as an event error.
    if (result.error) throw new Error(`summarizer ${this.label} failed: ${result.error}`);
    const summary = result.output.trim();
    if (summary.length === 0) {
      // Not kept in the cache: a rerun or --resume asks again rather than reading back the same nothing.
      await this.model.forget?.(call);
      throw new Error(`summarizer ${this.label} returned an empty summary`);
    }
    return {
      userShadow: SUMMARY_SHADOW,
      summary,
      request,
      usage: result.usage,
      durationMs: result.latencyMs,
      promptPath: this.prompt.label,
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
