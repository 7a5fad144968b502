// Report and run files are replaced atomically: readers (and a resumed run)
// see the old file or the new one, never half of one.
import { closeSync, existsSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes a temp file in the same directory, fsyncs it, then renames it over `path`. */
export function writeFileAtomic(path: string, data: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data);
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw err;
  }
}

/** Like writeFileAtomic for output too large to hold as one string: writes the chunks in turn. */
export function writeChunksAtomic(path: string, chunks: Iterable<string>): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    for (const chunk of chunks) writeSync(fd, chunk);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (err) {
    closeSync(fd);
    if (existsSync(tmp)) unlinkSync(tmp);
    throw err;
  }
}
