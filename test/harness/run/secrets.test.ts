// API keys (the provider's, and every secret quoted in a transcript) never
// reach reports, journals, caches or logs. Every fake of the secret corpus is
// planted in a transcript (user and assistant turns, tool-call arguments and
// outputs, raw items), the run goes online against a local server that echoes
// its context back (as a model quoting its notes would), and every file the
// run leaves, plus stdout and stderr, is searched for every fake.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeServer } from '../../../scripts/lib/fake-openai.js';
import { filesUnder, quotingServer, onlyRunDir, runCli, suiteConfig, Workspace, type CliResult } from '../../helpers/cli.js';
import { FAKE_SECRETS, type FakeSecret } from '../../fixtures/secrets.js';

const PROVIDER_KEY = 'sk-proj-TESTKEYprovider0123456789abcdefABCDEF';
const TRANSCRIPT_KEY = 'sk-proj-TESTKEYtranscript9876543210zyxwvuTSRQ';
const TRANSCRIPT_PASSWORD = 'hunter2-correct-horse';

/** Everything that must not be written, with the family a leak report names. */
const PLANTED: FakeSecret[] = [
  ...FAKE_SECRETS,
  { family: 'sk-key (transcript)', text: `My API key is ${TRANSCRIPT_KEY}`, secret: TRANSCRIPT_KEY, standalone: true },
  { family: 'secret-assignment (transcript)', text: `password: ${TRANSCRIPT_PASSWORD}`, secret: TRANSCRIPT_PASSWORD, standalone: false },
];
const SECRETS: { family: string; secret: string }[] = [...PLANTED, { family: 'provider key', secret: PROVIDER_KEY }];

// The fakes are dealt round-robin over the turns, and over the places a turn carries text.
const PLACES = ['user', 'assistant', 'tool output', 'tool arguments', 'raw item'] as const;
type Place = (typeof PLACES)[number];
const FAKE_TURNS = 4;

function dealt(): Map<number, Map<Place, FakeSecret[]>> {
  const turns = new Map<number, Map<Place, FakeSecret[]>>();
  PLANTED.forEach((fake, i) => {
    const turn = i % FAKE_TURNS;
    const place = PLACES[Math.floor(i / FAKE_TURNS) % PLACES.length];
    const places = turns.get(turn) ?? new Map<Place, FakeSecret[]>();
    places.set(place, [...(places.get(place) ?? []), fake]);
    turns.set(turn, places);
  });
  return turns;
}

/** A YAML double-quoted scalar (JSON strings are valid YAML and keep newlines of private key blocks). */
const q = (text: string): string => JSON.stringify(text);
const pasted = (fakes: FakeSecret[] | undefined): string => (fakes ?? []).map((f) => f.text).join('\n');

function messageTurn(n: number, places: Map<Place, FakeSecret[]>): string {
  const args = places.get('tool arguments') ?? [];
  return `  - user: ${q(`Turn ${n}: the device is router R${n}00. I pasted this:\n${pasted(places.get('user'))}`)}
    tool_calls:
      - name: read_config
        arguments: ${q(JSON.stringify({ path: `/etc/app${n}.conf`, note: pasted(args) }))}
        output: ${q(`config of app${n}:\n${pasted(places.get('tool output'))}`)}
    assistant: ${q(`Noted for turn ${n}. From the config:\n${pasted(places.get('assistant'))}`)}
`;
}

function itemsTurn(n: number, places: Map<Place, FakeSecret[]>): string {
  return `  - items:
      - { role: user, content: ${q(`Turn ${n}: here are the logs. ${pasted(places.get('user'))}`)} }
      - { type: function_call, call_id: call_${n}, name: fetch_logs, arguments: ${q(JSON.stringify({ note: pasted(places.get('tool arguments')) }))} }
      - { type: function_call_result, callId: call_${n}, name: fetch_logs, status: completed, output: ${q(pasted([...(places.get('tool output') ?? []), ...(places.get('raw item') ?? [])]))} }
      - { type: message, role: assistant, content: [{ type: output_text, text: ${q(`Noted. ${pasted(places.get('assistant'))}`)} }] }
`;
}

function plantedTranscript(): string {
  const turns = dealt();
  const body = [...Array(FAKE_TURNS).keys()]
    .map((i) => {
      const places = turns.get(i) ?? new Map<Place, FakeSecret[]>();
      // Raw items go in an `items:` turn; the other turns carry them in the tool output.
      if (i === FAKE_TURNS - 1) return itemsTurn(i + 1, places);
      const withRaw = new Map(places);
      withRaw.set('tool output', [...(places.get('tool output') ?? []), ...(places.get('raw item') ?? [])]);
      return messageTurn(i + 1, withRaw);
    })
    .join('');
  return `id: planted
title: A support chat full of pasted credentials
system: You help with router configuration.
turns:
${body}  - user: The account number is ACC-77731.
    assistant: Thanks, noted your account.
  - user: It works now.
    assistant: Good, watch it for a day.
facts:
  - id: account
    text: ACC-77731
    turn: ${FAKE_TURNS + 1}
    critical: true
probes:
  - id: account-q
    after_turn: ${FAKE_TURNS + 1}
    question: What is the account number?
    answer: ACC-77731
    must_include: [ACC-77731]
    facts: [account]
  - id: device-q
    after_turn: ${FAKE_TURNS + 2}
    question: Which router model was it in turn 1?
    answer: R100
    must_include: [R100]
`;
}

let server: FakeServer;
let ws: Workspace;
let result: CliResult;
/** A run that keeps its journal: complete, with errors max_errors allows (a clean complete run removes it). */
let errored: Workspace;
/** Makes the server refuse a question (so the run has errored records), or (undefined) none. */
let refuse: (question: string | undefined) => void;

beforeAll(async () => {
  // The server echoes the context it was sent, as a model quoting its notes would.
  ({ server, refuse } = await quotingServer());
  ws = new Workspace({ 'memeval.config.yaml': suiteConfig({ baseURL: server.baseURL, cache: '.cache' }), 'data/planted.yaml': plantedTranscript() });
  result = await runCli(['run'], { cwd: ws.dir, env: { FAKE_API_KEY: PROVIDER_KEY } });
  expect(result.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(result.code).toBe(0);
  errored = new Workspace({ 'memeval.config.yaml': `${suiteConfig({ baseURL: server.baseURL })}max_errors: 10\n`, 'data/planted.yaml': plantedTranscript() });
  refuse('Which router model was it in turn 1?');
  try {
    const kept = await runCli(['run'], { cwd: errored.dir, env: { FAKE_API_KEY: PROVIDER_KEY } });
    expect(kept.stderr).not.toMatch(/^\s{4}at\s/m);
    expect(kept.code).toBe(0);
  } finally {
    refuse(undefined);
  }
});

afterAll(async () => {
  await server.close();
  ws.cleanup();
  errored.cleanup();
});

/** `file: family (first characters…)` for every secret found in a file. */
function leaks(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const { family, secret } of SECRETS) if (text.includes(secret)) found.push(`${relative(ws.dir, file)}: ${family} (${secret.slice(0, 10)}…)`);
  }
  return found;
}

/** Every file the run wrote: everything in the workspace except its inputs. */
function writtenFiles(): string[] {
  return filesUnder(ws.dir).filter((f) => !['memeval.config.yaml', 'data/planted.yaml'].includes(relative(ws.dir, f)));
}

it('sent the key to the server and every planted secret to the model (so the checks below mean something)', () => {
  expect(server.requests.length).toBeGreaterThan(0);
  expect(server.requests[0].headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
  const sent = server.requests.map((r) => JSON.stringify(r.body)).join('\n');
  expect(PLANTED.filter((f) => !sent.includes(f.secret)).map((f) => f.family)).toEqual([]);
});

it('keeps every secret out of the run directory: reports, run.json, contexts', () => {
  const files = filesUnder(onlyRunDir(ws.path('runs')));
  // A complete run without errors has removed its journal; run.json holds every record.
  const names = files.map((f) => f.slice(f.lastIndexOf('/') + 1)).sort();
  expect(names).toEqual(['contexts.jsonl', 'probes.csv', 'report.html', 'run.json', 'summaries.csv', 'summary.csv', 'turns.csv']);
  expect(leaks(files)).toEqual([]);
  // The redaction marker shows where the key was, so the reader knows something was removed.
  expect(readFileSync(onlyRunDir(ws.path('runs')) + '/run.json', 'utf8')).toContain('[REDACTED]');
});

it('keeps every secret out of the journal a run with errors keeps for --resume', () => {
  const runDir = onlyRunDir(errored.path('runs'));
  const info = (JSON.parse(readFileSync(`${runDir}/run.json`, 'utf8')) as { info: { status: string; errors: { errors: number }[] } }).info;
  // The check means something only if the run is complete, errored and so kept its journal.
  expect(info.status).toBe('complete');
  expect(info.errors.reduce((n, e) => n + e.errors, 0)).toBeGreaterThan(0);
  const files = filesUnder(runDir);
  expect(files.map((f) => f.slice(f.lastIndexOf('/') + 1))).toContain('journal.jsonl');
  expect(leaks(files)).toEqual([]);
  expect(readFileSync(`${runDir}/journal.jsonl`, 'utf8')).toContain('[REDACTED]');
});

it('keeps every secret out of the cache (even when the model echoes one) and out of every other file', () => {
  expect(filesUnder(ws.path('.cache')).length).toBeGreaterThan(0);
  expect(leaks(writtenFiles())).toEqual([]);
});

it('keeps every secret out of stdout and stderr', () => {
  const found = SECRETS.filter(({ secret }) => (result.stdout + result.stderr).includes(secret)).map(({ family }) => family);
  expect(found).toEqual([]);
});

it('says how many distinct values were redacted: in run.json, the report and the command output', () => {
  const runDir = onlyRunDir(ws.path('runs'));
  const info = (JSON.parse(readFileSync(`${runDir}/run.json`, 'utf8')) as { info: { redactions?: { total: number; byFamily: Record<string, number> } } }).info;
  // Every planted value is distinct. A value is counted by the first rule that takes it, and
  // one match may hold a label or a neighbouring value too (`token: …`, a private key block), so
  // the count is close to the number planted, neither zero nor a count of every record it was in.
  const total = info.redactions?.total ?? 0;
  expect(total).toBeGreaterThanOrEqual(Math.ceil(0.9 * FAKE_SECRETS.length));
  expect(total).toBeLessThanOrEqual(2 * PLANTED.length);
  expect(Object.values(info.redactions?.byFamily ?? {}).reduce((a, b) => a + b, 0)).toBe(info.redactions?.total);
  expect(readFileSync(`${runDir}/report.html`, 'utf8')).toMatch(new RegExp(`secrets redacted</td><td>${info.redactions?.total} \\(`));
  expect(result.stdout).toContain(`${info.redactions?.total} secret-like values were redacted`);
});
