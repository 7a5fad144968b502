// The reader re-reads the same sentences for every probe of a run; results that depend only
// on a text are kept here, bounded so memory stays flat on big suites.
import { BoundedMemo } from '../../../core/memo.js';

/**
 * Entries per generation of each memo. Texts recur mostly within the
 * transcripts being answered (several at once, up to the run's concurrency),
 * so the memo need not keep a large suite's texts alive. Measured: on three
 * 600-turn transcripts at concurrency 8, 4,000 and 12,000 ran alike; on 1,000
 * twelve-turn transcripts of templated text, 12,000 saved 7% of CPU (their
 * sentences recur across transcripts) and cost 35 MB of peak RSS.
 */
const MAX_ENTRIES = 4_000;

export class TextMemo<T> {
  private readonly entries = new BoundedMemo<string, T>(MAX_ENTRIES);

  get(key: string, make: () => T): T {
    return this.entries.through(key, make);
  }
}
