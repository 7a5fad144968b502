// The whole pipeline against a local OpenAI-compatible server: an LLM answers
// probes (directly and through the @openai/agents runner), an LLM summarises,
// an LLM judges answers and summaries, and the cache makes a rerun free.
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { summarize } from '../../../reports/aggregate.js';
import { chatBody, lastUserText, responsesBody, startFakeOpenAI, type FakeServer, type RecordedRequest } from '../../../scripts/lib/fake-openai.js';
import { journalKeepingLog } from '../../helpers/cli.js';
import { judgeReply } from '../../helpers/fake-judge.js';

const TRANSCRIPT = `
id: router
system: You are a support assistant.
turns:
  - user: My router fails. I am on Windows 10 and my serial is RX-88812.
    assistant: Let's check the firmware.
  - user: Firmware v1.0.3; still failing.
    assistant: Try a factory reset.
  - user: Reset done; error 42 now.
    assistant: Install the new firmware.
  - user: I tried but I got another error.
    assistant: Which error code?
  - user: It says 404 not found.
    assistant: Are you connected to the internet?
facts:
  - { id: os, text: Windows 10, turn: 1, critical: true }
  - { id: serial, text: RX-88812, turn: 1 }
probes:
  - id: which-os
    after_turn: 5
    question: Which operating system am I on?
    answer: Windows 10
    must_include: [Windows 10]
    facts: [os]
  - id: serial
    after_turn: 5
    question: What is my router's serial?
    answer: RX-88812
    must_include: [RX-88812]
    facts: [serial]
`;

const SUMMARY = [
  '• Product & Environment:', '- Router, Windows 10, serial RX-88812, firmware v1.0.3.',
  '• Reported Issue:', '- Router fails.', '• Steps Tried & Results:', '- Factory reset → error 42.',
  '• Identifiers:', '- RX-88812', '• Timeline Milestones:', '- reset then error 42',
  '• Tool Performance Insights:', '- none', '• Current Status & Blockers:', '- error 42',
  '• Next Recommended Step:', '- Install new firmware.',
].join('\n');

/** Plays every role: summarizer, judge (answers and summaries) and the agent answering probes. */
function reply(req: RecordedRequest): string {
  const body = JSON.stringify(req.body);
  if (body.includes('answer_verdict')) {
    const answer = lastUserText(req.body).split('Answer to grade:')[1] ?? '';
    const yes = /Windows 10|RX-88812/.test(answer);
    return JSON.stringify({ verdict: yes ? 'yes' : 'no', reason: yes ? 'matches the reference' : 'wrong value' });
  }
  const judged = judgeReply(req.body);
  if (judged !== undefined) return judged;
  if (body.includes('Compress the earlier conversation')) return SUMMARY;
  const question = lastUserText(req.body);
  // A model that can read: answers only when the context it was sent holds the fact.
  if (question.includes('operating system')) return body.includes('Windows 10') ? 'You are on Windows 10.' : "I don't know.";
  return body.includes('RX-88812') ? 'Your serial is RX-88812.' : "I don't know.";
}

function suiteDir(server: FakeServer, agent: 'direct' | 'runner', cache: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-e2e-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'router.yaml'), TRANSCRIPT);
  writeFileSync(
    join(dir, 'memeval.config.yaml'),
    `datasets: [data/*.yaml]
out: runs
model: local:answer-model
judge: local:judge-model
agent: ${agent}
cache: ${cache}
providers:
  local: { base_url: "${server.baseURL}", api_key_env: E2E_TEST_KEY }
strategies:
  - { id: full, use: full-history }
  - { id: trim-2, use: trimming, max_turns: 2 }
  - id: sum-4-2
    use: summarizing
    context_limit: 4
    keep_last_n_turns: 2
    summarizer: { model: "local:summary-model", max_tokens: 300 }
`,
  );
  return dir;
}

/** The run's journal, kept by a second link: a complete run without errors removes its own. */
const keptJournal = (dir: string): string => join(dir, 'journal.kept.jsonl');

async function runIn(dir: string) {
  const file = join(dir, 'memeval.config.yaml');
  const outcome = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: journalKeepingLog(keptJournal(dir)) });
  return { ...outcome, journal: keptJournal(dir) };
}

describe('a run against an OpenAI-compatible server', () => {
  let server: FakeServer;
  const cache = mkdtempSync(join(tmpdir(), 'memeval-e2e-cache-'));
  // The direct run is made once, by whichever test needs it first, so every test
  // can run alone or in any order and the slow run is still not repeated.
  let direct: ReturnType<typeof runIn> | undefined;
  const directRun = (): ReturnType<typeof runIn> => (direct ??= runIn(suiteDir(server, 'direct', cache)));
  beforeAll(async () => {
    process.env.E2E_TEST_KEY = 'sk-test-e2e-not-a-real-key-000000';
    server = await startFakeOpenAI((req) => {
      const text = reply(req);
      const usage = { input: 100 + req.path.length, output: 7 };
      return { json: req.path.endsWith('/chat/completions') ? chatBody(text, usage) : responsesBody(text, usage) };
    });
  });
  afterAll(() => server.close());

  it('answers, summarises and judges with the model, and grades by what each strategy kept', async () => {
    const { run, dir, journal } = await directRun();
    expect(run.info.status).toBe('complete');
    const byStrategy = (id: string) => run.probes.filter((p) => p.strategy === id);
    expect(byStrategy('full').every((p) => p.passed && p.judge?.verdict === 'pass')).toBe(true);
    // Trimmed to two turns, the turn-1 facts are gone: the model cannot answer, the judge says no.
    const trimmed = byStrategy('trim-2');
    expect(trimmed.every((p) => p.passed === false && p.attribution === 'trimmed')).toBe(true);
    expect(trimmed.every((p) => p.usage?.inputTokens === 100 + '/v1/responses'.length)).toBe(true);
    // Our count of the request sits beside the API's, and the summary reports how far apart they are.
    expect(trimmed.every((p) => (p.countedInputTokens ?? 0) > p.contextTokens)).toBe(true);
    const agreement = summarize(run).find((s) => s.strategy === 'trim-2')?.apiVsCountedInput;
    const counted = trimmed.reduce((n, p) => n + (p.countedInputTokens ?? 0), 0);
    expect(agreement).toBeCloseTo((trimmed.length * 113) / counted, 10);
    // The summary kept both facts; it was made by the model and graded by the judge.
    expect(byStrategy('sum-4-2').every((p) => p.passed)).toBe(true);
    const summary = run.summaries.find((s) => s.strategy === 'sum-4-2');
    expect(summary?.text).toBe(SUMMARY);
    expect(summary?.coveredTurns).toEqual([1, 3]);
    expect(summary?.grades?.judge?.overall).toBe(4);
    expect(summary?.grades?.judge?.coverage).toBe(1);
    expect(summary?.grades?.checks.factsMissing).toEqual([]);
    expect(readFileSync(join(dir, 'probes.csv'), 'utf8')).toContain('local:answer-model');
    expect(existsSync(join(dir, 'journal.jsonl'))).toBe(false);
    for (const file of [join(dir, 'run.json'), journal, join(dir, 'probes.csv'), join(dir, 'report.html')]) {
      expect(readFileSync(file, 'utf8')).not.toContain('sk-test-e2e');
    }
  });

  it('makes no calls on a rerun: every answer, summary and verdict comes from the cache', async () => {
    await directRun();
    const before = server.requests.length;
    const { run } = await runIn(suiteDir(server, 'direct', cache));
    expect(server.requests.length).toBe(before);
    expect(run.info.calls?.made).toBe(0);
    expect(run.probes.every((p) => p.cached)).toBe(true);
  });

  it('through the @openai/agents runner, sends the strategy view plus the question and leaves the session alone', async () => {
    // Before counting requests: the direct run's own calls must not be counted as the runner's.
    const directTurns = (await directRun()).run.turns.map((t) => t.contextTokens);
    const before = server.requests.length;
    const runnerCache = mkdtempSync(join(tmpdir(), 'memeval-e2e-cache2-'));
    const { run } = await runIn(suiteDir(server, 'runner', runnerCache));
    const answers = server.requests.slice(before).filter((r) => r.body.model === 'answer-model');
    expect(answers).toHaveLength(6);
    const trimmedCall = answers.find((r) => !JSON.stringify(r.body).includes('Windows 10'));
    expect(trimmedCall).toBeDefined();
    expect(lastUserText(trimmedCall!.body)).toMatch(/operating system|serial/);
    expect(run.probes.filter((p) => p.passed).map((p) => p.strategy).sort()).toEqual(['full', 'full', 'sum-4-2', 'sum-4-2']);
    // Probes never enter the session: turn records match the direct run's.
    expect(run.turns.map((t) => t.contextTokens)).toEqual(directTurns);
    // Runner answers are cached at the answer level too.
    const after = server.requests.length;
    const again = await runIn(suiteDir(server, 'runner', runnerCache));
    expect(server.requests.length).toBe(after);
    expect(again.run.probes.map((p) => p.answer)).toEqual(run.probes.map((p) => p.answer));
  });
});
