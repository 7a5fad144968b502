// The reader re-reads the same sentences for every probe of a run; results that depend only
// on a text are kept here, bounded so memory stays flat on big suites.
import { BoundedMemo } from '../../../core/memo.js';

/**
 * Entries per generation of each memo. Texts recur within the transcript being
 * answered, not across transcripts, so a small memo hits as often as a large one
 * and does not keep a large suite's texts alive.
 */
const MAX_ENTRIES = 4_000;

export class TextMemo<T> {
  private readonly entries = new BoundedMemo<string, T>(MAX_ENTRIES);

  get(key: string, make: () => T): T {
    return this.entries.through(key, make);
  }
}
