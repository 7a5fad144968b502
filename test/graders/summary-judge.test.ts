import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  COVERAGE_VERDICT_FORMAT,
  coverageQuestions,
  createSummaryJudge,
  gradeSummary,
  LlmSummaryJudge,
  OfflineSummaryJudge,
  SUMMARY_VERDICT_FORMAT,
} from '../../graders/summary-judge.js';
import { OpenAIModel } from '../../harness/models/openai.js';
import { median } from '../../core/stats.js';
import type { MadeSummary, Transcript } from '../../core/types.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';

const cookbookPrompt = readFileSync(new URL('../../strategies/prompts/cookbook-summary.md', import.meta.url), 'utf8');

const transcript: Transcript = {
  id: 'router',
  tags: [],
  file: 'router.yaml',
  probes: [],
  turns: [
    { kind: 'message', user: "Router won't connect; I'm on Windows 10.", assistant: 'Firmware?', toolCalls: [] },
    { kind: 'message', user: 'Firmware v1.0.3, serial RX-88812.', assistant: 'Reset it.', toolCalls: [] },
    { kind: 'message', user: 'Updated to v1.0.4; error 42 now.', assistant: 'Noted.', toolCalls: [] },
  ],
  facts: [
    { id: 'os', text: 'Windows 10', aliases: ['Win10'], turn: 1, critical: true },
    { id: 'serial', text: 'RX-88812', aliases: [], turn: 2, critical: false },
    { id: 'fw-old', text: 'v1.0.3', aliases: ['1.0.3'], turn: 2, critical: false, supersededBy: 'fw-new' },
    { id: 'fw-new', text: 'v1.0.4', aliases: ['1.0.4'], turn: 3, critical: false },
    { id: 'error', text: 'error 42', aliases: [], turn: 3, critical: false },
  ],
};

const summary: MadeSummary = {
  strategy: 's',
  transcript: 'router',
  turn: 4,
  coveredTurns: [1, 3],
  index: 1,
  summarizer: 'hand',
  request: { system: cookbookPrompt, user: 'USER: Router won\'t connect; I\'m on Windows 10.\nUSER: Firmware v1.0.3, serial RX-88812.' },
  text: '• Product & Environment:\n  - Windows 10, firmware v1.0.4\n• Reported Issue:\n  - error 42; serial RX-99999',
  usage: { inputTokens: 0, outputTokens: 0 },
  durationMs: 0,
};

type Verdict = {
  coverage: { id: string; answer: 'yes' | 'no' }[];
  claims: { claim: string; verdict: 'supported' | 'unsupported' | 'contradicted' }[];
  temporal: { verdict: 'yes' | 'no'; reason: string };
  format: { verdict: 'yes' | 'no'; reason: string };
  overall: number;
  reasons: { faithfulness: string; overall: string };
};

function verdict(over: Partial<Verdict> = {}): Verdict {
  return {
    coverage: [
      { id: 'os', answer: 'yes' },
      { id: 'serial', answer: 'no' },
      { id: 'fw-new', answer: 'yes' },
      { id: 'error', answer: 'yes' },
    ],
    claims: [
      { claim: 'Windows 10', verdict: 'supported' },
      { claim: 'firmware v1.0.4', verdict: 'supported' },
      { claim: 'error 42', verdict: 'supported' },
      { claim: 'router issue', verdict: 'supported' },
      { claim: 'serial RX-99999', verdict: 'unsupported' },
    ],
    temporal: { verdict: 'yes', reason: 'latest firmware' },
    format: { verdict: 'no', reason: 'headings missing' },
    overall: 3,
    reasons: { faithfulness: 'one invented serial', overall: 'usable' },
    ...over,
  };
}

describe('coverage questions', () => {
  it('are fixed per due fact (superseded fact replaced by its update)', () => {
    expect(coverageQuestions({ transcript, summary })).toEqual([
      { factId: 'os', question: 'Does the summary state "Windows 10" (also written "Win10")?' },
      { factId: 'serial', question: 'Does the summary state "RX-88812"?' },
      { factId: 'fw-new', question: 'Does the summary state "v1.0.4" (also written "1.0.4") as the current value?' },
      { factId: 'error', question: 'Does the summary state "error 42"?' },
    ]);
  });

  it('read as questions about a value, never as "state that <value>"', () => {
    for (const q of coverageQuestions({ transcript, summary })) {
      expect(q.question).toMatch(/^Does the summary state "[^"]+"/);
      expect(q.question).not.toMatch(/state that/);
    }
  });
});

describe('LlmSummaryJudge against a local server', () => {
  let server: FakeServer;
  let model: OpenAIModel;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    model = new OpenAIModel({ name: 'judge', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 });
  });
  const reply = (v: unknown) => ({ json: responsesBody(typeof v === 'string' ? v : JSON.stringify(v)) });
  const formatOf = (body: Record<string, unknown>): string => (body.text as { format: { name: string } }).format.name;
  /** Answers the coverage call with the coverage part of `v` and the other call with the rest. */
  const split = (v: Verdict) => (req: { body: Record<string, unknown> }) => {
    const { coverage, ...rest } = v;
    return reply(formatOf(req.body) === 'coverage_verdict' ? { coverage } : rest);
  };
  const inputOf = (body: Record<string, unknown>): string => JSON.stringify(body.input);

  it('scores min(coverage, alignment) and keeps reasons and invented claims', async () => {
    server.setHandler(split(verdict()));
    const j = await new LlmSummaryJudge(model, { wordLimit: 200 }).grade({ transcript, summary });
    expect(j).toEqual({
      model: 'openai:judge',
      coverage: 0.75,
      faithfulness: 0.8,
      temporal: 1,
      format: 0,
      overall: 3,
      score: 0.75,
      invented: ['unsupported: serial RX-99999'],
      reasons: {
        coverage: '3/4 coverage questions answered "yes" from the summary alone (not covered: serial)',
        faithfulness: 'one invented serial',
        temporal: 'latest firmware',
        format: 'headings missing',
        overall: 'usable',
      },
    });
    expect(server.requests.map((r) => formatOf(r.body))).toEqual(['coverage_verdict', 'summary_verdict']);
    const body = server.requests[1].body;
    expect(body.temperature).toBe(0);
    expect((body.text as { format: { name: string; schema: unknown } }).format).toMatchObject({
      type: 'json_schema',
      name: 'summary_verdict',
      schema: SUMMARY_VERDICT_FORMAT.schema,
    });
    const prompt = inputOf(body);
    expect(prompt).toContain('REQUIRED HEADINGS: Product & Environment | Reported Issue');
    expect(prompt).toContain('WORD LIMIT: 200');
    expect(prompt).not.toContain('RX-88812?');
  });

  it('asks the coverage questions against the summary alone, never with the source in view', async () => {
    server.setHandler(split(verdict()));
    await new LlmSummaryJudge(model, { wordLimit: 200 }).grade({ transcript, summary });
    const coverage = server.requests[0].body;
    expect((coverage.text as { format: { schema: unknown } }).format.schema).toEqual(COVERAGE_VERDICT_FORMAT.schema);
    const prompt = inputOf(coverage);
    expect(prompt).toContain('[serial] Does the summary state \\"RX-88812\\"?');
    expect(prompt).toContain('error 42; serial RX-99999');
    // the source turns are not in the coverage call, neither as the request's user text nor as turns
    expect(prompt).not.toContain("Router won't connect");
    expect(prompt).not.toContain('SOURCE');
    expect(JSON.stringify(coverage)).not.toContain('Firmware v1.0.3, serial RX-88812');
  });

  it('gives a summary without claims faithfulness 0, not 1', async () => {
    server.setHandler(split(verdict({ claims: [] })));
    const j = await new LlmSummaryJudge(model, { wordLimit: 200 }).grade({ transcript, summary });
    expect(j.faithfulness).toBe(0);
    expect(j.score).toBe(0);
  });

  it('makes no coverage call when no fact is due', async () => {
    server.setHandler(split(verdict()));
    const j = await new LlmSummaryJudge(model, { wordLimit: 200 }).grade({ transcript: { ...transcript, facts: [] }, summary });
    expect(server.requests.map((r) => formatOf(r.body))).toEqual(['summary_verdict']);
    expect(j.coverage).toBe(1);
  });

  it('takes the majority for yes/no and the median for numbers over samples', async () => {
    const replies = [
      verdict({ overall: 2, temporal: { verdict: 'no', reason: 'a' } }),
      verdict({ overall: 4, coverage: verdict().coverage.map((c) => ({ ...c, answer: 'yes' as const })) }),
      verdict({ overall: 5, claims: verdict().claims.slice(0, 4) }),
    ];
    // two calls per sample: coverage, then the rest
    server.setHandler((req, i) => split(replies[Math.floor(i / 2)])(req));
    const j = await new LlmSummaryJudge(model, { wordLimit: 200, samples: 3 }).grade({ transcript, summary });
    expect(server.requests).toHaveLength(6);
    expect(j.coverage).toBe(0.75); // serial: yes in 1 of 3 samples
    expect(j.faithfulness).toBe(0.8); // median of 0.8, 0.8, 1
    expect(j.temporal).toBe(1); // yes in 2 of 3
    expect(j.overall).toBe(4);
    expect(j.score).toBe(0.75);
    expect(median([1, 4])).toBe(2.5);
  });

  it.each([
    ['invalid JSON', () => reply('The summary looks fine.')],
    ['an out-of-range overall', split(verdict({ overall: 7 }))],
    ['a skipped coverage question', split(verdict({ coverage: verdict().coverage.slice(1) }))],
  ])('turns %s into an error with no scores (NaN, never a 0 that reads as a verdict)', async (_l, handler) => {
    server.setHandler(handler);
    const j = await new LlmSummaryJudge(model, { wordLimit: 200 }).grade({ transcript, summary });
    expect(j.error).toBeTruthy();
    expect([j.coverage, j.faithfulness, j.temporal, j.format, j.overall, j.score].every(Number.isNaN)).toBe(true);
  });

  it('fails the judgement when any sample fails (HTTP 500)', async () => {
    server.setHandler((req, i) => (i === 3 ? { json: { error: { message: 'down' } }, status: 500 } : split(verdict())(req)));
    const j = await new LlmSummaryJudge(model, { wordLimit: 200, samples: 3 }).grade({ transcript, summary });
    expect(j.error).toMatch(/judge call failed/);
    expect(j.score).toBeNaN();
  });

  it('gradeSummary runs checks, the judge and drift', async () => {
    server.setHandler(split(verdict()));
    const previous = { ...summary, index: 1, text: 'Windows 10, serial RX-88812, firmware v1.0.3' };
    const g = await gradeSummary({ transcript, summary: { ...summary, index: 2 }, previous }, { wordLimit: 200 }, createSummaryJudge('openai:judge', { wordLimit: 200 }, model));
    expect(g.checks.unsupported).toEqual(['RX-99999']);
    expect(g.judge?.score).toBe(0.75);
    expect(g.drift).toEqual({ lost: ['serial'], changed: ['fw-old→fw-new'], reverted: [] });
  });
});

describe('OfflineSummaryJudge (a rule over the checks)', () => {
  it('derives every field from the deterministic checks', async () => {
    const j = await new OfflineSummaryJudge({ wordLimit: 200 }).grade({ transcript, summary });
    // due: os, serial, fw-new, error → serial missing → 3/4
    expect(j.coverage).toBe(0.75);
    // identifiers: 10, v1.0.4, 42, RX-99999 → 1 of 4 unsupported
    expect(j.faithfulness).toBe(0.75);
    expect(j.temporal).toBe(1);
    expect(j.format).toBe(0); // six cookbook headings missing
    expect(j.overall).toBe(3); // 1 + round(4 × 0.75) − 1 for the format failure
    expect(j.score).toBe(0.75);
    expect(j.invented).toEqual(['RX-99999']);
    expect(j.model).toBe('offline');
    // No reasons: the rule is the run's protocol, the values are the checks' (stored beside the judgement).
    expect(j.reasons).toEqual({});
    expect(createSummaryJudge('offline', { wordLimit: 200 })).toBeInstanceOf(OfflineSummaryJudge);
  });
});
