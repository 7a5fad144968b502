// SIGTERM (what CI sends on cancel or timeout) and SIGINT stop a run within
// seconds, online or CPU-bound offline: exit 143 / 130, the run marked
// interrupted with the resume hint, and `--resume` finishing it. No handler a
// dependency installs may turn the stop into exit 0.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, lineCount, onlyRunDir, runCli, spawnCli, suiteConfig, tinyTranscript, waitFor, Workspace, type CliResult } from '../../helpers/cli.js';

const KEY_ENV = { FAKE_API_KEY: 'signal-test-key-123456' };
/** Generous for a loaded machine; the run waits 2 s for calls in flight. */
const STOP_WITHIN_MS = 8000;

function statusOf(runDir: string): string {
  return (JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { info: { status: string } }).info.status;
}

function journal(ws: Workspace): string | undefined {
  try {
    return join(onlyRunDir(ws.path('runs')), 'journal.jsonl');
  } catch {
    return undefined;
  }
}

/** Sends `signal` once the run has journaled something, and times how long the process takes to end. */
async function stopRun(ws: Workspace, signal: NodeJS.Signals, started: () => boolean): Promise<{ result: CliResult; ms: number }> {
  const run = spawnCli(['run'], { cwd: ws.dir, env: KEY_ENV });
  await waitFor(started, 60_000);
  const sent = Date.now();
  run.child.kill(signal);
  const result = await run.done;
  return { result, ms: Date.now() - sent };
}

function expectInterrupted(ws: Workspace, stopped: { result: CliResult; ms: number }, code: number): string {
  expect(stopped.result.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(stopped.result.code, stopped.result.stderr).toBe(code);
  expect(stopped.ms).toBeLessThan(STOP_WITHIN_MS);
  const runDir = onlyRunDir(ws.path('runs'));
  expect(stopped.result.stderr).toContain(`memeval run --resume ${runDir}`);
  expect(statusOf(runDir)).toBe('interrupted');
  return runDir;
}

async function expectResumes(ws: Workspace, runDir: string): Promise<void> {
  const resumed = await runCli(['run', '--resume', runDir], { cwd: ws.dir, env: KEY_ENV });
  expect(resumed.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(statusOf(runDir)).toBe('complete');
}

describe('online runs', () => {
  let server: FakeServer;
  let slow = false;

  beforeAll(async () => {
    // While `slow`, a reply takes 30 s: a stopped run must not wait for it.
    server = await startFakeOpenAI((req) => ({ json: responsesBody(`From the notes: ${contextText(req.body)}`), delayMs: slow ? 30_000 : 150 }));
  });
  afterAll(async () => {
    await server.close();
  });

  function suite(agent: 'direct' | 'runner'): Workspace {
    const files: Record<string, string> = { 'memeval.config.yaml': `${suiteConfig({ baseURL: server.baseURL })}agent: ${agent}\n` };
    for (let i = 1; i <= 3; i++) files[`data/t${i}.yaml`] = tinyTranscript(`t${i}`);
    return new Workspace(files);
  }

  for (const agent of ['direct', 'runner'] as const) {
    it(`SIGTERM with calls in flight that would take 30 s: exit 143 within seconds, resumable (${agent})`, async () => {
      const ws = suite(agent);
      try {
        const before = server.requests.length;
        const stopped = await stopRun(ws, 'SIGTERM', () => {
          if (server.requests.length < before + 3) return false;
          slow = true;
          return server.requests.length >= before + 5;
        });
        slow = false;
        const runDir = expectInterrupted(ws, stopped, 143);
        await expectResumes(ws, runDir);
      } finally {
        slow = false;
        ws.cleanup();
      }
    });
  }
});

describe('offline runs (CPU-bound)', () => {
  /** Long transcripts, so the offline run takes seconds and is mid-work when stopped. */
  function longTranscript(id: string): string {
    const turns: string[] = [];
    for (let n = 0; n < 300; n++) {
      turns.push(`  - user: On day ${n} ticket TK-${id}-${n} moved to queue Q${n % 17}.`, `    assistant: Noted ticket TK-${id}-${n}.`);
    }
    const probes: string[] = [];
    for (let p = 0; p < 12; p++) {
      const n = p * 25 + 10;
      probes.push(`  - id: p${p}\n    after_turn: ${n + 5}\n    question: Which queue did ticket TK-${id}-${n} move to?\n    answer: Q${n % 17}\n    must_include: [Q${n % 17}]`);
    }
    return `id: ${id}\nsystem: You help.\nturns:\n${turns.join('\n')}\nprobes:\n${probes.join('\n')}\n`;
  }

  // SIGINT takes the same path (its online case is in resume.test.ts).
  for (const [signal, code] of [['SIGTERM', 143]] as const) {
    it(`${signal}: exit ${code} within seconds, not when the work is done; resumable`, async () => {
      const files: Record<string, string> = {
        'memeval.config.yaml': `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
concurrency: 4
cache: false
baseline: full
strategies:
  - id: full
    use: full-history
  - id: sum
    use: summarizing
    context_limit: 40
    keep_last_n_turns: 10
    summarizer:
      model: offline
`,
      };
      for (let i = 1; i <= 4; i++) files[`data/long${i}.yaml`] = longTranscript(`L${i}`);
      const ws = new Workspace(files);
      try {
        const stopped = await stopRun(ws, signal, () => {
          const file = journal(ws);
          return file !== undefined && lineCount(file) >= 1;
        });
        const runDir = expectInterrupted(ws, stopped, code);
        await expectResumes(ws, runDir);
      } finally {
        ws.cleanup();
      }
    });
  }
});
