// Answers a probe through the real @openai/agents runner, so a run measures what
// production does: the runner reads the strategy's view through the Session
// interface, adds the question and calls the model. The strategy itself is never
// written to: probes go through a probe-only Session.
import {
  Agent,
  OpenAIProvider,
  Runner,
  Usage as SdkUsage,
  type AgentInputItem,
  type AgentOutputItem,
  type Model as SdkModel,
  type ModelRequest as SdkModelRequest,
  type ModelResponse as SdkModelResponse,
  type Session,
  type StreamEvent,
} from '@openai/agents';
import { randomUUID } from 'node:crypto';
import type { LimitFunction } from 'p-limit';
import { userMessage } from '../../core/items.js';
import { msSince, type Model, type ModelRequest, type ModelResult } from '../../core/model.js';
import { callResult, type OpenAIRunnerTarget } from './openai.js';
import { withRetry } from './retry.js';
import { redact } from '../../core/secrets.js';
import type { Usage } from '../../core/types.js';

/** Exactly what a probe sends: the caller can key an answer-level cache on it. */
export interface PreparedProbe {
  instructions?: string;
  /** The strategy's view when the probe was prepared (oldest first). */
  items: AgentInputItem[];
  question: string;
}

/** Reads the strategy's view once; the runner is later served this same snapshot. */
export async function prepareProbe(session: Session, question: string, instructions?: string): Promise<PreparedProbe> {
  const items = structuredClone(await session.getItems());
  return { instructions, items, question };
}

/** The request a prepared probe amounts to (what a Model would get; also a stable cache key input). */
export function probeRequest(probe: PreparedProbe, opts: { maxOutputTokens?: number; temperature?: number } = {}): ModelRequest {
  return {
    system: probe.instructions,
    input: [...probe.items, userMessage(probe.question)],
    maxOutputTokens: opts.maxOutputTokens,
    temperature: opts.temperature,
    purpose: 'answer',
  };
}

/**
 * A Session for one probe: reads come from the strategy's view (captured by
 * prepareProbe), writes stay here. The strategy's history is never touched.
 */
export class ProbeSession implements Session {
  private readonly id = `probe-${randomUUID()}`;
  private readonly added: AgentInputItem[] = [];

  constructor(private readonly view: readonly AgentInputItem[]) {}

  async getSessionId(): Promise<string> {
    return this.id;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = structuredClone([...this.view, ...this.added]);
    if (limit === undefined || limit === null) return items;
    return limit <= 0 ? [] : items.slice(-limit);
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    this.added.push(...items);
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    return this.added.pop();
  }

  async clearSession(): Promise<void> {
    this.added.length = 0;
  }

  /** Items the run added (the question and the reply). */
  addedItems(): readonly AgentInputItem[] {
    return this.added;
  }
}

function toInputItems(input: string | AgentInputItem[]): AgentInputItem[] {
  return typeof input === 'string' ? [userMessage(input)] : input;
}

function sdkUsage(usage: Usage): SdkUsage {
  return new SdkUsage({
    requests: 1,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
  });
}

/**
 * Lets the runner call any memeval Model (the offline reader, or a cached,
 * limited, retrying provider): SDK requests become ModelRequests and results
 * become SDK responses. Every result is kept for cost and cache accounting.
 */
export class SdkModelAdapter implements SdkModel {
  readonly results: ModelResult[] = [];

  constructor(
    private readonly model: Model,
    private readonly purpose: ModelRequest['purpose'] = 'answer',
  ) {}

  /** The memeval request an SDK request amounts to. */
  toRequest(request: SdkModelRequest): ModelRequest {
    const out: ModelRequest = { input: toInputItems(request.input), purpose: this.purpose };
    if (request.systemInstructions) out.system = request.systemInstructions;
    if (request.modelSettings.maxTokens !== undefined) out.maxOutputTokens = request.modelSettings.maxTokens;
    if (request.modelSettings.temperature !== undefined) out.temperature = request.modelSettings.temperature;
    const format = request.outputType;
    if (format !== 'text' && format.type === 'json_schema') out.responseFormat = { name: format.name, schema: format.schema };
    return out;
  }

  /** Calls the wrapped model; a failed call throws (the runner ends the run with it). */
  private async call(request: SdkModelRequest): Promise<ModelResult> {
    const result = await this.model.complete(this.toRequest(request));
    this.results.push(result);
    if (result.error !== undefined) throw new Error(result.error);
    return result;
  }

  async getResponse(request: SdkModelRequest): Promise<SdkModelResponse> {
    const result = await this.call(request);
    const output: AgentOutputItem[] = [
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: result.output }] },
    ];
    return { usage: sdkUsage(result.usage), output, responseId: `memeval-${randomUUID()}` };
  }

  async *getStreamedResponse(request: SdkModelRequest): AsyncIterable<StreamEvent> {
    const result = await this.call(request);
    const { inputTokens, outputTokens } = result.usage;
    yield {
      type: 'response_done',
      response: {
        id: `memeval-${randomUUID()}`,
        usage: { requests: 1, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: result.output }] }],
      },
    };
  }
}

export interface AnswerWithRunnerOptions {
  /** The strategy; ignored when `prepared` is given. */
  session?: Session;
  question: string;
  instructions?: string;
  /** A probe from prepareProbe (the exact instructions, items and question to send). */
  prepared?: PreparedProbe;
  /** A memeval Model (runs through SdkModelAdapter) or OpenAI client settings (runs through the SDK's own OpenAI models). */
  model: Model | OpenAIRunnerTarget;
  maxOutputTokens?: number;
  temperature?: number;
  /** The run's shared concurrency limit; used for OpenAI targets (a Model applies its own). */
  limit?: LimitFunction;
}

export interface RunnerAnswer extends ModelResult {
  probe: PreparedProbe;
  /** Items the runner would have added to the session (question and reply). */
  added: AgentInputItem[];
}

function isRunnerTarget(model: Model | OpenAIRunnerTarget): model is OpenAIRunnerTarget {
  return (model as OpenAIRunnerTarget).kind === 'openai';
}

function sumUsage(responses: readonly SdkModelResponse[]): Usage {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const response of responses) {
    inputTokens += response.usage.inputTokens;
    outputTokens += response.usage.outputTokens;
  }
  return { inputTokens, outputTokens };
}

function finalText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

interface RunOutcome {
  output: string;
  usage: Usage;
  added: AgentInputItem[];
}

async function runOnce(runner: Runner, agent: Agent, probe: PreparedProbe, signal?: AbortSignal): Promise<RunOutcome> {
  const session = new ProbeSession(probe.items);
  // One model call: a probe answers; tools and handoffs are not part of it.
  const result = await runner.run(agent, probe.question, { session, signal, maxTurns: 1 });
  return { output: finalText(result.finalOutput), usage: sumUsage(result.rawResponses), added: [...session.addedItems()] };
}

function makeAgent(probe: PreparedProbe, model: string | SdkModel, opts: AnswerWithRunnerOptions): Agent {
  return new Agent({
    name: 'memeval-probe',
    instructions: probe.instructions ?? '',
    model,
    modelSettings: { maxTokens: opts.maxOutputTokens, temperature: opts.temperature },
  });
}

async function answerViaOpenAI(probe: PreparedProbe, target: OpenAIRunnerTarget, opts: AnswerWithRunnerOptions): Promise<RunnerAnswer> {
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ openAIClient: await target.client(), useResponses: target.api === 'responses' }),
    tracingDisabled: true,
  });
  const agent = makeAgent(probe, target.name, opts);
  // Latency is timed from the moment the call starts, not from when it queued for a concurrency slot.
  let started = performance.now();
  // The target is the model's own RetryOptions, breaker included: a bad key found by either path stops both.
  const attempt = () => {
    started = performance.now();
    return withRetry((signal) => runOnce(runner, agent, probe, signal), target);
  };
  const outcome = await (opts.limit ? opts.limit(attempt) : attempt());
  const result = callResult(target.id, target.price, outcome, msSince(started));
  return { ...result, probe, added: outcome.ok ? outcome.value.added : [] };
}

async function answerViaModel(probe: PreparedProbe, model: Model, opts: AnswerWithRunnerOptions): Promise<RunnerAnswer> {
  const adapter = new SdkModelAdapter(model);
  const runner = new Runner({ modelProvider: { getModel: () => adapter }, tracingDisabled: true });
  const agent = makeAgent(probe, adapter, opts);
  const started = performance.now();
  try {
    const { output, usage, added } = await runOnce(runner, agent, probe);
    const results = adapter.results;
    const costs = results.map((r) => r.cost);
    const cost = costs.every((c) => c !== undefined) ? costs.reduce<number>((a, c) => a + (c ?? 0), 0) : undefined;
    const cached = results.length > 0 && results.every((r) => r.cached);
    return { output, usage, cost, cached, latencyMs: msSince(started), probe, added };
  } catch (error) {
    // The model's own error (already redacted) when it failed, else what the runner threw.
    const failed = adapter.results.find((r) => r.error !== undefined);
    const message = failed?.error ?? redact(error instanceof Error ? error.message : String(error));
    const usage = { inputTokens: 0, outputTokens: 0 };
    return { output: '', usage, cached: false, latencyMs: msSince(started), error: message, probe, added: [] };
  }
}

/**
 * Answers one probe through the Agents SDK runner. OpenAI targets use the SDK's
 * own OpenAI models (a scoped Runner with its own OpenAIProvider, tracing off);
 * any other Model (the offline reader) goes through SdkModelAdapter, so both
 * take the same runner path. Usage is the sum of the run's raw responses. Never
 * throws: a failure comes back as `error` with empty output.
 */
export async function answerWithRunner(opts: AnswerWithRunnerOptions): Promise<RunnerAnswer> {
  let probe = opts.prepared;
  if (!probe) {
    if (!opts.session) throw new Error('answerWithRunner needs a session or a prepared probe');
    probe = await prepareProbe(opts.session, opts.question, opts.instructions);
  }
  return isRunnerTarget(opts.model) ? answerViaOpenAI(probe, opts.model, opts) : answerViaModel(probe, opts.model, opts);
}
