// memeval's own speed (`npm run bench`). Every figure is printed next to its
// limit measured in the same run, as a ratio:
//   replay       the strategies of memeval.config.yaml replayed offline with
//                one shared token counter, vs raw tiktoken on the same unique text,
//                at 1×, 10× and 100× the transcript length, and the six
//                defaults (the config's without mask-3) together at 1×
//   online       a 400-request run of the built CLI against a local server with
//                fixed latency, vs a bare `openai` + `p-limit` client sending the
//                same bodies (both separate processes, alternated in pairs)
//   startup      `memeval --help` / `--version` vs `node -e 0`, and an offline run's first line
//   rss          peak RSS of whole offline CLI runs at 100, 1,000 and 3,000 transcripts
//   longmemeval  a LongMemEval-sized conversation (~100k tokens) and 10× that,
//                through the compacting strategies: µs per turn, 10× over 1×
//   agent        an agent session (a tool call every turn, 800 turns) and 10× that,
//                through every strategy of memeval.config.yaml: µs per turn, 10× over 1×
//   calls        the calls a cold run, a warm run and in-flight dedup make
//   locomo       generated LoCoMo-shaped data imported and run whole by the built CLI,
//                once and with --repeat 3, then `memeval report`: peak RSS, run directory vs input
// Writes bench.json and prints a table.
//
//   npm run bench -- [--only replay,online,startup,rss,longmemeval,agent,calls,locomo] [--reps N] [--rss 100,1000,3000]
//
// With --only, the sections run replace theirs in an existing bench.json and
// the others are kept (each section records when it was measured).
// `npm run bench -- --summary-checks [--reps N] [--turns 40,400,4000]` times
// only the summary grading (checks, offline judge, drift) of the summarizing
// strategy at a fixed total of turns split into fewer, longer transcripts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSuite, generateTranscript } from './generate.js';
import { writeTranscriptFile } from '../harness/datasets/yaml-write.js';
import { parseConfig, type StrategyConfig } from '../harness/config.js';
import { runSuite } from '../harness/run/run.js';
import { replayTranscript } from '../harness/run/replay.js';
import { TokenCounter } from '../core/tokens.js';
import { STRATEGIES } from '../strategies/index.js';
import { OfflineSummarizer } from '../strategies/offline-summarizer.js';
import { gradeSummary, OfflineSummaryJudge } from '../graders/summary-judge.js';
import { summarizerOptionsOf } from '../strategies/summary-input.js';
import { startFakeOpenAI, responsesBody } from './lib/fake-openai.js';
import { median } from '../core/stats.js';
import { AGENT_TURNS, benchAgentSession, benchReplay, benchLongMemEval, bundledStrategies, sixDefaultStrategies, timed, LME_SESSIONS, LME_TURNS_PER_SESSION, type LongMemEvalFigures, type ReplayFigures } from './lib/bench-replay.js';
import { benchOnline, ONLINE_LATENCY_MS, ONLINE_REQUESTS, type OnlineFigures } from './lib/bench-online.js';
import { benchRss, benchStartup, mbPerTranscript, type RssFigures, type StartupFigures } from './lib/bench-cli.js';
import { benchLocomo, locomoTable } from './lib/bench-locomo.js';
import type { MadeSummary, SummaryRecord, Transcript } from '../core/types.js';

const REPS = 3;
const STARTUP_REPS = 5;
const ONLINE_CONCURRENCY = [8, 32];
const RSS_SIZES = [100, 1000, 3000];
const SECTIONS = ['replay', 'online', 'startup', 'rss', 'longmemeval', 'agent', 'calls', 'locomo'] as const;
type Section = (typeof SECTIONS)[number];

function flagValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** A comma-separated list of whole numbers ≥ 1; a typo must stop the bench, not run a different one. */
function numberList(name: string, fallback: number[]): number[] {
  const raw = flagValue(name);
  if (raw === undefined) return fallback;
  const list = raw.split(',').map(Number);
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1)) throw new RangeError(`${name} wants whole numbers ≥ 1, comma-separated (got "${raw}")`);
  return list;
}

function repsFlag(): number {
  return numberList('--reps', [REPS])[0];
}

function onlyFlag(): Section[] {
  const raw = flagValue('--only');
  if (raw === undefined) return [...SECTIONS];
  const names = raw.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (unknown.length) throw new RangeError(`--only: unknown section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`);
  return names as Section[];
}

const f = (x: number, digits = 1): string => x.toFixed(digits);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const ratio = (x: number): string => `${x.toFixed(2)}×`;
const print = (lines: string[]): boolean => process.stdout.write(`${lines.join('\n')}\n`);

// ---------------------------------------------------------------- summary checks

interface SummaryCheckFigures {
  transcripts: number;
  turnsPerTranscript: number;
  summaries: number;
  replayMs: number;
  gradeMs: number;
  usPerSummary: number;
}

/** The bundled config's summarizing strategy. */
function summarizingStrategy(): StrategyConfig {
  const s = bundledStrategies().find((x) => x.use === 'summarizing');
  if (!s) throw new Error('memeval.config.yaml has no summarizing strategy');
  return s;
}

/** The summaries the summarizing strategy makes of each transcript (replay is not timed here). */
async function summariesOf(strategy: StrategyConfig, transcripts: Transcript[]): Promise<MadeSummary[][]> {
  const counter = new TokenCounter('gpt-4.1-mini');
  const definition = STRATEGIES.get(strategy.use);
  if (!definition) throw new Error(`strategy ${strategy.use} is not registered`);
  const out: MadeSummary[][] = [];
  for (const transcript of transcripts) {
    const result = await replayTranscript({
      transcript,
      strategyId: strategy.id,
      definition,
      options: strategy.options,
      counter,
      makeSummarizer: (options) => new OfflineSummarizer({ ...options, model: 'offline' }, counter),
    });
    out.push(result.summaries);
  }
  return out;
}

/** Grades every summary as a run does: checks, the offline judge and drift against the previous summary. */
async function gradeAll(strategy: StrategyConfig, transcripts: Transcript[], summaries: MadeSummary[][]): Promise<void> {
  const wordLimit = summarizerOptionsOf(strategy.options).word_limit;
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
async function benchSummaryChecks(strategy: StrategyConfig, turns: number, count: number, reps: number): Promise<SummaryCheckFigures> {
  const make = () => Array.from({ length: count }, (_, i) => generateTranscript({ turns, seed: 100 + i }));
  let summaries = 0;
  const replayTimes: number[] = [];
  const gradeTimes: number[] = [];
  for (let r = 0; r < reps; r++) {
    const transcripts = make();
    let made: MadeSummary[][] = [];
    replayTimes.push(await timed(async () => (made = await summariesOf(strategy, transcripts))));
    summaries = made.reduce((n, s) => n + s.length, 0);
    gradeTimes.push(await timed(() => gradeAll(strategy, transcripts, made)));
  }
  const gradeMs = median(gradeTimes);
  return { transcripts: count, turnsPerTranscript: turns, summaries, replayMs: median(replayTimes), gradeMs, usPerSummary: (1000 * gradeMs) / summaries };
}

/** 800 turns as 20 × 40 and 2 × 400, then 4,000 turns in one transcript (or the `--turns` list, 800 turns per length below 4,000). */
async function summaryChecksMain(): Promise<void> {
  const reps = repsFlag();
  const lengths = numberList('--turns', [40, 400, 4000]);
  const strategy = summarizingStrategy();
  print([`summary grading of ${strategy.id} (offline summarizer; checks + offline judge + drift; median of ${reps})`, '  transcripts × turns  summaries  replay ms  grade ms  µs/summary']);
  const figures: SummaryCheckFigures[] = [];
  for (const turns of lengths) {
    // Lines appear as they finish: the longest transcript is the slow one.
    const r = await benchSummaryChecks(strategy, turns, Math.max(1, Math.round(800 / turns)), reps);
    figures.push(r);
    print([
      `  ${`${r.transcripts} × ${r.turnsPerTranscript}`.padStart(19)}  ${String(r.summaries).padStart(9)}  ${f(r.replayMs, 0).padStart(9)}  ${f(r.gradeMs, 0).padStart(8)}  ${f(r.usPerSummary, 0).padStart(10)}`,
    ]);
  }
  print([JSON.stringify(figures)]);
}

// ---------------------------------------------------------------- calls: cold, warm, dedup

const CALLS_LATENCY_MS = 50;

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
  const server = await startFakeOpenAI(() => ({ json: responsesBody('ok'), delayMs: CALLS_LATENCY_MS }));
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

// ---------------------------------------------------------------- tables

function replayTable(replay: ReplayFigures[]): string[] {
  const first = replay[0];
  const out = [
    `offline replay: the ${first.strategies.length} strategies of memeval.config.yaml (${first.strategies.join(', ')}) together, and the six defaults without mask-3;`,
    `  one shared token counter, offline summarizer; vs raw tiktoken (o200k_base encode_ordinary) on the same unique texts, timed back to back; median of ${first.reps}`,
    '  strategies  scale  turns × transcripts  unique MB  strategy-turns/s  µs/turn  µs/turn vs 1×  replay MB/s  tiktoken MB/s  replay/tiktoken',
  ];
  for (const r of replay) {
    // Each set of strategies against its own 1× row.
    const base = replay.find((b) => b.scale === 1 && b.strategies.join() === r.strategies.join()) ?? first;
    out.push(
      `  ${String(r.strategies.length).padStart(10)}  ${`${r.scale}×`.padStart(5)}  ${`${r.turnsPerTranscript} × ${r.transcripts}`.padStart(19)}  ${f(r.uniqueMB, 2).padStart(9)}  ${int(r.turnsPerSec).padStart(16)}  ${f(r.usPerTurn, 0).padStart(7)}  ${ratio(r.usPerTurn / base.usPerTurn).padStart(13)}  ${f(r.mbPerSec, 2).padStart(11)}  ${f(r.tokenizerMbPerSec, 2).padStart(13)}  ${`${f(100 * r.ratioToTokenizer, 1)}%`.padStart(15)}`,
    );
  }
  return out;
}

function onlineTable(online: OnlineFigures[]): string[] {
  const out = [
    `online: ${ONLINE_REQUESTS} requests to a local server (${ONLINE_LATENCY_MS} ms per request); memeval = built CLI run (full-history, offline judge, no cache),`,
    `  bare = openai client + p-limit sending the same bodies (plain node); separate processes, medians of ${online[0]?.pairs ?? 0} alternated pairs`,
    '  concurrency  figure                 memeval       bare  memeval/bare',
  ];
  for (const o of online) {
    const row = (label: string, m: string, b: string, r: number) => `  ${String(o.concurrency).padStart(11)}  ${label.padEnd(19)}  ${m.padStart(9)}  ${b.padStart(9)}  ${ratio(r).padStart(12)}`;
    out.push(row('whole process ms', int(o.memeval.wallMs), int(o.bare.wallMs), o.ratios.wall));
    out.push(row('request phase ms', int(o.memeval.requestMs), int(o.bare.requestMs), o.ratios.request));
    out.push(row('CPU ms per request', f(o.memeval.cpuMsPerRequest, 2), f(o.bare.cpuMsPerRequest, 2), o.ratios.cpuPerRequest));
    out.push(row('peak RSS MB', f(o.memeval.peakRssMB, 0), f(o.bare.peakRssMB, 0), o.memeval.peakRssMB / o.bare.peakRssMB));
    out.push(
      `  ${''.padStart(11)}  ideal request phase ${int(o.idealRequestMs)} ms (⌈${o.requests}/${o.concurrency}⌉ × ${o.latencyMs} ms): memeval ${ratio(o.memeval.requestMs / o.idealRequestMs)}, bare ${ratio(o.bare.requestMs / o.idealRequestMs)} of it`,
    );
  }
  out.push('  (memeval request phase: run.json info.startedAt → info.finishedAt; bare: first request → last reply)');
  return out;
}

function startupTable(s: StartupFigures): string[] {
  return [
    `start-up: spawn to exit, median of ${s.reps} (ratios: median of per-round ratios to node -e 0 started just before)`,
    `  node -e 0           ${f(s.bareNodeMs, 0).padStart(5)} ms  1.00×`,
    `  memeval --help      ${f(s.helpMs, 0).padStart(5)} ms  ${ratio(s.helpRatio)}`,
    `  memeval --version   ${f(s.versionMs, 0).padStart(5)} ms  ${ratio(s.versionRatio)}`,
    `  offline run of the bundled suite, spawn to its first line: ${f(s.firstLineMs, 0)} ms (median of ${s.reps})`,
  ];
}

function rssTable(rss: RssFigures[]): string[] {
  const first = rss[0];
  const out = [
    `peak RSS (VmHWM) of the built CLI, offline run, ${first.turnsPerTranscript} turns × ${first.strategies} strategies (full-history, trimming 4) per transcript`,
    '  transcripts  probes  peak RSS MB  MB per extra transcript  vs previous size  wall s  run s  CPU s',
  ];
  rss.forEach((r, i) => {
    const slope = mbPerTranscript(rss, i);
    const prev = i > 0 ? `${ratio(r.peakRssMB / rss[i - 1].peakRssMB)} (${f(r.transcripts / rss[i - 1].transcripts, 0)}× size)` : '';
    out.push(
      `  ${int(r.transcripts).padStart(11)}  ${int(r.probes).padStart(6)}  ${f(r.peakRssMB, 0).padStart(11)}  ${(slope === undefined ? '' : f(slope, 3)).padStart(23)}  ${prev.padStart(16)}  ${f(r.wallMs / 1000, 1).padStart(6)}  ${f(r.runMs / 1000, 1).padStart(5)}  ${f(r.cpuMs / 1000, 1).padStart(5)}`,
    );
  });
  const at = (n: number) => rss.find((r) => r.transcripts === n);
  const a = at(1000);
  const b = at(3000);
  if (a && b) out.push(`  3,000 / 1,000 transcripts: ${f(b.peakRssMB, 0)} / ${f(a.peakRssMB, 0)} MB = ${ratio(b.peakRssMB / a.peakRssMB)} (3.00× would be proportional)`);
  return out;
}

function longMemEvalTable(lme: LongMemEvalFigures[]): string[] {
  return lengthTable(`LongMemEval-sized conversation (${LME_SESSIONS} sessions × ${LME_TURNS_PER_SESSION} turns), offline summarizer; median of ${lme[0]?.reps ?? 0}, 1× and 10× replayed back to back`, lme);
}

function agentTable(figures: LongMemEvalFigures[]): string[] {
  const title = `agent session (${int(AGENT_TURNS)} turns, a tool call each), every strategy of memeval.config.yaml, offline summarizer; median of ${figures[0]?.reps ?? 0}, 1× and 10× replayed back to back; limit 1.5×`;
  return lengthTable(title, figures);
}

function lengthTable(title: string, lme: LongMemEvalFigures[]): string[] {
  const out = [
    title,
    '  strategy          1×: turns   tokens      ms  µs/turn   10×: turns     tokens      ms  µs/turn  10×/1× µs per turn',
  ];
  for (const s of lme) {
    const [a, b] = s.lengths;
    out.push(
      `  ${s.strategy.padEnd(16)}  ${int(a.turns).padStart(9)}  ${int(a.tokens).padStart(7)}  ${int(a.ms).padStart(6)}  ${f(a.usPerTurn, 0).padStart(7)}  ${int(b.turns).padStart(10)}  ${int(b.tokens).padStart(9)}  ${int(b.ms).padStart(6)}  ${f(b.usPerTurn, 0).padStart(7)}  ${ratio(s.linearity).padStart(19)}`,
    );
  }
  return out;
}

function callsTable(calls: CallFigures): string[] {
  const repeats = calls.cold.cacheHits + calls.cold.dedupHits;
  const share = (n: number) => `${f((100 * n) / calls.probeRequests, 0)}% of probe answers`;
  return [
    `calls for ${calls.probeRequests} probe answers by 4 strategies; ${repeats} repeat another strategy's request (identical views)`,
    `  cold run:        ${calls.cold.calls} calls (${share(calls.cold.calls)}), ${calls.cold.dedupHits} joined in flight, ${calls.cold.cacheHits} cache hits (server saw ${calls.serverRequests.cold})`,
    `  warm run:        ${calls.warm.calls} calls (${share(calls.warm.calls)}), ${calls.warm.cacheHits} cache hits (server saw ${calls.serverRequests.warm})`,
    `  no cache, dedup: ${calls.dedupOnly.calls} calls (${share(calls.dedupOnly.calls)}), ${calls.dedupOnly.dedupHits} joined in flight (server saw ${calls.serverRequests.dedupOnly})`,
  ];
}

// ---------------------------------------------------------------- main

interface SectionResult {
  measuredAt: string;
  seconds: number;
  figures: unknown;
}

interface BenchFile {
  date: string;
  node: string;
  cpus: number;
  sections: Partial<Record<Section, SectionResult>>;
}

/** The sections of an existing bench.json in this format; anything else is not kept. */
function previousSections(): BenchFile['sections'] {
  if (!existsSync('bench.json')) return {};
  try {
    const old = JSON.parse(readFileSync('bench.json', 'utf8')) as Partial<BenchFile>;
    return typeof old.sections === 'object' && old.sections !== null ? old.sections : {};
  } catch {
    return {};
  }
}

/** Runs one section and returns its figures with the lines of its table. */
async function runSection(section: Section, reps: number): Promise<{ figures: unknown; lines: string[] }> {
  switch (section) {
    case 'replay': {
      const strategies = bundledStrategies();
      // Untimed: the first pass also compiles the code, which would count against 1× only.
      await benchReplay(1, 2, strategies, 1);
      const figures = [
        await benchReplay(1, 20, strategies, reps),
        await benchReplay(10, 2, strategies, reps),
        await benchReplay(100, 1, strategies, reps),
        await benchReplay(1, 20, sixDefaultStrategies(strategies), reps),
      ];
      return { figures, lines: replayTable(figures) };
    }
    case 'online': {
      const figures = await benchOnline(ONLINE_CONCURRENCY, reps);
      return { figures, lines: onlineTable(figures) };
    }
    case 'startup': {
      const figures = await benchStartup(STARTUP_REPS);
      return { figures, lines: startupTable(figures) };
    }
    case 'rss': {
      const figures = await benchRss(numberList('--rss', RSS_SIZES));
      return { figures, lines: rssTable(figures) };
    }
    case 'longmemeval': {
      const figures = await benchLongMemEval(bundledStrategies(), reps);
      return { figures, lines: longMemEvalTable(figures) };
    }
    case 'agent': {
      const figures = await benchAgentSession(bundledStrategies(), reps);
      return { figures, lines: agentTable(figures) };
    }
    case 'calls': {
      const figures = await benchCalls();
      return { figures, lines: callsTable(figures) };
    }
    case 'locomo': {
      const figures = await benchLocomo();
      return { figures, lines: locomoTable(figures) };
    }
  }
}

async function main(): Promise<void> {
  const sections = onlyFlag();
  const reps = repsFlag();
  const only = process.argv.includes('--only');
  const file: BenchFile = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, sections: only ? previousSections() : {} };
  const started = performance.now();
  for (const section of sections) {
    const t0 = performance.now();
    const { figures, lines } = await runSection(section, reps);
    file.sections[section] = { measuredAt: new Date().toISOString(), seconds: (performance.now() - t0) / 1000, figures };
    // Written after every section: a later one failing keeps what was measured.
    writeFileSync('bench.json', `${JSON.stringify(file, null, 2)}\n`);
    print([...lines, '']);
  }
  print([`bench.json written (${f((performance.now() - started) / 1000, 0)} s)`]);
}

if (process.argv.includes('--summary-checks')) await summaryChecksMain();
else await main();
