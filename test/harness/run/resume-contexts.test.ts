// What a resumed run does with contexts.jsonl: it reads the file once (for the
// numbers and refs it goes on from, and for the summary requests its journal
// names), and it writes no message line the file holds already.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { CONTEXTS_FILE, type ContextMessage } from '../../../core/contexts.js';
import type { RunResult } from '../../../core/types.js';
import { filesUnder, journalKeepingLog, linkJournal, tinyTranscript, Workspace } from '../../helpers/cli.js';

// readLines still reads; the wrapper counts the reads of contexts.jsonl and the lines they yield.
const contextsReads = { opened: 0, lines: 0 };
vi.mock('../../../core/lines.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../core/lines.js')>();
  function* counted(...args: Parameters<typeof real.readLines>): ReturnType<typeof real.readLines> {
    const ofContexts = args[0].toString().endsWith(CONTEXTS_FILE);
    if (ofContexts) contextsReads.opened++;
    for (const line of real.readLines(...args)) {
      if (ofContexts) contextsReads.lines++;
      yield line;
    }
  }
  return { ...real, readLines: vi.fn(counted) };
});

function config(strategies: string): string {
  return `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
concurrency: 2
cache: false
baseline: full
strategies:
  - id: full
    use: full-history
${strategies}`;
}

const SUMMARIZING = `  - id: sum
    use: summarizing
    context_limit: 3
    keep_last_n_turns: 1
    summarizer:
      model: offline
`;

const workspaces: Workspace[] = [];
afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

function suite(strategies: string, transcripts: Record<string, string>): Workspace {
  const files: Record<string, string> = { 'memeval.config.yaml': config(strategies) };
  for (const [id, text] of Object.entries(transcripts)) files[`data/${id}.yaml`] = text;
  const ws = new Workspace(files);
  workspaces.push(ws);
  return ws;
}

const run = (ws: Workspace, resumeDir?: string, log: (line: string) => void = () => {}) =>
  runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), resumeDir, log });

/** A complete run, and every line of its journal (a complete run removes the file). */
async function completeRun(ws: Workspace): Promise<{ dir: string; journal: string[] }> {
  const kept = ws.path('kept.journal.jsonl');
  const outcome = await run(ws, undefined, journalKeepingLog(kept));
  expect(outcome.run.info.status).toBe('complete');
  return { dir: outcome.dir, journal: readFileSync(kept, 'utf8').split('\n').filter((l) => l.trim()) };
}

/** Puts the run directory back as a kill would have left it: these journal lines, run.json still running. */
function killedAt(dir: string, journal: string[]): void {
  writeFileSync(join(dir, 'journal.jsonl'), journal.map((l) => `${l}\n`).join(''));
  const started = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunResult;
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ info: { ...started.info, status: 'running' }, turns: [], probes: [], summaries: [] }));
}

const TRANSCRIPT_KEY = 'sk-proj-TESTKEYtranscript9876543210zyxwvuTSRQ';
const TRANSCRIPT_PASSWORD = 'hunter2-correct-horse';

const entryType = (line: string): string => (JSON.parse(line) as { type: string }).type;

describe('a resumed run', () => {
  it('reads contexts.jsonl once, and still serves the journaled summaries their requests', async () => {
    const ws = suite(SUMMARIZING, { t1: tinyTranscript('t1'), t2: tinyTranscript('t2') });
    const { dir, journal } = await completeRun(ws);
    // Every job is redone from its journaled replay: the summaries are served back, which needs their requests.
    killedAt(dir, journal.filter((l) => entryType(l) !== 'job-done'));
    const replays = journal.filter((l) => entryType(l) === 'replay').length;
    expect(journal.some((l) => l.includes('"requestRef"'))).toBe(true);
    // The resumed run completes and removes its journal: this second link keeps what it appended.
    const resumedJournal = linkJournal(dir, ws.path('resumed.journal.jsonl'));

    Object.assign(contextsReads, { opened: 0, lines: 0 });
    let beforeJobs: typeof contextsReads | undefined;
    // The first log line is written once the journal and the context store are open, before any job starts.
    const outcome = await run(ws, dir, () => (beforeJobs ??= { ...contextsReads }));
    expect(outcome.run.info.status).toBe('complete');
    const fileLines = readFileSync(join(dir, CONTEXTS_FILE), 'utf8').split('\n').filter(Boolean).length;
    expect(beforeJobs).toEqual({ opened: 1, lines: fileLines });
    // A summary whose request did not read back would be made again, and its replay journaled anew.
    const resumed = readFileSync(resumedJournal, 'utf8').split('\n').filter((l) => l.trim());
    expect(resumed.filter((l) => entryType(l) === 'replay')).toHaveLength(replays);
  });

  it('writes no message line again for a message that held a secret, and still writes no secret', async () => {
    const ws = suite('', { t1: tinyTranscript('t1', `My API key is ${TRANSCRIPT_KEY}, password: ${TRANSCRIPT_PASSWORD}`) });
    const { dir, journal } = await completeRun(ws);
    const path = join(dir, CONTEXTS_FILE);
    const uninterrupted = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    // Killed once the first probe's context was written, before the second's: both hold the message with the secrets.
    const kept = uninterrupted.findIndex((l) => l.startsWith('{"c"')) + 1;
    expect(kept).toBeLessThan(uninterrupted.length);
    writeFileSync(path, uninterrupted.slice(0, kept).map((l) => `${l}\n`).join(''));
    killedAt(dir, journal.filter((l) => entryType(l) === 'replay'));

    const outcome = await run(ws, dir);
    expect(outcome.run.info.status).toBe('complete');
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    // A message is its role and its text as stored; its number is where it was written.
    const messages = lines.filter((l) => l.startsWith('{"m"')).map((l) => {
      const { role, text } = JSON.parse(l) as ContextMessage;
      return JSON.stringify([role, text]);
    });
    expect(new Set(messages).size).toBe(messages.length);
    // The resumed file is the one the uninterrupted run wrote.
    expect(lines).toEqual(uninterrupted);
    expect(lines.join('\n')).toContain('[REDACTED]');
    for (const file of filesUnder(dir)) {
      const text = readFileSync(file, 'utf8');
      expect(text.includes(TRANSCRIPT_KEY) || text.includes(TRANSCRIPT_PASSWORD), file).toBe(false);
    }
  });
});
