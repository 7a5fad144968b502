// The contexts a run sent, stored once each (contexts.jsonl in the run
// directory). A probe record names its context by `contextRef` instead of
// carrying a copy: at benchmark scale the copies were 80% of every record and
// run.json grew with (probes × context length). Consecutive contexts of a
// strategy share most of their messages (a full-history context at turn 20
// holds the one at turn 10), so each distinct message is one line, numbered
// once per run, and a context is a list of ranges over those numbers.
//
//   {"m":7,"role":"user","text":"…"}          message 7
//   {"c":"3fa9…","r":[[0,5],[9,12]]}          context: messages 0–5 and 9–12
//
// A context's ref is a digest of its messages, so equal contexts get equal
// refs in every run; message numbers are local to the file.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readLines } from './lines.js';
import { isRecord } from './record.js';
import { flatCopy } from './flat.js';

export const CONTEXTS_FILE = 'contexts.jsonl';

export interface ContextMessage {
  role: string;
  text: string;
}

/** Inclusive ranges of message numbers. */
export type Ranges = [number, number][];

/** Consecutive numbers folded into ranges: 3,4,5,9 → [3,5],[9,9]. */
export function toRanges(ids: readonly number[]): Ranges {
  const ranges: Ranges = [];
  for (const id of ids) {
    const last = ranges[ranges.length - 1];
    if (last && id === last[1] + 1) last[1] = id;
    else ranges.push([id, id]);
  }
  return ranges;
}

/** A message's identity: its role and its exact text. */
export function messageDigest(m: ContextMessage): string {
  return createHash('sha256').update(m.role).update('\u0000').update(m.text).digest('base64url').slice(0, 22);
}

/** A context's ref, from its messages' digests in order. */
export function contextRef(digests: readonly string[]): string {
  // One update of the joined text hashes the same bytes as one update per digest and
  // separator, without a call into the hash per message.
  // An empty context hashes no bytes at all, as it always has.
  const text = digests.length === 0 ? '' : `${digests.join('\n')}\n`;
  // Copied flat: every probe record keeps its ref to the end of the run, and a bare prefix would keep the whole digest with it.
  return flatCopy(createHash('sha256').update(text).digest('hex').slice(0, 20));
}

export type ContextLine = { m: number; role: string; text: string } | { c: string; r: Ranges };

export function messageLine(m: number, message: ContextMessage): string {
  return JSON.stringify({ m, role: message.role, text: message.text });
}

export function contextLine(ref: string, ranges: Ranges): string {
  return JSON.stringify({ c: ref, r: ranges });
}

const isRanges = (value: unknown): value is Ranges =>
  Array.isArray(value) && value.every((r) => Array.isArray(r) && r.length === 2 && Number.isInteger(r[0]) && Number.isInteger(r[1]) && r[0] <= r[1]);

/** One line of contexts.jsonl, or undefined for a line that is not one (a torn last line). */
export function parseContextLine(text: string): ContextLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  if (Number.isInteger(value.m) && typeof value.role === 'string' && typeof value.text === 'string') {
    return { m: value.m as number, role: value.role, text: value.text };
  }
  if (typeof value.c === 'string' && isRanges(value.r)) return { c: value.c, r: value.r };
  return undefined;
}

/**
 * The contexts of one run, read back: a ref gives its messages. Built from
 * lines, or from a file read on first use (a gate or a CSV never needs it).
 */
export class ContextLookup {
  private messages: ContextMessage[] = [];
  private readonly contexts = new Map<string, Ranges>();
  /** The refs a first use will ask for, when its caller said (see `expect`); undefined: all. */
  private wanted: Set<string> | undefined;
  /** Lines read on first use, and read again, whole, should a ref outside a partial read be asked for. */
  private readonly source: () => Iterable<ContextLine>;
  /** How much of the source is in memory: nothing yet, the wanted refs' lines, or all of it (a lookup built from lines has nothing to read). */
  private read: 'none' | 'wanted' | 'all';

  constructor(source?: () => Iterable<ContextLine>) {
    this.source = source ?? (() => []);
    this.read = source ? 'none' : 'all';
  }

  add(line: ContextLine): void {
    if ('m' in line) this.messages[line.m] = { role: line.role, text: line.text };
    else this.contexts.set(line.c, line.r);
  }

  /**
   * Says which refs the first use will ask for, so it keeps only their
   * messages: a report shows the contexts of a few failed probes, while a
   * large run's file holds every message. A ref asked for later still
   * resolves, by reading the whole file then.
   */
  expect(refs: Iterable<string>): void {
    if (this.read === 'none') this.wanted = new Set([...(this.wanted ?? []), ...refs]);
  }

  /** The first use reads the source, once: the wanted refs' lines, or all of it. */
  private load(): void {
    if (this.read !== 'none') return;
    if (this.wanted) this.readWanted(this.wanted);
    else this.readAll();
  }

  private readAll(): void {
    // Marked before reading: a read that throws (a line too long) is not tried again on every use.
    this.read = 'all';
    for (const line of this.source()) this.add(line);
  }

  private readWanted(wanted: ReadonlySet<string>): void {
    this.read = 'wanted';
    // No ref is wanted (no failed record names a stored context): nothing to read.
    if (wanted.size === 0) return;
    // Two passes: a context's line comes after its messages' lines.
    let lastMessage = -1;
    for (const line of this.source()) {
      if ('m' in line) lastMessage = Math.max(lastMessage, line.m);
      else if (wanted.has(line.c)) this.add(line);
    }
    // Marks only numbers the file holds: a damaged range end (1e12) must not size the marks.
    const needed = new Uint8Array(lastMessage + 1);
    for (const [from, to] of [...this.contexts.values()].flat()) needed.fill(1, from, Math.min(to, lastMessage) + 1);
    for (const line of this.source()) if ('m' in line && needed[line.m] === 1) this.add(line);
  }

  /** After a partial read, reads everything: a ref outside it was asked for. */
  private loadAll(): void {
    this.load();
    if (this.read !== 'wanted') return;
    this.wanted = undefined;
    this.messages = [];
    this.contexts.clear();
    this.readAll();
  }

  /** The messages of a context, or undefined when the ref is unknown or names a message the file lacks. */
  get(ref: string): ContextMessage[] | undefined {
    this.load();
    if (this.read === 'wanted' && !this.wanted?.has(ref)) this.loadAll();
    const ranges = this.contexts.get(ref);
    if (!ranges) return undefined;
    const out: ContextMessage[] = [];
    for (const [from, to] of ranges) {
      for (let m = from; m <= to; m++) {
        const message = this.messages[m];
        if (!message) return undefined;
        out.push(message);
      }
    }
    return out;
  }

  get size(): number {
    this.loadAll();
    return this.contexts.size;
  }
}

/** What a summarizer is sent (a summary record's `request`). */
interface SummarizerRequest {
  system: string;
  user: string;
}

/**
 * A summarizer's request stored as a context: its system prompt, then each
 * line of its user content as a message of role `line`. A summary's request
 * repeats most lines of the one before it, so each line is stored once.
 */
export function requestMessages(request: SummarizerRequest): ContextMessage[] {
  return [{ role: 'system', text: request.system }, ...request.user.split('\n').map((text) => ({ role: 'line', text }))];
}

/** The request `requestMessages` stored, or undefined for a context that is not one. */
export function requestFromMessages(messages: readonly ContextMessage[] | undefined): SummarizerRequest | undefined {
  if (!messages?.length || messages[0].role !== 'system' || messages.slice(1).some((m) => m.role !== 'line')) return undefined;
  return { system: messages[0].text, user: messages.slice(1).map((m) => m.text).join('\n') };
}

/**
 * The requests of the given refs, gathered from lines of contexts.jsonl read
 * by someone else: a resumed run reads the file once, as its context store
 * opens. Only what those requests can be made of is kept (their context lines,
 * and the messages of the roles `requestMessages` writes): the messages of
 * probe contexts are most of the file.
 */
export class StoredRequests {
  private readonly lookup = new ContextLookup();

  constructor(private readonly refs: ReadonlySet<string>) {}

  take(line: ContextLine): void {
    if (this.refs.size === 0) return;
    if ('m' in line ? line.role === 'system' || line.role === 'line' : this.refs.has(line.c)) this.lookup.add(line);
  }

  /** The request stored under `ref`, or undefined when `ref` is not one of the refs or its lines did not read back whole. */
  get(ref: string): SummarizerRequest | undefined {
    return requestFromMessages(this.lookup.get(ref));
  }
}

/** The context a probe record was sent: its own copy (runs before the store), or the stored one. */
export function contextOf(
  record: { context?: ContextMessage[]; contextRef?: string },
  lookup: ContextLookup | undefined,
): ContextMessage[] | undefined {
  if (record.context) return record.context;
  return record.contextRef === undefined ? undefined : lookup?.get(record.contextRef);
}

/** A run directory's contexts.jsonl, streamed on first use; none (a run from before the store) gives no contexts. */
export function readContexts(dir: string): ContextLookup {
  const path = join(dir, CONTEXTS_FILE);
  return new ContextLookup(function* () {
    if (!existsSync(path)) return;
    // A line torn by a kill (even inside a character) is skipped, as the journal's is.
    for (const { text } of readLines(path, { invalidUtf8: 'replace' })) {
      const line = parseContextLine(text);
      if (line) yield line;
    }
  });
}
