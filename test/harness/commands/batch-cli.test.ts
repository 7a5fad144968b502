// `memeval run --batch` from the command line: killed (SIGKILL) while it
// polls, `--resume` waits on the batch it had submitted and finishes the run
// without submitting any call twice.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesBody } from '../../../scripts/lib/fake-openai.js';
import { startFakeBatchServer, type FakeBatchServer } from '../../../scripts/lib/fake-batch.js';
import { contextText, onlyRunDir, runCli, spawnCli, summarizingSuiteConfig, tinyTranscript, waitFor, Workspace } from '../../helpers/cli.js';

const ENV = { BATCH_CLI_KEY: 'sk-batch-cli-not-a-real-key-00000', MEMEVAL_BATCH_POLL_MS: '5' };

function workspace(baseURL: string): Workspace {
  return new Workspace({
    'data/t1.yaml': tinyTranscript('t1'),
    'memeval.config.yaml': summarizingSuiteConfig({
      baseURL,
      keyEnv: 'BATCH_CLI_KEY',
      summarizer: 'local:answer-model',
      head: 'model: local:answer-model\njudge: offline\ncache: .cache',
    }),
  });
}

describe('memeval run --batch on the command line', () => {
  let server: FakeBatchServer;
  beforeAll(async () => {
    server = await startFakeBatchServer({ answer: (line) => ({ body: responsesBody(`From the notes: ${contextText(line.body)}`) }) });
  });
  afterAll(() => server.close());

  it('resumes after a kill mid-poll and submits nothing twice', async () => {
    const ws = workspace(server.baseURL);
    try {
      server.configure({ pollsBeforeDone: 1_000_000 });
      const run = spawnCli(['run', '--batch'], { cwd: ws.dir, env: ENV });
      await waitFor(() => server.batches.length > 0 && server.requests.filter((r) => r.method === 'GET').length > 2);
      run.child.kill('SIGKILL');
      const killed = await run.done;
      expect(killed.signal).toBe('SIGKILL');
      const dir = onlyRunDir(ws.path('runs'));
      expect(readFileSync(join(dir, 'batches.jsonl'), 'utf8')).toMatch(/"type":"submitted"/);

      server.configure({ pollsBeforeDone: 1 });
      const resumed = await runCli(['run', '--resume', dir], { cwd: ws.dir, env: ENV });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/batch .*: completed/);
      const ids = server.submittedIds();
      expect(new Set(ids).size).toBe(ids.length);
      expect(server.batches.length).toBeGreaterThan(1);
      expect(existsSync(join(dir, 'probes.csv'))).toBe(true);
      const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8').split('\n"turns"')[0].replace(/,$/, '') + '}') as { info: { status: string; batch: { requests: number } } };
      expect(info.info.status).toBe('complete');
      expect(info.info.batch.requests).toBe(ids.length);
    } finally {
      ws.cleanup();
    }
  }, 60_000);

  it('refuses --batch with --resume, and without a cache', async () => {
    const ws = workspace(server.baseURL);
    try {
      const both = await runCli(['run', '--batch', '--resume', 'runs/x'], { cwd: ws.dir, env: ENV });
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/leave out --batch/);
      const uncached = await runCli(['run', '--batch', '--no-cache'], { cwd: ws.dir, env: ENV });
      expect(uncached.code).toBe(2);
      expect(uncached.stderr).toMatch(/--batch .*cache/);
      expect(uncached.stderr).not.toMatch(/\n\s+at /);
    } finally {
      ws.cleanup();
    }
  }, 60_000);
});
