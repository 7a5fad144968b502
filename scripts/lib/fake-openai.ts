// A local OpenAI-compatible HTTP server for tests. It listens on 127.0.0.1 only,
// records every request, and answers through a handler the test programs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** What a handler returns: a JSON body, or full control over status, headers and raw text. */
export type FakeReply =
  | { json: unknown; status?: number; headers?: Record<string, string>; delayMs?: number }
  | { text: string; status?: number; headers?: Record<string, string>; delayMs?: number }
  | { destroy: true };

export type FakeHandler = (req: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeServer {
  /** Base URL with `/v1`, ready for `new OpenAI({ baseURL })`. */
  baseURL: string;
  requests: RecordedRequest[];
  setHandler(handler: FakeHandler): void;
  close(): Promise<void>;
}

/** Extracts the text of the last user message of a Responses or Chat Completions body. */
export function lastUserText(body: Record<string, unknown>): string {
  const list = (body.input ?? body.messages) as unknown;
  if (typeof list === 'string') return list;
  if (!Array.isArray(list)) return '';
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i] as Record<string, unknown>;
    if (item.role !== 'user') continue;
    if (typeof item.content === 'string') return item.content;
    if (Array.isArray(item.content)) {
      return item.content.map((p) => String((p as Record<string, unknown>).text ?? '')).join('');
    }
  }
  return '';
}

/** Token counts a fake reply reports; `cached`: input tokens served from the prompt cache. */
export interface FakeUsage {
  input: number;
  output: number;
  cached?: number;
}

/** A Responses API body whose output is one assistant message with `text`. */
export function responsesBody(text: string, usage: FakeUsage = { input: 10, output: 5 }): Record<string, unknown> {
  return {
    id: `resp_${Math.random().toString(36).slice(2)}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: 'fake-model',
    output: [
      {
        type: 'message',
        id: `msg_${Math.random().toString(36).slice(2)}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      input_tokens_details: { cached_tokens: usage.cached ?? 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** A Chat Completions body whose single choice says `text`. */
export function chatBody(text: string, usage: FakeUsage = { input: 10, output: 5 }): Record<string, unknown> {
  return {
    id: `chatcmpl_${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'fake-model',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      ...(usage.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: usage.cached } }),
    },
  };
}

/** A tool call a fake reply makes; object arguments are sent as their JSON text, as the APIs do. */
export interface FakeCall {
  name: string;
  arguments: string | Record<string, unknown>;
}

function argumentText(call: FakeCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

const fakeId = (prefix: string): string => `${prefix}_${Math.random().toString(36).slice(2)}`;

/** A Responses API body whose output is `function_call` items (after a message with `text`, when given). */
export function responsesCallsBody(calls: FakeCall[], text = '', usage: FakeUsage = { input: 10, output: 5 }): Record<string, unknown> {
  const body = responsesBody(text, usage);
  const items = calls.map((call) => ({ type: 'function_call', id: fakeId('fc'), call_id: fakeId('call'), name: call.name, arguments: argumentText(call), status: 'completed' }));
  // A reply of calls alone has no message item, as the API sends it.
  return { ...body, output: text ? [...(body.output as unknown[]), ...items] : items };
}

/** A Chat Completions body whose choice makes `calls` (`content` null unless `text` is given). */
export function chatCallsBody(calls: FakeCall[], text: string | null = null, usage: FakeUsage = { input: 10, output: 5 }): Record<string, unknown> {
  const body = chatBody(text ?? '', usage);
  const toolCalls = calls.map((call) => ({ id: fakeId('call'), type: 'function', function: { name: call.name, arguments: argumentText(call) } }));
  return { ...body, choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: text, tool_calls: toolCalls } }] };
}

/** A reply making `calls`, in the shape of the endpoint called (Chat Completions or Responses). */
export function callsReply(req: RecordedRequest, calls: FakeCall[], text?: string): FakeReply {
  return { json: req.path.endsWith('/chat/completions') ? chatCallsBody(calls, text ?? null) : responsesCallsBody(calls, text ?? '') };
}

/** The names of the tools a Responses or Chat Completions body offers (none: an empty list). */
export function offeredToolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  return tools.map((t) => String(t.name ?? (t.function as Record<string, unknown> | undefined)?.name ?? ''));
}

/** A gateway's own error page, sent with status 200 as some proxies do. */
export function htmlPage(title = 'Bad gateway'): FakeReply {
  return { text: `<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`, headers: { 'content-type': 'text/html' } };
}

/** A JSON reply cut off after `chars` characters, still labelled application/json. */
export function truncatedJson(body: unknown, chars = 60): FakeReply {
  return { text: JSON.stringify(body).slice(0, chars), headers: { 'content-type': 'application/json' } };
}

/** An error reply in OpenAI's shape (`{ error: { message } }`). */
export function apiError(status: number, message: string): FakeReply {
  return { json: { error: { message, type: 'invalid_request_error' } }, status };
}

/** A base URL on 127.0.0.1 where nothing listens: a fake server's port, after the server closed. */
export async function closedBaseURL(): Promise<string> {
  const server = await startFakeOpenAI();
  await server.close();
  return server.baseURL;
}

/** Dimensions of the fake's embedding vectors. */
export const FAKE_EMBEDDING_DIMS = 64;

/** Words too common to say what a text is about; the fake embeds without them. */
const FAKE_STOP_WORDS = new Set('a an and are at did do for from i in is it me my of on or the to was what which you your'.split(' '));

/** FNV-1a: a stable hash of a word, the same on every platform and run. */
function wordHash(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * A deterministic bag-of-words embedding: each content word (lower-cased, stop
 * words skipped, mapped through `synonyms` first) adds 1 to one of `dims`
 * dimensions, so texts sharing words, or synonyms, point the same way.
 */
export function fakeEmbedding(text: string, synonyms: Record<string, string> = {}, dims = FAKE_EMBEDDING_DIMS): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (FAKE_STOP_WORDS.has(raw)) continue;
    const word = synonyms[raw] ?? raw;
    vector[wordHash(word) % dims] += 1;
  }
  return vector;
}

/** A `POST /embeddings` reply: one vector per input, in order, with the API's usage shape. */
export function embeddingsBody(body: Record<string, unknown>, synonyms: Record<string, string> = {}): Record<string, unknown> {
  const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')];
  const tokens = inputs.reduce((sum, text) => sum + text.split(/\s+/).length, 0);
  return {
    object: 'list',
    model: body.model,
    data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, synonyms) })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/**
 * `POST /embeddings` answered with fakeEmbedding vectors (`synonyms` maps a word
 * to another before hashing, to stand for what a real model learns), every other
 * path by `other`. Only float vectors: a base64 request is a 400.
 */
export function embeddingsHandler(synonyms: Record<string, string> = {}, other: FakeHandler = (req, i) => echoHandler(req, i)): FakeHandler {
  return (req, index) => {
    if (!req.path.endsWith('/embeddings')) return other(req, index);
    if (req.body.encoding_format !== undefined && req.body.encoding_format !== 'float') return apiError(400, 'this server only sends float embeddings');
    return { json: embeddingsBody(req.body, synonyms) };
  };
}

/** Default behaviour: echo the last user message back, in the shape of the endpoint called (embeddings get fakeEmbedding vectors). */
export const echoHandler: FakeHandler = (req) => {
  if (req.path.endsWith('/embeddings')) return { json: embeddingsBody(req.body) };
  const text = `echo: ${lastUserText(req.body)}`;
  return { json: req.path.endsWith('/chat/completions') ? chatBody(text) : responsesBody(text) };
};

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return { _raw: raw };
  }
}

async function send(res: ServerResponse, reply: FakeReply): Promise<void> {
  if ('destroy' in reply) {
    res.socket?.destroy();
    return;
  }
  if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  if (res.destroyed) return;
  const isJson = 'json' in reply;
  const body = isJson ? JSON.stringify(reply.json) : reply.text;
  res.writeHead(reply.status ?? 200, {
    'content-type': isJson ? 'application/json' : 'text/plain',
    ...reply.headers,
  });
  res.end(body);
}

export async function startFakeOpenAI(handler: FakeHandler = echoHandler): Promise<FakeServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0],
      headers: req.headers,
      body: await readBody(req),
    };
    const index = requests.push(recorded) - 1;
    try {
      await send(res, await current(recorded, index));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setHandler(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A `POST /responses/compact` reply as the Agents SDK reads it: the compacted
 * history as one `compaction` item whose `encrypted_content` only this server
 * can read, and the usage (`output_tokens` is the compacted item's size).
 */
export function compactedBody(encryptedContent: string, usage = { input: 100, output: 20 }): Record<string, unknown> {
  return {
    id: `cmp_${Math.random().toString(36).slice(2)}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [{ type: 'compaction', id: `cmp_item_${Math.random().toString(36).slice(2)}`, encrypted_content: encryptedContent }],
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** The input items of a Responses body (a string input is one user message). */
function inputItems(body: Record<string, unknown>): Record<string, unknown>[] {
  const input = body.input;
  if (!Array.isArray(input)) return [];
  return input.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

/**
 * Server compaction as the Responses API does it, for tests: `/responses/compact`
 * folds the input into one `compaction` item (its content names how many items
 * it holds, so a test can tell compactions apart) with `output_tokens` as given,
 * and so does `/responses` with `context_management: [{ type: 'compaction',
 * compact_threshold }]` when the input's estimated tokens reach the threshold
 * (the item first in its output, a short message after it);
 * `/responses` accepts such items in its input (a compaction item without
 * `encrypted_content` is a 400, as the API answers) and answers with `answer`.
 */
export function compactionHandler(opts: { outputTokens: number; answer: (body: Record<string, unknown>) => string }): FakeHandler {
  let compactions = 0;
  return (req) => {
    const items = inputItems(req.body);
    if (req.path.endsWith('/responses/compact')) {
      compactions += 1;
      return { json: compactedBody(`enc-${compactions}:${items.length}-items`, { input: 10 * items.length, output: opts.outputTokens }) };
    }
    if (items.some((item) => item.type === 'compaction' && typeof item.encrypted_content !== 'string')) {
      return apiError(400, 'compaction item without encrypted_content');
    }
    const threshold = compactThreshold(req.body);
    if (threshold !== undefined && estimatedTokens(items) >= threshold) {
      compactions += 1;
      return { json: managedBody(`enc-${compactions}:${items.length}-items`, { input: 10 * items.length, output: opts.outputTokens }) };
    }
    return { json: responsesBody(opts.answer(req.body)) };
  };
}

/** The `compact_threshold` of a Responses body's `context_management` compaction entry, if it has one. */
function compactThreshold(body: Record<string, unknown>): number | undefined {
  const entries = Array.isArray(body.context_management) ? (body.context_management as unknown[]) : [];
  for (const entry of entries) {
    const fields = entry as { type?: unknown; compact_threshold?: unknown };
    if (fields?.type === 'compaction' && typeof fields.compact_threshold === 'number') return fields.compact_threshold;
  }
  return undefined;
}

/** A rough count (4 characters of the items' JSON a token): above any tokenizer's count of their text, so a client's count under it. */
function estimatedTokens(items: Record<string, unknown>[]): number {
  return Math.ceil(JSON.stringify(items).length / 4);
}

/** A Responses reply whose input went over `compact_threshold`: a compaction item, then a short message. */
function managedBody(encryptedContent: string, usage: { input: number; output: number }): Record<string, unknown> {
  const compacted = compactedBody(encryptedContent, usage);
  const reply = responsesBody('ok');
  return { ...reply, output: [...(compacted.output as unknown[]), ...(reply.output as unknown[])], usage: compacted.usage };
}
