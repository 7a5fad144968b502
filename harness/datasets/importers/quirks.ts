// What an import tolerated in the data, summed from the meta the importers record,
// so a user sees at a glance how far the files were from their documented shape.
import type { Meta, Transcript } from '../../../core/types.js';

interface Count {
  items: number;
  files: Set<string>;
}

/** Counts of tolerated quirks, by description, over the transcripts written. */
export class QuirkTally {
  private readonly counts = new Map<string, Count>();

  add(what: string, items: number, file: string): void {
    if (items <= 0) return;
    const count = this.counts.get(what) ?? { items: 0, files: new Set<string>() };
    count.items += items;
    count.files.add(file);
    this.counts.set(what, count);
  }

  /** One line per quirk, most frequent first: `12 evidence ids matching no utterance (3 files)`. */
  lines(): string[] {
    return [...this.counts]
      .sort((a, b) => b[1].items - a[1].items || a[0].localeCompare(b[0]))
      .map(([what, c]) => `${c.items} ${what} (${c.files.size} ${c.files.size === 1 ? 'file' : 'files'})`);
  }
}

/** A meta value as a count: a list counts its entries, a number itself, `true` once. */
function amount(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return value === true || (typeof value === 'string' && value.length > 0) ? 1 : 0;
}

/** Transcript-level meta keys the importers write when they tolerate something. */
const TRANSCRIPT_QUIRKS: ReadonlyArray<[string, string]> = [
  ['dates_without_session', 'session dates without a session (LoCoMo)'],
  ['empty_sessions', 'empty sessions skipped'],
  ['other_speakers', 'speakers besides speaker_a and speaker_b (their lines joined the replies)'],
  ['skipped_qa', 'questions skipped (no question or no answer)'],
  ['images_without_url', 'image captions without an image URL (caption kept)'],
  ['sessions_reordered', 'records whose sessions were re-sorted by date'],
  ['unsorted', 'records with unreadable session dates (sessions kept in file order)'],
  ['haystack_dates_count', 'records whose date list does not match their sessions'],
  ['skipped_messages', 'messages skipped (not an object or no text)'],
  ['other_roles', 'records with roles besides user and assistant'],
  ['duplicate_of', 'records with a duplicate id (file named -2, -3, …)'],
];

const PROBE_QUIRKS: ReadonlyArray<[string, string]> = [
  ['unresolved_evidence', 'evidence ids matching no utterance'],
  ['evidence_without_answer', 'evidence lines not stating the answer (no fact planted)'],
  ['evidence_turns', 'has_answer turns not stating the answer (no fact planted)'],
  ['unknown_question_type', 'questions of an unknown type (graded as recall)'],
];

function skippedLines(meta: Meta): number {
  return Object.entries(meta)
    .filter(([k]) => /^session_\d+_skipped_lines$/.test(k))
    .reduce((sum, [, v]) => sum + amount(v), 0);
}

/** Adds what `t` (written to `file`) tolerated. */
export function tallyQuirks(t: Transcript, file: string, tally: QuirkTally): void {
  const meta = t.meta ?? {};
  for (const [key, what] of TRANSCRIPT_QUIRKS) tally.add(what, amount(meta[key]), file);
  tally.add('utterances skipped (not an object)', skippedLines(meta), file);
  // A session date that was given but not understood has no `at:`; the header keeps it.
  const unparsed = t.turns.filter((turn) => turn.kind === 'message' && turn.meta?.date !== undefined && turn.at === undefined).length;
  tally.add('session dates not understood (kept in the session header, no at:)', unparsed, file);
  for (const [key, what] of PROBE_QUIRKS) tally.add(what, t.probes.reduce((sum, p) => sum + amount(p.meta?.[key]), 0), file);
}
