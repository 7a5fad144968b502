// Hand-built RunResults for report tests. Every number here is chosen so the
// expected aggregates can be worked out on paper (see test/reports-aggregate.test.ts).
import type { Attribution, ProbeKind, ProbeRecord, RunResult, SummaryRecord, TurnRecord } from '../../core/types.js';
import { migrateTurns, runResultSchema } from '../../core/schema/run.js';

/** `error` is a failed answer call; `judge-error` an answer the judge failed to grade. */
export type Outcome = 'pass' | 'fail' | 'error' | 'judge-error';

interface TurnRow {
  full: number;
  context: number;
  present: string[];
  missing: string[];
  critical?: string[];
  summaries?: number;
}

/** Rows list every present and missing fact, as runs once recorded them; migrateTurns makes them counts and changes. */
function turns(strategy: string, transcript: string, rows: TurnRow[]): TurnRecord[] {
  return migrateTurns(rows.map((r, i) => ({
    strategy,
    transcript,
    turn: i + 1,
    fullTokens: r.full,
    contextTokens: r.context,
    items: (i + 1) * 2,
    factsPresent: r.present,
    factsMissing: r.missing,
    criticalDropped: r.critical ?? [],
    summaries: r.summaries ?? 0,
  })));
}

export const PROBES: { transcript: string; probe: string; kind: ProbeKind; afterTurn: number; question: string; reference: string; facts: string[] }[] = [
  { transcript: 't1', probe: 'p1', kind: 'recall', afterTurn: 4, question: 'What is the order number?', reference: 'A-1042', facts: ['f1'] },
  { transcript: 't1', probe: 'p2', kind: 'update', afterTurn: 4, question: 'Which address is current?', reference: '12 Elm St', facts: ['f2'] },
  { transcript: 't1', probe: 'p3', kind: 'temporal', afterTurn: 4, question: 'When was the refund issued?', reference: 'Tuesday', facts: ['f3'] },
  { transcript: 't2', probe: 'q1', kind: 'multi-hop', afterTurn: 2, question: 'Which laptop has the larger battery?', reference: 'the X13', facts: ['g1', 'g2'] },
  { transcript: 't2', probe: 'q2', kind: 'abstention', afterTurn: 2, question: 'What is the warranty length?', reference: 'unknown', facts: [] },
];

/** Outcomes per strategy in probe order p1r1, p1r2, p2r1, p2r2, p3r1, p3r2, q1r1, q1r2, q2r1, q2r2. */
export const OUTCOMES: Record<string, Outcome[]> = {
  full: ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'fail'],
  'trim-2': ['fail', 'fail', 'pass', 'pass', 'pass', 'error', 'pass', 'pass', 'pass', 'pass'],
  summ: ['pass', 'pass', 'fail', 'pass', 'pass', 'pass', 'fail', 'fail', 'pass', 'pass'],
};

/** Latency in ms per record, same order; the second record of each strategy is a cache hit. */
export const LATENCIES: Record<string, number[]> = {
  full: [100, 1, 300, 400, 500, 600, 700, 800, 900, 1000],
  'trim-2': [50, 1, 150, 200, 250, 300, 350, 400, 450, 500],
  summ: [1000, 1, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900],
};

const ATTRIBUTION: Record<string, Attribution> = {
  'full/q2': 'abstain-fail',
  'trim-2/p1': 'trimmed',
  'summ/p2': 'lost-in-summary',
  'summ/q1': 'present-but-missed',
};

const CONTEXT_AT: Record<string, Record<string, number>> = {
  full: { t1: 400, t2: 150 },
  'trim-2': { t1: 200, t2: 150 },
  summ: { t1: 160, t2: 150 },
};

function probeRecord(strategy: string, index: number, outcome: Outcome, model: string, transcriptText: Record<string, string>): ProbeRecord {
  const spec = PROBES[Math.floor(index / 2)];
  const repeat = (index % 2) + 1;
  const contextTokens = CONTEXT_AT[strategy][spec.transcript];
  // A failure outside `summ` is a fact the strategy dropped; summ's failures happen with the facts in view.
  const lost = outcome === 'fail' && strategy !== 'summ';
  const base: ProbeRecord = {
    strategy,
    transcript: spec.transcript,
    probe: spec.probe,
    kind: spec.kind,
    afterTurn: spec.afterTurn,
    repeat,
    question: spec.question,
    reference: spec.reference,
    contextTokens,
    contextItems: 6,
    factsNeeded: spec.facts,
    factsPresent: lost ? [] : spec.facts,
    factsMissing: lost ? spec.facts : [],
    // Every probe names facts but q2, an abstention probe, which needs none: answerable exactly when nothing was lost.
    answerable: !lost || spec.facts.length === 0,
    model,
    latencyMs: LATENCIES[strategy][index],
    cached: index === 1,
    context: [
      { role: 'system', text: 'You are a support agent.' },
      { role: 'user', text: transcriptText[spec.transcript] ?? `Turn text of ${spec.transcript}` },
    ],
  };
  if (outcome === 'error') {
    return { ...base, error: 'HTTP 500 from provider after 3 retries', attribution: 'error' };
  }
  if (outcome === 'judge-error') {
    // As harness/probes.ts writes it: an answer, a judge verdict of `error`, passed false.
    return {
      ...base,
      answer: spec.reference,
      judge: { verdict: 'error', reason: 'judge returned no JSON', model: 'openai:judge' },
      passed: false,
      error: 'judge: judge returned no JSON',
      errorStage: 'judge',
      attribution: 'error',
      usage: { inputTokens: contextTokens + 10, outputTokens: 5 },
      cost: 0.001,
    };
  }
  const passed = outcome === 'pass';
  return {
    ...base,
    answer: passed ? spec.reference : 'I am not sure, maybe "B-7"?',
    exact: passed,
    f1: passed ? 1 : 0.25,
    judge: { verdict: passed ? 'pass' : 'fail', reason: passed ? 'matches the reference' : 'does not give the reference', model: 'offline' },
    passed,
    attribution: passed ? undefined : ATTRIBUTION[`${strategy}/${spec.probe}`],
    usage: { inputTokens: contextTokens + 10, outputTokens: 5 },
    cost: 0.001,
  };
}

function summary(partial: Partial<SummaryRecord> & Pick<SummaryRecord, 'transcript' | 'turn' | 'index' | 'coveredTurns'>): SummaryRecord {
  return {
    strategy: 'summ',
    summarizer: 'offline',
    promptPath: 'prompts/support-summary.md',
    promptHash: 'sha256:abc123',
    request: { system: 'Summarise the conversation.', user: 'turns...' },
    text: 'Order A-1042; refund issued Tuesday.',
    usage: { inputTokens: 300, outputTokens: 40 },
    durationMs: 12,
    ...partial,
  };
}

function summaries(): SummaryRecord[] {
  return [
    summary({
      transcript: 't1',
      turn: 3,
      index: 1,
      coveredTurns: [1, 2],
      grades: {
        checks: { factCoverage: 0.5, factsKept: ['f1'], factsMissing: ['f2'], unsupported: ['X-99'], words: 40, wordLimit: 300, overLimit: false, headingsMissing: [], staleFacts: [] },
        judge: { model: 'offline', coverage: 0.8, faithfulness: 1, temporal: 1, format: 1, overall: 4, score: 0.8, invented: [], reasons: { coverage: 'most facts kept' } },
      },
    }),
    summary({
      transcript: 't1',
      turn: 4,
      index: 2,
      coveredTurns: [1, 3],
      usage: { inputTokens: 200, outputTokens: 60 },
      grades: {
        checks: { factCoverage: 1, factsKept: ['f1', 'f3'], factsMissing: [], unsupported: [], words: 50, wordLimit: 300, overLimit: false, headingsMissing: [], staleFacts: [] },
        judge: { model: 'offline', coverage: 0.5, faithfulness: 0.6, temporal: 1, format: 1, overall: 2, score: 0.5, invented: ['B-7'], reasons: { faithfulness: 'invents B-7' } },
        drift: { lost: ['f2'], changed: [], reverted: [] },
      },
    }),
    summary({
      transcript: 't2',
      turn: 2,
      index: 1,
      coveredTurns: [1, 1],
      text: '',
      usage: { inputTokens: 100, outputTokens: 0 },
      error: 'summarizer timed out',
    }),
  ];
}

export interface SampleOptions {
  model?: string;
  runId?: string;
  /** Overrides outcomes per strategy (same order as OUTCOMES). */
  outcomes?: Record<string, Outcome[]>;
  /** Text placed in the probe contexts and summaries, per transcript (for escaping tests). */
  transcriptText?: Record<string, string>;
  status?: RunResult['info']['status'];
}

export function sampleRun(options: SampleOptions = {}): RunResult {
  const model = options.model ?? 'openai:gpt-4.1-mini';
  const outcomes = { ...OUTCOMES, ...options.outcomes };
  const probes: ProbeRecord[] = [];
  for (const strategy of ['full', 'trim-2', 'summ']) {
    for (let i = 0; i < 10; i++) probes.push(probeRecord(strategy, i, outcomes[strategy][i], model, options.transcriptText ?? {}));
  }
  const sums = summaries();
  if (options.transcriptText?.t1) sums[0].text = options.transcriptText.t1;
  return {
    info: {
      runId: options.runId ?? '20260101T000000Z-abc123',
      status: options.status ?? 'complete',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:05:00.000Z',
      memevalVersion: '0.1.0',
      node: 'v20.0.0',
      packages: { '@openai/agents': '0.20.0' },
      model,
      judge: 'offline',
      repeat: 2,
      baseline: 'full',
      configFile: 'memeval.yaml',
      config: { concurrency: 4 },
      strategies: [
        { id: 'full', use: 'full-history', options: {} },
        { id: 'trim-2', use: 'trimming', options: { max_turns: 2 } },
        { id: 'summ', use: 'summarizing', options: { context_limit: 3, keep_last_n_turns: 1 } },
      ],
      transcripts: [
        { id: 't1', file: 'datasets/t1.yaml', title: 'Refund for order', tags: ['support'], turns: 4, probes: 3 },
        { id: 't2', file: 'datasets/t2.yaml', title: 'Laptop comparison', tags: ['shopping'], turns: 2, probes: 2 },
      ],
    },
    turns: [
      ...turns('full', 't1', [
        { full: 100, context: 100, present: ['f1'], missing: [] },
        { full: 200, context: 200, present: ['f1', 'f2'], missing: [] },
        { full: 300, context: 300, present: ['f1', 'f2', 'f3'], missing: [] },
        { full: 400, context: 400, present: ['f1', 'f2', 'f3', 'f4'], missing: [] },
      ]),
      ...turns('full', 't2', [
        { full: 50, context: 50, present: ['g1'], missing: [] },
        { full: 150, context: 150, present: ['g1', 'g2'], missing: [] },
      ]),
      ...turns('trim-2', 't1', [
        { full: 100, context: 100, present: ['f1'], missing: [] },
        { full: 200, context: 200, present: ['f1', 'f2'], missing: [] },
        { full: 300, context: 200, present: ['f2', 'f3'], missing: ['f1'], critical: ['f1'] },
        { full: 400, context: 200, present: ['f3', 'f4'], missing: ['f1', 'f2'], critical: ['f1'] },
      ]),
      ...turns('trim-2', 't2', [
        { full: 50, context: 50, present: ['g1'], missing: [] },
        { full: 150, context: 150, present: ['g1', 'g2'], missing: [] },
      ]),
      ...turns('summ', 't1', [
        { full: 100, context: 100, present: ['f1'], missing: [] },
        { full: 200, context: 200, present: ['f1', 'f2'], missing: [] },
        { full: 300, context: 150, present: ['f1', 'f3'], missing: ['f2'], summaries: 1 },
        { full: 400, context: 160, present: ['f1', 'f3', 'f4'], missing: ['f2'], summaries: 1 },
      ]),
      ...turns('summ', 't2', [
        { full: 50, context: 50, present: ['g1'], missing: [] },
        { full: 150, context: 150, present: ['g1', 'g2'], missing: [], summaries: 1 },
      ]),
    ],
    probes,
    summaries: sums,
  };
}

/**
 * A larger, plainer run for significance tests: every strategy answers
 * `probesPer` probes in each of `transcripts` transcripts once; `passes`
 * decides each outcome (return 'error' for an errored record).
 */
export function bulkRun(options: {
  runId: string;
  strategies: string[];
  transcripts: number;
  probesPer: number;
  passes: (strategy: string, transcript: number, probe: number) => boolean | 'error';
  model?: string;
  judge?: string;
  summaryOverall?: (strategy: string, transcript: number) => number | undefined;
}): RunResult {
  const base = sampleRun({ runId: options.runId, model: options.model });
  const turnsOut: TurnRecord[] = [];
  const probesOut: ProbeRecord[] = [];
  const summariesOut: SummaryRecord[] = [];
  for (const strategy of options.strategies) {
    for (let t = 0; t < options.transcripts; t++) {
      const transcript = `bt${t}`;
      turnsOut.push(...turns(strategy, transcript, [{ full: 100, context: 100, present: ['a'], missing: [] }, { full: 200, context: 150, present: ['a'], missing: [] }]));
      for (let p = 0; p < options.probesPer; p++) {
        const outcome = options.passes(strategy, t, p);
        const rec: ProbeRecord = {
          strategy, transcript, probe: `p${p}`, kind: 'recall', afterTurn: 2, repeat: 1, question: `q${p}?`, reference: `r${p}`,
          contextTokens: 150, contextItems: 4, factsNeeded: ['a'], factsPresent: ['a'], factsMissing: [], answerable: true, model: base.info.model,
          latencyMs: 10, usage: { inputTokens: 160, outputTokens: 3 }, cost: 0.0001,
        };
        if (outcome === 'error') probesOut.push({ ...rec, error: 'connection reset', attribution: 'error' });
        else probesOut.push({ ...rec, answer: outcome ? `r${p}` : 'no', passed: outcome, f1: outcome ? 1 : 0, judge: { verdict: outcome ? 'pass' : 'fail', reason: '', model: 'offline' } });
      }
      const overall = options.summaryOverall?.(strategy, t);
      if (overall !== undefined) {
        summariesOut.push(summary({
          strategy, transcript, turn: 2, index: 1, coveredTurns: [1, 1],
          grades: {
            checks: { factCoverage: 1, factsKept: ['a'], factsMissing: [], unsupported: [], words: 10, wordLimit: 300, overLimit: false, headingsMissing: [], staleFacts: [] },
            judge: { model: options.judge ?? 'offline', coverage: overall / 5, faithfulness: 1, temporal: 1, format: 1, overall, score: overall / 5, invented: [], reasons: {} },
          },
        }));
      }
    }
  }
  return {
    info: {
      ...base.info,
      judge: options.judge ?? 'offline',
      repeat: 1,
      baseline: options.strategies[0],
      strategies: options.strategies.map((id) => ({ id, use: 'trimming', options: {} })),
      transcripts: [...Array(options.transcripts)].map((_, t) => ({ id: `bt${t}`, file: `datasets/bt${t}.yaml`, tags: [], turns: 2, probes: options.probesPer })),
    },
    turns: turnsOut,
    probes: probesOut,
    summaries: summariesOut,
  };
}

/** Makes every summary that was made fail its judging, as a judge that answers with errors does. */
export function withSummaryJudgeErrors(run: RunResult, message = 'HTTP 401 from judge: invalid api key'): RunResult {
  for (const s of run.summaries) {
    if (s.error || !s.grades) continue;
    s.grades.judge = { model: 'openai:judge', coverage: NaN, faithfulness: NaN, temporal: NaN, format: NaN, overall: NaN, score: NaN, invented: [], reasons: {}, error: message };
  }
  return run;
}

/**
 * A schema-checked run holding only probe records, with its transcripts listed
 * by id and tags: the input report and scorer tests build by hand.
 */
export function probeOnlyRun(opts: {
  probes: unknown[];
  transcripts: { id: string; tags: string[] }[];
  strategies: string[];
  model?: string;
  judge?: string;
}): RunResult {
  return runResultSchema.parse({
    info: {
      runId: 'r',
      status: 'complete',
      startedAt: '2026-01-01T00:00:00Z',
      memevalVersion: '0.0.0',
      node: 'v20',
      packages: {},
      model: opts.model ?? 'offline',
      judge: opts.judge ?? 'offline',
      strategies: opts.strategies.map((id) => ({ id, use: id, options: {} })),
      transcripts: opts.transcripts.map((t) => ({ ...t, file: `${t.id}.yaml`, turns: 3, probes: 1 })),
    },
    turns: [],
    probes: opts.probes,
    summaries: [],
  });
}

/** A probe record with neutral defaults (recall, after turn 3, no facts) and the given fields, for scorer tests. */
export function bareProbeRecord(fields: Pick<ProbeRecord, 'strategy' | 'transcript' | 'probe' | 'reference'> & Partial<ProbeRecord>): ProbeRecord {
  return {
    kind: 'recall',
    afterTurn: 3,
    repeat: 1,
    question: `question ${fields.probe}`,
    contextTokens: 100,
    contextItems: 4,
    factsNeeded: [],
    factsPresent: [],
    factsMissing: [],
    answerable: null,
    ...fields,
  };
}

/** The tool probes `withToolProbes` adds to every strategy: two per transcript, one of them expecting no call. */
export const TOOL_PROBES: { transcript: string; probe: string; afterTurn: number; question: string; expected: string | null; args: Record<string, string> }[] = [
  { transcript: 't1', probe: 'k1', afterTurn: 4, question: 'Pull the order up again.', expected: 'get_order', args: { id: 'A-1042', region: 'eu' } },
  { transcript: 't1', probe: 'k2', afterTurn: 4, question: 'Where did the order ship?', expected: null, args: {} },
  { transcript: 't2', probe: 'k3', afterTurn: 2, question: 'Check the device.', expected: 'lookup_device', args: { serial: 'RX-1' } },
  { transcript: 't2', probe: 'k4', afterTurn: 2, question: 'Check the warranty.', expected: 'get_warranty', args: { serial: 'RX-1' } },
];

/**
 * How a strategy answered a tool probe: `exact` (the call expected, or no call
 * when none was), `partial` (right tool, one argument wrong), `wrong-tool`,
 * `called` (a call, repeating the conversation's, where none was expected),
 * `reask` (no call; asked the user), `error` (the answer call failed),
 * `judge-error` (no call as expected, the judge of the answer failed) and
 * `wrong-answer` (no call as expected, an answer the judge failed).
 */
export type ToolOutcome = 'exact' | 'partial' | 'wrong-tool' | 'called' | 'reask' | 'error' | 'judge-error' | 'wrong-answer';

type ToolSpec = (typeof TOOL_PROBES)[number];

function callOf(name: string, args: Record<string, string>): { name: string; arguments: string } {
  return { name, arguments: JSON.stringify(args) };
}

/** The record fields of one outcome, as harness/run/probes.ts writes them. */
function toolFields(spec: ToolSpec, outcome: ToolOutcome): Partial<ProbeRecord> {
  const argsExpected = Object.keys(spec.args).length;
  const grade = { expected: spec.expected, called: null, rightTool: false, argsMatched: 0, argsExpected, exactCall: false, extraCalls: 0, mismatches: [] as string[] };
  const byRule = (passed: boolean, reason: string) => ({ passed, exact: passed, judge: { verdict: passed ? 'pass' : 'fail', reason, model: 'tool-check' } as const });
  const expected = spec.expected ?? 'none';
  switch (outcome) {
    case 'exact':
      if (spec.expected === null) return { answer: 'It shipped to Oslo.', passed: true, exact: true, judge: { verdict: 'pass', reason: 'matches', model: 'offline' }, tool: { ...grade, rightTool: true, exactCall: true } };
      return { answer: '', toolCalls: [callOf(expected, spec.args)], tool: { ...grade, called: expected, rightTool: true, argsMatched: argsExpected, exactCall: true }, ...byRule(true, 'right tool') };
    case 'partial': {
      const args = { ...spec.args, region: 'us' };
      return { answer: '', toolCalls: [callOf(expected, args)], tool: { ...grade, called: expected, rightTool: true, argsMatched: argsExpected - 1, mismatches: ['region: expected "eu", got "us"'] }, ...byRule(false, 'right tool; region wrong'), attribution: 'present-but-missed' };
    }
    case 'wrong-tool':
      return { answer: '', toolCalls: [callOf('get_customer', {})], tool: { ...grade, called: 'get_customer', mismatches: [`called get_customer; expected ${expected}`] }, ...byRule(false, 'wrong tool'), attribution: 'present-but-missed' };
    case 'called':
      return { answer: '', toolCalls: [callOf('get_order', { id: 'A-1042' })], repeatedCalls: 1, tool: { ...grade, called: 'get_order', extraCalls: 1, mismatches: ['called get_order where no call was expected'] }, ...byRule(false, 'called get_order where no call was expected'), attribution: 'present-but-missed' };
    case 'reask':
      return { answer: 'Could you provide the serial number?', reask: true, tool: { ...grade, mismatches: [`no call; expected ${expected}`] }, ...byRule(false, `no call; expected ${expected}`), attribution: 'present-but-missed' };
    case 'error':
      return { error: 'HTTP 500 from provider', errorStage: 'answer', passed: false, attribution: 'error', tool: { ...grade, mismatches: ['not graded: the answer call failed'] } };
    case 'wrong-answer':
      return { answer: 'I do not know.', passed: false, exact: false, judge: { verdict: 'fail', reason: 'no answer', model: 'offline' }, attribution: 'present-but-missed', tool: { ...grade, rightTool: true, exactCall: true } };
    case 'judge-error':
      return { answer: 'It shipped to Oslo.', passed: false, error: 'judge: HTTP 429', errorStage: 'judge', attribution: 'error', judge: { verdict: 'error', reason: 'HTTP 429', model: 'openai:judge' }, tool: { ...grade, rightTool: true, exactCall: true } };
  }
}

/** `run` with a `kind: tool` record per strategy and TOOL_PROBES entry, answered as `outcomes[strategy]` says (in TOOL_PROBES order). */
export function withToolProbes(run: RunResult, outcomes: Record<string, ToolOutcome[]>): RunResult {
  const added = Object.entries(outcomes).flatMap(([strategy, list]) =>
    TOOL_PROBES.map((spec, i) =>
      bareProbeRecord({
        strategy,
        transcript: spec.transcript,
        probe: spec.probe,
        kind: 'tool',
        afterTurn: spec.afterTurn,
        question: spec.question,
        reference: spec.expected ? `${spec.expected}(${Object.entries(spec.args).map(([k, v]) => `${k}=${v}`).join(', ')})` : 'Oslo',
        model: run.info.model,
        ...toolFields(spec, list[i]),
      }),
    ),
  );
  return { ...run, probes: [...run.probes, ...added] };
}
