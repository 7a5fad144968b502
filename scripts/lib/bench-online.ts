// The online section of `npm run bench`: a memeval run that makes 400 model
// requests to a local OpenAI-compatible server with fixed latency, against its
// limit measured in the same run — a bare `openai` client + `p-limit` loop
// sending the very same 400 request bodies to the same server. Both run as
// separate processes with this Node binary, alternated pair by pair.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSuite } from '../generate.js';
import { writeTranscriptFile } from '../../harness/datasets/yaml-write.js';
import { startFakeOpenAI, responsesBody, type FakeServer } from './fake-openai.js';
import { cpuOf, expectOk, MEMEVAL_BIN, measureNode, medianRatio, readRunJson, ROOT, runPhaseMs } from './bench-process.js';
import { median } from '../../core/stats.js';

export const ONLINE_REQUESTS = 400;
export const ONLINE_LATENCY_MS = 100;
const BARE_CLIENT = join(ROOT, 'scripts', 'lib', 'bench-bare-client.mjs');
/** The environment variable both processes read the key from; its value is random and never printed. */
const KEY_ENV = 'MEMEVAL_BENCH_KEY';

/** Medians of one side over the pairs. */
export interface OnlineSide {
  wallMs: number;
  requestMs: number;
  cpuMs: number;
  cpuMsPerRequest: number;
  peakRssMB: number;
}

export interface OnlineFigures {
  concurrency: number;
  requests: number;
  latencyMs: number;
  pairs: number;
  /** The request phase a server with this latency allows at best: ceil(requests / concurrency) × latency. */
  idealRequestMs: number;
  memeval: OnlineSide;
  bare: OnlineSide;
  /** memeval / bare, median of the per-pair ratios. */
  ratios: { wall: number; request: number; cpuPerRequest: number };
}

interface Sample {
  wallMs: number;
  requestMs: number;
  cpuMs: number;
  peakRssMB: number;
}

/**
 * Transcripts whose probes add up to exactly `requests`: with `full-history`
 * alone, the offline judge and no cache, every probe is one model request.
 * Seven facts plus one multi-hop, one temporal and one abstention probe make
 * ten probes per transcript.
 */
async function writeSuite(dataDir: string, requests: number): Promise<void> {
  const options = { turns: 24, seed: 7, toolEvery: 0, tokensPerTurn: 60, facts: 7 };
  const perTranscript = generateSuite({ ...options, count: 1 })[0].probes.length;
  if (requests % perTranscript !== 0) throw new Error(`online bench: ${requests} requests is not a multiple of ${perTranscript} probes per transcript`);
  for (const t of generateSuite({ ...options, count: requests / perTranscript })) {
    await writeTranscriptFile(join(dataDir, `${t.id}.yaml`), t);
  }
}

function configText(baseURL: string, concurrency: number): string {
  return `datasets: [data/*.yaml]
out: runs
model: bench:m
judge: offline
concurrency: ${concurrency}
cache: false
providers:
  bench:
    base_url: ${baseURL}
    api_key_env: ${KEY_ENV}
strategies:
  - { id: full, use: full-history }
`;
}

interface Setup {
  dir: string;
  server: FakeServer;
  env: NodeJS.ProcessEnv;
  bodiesFile: string;
}

/** One memeval run; checks that it made exactly the requests it should. */
async function runMemeval(s: Setup, concurrency: number, tag: string): Promise<Sample> {
  const config = join(s.dir, `memeval-c${concurrency}.yaml`);
  const out = join(s.dir, `out-${tag}`);
  const before = s.server.requests.length;
  const m = expectOk(await measureNode([MEMEVAL_BIN, 'run', '--config', config, '--out', out], { cwd: s.dir, env: s.env, usage: true }), 'memeval run');
  const served = s.server.requests.length - before;
  const run = readRunJson(out);
  const made = run.info.calls?.made ?? 0;
  if (run.info.status !== 'complete' || served !== ONLINE_REQUESTS || made !== ONLINE_REQUESTS) {
    throw new Error(`online bench: memeval run ${run.info.status}, ${made} calls, server saw ${served} (expected ${ONLINE_REQUESTS})`);
  }
  rmSync(out, { recursive: true, force: true });
  const usage = cpuOf(m, 'memeval run');
  return { wallMs: m.wallMs, requestMs: runPhaseMs(run), cpuMs: usage.cpuMs, peakRssMB: usage.peakRssMB };
}

/** One bare-client run over the bodies memeval sent. */
async function runBare(s: Setup, concurrency: number): Promise<Sample> {
  const before = s.server.requests.length;
  const m = expectOk(await measureNode([BARE_CLIENT, s.bodiesFile, String(concurrency), s.server.baseURL, KEY_ENV], { env: s.env, usage: true }), 'bare client');
  const r = JSON.parse(m.stdout.trim()) as { requests: number; failed: number; requestMs: number };
  const served = s.server.requests.length - before;
  if (r.failed || served !== ONLINE_REQUESTS) throw new Error(`online bench: bare client ${r.failed} failed, server saw ${served}`);
  const usage = cpuOf(m, 'bare client');
  return { wallMs: m.wallMs, requestMs: r.requestMs, cpuMs: usage.cpuMs, peakRssMB: usage.peakRssMB };
}

function side(samples: Sample[]): OnlineSide {
  const cpuMs = median(samples.map((x) => x.cpuMs));
  return {
    wallMs: median(samples.map((x) => x.wallMs)),
    requestMs: median(samples.map((x) => x.requestMs)),
    cpuMs,
    cpuMsPerRequest: cpuMs / ONLINE_REQUESTS,
    peakRssMB: median(samples.map((x) => x.peakRssMB)),
  };
}

/** `pairs` memeval/bare pairs; odd pairs run the bare client first, so neither side always runs second. */
async function benchConcurrency(s: Setup, concurrency: number, pairs: number): Promise<OnlineFigures> {
  const mem: Sample[] = [];
  const bare: Sample[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      mem.push(await runMemeval(s, concurrency, `c${concurrency}-${i}`));
      bare.push(await runBare(s, concurrency));
    } else {
      bare.push(await runBare(s, concurrency));
      mem.push(await runMemeval(s, concurrency, `c${concurrency}-${i}`));
    }
  }
  const ratio = (pick: (x: Sample) => number) => medianRatio(mem.map(pick), bare.map(pick));
  return {
    concurrency,
    requests: ONLINE_REQUESTS,
    latencyMs: ONLINE_LATENCY_MS,
    pairs,
    idealRequestMs: Math.ceil(ONLINE_REQUESTS / concurrency) * ONLINE_LATENCY_MS,
    memeval: side(mem),
    bare: side(bare),
    ratios: { wall: ratio((x) => x.wallMs), request: ratio((x) => x.requestMs), cpuPerRequest: ratio((x) => x.cpuMs) },
  };
}

export async function benchOnline(concurrencies: number[], pairs: number): Promise<OnlineFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-bench-online-'));
  const server = await startFakeOpenAI(() => ({ json: responsesBody('ok'), delayMs: ONLINE_LATENCY_MS }));
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', [KEY_ENV]: randomBytes(16).toString('hex') };
  const s: Setup = { dir, server, env, bodiesFile: join(dir, 'bodies.json') };
  try {
    await writeSuite(join(dir, 'data'), ONLINE_REQUESTS);
    for (const c of concurrencies) writeFileSync(join(dir, `memeval-c${c}.yaml`), configText(server.baseURL, c));
    // Untimed warm-up runs (file system cache, server sockets); the first also
    // records the bodies memeval sends, which the bare client then replays.
    await runMemeval(s, concurrencies[0], 'warm-up');
    writeFileSync(s.bodiesFile, JSON.stringify(server.requests.map((r) => r.body)));
    await runBare(s, concurrencies[0]);
    const figures: OnlineFigures[] = [];
    for (const c of concurrencies) {
      // The server keeps every request; only the counts matter from here on.
      server.requests.length = 0;
      figures.push(await benchConcurrency(s, c, pairs));
    }
    return figures;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
