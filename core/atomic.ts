// Report and run files are replaced atomically: readers (and a resumed run)
// see the old file or the new one, never half of one.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes a temp file in the same directory, fsyncs it, then renames it over `path`. */
export function writeFileAtomic(path: string, data: string): void {
  writeChunksAtomic(path, [data]);
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
export function writeChunksAtomic(path: string, chunks: Iterable<string>): void {
  // Same directory as `path`, so the rename never crosses a file system.
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeDurably(tmp, chunks);
    renameSync(tmp, path);
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
}

// The descriptor is closed exactly once, before the rename: closing it again
// on a failed rename would throw EBADF and hide the error that matters.
function writeDurably(file: string, chunks: Iterable<string>): void {
  const fd = openSync(file, 'w');
  try {
    // writeFileSync on a descriptor writes at the current position and retries short writes.
    for (const chunk of chunks) writeFileSync(fd, chunk);
    fsyncSync(fd);
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
