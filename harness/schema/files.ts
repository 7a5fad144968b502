// Input files read as text, and paths of the suite config checked before a run.
// A file is read only when it is no bigger than `limits.max_file_mb` (asked
// of the file system first, and counted while reading for pipes and devices
// that report no size), and only as strict UTF-8: a byte that is not UTF-8 is
// an error at its line and column, never a silent U+FFFD.
import { accessSync, closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileProblem, formatProblem, positionOf, type Problem } from '../../core/errors.js';
import { DEFAULT_LIMITS, maxFileBytes, megabytes, type Limits } from './limits.js';

/** The text of a file, or the one problem that kept it from being read. */
export type TextRead = { ok: true; text: string } | { ok: false; problem: Problem };

export interface ReadRule {
  /** How messages name the file (a path relative to the working directory, say). */
  display?: string;
  /** What the file is, for "cannot read <what>" ("config file"). */
  what?: string;
  limits?: Pick<Limits, 'max_file_mb'>;
  /** Said after a size problem: how to raise the bound, where it can be raised. */
  sizeHint?: string;
}

const CHUNK = 1 << 20;

/** Reads `path` as strict UTF-8 within the size limit; never throws for a file that cannot be read. */
export function readTextFile(path: string, rule: ReadRule = {}): TextRead {
  const file = rule.display ?? path;
  const cannotRead = (why: string) => failed(fileProblem(file, `cannot read ${rule.what ?? 'file'} (${why})`));
  const limit = maxFileBytes(rule.limits ?? DEFAULT_LIMITS);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return cannotRead(errorCode(e));
  }
  try {
    const read = readBounded(fd, limit);
    if (read.kind === 'directory') return cannotRead('it is a directory');
    if (read.kind === 'too-big') return failed(fileProblem(file, sizeMessage(read.size, limit, rule.sizeHint)));
    return decodeUtf8(read.bytes, file);
  } catch (e) {
    return cannotRead(errorCode(e));
  } finally {
    closeSync(fd);
  }
}

function failed(problem: Problem): TextRead {
  return { ok: false, problem };
}

export function errorCode(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? code : (e as Error).message;
}

/** What reading an open file within a limit gave; `size` is 0 when the file system does not know it. */
type Bounded = { kind: 'bytes'; bytes: Uint8Array } | { kind: 'too-big'; size: number } | { kind: 'directory' };

/** The bytes of an open file, unless there are more than `limit` (known from a regular file's size before any byte is read). */
function readBounded(fd: number, limit: number): Bounded {
  const stat = fstatSync(fd);
  if (stat.isDirectory()) return { kind: 'directory' };
  if (stat.isFile() && stat.size > limit) return { kind: 'too-big', size: stat.size };
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total));
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    total += n;
    // A pipe or a device (/dev/zero) reports no size: one byte past the limit is enough to know.
    if (total > limit) return { kind: 'too-big', size: stat.size };
  }
  return { kind: 'bytes', bytes: Buffer.concat(chunks, total) };
}

function sizeMessage(size: number, limit: number, hint: string | undefined): string {
  // Bytes where megabytes would read the same as the limit ("1 MB, over the 1 MB limit").
  const shown = megabytes(size) === megabytes(limit) ? `${size} bytes` : megabytes(size);
  const actual = size > limit ? `is ${shown}, over` : 'is over';
  return `the file ${actual} the ${megabytes(limit)} limit for one file${hint ? ` (${hint})` : ''}`;
}

const STRICT = new TextDecoder('utf-8', { fatal: true });

/** `bytes` as text; a byte that is not UTF-8 is a problem at its line and column. */
export function decodeUtf8(bytes: Uint8Array, file: string): TextRead {
  try {
    return { ok: true, text: STRICT.decode(bytes) };
  } catch {
    const at = firstBadSequence(bytes);
    // Everything before the bad sequence is valid, so it decodes to the text the position counts in.
    const before = STRICT.decode(bytes.subarray(0, at.start));
    const [lead, ...rest] = [...bytes.subarray(at.start, at.end)].map(hex);
    const what = rest.length === 0 ? `byte ${lead}` : `byte ${lead} followed by ${rest.join(' ')}`;
    return failed({ file, ...positionOf(before, before.length), message: `invalid UTF-8 (${what}); save the file as UTF-8 (it may be in Latin-1 or Windows-1252)` });
  }
}

function hex(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Where the first ill-formed sequence starts and ends, by the WHATWG decoder's
 * rules (the ones TextDecoder follows): a byte that cannot start a sequence,
 * or a lead byte whose continuation is missing, out of range, or cut off by
 * the end of the file.
 */
export function firstBadSequence(bytes: Uint8Array): { start: number; end: number } {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    const need = lead < 0x80 ? 0 : lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1;
    if (need < 0) return { start: i, end: i + 1 };
    // The second byte's range is narrower after some leads (no overlong forms, no surrogates, nothing past U+10FFFF).
    let lower = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    let upper = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k];
      if (b === undefined || b < lower || b > upper) return { start: i, end: Math.min(i + k + 1, bytes.length) };
      lower = 0x80;
      upper = 0xbf;
    }
    i += need + 1;
  }
  return { start: bytes.length, end: bytes.length };
}

// ---------------------------------------------------------------- paths of the config

/** Stats of `path`, undefined when nothing is there, or the error code when it cannot be looked at. */
function look(path: string): Stats | undefined | string {
  try {
    return statSync(path);
  } catch (e) {
    const code = errorCode(e);
    // ENOTDIR: a part of the path is a file; walking up finds which.
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : code;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why `path` could not be the folder a run writes into, or undefined: it must
 * be a folder, or be creatable. Creates nothing (a dry `plan` leaves no
 * trace): a folder that does not exist is creatable when its nearest existing
 * ancestor is a folder this user may write to.
 */
export function writableDirProblem(path: string): string | undefined {
  const abs = resolve(path);
  const found = look(abs);
  if (typeof found === 'string') return `cannot be checked (${found})`;
  // An existing folder is taken as it is: commands that only read runs (gate, report) load the same config.
  if (found) return found.isDirectory() ? undefined : `is a file, not a folder (${abs})`;
  return creatableProblem(abs);
}

/** The nearest ancestor of the missing `abs` that exists, with what is there (or why it cannot be looked at). */
function nearestAncestor(abs: string): { dir: string; found: Stats | string } | undefined {
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    const found = look(dir);
    if (found) return { dir, found };
    if (dir === dirname(dir)) return undefined;
  }
}

/** Why the missing folder `abs` could not be created, from its nearest existing ancestor. */
function creatableProblem(abs: string): string | undefined {
  const ancestor = nearestAncestor(abs);
  if (!ancestor) return `cannot be created (${abs})`;
  const { dir, found } = ancestor;
  if (typeof found === 'string') return `cannot be checked (${found} at ${dir})`;
  if (!found.isDirectory()) return `cannot be created: ${dir} is a file, not a folder`;
  return writable(dir) ? undefined : `cannot be created: ${dir} is a folder this user cannot write to`;
}

/**
 * Why `path` cannot be a run folder to read from: something other than a
 * folder is there, or a file above it means one can never be. Nothing there
 * yet is fine (a suite's first run is what later becomes its baseline).
 */
export function existingDirProblem(path: string): string | undefined {
  const abs = resolve(path);
  const found = look(abs);
  if (typeof found === 'string') return `cannot be checked (${found})`;
  if (found) return found.isDirectory() ? undefined : `is a file, not a run folder (${abs})`;
  const ancestor = nearestAncestor(abs);
  const blocked = ancestor && typeof ancestor.found !== 'string' && !ancestor.found.isDirectory();
  return blocked ? `cannot be created: ${ancestor.dir} is a file, not a folder` : undefined;
}

/** Why `path` is not a readable text file within the limits, or undefined. */
export function textFileProblem(path: string, limits: Pick<Limits, 'max_file_mb'>, sizeHint?: string): string | undefined {
  const found = look(path);
  if (typeof found === 'string') return `cannot be read (${found})`;
  if (!found) return 'not found';
  if (found.isDirectory()) return 'is a folder, not a file';
  const read = readTextFile(path, { limits, sizeHint });
  return read.ok ? undefined : `cannot be used: ${formatProblem(read.problem)}`;
}
