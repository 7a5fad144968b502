// `--batch`: a run's calls go through the Batch API in dependency order (a
// summary before the probes that see it), a run killed while it waits resumes
// on the same batches without submitting anything twice, and the result
// equals a direct run's. Both servers are local and started here.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type SuiteConfig } from '../../../harness/config.js';
import { runSuite, type RunOutcome } from '../../../harness/run/run.js';
import { BATCHES_FILE, BATCH_PRICE_FACTOR } from '../../../harness/run/batch.js';
import { lastUserText, responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { startFakeBatchServer, type FakeBatchServer } from '../../../scripts/lib/fake-batch.js';
import { contextText, stableCsv, summarizingSuiteConfig, tinyTranscript } from '../../helpers/cli.js';
import { loadRun } from '../../../reports/load.js';
import { summarize } from '../../../reports/aggregate.js';
import { judgeReply } from '../../helpers/fake-judge.js';

const KEY_ENV = 'BATCH_TEST_KEY';
const REPORTS = ['probes.csv', 'summary.csv', 'summaries.csv', 'turns.csv'];
const FAST = { firstPollMs: 1, maxPollMs: 2 };

/**
 * One model for every role: a summary quotes the last thing it was asked to
 * compress, an answer quotes its whole context (so each answer depends on the
 * summaries before it, as with a real model), and the judge grades answers and
 * summaries it is sent (so each judgement depends on them).
 */
function reply(body: Record<string, unknown>): string {
  const judged = judgeReply(body);
  if (judged !== undefined) return judged;
  const text = JSON.stringify(body);
  if (text.includes('Compress the earlier conversation')) return `Summary: ${lastUserText(body).slice(-160)}`;
  return `From the notes: ${contextText(body)}`;
}

function suite(baseURL: string, name: string, summarizer = 'local:answer-model', model = 'local:answer-model'): SuiteConfig {
  const dir = mkdtempSync(join(tmpdir(), `memeval-batch-${name}-`));
  mkdirSync(join(dir, 'data'));
  for (const id of ['t1', 't2']) writeFileSync(join(dir, 'data', `${id}.yaml`), tinyTranscript(id));
  const file = join(dir, 'memeval.config.yaml');
  writeFileSync(
    file,
    summarizingSuiteConfig({
      baseURL,
      keyEnv: KEY_ENV,
      summarizer,
      head: `model: ${model}\njudge: local:answer-model\ncache: cache\nprices:\n  local:answer-model: { input: 2, output: 8 }`,
    }),
  );
  return parseConfig(readFileSync(file, 'utf8'), file);
}

const quiet = (): void => undefined;

/** The question whose batch line the server fails with a 500. */
const BROKEN = 'What colour is the router in t2?';

/** A report without timings and without cost columns: a batch run's calls cost half (checked on their own). */
function unpriced(path: string): string[][] {
  const [header, ...rows] = stableCsv(path);
  const keep = header.map((h, i) => (/cost/.test(h) ? -1 : i)).filter((i) => i >= 0);
  return [header, ...rows].map((r) => keep.map((i) => r[i]));
}

describe('memeval run --batch', () => {
  let direct: FakeServer;
  let batches: FakeBatchServer;
  let directDir: string;

  beforeAll(async () => {
    process.env[KEY_ENV] = 'sk-batch-test-not-a-real-key-0000';
    direct = await startFakeOpenAI((req) => ({ json: responsesBody(reply(req.body)) }));
    batches = await startFakeBatchServer({ answer: (line) => ({ body: responsesBody(reply(line.body)) }) });
    directDir = (await runSuite({ config: suite(direct.baseURL, 'direct'), log: quiet })).dir;
  });
  afterAll(async () => {
    await direct.close();
    await batches.close();
  });

  /** A run whose batch fails the line of BROKEN (every other line answered): incomplete, one question errored. */
  async function runFailingOneLine(config: SuiteConfig): Promise<RunOutcome> {
    batches.configure({
      pollsBeforeDone: 1,
      answer: (line) => (lastUserText(line.body) === BROKEN ? { status: 500, message: 'the server had an error' } : { body: responsesBody(reply(line.body)) }),
    });
    const first = await runSuite({ config, batch: FAST, log: quiet });
    expect(first.run.info.status).toBe('incomplete');
    return first;
  }

  /** A run stopped while it polls its first batch, which never ends in that process. */
  async function stoppedWhileWaiting(config: SuiteConfig): Promise<RunOutcome> {
    const stop = new AbortController();
    batches.configure({ pollsBeforeDone: 1_000_000 });
    const log = (line: string): void => {
      if (/submitted/.test(line)) setTimeout(() => stop.abort(), 20);
    };
    const first = await runSuite({ config, batch: FAST, signal: stop.signal, log });
    expect(first.interrupted).toBe(true);
    return first;
  }

  it('is killed while it waits, resumes on the same batches, submits nothing twice, and equals a direct run', async () => {
    const config = suite(batches.baseURL, 'killed');
    const first = await stoppedWhileWaiting(config);
    expect(first.run.info.status).toBe('interrupted');
    expect(readFileSync(join(first.dir, BATCHES_FILE), 'utf8')).toMatch(/"type":"submitted"/);
    const before = batches.submittedIds().length;
    expect(before).toBeGreaterThan(0);

    batches.configure({ pollsBeforeDone: 2 });
    const resumed = await runSuite({ config, resumeDir: first.dir, batch: FAST, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    const ids = batches.submittedIds();
    expect(new Set(ids).size).toBe(ids.length);
    // Exactly the calls the direct run made, one by one: none held back, none made of an outstanding result.
    expect(ids.length).toBe(direct.requests.length);
    expect(JSON.stringify(batches.uploadedLines)).not.toMatch(/outstanding/);
    // Rounds: the probes after a summary waited for it, so there was more than one batch.
    expect(batches.batches.length).toBeGreaterThan(1);
    expect(resumed.run.info.batch).toEqual({ requests: ids.length, batches: batches.batches.length, failedLines: 0 });
    // Each batched call counts once as made (its cost once), as in the direct run.
    expect(resumed.run.info.calls?.made).toBe(ids.length);
    // No call went to the provider one by one.
    expect(batches.requests.some((r) => /\/responses$|\/chat\/completions$/.test(r.path))).toBe(false);

    for (const file of REPORTS) expect(unpriced(join(resumed.dir, file)), file).toEqual(unpriced(join(directDir, file)));
    // Made by this run (not served from an earlier run's cache), at batch prices.
    const answered = resumed.run.probes;
    expect(answered.every((p) => p.cached === false)).toBe(true);
    // A batched call's latency was not measured: none is recorded, and a latency gate has nothing to pass on.
    expect(answered.every((p) => Number.isNaN(p.latencyMs))).toBe(true);
    expect(summarize(resumed.run).every((s) => s.latencyP50 === undefined)).toBe(true);
    const cost = (probes: { cost?: number }[]) => probes.reduce((n, p) => n + (p.cost ?? 0), 0);
    expect(cost(answered)).toBeGreaterThan(0);
    expect(cost(answered)).toBeCloseTo(cost(loadRun(directDir).probes) * BATCH_PRICE_FACTOR, 10);
    expect(existsSync(join(resumed.dir, 'batch-round'))).toBe(false);
    expect(readFileSync(join(resumed.dir, 'report.html'), 'utf8')).toMatch(/through the Batch API: \d+ calls in \d+ batches/);
  }, 60_000);

  it('counts a line the batch failed as an error, and submits only that one again on --resume', async () => {
    const config = suite(batches.baseURL, 'failed-line');
    const before = batches.submittedIds();
    const first = await runFailingOneLine(config);
    const errored = first.run.probes.filter((p) => p.error);
    expect(errored.length).toBe(2);
    expect(errored.every((p) => p.question === BROKEN && /batch .*500/.test(p.error ?? ''))).toBe(true);
    const failedLines = first.run.info.batch?.failedLines ?? 0;
    expect(failedLines).toBeGreaterThan(0);

    batches.configure({ answer: (line) => ({ body: responsesBody(reply(line.body)) }) });
    const submittedBefore = batches.submittedIds().length;
    const resumed = await runSuite({ config, resumeDir: first.dir, batch: FAST, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    // Submitted again: the failed lines, and nothing else already submitted (their judgements are new calls).
    const failedKeys = readFileSync(join(first.dir, BATCHES_FILE), 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((l) => Object.keys((JSON.parse(l) as { failed?: Record<string, string> }).failed ?? {}));
    expect(failedKeys).toHaveLength(failedLines);
    const earlier = new Set(batches.submittedIds().slice(before.length, submittedBefore));
    const again = batches.submittedIds().slice(submittedBefore).filter((id) => earlier.has(id));
    expect(again.sort()).toEqual(failedKeys.sort());
    expect(before.length).toBeLessThan(submittedBefore);
    for (const file of REPORTS) expect(unpriced(join(resumed.dir, file)), file).toEqual(unpriced(join(directDir, file)));
  }, 60_000);

  it('submits on --resume only what the journal lacks, even when the cache is gone', async () => {
    const config = suite(batches.baseURL, 'failed-line-no-cache');
    const first = await runFailingOneLine(config);
    const answered = first.run.probes.filter((p) => !p.error).map((p) => p.question);
    expect(answered.length).toBeGreaterThan(0);
    // The cache held every result; without it, a resume knows finished work from the journal alone.
    rmSync(resolve(dirname(config.file ?? ''), config.cache as string), { recursive: true, force: true });
    batches.configure({ answer: (line) => ({ body: responsesBody(reply(line.body)) }) });
    const submittedBefore = batches.uploadedLines.length;
    const resumed = await runSuite({ config, resumeDir: first.dir, batch: FAST, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    const resubmitted = batches.uploadedLines.slice(submittedBefore).map((l) => lastUserText((l.line as { body: Record<string, unknown> }).body));
    // Answers already journaled are not asked again (a judgement of the resubmitted answers may be).
    expect(resubmitted.filter((q) => answered.includes(q) && q !== BROKEN)).toEqual([]);
  }, 60_000);

  it('fails, naming the reason, when the batch endpoint refuses the key', async () => {
    const config = suite(batches.baseURL, 'refused-key');
    batches.configure({ apiKey: 'sk-the-server-wants-another-key-1234' });
    try {
      const outcome = await runSuite({ config, batch: FAST, log: quiet });
      expect(outcome.interrupted).toBe(false);
      expect(outcome.run.info.status).toBe('failed');
      expect(outcome.run.info.failure).toMatch(/stopped early: .*401/);
      expect(outcome.run.info.failure).not.toContain(process.env[KEY_ENV]);
      expect(readFileSync(join(outcome.dir, 'run.json'), 'utf8')).toMatch(/"status": "failed"/);
      // Its reports are written, saying FAILED first, as a failed run's are.
      expect(readFileSync(join(outcome.dir, 'report.html'), 'utf8')).toMatch(/<strong>FAILED<\/strong>/);
    } finally {
      batches.configure({ apiKey: undefined });
    }
  }, 60_000);

  it('holds back a judgement of an answer the offline reader read off a pending summary', async () => {
    // No call's text shows the pending summary: the offline reader's answer is built on it, and its judge is sent the answer.
    const viaDirect = suite(direct.baseURL, 'offline-direct', 'local:answer-model', 'offline');
    const before = direct.requests.length;
    const directOutcome = await runSuite({ config: viaDirect, log: quiet });
    const made = direct.requests.length - before;
    const submitted = batches.submittedIds().length;
    const outcome = await runSuite({ config: suite(batches.baseURL, 'offline-batch', 'local:answer-model', 'offline'), batch: FAST, log: quiet });
    expect(outcome.run.info.status).toBe('complete');
    expect(batches.submittedIds().length - submitted).toBe(made);
    for (const f of REPORTS) expect(unpriced(join(outcome.dir, f)), f).toEqual(unpriced(join(directOutcome.dir, f)));
  }, 60_000);

  it('stops waiting on every batch once one of them cannot be read', async () => {
    // Two models, so the first round makes two batches; the first of them answers 401 to every poll.
    const config = suite(batches.baseURL, 'one-fails', 'local:summary-model');
    const first = batches.batches.length;
    batches.configure({
      pollsBeforeDone: 1_000_000,
      interrupt: (req) => (req.method === 'GET' && batches.batches[first] && req.path.endsWith(`/batches/${batches.batches[first].id}`) ? { status: 401, message: 'Incorrect API key provided' } : undefined),
    });
    try {
      const outcome = await runSuite({ config, batch: FAST, log: quiet });
      expect(batches.batches.length - first).toBe(2);
      expect(outcome.run.info.status).toBe('failed');
      expect(outcome.run.info.failure).toMatch(/401/);
      // A request already on its way may still land; after that, nothing polls on.
      await new Promise((r) => setTimeout(r, 50));
      const requests = batches.requests.length;
      await new Promise((r) => setTimeout(r, 200));
      expect(batches.requests.length).toBe(requests);
    } finally {
      batches.configure({ pollsBeforeDone: 1, interrupt: undefined });
    }
  }, 60_000);

  it('submits again the calls of a batch the server no longer knows', async () => {
    const config = suite(batches.baseURL, 'lost');
    const first = await stoppedWhileWaiting(config);
    const file = join(first.dir, BATCHES_FILE);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"batch":"[^"]+"/, '"batch":"batch_gone"'));
    batches.configure({ pollsBeforeDone: 1 });
    const said: string[] = [];
    const resumed = await runSuite({ config, resumeDir: first.dir, batch: FAST, log: (l) => said.push(l) });
    expect(resumed.run.info.status).toBe('complete');
    expect(said.join('\n')).toMatch(/batch batch_gone: the server does not know it .* submitted again/);
    for (const f of REPORTS) expect(unpriced(join(resumed.dir, f)), f).toEqual(unpriced(join(directDir, f)));
  }, 60_000);

  /** A run stopped after its first upload, its batch made but the reply lost (so batches.jsonl holds only the upload). */
  async function stoppedAfterUpload(name: string): Promise<{ config: SuiteConfig; dir: string }> {
    const config = suite(batches.baseURL, name);
    const stop = new AbortController();
    let creates = 0;
    batches.configure({
      pollsBeforeDone: 1,
      interrupt: (req) => {
        if (req.method !== 'POST' || !req.path.endsWith('/batches') || creates++ > 0) return undefined;
        setTimeout(() => stop.abort(), 5);
        return 'lose-reply';
      },
    });
    try {
      const first = await runSuite({ config, batch: FAST, signal: stop.signal, log: quiet });
      expect(first.interrupted).toBe(true);
      return { config, dir: first.dir };
    } finally {
      batches.configure({ interrupt: undefined });
    }
  }

  it('stopped after its batch was made but before it learnt the batch id, resumes on that batch', async () => {
    const before = batches.submittedIds().length;
    const { config, dir } = await stoppedAfterUpload('lost-reply');
    expect(readFileSync(join(dir, BATCHES_FILE), 'utf8')).toMatch(/"type":"uploaded"/);
    expect(readFileSync(join(dir, BATCHES_FILE), 'utf8')).not.toMatch(/"type":"submitted"/);
    const resumed = await runSuite({ config, resumeDir: dir, batch: FAST, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    const ids = batches.submittedIds().slice(before);
    expect(new Set(ids).size).toBe(ids.length);
    for (const f of REPORTS) expect(unpriced(join(resumed.dir, f)), f).toEqual(unpriced(join(directDir, f)));
  }, 60_000);

  it('gives up an upload the server no longer knows, and submits its calls again', async () => {
    const { config, dir } = await stoppedAfterUpload('file-gone');
    const file = join(dir, BATCHES_FILE);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"file":"[^"]+"/, '"file":"file_gone"'));
    const said: string[] = [];
    const resumed = await runSuite({ config, resumeDir: dir, batch: FAST, log: (l) => said.push(l) });
    expect(resumed.run.info.status).toBe('complete');
    expect(said.join('\n')).toMatch(/batch input file_gone: the server does not know it .* submitted again/);
    expect(readFileSync(file, 'utf8')).toMatch(/"type":"abandoned","file":"file_gone"/);
    for (const f of REPORTS) expect(unpriced(join(resumed.dir, f)), f).toEqual(unpriced(join(directDir, f)));
  }, 60_000);

  it('does not take a 404 of a server that lists no batches for a lost batch', async () => {
    const config = suite(batches.baseURL, 'wrong-route');
    const start = batches.submittedIds().length;
    const first = await stoppedWhileWaiting(config);
    const before = batches.submittedIds().length;
    // A gateway in the way answers 404 for every batch route.
    batches.configure({ pollsBeforeDone: 1, interrupt: (req) => (req.path.includes('/batches') ? { status: 404, message: 'Invalid URL' } : undefined) });
    const wrong = await runSuite({ config, resumeDir: first.dir, batch: FAST, log: quiet });
    expect(wrong.run.info.status).toBe('failed');
    expect(readFileSync(join(first.dir, BATCHES_FILE), 'utf8')).not.toMatch(/"lost"/);
    batches.configure({ interrupt: undefined });
    const resumed = await runSuite({ config, resumeDir: first.dir, batch: FAST, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    const ids = batches.submittedIds().slice(before);
    const earlier = new Set(batches.submittedIds().slice(start, before));
    expect(earlier.size).toBeGreaterThan(0);
    expect(ids.filter((id) => earlier.has(id))).toEqual([]);
  }, 60_000);

  it('refuses what cannot be batched, before any run directory exists', async () => {
    const config = suite(batches.baseURL, 'refused');
    await expect(runSuite({ config: { ...config, cache: false }, batch: FAST, log: quiet })).rejects.toThrow(/--batch .* cache/);
    await expect(runSuite({ config: { ...config, agent: 'runner' }, batch: FAST, log: quiet })).rejects.toThrow(/agent: runner/);
    const offline = { ...config, model: 'offline', judge: 'offline', strategies: config.strategies.filter((s) => s.id === 'full') };
    await expect(runSuite({ config: offline, batch: FAST, log: quiet })).rejects.toThrow(/needs a model behind an API/);
    expect(existsSync(join(config.baseDir, 'runs'))).toBe(false);
  });
});
