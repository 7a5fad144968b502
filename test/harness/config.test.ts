import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig, parseConfig } from '../../harness/config.js';
import { DEFAULT_LIMITS } from '../../harness/schema/limits.js';
import { DEFAULT_SUMMARIZER } from '../../strategies/registry.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * A fresh folder to put a config in: paths in a config are checked against
 * the file system when it is loaded, so configs name real places.
 */
function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), 'memeval-config-'));
}

/** The YAML example of docs/config-format.md, so the documented config is proven to load. */
function specExample(): string {
  const doc = readFileSync(join(ROOT, 'docs/config-format.md'), 'utf8');
  const match = /```yaml\n([\s\S]*?)```/.exec(doc);
  if (!match) throw new Error('docs/config-format.md has no yaml example');
  return match[1];
}

describe('loading configs', () => {
  it('loads the example of docs/config-format.md with the built-in strategies', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-config-'));
    mkdirSync(join(dir, 'prompts'));
    writeFileSync(join(dir, 'prompts/support-summary.md'), 'Summarise the support conversation.\n');
    const example = specExample();
    writeFileSync(join(dir, 'memeval.yaml'), example);
    const gateLine = example.split('\n').findIndex((l) => l.trimStart().startsWith('- { metric:')) + 1;
    const at = (offset: number) => `${join(dir, 'memeval.yaml')}:${gateLine + offset}:5`;
    const config = loadConfig(join(dir, 'memeval.yaml'));
    expect(config.file).toBe(join(dir, 'memeval.yaml'));
    expect(config.baseDir).toBe(dir);
    expect(config.datasets).toEqual(['datasets/**/*.yaml']);
    expect(config.out).toBe(join(dir, 'runs'));
    expect(config.cache).toBe(join(dir, '.memeval/cache'));
    expect(config).toMatchObject({ model: 'offline', judge: 'offline', concurrency: 8, repeat: 1, baseline: 'full', agent: 'direct' });
    expect(config.baseline_run).toBe(join(dir, 'eval/baseline'));
    expect(config.max_errors).toEqual({ kind: 'count', value: 0 });
    expect(config.limits).toEqual(DEFAULT_LIMITS);
    expect(config.strategies.map((s) => [s.id, s.use])).toEqual([
      ['full', 'full-history'],
      ['trim-3', 'trimming'],
      ['summarize-4-2', 'summarizing'],
      ['budget-2k', 'token-budget'],
      ['recall-4', 'retrieval'],
      ['mask-3', 'observation-masking'],
    ]);
    expect(config.strategies[1].options.max_turns).toBe(3);
    expect(config.strategies[4].options).toMatchObject({ keep_last_n_turns: 4, max_recall_tokens: 600 });
    expect(config.strategies[5].options).toEqual({ keep_last: 3, exclude_tools: ['read_file'] });
    expect(config.strategies[2].options).toMatchObject({
      context_limit: 4,
      keep_last_n_turns: 2,
      summarizer: { model: 'offline', prompt: join(dir, 'prompts/support-summary.md'), max_tokens: 400, tool_trim_limit: 600, word_limit: 200 },
    });
    expect(config.gates).toEqual([
      { metric: 'probe.accuracy', strategy: 'summarize-4-2', min: 0.8, where: at(0) },
      { metric: 'summary.judge.overall', strategy: 'summarize-4-2', min: 4, where: at(1) },
      { metric: 'probe.accuracy', strategy: '*', max_drop: 0.05, vs: 'baseline-run', significant: true, where: at(2) },
      { metric: 'probe.accuracy.temporal', strategy: '*', min: 0.5, optional: true, where: at(3) },
      { metric: 'probe.reader_gap', strategy: '*', max: 0.3, where: at(4) },
    ]);
  });

  it('fills every default for a minimal config and resolves paths against its directory', () => {
    const suite = join(tempRoot(), 'suite');
    const config = parseConfig('strategies:\n  - use: full-history\n', join(suite, 'memeval.yaml'));
    expect(config).toEqual({
      file: join(suite, 'memeval.yaml'),
      baseDir: suite,
      datasets: ['datasets/**/*.yaml', '!datasets/calibration/**'],
      out: join(suite, 'runs'),
      model: 'offline',
      judge: 'offline',
      concurrency: 8,
      repeat: 1,
      judge_samples: 1,
      cache: join(suite, '.memeval/cache'),
      agent: 'direct',
      max_errors: { kind: 'count', value: 0 },
      strategies: [{ id: 'full-history', use: 'full-history', options: {} }],
      gates: [],
      providers: {},
      prices: {},
      limits: DEFAULT_LIMITS,
    });
    // Checking that the folders can be created must not create them.
    expect(existsSync(suite)).toBe(false);
  });

  it('reads providers, prices, models, cache: false and the summarizer shorthand', () => {
    const root = tempRoot();
    const config = parseConfig(
      [
        'datasets: sets/*.yaml',
        'out: ../out',
        'cache: false',
        'agent: runner',
        'model: local:llama3.1',
        'judge: openai:gpt-4.1-mini',
        'repeat: 3',
        'concurrency: 2',
        'providers:',
        '  local: { base_url: "http://127.0.0.1:11434/v1", api_key_env: LOCAL_KEY, api: chat, timeout_ms: 5000, max_attempts: 2 }',
        'prices:',
        '  openai:gpt-4.1-mini: { input: 0.4, output: 1.6 }',
        'strategies:',
        '  - { id: s, use: summarizing, context_limit: 6, keep_last_n_turns: 0, summarizer: local:llama3.1 }',
      ].join('\n'),
      join(root, 'cfg/m.yaml'),
    );
    expect(config.datasets).toEqual(['sets/*.yaml']);
    expect(config.out).toBe(join(root, 'out'));
    expect(config.cache).toBe(false);
    expect(config.agent).toBe('runner');
    expect(config.model).toBe('local:llama3.1');
    expect(config.judge).toBe('openai:gpt-4.1-mini');
    expect(config.repeat).toBe(3);
    expect(config.concurrency).toBe(2);
    expect(config.providers).toEqual({ local: { base_url: 'http://127.0.0.1:11434/v1', api_key_env: 'LOCAL_KEY', api: 'chat', timeout_ms: 5000, max_attempts: 2 } });
    expect(config.prices).toEqual({ 'openai:gpt-4.1-mini': { input: 0.4, output: 1.6 } });
    expect(config.strategies[0].options.summarizer).toEqual({ ...DEFAULT_SUMMARIZER, model: 'local:llama3.1' });
  });

  it('fills option defaults and a default summarizer from the strategy definition', () => {
    const config = parseConfig('strategies:\n  - { id: s, use: summarizing, context_limit: 4, keep_last_n_turns: 2 }\n', join(tempRoot(), 'm.yaml'));
    expect(config.strategies[0].options.summarizer).toEqual(DEFAULT_SUMMARIZER);
    expect(config.strategies[0].options.summarizer).not.toBe(DEFAULT_SUMMARIZER);
  });

  it('gives a usable default config when there is no file', () => {
    const config = defaultConfig('/srv/evals');
    expect(config.file).toBeUndefined();
    expect(config.datasets).toEqual(['datasets/**/*.yaml', '!datasets/calibration/**']);
    expect(config.out).toBe('/srv/evals/runs');
    expect(config.cache).toBe('/srv/evals/.memeval/cache');
    expect(config.strategies.map((s) => s.id)).toEqual(['full', 'trim-3', 'summarize-4-2', 'budget-2k']);
    expect(config.strategies[2].options).toMatchObject({ context_limit: 4, keep_last_n_turns: 2, summarizer: DEFAULT_SUMMARIZER });
    expect(config.baseline).toBe('full');
  });
});

describe('judge_samples', () => {
  it('defaults to one sample and accepts a count of summary-judge samples', () => {
    const base = 'strategies:\n  - { id: full, use: full-history }\n';
    expect(parseConfig(base, '/tmp/c.yaml').judge_samples).toBe(1);
    expect(parseConfig(`judge_samples: 3\n${base}`, '/tmp/c.yaml').judge_samples).toBe(3);
  });

  it('rejects a count under one with its position', () => {
    expect(() => parseConfig('judge_samples: 0\nstrategies:\n  - { id: full, use: full-history }\n', '/tmp/c.yaml')).toThrow(
      /\/tmp\/c\.yaml:1:\d+: .*judge_samples/,
    );
  });
});

describe('max_errors, baseline_run, optional gates and retry delays', () => {
  const base = 'strategies:\n  - { id: full, use: full-history }\n';

  it('reads max_errors as a count or a percentage', () => {
    expect(parseConfig(`max_errors: 3\n${base}`, '/tmp/c.yaml').max_errors).toEqual({ kind: 'count', value: 3 });
    expect(parseConfig(`max_errors: "2%"\n${base}`, '/tmp/c.yaml').max_errors).toEqual({ kind: 'percent', value: 2 });
    expect(parseConfig(`max_errors: 2.5%\n${base}`, '/tmp/c.yaml').max_errors).toEqual({ kind: 'percent', value: 2.5 });
    expect(parseConfig(`max_errors: 100%\n${base}`, '/tmp/c.yaml').max_errors).toEqual({ kind: 'percent', value: 100 });
  });

  it('resolves baseline_run against the config folder, without requiring it to exist yet', () => {
    const root = tempRoot();
    const config = parseConfig(`baseline_run: ../kept/base-run\n${base}`, join(root, 'suite/memeval.yaml'));
    expect(config.baseline_run).toBe(join(root, 'kept/base-run'));
    expect(parseConfig(base, join(root, 'suite/memeval.yaml')).baseline_run).toBeUndefined();
  });

  it('reads optional on a gate and the retry delays of a provider', () => {
    const config = parseConfig(
      [
        'providers:',
        '  local: { base_url: "http://127.0.0.1:8000/v1", retry_base_delay_ms: 0, retry_max_delay_ms: 2000 }',
        base,
        'gates:',
        '  - { metric: probe.accuracy, strategy: full, min: 0.5, optional: true }',
        '  - { metric: probe.accuracy, strategy: full, min: 0.5, optional: false }',
      ].join('\n'),
      '/tmp/c.yaml',
    );
    expect(config.providers.local).toMatchObject({ retry_base_delay_ms: 0, retry_max_delay_ms: 2000 });
    expect(config.gates.map((g) => g.optional)).toEqual([true, false]);
  });
});
