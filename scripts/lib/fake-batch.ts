// A local server of OpenAI's Batch API (/v1/files, /v1/batches) for tests. It
// listens on 127.0.0.1 only, records every request, upload and batch, and moves a
// batch along by polls rather than by time, so a test sees the same statuses on
// every run. Where OpenAI's behaviour matters to a client (which file a failed
// line goes to, what an expired batch leaves, how a bad input file fails), it
// does what OpenAI's documentation says.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatBody, lastUserText, responsesBody } from './fake-openai.js';

/** One request of a batch, as the answer sees it. */
export interface FakeBatchLine {
  customId: string;
  url: string;
  body: Record<string, unknown>;
}

/** A line's reply: a 200 body, or an error status with its message. */
export type FakeLineAnswer = { body: unknown } | { status: number; message: string };

export type FakeBatchAnswer = (line: FakeBatchLine) => FakeLineAnswer;

/** How a request is cut short: an error reply, a reset connection, or a reset after the work was done (a lost reply). */
export type FakeInterruption = { status: number; message: string; headers?: Record<string, string> } | 'reset' | 'lose-reply';

export interface FakeBatchRequest {
  method: string;
  path: string;
}

export interface FakeBatchOptions {
  /** Default: echoes the last user text in the shape of the line's endpoint. */
  answer: FakeBatchAnswer;
  /** How many GETs of a batch see it still running; the next one sees it ended. Default 1. */
  pollsBeforeDone: number;
  /** Lines that fail with a 500 whatever `answer` says. */
  fail: ReadonlySet<string> | ((customId: string) => boolean);
  /** Ends every batch `expired` after `expireAfterLines` of its lines ran. */
  expire: boolean;
  /** Lines an expiring batch runs before it expires; default half, rounded down. */
  expireAfterLines?: number;
  /** Lines an expired batch never ran go to its error file as `batch_expired`, as OpenAI writes them; false leaves them out of both files. */
  reportExpired: boolean;
  /** Order of result lines: OpenAI promises none, so the default is the reverse of the input. */
  outputOrder: 'input' | 'reversed';
  /** Rewrites the text of each output and error file (e.g. to cut a line short). */
  rewriteResults?: (text: string, kind: 'output' | 'error') => string;
  /** When set, a request without `Authorization: Bearer <apiKey>` gets a 401 that quotes the key it sent, as OpenAI's does. */
  apiKey?: string;
  /** Asked before each request is handled; a value cuts it short. */
  interrupt?: (req: FakeBatchRequest, index: number) => FakeInterruption | undefined;
}

interface StoredFile {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  text: string;
}

/** One line of an uploaded file, as parsed (or the raw text when it was not JSON). */
export interface UploadedLine {
  fileId: string;
  customId?: string;
  line: unknown;
}

export interface FakeBatchRecord {
  id: string;
  inputFileId: string;
  endpoint: string;
  /** The custom_ids of its input file, in order. */
  customIds: string[];
}

interface BatchError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

interface StoredBatch {
  object: Record<string, unknown>;
  lines: FakeBatchLine[];
  invalid: BatchError[];
  polls: number;
}

export interface FakeBatchServer {
  /** Base URL with `/v1`, ready for `new OpenAI({ baseURL })`. */
  baseURL: string;
  /** Every request, in order of arrival. */
  requests: FakeBatchRequest[];
  /** Every line of every uploaded file. */
  uploadedLines: UploadedLine[];
  /** Every batch created. */
  batches: FakeBatchRecord[];
  /** The custom_ids of every line of every batch created, once per batch that holds it. */
  submittedIds(): string[];
  /** Changes knobs for the requests that follow. */
  configure(opts: Partial<FakeBatchOptions>): void;
  close(): Promise<void>;
}

const ENDPOINTS = new Set(['/v1/responses', '/v1/chat/completions', '/v1/embeddings', '/v1/completions']);

const now = (): number => Math.floor(Date.now() / 1000);

/** Default answer: the last user text echoed back, in the shape of the line's endpoint. */
export const echoAnswer: FakeBatchAnswer = (line) => {
  const text = `echo: ${lastUserText(line.body)}`;
  return { body: line.url === '/v1/chat/completions' ? chatBody(text) : responsesBody(text) };
};

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function errorBody(status: number, message: string, code: string | null = null): Record<string, unknown> {
  return { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code } };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The lines of an input file, or the errors that fail its batch (as OpenAI reports them, lines counted from 1). */
function validate(text: string, endpoint: string): { lines: FakeBatchLine[]; invalid: BatchError[] } {
  const lines: FakeBatchLine[] = [];
  const invalid: BatchError[] = [];
  const seen = new Set<string>();
  let model: unknown;
  const bad = (line: number, code: string, message: string, param: string | null = null): void => {
    invalid.push({ code, message, param, line });
  };
  const rows = text.split('\n');
  rows.forEach((raw, i) => {
    const n = i + 1;
    if (!raw.trim()) return;
    let rec: Record<string, unknown> | undefined;
    try {
      rec = asRecord(JSON.parse(raw));
    } catch {
      rec = undefined;
    }
    if (!rec) return bad(n, 'invalid_json_line', 'This line is not parseable as valid JSON.');
    const body = asRecord(rec.body);
    if (typeof rec.custom_id !== 'string') return bad(n, 'missing_required_parameter', "Missing required parameter: 'custom_id'.", 'custom_id');
    if (rec.method !== 'POST') return bad(n, 'invalid_method', `The method ${JSON.stringify(rec.method)} is not supported; use POST.`, 'method');
    if (rec.url !== endpoint) return bad(n, 'invalid_url', `The URL ${JSON.stringify(rec.url)} does not match the batch's endpoint ${endpoint}.`, 'url');
    if (!body) return bad(n, 'missing_required_parameter', "Missing required parameter: 'body'.", 'body');
    if (seen.has(rec.custom_id)) {
      return bad(n, 'duplicate_custom_id', 'The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each request in a batch.', 'custom_id');
    }
    // OpenAI runs one model per batch.
    if (model !== undefined && body.model !== model) return bad(n, 'mismatched_model', `The model ${JSON.stringify(body.model)} does not match the batch's model ${JSON.stringify(model)}.`, 'body.model');
    model = body.model;
    seen.add(rec.custom_id);
    lines.push({ customId: rec.custom_id, url: rec.url, body });
  });
  if (lines.length === 0 && invalid.length === 0) invalid.push({ code: 'empty_file', message: 'The input file has no requests.', param: null, line: null });
  return { lines, invalid };
}

function resultLine(customId: string, response: Record<string, unknown> | null, error: { code: string; message: string } | null): string {
  return JSON.stringify({ id: `batch_req_${Math.random().toString(36).slice(2)}`, custom_id: customId, response, error });
}

/** Parses a multipart upload with the platform's own parser (undici's), so no dependency is needed. */
async function formData(req: IncomingMessage, raw: Buffer): Promise<FormData> {
  const request = new Request('http://127.0.0.1/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body: new Uint8Array(raw) });
  return request.formData();
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): Record<string, unknown> {
  try {
    const rec = asRecord(JSON.parse(raw.toString('utf8')));
    if (rec) return rec;
  } catch {
    // Reported below, as OpenAI reports a body it cannot read.
  }
  throw new HttpError(400, 'We could not parse the JSON body of your request.');
}

export async function startFakeBatchServer(options: Partial<FakeBatchOptions> = {}): Promise<FakeBatchServer> {
  const opts: FakeBatchOptions = { answer: echoAnswer, pollsBeforeDone: 1, fail: new Set(), expire: false, reportExpired: true, outputOrder: 'reversed', ...options };
  const files = new Map<string, StoredFile>();
  const batches = new Map<string, StoredBatch>();
  const requests: FakeBatchRequest[] = [];
  const uploadedLines: UploadedLine[] = [];
  const records: FakeBatchRecord[] = [];
  let nextId = 1;
  const newId = (prefix: string) => `${prefix}-${nextId++}`;

  const fails = (customId: string): boolean => (typeof opts.fail === 'function' ? opts.fail(customId) : opts.fail.has(customId));

  function storeFile(filename: string, purpose: string, text: string): StoredFile {
    const file: StoredFile = { id: newId('file'), object: 'file', bytes: Buffer.byteLength(text), created_at: now(), filename, purpose, text };
    files.set(file.id, file);
    return file;
  }

  const fileObject = ({ text: _text, ...file }: StoredFile): Omit<StoredFile, 'text'> => file;

  async function uploadFile(req: IncomingMessage, raw: Buffer): Promise<unknown> {
    let form: FormData;
    try {
      form = await formData(req, raw);
    } catch {
      throw new HttpError(400, 'The request body is not multipart/form-data.');
    }
    const purpose = form.get('purpose');
    const upload = form.get('file');
    if (typeof purpose !== 'string') throw new HttpError(400, "Missing required parameter: 'purpose'.");
    if (upload === null || typeof upload === 'string') throw new HttpError(400, "Missing required parameter: 'file'.");
    const file = storeFile(upload.name, purpose, await upload.text());
    for (const text of file.text.split('\n')) {
      if (!text.trim()) continue;
      let line: unknown = text;
      try {
        line = JSON.parse(text);
      } catch {
        // Kept as text: a test may want to see what was sent.
      }
      const customId = asRecord(line)?.custom_id;
      uploadedLines.push({ fileId: file.id, line, ...(typeof customId === 'string' ? { customId } : {}) });
    }
    return fileObject(file);
  }

  function createBatch(raw: Buffer): unknown {
    const body = parseJson(raw);
    const { input_file_id: inputFileId, endpoint, completion_window: window } = body;
    if (typeof endpoint !== 'string' || !ENDPOINTS.has(endpoint)) throw new HttpError(400, `Invalid value for 'endpoint': ${JSON.stringify(endpoint)}.`);
    if (window !== '24h') throw new HttpError(400, `Invalid value for 'completion_window': ${JSON.stringify(window)}; only '24h' is supported.`);
    // OpenAI rejects an unknown file at once; what is wrong inside a file fails the batch later.
    const file = typeof inputFileId === 'string' ? files.get(inputFileId) : undefined;
    if (!file || typeof inputFileId !== 'string') throw new HttpError(404, `No such File object: ${String(inputFileId)}`);
    const { lines, invalid } = validate(file.text, endpoint);
    const id = newId('batch');
    const object: Record<string, unknown> = {
      id,
      object: 'batch',
      endpoint,
      errors: null,
      input_file_id: inputFileId,
      completion_window: window,
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      created_at: now(),
      in_progress_at: null,
      expires_at: now() + 24 * 3600,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata: asRecord(body.metadata) ?? null,
    };
    batches.set(id, { object, lines, invalid, polls: 0 });
    // Every custom_id of the file, the ones that fail validation included: all of them were sent.
    const customIds = uploadedLines.filter((l) => l.fileId === inputFileId && l.customId !== undefined).map((l) => l.customId as string);
    records.push({ id, inputFileId, endpoint, customIds });
    return object;
  }

  /** Runs the batch's lines (all of them, or those before it expires) and writes its result files. */
  function finish(batch: StoredBatch): void {
    const { object } = batch;
    if (batch.invalid.length > 0) {
      Object.assign(object, { status: 'failed', failed_at: now(), errors: { object: 'list', data: batch.invalid } });
      return;
    }
    const ran = opts.expire ? batch.lines.slice(0, opts.expireAfterLines ?? Math.floor(batch.lines.length / 2)) : batch.lines;
    const output: string[] = [];
    const errors: string[] = [];
    for (const line of ran) {
      const answer: FakeLineAnswer = fails(line.customId) ? { status: 500, message: `The server had an error processing ${line.customId}.` } : opts.answer(line);
      const requestId = `req_${Math.random().toString(36).slice(2)}`;
      if ('body' in answer) output.push(resultLine(line.customId, { status_code: 200, request_id: requestId, body: answer.body }, null));
      else errors.push(resultLine(line.customId, { status_code: answer.status, request_id: requestId, body: errorBody(answer.status, answer.message) }, null));
    }
    const unrun = batch.lines.slice(ran.length);
    if (opts.reportExpired) {
      for (const line of unrun) {
        errors.push(resultLine(line.customId, null, { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }));
      }
    }
    const write = (lines: string[], kind: 'output' | 'error'): string | null => {
      if (lines.length === 0) return null;
      const ordered = opts.outputOrder === 'reversed' ? [...lines].reverse() : lines;
      const text = `${ordered.join('\n')}\n`;
      return storeFile(`batch_${kind}.jsonl`, 'batch_output', opts.rewriteResults ? opts.rewriteResults(text, kind) : text).id;
    };
    const failed = errors.length - (opts.reportExpired ? unrun.length : 0);
    Object.assign(object, {
      status: opts.expire ? 'expired' : 'completed',
      finalizing_at: now(),
      [opts.expire ? 'expired_at' : 'completed_at']: now(),
      output_file_id: write(output, 'output'),
      error_file_id: write(errors, 'error'),
      request_counts: { total: batch.lines.length, completed: output.length, failed },
    });
  }

  /** A GET of a batch moves it on: the first sees it validated, the one after `pollsBeforeDone` running sees it ended. */
  function pollBatch(id: string): unknown {
    const batch = batches.get(id);
    if (!batch) throw new HttpError(404, `No batch found with id '${id}'.`);
    const status = String(batch.object.status);
    if (status === 'validating' || status === 'in_progress') {
      batch.polls++;
      if (batch.invalid.length > 0 || batch.polls > opts.pollsBeforeDone) finish(batch);
      else if (status === 'validating') {
        Object.assign(batch.object, { status: 'in_progress', in_progress_at: now(), request_counts: { total: batch.lines.length, completed: 0, failed: 0 } });
      }
    }
    return batch.object;
  }

  function listBatches(url: URL): unknown {
    const limit = Math.max(1, Math.min(100, Number(url.searchParams.get('limit') ?? 20) || 20));
    const data = [...batches.values()].map((b) => b.object).reverse().slice(0, limit);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: batches.size > limit };
  }

  function fileContent(id: string): string {
    const file = files.get(id);
    if (!file) throw new HttpError(404, `No such File object: ${id}`);
    return file.text;
  }

  /** The reply to one request: a JSON value, or text (file contents). */
  async function route(req: IncomingMessage, path: string, raw: Buffer): Promise<{ json: unknown } | { text: string }> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/files') return { json: await uploadFile(req, raw) };
    if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(path))) return { text: fileContent(decodeURIComponent(m[1])) };
    if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)$/.exec(path))) {
      const file = files.get(decodeURIComponent(m[1]));
      if (!file) throw new HttpError(404, `No such File object: ${m[1]}`);
      return { json: fileObject(file) };
    }
    if (method === 'POST' && path === '/v1/batches') return { json: createBatch(raw) };
    if (method === 'GET' && path === '/v1/batches') return { json: listBatches(url) };
    if (method === 'GET' && (m = /^\/v1\/batches\/([^/]+)$/.exec(path))) return { json: pollBatch(decodeURIComponent(m[1])) };
    throw new HttpError(404, `Unknown request URL: ${method} ${path}.`);
  }

  function unauthorized(req: IncomingMessage): string | undefined {
    if (opts.apiKey === undefined) return undefined;
    const sent = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    return sent === opts.apiKey ? undefined : `Incorrect API key provided: ${sent}. You can find your API key at https://platform.openai.com/account/api-keys.`;
  }

  function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const recorded: FakeBatchRequest = { method: req.method ?? 'GET', path };
    const index = requests.push(recorded) - 1;
    const raw = await readRaw(req);
    const cut = opts.interrupt?.(recorded, index);
    if (cut === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (cut !== undefined && cut !== 'lose-reply') return sendJson(res, cut.status, errorBody(cut.status, cut.message), cut.headers);
    const denied = unauthorized(req);
    if (denied) return sendJson(res, 401, errorBody(401, denied, 'invalid_api_key'));
    let reply: { json: unknown } | { text: string };
    try {
      reply = await route(req, path, raw);
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      return sendJson(res, status, errorBody(status, error instanceof Error ? error.message : String(error)));
    }
    // The work is done; only the reply goes missing, as when a connection drops on the way back.
    if (cut === 'lose-reply') {
      res.socket?.destroy();
      return;
    }
    if ('json' in reply) return sendJson(res, 200, reply.json);
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(reply.text);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(500, String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    uploadedLines,
    batches: records,
    submittedIds: () => records.flatMap((r) => r.customIds),
    configure(next) {
      Object.assign(opts, next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
