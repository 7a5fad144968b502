// API keys (the provider's, and anything key-like quoted in a transcript)
// never reach reports, journals, caches or logs.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAI, responsesBody, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, filesUnder, onlyRunDir, runCli, tinySuite, type CliResult, type Workspace } from '../../helpers/cli.js';

const PROVIDER_KEY = 'sk-proj-TESTKEYprovider0123456789abcdefABCDEF';
const TRANSCRIPT_KEY = 'sk-proj-TESTKEYtranscript9876543210zyxwvuTSRQ';
const TRANSCRIPT_PASSWORD = 'hunter2-correct-horse';
const SECRETS = [PROVIDER_KEY, TRANSCRIPT_KEY, TRANSCRIPT_PASSWORD];

let server: FakeServer;
let ws: Workspace;
let result: CliResult;

beforeAll(async () => {
  // The server echoes the context it was sent, as a model quoting its notes would.
  server = await startFakeOpenAI((req) => ({ json: responsesBody(`From the notes: ${contextText(req.body)}`) }));
  ws = tinySuite(2, { baseURL: server.baseURL, cache: '.cache' }, `My API key is ${TRANSCRIPT_KEY} and password: ${TRANSCRIPT_PASSWORD}.`);
  result = await runCli(['run'], { cwd: ws.dir, env: { FAKE_API_KEY: PROVIDER_KEY } });
  expect(result.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(result.code).toBe(0);
});

afterAll(async () => {
  await server.close();
  ws.cleanup();
});

function leaks(files: string[], secrets: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const s of secrets) if (text.includes(s)) found.push(`${file.slice(ws.dir.length)}: ${s.slice(0, 16)}…`);
  }
  return found;
}

it('sent the key to the server and the key-like text to the model (so the check below means something)', () => {
  expect(server.requests.length).toBeGreaterThan(0);
  expect(server.requests[0].headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
  expect(server.requests.some((r) => JSON.stringify(r.body).includes(TRANSCRIPT_KEY))).toBe(true);
});

it('keeps every secret out of the run directory: reports, run.json, journal', () => {
  const files = filesUnder(onlyRunDir(ws.path('runs')));
  expect(files.map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual(expect.arrayContaining(['journal.jsonl', 'run.json', 'probes.csv', 'report.html']));
  expect(leaks(files, SECRETS)).toEqual([]);
  // The redaction marker shows where the key was, so the reader knows something was removed.
  expect(readFileSync(onlyRunDir(ws.path('runs')) + '/journal.jsonl', 'utf8')).toContain('[REDACTED]');
});

it('keeps every secret out of the cache (even when the model echoes one) and out of stdout/stderr', () => {
  const files = filesUnder(ws.path('.cache'));
  expect(files.length).toBeGreaterThan(0);
  expect(leaks(files, SECRETS)).toEqual([]);
  for (const s of SECRETS) expect(result.stdout + result.stderr).not.toContain(s);
});
