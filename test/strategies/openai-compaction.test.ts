// openai-compaction end to end: a run through runSuite whose strategy compacts
// with the Agents SDK's OpenAIResponsesCompactionSession against a local server
// that implements POST /v1/responses/compact. The compacted item is opaque, so
// the turn records carry the API's token count and the facts it swallowed are
// `opaque`; an offline model is refused at the config's strategy entry.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.js';
import { parseConfig, type SuiteConfig } from '../../harness/config.js';
import { runSuite, type RunOutcome } from '../../harness/run/run.js';
import { stageErrors } from '../../reports/aggregate.js';
import { compactionHandler, lastUserText, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';
import { tinyTranscript } from '../helpers/cli.js';
import { evaluateGates } from '../../reports/gate.js';

const COMPACT_TOKENS = 37;
/** USD per 1M tokens, so the compaction calls' cost is a number a test can predict. */
const PRICE = { input: 2, output: 10 };

/** A suite of full history beside one `openai-compaction` entry, whose id and options follow `use:`. */
function compactionConfig(baseURL: string, id: string, options: string): string {
  return `datasets: [data/*.yaml]
out: runs
model: local:gpt-4.1-mini
judge: offline
cache: false
providers:
  local: { base_url: "${baseURL}" }
strategies:
  - { id: full, use: full-history }
  - id: ${id}
    use: openai-compaction
${options}
prices:
  local:gpt-4.1-mini: { input: ${PRICE.input}, output: ${PRICE.output} }
`;
}

function configText(baseURL: string, strategyModel = 'local:gpt-4.1-mini'): string {
  return compactionConfig(baseURL, 'compact', `    model: ${strategyModel}\n    trigger_items: 2`);
}

function suite(baseURL: string): SuiteConfig {
  const dir = mkdtempSync(join(tmpdir(), 'memeval-compaction-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 't1.yaml'), tinyTranscript('t1'));
  const file = join(dir, 'memeval.config.yaml');
  writeFileSync(file, configText(baseURL));
  return parseConfig(readFileSync(file, 'utf8'), file);
}

/** Data rows of a CSV report whose first cell is `strategy`. */
function rowsOf(dir: string, name: string, strategy: string): { header: string[]; rows: string[][] } {
  const [head, ...lines] = readFileSync(join(dir, name), 'utf8').trim().split('\n');
  return { header: head.split(','), rows: lines.map((l) => l.split(',')).filter((cells) => cells[0] === strategy) };
}

describe('openai-compaction through the Agents SDK', () => {
  let server: FakeServer;
  let result: RunOutcome;

  beforeAll(async () => {
    // Answers never state the fact, so every probe fails and gets an attribution.
    server = await startFakeOpenAI(compactionHandler({ outputTokens: COMPACT_TOKENS, answer: (body) => `no idea about: ${lastUserText(body)}` }));
    result = await runSuite({ config: suite(server.baseURL), log: () => undefined });
  }, 60_000);

  afterAll(() => server?.close());

  it('calls POST /v1/responses/compact with the history, under the configured model name', () => {
    const compacts = server.requests.filter((r) => r.path === '/v1/responses/compact');
    // trigger_items 2: after turn 2 (two assistant replies) and again after turn 4.
    expect(compacts).toHaveLength(2);
    expect(compacts.every((r) => r.method === 'POST' && r.body.model === 'gpt-4.1-mini')).toBe(true);
    expect(JSON.stringify(compacts[0].body.input)).toContain('ACC-27731');
    // The second compaction is sent the first one's item, not the turns it replaced.
    const second = JSON.stringify(compacts[1].body.input);
    expect(second).toContain('enc-1:4-items');
    expect(second).not.toContain('ACC-27731');
  });

  it('sends the compacted item back on the later answer requests', () => {
    const answers = server.requests.filter((r) => r.path === '/v1/responses');
    const withCompaction = answers.filter((r) => JSON.stringify(r.body.input).includes('"type":"compaction"'));
    // Both compact probes (after turns 4 and 5); the full-history ones send plain turns.
    expect(withCompaction).toHaveLength(2);
    for (const r of withCompaction) expect(JSON.stringify(r.body.input)).toContain('"encrypted_content":"enc-2:');
  });

  it('records API-reported token pressure and opaque facts per turn', () => {
    expect(result.run.info.status).toBe('complete');
    const turns = result.run.turns.filter((t) => t.strategy === 'compact').sort((a, b) => a.turn - b.turn);
    const full = result.run.turns.filter((t) => t.strategy === 'full').sort((a, b) => a.turn - b.turn);
    expect(turns.map((t) => t.apiTokens)).toEqual([0, COMPACT_TOKENS, COMPACT_TOKENS, COMPACT_TOKENS, COMPACT_TOKENS]);
    // Before any compaction both strategies count the same view locally.
    expect(turns[0].contextTokens).toBe(full[0].contextTokens);
    // Right after a compaction the view is the compacted item alone: instructions plus the API's count.
    const instructions = turns[1].contextTokens - COMPACT_TOKENS;
    expect(instructions).toBeGreaterThan(0);
    expect(turns[3].contextTokens).toBe(instructions + COMPACT_TOKENS);
    expect(turns[1].contextTokens).toBeLessThan(full[1].contextTokens);
    // Facts said in the compacted span are opaque: neither present nor missing (nor lost).
    expect(turns.map((t) => t.factsOpaqueCount)).toEqual([0, 2, 2, 2, 2]);
    expect(turns.every((t) => t.factsMissingCount === 0 && t.factsLost.length === 0)).toBe(true);
    expect(full.every((t) => (t.apiTokens ?? 0) === 0 && (t.factsOpaqueCount ?? 0) === 0)).toBe(true);
  });

  it('attributes failed probes on opaque facts as opaque, with answerability unknown', () => {
    const probes = result.run.probes.filter((p) => p.strategy === 'compact');
    expect(probes).toHaveLength(2);
    for (const p of probes) {
      expect(p.error).toBeUndefined();
      expect(p.passed).toBe(false);
      expect(p.factsMissing).toEqual([]);
      expect(p.factsOpaque).toEqual(p.factsNeeded);
      expect(p.answerable).toBeNull();
      expect(p.attribution).toBe('opaque');
    }
    const full = result.run.probes.filter((p) => p.strategy === 'full');
    expect(full.map((p) => p.attribution)).toEqual(['present-but-missed', 'present-but-missed']);
  });

  it("puts the strategy's rows in every report", () => {
    const turns = rowsOf(result.dir, 'turns.csv', 'compact');
    expect(turns.rows).toHaveLength(5);
    const api = turns.header.indexOf('api_tokens');
    const opaque = turns.header.indexOf('facts_opaque_count');
    expect(turns.rows.map((r) => r[api])).toEqual(['0', '37', '37', '37', '37']);
    expect(turns.rows.map((r) => r[opaque])).toEqual(['0', '2', '2', '2', '2']);
    const probes = rowsOf(result.dir, 'probes.csv', 'compact');
    expect(probes.rows).toHaveLength(2);
    expect(probes.rows.every((r) => r[probes.header.indexOf('attribution')] === 'opaque')).toBe(true);
    const summary = rowsOf(result.dir, 'summary.csv', 'compact');
    expect(summary.rows).toHaveLength(1);
    expect(summary.rows[0][summary.header.indexOf('attribution_opaque')]).toBe('2');
    const html = readFileSync(join(result.dir, 'report.html'), 'utf8');
    expect(html).toContain('compact');
    expect(html).toContain('opaque');
  });
});

describe('openai-compaction counts its compaction calls', () => {
  let server: FakeServer;
  let result: RunOutcome;

  beforeAll(async () => {
    // A compaction takes 40 ms here, so the turn latency must show it.
    const inner = compactionHandler({ outputTokens: COMPACT_TOKENS, answer: () => 'no idea' });
    server = await startFakeOpenAI(async (req, i) => {
      if (req.path.endsWith('/responses/compact')) await new Promise((resolve) => setTimeout(resolve, 40));
      return inner(req, i);
    });
    result = await runSuite({ config: suite(server.baseURL), log: () => undefined });
  }, 60_000);

  afterAll(() => server?.close());

  /** What the fake server reported for each compaction call, in order. */
  function compactUsages(): { input: number; output: number }[] {
    return server.requests
      .filter((r) => r.path === '/v1/responses/compact')
      .map((r) => ({ input: 10 * (Array.isArray(r.body.input) ? r.body.input.length : 0), output: COMPACT_TOKENS }));
  }

  it('records each compaction as an opaque summary with its usage, time and cost, never graded', () => {
    expect(result.run.info.status).toBe('complete');
    const records = result.run.summaries.filter((s) => s.strategy === 'compact');
    const usages = compactUsages();
    expect(usages).toHaveLength(2);
    expect(records.map((s) => ({ input: s.usage.inputTokens, output: s.usage.outputTokens }))).toEqual(usages);
    // Never judged, so no attempt of the summary judge either (the stage's denominator).
    expect(stageErrors(result.run).find((s) => s.stage === 'summary-judge')?.attempted).toBe(0);
    for (const [i, s] of records.entries()) {
      expect(s.error).toBeUndefined();
      expect(s.opaque).toBe(true);
      expect(s.text).toBe('');
      expect(s.grades).toBeUndefined();
      expect(s.durationMs).toBeGreaterThanOrEqual(35);
      expect(s.cost).toBeCloseTo((usages[i].input * PRICE.input + usages[i].output * PRICE.output) / 1e6, 12);
    }
    expect(records.map((s) => s.turn)).toEqual([2, 4]);
    expect(records[0].coveredTurns).toEqual([1, 2]);
  });

  it('puts their tokens, cost and time in summary.csv, with no summary-judge error', () => {
    const { header, rows } = rowsOf(result.dir, 'summary.csv', 'compact');
    const cell = (name: string) => {
      expect(header).toContain(name);
      return rows[0][header.indexOf(name)];
    };
    const usages = compactUsages();
    const compactCost = usages.reduce((total, u) => total + (u.input * PRICE.input + u.output * PRICE.output) / 1e6, 0);
    expect(Number(cell('summary_tokens_in'))).toBe(usages.reduce((t, u) => t + u.input, 0));
    expect(Number(cell('summary_tokens_out'))).toBe(2 * COMPACT_TOKENS);
    expect(Number(cell('summary_cost'))).toBeCloseTo(compactCost, 12);
    const answers = result.run.probes.filter((p) => p.strategy === 'compact').reduce((total, p) => total + (p.cost ?? Number.NaN), 0);
    expect(answers).toBeGreaterThan(0);
    expect(Number(cell('cost'))).toBeCloseTo(answers + compactCost, 12);
    expect(cell('summary_judge_errors')).toBe('0');
    expect(cell('summarizer_errors')).toBe('0');
    expect(Number(cell('turn_latency_p95_ms'))).toBeGreaterThanOrEqual(35);
    const full = rowsOf(result.dir, 'summary.csv', 'full');
    expect(full.rows[0][full.header.indexOf('summary_tokens_in')]).toBe('0');
    expect(full.rows[0][full.header.indexOf('summary_cost')]).toBe('');
  });

  it('shows them as opaque in summaries.csv and report.html, not as scores', () => {
    const { header, rows } = rowsOf(result.dir, 'summaries.csv', 'compact');
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r[header.indexOf('opaque')]).toBe('opaque (server compaction)');
      expect(r[header.indexOf('judge_score')]).toBe('');
      expect(Number(r[header.indexOf('tokens_out')])).toBe(COMPACT_TOKENS);
    }
    const html = readFileSync(join(result.dir, 'report.html'), 'utf8');
    // Both compactions' blocks say so in their heading, where a summary shows its judge score.
    expect(html.match(/compact · t1 · summary \d — opaque \(server compaction\)/g)).toHaveLength(2);
  });
});

/** Tokens at which `mode: context-management` compacts: reached after turn 2 of the tiny transcript, not after turn 1. */
const THRESHOLD = 50;

function managedConfig(baseURL: string, extra = ''): string {
  return compactionConfig(baseURL, 'managed', `    model: local:gpt-4.1-mini\n    mode: context-management\n    compact_threshold: ${THRESHOLD}${extra}`);
}

describe('openai-compaction in context-management mode', () => {
  let server: FakeServer;
  let result: RunOutcome;

  beforeAll(async () => {
    server = await startFakeOpenAI(compactionHandler({ outputTokens: COMPACT_TOKENS, answer: (body) => `no idea about: ${lastUserText(body)}` }));
    const dir = mkdtempSync(join(tmpdir(), 'memeval-managed-'));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 't1.yaml'), tinyTranscript('t1'));
    const file = join(dir, 'memeval.config.yaml');
    writeFileSync(file, managedConfig(server.baseURL));
    result = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: () => undefined });
  }, 60_000);

  afterAll(() => server?.close());

  const managing = () => server.requests.filter((r) => r.path === '/v1/responses' && r.body.context_management !== undefined);

  it('sends the history to POST /v1/responses with context_management and a tiny max_output_tokens, never /responses/compact', () => {
    expect(result.run.info.status).toBe('complete');
    expect(server.requests.some((r) => r.path === '/v1/responses/compact')).toBe(false);
    const requests = managing();
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) {
      expect(r.body.context_management).toEqual([{ type: 'compaction', compact_threshold: THRESHOLD }]);
      expect(r.body.max_output_tokens).toBe(16);
      expect(r.body.model).toBe('gpt-4.1-mini');
    }
    // The first compaction is sent the first two turns in full.
    const first = JSON.stringify(requests[0].body.input);
    expect(first).toContain('ACC-27731');
    expect(first).toContain('blue router');
    expect(first).not.toContain('power supply');
    // The next one is sent the first one's item, not the turns it replaced.
    const second = JSON.stringify(requests[1].body.input);
    expect(second).toContain('"encrypted_content":"enc-1:4-items"');
    expect(second).not.toContain('ACC-27731');
  });

  it('answers on the compaction item from the reply, with its tokens at the API count and its facts opaque', () => {
    const answers = server.requests.filter((r) => r.path === '/v1/responses' && r.body.context_management === undefined);
    const withCompaction = answers.filter((r) => JSON.stringify(r.body.input).includes('"type":"compaction"'));
    expect(withCompaction).toHaveLength(2);
    for (const r of withCompaction) {
      expect(JSON.stringify(r.body.input)).not.toContain('ACC-27731');
      // The reply's short message is no turn of the conversation: it is not sent on.
      expect(JSON.stringify(r.body.input)).not.toContain('"text":"ok"');
    }
    const turns = result.run.turns.filter((t) => t.strategy === 'managed').sort((a, b) => a.turn - b.turn);
    expect(turns[0].apiTokens ?? 0).toBe(0);
    expect(turns.slice(1).every((t) => t.apiTokens === COMPACT_TOKENS)).toBe(true);
    expect(turns[1].factsOpaqueCount).toBe(2);
    const probes = result.run.probes.filter((p) => p.strategy === 'managed');
    expect(probes.map((p) => p.attribution)).toEqual(['opaque', 'opaque']);
  });

  it('counts each compaction call as an opaque summary: tokens, time and cost, no judge error', () => {
    const records = result.run.summaries.filter((s) => s.strategy === 'managed');
    expect(records).toHaveLength(managing().length);
    // The compacted item (37 tokens) plus any later turn is over the threshold: a compaction at every turn from 2.
    expect(records.map((s) => s.turn)).toEqual([2, 3, 4, 5]);
    expect(records[0].coveredTurns).toEqual([1, 2]);
    for (const s of records) {
      expect(s.error).toBeUndefined();
      expect(s.opaque).toBe(true);
      expect(s.grades).toBeUndefined();
      expect(s.usage.outputTokens).toBe(COMPACT_TOKENS);
      expect(s.cost).toBeCloseTo((s.usage.inputTokens * PRICE.input + COMPACT_TOKENS * PRICE.output) / 1e6, 12);
    }
    const { header, rows } = rowsOf(result.dir, 'summary.csv', 'managed');
    const cell = (name: string) => rows[0][header.indexOf(name)];
    expect(Number(cell('summary_tokens_out'))).toBe(records.length * COMPACT_TOKENS);
    expect(Number(cell('summary_tokens_in'))).toBeGreaterThan(0);
    expect(Number(cell('summary_cost'))).toBeGreaterThan(0);
    expect(cell('summary_judge_errors')).toBe('0');
  });
});

describe('openai-compaction refused without an API', () => {
  function load(text: string): () => SuiteConfig {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-compaction-bad-'));
    const file = join(dir, 'memeval.config.yaml');
    writeFileSync(file, text);
    return () => parseConfig(text, file);
  }

  function problems(run: () => unknown): string {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  }

  it('an offline model is bad input, located at the strategy entry', () => {
    const message = problems(load(configText('http://127.0.0.1:9/v1', 'offline')));
    expect(message).toMatch(/memeval\.config\.yaml:10:5: strategy "compact": /);
    expect(message).toContain('strategy "compact"');
    expect(message).toContain('needs a model on an OpenAI-compatible API');
  });

  it('a model name the SDK does not compact with is bad input', () => {
    const message = problems(load(configText('http://127.0.0.1:9/v1', 'local:llama3')));
    expect(message).toContain('not a name the Agents SDK compacts with');
  });

  it('each mode refuses the other mode\'s trigger options', () => {
    const missing = managedConfig('http://127.0.0.1:9/v1').replace(/\n    compact_threshold: \d+/, '');
    expect(problems(load(missing))).toContain('mode: context-management needs option compact_threshold');
    expect(problems(load(managedConfig('http://127.0.0.1:9/v1', '\n    trigger_items: 2')))).toContain('trigger_items is only used with mode: compact');
    const stray = configText('http://127.0.0.1:9/v1').replace('trigger_items: 2', 'trigger_items: 2\n    compact_threshold: 10');
    expect(problems(load(stray))).toContain('compact_threshold is only used with mode: context-management');
  });

  it('a provider that is not configured is bad input', () => {
    const message = problems(load(configText('http://127.0.0.1:9/v1', 'elsewhere:gpt-4.1-mini')));
    expect(message).toContain('uses provider "elsewhere", which is not defined');
  });
});

describe('gates on what server compaction does not produce', () => {
  it('cannot pass a summary-check gate on compactions, which have no text to check', async () => {
    const server = await startFakeOpenAI(compactionHandler({ outputTokens: COMPACT_TOKENS, answer: () => 'no idea' }));
    try {
      const { run } = await runSuite({ config: suite(server.baseURL), log: () => undefined });
      expect(run.summaries.some((s) => s.strategy === 'compact' && s.opaque)).toBe(true);
      const [gate] = evaluateGates(run, [{ metric: 'summary.checks.unsupported', strategy: 'compact', max: 0, where: 'test' }]);
      expect(gate.status).toBe('fail');
      expect(gate.notEvaluated).toBeDefined();
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('openai-compaction when it cannot be read', () => {
  it('counts no critical drop as 0 and no opaque fact as kept', async () => {
    const server = await startFakeOpenAI(compactionHandler({ outputTokens: COMPACT_TOKENS, answer: () => 'no idea' }));
    try {
      const { dir } = await runSuite({ config: suite(server.baseURL), log: () => undefined });
      const { header, rows } = rowsOf(dir, 'summary.csv', 'compact');
      const cell = (name: string) => rows[0][header.indexOf(name)];
      // A critical fact inside the compacted span may be gone: the count is left empty, so a gate on it cannot pass.
      expect(cell('critical_drops')).toBe('');
      expect(Number(cell('turns_with_opaque_facts'))).toBeGreaterThan(0);
      expect(Number(cell('fact_retention'))).toBeLessThan(1);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('records a compaction reply without a compaction item as a failure, not as opaque facts', async () => {
    const inner = compactionHandler({ outputTokens: COMPACT_TOKENS, answer: () => 'no idea' });
    const server = await startFakeOpenAI((req, i) =>
      req.path.endsWith('/responses/compact') ? { json: { id: 'cmp_1', object: 'response.compaction', output: [], usage: { input_tokens: 5, output_tokens: 0, total_tokens: 5 } } } : inner(req, i),
    );
    try {
      const { run } = await runSuite({ config: suite(server.baseURL), log: () => undefined });
      expect(run.info.status).not.toBe('complete');
      const failed = run.summaries.filter((s) => s.strategy === 'compact' && s.error);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed[0].error).toMatch(/no compaction item/);
      expect(run.probes.filter((p) => p.strategy === 'compact').some((p) => p.attribution === 'opaque')).toBe(false);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('records a compaction whose reply reports no token counts as a failure, never a NaN or negative size', async () => {
    for (const output of [-100, 'NaN']) {
      const server = await startFakeOpenAI(compactionHandler({ outputTokens: output as number, answer: () => 'no idea' }));
      try {
        const { run } = await runSuite({ config: suite(server.baseURL), log: () => undefined });
        expect(run.info.status).not.toBe('complete');
        const failed = run.summaries.filter((s) => s.strategy === 'compact' && s.error);
        expect(failed.length).toBeGreaterThan(0);
        expect(failed[0].error).toMatch(/usage is not token counts/);
        for (const t of run.turns) expect(Number.isFinite(t.contextTokens) && t.contextTokens >= 0, String(t.contextTokens)).toBe(true);
      } finally {
        await server.close();
      }
    }
  }, 60_000);
});
