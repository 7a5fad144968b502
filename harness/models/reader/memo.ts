// The reader re-reads the same sentences for every probe of a run; results that depend only
// on a text are kept here, bounded so memory stays flat on big suites.
import { BoundedMemo } from '../../../core/memo.js';

/** Entries per generation of each memo. */
const MAX_ENTRIES = 25_000;

export class TextMemo<T> {
  private readonly entries = new BoundedMemo<string, T>(MAX_ENTRIES);

  get(key: string, make: () => T): T {
    return this.entries.through(key, make);
  }
}
