// Writes contexts.jsonl (format in core/contexts.ts): each distinct message
// and each distinct context of a run once, appended as probes are answered.
// Lines are written before the journal entry that names them, each with one
// write(2), so a killed run leaves whole lines and at most one torn last line;
// a resumed run reads the file back and goes on numbering after it.
import { closeSync, existsSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CONTEXTS_FILE, contextLine, type ContextLine, contextRef, messageDigest, messageLine, parseContextLine, toRanges, type ContextMessage } from '../../core/contexts.js';
import { endsWithoutNewline, readLines } from '../../core/lines.js';
import { BoundedMemo } from '../../core/memo.js';
import { redact } from '../../core/secrets.js';

/**
 * Texts whose digest is remembered, per role and memo generation. The texts that
 * recur are those of the transcripts being answered (several at once, up to the
 * run's concurrency); a run-long memo kept a large suite's texts alive.
 */
const MAX_REMEMBERED_DIGESTS = 4_000;

/**
 * Messages and contexts whose numbers and refs are remembered, per memo
 * generation. What recurs is recent (a transcript's contexts share its
 * messages) or frequent (a suite's system prompt), and stays; a message or
 * context met again after it was forgotten is written again, which costs a
 * line and never a wrong context. Remembering all of them grew with the run
 * (3 KB per transcript, the second largest share of a large run's memory).
 */
export const DEFAULT_STORE_MEMORY = { messages: 20_000, contexts: 20_000 };

export class ContextStore {
  private fd: number | undefined;
  /**
   * Message digest → its number in the file, for the messages met lately
   * (DEFAULT_STORE_MEMORY). Digests, not texts: memory stays small. A message
   * is found under the digest of its text as sent and under that of its line
   * as stored (they differ where a secret was redacted): a resumed run, which
   * reads back only the stored lines, finds it by the latter.
   */
  private numbers: BoundedMemo<string, number>;
  /** Refs of the contexts written lately. */
  private refs: BoundedMemo<string, true>;
  /** Role → text → digest, for the texts met lately. */
  private readonly digests = new Map<string, BoundedMemo<string, string>>();
  private next = 0;

  constructor(
    readonly path: string,
    private readonly memory = DEFAULT_STORE_MEMORY,
  ) {
    this.numbers = new BoundedMemo(memory.messages);
    this.refs = new BoundedMemo(memory.contexts);
  }

  static inRunDir(dir: string, memory = DEFAULT_STORE_MEMORY): ContextStore {
    return new ContextStore(join(dir, CONTEXTS_FILE), memory);
  }

  /**
   * Opens the file for appending, reading back what a resumed run wrote.
   * `onReadBack` is given each line read back: what else a resume needs from
   * the file (journaled summaries' requests) comes from this one pass.
   */
  open(onReadBack?: (line: ContextLine) => void): void {
    const torn = existsSync(this.path) && endsWithoutNewline(this.path);
    if (existsSync(this.path)) this.readBack(onReadBack);
    this.fd = openSync(this.path, 'a');
    // A torn last line would swallow the next one; start afresh on a new line.
    if (torn) writeSync(this.fd, '\n');
  }

  /** A resumed run's contexts: numbers and refs already written stay valid. */
  private readBack(onLine: ((line: ContextLine) => void) | undefined): void {
    for (const { text } of readLines(this.path, { invalidUtf8: 'replace' })) {
      const line = parseContextLine(text);
      if (!line) continue;
      onLine?.(line);
      if ('m' in line) {
        this.numbers.set(messageDigest(line), line.m);
        this.next = Math.max(this.next, line.m + 1);
      } else this.refs.set(line.c, true);
    }
  }

  /**
   * Stores a context (exact texts, as sent) and returns its ref. Texts are
   * redacted as they are written; the digest is of the text as sent, so a
   * context is recognised whatever secrets it quotes.
   */
  keep(context: readonly ContextMessage[]): string {
    if (this.fd === undefined) throw new Error('context store is not open');
    const digests = context.map((m) => this.digestOf(m));
    const ref = contextRef(digests);
    if (this.refs.get(ref)) return ref;
    const lines: string[] = [];
    const ids = context.map((message, i) => this.numbers.get(digests[i]) ?? this.store(message, digests[i], lines));
    lines.push(contextLine(ref, toRanges(ids)));
    writeSync(this.fd, `${lines.join('\n')}\n`);
    this.refs.set(ref, true);
    return ref;
  }

  /**
   * The number of a message not met under its digest: that of its stored line
   * when the file holds it already (read back by a resumed run, or a message
   * that differs from one kept before only in the secrets redacted), or a new
   * one, whose line is added to `lines`.
   */
  private store(message: ContextMessage, digest: string, lines: string[]): number {
    const stored = { role: message.role, text: redact(message.text) };
    const storedDigest = stored.text === message.text ? digest : messageDigest(stored);
    let id = this.numbers.get(storedDigest);
    if (id === undefined) {
      id = this.next++;
      this.numbers.set(storedDigest, id);
      lines.push(messageLine(id, stored));
    }
    this.numbers.set(digest, id);
    return id;
  }

  /**
   * A message's digest, remembered by its text: a full-history context repeats
   * every earlier message, and the texts are the same string objects each time
   * (so the lookup is cheap where hashing the text again is not).
   */
  private digestOf(message: ContextMessage): string {
    let byText = this.digests.get(message.role);
    if (!byText) this.digests.set(message.role, (byText = new BoundedMemo(MAX_REMEMBERED_DIGESTS)));
    return byText.through(message.text, () => messageDigest(message));
  }

  sync(): void {
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  /** Forgets what it remembered, too: the reports that follow need the memory, not these. */
  close(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
    this.numbers = new BoundedMemo(this.memory.messages);
    this.refs = new BoundedMemo(this.memory.contexts);
    this.digests.clear();
  }
}
