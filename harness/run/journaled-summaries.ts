// A resumed job rebuilds its replay from the journal instead of asking the
// summarizer again: the summaries it already has are served back in order, so
// the strategy builds the same views, and the probe contexts, turns and
// summaries of a resumed run are those of the replay that was journaled, even
// when the summarizer is not deterministic (and with the cache off, no call is
// paid twice).
import type { AgentInputItem, MadeSummary, SummaryRecord } from '../../core/types.js';
import type { Summarizer, SummaryOutput } from '../../strategies/base.js';
import { SUMMARY_SHADOW } from '../../strategies/summary-input.js';

/** The first summary of a replay that was made anew rather than served from the journal. */
export interface FreshFrom {
  /** Its 1-based index among the job's summaries. */
  index: number;
  /** The turn after which it was made: probes before this turn saw the journaled views. */
  turn: number;
}

/**
 * Serves journaled summaries by position. A summary that is missing or that
 * errored is made anew by the live summarizer, and so is every summary after
 * it: the live one may differ, so what the strategy summarises next may too.
 */
export class JournaledSummaries {
  private served = 0;
  private live = false;

  constructor(private readonly journaled: readonly SummaryRecord[]) {}

  wrap(summarizer: Summarizer): Summarizer {
    return {
      label: summarizer.label,
      summarize: (items: AgentInputItem[]) => this.next(summarizer, items),
    };
  }

  private async next(summarizer: Summarizer, items: AgentInputItem[]): Promise<SummaryOutput> {
    const record = this.live ? undefined : this.journaled[this.served];
    // A summary whose request could not be read back (contexts.jsonl damaged) is made again, as a failed one is.
    if (!record || record.error || !hasRequest(record)) {
      this.live = true;
      return summarizer.summarize(items);
    }
    this.served++;
    return outputOf(record);
  }

  /**
   * Where the rebuilt replay first departs from the journaled one: the first
   * summary that was not served. Undefined when every summary was (the
   * rebuilt replay is the journaled one).
   */
  freshFrom(rebuilt: readonly SummaryRecord[]): FreshFrom | undefined {
    const first = rebuilt[this.served];
    if (first) return { index: first.index, turn: first.turn };
    // Nothing new was summarised, yet the journaled replay had a failure that was not served
    // back: the call behind it (an embedding request) was made again and this time gave no
    // event. The rebuilt replay departs there, and what came after it must not be reused.
    const failed = this.journaled.slice(this.served).find((r) => r.error !== undefined);
    return failed ? { index: failed.index, turn: failed.turn } : undefined;
  }
}

/**
 * The built-in summarizers all lead with SUMMARY_SHADOW; the record keeps
 * everything else a summary event carries.
 */
function hasRequest(record: SummaryRecord): record is MadeSummary {
  return record.request !== undefined;
}

function outputOf(record: MadeSummary): SummaryOutput {
  const output: SummaryOutput = {
    userShadow: SUMMARY_SHADOW,
    summary: record.text,
    request: record.request,
    usage: record.usage,
    durationMs: record.durationMs,
  };
  if (record.promptPath !== undefined) output.promptPath = record.promptPath;
  if (record.promptHash !== undefined) output.promptHash = record.promptHash;
  return output;
}
