// A run killed at any point finishes with `--resume` without redoing finished
// work, and its reports equal those of an uninterrupted run.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, responsesBody, lastUserText, type FakeServer, type RecordedRequest } from '../../../scripts/lib/fake-openai.js';
import {
  contextText,
  lineCount,
  linkJournal,
  onlyRunDir,
  runCli,
  spawnCli,
  stableCsv,
  stableRecords,
  tinySuite,
  waitFor,
  type Workspace,
} from '../../helpers/cli.js';
import type { ProbeRecord } from '../../../core/types.js';
import { readContexts, type ContextMessage } from '../../../core/contexts.js';
import { loadRun } from '../../../reports/load.js';

const KEY_ENV = { FAKE_API_KEY: 'local-test-key-123456' };
const DELAY_MS = 120;
const REPORTS = ['probes.csv', 'summary.csv', 'turns.csv'];
const TRANSCRIPTS = 3;
const PROBES = TRANSCRIPTS * 3 * 2;

let server: FakeServer;

/** One request = one probe answer; the question and the context size identify it. */
const requestKey = (r: RecordedRequest): string => `${lastUserText(r.body)}|${(r.body.input as unknown[]).length - 1}`;
const recordKey = (p: ProbeRecord): string => `${p.question}|${p.contextItems}`;

function journaledProbes(journal: string): ProbeRecord[] {
  const lines = readFileSync(journal, 'utf8').split('\n');
  const out: ProbeRecord[] = [];
  for (const line of lines) {
    try {
      const entry = JSON.parse(line) as { type: string; record: ProbeRecord };
      if (entry.type === 'probe') out.push(entry.record);
    } catch {
      // a torn last line is unfinished work
    }
  }
  return out;
}

function countBy(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

let baseline: { ws: Workspace; runDir: string };

beforeAll(async () => {
  server = await startFakeOpenAI((req) => ({ json: responsesBody(`From the notes: ${contextText(req.body)}`), delayMs: DELAY_MS }));
  const ws = tinySuite(TRANSCRIPTS, { baseURL: server.baseURL });
  const result = await runCli(['run'], { cwd: ws.dir, env: KEY_ENV });
  expect(result.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(result.code).toBe(0);
  baseline = { ws, runDir: onlyRunDir(ws.path('runs')) };
  // Every request must be distinct, or "no repeated request" would prove nothing.
  const counts = countBy(server.requests.map(requestKey));
  expect(counts.size).toBe(PROBES);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
});

afterAll(async () => {
  await server.close();
  baseline.ws.cleanup();
});

function expectSameReports(runDir: string): void {
  for (const file of REPORTS) expect(stableCsv(join(runDir, file)), file).toEqual(stableCsv(join(baseline.runDir, file)));
  expect(stableRecords(runDir)).toEqual(stableRecords(baseline.runDir));
  // Every probe of this suite names facts, so each record carries a boolean: a missing field would read as null.
  const probes = loadRun(runDir).probes;
  expect(probes.map((p) => typeof p.answerable)).toEqual(probes.map(() => 'boolean'));
  // Every probe names the exact context it was sent, and the resumed store holds the same ones.
  expect(sentContexts(runDir)).toEqual(sentContexts(baseline.runDir));
  expect(sentContexts(runDir).every((c) => c !== undefined && c.length > 1)).toBe(true);
}

/** The context each probe record of a run names, read back from its contexts.jsonl. */
function sentContexts(runDir: string): (ContextMessage[] | undefined)[] {
  const lookup = readContexts(runDir);
  // Records are in the same order in every run of a config (run.ts collect()).
  return loadRun(runDir).probes.map((p) => (p.contextRef ? lookup.get(p.contextRef) : undefined));
}

/** What a journal written before `answerable` was recorded looks like. */
function dropAnswerable(journal: string): void {
  const lines = readFileSync(journal, 'utf8').split('\n').map((line) => {
    if (!line.trim()) return line;
    try {
      const entry = JSON.parse(line) as { type: string; record?: Record<string, unknown> };
      if (entry.type === 'probe' && entry.record) delete entry.record.answerable;
      return JSON.stringify(entry);
    } catch {
      return line; // the torn last line stays torn
    }
  });
  writeFileSync(journal, lines.join('\n'));
}

async function resumeAndCheck(ws: Workspace, runDir: string, firstRequests: RecordedRequest[]): Promise<void> {
  // The resumed run completes without errors and removes its journal; this second link keeps what it appended.
  const journal = linkJournal(runDir, ws.path('journal.kept.jsonl'));
  const finished = journaledProbes(journal);
  const before = server.requests.length;
  const resumed = await runCli(['run', '--resume', runDir], { cwd: ws.dir, env: KEY_ENV });
  expect(resumed.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(resumed.code).toBe(0);
  const secondRequests = server.requests.slice(before);

  // The journal, not a cache (cache: false), saved the finished answers.
  const finishedKeys = new Set(finished.map(recordKey));
  expect(secondRequests.map(requestKey).filter((k) => finishedKeys.has(k))).toEqual([]);
  expect(secondRequests.length).toBe(PROBES - finishedKeys.size);
  // Only calls in flight at the kill may have been asked twice.
  const both = countBy([...firstRequests, ...secondRequests].map(requestKey));
  expect(both.size).toBe(PROBES);
  expect([...both.values()].every((n) => n <= 2)).toBe(true);

  expect(existsSync(join(runDir, 'journal.jsonl'))).toBe(false);
  const all = journaledProbes(journal);
  const keys = all.map((p) => `${p.strategy}/${p.transcript}/${p.probe}/${p.repeat}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect(keys.length).toBe(PROBES);
  expectSameReports(runDir);
}

describe('SIGKILL then --resume', () => {
  for (const afterLines of [3, 16, 30]) {
    it(`killed after ${afterLines} journal lines, resumes to the same reports`, async () => {
      const ws = tinySuite(TRANSCRIPTS, { baseURL: server.baseURL });
      try {
        const before = server.requests.length;
        const run = spawnCli(['run'], { cwd: ws.dir, env: KEY_ENV });
        let journal = '';
        await waitFor(() => {
          try {
            journal = join(onlyRunDir(ws.path('runs')), 'journal.jsonl');
          } catch {
            return false;
          }
          return lineCount(journal) >= afterLines;
        });
        run.child.kill('SIGKILL');
        const killed = await run.done;
        expect(killed.signal).toBe('SIGKILL');
        const runDir = onlyRunDir(ws.path('runs'));
        expect(JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')).info.status).toBe('running');
        await resumeAndCheck(ws, runDir, server.requests.slice(before));
      } finally {
        ws.cleanup();
      }
    });
  }
});

describe('a journal written before answerable was recorded', () => {
  it('resumes with answerable on every record, the reports equal to an uninterrupted run', async () => {
    const ws = tinySuite(TRANSCRIPTS, { baseURL: server.baseURL });
    try {
      const before = server.requests.length;
      const run = spawnCli(['run'], { cwd: ws.dir, env: KEY_ENV });
      const journal = () => join(onlyRunDir(ws.path('runs')), 'journal.jsonl');
      await waitFor(() => {
        try {
          return lineCount(journal()) >= 16;
        } catch {
          return false;
        }
      });
      run.child.kill('SIGKILL');
      await run.done;
      const runDir = onlyRunDir(ws.path('runs'));
      dropAnswerable(journal());
      expect(journaledProbes(journal()).every((p) => !('answerable' in p))).toBe(true);
      await resumeAndCheck(ws, runDir, server.requests.slice(before));
    } finally {
      ws.cleanup();
    }
  });
});

describe('SIGINT', () => {
  it('stops with exit 130, prints how to resume, and the resume completes', async () => {
    const ws = tinySuite(TRANSCRIPTS, { baseURL: server.baseURL });
    try {
      const before = server.requests.length;
      const run = spawnCli(['run'], { cwd: ws.dir, env: KEY_ENV });
      await waitFor(() => server.requests.length >= before + 3);
      run.child.kill('SIGINT');
      const stopped = await run.done;
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).not.toMatch(/^\s{4}at\s/m);
      const runDir = onlyRunDir(ws.path('runs'));
      expect(stopped.stderr).toContain(`memeval run --resume ${runDir}`);
      const info = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')).info as { status: string };
      expect(info.status).toBe('interrupted');
      await resumeAndCheck(ws, runDir, server.requests.slice(before));
    } finally {
      ws.cleanup();
    }
  });
});
