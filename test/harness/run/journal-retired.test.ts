// A complete run without errors removes its journal (run.json holds every
// record) and cannot be resumed: it says how to re-render its reports
// instead. A complete run with errors max_errors allows keeps its journal, and
// --resume re-attempts the errored records. A complete run that still has its
// journal (as every run written before did) resumes as it always has.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { loadRun } from '../../../reports/load.js';
import { journalKeepingLog, quotingServer, onlyRunDir, runCli, stableCsv, suiteConfig, tinySuite, tinyTranscript, Workspace } from '../../helpers/cli.js';

const KEY_ENV = { FAKE_API_KEY: 'local-test-key-123456' };
const REPORTS = ['probes.csv', 'summary.csv', 'turns.csv', 'summaries.csv'];

const status = (runDir: string): string => (JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { info: { status: string } }).info.status;

describe('a complete run without errors', () => {
  let ws: Workspace;
  let runDir: string;

  beforeAll(async () => {
    ws = tinySuite(2);
    const run = await runCli(['run'], { cwd: ws.dir });
    expect(run.code).toBe(0);
    runDir = onlyRunDir(ws.path('runs'));
  });
  afterAll(() => ws.cleanup());

  it('removes its journal once run.json is written', () => {
    expect(status(runDir)).toBe('complete');
    expect(existsSync(join(runDir, 'journal.jsonl'))).toBe(false);
  });

  it('refuses --resume with exit 2 and names the command that re-renders its reports', async () => {
    const before = readFileSync(join(runDir, 'run.json'), 'utf8');
    const resumed = await runCli(['run', '--resume', runDir], { cwd: ws.dir });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(`memeval report ${runDir}`);
    expect(resumed.stderr).not.toMatch(/^\s{4}at\s/m);
    // Nothing was touched: no journal made, run.json as it was.
    expect(existsSync(join(runDir, 'journal.jsonl'))).toBe(false);
    expect(readFileSync(join(runDir, 'run.json'), 'utf8')).toBe(before);
  });

  it('re-renders its reports from run.json alone', async () => {
    const kept = REPORTS.map((file) => stableCsv(join(runDir, file)));
    const report = await runCli(['report', runDir], { cwd: ws.dir });
    expect(report.code).toBe(0);
    expect(REPORTS.map((file) => stableCsv(join(runDir, file)))).toEqual(kept);
  });
});

describe('a complete run with errors max_errors allows', () => {
  let server: FakeServer;
  /** Makes the server refuse a question, or (undefined) none. */
  let refuse: (question: string | undefined) => void;

  beforeAll(async () => {
    ({ server, refuse } = await quotingServer());
  });
  afterAll(() => server.close());

  it('keeps its journal, and --resume re-attempts only the errored records, then removes it', async () => {
    const ws = new Workspace({
      'memeval.config.yaml': `${suiteConfig({ baseURL: server.baseURL, maxAttempts: 1 })}max_errors: 10\n`,
      'data/t1.yaml': tinyTranscript('t1'),
      'data/t2.yaml': tinyTranscript('t2'),
    });
    try {
      refuse('What is the account number for t2?');
      const first = await runCli(['run'], { cwd: ws.dir, env: KEY_ENV });
      expect(first.code).toBe(0);
      const runDir = onlyRunDir(ws.path('runs'));
      expect(status(runDir)).toBe('complete');
      const erroredRows = (): number => {
        const [header, ...rows] = stableCsv(join(runDir, 'probes.csv'));
        return rows.filter((row) => row[header.indexOf('error_stage')] === 'answer').length;
      };
      // One refused question per strategy: the run has errors, within max_errors.
      expect(erroredRows()).toBe(3);
      expect(existsSync(join(runDir, 'journal.jsonl'))).toBe(true);
      // Each replay's turns are journaled as one table: strategy and transcript once, a row per turn.
      const journal = readFileSync(join(runDir, 'journal.jsonl'), 'utf8').split('\n');
      const replays = journal.filter((l) => l.includes('"type":"replay"'));
      expect(replays.length).toBe(6);
      for (const line of replays) expect(Object.keys((JSON.parse(line) as { turns: object[] }).turns[0])).toEqual(['strategy', 'transcript', 'columns', 'rows']);
      // Each probe answer is journaled as its record, as it finishes; run.json holds them as a table per job.
      const answers = journal.filter((l) => l.includes('"type":"probe"')).map((l) => (JSON.parse(l) as { record: object }).record);
      expect(answers).toHaveLength(loadRun(runDir).probes.length);
      for (const record of answers) expect(record).toMatchObject({ strategy: expect.any(String), probe: expect.any(String) });
      const probeLines = readFileSync(join(runDir, 'run.json'), 'utf8').split('\n"probes":[\n')[1].split('\n"summaries":[')[0].split('\n');
      expect(probeLines.map((l) => Object.keys(JSON.parse(l.replace(/\]?,$/, '')) as object))).toEqual(Array(6).fill(['strategy', 'transcript', 'columns', 'rows']));

      refuse(undefined);
      const before = server.requests.length;
      const resumed = await runCli(['run', '--resume', runDir], { cwd: ws.dir, env: KEY_ENV });
      expect(resumed.code).toBe(0);
      // Only the three errored answers were asked again.
      expect(server.requests.slice(before).map((r) => lastUserText(r.body))).toEqual(Array(3).fill('What is the account number for t2?'));
      expect(erroredRows()).toBe(0);
      expect(status(runDir)).toBe('complete');
      expect(existsSync(join(runDir, 'journal.jsonl'))).toBe(false);
    } finally {
      refuse(undefined);
      ws.cleanup();
    }
  });

  it('a complete run that still has its journal (as older runs do) resumes, redoing nothing', async () => {
    const ws = tinySuite(2, { baseURL: server.baseURL });
    try {
      // The journal the run removes, kept by a second link and put back: the run directory an older version left.
      const link = ws.path('journal.kept.jsonl');
      const config = loadConfig(ws.path('memeval.config.yaml'));
      process.env.FAKE_API_KEY = KEY_ENV.FAKE_API_KEY;
      const first = await runSuite({ config, log: journalKeepingLog(link) });
      expect(first.run.info.status).toBe('complete');
      expect(existsSync(join(first.dir, 'journal.jsonl'))).toBe(false);
      renameSync(link, join(first.dir, 'journal.jsonl'));
      const reports = REPORTS.map((file) => stableCsv(join(first.dir, file)));

      const before = server.requests.length;
      const resumed = await runCli(['run', '--resume', first.dir], { cwd: ws.dir, env: KEY_ENV });
      expect(resumed.stderr).not.toMatch(/^\s{4}at\s/m);
      expect(resumed.code).toBe(0);
      expect(server.requests.length).toBe(before);
      expect(REPORTS.map((file) => stableCsv(join(first.dir, file)))).toEqual(reports);
      expect(existsSync(join(first.dir, 'journal.jsonl'))).toBe(false);
    } finally {
      delete process.env.FAKE_API_KEY;
      ws.cleanup();
    }
  });
});
