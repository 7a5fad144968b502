// A journal torn by a kill mid-write keeps every whole entry, before and after a resume.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Journal, finishedWork, readJournal, requestRefs, type JournalEntry } from '../../../harness/run/journal.js';
import type { SummaryGrades, SummaryRecord, TurnRecord } from '../../../core/types.js';
import { TURN_COLUMNS, turnTables } from '../../../core/schema/run.js';
import { requestFromMessages, requestMessages } from '../../../core/contexts.js';
import { JournaledSummaries } from '../../../harness/run/journaled-summaries.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('appends after a torn last line without gluing the new entry to it', () => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-journal-'));
  const path = join(dir, 'journal.jsonl');
  const first = new Journal(path);
  first.open();
  first.append({ type: 'job-done', job: 'a::t1' });
  first.close();
  appendFileSync(path, '{"type":"job-done","job":"a::t'); // killed mid-write

  const resumed = new Journal(path);
  resumed.open();
  resumed.append({ type: 'job-done', job: 'b::t2' });
  resumed.close();

  expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  expect([...finishedWork(readJournal(path)).jobsDone]).toEqual(['a::t1', 'b::t2']);
});

it('reads a journal line by line: blank and CRLF lines, and a torn last line cut inside a character', () => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-journal-'));
  const path = join(dir, 'journal.jsonl');
  const torn = Buffer.from('{"type":"job-done","job":"café').subarray(0, -1); // half of the é
  writeFileSync(path, Buffer.concat([Buffer.from('{"type":"job-done","job":"a"}\r\n\n{"type":"job-done","job":"ü"}\n'), torn]));
  expect(readJournal(path)).toEqual([
    { type: 'job-done', job: 'a' },
    { type: 'job-done', job: 'ü' },
  ]);
  expect(readJournal(join(dir, 'missing.jsonl'))).toEqual([]);
});

it('adds nothing to a journal that ends cleanly or does not exist yet', () => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-journal-'));
  const path = join(dir, 'journal.jsonl');
  for (let i = 0; i < 2; i++) {
    const j = new Journal(path);
    j.open();
    j.append({ type: 'job-done', job: `s::t${i}` });
    j.close();
  }
  expect(readFileSync(path, 'utf8')).toBe('{"type":"job-done","job":"s::t0"}\n{"type":"job-done","job":"s::t1"}\n');
});

it('gives a probe journaled before `answerable` existed the value its facts imply, and keeps a recorded one', () => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-journal-'));
  const path = join(dir, 'journal.jsonl');
  const old = (probe: string, kind: string, needed: string[], missing: string[]) => ({
    strategy: 's', transcript: 't', probe, kind, afterTurn: 2, repeat: 1, question: '?', reference: 'x',
    contextTokens: 10, contextItems: 2, factsNeeded: needed, factsPresent: needed.filter((f) => !missing.includes(f)), factsMissing: missing,
    model: 'offline', answer: 'x', passed: true,
  });
  const lines = [
    { type: 'probe', key: 'kept', record: old('kept', 'recall', ['a'], []) },
    { type: 'probe', key: 'lost', record: old('lost', 'recall', ['a', 'b'], ['b']) },
    { type: 'probe', key: 'unknown', record: old('unknown', 'recall', [], []) },
    { type: 'probe', key: 'abstain', record: old('abstain', 'abstention', [], []) },
    // Recorded by this version: read as it was written, never recomputed.
    { type: 'probe', key: 'recorded', record: { ...old('recorded', 'recall', ['a'], []), answerable: null } },
  ];
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const probes = finishedWork(readJournal(path)).probes;
  expect(['kept', 'lost', 'unknown', 'abstain', 'recorded'].map((k) => probes.get(k)?.answerable)).toEqual([true, false, null, true, null]);
});

it('keeps a summary’s grades, journaled alone or (older journals) with the whole graded record', () => {
  const grades = { checks: { factCoverage: 1 } } as unknown as SummaryGrades;
  const older = { strategy: 's', transcript: 't', index: 2, grades } as unknown as SummaryRecord;
  const work = finishedWork([
    { type: 'summary-grade', key: 's::t::summary::1', grades },
    { type: 'summary-grade', key: 's::t::summary::2', record: older },
  ]);
  expect(work.summaryGrades.get('s::t::summary::1')).toBe(grades);
  expect(work.summaryGrades.get('s::t::summary::2')).toBe(grades);
});

it('gives journaled summaries their requests back from the store, and serves none it cannot read back', async () => {
  const request = { system: 'Summarise.', user: 'USER: my order is A-17\nASSISTANT: noted' };
  const stored = requestMessages(request);
  expect(requestFromMessages(stored)).toEqual(request);
  const base = { strategy: 's', transcript: 't', turn: 2, coveredTurns: [1, 1], summarizer: 'x', text: 'A-17', usage: { inputTokens: 1, outputTokens: 1 }, durationMs: 1 };
  const work = finishedWork(
    [{ type: 'replay', job: 's::t', turns: [], summaries: [{ ...base, index: 1, requestRef: 'kept' }, { ...base, index: 2, requestRef: 'lost' }] as SummaryRecord[] }],
    (ref) => (ref === 'kept' ? requestFromMessages(stored) : undefined),
  );
  const [kept, lost] = work.replays.get('s::t')?.summaries ?? [];
  expect(kept.request).toEqual(request);
  expect(lost.request).toBeUndefined();
  // The first is served back; the second, whose request is gone, is made again by the live summarizer.
  let asked = 0;
  const live = { label: 'live', summarize: async () => ((asked += 1), { userShadow: '', summary: 'new', request, usage: { inputTokens: 1, outputTokens: 1 }, durationMs: 1 }) };
  const served = new JournaledSummaries([kept, lost]).wrap(live);
  expect((await served.summarize([])).summary).toBe('A-17');
  expect((await served.summarize([])).summary).toBe('new');
  expect(asked).toBe(1);
});

it('reads a replay’s turns as a table, as records of the current shape and (older journals) as listed facts, all alike', () => {
  const turn = (n: number, lost: string[]): TurnRecord => ({
    strategy: 's', transcript: 't', turn: n, fullTokens: 100 * n, contextTokens: 100, apiTokens: 0, items: 2 * n,
    factsPresentCount: 2 - lost.length, factsMissingCount: lost.length, criticalMissingCount: 0, factsOpaqueCount: 0, factsLost: lost, factsRegained: [], criticalLost: [], summaries: 0,
  });
  const turns = [turn(1, []), turn(2, ['f2'])];
  const listed = [
    { strategy: 's', transcript: 't', turn: 1, fullTokens: 100, contextTokens: 100, items: 2, factsPresent: ['f1', 'f2'], factsMissing: [], criticalDropped: [], summaries: 0 },
    { strategy: 's', transcript: 't', turn: 2, fullTokens: 200, contextTokens: 100, items: 4, factsPresent: ['f1'], factsMissing: ['f2'], criticalDropped: [], summaries: 0 },
  ];
  const tables = [...turnTables(turns)];
  // One table for the job: strategy and transcript once, a row of values per turn.
  expect(tables).toEqual([{ strategy: 's', transcript: 't', columns: [...TURN_COLUMNS], rows: turns.map((t) => TURN_COLUMNS.map((c) => t[c] ?? null)) }]);
  const replay = (job: string, entries: unknown[]) => ({ type: 'replay', job, turns: entries, summaries: [] }) as unknown as JournalEntry;
  const work = finishedWork([replay('table', tables), replay('records', turns), replay('listed', listed)]);
  for (const job of ['table', 'records', 'listed']) expect(work.replays.get(job)?.turns, job).toEqual(turns);
});

it('replays a job again when its journaled turn table does not read back', () => {
  const [table] = [...turnTables([{ strategy: 's', transcript: 't', turn: 1, fullTokens: 1, contextTokens: 1, items: 1, factsPresentCount: 0, factsMissingCount: 0, criticalMissingCount: 0, factsLost: [], factsRegained: [], criticalLost: [], summaries: 0 }])];
  const damaged = { ...table, rows: [['one', ...table.rows[0].slice(1)]] };
  const work = finishedWork([{ type: 'replay', job: 'j', turns: [damaged], summaries: [] } as unknown as JournalEntry]);
  expect(work.replays.has('j')).toBe(false);
  // Named, so the resumed run can say its summaries are made again.
  expect(work.unreadable).toEqual(['j']);
});

it('names the requests a resume reads back: those summaries name by ref, not those they carry, and none of a damaged replay', () => {
  const base = { strategy: 's', transcript: 't', turn: 2, coveredTurns: [1, 1], summarizer: 'x', text: 'A-17', usage: { inputTokens: 1, outputTokens: 1 }, durationMs: 1 };
  const carried = { system: 'Summarise.', user: 'USER: hi' };
  const refs = requestRefs([
    { type: 'replay', job: 's::t', turns: [], summaries: [{ ...base, index: 1, requestRef: 'named' }, { ...base, index: 2, request: carried }] as SummaryRecord[] },
    { type: 'replay', job: 's::u', turns: 'damaged', summaries: null } as unknown as JournalEntry,
    { type: 'job-done', job: 's::t' },
  ]);
  expect([...refs]).toEqual(['named']);
});

it('departs at a journaled failure that the rebuilt replay no longer has, though nothing was summarised anew', () => {
  // A retrieval strategy's failed embedding call is journaled as a failed summary; made again on resume
  // and answered, it leaves no record. The probes after it saw the degraded view and must be answered again.
  const failed = { strategy: 's', transcript: 't', turn: 3, index: 1, coveredTurns: [1, 2], summarizer: 'embeddings', text: '', usage: { inputTokens: 0, outputTokens: 0 }, durationMs: 1, error: 'HTTP 400' } as SummaryRecord;
  expect(new JournaledSummaries([failed]).freshFrom([])).toEqual({ index: 1, turn: 3 });
  expect(new JournaledSummaries([]).freshFrom([])).toBeUndefined();
});
