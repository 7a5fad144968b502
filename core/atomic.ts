// Report and run files are replaced atomically: readers (and a resumed run)
// see the old file or the new one, never half of one.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AtomicWrite {
  /** fsync before the rename (default), so the new file survives a crash of the machine, not only of the process. */
  sync?: boolean;
}

/**
 * For files `memeval report` rebuilds from run.json: still replaced atomically,
 * but not fsynced (one fsync per report was a tenth of a short run's reporting).
 * After a crash of the machine, such a file may be empty; run.json never is.
 */
export const REBUILDABLE: AtomicWrite = { sync: false };

/** Writes a temp file in the same directory, fsyncs it (unless `opts.sync` is false), then renames it over `path`. */
export function writeFileAtomic(path: string, data: string, opts: AtomicWrite = {}): void {
  writeChunksAtomic(path, [data], opts);
}

/** Writes each `[name, text]` into `dir` with writeFileAtomic; returns the paths in the same order. */
export function writeFilesAtomic(dir: string, files: [name: string, text: string][]): string[] {
  return files.map(([name, text]) => {
    const path = join(dir, name);
    writeFileAtomic(path, text);
    return path;
  });
}

/** Like writeFileAtomic for output too large to hold as one string: writes the chunks in turn. */
export function writeChunksAtomic(path: string, chunks: Iterable<string>, opts: AtomicWrite = {}): void {
  // Same directory as `path`, so the rename never crosses a file system.
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeChunks(tmp, chunks, opts.sync ?? true);
    renameSync(tmp, path);
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
}

// The descriptor is closed exactly once, before the rename: closing it again
// on a failed rename would throw EBADF and hide the error that matters.
function writeChunks(file: string, chunks: Iterable<string>, sync: boolean): void {
  const fd = openSync(file, 'w');
  try {
    // writeFileSync on a descriptor writes at the current position and retries short writes.
    for (const chunk of chunks) writeFileSync(fd, chunk);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

// Cleanup after a failure must not replace the failure the caller needs to see.
function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // The original error is rethrown; a leftover temp file is named `.*.tmp` and harmless.
  }
}
