import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { replayTranscript } from '../../../harness/run/replay.js';
import { TokenCounter } from '../../../core/tokens.js';
import type { AgentInputItem, Transcript } from '../../../core/types.js';
import type { MemoryStrategy } from '../../../strategies/base.js';
import { Everything, LastTurnOnly } from '../../helpers/strategies.js';
import type { StrategyDefinition, StrategyOptions } from '../../../strategies/registry.js';
import { summarizing } from '../../../strategies/summarizing.js';
import { FactChanges, migrateTurns } from '../../../core/schema/run.js';
import { seededRandom } from '../../../core/random.js';
import { itemText, userMessage } from '../../../core/items.js';
import { factPresentIn } from '../../../core/text.js';
import type { Fact } from '../../../core/types.js';
import { fullHistory } from '../../../strategies/full-history.js';
import { slidingWindow } from '../../../strategies/sliding-window.js';
import { trimming } from '../../../strategies/trimming.js';
import { observationMasking } from '../../../strategies/observation-masking.js';
import { tokenBudget } from '../../../strategies/token-budget.js';

const def = (use: string, make: () => MemoryStrategy): StrategyDefinition => ({
  use,
  doc: use,
  options: {},
  create: make,
});

const transcript: Transcript = {
  id: 'tiny',
  file: 'tiny.yaml',
  tags: [],
  system: 'Be brief.',
  turns: [
    { kind: 'message', user: 'My order is A-17.', assistant: 'Noted.', toolCalls: [] },
    {
      kind: 'message',
      user: 'Ship it to Oslo.',
      toolCalls: [{ name: 'lookup', arguments: { id: 'A-17' }, output: 'status: packed' }],
      assistant: 'Done.',
    },
  ],
  facts: [
    { id: 'order', text: 'A-17', aliases: [], turn: 1, critical: true },
    { id: 'city', text: 'Oslo', aliases: [], turn: 2, critical: false },
  ],
  probes: [
    { id: 'which-order', afterTurn: 2, question: 'Which order?', answer: 'A-17', mustInclude: [['A-17']], facts: ['order'], kind: 'recall' },
  ],
};

const enc = get_encoding('o200k_base');
const tok = (s: string) => enc.encode_ordinary(s).length;
/** Per item: 3 framing tokens + role label + text, as the chat counting recipe. */
const item = (label: string, text: string) => 3 + tok(label) + tok(text);

function ctx() {
  return { counter: new TokenCounter('gpt-4.1'), makeSummarizer: () => { throw new Error('unused'); } };
}

describe('replay', () => {
  it('an empty summary summarizes no turn: every text would "include" it', async () => {
    const empty = { label: 'empty', summarize: async () => ({ userShadow: 'Summary?', summary: '', request: { system: '', user: '' }, usage: { inputTokens: 0, outputTokens: 0 }, durationMs: 0 }) };
    const three: Transcript = { ...transcript, turns: [...transcript.turns, { kind: 'message', user: 'And the invoice?', assistant: 'Sent.', toolCalls: [] }], probes: [{ ...transcript.probes[0], afterTurn: 3 }] };
    const res = await replayTranscript({ transcript: three, strategyId: 's', definition: summarizing, options: { context_limit: 2, keep_last_n_turns: 1 }, counter: new TokenCounter('gpt-4.1'), makeSummarizer: () => empty });
    expect(res.summaries.length).toBeGreaterThan(0);
    expect(res.probes[0].summarizedTurns).toEqual([]);
    expect(res.probes[0].summaryTexts).toEqual([]);
  });

  it('measures only what a model is sent: a reasoning item is neither counted nor read for facts', async () => {
    const withReasoning: Transcript = {
      ...transcript,
      turns: [
        {
          kind: 'items',
          items: [
            { role: 'user', content: 'Which warehouse ships my order?' },
            { type: 'reasoning', content: [{ type: 'input_text', text: 'The warehouse is Leeds-North.' }] },
            { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me check.' }] },
          ] as AgentInputItem[],
        },
      ],
      facts: [{ id: 'wh', text: 'Leeds-North', aliases: [], turn: 1, critical: false }],
      probes: [{ id: 'where', afterTurn: 1, question: 'Which warehouse?', answer: 'Leeds-North', mustInclude: [['Leeds-North']], facts: ['wh'], kind: 'recall' }],
    };
    const res = await replayTranscript({ transcript: withReasoning, strategyId: 'all', definition: def('all', () => new Everything()), options: {}, ...ctx() });
    const system = 3 + tok('system') + tok('Be brief.');
    expect(res.turns[0].contextTokens).toBe(3 + system + item('user', 'Which warehouse ships my order?') + item('assistant', 'Let me check.'));
    expect(res.turns[0].fullTokens).toBe(res.turns[0].contextTokens);
    expect(res.probes[0].factsMissing).toEqual(['wh']);
    expect(res.probes[0].items.some((i) => (i as { type?: string }).type === 'reasoning')).toBe(false);
  });

  it('counts tokens of instructions and items exactly, turn by turn', async () => {
    const res = await replayTranscript({ transcript, strategyId: 'all', definition: def('all', () => new Everything()), options: {}, ...ctx() });
    const system = 3 + tok('system') + tok('Be brief.');
    const turn1 = item('user', 'My order is A-17.') + item('assistant', 'Noted.');
    const turn2 =
      item('user', 'Ship it to Oslo.') +
      item('tool_call', 'lookup({"id":"A-17"})') +
      item('tool', 'status: packed') +
      item('assistant', 'Done.');
    expect(res.turns.map((t) => t.contextTokens)).toEqual([3 + system + turn1, 3 + system + turn1 + turn2]);
    expect(res.turns.map((t) => t.fullTokens)).toEqual(res.turns.map((t) => t.contextTokens));
    expect(res.turns.map((t) => t.items)).toEqual([2, 6]);
    expect(res.turns.map((t) => [t.factsPresentCount, t.factsMissingCount, t.factsLost, t.factsRegained])).toEqual([
      [1, 0, [], []],
      [2, 0, [], []],
    ]);
  });

  it('flags a critical fact the strategy dropped and records the probe context without adding it', async () => {
    const res = await replayTranscript({ transcript, strategyId: 'last', definition: def('last', () => new LastTurnOnly()), options: {}, ...ctx() });
    const t2 = res.turns[1];
    expect(t2.contextTokens).toBeLessThan(t2.fullTokens);
    expect([t2.factsPresentCount, t2.factsMissingCount]).toEqual([2, 0]); // A-17 is still in the tool call arguments
    const probe = res.probes[0];
    expect(probe.items).toHaveLength(4);
    expect(probe.cutSpans).toEqual([[1, 1]]);
    expect(probe.contextTokens).toBe(t2.contextTokens);
  });

  it('a summary is in the view when an item no turn added holds its text, a summary made after that item included', async () => {
    /**
     * Keeps one note, made at turn 1 and never rebuilt, saying "alpha beta", before the newest turn.
     * Turn n makes summary n over turn n's items: "alpha", then "beta" (which the old note already
     * holds), then "gamma" (which only a user message says).
     */
    const words = ['alpha', 'beta', 'gamma'];
    class Notes extends Everything {
      private readonly note = userMessage('Notes so far: alpha beta.');
      protected override view(): AgentInputItem[] {
        const h = this.getHistory();
        return [this.note, ...h.slice(-2)];
      }
      override async addItems(items: AgentInputItem[]): Promise<void> {
        const first = this.getHistory().length;
        await super.addItems(items);
        const summary = words[this.events.length];
        this.events.push({ firstItem: first, lastItem: first + items.length - 1, output: { userShadow: '', summary, request: { system: '', user: '' }, usage: { inputTokens: 0, outputTokens: 0 }, durationMs: 0 } });
      }
    }
    const turns = ['one', 'two', 'the word gamma'].map((user) => ({ kind: 'message' as const, user, assistant: 'ok', toolCalls: [] }));
    const t: Transcript = { ...transcript, turns, facts: [], probes: [1, 2, 3].map((n) => ({ ...transcript.probes[0], id: `p${n}`, afterTurn: n, facts: [] })) };
    const res = await replayTranscript({ transcript: t, strategyId: 'notes', definition: def('notes', () => new Notes()), options: {}, ...ctx() });
    expect(res.probes.map((p) => [p.summaryTexts, p.summarizedTurns])).toEqual([
      [['alpha'], [1]],
      [['alpha', 'beta'], [1, 2]],
      [['alpha', 'beta'], [1, 2]],
    ]);
  });

  it('records the turns a view cut as runs, however the view keeps them', async () => {
    /** Keeps the items of turns 4, 5 and 1 (four items a turn: user, call, result, assistant), in that order. */
    class SomeTurns extends Everything {
      protected override view(): AgentInputItem[] {
        const h = this.getHistory();
        return [...h.slice(12, 20), ...h.slice(0, 4)];
      }
    }
    const turns = Array.from({ length: 7 }, (_, i) => ({ kind: 'message' as const, user: `u${i + 1}`, assistant: `a${i + 1}`, toolCalls: [{ name: 'f', arguments: {}, output: `o${i + 1}` }] }));
    const seven: Transcript = { ...transcript, turns, facts: [], probes: [{ ...transcript.probes[0], afterTurn: 7, facts: [] }, { ...transcript.probes[0], id: 'p3', afterTurn: 3, facts: [] }] };
    const res = await replayTranscript({ transcript: seven, strategyId: 'some', definition: def('some', () => new SomeTurns()), options: {}, ...ctx() });
    expect(res.probes.map((p) => p.cutSpans)).toEqual([[[2, 3]], [[2, 3], [6, 7]]]);
  });

  it('reports critical drops when nothing in the view states the fact', async () => {
    const t: Transcript = { ...transcript, turns: [transcript.turns[0], { kind: 'message', user: 'Ship it to Oslo.', toolCalls: [] }] };
    const res = await replayTranscript({ transcript: t, strategyId: 'last', definition: def('last', () => new LastTurnOnly()), options: {}, ...ctx() });
    expect(res.turns[1]).toMatchObject({ factsLost: ['order'], criticalLost: ['order'], criticalMissingCount: 1, factsMissingCount: 1, factsPresentCount: 1 });
    expect(res.probes[0].factsMissing).toEqual(['order']);
  });

  it('records what changed at each turn: a fact lost once is not lost again, and one back in view is regained', async () => {
    const t: Transcript = {
      ...transcript,
      turns: [
        transcript.turns[0],
        { kind: 'message', user: 'Ship it to Oslo.', toolCalls: [] },
        { kind: 'message', user: 'Thanks.', toolCalls: [] },
        { kind: 'message', user: 'Is A-17 on its way?', toolCalls: [] },
      ],
    };
    const res = await replayTranscript({ transcript: t, strategyId: 'last', definition: def('last', () => new LastTurnOnly()), options: {}, ...ctx() });
    expect(res.turns.map((r) => [r.factsLost, r.factsRegained, r.factsMissingCount, r.criticalMissingCount])).toEqual([
      [[], [], 0, 0],
      [['order'], [], 1, 1],
      [['city'], [], 2, 1],
      [[], ['order'], 1, 0],
    ]);
  });
});

describe('migrateTurns', () => {
  it('turns records that list every fact at every turn into counts and changes per strategy × transcript', () => {
    const listed = (strategy: string, turn: number, present: string[], missing: string[], critical: string[] = []) => ({
      strategy,
      transcript: 't',
      turn,
      fullTokens: 1,
      contextTokens: 1,
      items: 1,
      factsPresent: present,
      factsMissing: missing,
      criticalDropped: critical,
      summaries: 0,
    });
    const out = migrateTurns([
      listed('a', 1, ['x'], []),
      listed('b', 1, [], ['x'], ['x']),
      listed('a', 2, ['y'], ['x'], ['x']),
      listed('b', 2, ['x'], ['y']),
      listed('a', 3, ['x'], ['y']),
    ]);
    expect(out.map((r) => [r.strategy, r.factsPresentCount, r.factsMissingCount, r.criticalMissingCount, r.factsLost, r.factsRegained, r.criticalLost])).toEqual([
      ['a', 1, 0, 0, [], [], []],
      ['b', 0, 1, 1, ['x'], [], ['x']],
      ['a', 1, 1, 1, ['x'], [], ['x']],
      ['b', 1, 1, 0, ['y'], ['x'], []],
      ['a', 1, 1, 0, ['y'], ['x'], []],
    ]);
  });
});

describe('facts turn by turn', () => {
  /**
   * A conversation whose facts come and go: codes stated at random turns (some
   * critical, some replacing an earlier one), tool results that carry some, and
   * a probe after every turn naming every fact, to read presence from the view itself.
   */
  function churn(seed: number): Transcript {
    const random = seededRandom(seed);
    const facts: Fact[] = [];
    const turns: Transcript['turns'] = [];
    for (let n = 1; n <= 40; n++) {
      const said: string[] = [];
      if (random() < 0.5) {
        const id = `f${facts.length + 1}`;
        const replaces = facts.length > 0 && random() < 0.3 ? facts[Math.floor(random() * facts.length)] : undefined;
        facts.push({ id, text: `CODE-${100 + facts.length}`, aliases: [], turn: n, critical: random() < 0.3 });
        if (replaces && replaces.supersededBy === undefined) replaces.supersededBy = id;
        said.push(`My code is CODE-${99 + facts.length}.`);
      }
      // An earlier fact said again now and then: it can come back into a short view.
      if (facts.length > 0 && random() < 0.3) said.push(`Recall ${facts[Math.floor(random() * facts.length)].text}.`);
      const withTool = random() < 0.4 && facts.length > 0;
      const output = withTool ? `found ${facts[Math.floor(random() * facts.length)].text}` : '';
      turns.push({ kind: 'message', user: `Turn ${n}. ${said.join(' ')}`, assistant: 'Noted.', toolCalls: withTool ? [{ name: 'lookup', arguments: { n }, output }] : [] });
    }
    const ids = facts.map((f) => f.id);
    const probes = turns.map((_, i) => ({ id: `p${i + 1}`, afterTurn: i + 1, question: 'Which codes?', answer: '', mustInclude: [], facts: ids.filter((id) => facts.find((f) => f.id === id)!.turn <= i + 1), kind: 'recall' as const }));
    return { id: `churn-${seed}`, file: 'churn.yaml', tags: [], system: 'Keep CODE-101 in mind.', turns, facts, probes };
  }

  /** The fact fields of each turn from scratch: every due fact's standing read from the probe's view, changes by core's FactChanges. */
  function expected(t: Transcript, probes: { items: AgentInputItem[] }[]): ReturnType<FactChanges['turn']>[] {
    const changes = new FactChanges();
    return probes.map((probe, i) => {
      const n = i + 1;
      const stated = new Set(t.facts.filter((f) => f.turn <= n).map((f) => f.id));
      const due = t.facts.filter((f) => stated.has(f.id) && !(f.supersededBy && stated.has(f.supersededBy)));
      const texts = [t.system ?? '', ...probe.items.map(itemText)];
      const present = due.filter((f) => texts.some((text) => factPresentIn(text, f)));
      const missing = due.filter((f) => !present.includes(f));
      return changes.turn({ present: present.map((f) => f.id), missing: missing.map((f) => f.id), criticalMissing: missing.filter((f) => f.critical).map((f) => f.id) });
    });
  }

  const strategies: [string, StrategyDefinition, StrategyOptions][] = [
    ['full', fullHistory, {}],
    ['window-2', slidingWindow, { max_messages: 2 }],
    ['trim-1', trimming, { max_turns: 1 }],
    ['mask-0', observationMasking, { keep_last: 0 }],
    ['budget-80', tokenBudget, { max_tokens: 80, compact_at: 1, compact_to: 1 }],
  ];

  it.each(strategies)('%s: counts, losses and regains equal those read from each turn\'s view', async (id, definition, options) => {
    for (const seed of [1, 2, 3]) {
      const t = churn(seed);
      const res = await replayTranscript({ transcript: t, strategyId: id, definition, options, ...ctx() });
      const fields = res.turns.map((r) => ({
        factsPresentCount: r.factsPresentCount,
        factsMissingCount: r.factsMissingCount,
        criticalMissingCount: r.criticalMissingCount,
        factsOpaqueCount: r.factsOpaqueCount,
        factsLost: r.factsLost,
        factsRegained: r.factsRegained,
        criticalLost: r.criticalLost,
      }));
      expect(fields, `seed ${seed}`).toEqual(expected(t, res.probes));
      // The probes' own split agrees with the view too.
      res.probes.forEach((p, i) => {
        const texts = [t.system ?? '', ...p.items.map(itemText)];
        const named = t.facts.filter((f) => p.probe.facts.includes(f.id));
        expect(p.factsPresent, `seed ${seed}, turn ${i + 1}`).toEqual(named.filter((f) => texts.some((x) => factPresentIn(x, f))).map((f) => f.id));
      });
    }
  });
});
