// A resumed run reads the suite it started with: a transcript gone, added or
// edited since is refused before any work, naming the file, and so is a merged
// run (it has no journal: resumed, it would run every job again).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { UsageError, isInputError } from '../../../core/errors.js';
import { tinySuite, tinyTranscript, type Workspace } from '../../helpers/cli.js';

const quiet = (): void => undefined;
const made: Workspace[] = [];
afterEach(() => made.splice(0).forEach((ws) => ws.cleanup()));

/** A run of three transcripts stopped before its work: resumable. */
async function stopped(): Promise<{ ws: Workspace; dir: string }> {
  const ws = tinySuite(3);
  made.push(ws);
  const stop = new AbortController();
  stop.abort();
  const outcome = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), signal: stop.signal, log: quiet });
  expect(outcome.run.info.status).toBe('interrupted');
  return { ws, dir: outcome.dir };
}

async function resumeProblems(ws: Workspace, dir: string): Promise<string> {
  try {
    await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), resumeDir: dir, log: quiet });
  } catch (error) {
    if (isInputError(error) || error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error('the resume was accepted');
}

describe('--resume holds the suite to the one the run started with', () => {
  it('refuses a transcript whose file is gone: resumed without it, its finished answers would be dropped', async () => {
    const { ws, dir } = await stopped();
    rmSync(ws.path('data/t2.yaml'));
    const message = await resumeProblems(ws, dir);
    expect(message).toContain('transcript t2 of the run is no longer in the suite (its file is gone or no longer matched)');
    expect(message).toContain('t2.yaml');
  });

  it('refuses a transcript added since the run started, and one edited since, naming each file', async () => {
    const { ws, dir } = await stopped();
    ws.write('data/t4.yaml', tinyTranscript('t4'));
    writeFileSync(ws.path('data/t1.yaml'), `${readFileSync(ws.path('data/t1.yaml'), 'utf8')}# edited\n`);
    const message = await resumeProblems(ws, dir);
    expect(message).toMatch(/t4\.yaml: transcript t4 was not in the suite when the run started; a resumed run must read what it started with: start a new run/);
    expect(message).toMatch(/t1\.yaml: changed since the run started \(its sha256 differs from the one in run\.json\)/);
  });

  it('resumes the same suite', async () => {
    const { ws, dir } = await stopped();
    const resumed = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), resumeDir: dir, log: quiet });
    expect(resumed.run.info.status).toBe('complete');
    expect(new Set(resumed.run.probes.map((p) => p.transcript))).toEqual(new Set(['t1', 't2', 't3']));
  });

  it('refuses to resume a merged run, pointing at its shards', async () => {
    const ws = tinySuite(1);
    made.push(ws);
    const done = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml')), log: quiet });
    const file = join(done.dir, 'run.json');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('{"info":{\n', '{"info":{\n "mergedFrom": [{ "runId": "r-shard1of2", "shard": "1/2" }, { "runId": "r-shard2of2", "shard": "2/2" }],\n'));
    const message = await resumeProblems(ws, done.dir);
    expect(message).toContain('a merged run is not resumed; resume the shards that need it (r-shard1of2, r-shard2of2), then merge them again');
  });
});
