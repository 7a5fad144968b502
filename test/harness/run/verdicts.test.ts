// A run that could not measure must say so: bad key, unknown model, nothing
// listening, flaky servers and a judge that always fails each end with the
// right status, a reason that names the cause, and numbers that count errors.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { isInputError } from '../../../core/errors.js';
import { runSuite } from '../../../harness/run/run.js';
import type { RunResult } from '../../../core/types.js';
import { summarize, summaryJudgeErrored } from '../../../reports/aggregate.js';
import { startFakeOpenAI, responsesBody, type FakeHandler, type FakeReply, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, runCli, stackLines, tinyTranscript, Workspace } from '../../helpers/cli.js';
import { judgeReply } from '../../helpers/fake-judge.js';

const KEY_ENV = 'VERDICT_TEST_KEY';
process.env[KEY_ENV] = 'verdict-test-key-0001';

interface SuiteOptions {
  baseURL: string;
  judge?: 'offline' | 'llm';
  maxAttempts?: number;
  transcripts?: number;
  cache?: boolean;
  keyEnv?: string;
}

/** A workspace whose answers (and optionally judgements) come from the fake server; summaries are offline. */
function suite(opts: SuiteOptions): Workspace {
  const files: Record<string, string> = {
    'memeval.config.yaml': `datasets: [data/*.yaml]
out: runs
model: fake:answer-model
judge: ${opts.judge === 'llm' ? 'fake:judge-model' : 'offline'}
concurrency: 4
cache: ${opts.cache ? '.cache' : 'false'}
baseline: full
providers:
  fake:
    base_url: ${opts.baseURL}
    api_key_env: ${opts.keyEnv ?? KEY_ENV}
    timeout_ms: 5000
    max_attempts: ${opts.maxAttempts ?? 6}
    retry_base_delay_ms: 1
    retry_max_delay_ms: 5
strategies:
  - { id: full, use: full-history }
  - { id: trim-1, use: trimming, max_turns: 1 }
  - id: sum-3-1
    use: summarizing
    context_limit: 3
    keep_last_n_turns: 1
    summarizer: { model: offline }
`,
  };
  for (let i = 1; i <= (opts.transcripts ?? 2); i++) files[`data/t${i}.yaml`] = tinyTranscript(`t${i}`);
  return new Workspace(files);
}

/** Answers with the context it was sent, so an answer is right exactly when the strategy kept the fact. */
const readsContext: FakeHandler = (req) => ({ json: responsesBody(`From the notes: ${contextText(req.body)}`) });

const isJudgeCall = (body: Record<string, unknown>): boolean => /answer_verdict|summary_verdict/.test(JSON.stringify(body));

const servers: FakeServer[] = [];
const workspaces: Workspace[] = [];

async function server(handler: FakeHandler): Promise<FakeServer> {
  const s = await startFakeOpenAI(handler);
  servers.push(s);
  return s;
}

function workspace(opts: SuiteOptions): Workspace {
  const ws = suite(opts);
  workspaces.push(ws);
  return ws;
}

async function run(ws: Workspace, resumeDir?: string): Promise<{ dir: string; run: RunResult; cpuMs: number }> {
  const before = process.cpuUsage();
  const outcome = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), resumeDir, log: () => {} });
  const cpu = process.cpuUsage(before);
  return { dir: outcome.dir, run: outcome.run, cpuMs: (cpu.user + cpu.system) / 1000 };
}

afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('errors retries cannot fix stop the run in seconds', () => {
  it('an unknown model (404) fails the run, names the model and the fix, and writes the reports marked FAILED', async () => {
    const s = await server(() => ({ json: { error: { message: 'The model `answer-model` does not exist', code: 'model_not_found' } }, status: 404 }));
    const { dir, run: result, cpuMs } = await run(workspace({ baseURL: s.baseURL, transcripts: 6 }));
    expect(result.info.status).toBe('failed');
    expect(result.info.failure).toMatch(/answer-model/);
    expect(result.info.failure).toMatch(/not found/i);
    expect(result.info.failure).toMatch(/404/);
    expect(cpuMs).toBeLessThan(10_000);
    // The breaker stops the calls: a handful, not one per probe (36 here) times retries.
    expect(s.requests.length).toBeLessThan(12);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/FAILED/);
  });

  it('a rejected key (401) fails the run and says to check the key, without printing it', async () => {
    const s = await server(() => ({ json: { error: { message: 'Incorrect API key provided' } }, status: 401 }));
    const { run: result } = await run(workspace({ baseURL: s.baseURL, transcripts: 6 }));
    expect(result.info.status).toBe('failed');
    expect(result.info.failure).toMatch(/API key was rejected/);
    expect(result.info.failure).toMatch(new RegExp(KEY_ENV));
    expect(JSON.stringify(result)).not.toContain(process.env[KEY_ENV]);
    expect(s.requests.length).toBeLessThan(12);
  });

  it('nothing listening fails the run within seconds and asks whether the base URL is right', async () => {
    const s = await startFakeOpenAI();
    const baseURL = s.baseURL;
    await s.close();
    const started = Date.now();
    const { run: result, cpuMs } = await run(workspace({ baseURL, transcripts: 6 }));
    expect(result.info.status).toBe('failed');
    expect(result.info.failure).toMatch(/nothing is listening/);
    expect(result.info.failure).toMatch(/base_url|BASE_URL/);
    expect(cpuMs).toBeLessThan(10_000);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('the command exits 3 and says on stderr what is wrong and how to fix it', async () => {
    const s = await server(() => ({ json: { error: { message: 'Incorrect API key provided' } }, status: 401 }));
    const ws = workspace({ baseURL: s.baseURL, transcripts: 3 });
    const result = await runCli(['run'], { cwd: ws.dir, env: { [KEY_ENV]: 'verdict-cli-key-0002' } });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^FAILED: /m);
    expect(result.stderr).toMatch(/the run is FAILED\. The run stopped early: the API key was rejected by http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(result.stderr).toContain(`Check ${KEY_ENV}`);
    expect(stackLines(result.stderr)).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain('verdict-cli-key-0002');
  });

  it('a missing API key is bad input, reported before any run directory is made', async () => {
    const s = await server(readsContext);
    const ws = workspace({ baseURL: s.baseURL, keyEnv: 'VERDICT_TEST_UNSET_KEY' });
    const error = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), log: () => {} }).catch((e: unknown) => e);
    expect(isInputError(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/VERDICT_TEST_UNSET_KEY is not set/);
    expect(String((error as Error).message)).toMatch(/memeval\.config\.yaml/);
    expect(existsSync(ws.path('runs'))).toBe(false);
    expect(s.requests).toHaveLength(0);
  });
});

/** 30% of replies fail, cycling through the transient faults a real gateway produces. */
function flaky(rate: number): { handler: FakeHandler; setHealthy(): void } {
  const faults: (() => FakeReply)[] = [
    () => ({ json: { error: { message: 'internal error' } }, status: 500 }),
    () => ({ json: { error: { message: 'slow down' } }, status: 429, headers: { 'retry-after-ms': '0' } }),
    () => ({ text: '{"id":"resp_1","output":[{"type":"mess', headers: { 'content-type': 'application/json' } }),
    () => ({ text: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } }),
    () => ({ destroy: true }),
  ];
  let healthy = false;
  let n = 0;
  return {
    handler: (req, i) => {
      // A fixed pseudo-random sequence: the same faults on every test run.
      const u = ((i * 2654435761) >>> 0) / 2 ** 32;
      if (!healthy && u < rate) return faults[n++ % faults.length]();
      return readsContext(req, i);
    },
    setHealthy: () => {
      healthy = true;
    },
  };
}

describe('transient faults are retried; what is left counts against accuracy; resume re-asks only the errors', () => {
  it('under 30% injected faults at most 1% of probe answers end as errors', async () => {
    const faults = flaky(0.3);
    const s = await server(faults.handler);
    const { run: result } = await run(workspace({ baseURL: s.baseURL, transcripts: 30 }));
    const errored = result.probes.filter((p) => p.error !== undefined).length;
    expect(result.probes).toHaveLength(30 * 3 * 2);
    expect(errored / result.probes.length).toBeLessThanOrEqual(0.01);
    // Faults were really injected, and retried.
    expect(s.requests.length).toBeGreaterThan(result.probes.length * 1.2);
  });

  it('errors left after retries make the run incomplete, lower accuracy, and resume repeats only the errored calls', async () => {
    const faults = flaky(0.3);
    const s = await server(faults.handler);
    const ws = workspace({ baseURL: s.baseURL, transcripts: 6, maxAttempts: 1, cache: true });
    const first = await run(ws);
    const errored = first.run.probes.filter((p) => p.error !== undefined);
    expect(errored.length).toBeGreaterThan(0);
    expect(first.run.info.status).toBe('incomplete');
    expect(first.run.info.failure).toMatch(new RegExp(`${errored.length} of ${first.run.probes.length} probe answers`));
    expect(first.run.info.failure).toMatch(/First answer error: "fake:answer-model: /);
    for (const row of summarize(first.run)) {
      const mine = first.run.probes.filter((p) => p.strategy === row.strategy);
      const passed = mine.filter((p) => p.passed).length;
      // Accuracy is over every attempted probe: an error is not a pass and does not leave the denominator.
      expect(row.accuracy).toBeCloseTo(passed / mine.length, 10);
    }

    faults.setHealthy();
    const callsBefore = s.requests.length;
    const second = await run(ws, first.dir);
    expect(second.run.info.status).toBe('complete');
    expect(second.run.probes.filter((p) => p.error !== undefined)).toHaveLength(0);
    expect(second.run.probes).toHaveLength(first.run.probes.length);
    // Exactly one call per errored answer; every finished answer was kept.
    expect(s.requests.length - callsBefore).toBe(errored.length);
    const kept = first.run.probes.filter((p) => p.error === undefined);
    for (const p of kept) {
      const again = second.run.probes.find((q) => q.strategy === p.strategy && q.transcript === p.transcript && q.probe === p.probe);
      expect(again?.answer).toBe(p.answer);
    }
  });
});

describe('a judge that always fails', () => {
  it('leaves no graded answer and no graded summary, and the run says so by stage', async () => {
    const s = await server((req, i) => {
      if (isJudgeCall(req.body)) return { json: { error: { message: 'judge backend down' } }, status: 500 };
      return readsContext(req, i);
    });
    const { dir, run: result } = await run(workspace({ baseURL: s.baseURL, judge: 'llm', maxAttempts: 2 }));
    expect(result.info.status).toBe('incomplete');
    const stages = Object.fromEntries((result.info.errors ?? []).map((e) => [e.stage, e]));
    expect(stages['answer-judge'].errors).toBe(result.probes.length);
    expect(stages.answer.errors).toBe(0);
    const made = result.summaries.filter((x) => !x.error).length;
    expect(made).toBeGreaterThan(0);
    expect(stages['summary-judge'].errors).toBe(made);
    expect(result.info.failure).toMatch(/answer grades \(answer judge\)/);
    expect(result.info.failure).toMatch(/summary grades \(summary judge\)/);
    expect(result.info.failure).toMatch(/HTTP 500/);
    for (const row of summarize(result)) expect(row.accuracy).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/INCOMPLETE/);
  });
});

describe('an answer whose judge failed', () => {
  it('is judged again on resume without asking the answer model again', async () => {
    let judgeDown = true;
    const s = await server((req, i) => {
      if (isJudgeCall(req.body) && judgeDown) return { json: { error: { message: 'judge backend down' } }, status: 500 };
      if (isJudgeCall(req.body)) return { json: responsesBody('{"verdict":"yes","reason":"the answer states it"}') };
      return readsContext(req, i);
    });
    const ws = workspace({ baseURL: s.baseURL, judge: 'llm', maxAttempts: 1 });
    const first = await run(ws);
    expect(first.run.info.status).toBe('incomplete');
    expect(first.run.probes.every((p) => p.errorStage === 'judge' && p.answer !== undefined)).toBe(true);

    judgeDown = false;
    const before = s.requests.length;
    const second = await run(ws, first.dir);
    const calls = s.requests.slice(before);
    expect(calls.filter((r) => r.body.model === 'answer-model')).toHaveLength(0);
    expect(calls.filter((r) => /answer_verdict/.test(JSON.stringify(r.body)))).toHaveLength(first.run.probes.length);
    expect(second.run.probes.filter((p) => p.errorStage !== undefined)).toHaveLength(0);
    for (const p of first.run.probes) {
      const again = second.run.probes.find((q) => q.strategy === p.strategy && q.transcript === p.transcript && q.probe === p.probe);
      expect(again).toMatchObject({ answer: p.answer, passed: true });
    }
  });
});

describe('a judge reply that does not match its schema', () => {
  it('is not kept in the cache: once the judge is fixed, --resume grades it', async () => {
    let judgeBroken = true;
    const s = await server((req, i) => {
      const judged = judgeReply(req.body);
      if (judged === undefined) return readsContext(req, i);
      // "Yes" is not one of the verdicts, and a refusal is no JSON.
      if (judgeBroken) return { json: responsesBody(/answer_verdict/.test(JSON.stringify(req.body)) ? '{"verdict":"Yes","reason":"r"}' : 'I refuse.') };
      return { json: responsesBody(judged) };
    });
    const ws = workspace({ baseURL: s.baseURL, judge: 'llm', maxAttempts: 1, cache: true });
    const first = await run(ws);
    expect(first.run.probes.every((p) => p.errorStage === 'judge')).toBe(true);
    judgeBroken = false;
    const second = await run(ws, first.dir);
    expect(second.run.probes.filter((p) => p.error !== undefined)).toEqual([]);
    expect(second.run.info.status).toBe('complete');
  });
});

describe('a reply rejected after the cache stored it', () => {
  it('an empty answer and a coverage reply that skips questions are asked again on --resume once the server is fixed', async () => {
    let broken = true;
    const s = await server((req, i) => {
      const judged = judgeReply(req.body);
      if (judged === undefined) return broken ? { json: responsesBody('\n') } : readsContext(req, i);
      // A coverage reply matching the schema but answering none of the questions.
      if (broken && /coverage_verdict/.test(JSON.stringify(req.body))) return { json: responsesBody('{"coverage":[]}') };
      return { json: responsesBody(judged) };
    });
    const ws = workspace({ baseURL: s.baseURL, judge: 'llm', maxAttempts: 1, cache: true });
    const first = await run(ws);
    expect(first.run.info.status).toBe('incomplete');
    expect(first.run.probes.some((p) => p.errorStage === 'answer')).toBe(true);
    broken = false;
    const second = await run(ws, first.dir);
    expect(second.run.probes.filter((p) => p.error !== undefined)).toEqual([]);
    expect(second.run.summaries.filter(summaryJudgeErrored)).toEqual([]);
    expect(first.run.summaries.filter(summaryJudgeErrored).length).toBeGreaterThan(0);
    expect(second.run.info.status).toBe('complete');
  });
});
