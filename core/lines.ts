// Reads a file line by line, synchronously, holding one line and one chunk at
// a time. A large run's run.json (hundreds of MB) and journal.jsonl outgrow
// V8's longest string (~512 MiB), so readFileSync(file, 'utf8') fails on them
// ("Cannot create a string longer than 0x1fffffe8 characters").
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

export interface Line {
  /** The line without its `\n` (or `\r\n`). */
  text: string;
  /** 1-based. */
  line: number;
}

/** A line that is not valid UTF-8 (`invalid-utf8`) or longer than `maxLineBytes` (`too-long`). */
export class LineError extends Error {
  constructor(
    readonly kind: 'invalid-utf8' | 'too-long',
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'LineError';
  }
}

export interface ReadLinesOptions {
  /** Bytes read at a time. */
  chunkSize?: number;
  /** A longer line is a LineError, not a RangeError from V8 (no string can hold ~512 MiB). */
  maxLineBytes?: number;
  /** `error` (default): invalid UTF-8 is a LineError; `replace`: it reads as U+FFFD, as readFileSync does. */
  invalidUtf8?: 'error' | 'replace';
}

const MIB = 1024 * 1024;

/** The lines of `path`, the last one included even without a final newline; closes the file when the loop ends or breaks. */
export function* readLines(path: string, options: ReadLinesOptions = {}): Generator<Line> {
  const { chunkSize = MIB, maxLineBytes = 256 * MIB, invalidUtf8 = 'error' } = options;
  const decoder = new TextDecoder('utf-8', { fatal: invalidUtf8 === 'error' });
  const chunk = Buffer.alloc(chunkSize);
  // Pieces of the current line from earlier chunks (copies: `chunk` is reused).
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;

  const decode = (bytes: Buffer): Line => {
    line++;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    try {
      return { text: decoder.decode(bytes.subarray(0, end)), line };
    } catch {
      throw new LineError('invalid-utf8', line, `line ${line} is not valid UTF-8`);
    }
  };
  const limit = maxLineBytes >= MIB ? `${Math.floor(maxLineBytes / MIB)} MiB` : `${maxLineBytes} bytes`;
  const tooLong = () => new LineError('too-long', line + 1, `line ${line + 1} is longer than ${limit}`);
  const keep = (piece: Buffer): void => {
    pendingBytes += piece.length;
    if (pendingBytes > maxLineBytes) throw tooLong();
    pending.push(Buffer.from(piece));
  };
  const take = (last: Buffer): Buffer => {
    if (pendingBytes + last.length > maxLineBytes) throw tooLong();
    if (pending.length === 0) return last;
    const whole = Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    return whole;
  };

  const fd = openSync(path, 'r');
  try {
    // Opening a folder succeeds; reading it fails with an EISDIR that names no path.
    if (fstatSync(fd).isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR', path });
    for (;;) {
      const read = readSync(fd, chunk, 0, chunkSize, null);
      if (read === 0) break;
      const data = chunk.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, start)) {
        yield decode(take(data.subarray(start, nl)));
        start = nl + 1;
      }
      if (start < read) keep(data.subarray(start));
    }
    if (pending.length > 0) yield decode(take(Buffer.alloc(0)));
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a non-empty file does not end with a newline: its last line was torn
 * by a kill mid-write, and anything appended must start on a new line or it is
 * glued to the torn one (and both are lost).
 */
export function endsWithoutNewline(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}
