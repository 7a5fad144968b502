import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig, loadConfig, type SuiteConfig } from '../../../harness/config.js';
import { judgeCalibration, newRunId, protocolManifest, recordedConfig, runInfo, scorersFor, sha256, transcriptHeader } from '../../../harness/run/run-info.js';
import { RUBRIC } from '../../../graders/answer-judge.js';
import { runInfoSchema } from '../../../core/schema/run.js';
import { DEFAULT_OPENAI_BASE_URL as OPENAI_DEFAULT_BASE_URL } from '../../../harness/models/endpoint.js';
import { loadSuite } from '../../../harness/datasets/transcript.js';
import type { Probe, RunInfo, Transcript } from '../../../core/types.js';
import { BUILTIN_PROMPT_LABEL } from '../../../strategies/summary-input.js';

describe('run labels', () => {
  it('names a run by UTC time and a short hash', () => {
    const id = newRunId(defaultConfig('/tmp'), new Date('2026-01-02T03:04:05.678Z'));
    expect(id).toMatch(/^20260102T030405Z-[0-9a-f]{6}$/);
  });

  it("carries the judge's calibration when one is on record, and nothing otherwise", () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-cal-'));
    expect(judgeCalibration('openai:judge-x', dir)).toBeUndefined();
    mkdirSync(join(dir, '.memeval', 'calibration'), { recursive: true });
    const report = {
      judge: 'openai:judge-x',
      createdAt: '2026-11-01T00:00:00Z',
      items: 22,
      errors: 0,
      criteria: [{ criterion: 'coverage', n: 22, agree: 20, accuracy: 0.91, kappa: 0.8, ci: [0.6, 0.95], humanPass: 11, judgePass: 12 }],
    };
    writeFileSync(join(dir, '.memeval', 'calibration', 'openai_judge-x.json'), JSON.stringify({ ...report, errors: 3 }));
    // A calibration in which the judge failed on some item is none, as the gate reads it.
    expect(judgeCalibration('openai:judge-x', dir)).toBeUndefined();
    writeFileSync(join(dir, '.memeval', 'calibration', 'openai_judge-x.json'), JSON.stringify(report));
    expect(judgeCalibration('openai:judge-x', dir)).toEqual({
      createdAt: '2026-11-01T00:00:00Z',
      items: 22,
      criteria: [{ criterion: 'coverage', accuracy: 0.91, kappa: 0.8, ci: [0.6, 0.95] }],
    });
  });
});

const TRANSCRIPT = `
id: router
turns:
  - user: My serial is RX-88812.
    assistant: Noted.
  - user: The router still fails.
    assistant: Try a reset.
facts:
  - { id: serial, text: RX-88812, turn: 1, critical: true }
probes:
  - id: serial
    after_turn: 2
    question: What is my serial?
    answer: RX-88812
    must_include: [RX-88812]
    facts: [serial]
`;

const CONFIG = `
datasets: [data/*.yaml]
out: runs
strategies:
  - { id: trim-1, use: trimming, max_turns: 1 }
  - id: summ
    use: summarizing
    context_limit: 2
    keep_last_n_turns: 1
    summarizer: { model: offline, prompt: prompts/support.md, max_tokens: 800 }
gates:
  - { metric: probe.accuracy, strategy: '*', min: 0.5 }
`;

const PROMPT = 'Summarise the support conversation in at most 100 words.\n';

/** Every string in a JSON value, with the key it sits under. */
function strings(value: unknown, key = ''): { key: string; value: string }[] {
  if (typeof value === 'string') return [{ key, value }];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, key));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => strings(v, k));
  return [];
}

describe('runInfo paths', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'memeval-info-')));
  const project = join(root, 'project');
  mkdirSync(join(project, 'data'), { recursive: true });
  mkdirSync(join(project, 'prompts'), { recursive: true });
  writeFileSync(join(project, 'data', 'router.yaml'), TRANSCRIPT);
  writeFileSync(join(project, 'prompts', 'support.md'), PROMPT);
  writeFileSync(join(project, 'memeval.config.yaml'), CONFIG);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(() => vi.restoreAllMocks());

  async function recorded(): Promise<{ config: SuiteConfig; info: RunInfo; runDir: string }> {
    // Run from the project folder, as `memeval run` usually is; nothing may depend on it being /work or /tmp.
    vi.spyOn(process, 'cwd').mockReturnValue(project);
    const config = loadConfig(join(project, 'memeval.config.yaml'));
    const transcripts = await loadSuite(config.datasets, config.baseDir);
    const runDir = join(config.out, 'run-1');
    const info = runInfo('run-1', runDir, config, config.strategies, transcripts.map(transcriptHeader), { model: 'offline', judge: 'offline' });
    // As run.json stores it.
    return { config, info: JSON.parse(JSON.stringify(info)) as RunInfo, runDir };
  }

  it('records no absolute local path anywhere in info', async () => {
    const { info } = await recorded();
    const json = JSON.stringify(info);
    expect(json).not.toContain(root);
    const absolute = strings(info).filter((s) => s.value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s.value));
    expect(absolute).toEqual([]);
    expect(info.configFile).toBe('memeval.config.yaml');
    expect(info.transcripts[0].file).toBe(join('data', 'router.yaml'));
    expect(info.config).toMatchObject({ baseDir: join('..', '..'), out: 'runs', file: 'memeval.config.yaml', datasets: ['data/*.yaml'] });
    expect(info.config.cache).toBe(join('.memeval', 'cache'));
  });

  it('fingerprints each strategy with its options, summarizer and prompt text', async () => {
    const { info } = await recorded();
    const summ = info.strategies.find((s) => s.id === 'summ')!;
    expect(summ.fingerprint).toMatchObject({
      use: 'summarizing',
      summarizer: 'offline',
      answerModel: 'offline',
      judge: 'offline',
      agent: 'direct',
      prompt: { path: join('prompts', 'support.md'), text: PROMPT },
    });
    expect(summ.fingerprint!.options.summarizer).toMatchObject({ max_tokens: 800, prompt: join('prompts', 'support.md') });
    expect(summ.fingerprint!.prompt!.hash).toMatch(/^[0-9a-f]{12}$/);
    expect(summ.fingerprint!.endpoint).toBeUndefined();
    const trim = info.strategies.find((s) => s.id === 'trim-1')!;
    expect(trim.fingerprint).toMatchObject({ use: 'trimming', options: { max_turns: 1 } });
    expect(trim.fingerprint!.prompt).toBeUndefined();
    expect(info.provenance).toMatchObject({ endpoints: {}, answerModel: 'offline', judge: 'offline', summarizers: ['offline'], agent: 'direct' });
  });

  it('turns the recorded config back into the absolute one it was made from', async () => {
    const { config, info, runDir } = await recorded();
    expect(recordedConfig(info, runDir)).toEqual(config);
    expect(recordedConfig(info, runDir).gates[0].where.startsWith(`${join(project, 'memeval.config.yaml')}:`)).toBe(true);
  });

  it('leaves a config recorded with absolute paths (older runs) as it is', () => {
    const old = defaultConfig(project);
    const info = { config: old as unknown as Record<string, unknown> } as RunInfo;
    expect(recordedConfig(info, join(project, 'runs', 'old'))).toEqual(old);
  });
});

describe('provenance', () => {
  const KEY = 'sk-plantedkey-0123456789abcdef';
  const USERINFO_SECRET = 'userinfo-secret-5678';

  function info(config: SuiteConfig, env: Record<string, string>): RunInfo {
    return runInfo('run-p', join(config.out, 'run-p'), config, config.strategies, [], { model: config.model, judge: config.judge }, env);
  }

  it('names the public base URL of every model the run uses, never a key', () => {
    const config = defaultConfig('/srv/project');
    config.model = 'openai:gpt-4.1-mini';
    config.judge = 'local:llama3';
    config.providers = { local: { base_url: `http://judge:${USERINFO_SECRET}@127.0.0.1:11434/v1/`, api_key_env: 'LOCAL_KEY' } };
    const summ = config.strategies.find((s) => s.id === 'summarize-4-2')!;
    summ.options = { ...summ.options, summarizer: { model: 'openai:gpt-4.1-nano', max_tokens: 400, tool_trim_limit: 600, word_limit: 200 } };
    const env = { OPENAI_API_KEY: KEY, LOCAL_KEY: KEY, OPENAI_BASE_URL: `https://user:${KEY}@gateway.example.com/v1?api-key=${USERINFO_SECRET}` };
    const run = info(config, env);
    expect(run.provenance!.endpoints).toEqual({
      'openai:gpt-4.1-mini': 'https://gateway.example.com/v1',
      'openai:gpt-4.1-nano': 'https://gateway.example.com/v1',
      'local:llama3': 'http://127.0.0.1:11434/v1',
    });
    expect(run.provenance!.summarizers).toEqual(['openai:gpt-4.1-nano']);
    const recorded = JSON.stringify({ provenance: run.provenance, strategies: run.strategies });
    expect(recorded).not.toContain(KEY);
    expect(recorded).not.toContain(USERINFO_SECRET);
    expect(run.strategies.find((s) => s.id === 'summarize-4-2')!.fingerprint).toMatchObject({
      summarizer: 'openai:gpt-4.1-nano',
      endpoint: 'https://gateway.example.com/v1',
      prompt: { path: BUILTIN_PROMPT_LABEL },
    });
  });

  it("uses OpenAI's own endpoint when nothing else is set, and none for offline", () => {
    const config = defaultConfig('/srv/project');
    config.model = 'openai:gpt-4.1-mini';
    const run = info(config, {});
    expect(run.provenance!.endpoints).toEqual({ 'openai:gpt-4.1-mini': OPENAI_DEFAULT_BASE_URL });
    expect(run.strategies[0].fingerprint!.endpoint).toBe(OPENAI_DEFAULT_BASE_URL);
  });
});

describe('protocol manifest', () => {
  function transcript(id: string, extra: Partial<Transcript> = {}): Transcript {
    return { id, tags: [], turns: [], facts: [], probes: [], file: `${id}.yaml`, ...extra };
  }
  function probe(id: string, kind: Probe['kind'], meta: Record<string, unknown>): Probe {
    return { id, afterTurn: 1, question: `${id}?`, answer: 'a', mustInclude: [], facts: [], kind, meta };
  }
  const labels = { model: 'openai:gpt-4.1-mini', judge: 'openai:gpt-4.1', agent: 'direct' as const, judgeSamples: 1 };
  const locomo = transcript('locomo-conv-1', {
    tags: ['locomo'],
    system: 'Two people talk.',
    meta: { source: 'locomo', generic_facts: [{ id: 'D1-1', text: 'family', meta: { generic: true, turns: 36 } }] },
    probes: [probe('q1', 'multi-hop', { category: 1, category_name: 'multi-hop' }), probe('q2', 'temporal', { category: 2, category_name: 'temporal' })],
  });
  const lme = transcript('lme-abc', { tags: ['longmemeval'], system: 'Sessions.', meta: { source: 'longmemeval' }, probes: [probe('q1', 'recall', { question_type: 'single-session-user' })] });

  it('records the answer request, the system prompts by transcript, and each judge with its real prompts', () => {
    const other = transcript('plain', { system: 'Two people talk.' });
    const p = protocolManifest([locomo, other, transcript('bare')], labels);
    expect(p.answer.request).toContain("the transcript's system prompt (memeval adds none)");
    expect(p.answer.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(p.answer.systemPrompts).toContainEqual({ sha256: sha256('Two people talk.'), transcripts: ['locomo-conv-1', 'plain'] });
    expect(p.answer.systemPrompts).toContainEqual({ sha256: 'none', transcripts: ['bare'] });
    // The judge's own system prompt and rubric, one request per probe kind.
    expect(p.answerJudge.name).toBe('llm-answer-judge');
    expect(p.answerJudge.prompts).toHaveLength(6);
    expect(p.answerJudge.prompts[0].system).toContain('You grade answers');
    expect(p.answerJudge.prompts[0].user).toContain(`Rubric: ${RUBRIC.recall}`);
    expect(p.answerJudge.prompts[0].settings).toMatchObject({ temperature: 0 });
    expect(p.summaryJudge.prompts.map((q) => q.settings?.responseFormat)).toMatchObject([{ name: 'coverage_verdict' }, { name: 'summary_verdict' }]);
    expect(p.summaryJudge.prompts[1].user).toContain('WORD LIMIT: {word limit}');
  });

  it('hashes a rule judge apart from an LLM judge, and judge samples into the summary judge', () => {
    const offline = protocolManifest([], { ...labels, judge: 'offline' });
    expect(offline.answerJudge).toMatchObject({ name: 'offline-answer-rule', prompts: [] });
    expect(offline.answerJudge.rule).toContain('token F1');
    const llm = protocolManifest([], labels);
    expect(offline.answerJudge.sha256).not.toBe(llm.answerJudge.sha256);
    expect(protocolManifest([], { ...labels, judgeSamples: 3 }).summaryJudge.sha256).not.toBe(llm.summaryJudge.sha256);
    expect(protocolManifest([], { ...labels, judge: 'local:other' }).answerJudge.sha256).toBe(llm.answerJudge.sha256);
  });

  it('lists the scorers the probes call for', () => {
    expect(scorersFor([transcript('x', { probes: [probe('q1', 'recall', {})] })], 'offline')).toEqual(['memeval-rules']);
    expect(scorersFor([locomo, lme], 'openai:gpt-4.1')).toEqual(['memeval-rules', 'locomo-official-f1', 'longmemeval-official-judge']);
    // LongMemEval's official judge is an LLM; the offline rule cannot stand in for it.
    expect(scorersFor([locomo, lme], 'offline')).toEqual(['memeval-rules', 'locomo-official-f1']);
  });

  it('records the category mapping, absent categories, question types and any import record', () => {
    const imported = { ...lme, id: 'lme-2', meta: { source: 'longmemeval', import: { types: ['single-session-user'] } } };
    const p = protocolManifest([locomo, lme, imported], labels);
    expect(p.datasets).toEqual([
      {
        source: 'locomo',
        transcripts: 1,
        probes: 2,
        categories: { 1: { name: 'multi-hop', kind: 'multi-hop', probes: 1 }, 2: { name: 'temporal', kind: 'temporal', probes: 1 } },
        absentCategories: [3, 4, 5],
        genericFacts: 1,
      },
      { source: 'longmemeval', transcripts: 2, probes: 2, questionTypes: { 'single-session-user': 2 }, import: [{ types: ['single-session-user'] }] },
    ]);
  });

  it('is part of run.json, and a run.json without one still reads', () => {
    const config = defaultConfig('/srv/project');
    const info = runInfo('run-p', join(config.out, 'run-p'), config, config.strategies, [transcriptHeader(locomo)], { model: 'offline', judge: 'offline' });
    const parsed = runInfoSchema.parse(JSON.parse(JSON.stringify(info)));
    expect(parsed.protocol?.scorers).toEqual(['memeval-rules', 'locomo-official-f1']);
    const { protocol: _dropped, ...old } = parsed;
    expect(runInfoSchema.parse(old).protocol).toBeUndefined();
  });
});
