// Any OpenAI-compatible server (OpenAI, Azure OpenAI v1, Ollama, vLLM, LiteLLM)
// through the official `openai` client: the Responses API by default, Chat
// Completions with `api: 'chat'`. Retries are ours (harness/retry.ts), so the
// client is built with `maxRetries: 0`; a circuit breaker (harness/breaker.ts)
// stops calls that no retry can fix.
import type OpenAI from 'openai';
import { DEFAULT_OPENAI_BASE_URL, publicBaseURL } from './endpoint.js';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type { FunctionTool, ResponseCreateParamsNonStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import { itemRole, itemText, itemType } from '../../core/items.js';
import { accounting, msSince, tokenCount, type Model, type ModelRequest, type ModelResult } from '../../core/model.js';
import { costOf, type Price } from './prices.js';
import { Breakers, type Endpoint, type EndpointRoute } from './breaker.js';
import { PermanentError, TransientError, withRetry, type RetryGuard, type RetryOptions, type RetryOutcome } from './retry.js';
import { redact, registerSecret } from '../../core/secrets.js';
import type { AgentInputItem, ToolCall, ToolDefinition, Usage } from '../../core/types.js';

export type OpenAIApi = 'responses' | 'chat';

export interface OpenAIModelOptions {
  /** Model name the server knows, e.g. `gpt-4.1-mini` or `llama3.1`. */
  name: string;
  /** Provider label used in the id (`<provider>:<name>`); default `openai`. */
  provider?: string;
  api?: OpenAIApi;
  /** Default for the `openai` provider: `OPENAI_BASE_URL`, then the client's default. */
  baseURL?: string;
  /** Default for the `openai` provider: `OPENAI_API_KEY`. */
  apiKey?: string;
  /** The variable the key came from, named in the fix hint of a rejected key. */
  keyEnv?: string;
  /** The registry whose breaker guards this model's endpoint; default a registry of this model's own. */
  breakers?: Breakers;
  timeoutMs?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  price?: Price;
  /** Chat Completions field for the output limit. OpenAI wants `max_completion_tokens`; many compatible servers only know `max_tokens`. */
  chatMaxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Injected in tests to record backoff waits instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * What the Agents SDK runner needs to call this model the way production does.
 * It is also the model's own RetryOptions (the very settings its direct calls
 * use), so both paths retry, back off and time out alike.
 */
/** An OpenAI model as a batch submits to it. */
export interface OpenAIBatchTarget {
  id: string;
  baseURL: string | undefined;
  apiKey: string;
  timeoutMs: number;
  endpoint: '/v1/responses' | '/v1/chat/completions';
  price: Price | undefined;
  /** The request body a direct call would send. */
  body: (request: ModelRequest) => Record<string, unknown>;
  /** Text, usage and tool calls of a reply body; throws on a body that is not a reply. */
  parse: (reply: unknown) => ParsedReply;
}

/** What a reply body says: its text, its usage, and the tool calls it made (absent: none). */
export interface ParsedReply {
  output: string;
  /** Undefined when the reply reported no usable token counts. */
  usage: Usage | undefined;
  toolCalls?: ToolCall[];
}

export interface OpenAIRunnerTarget extends RetryOptions {
  kind: 'openai';
  id: string;
  /** Built on first use (see OpenAIModel). */
  client: () => Promise<OpenAI>;
  name: string;
  api: OpenAIApi;
  price?: Price;
  /** The model's circuit breaker: the runner path trips and honours the same one. */
  guard: RetryGuard;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
// Under 30% independent transient faults, 0.3^6 ≈ 0.07% of calls exhaust their
// retries, well inside the 1% a run may lose.
export const DEFAULT_MAX_ATTEMPTS = 6;
const DEFAULT_BASE_DELAY_MS = 1_000;
const DEFAULT_MAX_DELAY_MS = 30_000;

type AnyRecord = Record<string, unknown>;

function systemText(item: AgentInputItem): boolean {
  const role = itemRole(item);
  return itemType(item) === 'message' && (role === 'system' || role === 'developer');
}

function callFields(item: AgentInputItem): { callId: string; name: string; arguments: string } {
  const rec = item as unknown as AnyRecord;
  return { callId: String(rec.callId ?? ''), name: String(rec.name ?? ''), arguments: String(rec.arguments ?? '') };
}

/**
 * SDK items → Responses API input. Reasoning items are dropped: they are a model's
 * private state, and the API only accepts ones it issued itself (by id). A
 * `compaction` item is kept: it is how a compacted history is sent back. The
 * types kept are core/items.ts SENT_TYPES, which is what the replay measures.
 */
export function toResponsesInput(items: AgentInputItem[]): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const item of items) {
    const type = itemType(item);
    if (type === 'message') {
      const role = itemRole(item);
      if (role === 'user' || role === 'system' || role === 'developer') out.push({ role, content: itemText(item) });
      else out.push({ role: 'assistant', content: itemText(item) });
    } else if (type === 'function_call') {
      const call = callFields(item);
      out.push({ type: 'function_call', call_id: call.callId, name: call.name, arguments: call.arguments });
    } else if (type === 'function_call_result') {
      out.push({ type: 'function_call_output', call_id: callFields(item).callId, output: itemText(item) });
    } else if (type === 'compaction') {
      // A server's compacted history (openai-compaction): opaque here, passed back as the server issued it.
      const content = (item as unknown as AnyRecord).encrypted_content;
      if (typeof content === 'string') out.push({ type: 'compaction', encrypted_content: content });
    }
  }
  return out;
}

/**
 * SDK items → Chat Completions messages. Consecutive tool calls become one
 * assistant message with `tool_calls`; results become `tool` messages; reasoning
 * items are dropped (the API has no place for them).
 */
export function toChatMessages(system: string | undefined, items: AgentInputItem[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  let pendingCalls: ChatCompletionMessageToolCall[] | undefined;
  for (const item of items) {
    const type = itemType(item);
    if (type === 'function_call') {
      const call = callFields(item);
      if (!pendingCalls) {
        pendingCalls = [];
        out.push({ role: 'assistant', content: null, tool_calls: pendingCalls });
      }
      pendingCalls.push({ id: call.callId, type: 'function', function: { name: call.name, arguments: call.arguments } });
      continue;
    }
    pendingCalls = undefined;
    if (type === 'function_call_result') {
      out.push({ role: 'tool', tool_call_id: callFields(item).callId, content: itemText(item) });
    } else if (type === 'message') {
      const role = itemRole(item);
      if (systemText(item)) out.push({ role: role === 'developer' ? 'developer' : 'system', content: itemText(item) });
      else if (role === 'user') out.push({ role: 'user', content: itemText(item) });
      else out.push({ role: 'assistant', content: itemText(item) });
    }
  }
  return out;
}

/**
 * A transcript's tools as the Responses API takes them. Not strict: strict mode
 * rewrites a schema's optional properties as required, and a transcript's schema
 * is sent as written, so every path offers the model the same tool.
 */
export function responsesTools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
}

/** A transcript's tools as Chat Completions takes them. */
export function chatTools(tools: readonly ToolDefinition[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/** The request's tools, or undefined when it offers none: such a body has no `tools` key, as before tools existed. */
function offeredTools(request: ModelRequest): readonly ToolDefinition[] | undefined {
  return request.tools?.length ? request.tools : undefined;
}

/** The Responses API body of a request. */
export function responsesBody(name: string, request: ModelRequest): ResponseCreateParamsNonStreaming {
  const body: ResponseCreateParamsNonStreaming = { model: name, input: toResponsesInput(request.input) };
  const tools = offeredTools(request);
  if (request.system) body.instructions = request.system;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.responseFormat) {
    const { name: formatName, schema } = request.responseFormat;
    body.text = { format: { type: 'json_schema', name: formatName, schema, strict: true } };
  }
  if (tools) body.tools = responsesTools(tools);
  return body;
}

/** The Chat Completions body of a request. */
export function chatBody(
  name: string,
  request: ModelRequest,
  maxTokensField: 'max_completion_tokens' | 'max_tokens' = 'max_completion_tokens',
): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming = { model: name, messages: toChatMessages(request.system, request.input) };
  const tools = offeredTools(request);
  if (request.maxOutputTokens !== undefined) body[maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.responseFormat) {
    const { name: formatName, schema } = request.responseFormat;
    body.response_format = { type: 'json_schema', json_schema: { name: formatName, schema, strict: true } };
  }
  if (tools) body.tools = chatTools(tools);
  return body;
}

function asRecord(value: unknown): AnyRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as AnyRecord) : undefined;
}

const NOT_JSON = "the server's reply was not a JSON object (is the base URL an OpenAI-compatible /v1 endpoint?)";

const BODY_PREVIEW_CHARS = 80;

// A gateway hiccup answers 200 with its own HTML page or a cut-off body, and the
// next attempt usually succeeds; a wrong base URL does it every time, hence the hint.
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Redacted before cutting, so a key split at the cut cannot slip past the patterns.
    const preview = JSON.stringify(redact(text).slice(0, BODY_PREVIEW_CHARS));
    throw new TransientError(`the reply was not valid JSON: ${preview} (if this persists, check that the base URL is an OpenAI-compatible /v1 endpoint)`);
  }
}

async function readJson(response: Response): Promise<unknown> {
  return parseBody(await response.text());
}

/**
 * fetch for the client handed to the Agents SDK runner: a 2xx reply must be JSON,
 * and a Responses reply must not have failed. The SDK parses replies inside the
 * client, where an HTML page turns into a TypeError that looks like a bug and is
 * never retried, and a failed reply into a message without the server's words;
 * failing here gives the errors the direct path gets from readJson and
 * parseResponsesReply (the client wraps them; classifyFailure finds them).
 */
const checkedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const type = response.headers.get('content-type') ?? '';
  // Error statuses are the client's to read; streams cannot be read ahead.
  if (!response.ok || response.status === 204 || type.includes('text/event-stream')) return response;
  const text = await response.text();
  const body = asRecord(parseBody(text));
  // The SDK reads a failed reply as "unsuccessful terminal state" and drops the server's error: judged here, as the direct path does.
  if (body?.object === 'response' && body.status === 'failed') checkResponsesStatus(body, false);
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
};

function jsonReply(raw: unknown): AnyRecord {
  const rec = asRecord(raw);
  if (!rec) throw new PermanentError(NOT_JSON);
  return rec;
}

/**
 * A function call of a reply, as the model wrote it. A call without a usable name is kept with
 * the name '' (graded a wrong tool and an extra call): dropped, it would read as no call, the
 * right answer to a probe expecting none.
 */
function functionCall(name: unknown, args: unknown): ToolCall {
  // Arguments stay the text the model wrote: the grader decides whether it is a JSON object.
  return { name: typeof name === 'string' ? name : '', arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args) };
}

/** `reply` with its tool calls, when it made any (a reply without calls keeps the shape it always had). */
function withCalls(reply: ParsedReply, calls: ToolCall[]): ParsedReply {
  return calls.length > 0 ? { ...reply, toolCalls: calls } : reply;
}

/** Text, usage and tool calls of a Responses API reply. A reply with only calls has output ''. */
export function parseResponsesReply(raw: unknown): ParsedReply {
  const rec = jsonReply(raw);
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const item of Array.isArray(rec.output) ? rec.output : []) {
    const message = asRecord(item);
    if (message?.type === 'function_call') {
      calls.push(functionCall(message.name, message.arguments));
      continue;
    }
    if (message?.type !== 'message' || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      const p = asRecord(part);
      if (p?.type === 'output_text' && typeof p.text === 'string') texts.push(p.text);
      else if (p?.type === 'refusal' && typeof p.refusal === 'string') texts.push(p.refusal);
    }
  }
  if (!Array.isArray(rec.output)) throw new PermanentError('the Responses API reply has no `output` list');
  const output = texts.join('');
  const answered = output !== '' || calls.length > 0;
  checkResponsesStatus(rec, answered);
  if (!answered) throw new TransientError(EMPTY_REPLY);
  const usage = asRecord(rec.usage) ?? {};
  return withCalls({ output, usage: usageOf(usage.input_tokens, usage.output_tokens, usage.input_tokens_details) }, calls);
}

/**
 * A finished reply with no text and no call: graded, it would be a wrong answer (or a judge
 * that said nothing); it is an error, retried, as a gateway's empty body is.
 */
export const EMPTY_REPLY = 'the reply is empty: no text and no tool call';

/** Error codes of a failed Responses reply that another attempt may not meet. */
const TRANSIENT_FAILURES = new Set(['server_error', 'rate_limit_exceeded']);

/**
 * A reply is an answer only when the model finished one. `status: "failed"` (the server's
 * own error, sent with HTTP 200) is an error, retried when the server says it was its fault;
 * `"incomplete"` with nothing written (the output limit spent on reasoning, a content
 * filter) is an error too. Graded, either would read as a wrong answer the model never gave.
 * A reply without `status` (some compatible servers leave it out) is taken as completed.
 */
function checkResponsesStatus(rec: AnyRecord, answered: boolean): void {
  const status = rec.status;
  if (status === undefined || status === null || status === 'completed') return;
  if (status === 'failed') {
    const error = asRecord(rec.error);
    const code = typeof error?.code === 'string' ? error.code : undefined;
    const said = typeof error?.message === 'string' ? `: ${error.message}` : '';
    const message = `the Responses API reply failed (${code ?? 'no error code'})${said}`;
    throw code !== undefined && TRANSIENT_FAILURES.has(code) ? new TransientError(message) : new PermanentError(message);
  }
  if (status === 'incomplete') {
    if (answered) return;
    const reason = asRecord(rec.incomplete_details)?.reason;
    const why = typeof reason === 'string' ? reason : 'no reason given';
    const hint = why === 'max_output_tokens' ? ' (raise max_output_tokens: a reasoning model can spend it all before answering)' : '';
    throw new PermanentError(`the Responses API reply is incomplete (${why}) and holds no answer${hint}`);
  }
  throw new PermanentError(`the Responses API reply has status ${JSON.stringify(status)}, not a finished answer`);
}

/** The function calls of a Chat Completions message (`tool_calls[].function`). */
function chatCalls(message: AnyRecord): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const entry of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const fn = asRecord(asRecord(entry)?.function);
    calls.push(functionCall(fn?.name, fn?.arguments));
  }
  return calls;
}

/** Text, usage and tool calls of a Chat Completions reply. A reply with only calls (content null) has output ''. */
export function parseChatReply(raw: unknown): ParsedReply {
  const rec = jsonReply(raw);
  if (!Array.isArray(rec.choices) || rec.choices.length === 0) throw new PermanentError('the Chat Completions reply has no choices');
  const message = asRecord(asRecord(rec.choices[0])?.message) ?? {};
  const output = typeof message.content === 'string' ? message.content : typeof message.refusal === 'string' ? message.refusal : '';
  const calls = chatCalls(message);
  const finish = asRecord(rec.choices[0])?.finish_reason;
  // Cut off before a word was written: the output limit or a filter ended it, the model gave no answer.
  if (output === '' && calls.length === 0 && (finish === 'length' || finish === 'content_filter')) {
    throw new PermanentError(`the Chat Completions reply stopped (${finish}) before any answer${finish === 'length' ? ' (raise max_output_tokens)' : ''}`);
  }
  if (output === '' && calls.length === 0) throw new TransientError(EMPTY_REPLY);
  const usage = asRecord(rec.usage) ?? {};
  return withCalls({ output, usage: usageOf(usage.prompt_tokens, usage.completion_tokens, usage.prompt_tokens_details) }, calls);
}

/**
 * Usage as a reply reports it; `cached_tokens` (served by the prompt cache) only when the server
 * reports it. Counts missing, negative or not numbers are no usage: the call's cost is then
 * unknown rather than 0 (a `cost.total` gate must not pass on what was never reported).
 */
function usageOf(input: unknown, output: unknown, details: unknown): Usage | undefined {
  const inputTokens = tokenCount(input);
  const outputTokens = tokenCount(output);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const usage: Usage = { inputTokens, outputTokens };
  const cached = asRecord(details)?.cached_tokens;
  if (typeof cached === 'number' && Number.isFinite(cached) && cached >= 0) usage.cachedTokens = cached;
  return usage;
}

/** The error of a failed call: a tripped breaker's message already names the model; others get the id in front. */
function failedCallError(id: string, outcome: Extract<RetryOutcome<unknown>, { ok: false }>): string {
  return redact(outcome.fatal ? outcome.error : `${id}: ${outcome.error}`);
}

/** The result of a retried call, alike on both paths: empty output and the error on failure, the cost on success. */
export function callResult(
  id: string,
  price: Price | undefined,
  outcome: RetryOutcome<ParsedReply>,
  latencyMs: number,
): ModelResult {
  if (!outcome.ok) {
    return { output: '', usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs, error: failedCallError(id, outcome) };
  }
  const { output, usage, toolCalls } = outcome.value;
  const result: ModelResult = { output, ...accounting(usage, (u) => costOf(u, price)), cached: false, latencyMs };
  if (toolCalls?.length) result.toolCalls = toolCalls;
  return result;
}

/** Normalises an `api:` value from config (`chat`, `chat_completions`, `responses`). */
export function parseApi(value: string | undefined): OpenAIApi {
  if (value === undefined || value === 'responses') return 'responses';
  if (value === 'chat' || value === 'chat_completions' || value === 'chat-completions') return 'chat';
  throw new Error(`unknown api "${value}" (use responses or chat)`);
}

export class OpenAIModel implements Model {
  readonly id: string;
  readonly params: Record<string, unknown>;
  readonly api: OpenAIApi;
  readonly name: string;
  /** Direct calls (`call` reads and checks the body itself), and the runner's (the SDK parses the body inside the client, so checkedFetch checks it first). */
  private clients?: Promise<{ direct: OpenAI; runner: OpenAI }>;
  private readonly clientOptions: { apiKey: string; baseURL: string | undefined; maxRetries: number; timeout: number };
  private readonly opts: OpenAIModelOptions;
  /** One policy, guard included, for the direct path and the runner path. */
  private readonly retry: RetryOptions & { guard: RetryGuard };
  /** The breakers of this model's endpoint, and the endpoint, for the guards of its other routes (runnerTarget). */
  private readonly breakers: Breakers;
  private readonly endpoint: Endpoint;

  constructor(opts: OpenAIModelOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.api = opts.api ?? 'responses';
    this.id = `${opts.provider ?? 'openai'}:${opts.name}`;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Only OpenAI's own provider reads the OPENAI_* variables: another server must never receive OpenAI's key.
    const isOpenAI = (opts.provider ?? 'openai') === 'openai';
    const baseURL = opts.baseURL ?? (isOpenAI ? process.env.OPENAI_BASE_URL : undefined);
    const apiKey = opts.apiKey ?? (isOpenAI ? process.env.OPENAI_API_KEY : undefined);
    registerSecret(apiKey);
    // A local server (Ollama, vLLM) needs no key, but the client insists on one.
    this.clientOptions = { apiKey: apiKey || 'no-key', baseURL, maxRetries: 0, timeout: timeoutMs };
    // Where the answer comes from matters (a local `llama3` is not Azure's); the key never does.
    const server = publicBaseURL(baseURL);
    this.params = { api: this.api, ...(server ? { baseURL: server } : {}), ...(this.api === 'chat' ? { maxTokensField: this.maxTokensField } : {}) };
    const keyEnv = opts.keyEnv ?? (isOpenAI ? 'OPENAI_API_KEY' : undefined);
    const endpoint: Endpoint = { provider: opts.provider ?? 'openai', model: this.name, baseURL: server ?? DEFAULT_OPENAI_BASE_URL, keyEnv, api: this.api };
    this.endpoint = endpoint;
    this.breakers = opts.breakers ?? new Breakers();
    this.retry = {
      maxAttempts: opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      baseDelayMs: opts.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
      timeoutMs,
      sleep: opts.sleep,
      guard: this.breakers.guard(endpoint),
    };
  }

  /**
   * Starts loading the client now, for a model whose calls are sure to reach the provider
   * (no cache to answer them), and settles when it is loaded: a run waits for it before its
   * first job, so the first requests are not held up by the load competing with the jobs'
   * replays for the one thread. A failure is left for the first call to report.
   */
  preload(): Promise<void> {
    return this.clientsFor().then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * The clients, built on the first call: the \`openai\` package is hundreds of
   * modules that an offline run, or a run answered from the cache, never needs.
   */
  private clientsFor(): Promise<{ direct: OpenAI; runner: OpenAI }> {
    this.clients ??= import('openai').then(({ default: Client }) => ({
      direct: new Client(this.clientOptions),
      runner: new Client({ ...this.clientOptions, fetch: checkedFetch }),
    }));
    return this.clients;
  }

  private get maxTokensField(): 'max_completion_tokens' | 'max_tokens' {
    return this.opts.chatMaxTokensField ?? 'max_completion_tokens';
  }

  /** What a batch of this model's calls needs (harness/run/batch.ts): where to send it, each call's body, and how to read a reply. */
  batchTarget(): OpenAIBatchTarget {
    const chat = this.api === 'chat';
    return {
      id: this.id,
      baseURL: this.clientOptions.baseURL,
      apiKey: this.clientOptions.apiKey,
      timeoutMs: this.clientOptions.timeout,
      endpoint: chat ? '/v1/chat/completions' : '/v1/responses',
      price: this.opts.price,
      body: (request) => (chat ? chatBody(this.name, request, this.maxTokensField) : responsesBody(this.name, request)) as unknown as Record<string, unknown>,
      parse: (reply) => (chat ? parseChatReply(reply) : parseResponsesReply(reply)),
    };
  }

  /** The client and settings the Agents SDK runner uses for this model (harness/agent-path.ts). */
  /**
   * The client and retry policy for calls made outside `complete`: the Agents
   * SDK runner's, or another `route` of the same model (server compaction,
   * embeddings), whose guard shares the model's breaker but explains a
   * failure in that route's terms.
   */
  runnerTarget(route?: EndpointRoute): OpenAIRunnerTarget {
    return {
      kind: 'openai',
      id: this.id,
      client: async () => (await this.clientsFor()).runner,
      name: this.name,
      api: this.api,
      price: this.opts.price,
      ...this.retry,
      ...(route ? { guard: this.breakers.guard({ ...this.endpoint, route }) } : {}),
    };
  }

  // The raw body is read here, once, so a non-JSON reply becomes a retried TransientError, not a client TypeError.
  private async call(request: ModelRequest, signal: AbortSignal): Promise<ParsedReply> {
    const { direct } = await this.clientsFor();
    if (this.api === 'chat') {
      const body = chatBody(this.name, request, this.maxTokensField);
      return parseChatReply(await readJson(await direct.chat.completions.create(body, { signal }).asResponse()));
    }
    const body = responsesBody(this.name, request);
    return parseResponsesReply(await readJson(await direct.responses.create(body, { signal }).asResponse()));
  }

  async complete(request: ModelRequest): Promise<ModelResult> {
    const started = performance.now();
    const outcome = await withRetry((signal) => this.call(request, signal), this.retry);
    return callResult(this.id, this.opts.price, outcome, msSince(started));
  }
}
