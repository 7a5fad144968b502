// The run directory's life: it appears complete (run.json inside) or not at
// all, it is held by one process at a time, and what a killed process left
// half-written in it is cleared before work resumes.
import { hostname } from 'node:os';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/atomic.js';
import { processAlive } from '../../core/process.js';
import { RUN_FILE } from '../../reports/load.js';

export const LOCK_FILE = 'run.lock';

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

function readOwner(lock: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lock, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.host === 'string') return { pid: owner.pid, host: owner.host, startedAt: String(owner.startedAt ?? '') };
  } catch {
    // Unreadable: written by a process killed mid-write (the lock is written in one call, so rare).
  }
  return undefined;
}

/** A lock left by a process that is gone: killed runs must stay resumable without a manual cleanup. */
function stale(owner: LockOwner | undefined): boolean {
  if (!owner) return true;
  return owner.host === hostname() && owner.pid !== process.pid && !processAlive(owner.pid);
}

function tryCreate(lock: string): boolean {
  try {
    const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    writeFileSync(lock, `${JSON.stringify(owner)}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Takes the run directory's lock, or refuses with who holds it: two processes
 * appending to one journal would each redo the other's work and mix replays.
 * Returns the release function; a process that exits without calling it
 * (killed) leaves a lock that the next run sees is stale and takes over.
 */
export function lockRunDir(dir: string): () => void {
  const lock = join(dir, LOCK_FILE);
  if (!tryCreate(lock)) {
    const owner = readOwner(lock);
    if (!stale(owner)) {
      const who = owner ? `process ${owner.pid} on ${owner.host}, since ${owner.startedAt}` : 'another process';
      throw new UsageError(`${dir} is in use by ${who}; wait for that run to finish or stop it, then resume`);
    }
    rmSync(lock, { force: true });
    // A second process that found the same stale lock may win the race; then this one is refused.
    if (!tryCreate(lock)) throw new UsageError(`${dir} was just taken over by another process; wait for it to finish`);
  }
  return releaser(lock);
}

function releaser(lock: string): () => void {
  const release = (): void => {
    process.off('exit', release);
    if (readOwner(lock)?.pid === process.pid) rmSync(lock, { force: true });
  };
  // Also on process.exit (a second Ctrl-C): a lock held by a dead process is only ever a nuisance.
  process.on('exit', release);
  return release;
}

/**
 * Creates `dir` with its run.json already inside and locked by this process:
 * it is built under a temporary name and renamed into place, so a kill at any
 * moment leaves either nothing under `dir` or a directory `--resume` accepts.
 */
export function createRunDir(dir: string, runJson: string): () => void {
  const building = `${dir}.${process.pid}.partial`;
  mkdirSync(building, { recursive: true });
  writeFileAtomic(join(building, RUN_FILE), runJson);
  if (!tryCreate(join(building, LOCK_FILE))) throw new Error(`${building}: could not create the run lock`);
  renameSync(building, dir);
  // The lock moved with its directory.
  return releaser(join(dir, LOCK_FILE));
}

const PARTIAL_DIR = /\.(\d+)\.partial$/;
const TEMP_FILE = /^\..+\.tmp$/;

/** Removes temp files of atomic writes a killed process left in a run directory this process holds (no one else writes there). */
export function removeStaleTemps(runDir: string): void {
  for (const name of safeList(runDir)) if (TEMP_FILE.test(name)) rmSync(join(runDir, name), { force: true });
}

/** Removes run directories under `out` that were never renamed into place because their process died. */
export function removeStalePartials(out: string): void {
  for (const name of safeList(out)) {
    const pid = PARTIAL_DIR.exec(name)?.[1];
    if (pid && !processAlive(Number(pid)) && isDirectory(join(out, name))) rmSync(join(out, name), { recursive: true, force: true });
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
