// memeval's own speed, measured in one run (`npm run bench`): offline replay
// throughput against the tokenizer's limit at three transcript lengths,
// model-bound throughput against a local server with fixed latency, the calls
// a cold run, a warm run and in-flight deduplication make, and the peak memory
// of a 1,000-transcript suite. Writes bench.json and prints a table.
// `npm run bench -- --summary-checks [--reps N] [--turns 40,400,4000]` times
// only the summary grading (checks, offline judge, drift) of the summarizing
// strategy at a fixed total of turns split into fewer, longer transcripts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { get_encoding } from 'tiktoken';
import { generateSuite, generateTranscript } from './generate.js';
import { writeTranscriptFile } from '../harness/datasets/yaml-write.js';
import { parseConfig } from '../harness/config.js';
import { runSuite } from '../harness/run/run.js';
import { replayTranscript } from '../harness/run/replay.js';
import { TokenCounter } from '../core/tokens.js';
import { itemText, turnItems } from '../core/items.js';
import { createModel } from '../harness/models/create.js';
import { ModelStats } from '../harness/models/cache.js';
import { userMessage } from '../core/items.js';
import { DEFAULT_SUMMARIZER, type StrategyOptions } from '../strategies/registry.js';
import { STRATEGIES } from '../strategies/index.js';
import { OfflineSummarizer } from '../strategies/offline-summarizer.js';
import { gradeSummary, OfflineSummaryJudge } from '../graders/summary-judge.js';
import { summarizerOptionsOf } from '../strategies/summary-input.js';
import { startFakeOpenAI, responsesBody } from './lib/fake-openai.js';
import type { SummaryRecord, Transcript } from '../core/types.js';

const REPS = 3;
const BASE_TURNS = 40;
const LATENCY_MS = 50;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function medianMs(fn: () => Promise<unknown> | unknown, reps = REPS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) times.push(await timed(fn));
  return median(times);
}

// ---------------------------------------------------------------- offline replay

/** The strategies of the bundled suite that need no model. */
const REPLAY_STRATEGIES: { use: string; options: StrategyOptions }[] = [
  { use: 'full-history', options: {} },
  { use: 'trimming', options: { max_turns: 6 } },
  { use: 'token-budget', options: { max_tokens: 2000 } },
  { use: 'summarizing', options: { context_limit: 8, keep_last_n_turns: 4, summarizer: { ...DEFAULT_SUMMARIZER, model: 'offline' } } },
];

/** Replays every transcript through every strategy with one shared counter, as a run does. */
async function replayAll(transcripts: Transcript[]): Promise<void> {
  const counter = new TokenCounter('gpt-4.1-mini');
  for (const transcript of transcripts) {
    for (const s of REPLAY_STRATEGIES) {
      const definition = STRATEGIES.get(s.use);
      if (!definition) throw new Error(`strategy ${s.use} is not registered`);
      await replayTranscript({
        transcript,
        strategyId: s.use,
        definition,
        options: s.options,
        counter,
        makeSummarizer: (options) => new OfflineSummarizer(options),
      });
    }
  }
}

function uniqueTexts(transcripts: Transcript[]): string[] {
  const texts = new Set<string>();
  for (const t of transcripts) {
    if (t.system) texts.add(t.system);
    t.turns.forEach((turn, i) => turnItems(turn, i + 1).forEach((item) => texts.add(itemText(item))));
  }
  return [...texts];
}

interface ReplayFigures {
  scale: number;
  transcripts: number;
  turnsPerTranscript: number;
  strategies: number;
  uniqueMB: number;
  replayMs: number;
  tokenizerMs: number;
  turnsPerSec: number;
  mbPerSec: number;
  tokenizerMbPerSec: number;
  /** Replay speed as a fraction of the tokenizer's (the limit: every unique text must be encoded once). */
  ratioToTokenizer: number;
  usPerTurn: number;
}

async function benchReplay(scale: number, count: number): Promise<ReplayFigures> {
  const turns = BASE_TURNS * scale;
  const transcripts = Array.from({ length: count }, (_, i) => generateTranscript({ turns, seed: 100 + i }));
  const texts = uniqueTexts(transcripts);
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const enc = get_encoding('o200k_base');
  const tokenizerMs = await medianMs(() => {
    for (const t of texts) enc.encode_ordinary(t);
  });
  enc.free();
  const replayMs = await medianMs(() => replayAll(transcripts));
  const replayedTurns = turns * count * REPLAY_STRATEGIES.length;
  const mb = bytes / 1e6;
  return {
    scale,
    transcripts: count,
    turnsPerTranscript: turns,
    strategies: REPLAY_STRATEGIES.length,
    uniqueMB: mb,
    replayMs,
    tokenizerMs,
    turnsPerSec: replayedTurns / (replayMs / 1000),
    mbPerSec: mb / (replayMs / 1000),
    tokenizerMbPerSec: mb / (tokenizerMs / 1000),
    ratioToTokenizer: tokenizerMs / replayMs,
    usPerTurn: (1000 * replayMs) / replayedTurns,
  };
}

// ---------------------------------------------------------------- summary checks

interface SummaryCheckFigures {
  transcripts: number;
  turnsPerTranscript: number;
  summaries: number;
  replayMs: number;
  gradeMs: number;
  usPerSummary: number;
}

const SUMMARIZING = REPLAY_STRATEGIES[3];

/** The summaries the summarizing strategy makes of each transcript (replay is not timed here). */
async function summariesOf(transcripts: Transcript[]): Promise<SummaryRecord[][]> {
  const counter = new TokenCounter('gpt-4.1-mini');
  const definition = STRATEGIES.get(SUMMARIZING.use);
  if (!definition) throw new Error(`strategy ${SUMMARIZING.use} is not registered`);
  const out: SummaryRecord[][] = [];
  for (const transcript of transcripts) {
    const result = await replayTranscript({
      transcript,
      strategyId: SUMMARIZING.use,
      definition,
      options: SUMMARIZING.options,
      counter,
      makeSummarizer: (options) => new OfflineSummarizer(options),
    });
    out.push(result.summaries);
  }
  return out;
}

/** Grades every summary as a run does: checks, the offline judge and drift against the previous summary. */
async function gradeAll(transcripts: Transcript[], summaries: SummaryRecord[][]): Promise<void> {
  const wordLimit = summarizerOptionsOf(SUMMARIZING.options).word_limit;
  const judge = new OfflineSummaryJudge({ wordLimit });
  for (let i = 0; i < transcripts.length; i++) {
    let previous: SummaryRecord | undefined;
    for (const summary of summaries[i]) {
      await gradeSummary({ transcript: transcripts[i], summary, previous }, { wordLimit }, judge);
      previous = summary;
    }
  }
}

/**
 * Fresh transcript objects for every repetition: graders may remember work per
 * transcript, and a bench that reuses them would time only the first pass.
 */
async function benchSummaryChecks(turns: number, count: number, reps: number): Promise<SummaryCheckFigures> {
  const make = () => Array.from({ length: count }, (_, i) => generateTranscript({ turns, seed: 100 + i }));
  let summaries = 0;
  const replayTimes: number[] = [];
  const gradeTimes: number[] = [];
  for (let r = 0; r < reps; r++) {
    const transcripts = make();
    let made: SummaryRecord[][] = [];
    replayTimes.push(await timed(async () => (made = await summariesOf(transcripts))));
    summaries = made.reduce((n, s) => n + s.length, 0);
    gradeTimes.push(await timed(() => gradeAll(transcripts, made)));
  }
  const gradeMs = median(gradeTimes);
  return { transcripts: count, turnsPerTranscript: turns, summaries, replayMs: median(replayTimes), gradeMs, usPerSummary: (1000 * gradeMs) / summaries };
}

function flagValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** 800 turns as 20 × 40 and 2 × 400, then 4,000 turns in one transcript (or the `--turns` list, 800 turns per length below 4,000). */
async function summaryChecksMain(): Promise<void> {
  const reps = Number(flagValue('--reps') ?? REPS);
  const lengths = (flagValue('--turns') ?? '40,400,4000').split(',').map(Number);
  const print = (line: string): boolean => process.stdout.write(`${line}\n`);
  print(`summary grading of ${SUMMARIZING.use} (offline summarizer; checks + offline judge + drift; median of ${reps})`);
  print('  transcripts × turns  summaries  replay ms  grade ms  µs/summary');
  const figures: SummaryCheckFigures[] = [];
  for (const turns of lengths) {
    // Lines appear as they finish: the longest transcript is the slow one.
    const r = await benchSummaryChecks(turns, Math.max(1, Math.round(800 / turns)), reps);
    figures.push(r);
    print(
      `  ${`${r.transcripts} × ${r.turnsPerTranscript}`.padStart(19)}  ${String(r.summaries).padStart(9)}  ${f(r.replayMs, 0).padStart(9)}  ${f(r.gradeMs, 0).padStart(8)}  ${f(r.usPerSummary, 0).padStart(10)}`,
    );
  }
  print(JSON.stringify(figures));
}

// ---------------------------------------------------------------- model-bound throughput

interface ModelFigures {
  concurrency: number;
  requests: number;
  latencyMs: number;
  achievedRps: number;
  idealRps: number;
  efficiency: number;
}

async function benchModel(concurrency: number): Promise<ModelFigures> {
  const server = await startFakeOpenAI(() => ({ json: responsesBody('ok'), delayMs: LATENCY_MS }));
  const requests = concurrency * 10;
  let round = 0;
  try {
    const ms = await medianMs(async () => {
      round++;
      const model = createModel('bench:m', {
        providers: { bench: { base_url: server.baseURL, api_key_env: 'BENCH_KEY' } },
        prices: {},
        cacheDir: false,
        limit: pLimit(concurrency),
        stats: new ModelStats(),
        env: { BENCH_KEY: 'bench-local-key' },
      });
      const results = await Promise.all(
        Array.from({ length: requests }, (_, i) => model.complete({ input: [userMessage(`question ${round}-${i}`)], purpose: 'answer' })),
      );
      const failed = results.filter((r) => r.error);
      if (failed.length) throw new Error(`model bench: ${failed.length} calls failed: ${failed[0].error}`);
    });
    const achievedRps = requests / (ms / 1000);
    const idealRps = concurrency / (LATENCY_MS / 1000);
    return { concurrency, requests, latencyMs: LATENCY_MS, achievedRps, idealRps, efficiency: achievedRps / idealRps };
  } finally {
    await server.close();
  }
}

// ---------------------------------------------------------------- calls: cold, warm, dedup

interface CallFigures {
  probeRequests: number;
  serverRequests: { cold: number; warm: number; dedupOnly: number };
  cold: { calls: number; cacheHits: number; dedupHits: number };
  warm: { calls: number; cacheHits: number; dedupHits: number };
  dedupOnly: { calls: number; cacheHits: number; dedupHits: number };
}

/** Strategies that keep everything early on, so early probes send identical requests. */
function callsConfig(baseURL: string, cache: string | false): string {
  return `datasets: [data/*.yaml]
out: runs
model: bench:m
judge: offline
concurrency: 8
cache: ${cache === false ? 'false' : cache}
providers:
  bench:
    base_url: ${baseURL}
    api_key_env: BENCH_KEY
strategies:
  - { id: full, use: full-history }
  - { id: trim-8, use: trimming, max_turns: 8 }
  - { id: budget-8k, use: token-budget, max_tokens: 8000 }
  - { id: window-24, use: sliding-window, max_messages: 24 }
`;
}

async function benchCalls(): Promise<CallFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-bench-'));
  const server = await startFakeOpenAI(() => ({ json: responsesBody('ok'), delayMs: LATENCY_MS }));
  process.env.BENCH_KEY = 'bench-local-key';
  const quiet = () => undefined;
  try {
    for (const t of generateSuite({ count: 6, turns: 24, seed: 7, toolEvery: 0, tokensPerTurn: 60 })) {
      await writeTranscriptFile(join(dir, 'data', `${t.id}.yaml`), t);
    }
    const run = async (cache: string | false) => {
      const file = join(dir, `memeval-${cache === false ? 'nocache' : 'cache'}.yaml`);
      writeFileSync(file, callsConfig(server.baseURL, cache));
      const before = server.requests.length;
      const outcome = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: quiet });
      const c = outcome.run.info.calls ?? { made: 0, cacheHits: 0, dedupHits: 0, errors: 0 };
      if (c.errors) throw new Error(`calls bench: ${c.errors} calls failed`);
      return { probes: outcome.run.probes.length, served: server.requests.length - before, calls: c.made, cacheHits: c.cacheHits, dedupHits: c.dedupHits };
    };
    const cold = await run(join(dir, 'cache'));
    const warm = await run(join(dir, 'cache'));
    const dedup = await run(false);
    const pick = (r: typeof cold) => ({ calls: r.calls, cacheHits: r.cacheHits, dedupHits: r.dedupHits });
    return {
      probeRequests: cold.probes,
      serverRequests: { cold: cold.served, warm: warm.served, dedupOnly: dedup.served },
      cold: pick(cold),
      warm: pick(warm),
      dedupOnly: pick(dedup),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- peak memory (child process)

interface MemoryFigures {
  transcripts: number;
  turnsPerTranscript: number;
  strategies: number;
  probes: number;
  peakRssMB: number;
  runMs: number;
}

const RSS_TRANSCRIPTS = 1000;
const RSS_TURNS = 12;

function vmHwmMB(): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  if (line) return Number(line.replace(/\D+/g, '')) / 1024;
  return process.memoryUsage().rss / 1e6;
}

/** Runs inside the child: a whole offline run of a generated 1,000-transcript suite. */
async function memoryChild(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-bench-rss-'));
  try {
    for (const t of generateSuite({ count: RSS_TRANSCRIPTS, turns: RSS_TURNS, seed: 11, facts: 3, updates: 1, distractors: 1 })) {
      await writeTranscriptFile(join(dir, 'data', `${t.id}.yaml`), t);
    }
    const file = join(dir, 'memeval.yaml');
    writeFileSync(
      file,
      `datasets: [data/*.yaml]\nout: runs\nmodel: offline\njudge: offline\ncache: false\nstrategies:\n  - { id: full, use: full-history }\n  - { id: trim-4, use: trimming, max_turns: 4 }\n`,
    );
    const started = performance.now();
    const outcome = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: () => undefined });
    const figures: MemoryFigures = {
      transcripts: RSS_TRANSCRIPTS,
      turnsPerTranscript: RSS_TURNS,
      strategies: 2,
      probes: outcome.run.probes.length,
      peakRssMB: vmHwmMB(),
      runMs: performance.now() - started,
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function benchMemory(): Promise<MemoryFigures> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, '--memory-child'], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, CI: 'true' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`memory bench child exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as MemoryFigures);
    });
  });
}

// ---------------------------------------------------------------- output

const f = (x: number, digits = 1): string => x.toFixed(digits);

function printTable(replay: ReplayFigures[], model: ModelFigures[], calls: CallFigures, memory: MemoryFigures): void {
  const out: string[] = [];
  out.push(`offline replay (${REPLAY_STRATEGIES.length} strategies, shared token counter; median of ${REPS})`);
  out.push('  scale  turns/transcript  transcripts  unique MB  turns/s   MB/s  tokenizer MB/s  vs tokenizer  µs/turn');
  for (const r of replay) {
    out.push(
      `  ${`${r.scale}×`.padStart(5)}  ${String(r.turnsPerTranscript).padStart(16)}  ${String(r.transcripts).padStart(11)}  ${f(r.uniqueMB, 2).padStart(9)}  ${f(r.turnsPerSec, 0).padStart(7)}  ${f(r.mbPerSec, 2).padStart(5)}  ${f(r.tokenizerMbPerSec, 2).padStart(14)}  ${f(100 * r.ratioToTokenizer, 0).padStart(11)}%  ${f(r.usPerTurn, 0).padStart(7)}`,
    );
  }
  out.push(`model-bound (local server, ${LATENCY_MS} ms per request)`);
  for (const m of model) {
    out.push(`  concurrency ${String(m.concurrency).padStart(2)}: ${f(m.achievedRps, 0)} req/s of ideal ${f(m.idealRps, 0)} (${f(100 * m.efficiency, 0)}%)`);
  }
  const repeats = calls.cold.cacheHits + calls.cold.dedupHits;
  out.push(`calls for ${calls.probeRequests} probe answers by 4 strategies; ${repeats} repeat another strategy's request (identical views)`);
  out.push(`  cold run:        ${calls.cold.calls} calls, ${calls.cold.dedupHits} joined in flight, ${calls.cold.cacheHits} cache hits (server saw ${calls.serverRequests.cold})`);
  out.push(`  warm run:        ${calls.warm.calls} calls, ${calls.warm.cacheHits} cache hits (server saw ${calls.serverRequests.warm})`);
  out.push(`  no cache, dedup: ${calls.dedupOnly.calls} calls, ${calls.dedupOnly.dedupHits} joined in flight (server saw ${calls.serverRequests.dedupOnly})`);
  out.push(
    `peak RSS: ${f(memory.peakRssMB, 0)} MB for ${memory.transcripts} transcripts × ${memory.turnsPerTranscript} turns × ${memory.strategies} strategies (${memory.probes} probes, offline, ${f(memory.runMs / 1000, 1)} s)`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const replay = [await benchReplay(1, 20), await benchReplay(10, 2), await benchReplay(100, 1)];
  const model = [await benchModel(8), await benchModel(32)];
  const calls = await benchCalls();
  const memory = await benchMemory();
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    totalSeconds: (performance.now() - started) / 1000,
    replay,
    model,
    calls,
    memory,
  };
  writeFileSync('bench.json', `${JSON.stringify(result, null, 2)}\n`);
  printTable(replay, model, calls, memory);
  process.stdout.write(`bench.json written (${f(result.totalSeconds, 0)} s)\n`);
}

if (process.argv.includes('--memory-child')) await memoryChild();
else if (process.argv.includes('--summary-checks')) await summaryChecksMain();
else await main();
