// Per-turn cost of the retrieval strategy against trimming: a synthetic
// replay that reads the view after every turn, as the harness does.
// `node --import tsx scripts/bench-retrieval.ts`
import { assistantMessage, userMessage } from '../core/items.js';
import { TokenCounter } from '../core/tokens.js';
import type { MemoryStrategy } from '../strategies/base.js';
import { RetrievalStrategy } from '../strategies/retrieval.js';
import { TrimmingStrategy } from '../strategies/trimming.js';

const WORDS = 'passport flight hotel visa ramen alps budget invoice router knee outage migration refund laptop wedding'.split(' ');

async function replay(strategy: MemoryStrategy, turns: number): Promise<number> {
  const started = performance.now();
  for (let n = 0; n < turns; n++) {
    // Few distinct words, so most turns share the query's words: the scoring's worst case.
    const word = (i: number): string => WORDS[(n * 7 + i * 3) % WORDS.length];
    await strategy.addItems([userMessage(`Turn ${n}: about the ${word(1)} and ${word(2)}, ref ${n}.`), assistantMessage(`Noted the ${word(3)} for turn ${n}.`)]);
    await strategy.getItems();
  }
  return performance.now() - started;
}

const counter = new TokenCounter();
await replay(new RetrievalStrategy({ keepLastTurns: 4, maxRecallTokens: 600 }, { counter }), 200); // warm the encoder
for (const turns of [1000, 4000]) {
  const made: MemoryStrategy[] = [new TrimmingStrategy(4), new RetrievalStrategy({ keepLastTurns: 4, maxRecallTokens: 600 }, { counter })];
  for (const strategy of made) {
    const ms = await replay(strategy, turns);
    console.log(`${strategy.constructor.name.padEnd(18)} ${String(turns).padStart(5)} turns: ${ms.toFixed(0).padStart(6)} ms, ${((1000 * ms) / turns).toFixed(0).padStart(5)} µs/turn`);
  }
}
