// All-or-nothing output for an import.
//
// Files are written into a hidden staging folder beside the target
// (`.<name>.import-XXXXXX`, same file system, so a rename moves a file without
// copying) and moved in only when every file was written and every record was
// good. A failed import, a bad record or a crash therefore never leaves a partial
// set in the target: at worst a staging folder beside it, which the next import
// ignores. (Writing each file atomically into the target and deleting the new ones
// on failure was the alternative; it cannot clean up after a crash, and it would
// remove the earlier import's files of the same name.)
//
// Before moving in, the target is checked for memeval transcripts this import did
// not write (an earlier import's, e.g. a larger one): loaded together with the new
// ones they would be graded as part of this dataset. The import refuses unless
// `clean` is set, which removes exactly those files and nothing else.
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError, fileProblem } from '../../../core/errors.js';

/** Bytes read from the start of a file to tell whether it is a memeval transcript. */
const HEAD_BYTES = 64 * 1024;

/** True when the file starts like a transcript file: top-level `id:` and `turns:` keys (the writer puts both first). */
export function looksLikeTranscript(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(HEAD_BYTES);
    const head = buffer.subarray(0, readSync(fd, buffer, 0, HEAD_BYTES, 0)).toString('utf8');
    return /^id:[ \t]*\S/m.test(head) && /^turns:/m.test(head);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Names of the `*.yaml` memeval transcripts directly in `dir` (none when it does not exist). */
export async function transcriptFilesIn(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith('.yaml') && looksLikeTranscript(join(dir, n))).sort();
}

async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return undefined;
  }
}

/** Creates the staging folder beside `target` (and `target`'s parent when missing). */
export async function openStaging(target: string): Promise<string> {
  const full = resolve(target);
  if ((await isDirectory(full)) === false) throw new InputError([fileProblem(target, '--out must be a folder, and this is a file')]);
  await mkdir(dirname(full), { recursive: true });
  return mkdtemp(join(dirname(full), `.${basename(full)}.import-`));
}

export async function discardStaging(staging: string): Promise<void> {
  await rm(staging, { recursive: true, force: true });
}

function staleMessage(stale: string[]): string {
  const one = stale.length === 1;
  return (
    `holds ${stale.length} memeval ${one ? 'transcript' : 'transcripts'} this import did not write (e.g. ${stale[0]}), ` +
    `probably from an earlier import; a run would read ${one ? 'it' : 'them'} with the new ones. ` +
    'Nothing was written. Add --clean to remove them, or import into another folder.'
  );
}

/**
 * Moves the staged files `names` into `target`. Refuses (InputError) when `target`
 * holds other transcripts, unless `clean`, which removes them first. Returns the
 * names removed.
 */
export async function commitStaging(staging: string, target: string, names: readonly string[], clean: boolean): Promise<string[]> {
  const writing = new Set(names);
  const stale = (await transcriptFilesIn(target)).filter((n) => !writing.has(n));
  if (stale.length > 0 && !clean) throw new InputError([fileProblem(target, staleMessage(stale))]);
  if ((await isDirectory(target)) === undefined) {
    // A new folder: one rename moves the whole set in at once.
    await rename(staging, target);
    return [];
  }
  for (const name of stale) await unlink(join(target, name));
  for (const name of names) await rename(join(staging, name), join(target, name));
  return stale;
}
