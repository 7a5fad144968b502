// A resumed run rebuilds a journaled replay exactly, even with a summarizer
// that never says the same thing twice: the summaries it already has are
// served from the journal (never asked for again), and every probe answer is
// given on a context built from those same summaries.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import type { JournalEntry } from '../../../harness/run/journal.js';
import type { ProbeRecord, RunResult, SummaryRecord } from '../../../core/types.js';
import { apiError, responsesBody, startFakeOpenAI, type FakeServer, type RecordedRequest } from '../../../scripts/lib/fake-openai.js';
import { contextText, journalKeepingLog, onlyRunDir, stableCsv, tinyTranscript, Workspace } from '../../helpers/cli.js';

const KEY_ENV = 'RESUME_SUMMARIES_KEY';
process.env[KEY_ENV] = 'resume-summaries-key-0001';
const TRANSCRIPTS = ['t1', 't2', 't3'];
const NONCE = /nonce-[0-9a-f-]{36}/g;

const isSummaryCall = (r: RecordedRequest): boolean => r.body.model === 'sum-model';
/** The transcript a summarizer request is about (each tiny transcript names itself in its first turn). */
const transcriptOf = (r: RecordedRequest): string | undefined => TRANSCRIPTS.find((t) => JSON.stringify(r.body).includes(`account number for ${t} `));

let server: FakeServer;
/** Summarizer requests that fail (by transcript and call number), to journal an errored summary. */
let failing = new Set<string>();
const summaryCalls = new Map<string, number>();

beforeAll(async () => {
  // Summaries carry a fresh nonce on every call; answers echo their context, nonces included.
  server = await startFakeOpenAI((req) => {
    if (!isSummaryCall(req)) return { json: responsesBody(`From the notes: ${contextText(req.body)}`) };
    const t = transcriptOf(req) ?? '?';
    const n = (summaryCalls.get(t) ?? 0) + 1;
    summaryCalls.set(t, n);
    if (failing.has(`${t}#${n}`)) return apiError(400, 'summarizer refused this one');
    return { json: responsesBody(`Summary nonce-${randomUUID()}: ${contextText(req.body).slice(0, 200)}`) };
  });
});

afterAll(async () => {
  await server.close();
});

function suite(): Workspace {
  const files: Record<string, string> = {
    'memeval.config.yaml': `datasets: [data/*.yaml]
out: runs
model: fake:answer-model
judge: offline
concurrency: 2
cache: false
baseline: full
providers:
  fake:
    base_url: ${server.baseURL}
    api_key_env: ${KEY_ENV}
    max_attempts: 1
strategies:
  - id: full
    use: full-history
  - id: sum
    use: summarizing
    context_limit: 2
    keep_last_n_turns: 1
    summarizer:
      model: fake:sum-model
`,
  };
  for (const t of TRANSCRIPTS) files[`data/${t}.yaml`] = tinyTranscript(t);
  return new Workspace(files);
}

const run = (ws: Workspace, resumeDir?: string, log: (line: string) => void = () => {}) =>
  runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), resumeDir, log });

function journalLines(journal: string): string[] {
  return readFileSync(journal, 'utf8').split('\n').filter((l) => l.trim());
}

/** The last journaled replay of each job among `lines`. */
function journaledReplays(lines: string[]): Map<string, SummaryRecord[]> {
  const replays = new Map<string, SummaryRecord[]>();
  for (const line of lines) {
    const entry = JSON.parse(line) as JournalEntry;
    if (entry.type === 'replay') replays.set(entry.job, entry.summaries);
  }
  return replays;
}

/** A run directory as a kill after `lines` journal lines would have left it. */
function killedCopy(ws: Workspace, from: string, lines: string[], name: string): string {
  const dir = ws.path(`killed/${name}`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(from, 'run.json'), join(dir, 'run.json'));
  // Written before the journal lines that name what it holds, so a kill leaves it at least this whole.
  copyFileSync(join(from, 'contexts.jsonl'), join(dir, 'contexts.jsonl'));
  writeFileSync(join(dir, 'journal.jsonl'), lines.map((l) => `${l}\n`).join(''));
  const started = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunResult;
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ info: { ...started.info, status: 'running' }, turns: [], probes: [], summaries: [] }));
  return dir;
}

/** The rows of a CSV (volatile columns dropped) that belong to the given `strategy::transcript` jobs. */
function jobRows(file: string, jobs: string[]): string[][] {
  const [header, ...rows] = stableCsv(file);
  const strategy = header.indexOf('strategy');
  const transcript = header.indexOf('transcript');
  return rows.filter((r) => jobs.includes(`${r[strategy]}::${r[transcript]}`));
}

/** Every nonce a probe answer quotes belongs to a summary of the same job in the same run. */
function answersSawTheseSummaries(run: RunResult): void {
  for (const probe of run.probes.filter((p: ProbeRecord) => p.strategy === 'sum')) {
    const own = new Set(run.summaries.filter((s) => s.transcript === probe.transcript).flatMap((s) => s.text.match(NONCE) ?? []));
    for (const nonce of (probe.answer ?? "").match(NONCE) ?? []) expect(own.has(nonce), `${probe.transcript}/${probe.probe} quotes ${nonce}`).toBe(true);
  }
}

describe('resume with a nondeterministic summarizer', () => {
  let ws: Workspace;
  let original: string;
  let lines: string[];

  beforeAll(async () => {
    ws = suite();
    // The run completes without errors and removes its journal: a second link keeps its lines to cut.
    const kept = ws.path('original.journal.jsonl');
    const outcome = await run(ws, undefined, journalKeepingLog(kept));
    expect(outcome.run.info.status).toBe('complete');
    original = outcome.dir;
    expect(existsSync(join(original, 'journal.jsonl'))).toBe(false);
    lines = journalLines(kept);
    // The check below means something only if summaries exist and answers quote them.
    expect(outcome.run.summaries.length).toBeGreaterThanOrEqual(TRANSCRIPTS.length);
    expect(outcome.run.probes.some((p) => (p.answer ?? "").includes("nonce-"))).toBe(true);
    answersSawTheseSummaries(outcome.run);
  });

  afterAll(() => ws.cleanup());

  it('at 10 kill points, serves every journaled summary back, never asks for it again, and answers on its context', async () => {
    const cuts = Array.from({ length: 10 }, (_, i) => Math.round(((i + 1) * (lines.length - 1)) / 11));
    expect(new Set(cuts).size).toBe(10);
    for (const cut of cuts) {
      const kept = lines.slice(0, cut);
      const dir = killedCopy(ws, original, kept, `cut-${cut}`);
      const journaled = journaledReplays(kept);
      const before = server.requests.length;
      const outcome = await run(ws, dir);
      expect(outcome.run.info.status, `cut ${cut}`).toBe('complete');
      const asked = server.requests.slice(before).filter(isSummaryCall);
      // No summary already journaled is asked for again.
      for (const t of TRANSCRIPTS) {
        if (journaled.has(`sum::${t}`)) expect(asked.filter((r) => transcriptOf(r) === t), `cut ${cut}: ${t}`).toEqual([]);
      }
      // The resumed run's summaries are the journaled ones.
      for (const [job, summaries] of journaled) {
        const [strategy, transcript] = job.split('::');
        const resumed = outcome.run.summaries.filter((s) => s.strategy === strategy && s.transcript === transcript);
        expect(resumed.map((s) => [s.index, s.turn, s.text, s.coveredTurns]), `cut ${cut}: ${job}`).toEqual(
          summaries.map((s) => [s.index, s.turn, s.text, s.coveredTurns]),
        );
      }
      // Every CSV cell of a job whose replay was journaled equals the uninterrupted run's:
      // its summaries and grades, its turns, and the answers given on its contexts.
      for (const file of ['summaries.csv', 'turns.csv', 'probes.csv']) {
        const rowsOfJobs = (runDir: string) => jobRows(join(runDir, file), [...journaled.keys()]);
        if (journaled.size && file === 'turns.csv') expect(rowsOfJobs(original).length, file).toBeGreaterThan(0);
        expect(rowsOfJobs(dir), `cut ${cut}: ${file}`).toEqual(rowsOfJobs(original));
      }
      answersSawTheseSummaries(outcome.run);
    }
  });

  it('a run killed after its last journal line resumes to the same CSVs', async () => {
    const dir = killedCopy(ws, original, lines.filter((l) => !l.includes('"job-done"')), 'no-job-done');
    const before = server.requests.length;
    await run(ws, dir);
    expect(server.requests.length).toBe(before);
    for (const file of ['summaries.csv', 'probes.csv', 'turns.csv', 'summary.csv']) {
      expect(stableCsv(join(dir, file)), file).toEqual(stableCsv(join(original, file)));
    }
  });
});

describe('resume after a summarizer call failed', () => {
  it('re-asks only the failed summary and those after it; earlier summaries and answers before it are kept', async () => {
    const ws = suite();
    try {
      failing = new Set(['t1#2']);
      summaryCalls.clear();
      const first = await run(ws);
      // A summarizer error is counted against the run (max_errors 0 by default).
      expect(first.run.info.status).toBe('incomplete');
      const t1 = first.run.summaries.filter((s) => s.strategy === 'sum' && s.transcript === 't1');
      expect(t1[0].error).toBeFalsy();
      expect(t1[1].error).toBeTruthy();
      failing = new Set();
      const before = server.requests.length;
      const resumed = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), resumeDir: onlyRunDir(ws.path('runs')), log: () => {} });
      expect(resumed.run.info.status).toBe('complete');
      const asked = server.requests.slice(before);
      const r1 = resumed.run.summaries.filter((s) => s.strategy === 'sum' && s.transcript === 't1');
      // The first summary is the journaled one; only the failed one onwards was asked for.
      expect(r1[0].text).toBe(t1[0].text);
      expect(asked.filter(isSummaryCall).length).toBe(r1.length - 1);
      expect(asked.filter(isSummaryCall).every((r) => transcriptOf(r) === 't1')).toBe(true);
      // Probes asked before the failed summary's turn kept their answers; later ones were asked again.
      const keptProbes = first.run.probes.filter((p) => p.strategy === 'sum' && p.transcript === 't1' && !p.error);
      for (const p of keptProbes.filter((p) => p.afterTurn < t1[1].turn)) {
        expect(resumed.run.probes.find((q) => q.strategy === 'sum' && q.transcript === 't1' && q.probe === p.probe)?.answer).toBe(p.answer);
      }
      answersSawTheseSummaries(resumed.run);
    } finally {
      failing = new Set();
      ws.cleanup();
    }
  });
});
