// The retrieval strategy: the newest turns verbatim, dropped turns that match
// the newest user message recalled into a token budget between two markers.
import { describe, expect, it } from 'vitest';
import { assistantMessage, callIdOf, itemText, itemType, userMessage } from '../../core/items.js';
import { seededRandom } from '../../core/random.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { STRATEGIES } from '../../strategies/index.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import type { StrategyContext } from '../../strategies/registry.js';
import { RECALL_END, RECALL_HEADER, RetrievalStrategy, retrievalTerms, type RetrievalSettings } from '../../strategies/retrieval.js';

const counter = new TokenCounter();
const ctx: StrategyContext = { counter, makeSummarizer: (o) => new OfflineSummarizer(o) };

function turn(user: string, assistant: string): AgentInputItem[] {
  return [userMessage(user), assistantMessage(assistant)];
}

function toolTurn(user: string, id: string, output: string, assistant: string): AgentInputItem[] {
  return [
    userMessage(user),
    { type: 'function_call', callId: id, name: 'lookup', arguments: '{}' },
    { type: 'function_call_result', callId: id, name: 'lookup', status: 'completed', output },
    assistantMessage(assistant),
  ];
}

function make(settings: Partial<RetrievalSettings> = {}): RetrievalStrategy {
  return new RetrievalStrategy({ keepLastTurns: 1, maxRecallTokens: 1000, ...settings }, { counter });
}

const PASSPORT = turn('My passport number is X1234567, expiring in 2031.', 'Noted your passport number.');
const HIKING = turn('I love hiking in the Alps every summer.', 'The Alps are lovely for hiking.');
const RAMEN = turn('My favourite dinner is tonkotsu ramen.', 'Ramen it is.');
const QUESTION = turn('Which passport number did I give you earlier?', 'Let me check.');

async function viewText(s: RetrievalStrategy): Promise<string[]> {
  return (await s.getItems()).map(itemText);
}

/** Every tool result in `items` has its call, and every call its result. */
function pairsConsistent(items: AgentInputItem[]): boolean {
  const calls = new Set(items.filter((i) => itemType(i) === 'function_call').map(callIdOf));
  const results = new Set(items.filter((i) => itemType(i) === 'function_call_result').map(callIdOf));
  return [...calls].every((id) => results.has(id)) && [...results].every((id) => calls.has(id));
}

describe('retrieval', () => {
  it('keeps everything, without markers, while there are no more turns than it keeps', async () => {
    const s = make({ keepLastTurns: 3 });
    const items = [...PASSPORT, ...HIKING, ...QUESTION];
    await s.addItems(items);
    expect(await s.getItems()).toEqual(items);
  });

  it('keeps the last N turns and recalls the dropped turn matching the newest message, not unrelated ones', async () => {
    const s = make({ keepLastTurns: 1 });
    await s.addItems([...PASSPORT, ...HIKING, ...RAMEN, ...QUESTION]);
    expect(await viewText(s)).toEqual([RECALL_HEADER, ...PASSPORT.map(itemText), RECALL_END, ...QUESTION.map(itemText)]);
  });

  it('keeps the recalled items by identity, so reports count those turns as kept', async () => {
    const s = make();
    await s.addItems([...PASSPORT, ...HIKING, ...QUESTION]);
    const view = await s.getItems();
    expect(view[1]).toBe(PASSPORT[0]);
    expect(view[2]).toBe(PASSPORT[1]);
  });

  it('recalls nothing, and sends no markers, when no dropped turn shares a word with the newest message', async () => {
    const s = make();
    await s.addItems([...HIKING, ...RAMEN, ...QUESTION]);
    expect(await viewText(s)).toEqual(QUESTION.map(itemText));
  });

  it('puts recalled turns in their original order, whatever their scores', async () => {
    const s = make();
    const older = turn('The passport office is on Elm Street.', 'Okay.');
    await s.addItems([...older, ...HIKING, ...PASSPORT, ...QUESTION]);
    const texts = await viewText(s);
    expect(texts.indexOf(itemText(older[0]))).toBeLessThan(texts.indexOf(itemText(PASSPORT[0])));
    expect(texts).not.toContain(itemText(HIKING[0]));
  });

  it('stops at the token budget, markers included, to the token', async () => {
    const markers = counter.item(userMessage(RECALL_HEADER)) + counter.item(userMessage(RECALL_END));
    const passportTokens = PASSPORT.reduce((sum, item) => sum + counter.item(item), 0);
    const history = [...PASSPORT, ...HIKING, ...QUESTION];

    const fits = make({ maxRecallTokens: markers + passportTokens });
    await fits.addItems(history);
    expect(await viewText(fits)).toContain(itemText(PASSPORT[0]));

    const short = make({ maxRecallTokens: markers + passportTokens - 1 });
    await short.addItems(history);
    expect(await viewText(short)).toEqual(QUESTION.map(itemText));
  });

  it('skips a turn too long for what is left and recalls a shorter match after it', async () => {
    const long = turn(`Passport renewal notes: ${'the consulate wants forms, photos and fees. '.repeat(30)}`, 'Understood.');
    const markers = counter.item(userMessage(RECALL_HEADER)) + counter.item(userMessage(RECALL_END));
    const passportTokens = PASSPORT.reduce((sum, item) => sum + counter.item(item), 0);
    const s = make({ maxRecallTokens: markers + passportTokens + 5 });
    await s.addItems([...long, ...PASSPORT, ...QUESTION]);
    const texts = await viewText(s);
    expect(texts).toContain(itemText(PASSPORT[0]));
    expect(texts).not.toContain(itemText(long[0]));
  });

  it('recalls at most max_recalled_turns, the best first', async () => {
    const s = make({ maxRecalledTurns: 1 });
    const weaker = turn('Do I need a visa or just a passport for Oslo?', 'Just a passport.');
    await s.addItems([...weaker, ...PASSPORT, ...QUESTION]);
    const texts = await viewText(s);
    expect(texts).toContain(itemText(PASSPORT[0]));
    expect(texts).not.toContain(itemText(weaker[0]));
  });

  it('weights a rare word above a common one (BM25 idf)', async () => {
    const flights = [1, 2, 3].map((n) => turn(`Flight ${n} to Oslo was delayed.`, 'Sorry about the flight.'));
    const visa = turn('My visa reference is VR-889.', 'Visa noted.');
    const s = make({ maxRecalledTurns: 1 });
    await s.addItems([...flights.flat(), ...visa, ...turn('Is the visa fine for the flight?', 'Checking.')]);
    const texts = await viewText(s);
    expect(texts).toContain(itemText(visa[0]));
    for (const f of flights) expect(texts).not.toContain(itemText(f[0]));
  });

  it('breaks a tie by recency: the newer of two equal turns is recalled', async () => {
    const first = turn('Passport photo taken.', 'Good.');
    const second = turn('Passport photo taken.', 'Good.');
    const s = make({ maxRecalledTurns: 1 });
    await s.addItems([...first, ...second, ...QUESTION]);
    const view = await s.getItems();
    expect(view).toContain(second[0]);
    expect(view).not.toContain(first[0]);
  });

  it('recalls tool call/result pairs whole and never sends half of a pair cut across turns', async () => {
    const s = make();
    const lookup = toolTurn('Look up my passport record please.', 'c1', 'passport X1234567 valid', 'Found it.');
    const spanning: AgentInputItem = { type: 'function_call', callId: 'late', name: 'lookup', arguments: '{}' };
    const lateResult: AgentInputItem = { type: 'function_call_result', callId: 'late', name: 'lookup', status: 'completed', output: 'done' };
    await s.addItems([...lookup, userMessage('Check the hiking weather.'), spanning, ...QUESTION.slice(0, 1), lateResult, QUESTION[1]]);
    const view = await s.getItems();
    expect(view).toEqual(expect.arrayContaining(lookup));
    expect(pairsConsistent(view)).toBe(true);
    expect(view).not.toContain(lateResult);
  });

  it('is deterministic and leaves the stored history full', async () => {
    const items = [...PASSPORT, ...HIKING, ...RAMEN, ...QUESTION];
    const a = make();
    const b = make();
    await a.addItems(items);
    await b.addItems(items);
    expect(await a.getItems()).toEqual(await b.getItems());
    expect(await a.getItems()).toEqual(await a.getItems());
    expect(a.getHistory()).toEqual(items);
  });

  it('indexed turn by turn, gives the view of a strategy given the whole history at once, across pops', async () => {
    const rand = seededRandom(7);
    const words = ['passport', 'flight', 'hotel', 'visa', 'ramen', 'alps', 'budget', 'invoice', 'router', 'knee'];
    const pick = (): string => words[Math.floor(rand() * words.length)];
    const incremental = make({ keepLastTurns: 2, maxRecallTokens: 120 });
    const all: AgentInputItem[] = [];
    for (let n = 1; n <= 40; n++) {
      const items = n % 5 === 0 ? toolTurn(`${pick()} ${pick()}?`, `t${n}`, `${pick()} record`, pick()) : turn(`${pick()} and ${pick()}`, `${pick()} ok`);
      all.push(...items);
      await incremental.addItems(items);
      if (n % 13 === 0) {
        await incremental.popItem();
        all.pop();
      }
      const fresh = make({ keepLastTurns: 2, maxRecallTokens: 120 });
      await fresh.addItems([...all]);
      expect(await incremental.getItems()).toEqual(await fresh.getItems());
    }
  });

  it('counts and tokenises each history item once over a replay, however many views', async () => {
    const seen = new Map<object, number>();
    class CountingCounter extends TokenCounter {
      override item(item: AgentInputItem): number {
        seen.set(item as object, (seen.get(item as object) ?? 0) + 1);
        return super.item(item);
      }
    }
    const s = new RetrievalStrategy({ keepLastTurns: 3, maxRecallTokens: 300 }, { counter: new CountingCounter() });
    const history: AgentInputItem[] = [];
    for (let n = 1; n <= 200; n++) {
      const items = turn(`Turn ${n}: the passport and the flight ${n % 7}.`, `Reply ${n}.`);
      history.push(...items);
      await s.addItems(items);
      await s.getItems();
    }
    // Dropped items are counted once, when indexed; kept items never (the markers are counted per view).
    for (const item of history.slice(0, -6)) expect(seen.get(item as object)).toBe(1);
    for (const item of history.slice(-6)) expect(seen.get(item as object)).toBeUndefined();
  });

  it('is registered with validated options', () => {
    const def = STRATEGIES.get('retrieval');
    expect(def?.options.keep_last_n_turns).toMatchObject({ type: 'int', required: true, min: 1 });
    expect(def?.options.max_recall_tokens).toMatchObject({ type: 'int', required: true, min: 1 });
    const s = def!.create({ keep_last_n_turns: 2, max_recall_tokens: 500, max_recalled_turns: 3 }, ctx);
    expect(s).toBeInstanceOf(RetrievalStrategy);
    expect((s as RetrievalStrategy).settings).toEqual({ keepLastTurns: 2, maxRecallTokens: 500, maxRecalledTurns: 3 });
  });
});

describe('retrievalTerms', () => {
  it('drops stop words, stems, and splits compounds into their parts too', () => {
    expect(retrievalTerms("What's the status of db-orders-16a? Orders were delayed.")).toEqual([
      'statu',
      'db-orders-16a',
      'db',
      'order',
      '16a',
      'order',
      'delay',
    ]);
  });
});
