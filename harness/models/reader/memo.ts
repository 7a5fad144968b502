// The reader re-reads the same sentences for every probe of a run; results that depend only
// on a text are kept here, bounded so memory stays flat on big suites.
import { BoundedMemo } from '../../../core/memo.js';

/**
 * Entries per generation of each memo. Texts recur within the transcripts being
 * answered (several at once, up to the run's concurrency), not across a suite,
 * so the memo need not keep a large suite's texts alive; a full history re-read
 * at every turn of a long transcript must still fit.
 */
const MAX_ENTRIES = 12_000;

export class TextMemo<T> {
  private readonly entries = new BoundedMemo<string, T>(MAX_ENTRIES);

  get(key: string, make: () => T): T {
    return this.entries.through(key, make);
  }
}
