// Append-only JSONL journal of finished work. Each entry is written with one
// write(2) call, so a killed process leaves whole lines (plus at most one torn
// last line, which reading skips); fsync runs every few seconds and on close.
import { closeSync, existsSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { endsWithoutNewline, readLines } from '../../core/lines.js';
import type { ProbeRecord, SummaryGrades, SummaryRecord, SummaryRequest, TurnRecord } from '../../core/types.js';
import { migrateTurns, turnEntriesSchema, type TurnEntry } from '../../core/schema/run.js';
import { answerableOf } from '../../graders/attribution.js';

export type JournalEntry =
  // A replay's turns as a table (core/schema/run.ts turnTables): journals written
  // before hold a record per turn, of either shape; both are read.
  | { type: 'replay'; job: string; turns: TurnEntry[]; summaries: SummaryRecord[] }
  | { type: 'probe'; key: string; record: ProbeRecord }
  // A summary's grades; the summary itself is in its replay entry. Journals written
  // before carry the whole graded record.
  | { type: 'summary-grade'; key: string; grades: SummaryGrades }
  | { type: 'summary-grade'; key: string; record: SummaryRecord }
  | { type: 'job-done'; job: string };

export const JOURNAL_FILE = 'journal.jsonl';

/** How often finished work is forced to disk during a run. */
const CHECKPOINT_MS = 2000;

export class Journal {
  private fd: number | undefined;

  constructor(readonly path: string) {}

  open(): void {
    this.fd = openSync(this.path, 'a');
    // A kill mid-write can leave a torn last line; without a newline the next entry would be glued to it and lost.
    if (endsWithoutNewline(this.path)) writeSync(this.fd, '\n');
  }

  append(entry: JournalEntry): void {
    if (this.fd === undefined) throw new Error('journal is not open');
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  /** Forces finished work to disk (interrupts, the end of a run). */
  sync(): void {
    if (this.fd !== undefined) fsyncSync(this.fd);
    this.syncedAt = performance.now();
  }

  private syncedAt = performance.now();

  /**
   * Whether finished work is due to be forced to disk: every CHECKPOINT_MS. A
   * killed process loses nothing either way (its writes are in the OS
   * already); fsync guards against a machine crash, and one per job was 8% of
   * a large offline run.
   */
  checkpointDue(): boolean {
    return performance.now() - this.syncedAt >= CHECKPOINT_MS;
  }

  close(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Reads every whole entry; a torn final line (a kill mid-write) is ignored. */
export function readJournal(path: string): JournalEntry[] {
  if (!existsSync(path)) return [];
  const entries: JournalEntry[] = [];
  // Line by line: a large run's journal is longer than any string V8 can hold. A torn
  // last line may end inside a character, so invalid UTF-8 reads as U+FFFD (as readFileSync did).
  for (const { text } of readLines(path, { invalidUtf8: 'replace' })) {
    if (!text.trim()) continue;
    try {
      entries.push(JSON.parse(text) as JournalEntry);
    } catch {
      // Only the last line can be torn; anything unparseable is unfinished work.
    }
  }
  return entries;
}

/** What a resumed run can skip. */
export interface FinishedWork {
  replays: Map<string, { turns: TurnRecord[]; summaries: SummaryRecord[] }>;
  probes: Map<string, ProbeRecord>;
  summaryGrades: Map<string, SummaryGrades>;
  jobsDone: Set<string>;
  /** Jobs whose journaled replay did not read back: they are replayed (and their summaries made) again. */
  unreadable: string[];
}

/** The refs `finishedWork` will ask `requestOf` for: journaled summaries that name their request instead of carrying it. */
export function requestRefs(entries: readonly JournalEntry[]): Set<string> {
  const refs = new Set<string>();
  for (const entry of entries) {
    // A damaged replay entry (its turns do not read back, so finishedWork skips it) may lack its summaries.
    if (entry.type !== 'replay' || !Array.isArray(entry.summaries)) continue;
    for (const summary of entry.summaries) if (!summary?.request && summary?.requestRef !== undefined) refs.add(summary.requestRef);
  }
  return refs;
}

/**
 * `requestOf` reads back a summary's request stored by `requestRef`
 * (contexts.jsonl); a summary whose request cannot be read is made again.
 */
export function finishedWork(entries: JournalEntry[], requestOf: (ref: string) => SummaryRequest | undefined = () => undefined): FinishedWork {
  const work: FinishedWork = { replays: new Map(), probes: new Map(), summaryGrades: new Map(), jobsDone: new Set(), unreadable: [] };
  for (const entry of entries) {
    if (entry.type === 'replay') {
      const turns = turnEntriesSchema.safeParse(entry.turns);
      // A replay whose turns do not read back is unfinished work: the job is replayed again.
      if (!turns.success) {
        work.unreadable.push(entry.job);
        continue;
      }
      // A journal written before turn records held counts lists every fact at every turn.
      work.replays.set(entry.job, { turns: migrateTurns(turns.data), summaries: entry.summaries.map((s) => withRequest(s, requestOf)) });
    } else if (entry.type === 'probe') work.probes.set(entry.key, withAnswerable(entry.record));
    else if (entry.type === 'summary-grade') {
      const grades = 'grades' in entry ? entry.grades : entry.record.grades;
      if (grades) work.summaryGrades.set(entry.key, grades);
    }
    else if (entry.type === 'job-done') work.jobsDone.add(entry.job);
  }
  return work;
}

function withRequest(summary: SummaryRecord, requestOf: (ref: string) => SummaryRequest | undefined): SummaryRecord {
  if (summary.request || summary.requestRef === undefined) return summary;
  const request = requestOf(summary.requestRef);
  return request ? { ...summary, request } : summary;
}

/**
 * A probe journaled before `answerable` was recorded is computed from the
 * facts it journaled, the same rule a fresh answer gets: the resumed run's
 * records all carry the field, and its reports equal an uninterrupted run's.
 */
function withAnswerable(record: ProbeRecord): ProbeRecord {
  const journaled = record as Omit<ProbeRecord, 'answerable'> & { answerable?: boolean | null };
  if (journaled.answerable !== undefined) return record;
  return { ...journaled, answerable: answerableOf(journaled) };
}
