// Answers a probe through the real @openai/agents runner, so a run measures what
// production does: the runner reads the strategy's view through the Session
// interface, adds the question and calls the model. The strategy itself is never
// written to: probes go through a probe-only Session.
import {
  Agent,
  ModelBehaviorError,
  OpenAIProvider,
  Runner,
  tool,
  Usage as SdkUsage,
  type AgentInputItem,
  type FunctionTool,
  type AssistantMessageItem,
  type FunctionCallItem,
  type Model as SdkModel,
  type ModelRequest as SdkModelRequest,
  type ModelResponse as SdkModelResponse,
  type Session,
  type SerializedTool,
  type StreamEvent,
} from '@openai/agents';
import { randomUUID } from 'node:crypto';
import type { LimitFunction } from 'p-limit';
import { userMessage } from '../../core/items.js';
import { accounting, msSince, tokenCount, type Model, type ModelRequest, type ModelResult } from '../../core/model.js';
import { EMPTY_REPLY, callResult, type OpenAIRunnerTarget } from './openai.js';
import { TransientError, withRetry } from './retry.js';
import { redact } from '../../core/secrets.js';
import type { ToolCall, ToolDefinition, Usage } from '../../core/types.js';

/** Exactly what a probe sends: the caller can key an answer-level cache on it. */
export interface PreparedProbe {
  instructions?: string;
  /** The strategy's view when the probe was prepared (oldest first). */
  items: AgentInputItem[];
  question: string;
  /** The tools offered with the question (a transcript's `tools:`); absent or empty: none. */
  tools?: ToolDefinition[];
}

/** Reads the strategy's view once; the runner is later served this same snapshot. */
export async function prepareProbe(session: Session, question: string, instructions?: string, tools?: ToolDefinition[]): Promise<PreparedProbe> {
  const items = structuredClone(await session.getItems());
  return { instructions, items, question, ...(tools?.length ? { tools } : {}) };
}

/** The request a prepared probe amounts to (what a Model would get; also a stable cache key input). */
export function probeRequest(probe: PreparedProbe, opts: { maxOutputTokens?: number; temperature?: number } = {}): ModelRequest {
  return {
    system: probe.instructions,
    input: [...probe.items, userMessage(probe.question)],
    maxOutputTokens: opts.maxOutputTokens,
    temperature: opts.temperature,
    ...(probe.tools?.length ? { tools: probe.tools } : {}),
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
    const tools = toolDefinitions(request.tools);
    if (tools.length > 0) out.tools = tools;
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
    const response: SdkModelResponse = { usage: sdkUsage(result.usage), output: outputItems(result), responseId: `memeval-${randomUUID()}` };
    // As a server's reply would carry them: none when the model's reply reported none.
    if (!result.usageUnknown) response.rawUsage = { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens };
    return response;
  }

  async *getStreamedResponse(request: SdkModelRequest): AsyncIterable<StreamEvent> {
    const result = await this.call(request);
    const { inputTokens, outputTokens } = result.usage;
    yield {
      type: 'response_done',
      response: {
        id: `memeval-${randomUUID()}`,
        usage: { requests: 1, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
        output: outputItems(result),
      },
    };
  }
}

/** The function tools of an SDK request, as a memeval request offers them. */
function toolDefinitions(tools: readonly SerializedTool[]): ToolDefinition[] {
  return tools.flatMap((t) => {
    if (t.type !== 'function') return [];
    return [{ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters as Record<string, unknown> }];
  });
}

/** A model's result as SDK output items: its text, then a function_call item per call it made. */
function outputItems(result: ModelResult): (AssistantMessageItem | FunctionCallItem)[] {
  const items: (AssistantMessageItem | FunctionCallItem)[] = [];
  // A reply made of calls alone has no message: an empty one would count as a final answer.
  if (result.output !== '' || !result.toolCalls?.length) {
    items.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: result.output }] });
  }
  for (const call of result.toolCalls ?? []) {
    items.push({ type: 'function_call', callId: `call_${randomUUID()}`, name: call.name, arguments: call.arguments, status: 'completed' });
  }
  return items;
}

export interface AnswerWithRunnerOptions {
  /** The strategy; ignored when `prepared` is given. */
  session?: Session;
  question: string;
  instructions?: string;
  /** A probe from prepareProbe (the exact instructions, items, question and tools to send). */
  prepared?: PreparedProbe;
  /** The tools to offer with the question; ignored when `prepared` is given. */
  tools?: ToolDefinition[];
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

/**
 * The usage of a run's responses together, read from the counts the server sent (the SDK keeps
 * them as `rawUsage` when asked to: its own usage reads a missing count as 0 and adds a
 * server's `"12"` as text); undefined when any response reported no usable counts.
 */
function sumUsage(responses: readonly SdkModelResponse[]): Usage | undefined {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const response of responses) {
    const raw = response.rawUsage;
    const input = tokenCount(raw?.input_tokens ?? raw?.prompt_tokens);
    const output = tokenCount(raw?.output_tokens ?? raw?.completion_tokens);
    if (input === undefined || output === undefined) return undefined;
    inputTokens += input;
    outputTokens += output;
  }
  return { inputTokens, outputTokens };
}

function finalText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

interface RunOutcome {
  output: string;
  /** Undefined when a response reported no usable token counts. */
  usage: Usage | undefined;
  added: AgentInputItem[];
  toolCalls?: ToolCall[];
}

/**
 * What a tool's stub returns. It is never read: the run stops at the model's
 * first call (the call is what a probe grades), and a transcript's own turns,
 * not the run, hold what tools returned.
 */
const STUB_RESULT = 'not run: the probe grades the call';

/** The SDK's type of a non-strict tool's JSON Schema. */
type NonStrictSchema = Extract<Parameters<typeof tool>[0]['parameters'], { additionalProperties: true }>;

/**
 * A transcript's tools as SDK function tools with a stub `execute`. Not strict,
 * like the direct path's, so the schema reaches the model as written. The SDK
 * rewrites a name's `-` to `_`; the APIs accept `-`, so the transcript's name is
 * put back: the model sees the tool the transcript declares, and its call is
 * graded against that name rather than failing as a wrong tool.
 */
function sdkTools(tools: readonly ToolDefinition[]): FunctionTool<unknown, NonStrictSchema>[] {
  return tools.map((def) => ({
    ...tool({
      name: def.name,
      description: def.description ?? '',
      // Checked by the loader as an object schema. Not strict, the SDK sends it as written; its
      // type asks for `required` and `additionalProperties: true`, which a schema may leave out.
      parameters: def.parameters as NonStrictSchema,
      strict: false,
      execute: () => STUB_RESULT,
    }),
    name: def.name,
  }));
}

/** The SDK's message for a Responses reply whose status is `failed`. */
const FAILED_REPLY = /unsuccessful terminal state "response\.failed"/;

/**
 * Every response the run's model gave in one attempt, read off the model itself:
 * the calls are graded from what the model said, even when the runner refuses
 * them (a call to a tool the agent lacks is a ModelBehaviorError).
 */
class ResponseLog {
  readonly responses: SdkModelResponse[] = [];

  wrap(model: SdkModel): SdkModel {
    const wrapped: SdkModel = {
      getResponse: async (request) => {
        let response: SdkModelResponse;
        try {
          response = await model.getResponse(request);
        } catch (error) {
          // The SDK reads `status: "failed"` as a behaviour error. The runner's fetch (checkedFetch) reports a failed
          // Responses reply first, with the server's words; any other client's is still retried, as the direct path does.
          if (error instanceof ModelBehaviorError && FAILED_REPLY.test(error.message)) throw new TransientError(`the Responses API reply failed (${error.message})`);
          throw error;
        }
        this.responses.push(response);
        // No text and no call: an error retried, as on the direct path, not a final answer of nothing.
        if (messageText([response]) === '' && callsOf([response]).length === 0) throw new TransientError(EMPTY_REPLY);
        return response;
      },
      getStreamedResponse: (request) => model.getStreamedResponse(request),
    };
    if (model.supportsPromptModelSelection !== undefined) Object.assign(wrapped, { supportsPromptModelSelection: model.supportsPromptModelSelection });
    if (model.getRetryAdvice) wrapped.getRetryAdvice = (args) => model.getRetryAdvice?.(args);
    return wrapped;
  }
}

/** The function calls of the responses, in order, as the model wrote them. */
function callsOf(responses: readonly SdkModelResponse[]): ToolCall[] {
  return responses.flatMap((r) => r.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: item.arguments }] : [])));
}

/** The text of the responses' assistant messages: what a model wrote beside its calls. */
function messageText(responses: readonly SdkModelResponse[]): string {
  const texts: string[] = [];
  for (const item of responses.flatMap((r) => r.output)) {
    if (item.type !== 'message' || item.role !== 'assistant') continue;
    for (const part of item.content) if (part.type === 'output_text') texts.push(part.text);
  }
  return texts.join('');
}

/** The outcome of a run whose model made calls: the calls, and its own text (the run's final output is the stub's). */
function callOutcome(log: ResponseLog, session: ProbeSession, calls: ToolCall[]): RunOutcome {
  return { output: messageText(log.responses), usage: sumUsage(log.responses), added: [...session.addedItems()], toolCalls: calls };
}

async function runOnce(runner: Runner, agent: Agent, probe: PreparedProbe, log: ResponseLog, signal?: AbortSignal): Promise<RunOutcome> {
  const session = new ProbeSession(probe.items);
  // Each attempt is graded on its own responses.
  log.responses.length = 0;
  try {
    // One model call: a probe answers, or makes the call it grades (stop_on_first_tool ends the run there).
    const result = await runner.run(agent, probe.question, { session, signal, maxTurns: 1 });
    const calls = callsOf(log.responses);
    if (calls.length > 0) return callOutcome(log, session, calls);
    return { output: finalText(result.finalOutput), usage: sumUsage(result.rawResponses), added: [...session.addedItems()] };
  } catch (error) {
    // The model answered with a call the runner refused (a tool the agent lacks): that call is the answer, graded as wrong.
    const calls = callsOf(log.responses);
    if (error instanceof ModelBehaviorError && calls.length > 0) return callOutcome(log, session, calls);
    throw error;
  }
}

function makeAgent(probe: PreparedProbe, model: string | SdkModel, opts: AnswerWithRunnerOptions): Agent {
  const tools = probe.tools?.length ? { tools: sdkTools(probe.tools), toolUseBehavior: 'stop_on_first_tool' as const } : {};
  return new Agent({
    name: 'memeval-probe',
    instructions: probe.instructions ?? '',
    model,
    // The server's own usage counts are kept beside the SDK's (sumUsage reads them).
    modelSettings: { maxTokens: opts.maxOutputTokens, temperature: opts.temperature, preserveRawUsage: true },
    ...tools,
  });
}

async function answerViaOpenAI(probe: PreparedProbe, target: OpenAIRunnerTarget, opts: AnswerWithRunnerOptions): Promise<RunnerAnswer> {
  const provider = new OpenAIProvider({ openAIClient: await target.client(), useResponses: target.api === 'responses' });
  const log = new ResponseLog();
  const runner = new Runner({ modelProvider: { getModel: async (name) => log.wrap(await provider.getModel(name)) }, tracingDisabled: true });
  const agent = makeAgent(probe, target.name, opts);
  // Latency is timed from the moment the call starts, not from when it queued for a concurrency slot.
  let started = performance.now();
  // The target is the model's own RetryOptions, breaker included: a bad key found by either path stops both.
  const attempt = () => {
    started = performance.now();
    return withRetry((signal) => runOnce(runner, agent, probe, log, signal), target);
  };
  const outcome = await (opts.limit ? opts.limit(attempt) : attempt());
  const result = callResult(target.id, target.price, outcome, msSince(started));
  return { ...result, probe, added: outcome.ok ? outcome.value.added : [] };
}

async function answerViaModel(probe: PreparedProbe, model: Model, opts: AnswerWithRunnerOptions): Promise<RunnerAnswer> {
  const adapter = new SdkModelAdapter(model);
  const log = new ResponseLog();
  const logged = log.wrap(adapter);
  const runner = new Runner({ modelProvider: { getModel: () => logged }, tracingDisabled: true });
  const agent = makeAgent(probe, logged, opts);
  const started = performance.now();
  try {
    const { output, usage, added, toolCalls } = await runOnce(runner, agent, probe, log);
    const results = adapter.results;
    const costs = results.map((r) => r.cost);
    const cost = costs.every((c) => c !== undefined) ? costs.reduce<number>((a, c) => a + (c ?? 0), 0) : undefined;
    const cached = results.length > 0 && results.every((r) => r.cached);
    const counted = accounting(usage, () => cost);
    return { output, ...counted, cached, latencyMs: msSince(started), probe, added, ...(toolCalls ? { toolCalls } : {}) };
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
    probe = await prepareProbe(opts.session, opts.question, opts.instructions, opts.tools);
  }
  return isRunnerTarget(opts.model) ? answerViaOpenAI(probe, opts.model, opts) : answerViaModel(probe, opts.model, opts);
}
