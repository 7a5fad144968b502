// In-process sections of `npm run bench`: offline replay of the bundled
// config's strategies against raw tiktoken over the same text, and a
// LongMemEval-sized conversation through the compacting strategies.
import { join } from 'node:path';
import { get_encoding } from 'tiktoken';
import { generateTranscript } from '../generate.js';
import { loadConfig, type StrategyConfig } from '../../harness/config.js';
import { replayTranscript } from '../../harness/run/replay.js';
import { TokenCounter } from '../../core/tokens.js';
import { itemText, turnItems } from '../../core/items.js';
import { STRATEGIES } from '../../strategies/index.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import { medianRatio, ROOT } from './bench-process.js';
import { median } from '../../core/stats.js';
import type { Transcript } from '../../core/types.js';

/** The bundled suite's config; its `strategies:` are the defaults a user runs. */
export const BUNDLED_CONFIG = join(ROOT, 'memeval.config.yaml');

/** The strategies of the bundled config, as a run reads them (options with defaults filled in). */
export function bundledStrategies(): StrategyConfig[] {
  return loadConfig(BUNDLED_CONFIG).strategies;
}

/**
 * The six default strategies: the bundled config's without observation masking
 * (`mask-3`), which joined it later. Their row is measured too, so replay figures
 * compare with those taken before it joined.
 */
export function sixDefaultStrategies(strategies: StrategyConfig[] = bundledStrategies()): StrategyConfig[] {
  return strategies.filter((s) => s.use !== 'observation-masking');
}

export async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Replays every transcript through every strategy with one shared counter, as
 * a run does. Summarizers are the offline one whatever the config names: the
 * bench measures memeval, not a model.
 */
export async function replayAll(transcripts: Transcript[], strategies: StrategyConfig[]): Promise<void> {
  const counter = new TokenCounter('gpt-4.1-mini');
  for (const transcript of transcripts) {
    for (const s of strategies) {
      const definition = STRATEGIES.get(s.use);
      if (!definition) throw new Error(`strategy ${s.use} is not registered`);
      await replayTranscript({
        transcript,
        strategyId: s.id,
        definition,
        options: s.options,
        counter,
        makeSummarizer: (options) => new OfflineSummarizer({ ...options, model: 'offline' }, counter),
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

// ---------------------------------------------------------------- replay vs tiktoken

export const BASE_TURNS = 40;

export interface ReplayFigures {
  scale: number;
  transcripts: number;
  turnsPerTranscript: number;
  strategies: string[];
  reps: number;
  uniqueMB: number;
  replayMs: number;
  tokenizerMs: number;
  turnsPerSec: number;
  mbPerSec: number;
  tokenizerMbPerSec: number;
  /** Replay throughput as a fraction of raw tiktoken's on the same unique texts (each must be encoded once): median of paired ratios. */
  ratioToTokenizer: number;
  /** Per strategy-turn: every transcript's turns × the strategies. */
  usPerTurn: number;
}

/**
 * Each repetition times raw tiktoken, then the replay, back to back, so the
 * ratio compares two figures taken under the same machine load.
 */
export async function benchReplay(scale: number, count: number, strategies: StrategyConfig[], reps: number): Promise<ReplayFigures> {
  const turns = BASE_TURNS * scale;
  const transcripts = Array.from({ length: count }, (_, i) => generateTranscript({ turns, seed: 100 + i }));
  const texts = uniqueTexts(transcripts);
  const mb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e6;
  const enc = get_encoding('o200k_base');
  const tok: number[] = [];
  const rep: number[] = [];
  try {
    for (let r = 0; r < reps; r++) {
      tok.push(await timed(() => texts.forEach((t) => enc.encode_ordinary(t))));
      rep.push(await timed(() => replayAll(transcripts, strategies)));
    }
  } finally {
    enc.free();
  }
  const replayMs = median(rep);
  const tokenizerMs = median(tok);
  const replayedTurns = turns * count * strategies.length;
  return {
    scale,
    transcripts: count,
    turnsPerTranscript: turns,
    strategies: strategies.map((s) => s.id),
    reps,
    uniqueMB: mb,
    replayMs,
    tokenizerMs,
    turnsPerSec: replayedTurns / (replayMs / 1000),
    mbPerSec: mb / (replayMs / 1000),
    tokenizerMbPerSec: mb / (tokenizerMs / 1000),
    ratioToTokenizer: medianRatio(tok, rep),
    usPerTurn: (1000 * replayMs) / replayedTurns,
  };
}

// ---------------------------------------------------------------- LongMemEval-sized conversation

/** LongMemEval-S: about 50 sessions and 115k tokens per question; 50 × 10 turns of about 200 tokens is ~100k. */
export const LME_SESSIONS = 50;
export const LME_TURNS_PER_SESSION = 10;
export const LME_TOKENS_PER_TURN = 200;

export interface LongMemEvalFigures {
  strategy: string;
  use: string;
  reps: number;
  /** 1× then 10× the length. */
  lengths: { turns: number; tokens: number; ms: number; usPerTurn: number }[];
  /** µs per turn at 10× over 1×: 1 means linear. */
  linearity: number;
}

/** The conversation at `scale` times the LongMemEval size; no tool calls (the benchmark has none). */
function conversation(scale: number): Transcript {
  const turns = LME_SESSIONS * LME_TURNS_PER_SESSION * scale;
  return generateTranscript({ turns, seed: 50, tokensPerTurn: LME_TOKENS_PER_TURN, toolEvery: 0, id: `longmemeval-sized-${scale}x` });
}

function tokensOf(t: Transcript): number {
  const counter = new TokenCounter('gpt-4.1-mini');
  return t.turns.reduce((n, turn, i) => n + turnItems(turn, i + 1).reduce((m, item) => m + counter.text(itemText(item)), 0), 0);
}

/**
 * The compacting strategies (summarizing, soft-limit compaction) of the
 * bundled config. Each repetition replays 1× then 10× back to back; a fresh
 * replay (new counter) every time, so nothing is memoised across repetitions.
 */
export async function benchLongMemEval(strategies: StrategyConfig[], reps: number): Promise<LongMemEvalFigures[]> {
  const chosen = strategies.filter((s) => s.use === 'summarizing' || s.use === 'soft-limit-compaction');
  return lengthFigures(chosen, conversation(1), conversation(10), reps);
}

/** An agent session: a tool call every turn, 800 turns at 1×. */
export const AGENT_TURNS = 800;

function agentSession(scale: number): Transcript {
  return generateTranscript({ turns: AGENT_TURNS * scale, seed: 60, tokensPerTurn: 60, toolEvery: 1, toolOutputChars: 800, id: `agent-session-${scale}x` });
}

/**
 * Every strategy of the bundled config, one at a time, over an agent session
 * and 10× its length: a stage whose work per turn grows with the history
 * (copying or rescanning the view, every fact, every summary) shows here,
 * where a short suite hides it.
 */
export async function benchAgentSession(strategies: StrategyConfig[], reps: number): Promise<LongMemEvalFigures[]> {
  return lengthFigures(strategies, agentSession(1), agentSession(10), reps);
}

/** Each strategy over `small` then `large`, back to back in every repetition: µs per turn at each, and their ratio. */
async function lengthFigures(strategies: StrategyConfig[], small: Transcript, large: Transcript, reps: number): Promise<LongMemEvalFigures[]> {
  const sizes = [small, large].map((t) => ({ turns: t.turns.length, tokens: tokensOf(t) }));
  const out: LongMemEvalFigures[] = [];
  for (const s of strategies) {
    // Untimed: the first pass also compiles the strategy's code.
    await replayAll([small], [s]);
    const times: [number[], number[]] = [[], []];
    for (let r = 0; r < reps; r++) {
      times[0].push(await timed(() => replayAll([small], [s])));
      times[1].push(await timed(() => replayAll([large], [s])));
    }
    const lengths = sizes.map((size, i) => {
      const ms = median(times[i]);
      return { ...size, ms, usPerTurn: (1000 * ms) / size.turns };
    });
    const perTurn = (i: number) => times[i].map((ms) => ms / sizes[i].turns);
    out.push({ strategy: s.id, use: s.use, reps, lengths, linearity: medianRatio(perTurn(1), perTurn(0)) });
  }
  return out;
}
