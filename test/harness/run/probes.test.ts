// `answerable` is set on every probe record from the context that was sent,
// before the model answers, so an errored answer or judge still has it.
import { describe, expect, it } from 'vitest';
import type { Model, ModelResult } from '../../../core/model.js';
import { TokenCounter } from '../../../core/tokens.js';
import type { Probe, Transcript } from '../../../core/types.js';
import { LlmAnswerJudge, OfflineAnswerJudge } from '../../../graders/answer-judge.js';
import type { Graders } from '../../../harness/run/grading.js';
import { answerProbe } from '../../../harness/run/probes.js';
import { replayTranscript } from '../../../harness/run/replay.js';
import type { MemoryStrategy } from '../../../strategies/base.js';
import { Everything, LastTurnOnly } from '../../helpers/strategies.js';
import type { StrategyDefinition } from '../../../strategies/registry.js';
import { contextRef, messageDigest } from '../../../core/contexts.js';

const def = (use: string, make: () => MemoryStrategy): StrategyDefinition => ({ use, doc: use, options: {}, create: make });

const probe = (over: Partial<Probe> & Pick<Probe, 'id'>): Probe => ({
  afterTurn: 2,
  question: 'Which order is it?',
  answer: 'A-17',
  mustInclude: [['A-17']],
  facts: ['order'],
  kind: 'recall',
  ...over,
});

const transcript: Transcript = {
  id: 'tiny',
  file: 'tiny.yaml',
  tags: [],
  turns: [
    { kind: 'message', user: 'My order is A-17.', assistant: 'Noted.', toolCalls: [] },
    { kind: 'message', user: 'Ship it to Oslo.', assistant: 'Done.', toolCalls: [] },
  ],
  facts: [
    { id: 'order', text: 'A-17', aliases: [], turn: 1, critical: true },
    { id: 'city', text: 'Oslo', aliases: [], turn: 2, critical: false },
  ],
  probes: [
    probe({ id: 'needs-order' }),
    probe({ id: 'needs-city', question: 'Where to?', answer: 'Oslo', mustInclude: [['Oslo']], facts: ['city'] }),
    probe({ id: 'no-facts', question: 'What is going on?', answer: 'a shipment', mustInclude: [], facts: [] }),
    probe({ id: 'never-said', question: 'What is my phone number?', answer: 'never given', mustInclude: [], facts: [], kind: 'abstention' }),
  ],
};

function model(reply: (question: string) => Partial<ModelResult>): Model {
  return {
    id: 'stub',
    params: {},
    async complete(request) {
      const last = request.input.at(-1);
      const question = last && 'content' in last && typeof last.content === 'string' ? last.content : '';
      return { output: '', usage: { inputTokens: 1, outputTokens: 1 }, cached: false, latencyMs: 1, ...reply(question) };
    },
  };
}

function graders(answerModel: Model, judgeModel?: Model): Graders {
  return {
    counter: new TokenCounter('gpt-4.1'),
    answerModel,
    answerJudge: judgeModel ? new LlmAnswerJudge(judgeModel) : new OfflineAnswerJudge(),
    makeSummarizer: () => {
      throw new Error('unused');
    },
    serverCompaction: () => {
      throw new Error('unused');
    },
    embedder: () => {
      throw new Error('unused');
    },
    gradeSummary: () => Promise.reject(new Error('unused')),
    counts: () => ({ calls: 0, cacheHits: 0, dedupHits: 0, errors: 0 }),
    ready: () => Promise.resolve(),
    onceModelCallBegins: () => () => undefined,
    fatal: () => undefined,
    stopCalls: () => undefined,
    model: answerModel.id,
    judge: judgeModel?.id ?? 'offline',
  };
}

async function records(strategy: () => MemoryStrategy, g: Graders, t: Transcript = transcript) {
  const replay = await replayTranscript({
    transcript: t,
    strategyId: 's',
    definition: def('s', strategy),
    options: {},
    counter: new TokenCounter('gpt-4.1'),
    makeSummarizer: () => {
      throw new Error('unused');
    },
  });
  const out = await Promise.all(replay.probes.map((context) => answerProbe({ transcript: t, strategy: 's', context, repeat: 1, keepContext: (c) => contextRef(c.map(messageDigest)) }, g)));
  return Object.fromEntries(out.map((r) => [r.probe, r]));
}

const echo = model(() => ({ output: "I don't know." }));

describe('answerProbe answerable', () => {
  it('is true when every named fact is in the context, false when one is missing', async () => {
    const kept = await records(() => new Everything(), graders(echo));
    expect(kept['needs-order'].answerable).toBe(true);
    const cut = await records(() => new LastTurnOnly(), graders(echo));
    expect(cut['needs-order']).toMatchObject({ factsMissing: ['order'], answerable: false });
    expect(cut['needs-city']).toMatchObject({ factsMissing: [], answerable: true });
  });

  it('is true for an abstention probe that names no facts, null (unknown) for any other probe that names none', async () => {
    const r = await records(() => new LastTurnOnly(), graders(echo));
    expect(r['never-said'].answerable).toBe(true);
    expect(r['no-facts'].answerable).toBeNull();
  });

  it('is known when the answer model errored, beside passed: false', async () => {
    const r = await records(() => new Everything(), graders(model(() => ({ error: 'HTTP 500 from provider' }))));
    expect(r['needs-order']).toMatchObject({ error: 'HTTP 500 from provider', errorStage: 'answer', passed: false, answerable: true });
    expect(r['no-facts']).toMatchObject({ errorStage: 'answer', answerable: null });
  });

  it('turns an answer model that throws into an errored answer of that probe, never a pass', async () => {
    const throwing: Model = {
      id: 'throws',
      params: {},
      complete: (request) => {
        const last = request.input.at(-1);
        if (last && 'content' in last && last.content === 'Where to?') throw new TypeError('reader bug');
        return echo.complete(request);
      },
    };
    const r = await records(() => new Everything(), graders(throwing));
    expect(r['needs-city']).toMatchObject({ error: 'throws threw: reader bug', errorStage: 'answer', passed: false, attribution: 'error', answerable: true });
    expect(r['needs-order'].error).toBeUndefined();
  });

  it('records a reply with nothing in it as an errored answer, not a wrong one', async () => {
    const r = await records(() => new Everything(), graders(model(() => ({ output: '  ' }))));
    expect(r['needs-order']).toMatchObject({ error: 'the model replied with nothing: no text and no tool call', errorStage: 'answer', passed: false, attribution: 'error' });
    expect(r['needs-order'].answer).toBeUndefined();
    expect(r['never-said']).toMatchObject({ errorStage: 'answer', passed: false });
  });

  it('is known when the judge errored', async () => {
    const r = await records(() => new LastTurnOnly(), graders(model(() => ({ output: 'A-17' })), model(() => ({ error: 'HTTP 429' }))));
    expect(r['needs-city']).toMatchObject({ errorStage: 'judge', passed: false, answerable: true });
    expect(r['needs-order']).toMatchObject({ errorStage: 'judge', answerable: false });
  });
});

// An imported probe often names no facts, only the dialogue its answer came from.
const imported: Transcript = {
  id: 'imported',
  file: 'imported.yaml',
  tags: ['locomo'],
  turns: [
    { kind: 'message', user: '[Session 1: 8 May, 2023]\nAnna: I adopted 3 cats.', assistant: 'Ben: Lovely!', toolCalls: [], at: '2023-05-08T13:56:00', meta: { dia_ids: ['D1:1', 'D1:2'] } },
    { kind: 'message', user: '[Session 3: 9 May, 2023]\nAnna: Off to Oslo.', assistant: 'Ben: Enjoy.', toolCalls: [], at: '2023-05-09T10:00:00', meta: { dia_ids: ['D3:1', 'D3:2'] } },
  ],
  facts: [],
  probes: [
    probe({ id: 'cats', afterTurn: 2, question: 'How many cats?', answer: '3', mustInclude: [['3']], facts: [], meta: { evidence: ['D1:1'] } }),
    probe({ id: 'trip', afterTurn: 2, question: 'Where is Anna going?', answer: 'Oslo', mustInclude: [['Oslo']], facts: [], meta: { evidence: ['D3:1'] } }),
    probe({ id: 'vague', afterTurn: 2, question: 'How is Anna?', answer: 'happy', mustInclude: [], facts: [] }),
  ],
};

describe('answerProbe on a probe that names no facts', () => {
  const wrong = model(() => ({ output: 'Bergen, 7 of them.' }));

  it('records the evidence turns and attributes a miss by where they stood', async () => {
    const cut = await records(() => new LastTurnOnly(), graders(wrong), imported);
    expect(cut.cats).toMatchObject({ evidenceTurns: [1], passed: false, attribution: 'trimmed' });
    expect(cut.trip).toMatchObject({ evidenceTurns: [2], passed: false, attribution: 'present-but-missed' });
    expect(cut.vague.evidenceTurns).toBeUndefined();
    expect(cut.vague.attribution).toBe('unknown');
    const kept = await records(() => new Everything(), graders(wrong), imported);
    expect(kept.cats).toMatchObject({ evidenceTurns: [1], attribution: 'present-but-missed' });
  });

  it('grades an answer copied from the scaffolding as no answer: exact false, F1 0, not passed', async () => {
    // The third session's header holds "3", the answer to "how many cats".
    const copied = model(() => ({ output: '[2023-05-09T10:00:00] [Session 3: 9 May, 2023]' }));
    const r = await records(() => new Everything(), graders(copied), imported);
    for (const id of ['cats', 'trip', 'vague']) expect(r[id], id).toMatchObject({ exact: false, f1: 0, passed: false });
    const real = await records(() => new Everything(), graders(model(() => ({ output: '[2023-05-08T13:56:00] Anna has 3 cats.' }))), imported);
    expect(real.cats).toMatchObject({ exact: true, passed: true });
  });
});

// Tool probes: the transcript's tools go with every request, an expected call is graded by rule,
// a call where none was expected fails without the judge, repeats and re-asks are counted.
describe('answerProbe with tools', () => {
  const tools = [{ name: 'get_order', description: 'Look up an order.', parameters: { type: 'object', properties: { id: { type: 'string' } } } }];
  const withTools: Transcript = {
    ...transcript,
    tools,
    turns: [
      { kind: 'message', user: 'My order is A-17.', assistant: 'Noted.', toolCalls: [{ name: 'get_order', arguments: { id: 'A-17' }, output: 'shipped to Oslo' }] },
      { kind: 'message', user: 'Thanks.', assistant: 'Welcome.', toolCalls: [] },
    ],
    probes: [
      probe({ id: 'lookup', kind: 'tool', question: 'Look the order up.', answer: 'get_order(id=A-17)', mustInclude: [], expectCall: { name: 'get_order', arguments: { id: { rule: 'normalised', value: 'A-17' } } } }),
      probe({ id: 'remember', kind: 'tool', question: 'Where did it ship?', answer: 'Oslo', mustInclude: [['Oslo']], facts: [], expectCall: null }),
      probe({ id: 'which', question: 'Which order is it?' }),
    ],
  };
  const byQuestion = (replies: Record<string, Partial<ModelResult>>) => model((question) => replies[question] ?? { output: '' });

  it('sends the tools, grades an expected call by rule and a no-call probe by the judge', async () => {
    const sent: unknown[] = [];
    const m: Model = {
      id: 'stub',
      params: {},
      async complete(request) {
        sent.push(request.tools);
        const q = (request.input.at(-1) as { content: string }).content;
        const replies: Record<string, Partial<ModelResult>> = {
          'Look the order up.': { toolCalls: [{ name: 'get_order', arguments: '{"id":"a-17"}' }] },
          'Where did it ship?': { output: 'It shipped to Oslo.' },
          'Which order is it?': { output: 'A-17' },
        };
        return { output: '', usage: { inputTokens: 1, outputTokens: 1 }, cached: false, latencyMs: 1, ...replies[q] };
      },
    };
    const r = await records(() => new Everything(), graders(m), withTools);
    expect(sent).toEqual([tools, tools, tools]);
    expect(r.lookup).toMatchObject({ passed: true, exact: true, toolCalls: [{ name: 'get_order', arguments: '{"id":"a-17"}' }], judge: { verdict: 'pass', model: 'tool-check' } });
    expect(r.lookup.tool).toMatchObject({ rightTool: true, argsMatched: 1, argsExpected: 1, exactCall: true });
    expect(r.lookup.repeatedCalls).toBeUndefined();
    expect(r.remember).toMatchObject({ passed: true, tool: { expected: null, rightTool: true }, judge: { model: 'offline' } });
    expect(r.which).toMatchObject({ passed: true });
    expect(r.which.tool).toBeUndefined();
  });

  it('a call where the answer was in the conversation fails as a repeated call; asking for what the user said is a re-ask', async () => {
    const m = byQuestion({
      'Where did it ship?': { toolCalls: [{ name: 'get_order', arguments: '{"id": "A-17"}' }] },
      'Which order is it?': { output: 'Could you provide your order number?' },
      'Look the order up.': { toolCalls: [{ name: 'get_customer', arguments: '{}' }] },
    });
    const r = await records(() => new Everything(), graders(m), withTools);
    expect(r.remember).toMatchObject({ passed: false, exact: false, repeatedCalls: 1, tool: { rightTool: false, extraCalls: 1 }, judge: { verdict: 'fail', model: 'tool-check' } });
    expect(r.which).toMatchObject({ passed: false, reask: true });
    expect(r.lookup).toMatchObject({ passed: false, tool: { rightTool: false, called: 'get_customer', argsMatched: 0 } });
  });

  it('an errored answer to a tool probe is an error, never graded as a pass, and keeps what the probe expected', async () => {
    const r = await records(() => new Everything(), graders(model(() => ({ error: 'HTTP 500' }))), withTools);
    expect(r.remember).toMatchObject({ passed: false, errorStage: 'answer', attribution: 'error' });
    // The expectation stays on the record (reports count its arguments as missed), every field a miss.
    expect(r.remember.tool).toMatchObject({ expected: null, called: null, rightTool: false, exactCall: false, argsExpected: 0 });
    expect(r.lookup.tool).toMatchObject({ expected: 'get_order', called: null, rightTool: false, exactCall: false, argsMatched: 0, argsExpected: 1 });
    expect(r.which.tool).toBeUndefined();
  });
});
