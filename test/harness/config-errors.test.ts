import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../harness/config.js';
import { DEFAULT_LIMITS, overLimit } from '../../harness/schema/limits.js';
import { evaluateGates } from '../../reports/gate.js';
import { sampleRun } from '../helpers/sample-run.js';
import type { AgentInputItem } from '../../core/types.js';
import { MemoryStrategy } from '../../strategies/base.js';
import type { StrategyDefinition, StrategyOptions } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import { thrown } from '../helpers/errors.js';

class KeepAll extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    return [...this.history];
  }
}

const definition1: StrategyDefinition = {
  use: 'test-window',
  doc: 'test definition',
  options: {
    max_turns: { type: 'int', required: true, min: 1, doc: 'turns kept' },
    ratio: { type: 'number', min: 0, max: 1, default: 0.5, doc: 'a share' },
    verbose: { type: 'boolean', default: false, doc: 'a flag' },
    label: { type: 'string', doc: 'a name' },
    tools: { type: 'string-list', doc: 'tool names' },
  },
  create: () => new KeepAll(),
};

const definition2: StrategyDefinition = {
  use: 'test-summary',
  doc: 'test definition with a summarizer',
  options: {
    context_limit: { type: 'int', required: true, min: 1, doc: 'turns before summarising' },
    keep: { type: 'int', required: true, min: 0, doc: 'turns kept' },
    summarizer: { type: 'summarizer', doc: 'summarizer' },
  },
  check: (o: StrategyOptions) => (Number(o.keep) > Number(o.context_limit) ? [`keep (${String(o.keep)}) must not exceed context_limit (${String(o.context_limit)})`] : []),
  create: () => new KeepAll(),
};

// Strategies of this test beside the built-in ones, passed to the parser explicitly.
const REGISTRY = STRATEGIES.with([definition1, definition2]);

const FILE = 'suite/memeval.yaml';

function problems(lines: string[], file = FILE): string[] {
  return thrown(() => parseConfig(lines.join('\n'), file, REGISTRY));
}

function expectProblem(found: string[], at: string, fragment: string, file = FILE): void {
  const matches = found.filter((l) => l.startsWith(`${file}:${at}: `) && l.includes(fragment));
  expect(matches, `no "${fragment}" at ${at} in:\n${found.join('\n')}`).toHaveLength(1);
}

const WINDOW = ['strategies:', '  - { id: w, use: test-window, max_turns: 3 }'];

describe('config options of strategies', () => {
  it('loads test definitions with defaults filled in', () => {
    const config = parseConfig(WINDOW.join('\n'), FILE, REGISTRY);
    expect(config.strategies).toEqual([{ id: 'w', use: 'test-window', options: { max_turns: 3, ratio: 0.5, verbose: false } }]);
  });

  it('requires a non-empty strategies list', () => {
    expectProblem(problems(['model: offline']), '1:1', 'the config is missing "strategies"');
    expectProblem(problems(['strategies: []']), '1:13', '"strategies" in the config must not be an empty list');
    expectProblem(problems(['']), '1:1', 'the config is empty');
  });

  it('names an unknown strategy and lists the registered ones', () => {
    expectProblem(
      problems(['strategies:', '  - { id: w, use: test-windw }']),
      '2:19',
      'unknown strategy "test-windw" in strategy "w" (did you mean "test-window"? registered: full-history, observation-masking, openai-compaction, retrieval, sliding-window, soft-limit-compaction, summarizing, test-summary, test-window, token-budget, trimming)',
    );
  });

  it('checks option names, types and ranges', () => {
    const found = problems([
      'strategies:',
      '  - id: a',
      '    use: test-window',
      '    max_turn: 3',
      '  - { id: b, use: test-window, max_turns: 0, ratio: 2, verbose: "yes", label: [x] }',
      '  - { id: c, use: test-window, max_turns: 2.5 }',
    ]);
    expectProblem(found, '4:5', 'unknown option "max_turn" in strategy "a" (use: test-window) (did you mean "max_turns"?)');
    expectProblem(found, '2:5', 'strategy "a" needs option "max_turns" (turns kept)');
    expectProblem(found, '5:43', '"max_turns" in strategy "b" must be at least 1, not 0');
    expectProblem(found, '5:53', '"ratio" in strategy "b" must be between 0 and 1, not 2');
    expectProblem(found, '5:65', '"verbose" in strategy "b" must be true or false, not text');
    expectProblem(found, '5:79', '"label" in strategy "b" must be text, not a list');
    expectProblem(found, '6:43', '"max_turns" in strategy "c" must be a whole number, not the number 2.5');
  });

  it('checks a list option: a list of non-empty texts, each checked at its entry', () => {
    const found = problems([
      'strategies:',
      '  - { id: b, use: test-window, max_turns: 1, tools: read_file }',
      '  - { id: c, use: test-window, max_turns: 1, tools: [read_file, "", [x]] }',
    ]);
    expectProblem(found, '2:53', '"tools" in strategy "b" must be a list, not text');
    expectProblem(found, '3:65', 'entry 2 of "tools" in strategy "c" must not be empty');
    expectProblem(found, '3:69', 'entry 3 of "tools" in strategy "c" must be text, not a list');
    expect(found).toHaveLength(3);
    const config = parseConfig(['strategies:', '  - { id: w, use: test-window, max_turns: 1, tools: [read_file, 7] }'].join('\n'), FILE, REGISTRY);
    expect(config.strategies[0].options.tools).toEqual(['read_file', '7']);
  });

  it('checks observation-masking options', () => {
    const found = problems(['strategies:', '  - { id: a, use: observation-masking, keep_last: -1, exclude_tools: [""] }']);
    expectProblem(found, '2:51', '"keep_last" in strategy "a" must be at least 0, not -1');
    expectProblem(found, '2:71', 'entry 1 of "exclude_tools" in strategy "a" must not be empty');
    expect(found).toHaveLength(2);
    const config = parseConfig(['strategies:', '  - { id: m, use: observation-masking, exclude_tools: [read_file] }'].join('\n'), FILE, REGISTRY);
    expect(config.strategies).toEqual([{ id: 'm', use: 'observation-masking', options: { keep_last: 3, exclude_tools: ['read_file'] } }]);
  });

  it('refuses a compaction model that cannot take a Responses API call: offline at the entry, an api: chat one at the option', () => {
    const found = problems([
      'providers:',
      '  local: { base_url: "http://127.0.0.1:8000/v1", api: chat }',
      '  gateway: { base_url: "http://127.0.0.1:9000/v1" }',
      'strategies:',
      '  - { id: a, use: openai-compaction, model: offline }',
      '  - { id: b, use: openai-compaction, model: local:gpt-4.1-mini }',
      '  - { id: c, use: openai-compaction, model: gateway:gpt-4.1-mini }',
      '  - { id: d, use: openai-compaction, model: openai:gpt-4.1-mini }',
    ]);
    expectProblem(found, '5:5', 'strategy "a": needs a model on an OpenAI-compatible API');
    expectProblem(found, '6:45', '"model" "local:gpt-4.1-mini" in strategy "b" uses provider "local", which sets api: chat');
    expect(found).toHaveLength(2);
  });

  it("runs the definition's own check once the options are valid", () => {
    expectProblem(
      problems(['strategies:', '  - { id: s, use: test-summary, context_limit: 2, keep: 3 }']),
      '2:5',
      'strategy "s": keep (3) must not exceed context_limit (2)',
    );
  });

  it('checks strategy ids: unique, non-empty, usable on the command line', () => {
    const found = problems([
      'strategies:',
      '  - { id: w, use: test-window, max_turns: 1 }',
      '  - { id: w, use: test-window, max_turns: 2 }',
      '  - { id: "", use: test-window, max_turns: 2 }',
      '  - { id: "a,b", use: test-window, max_turns: 2 }',
    ]);
    expectProblem(found, '3:11', 'duplicate strategy id "w" (first defined at suite/memeval.yaml:2:11)');
    expectProblem(found, '4:11', 'strategy id "" must start with a letter or digit');
    expectProblem(found, '5:11', 'strategy id "a,b" must start with a letter or digit and use only letters, digits');
  });

  it('checks the summarizer block and resolves its prompt against the config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-cfg-'));
    writeFileSync(join(dir, 'p.md'), 'prompt');
    const file = join(dir, 'm.yaml');
    const ok = parseConfig(['strategies:', '  - { id: s, use: test-summary, context_limit: 4, keep: 2, summarizer: { prompt: p.md, word_limit: 120 } }'].join('\n'), file, REGISTRY);
    expect(ok.strategies[0].options.summarizer).toEqual({ model: 'offline', prompt: join(dir, 'p.md'), max_tokens: 400, tool_trim_limit: 600, word_limit: 120 });
    const found = problems(
      [
        'strategies:',
        '  - id: s',
        '    use: test-summary',
        '    context_limit: 4',
        '    keep: 2',
        '    summarizer:',
        '      model: gpt-4',
        '      prompt: missing.md',
        '      max_token: 10',
      ],
      file,
    );
    expectProblem(found, '7:14', '"model" "gpt-4" in the summarizer of strategy "s" is not a model name (use offline, openai:<model> or <provider>:<model>)', file);
    expectProblem(found, '8:15', 'prompt file "missing.md" of strategy "s" not found', file);
    expectProblem(found, '9:7', 'unknown key "max_token" in the summarizer of strategy "s" (did you mean "max_tokens"?)', file);
  });
});

describe('config top level', () => {
  it('rejects unknown keys with a suggestion', () => {
    expectProblem(problems(['modle: offline', ...WINDOW]), '1:1', 'unknown key "modle" in the config (did you mean "model"?)');
  });

  it('checks scalar settings', () => {
    const found = problems([
      'repeat: 0',
      'concurrency: -1',
      'cache: true',
      'agent: agents',
      'out: [a]',
      'datasets: []',
      'model: mystery:model',
      'judge: offlne',
      'baseline: ful',
      ...WINDOW,
    ]);
    expectProblem(found, '1:9', '"repeat" in the config must be at least 1, not 0');
    expectProblem(found, '2:14', '"concurrency" in the config must be at least 1, not -1');
    expectProblem(found, '3:8', '"cache" in the config must be a directory path or false, not true');
    expectProblem(found, '4:8', '"agent" in the config must be one of direct, runner, not "agents"');
    expectProblem(found, '5:6', '"out" in the config must be text, not a list');
    expectProblem(found, '6:11', '"datasets" in the config must list at least one glob');
    expectProblem(found, '7:8', '"model" "mystery:model" in the config uses provider "mystery", which is not defined under "providers:" (known: openai)');
    expectProblem(found, '8:8', '"judge" "offlne" in the config is not a model name');
    expectProblem(found, '9:11', '"baseline" "ful" is not a strategy id in this config (configured: w)');
  });

  it('checks gates', () => {
    const found = problems([
      ...WINDOW,
      'gates:',
      '  - { metric: probe.accuracy, strategy: w }',
      '  - { strategy: w, min: 0.5 }',
      '  - { metric: m, strategy: nope, min: 0.5 }',
      '  - { metric: m, strategy: w, max_drop: 0.1, vs: yesterday }',
      '  - { metric: m, strategy: w, min: 0.5, vs: baseline-run, treshold: 1 }',
      '  - { metric: m, strategy: "*", max_drop: 0.1 }',
      '  - { metric: m, strategy: w, min: 0.9, max: 0.1, significant: 1 }',
    ]);
    expectProblem(found, '4:5', 'gate 1 needs at least one of "min", "max" or "max_drop"');
    expectProblem(found, '5:5', 'gate 2 is missing "metric"');
    expectProblem(found, '6:28', 'gate 3 names strategy "nope", which is not configured (use "*" or one of: w)');
    expectProblem(found, '7:50', '"vs" in gate 4 must be one of baseline-run, baseline-strategy, not "yesterday"');
    expectProblem(found, '8:45', '"vs" in gate 5 only applies together with "max_drop"');
    expectProblem(found, '8:59', 'unknown key "treshold" in gate 5 (expected one of: metric, strategy, min, max, max_drop, vs, significant, optional)');
    expectProblem(found, '9:43', 'gate 6 compares against the baseline strategy, but the config sets no "baseline:"');
    expectProblem(found, '10:46', 'gate 7 has max 0.1 below min 0.9');
    expectProblem(found, '10:64', '"significant" in gate 7 must be true or false, not the number 1');
  });

  it('refuses gate thresholds outside what the metric can be, and significant without max_drop', () => {
    const found = problems([
      ...WINDOW,
      'baseline: w',
      'gates:',
      '  - { metric: probe.accuracy, strategy: w, max_drop: 5, vs: baseline-run }',
      '  - { metric: probe.reader_gap, strategy: w, max: 30 }',
      '  - { metric: probe.accuracy, strategy: w, min: -1 }',
      '  - { metric: summary.judge.overall, strategy: w, min: 6 }',
      '  - { metric: probe.accuracy.recall, strategy: w, min: 0.9, significant: true }',
      '  - { metric: context.mean_tokens, strategy: w, max: 50000, max_drop: 100, vs: baseline-run }',
      '  - { metric: probe.accuracy, strategy: w, min: 0, max: 1, max_drop: 1, vs: baseline-run }',
      '  - { metric: facts.critical_dropped, strategy: w, max: -1 }',
      '  - { metric: probe.errors, strategy: w, min: -2 }',
    ]);
    expectProblem(found, '5:54', '"max_drop" 5 in gate 1 is more than probe.accuracy can move (0 to 1), so the gate could never fail (rates are fractions: 0.05 is 5 points)');
    expectProblem(found, '6:51', '"max" 30 in gate 2 is outside what probe.reader_gap can be (0 to 1), so the gate could never fail');
    expectProblem(found, '7:49', '"min" -1 in gate 3 is outside what probe.accuracy can be (0 to 1), so the gate could never fail');
    expectProblem(found, '8:56', '"min" 6 in gate 4 is outside what summary.judge.overall can be (1 to 5), so the gate could never pass');
    expectProblem(found, '9:74', '"significant" in gate 5 only applies together with "max_drop"');
    expectProblem(found, '12:57', '"max" -1 in gate 8 is outside what facts.critical_dropped can be (0 or more), so the gate could never pass');
    expectProblem(found, '13:47', '"min" -2 in gate 9 is outside what probe.errors can be (0 or more), so the gate could never fail');
    expect(found).toHaveLength(7);
  });

  it('refuses a max_drop gate on the baseline strategy itself (a drop against itself is always 0)', () => {
    const found = problems(['strategies:', '  - { id: w, use: test-window, max_turns: 3 }', '  - { id: v, use: test-window, max_turns: 2 }', 'baseline: w', 'gates:', '  - { metric: probe.accuracy, strategy: w, max_drop: 0.05 }', '  - { metric: probe.accuracy, strategy: v, max_drop: 0.05 }', '  - { metric: probe.accuracy, strategy: w, max_drop: 0.05, vs: baseline-run }']);
    expectProblem(found, '6:41', 'gate 1 measures a drop of "w" against the baseline strategy, which is "w" itself');
    expect(found).toHaveLength(1);
  });

  it('records where each gate is and defaults vs for max_drop', () => {
    const config = parseConfig([...WINDOW, '  - { id: v, use: test-window, max_turns: 2 }', 'baseline: w', 'gates:', '  - { metric: probe.f1, strategy: v, max_drop: 0.1 }'].join('\n'), FILE, REGISTRY);
    expect(config.gates).toEqual([{ metric: 'probe.f1', strategy: 'v', max_drop: 0.1, vs: 'baseline-strategy', where: 'suite/memeval.yaml:6:5' }]);
  });

  it('checks providers and prices and never echoes a pasted key', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const found = problems([
      'providers:',
      `  local: { base_url: "http://user:pw@127.0.0.1/v1", api_key_env: "${key}", api: grpc, timeout_ms: 0 }`,
      '  "bad name": {}',
      '  other: { api_key: x }',
      'prices:',
      '  openai:gpt-4.1: { input: -1 }',
      ...WINDOW,
    ]);
    const text = found.join('\n');
    expect(text).not.toContain(key);
    expect(text).not.toContain('user:pw');
    expectProblem(found, '2:22', '"base_url" in provider "local" must not contain credentials; name the key with "api_key_env"');
    expectProblem(found, '2:66', '"api_key_env" in provider "local" must be the name of an environment variable (e.g. MY_API_KEY), never the key itself');
    expectProblem(found, '2:119', '"api" in provider "local" must be one of responses, chat, not "grpc"');
    expectProblem(found, '2:137', '"timeout_ms" in provider "local" must be between 1 and 2147483647, not 0');
    expectProblem(found, '3:3', 'provider name "bad name" must use only letters');
    expectProblem(found, '4:12', 'unknown key "api_key" in provider "other" (did you mean "api_key_env"?)');
    expectProblem(found, '6:19', 'the price of "openai:gpt-4.1" is missing "output"');
    expectProblem(found, '6:28', '"input" in the price of "openai:gpt-4.1" must be at least 0, not -1');
  });

  it('refuses a YAML merge key (<<) at its place, saying it is not read, rather than only missing keys', () => {
    const found = problems(['strategies:', '  - &t { id: t1, use: test-window, max_turns: 3 }', '  - <<: *t', '    id: t2']);
    expectProblem(found, '3:5', 'strategy "t2" uses a merge key (<<), which memeval does not read');
  });

  it('refuses a base_url carrying a credential in its query (run.json records the config), and keeps other queries', () => {
    const found = problems([
      'providers:',
      '  a: { base_url: "http://127.0.0.1:9/v1?key=qq7Zx9PlmN44" }',
      '  b: { base_url: "https://x.example/v1?api-version=2024-10-21", timeout_ms: 2147483648 }',
      '  c: { base_url: "https://x.example/v1?access_token=abc&x=1" }',
      ...WINDOW,
    ]);
    expect(found.join('\n')).not.toContain('qq7Zx9PlmN44');
    expectProblem(found, '2:18', '"base_url" in provider "a" must not carry a credential in its query (parameter "key")');
    expectProblem(found, '4:18', '"base_url" in provider "c" must not carry a credential in its query (parameter "access_token")');
    expectProblem(found, '3:77', '"timeout_ms" in provider "b" must be between 1 and 2147483647, not 2147483648');
    expect(found).toHaveLength(3);
  });

  it('checks max_errors, baseline_run, optional and retry delays at their positions', () => {
    const found = problems([
      'max_errors: 2.5',
      'baseline_run: ""',
      'providers:',
      '  p: { retry_base_delay_ms: -1, retry_max_delay_ms: 1.5 }',
      '  q: { retry_base_delay_ms: 500, retry_max_delay_ms: 100 }',
      ...WINDOW,
      'gates:',
      '  - { metric: m, strategy: w, min: 0.5, optional: yes }',
      '  - { metric: m, strategy: w, min: 0.5, optinal: true }',
    ]);
    expectProblem(found, '1:13', '"max_errors" in the config must be a whole number of errored items (0 or more) or a percentage from 0% to 100% such as "2%", not the number 2.5');
    expectProblem(found, '2:15', '"baseline_run" in the config must not be empty');
    expectProblem(found, '4:29', '"retry_base_delay_ms" in provider "p" must be between 0 and 2147483647, not -1');
    expectProblem(found, '4:53', '"retry_max_delay_ms" in provider "p" must be a whole number, not the number 1.5');
    expectProblem(found, '5:54', '"retry_max_delay_ms" in provider "q" (100) must not be below "retry_base_delay_ms" (500)');
    expectProblem(found, '9:51', '"optional" in gate 1 must be true or false, not text');
    expectProblem(found, '10:41', 'unknown key "optinal" in gate 2 (did you mean "optional"?)');
  });

  it('rejects a max_errors that is neither a count nor a percentage up to 100%', () => {
    const bad = (value: string) => problems([`max_errors: ${value}`, ...WINDOW]);
    expectProblem(bad('-1'), '1:13', 'not the number -1');
    expectProblem(bad('"150%"'), '1:13', 'a percentage from 0% to 100% such as "2%", not "150%"');
    expectProblem(bad('lots'), '1:13', 'not "lots"');
    expectProblem(bad('[1]'), '1:13', 'not a list');
    expectProblem(bad(''), '1:1', 'not empty');
  });

  it('stores only the name of the key variable', () => {
    const config = parseConfig(['providers:', '  gw: { api_key_env: GW_KEY }', 'model: gw:m', ...WINDOW].join('\n'), FILE, REGISTRY);
    expect(config.providers).toEqual({ gw: { api_key_env: 'GW_KEY' } });
    expect(config.model).toBe('gw:m');
  });
});


const HINT = (name: string) => `(the bound limits.${name}; raise it under "limits:" in the suite config if this is really meant)`;

describe('limits of the config', () => {
  it('refuses repeat, judge_samples and concurrency past their bounds, at the value', () => {
    const found = problems(['repeat: 1000000000', 'judge_samples: 21', 'concurrency: 100000', ...WINDOW]);
    expectProblem(found, '1:9', `"repeat" in the config must be at most 100 ${HINT('max_repeat')}, not 1000000000`);
    expectProblem(found, '2:16', `"judge_samples" in the config must be at most 20 ${HINT('max_judge_samples')}, not 21`);
    expectProblem(found, '3:14', `"concurrency" in the config must be at most 256 ${HINT('max_concurrency')}, not 100000`);
    expect(found).toHaveLength(3);
    // A value that is not a whole number is one problem, not two.
    expect(problems(['repeat: 1e300', ...WINDOW])).toEqual([`${FILE}:1:9: "repeat" in the config must be a whole number, not the number 1e300`]);
  });

  it('takes the bounds of "limits:" instead of the defaults, and fills the ones left out', () => {
    const config = parseConfig(['limits: { max_repeat: 1000, max_concurrency: 512 }', 'repeat: 500', 'concurrency: 300', ...WINDOW].join('\n'), FILE, REGISTRY);
    expect(config.repeat).toBe(500);
    expect(config.concurrency).toBe(300);
    expect(config.limits).toEqual({ ...DEFAULT_LIMITS, max_repeat: 1000, max_concurrency: 512 });
    expect(parseConfig(WINDOW.join('\n'), FILE, REGISTRY).limits).toEqual(DEFAULT_LIMITS);
    // A lowered bound applies as well.
    expectProblem(problems(['limits: { max_repeat: 2 }', 'repeat: 3', ...WINDOW]), '2:9', '"repeat" in the config must be at most 2');
  });

  it('checks the limits block itself, with a suggestion for a misspelt bound', () => {
    const found = problems(['limits:', '  max_repeat: 0', '  max_filemb: 4', '  max_keys: lots', ...WINDOW]);
    expectProblem(found, '2:15', '"max_repeat" in "limits" in the config must be at least 1, not 0');
    expectProblem(found, '3:3', 'unknown key "max_filemb" in "limits" in the config (did you mean "max_file_mb"?)');
    expectProblem(found, '4:13', '"max_keys" in "limits" in the config must be a whole number, not text');
    expectProblem(problems(['limits: 5', ...WINDOW]), '1:9', '"limits" in the config must be a mapping of bounds');
  });

  it('words a bound the same for the flags that share it', () => {
    expect(overLimit(100, 'max_repeat')).toBeUndefined();
    expect(overLimit(101, 'max_repeat')).toBe(`at most 100 ${HINT('max_repeat')}`);
    expect(overLimit(101, 'max_repeat', { ...DEFAULT_LIMITS, max_repeat: 200 })).toBeUndefined();
  });

  it('refuses a config with a 200,000-key mapping at its 10,001st key, in well under 10 s', () => {
    const prices = Array.from({ length: 200_000 }, (_, i) => `  m${i}: { input: 1, output: 1 }`);
    const start = performance.now();
    const found = problems([...WINDOW, 'prices:', ...prices]);
    expect(found).toEqual([`${FILE}:10004:3: the mapping has more than 10000 keys ${HINT('max_keys')}`]);
    expect(performance.now() - start).toBeLessThan(10_000);
  }, 10_000);
});

describe('gate metrics', () => {
  it('refuses an unknown metric at its value, with a suggestion for a typo', () => {
    const found = problems([
      ...WINDOW,
      'gates:',
      '  - { metric: probe.acuracy, strategy: w, min: 0.5 }',
      '  - { metric: probe.accuracy.recal, strategy: w, min: 0.5 }',
      '  - { metric: kind.recal.accuracy, strategy: w, min: 0.5 }',
      '  - { metric: probe.accuracy.recall, strategy: w, min: 0.5 }',
    ]);
    expectProblem(found, '4:15', 'unknown metric "probe.acuracy" in gate 1 (did you mean "probe.accuracy"?)');
    expectProblem(found, '5:15', 'unknown metric "probe.accuracy.recal" in gate 2 (did you mean "probe.accuracy.recall"?)');
    expectProblem(found, '6:15', 'unknown metric "kind.recal.accuracy" in gate 3 (known metrics: probe.accuracy, probe.accuracy_graded, probe.accuracy.recall,');
    expect(found).toHaveLength(3);
  });

  it('gives the same suggestion for a gate recorded in a run, which the config loader never saw', () => {
    const where = 'memeval.config.yaml:10:5';
    const typo = thrown(() => evaluateGates(sampleRun(), [{ metric: 'summary.judge.overal', strategy: '*', min: 4, where }]));
    expect(typo).toEqual([`${where}: unknown metric "summary.judge.overal" (did you mean "summary.judge.overall"?)`]);
    const unknown = thrown(() => evaluateGates(sampleRun(), [{ metric: 'vibes', strategy: '*', min: 4, where }]));
    expect(unknown).toEqual([expect.stringMatching(/^memeval\.config\.yaml:10:5: unknown metric "vibes" \(known metrics: probe\.accuracy, .*latency\.p50\)$/)]);
  });
});

describe('paths of the config, checked when it is loaded', () => {
  function suite(): { dir: string; file: string } {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-paths-'));
    return { dir, file: join(dir, 'memeval.yaml') };
  }

  it('refuses an out or cache that is a file, or lies below one', () => {
    const { dir, file } = suite();
    writeFileSync(join(dir, 'taken'), 'a file\n');
    const found = problems(['out: taken', 'cache: taken/cache', ...WINDOW], file);
    expectProblem(found, '1:6', `"out" in the config is a file, not a folder (${join(dir, 'taken')})`, file);
    expectProblem(found, '2:8', `"cache" in the config cannot be created: ${join(dir, 'taken')} is a file, not a folder`, file);
    const deeper = problems(['out: taken/a/b/c', ...WINDOW], file);
    expectProblem(deeper, '1:6', `"out" in the config cannot be created: ${join(dir, 'taken')} is a file, not a folder`, file);
    // The default out is checked too, at the top of the file.
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'runs'), 'a file\n');
    expectProblem(problems(WINDOW, join(dir, 'sub', 'memeval.yaml')), '1:1', '"out" in the config is a file, not a folder', join(dir, 'sub', 'memeval.yaml'));
  });

  it('accepts folders that exist or can be created, and creates none of them', () => {
    const { dir, file } = suite();
    mkdirSync(join(dir, 'kept'));
    const config = parseConfig(['out: not/yet/there', 'cache: also/new', 'baseline_run: kept', ...WINDOW].join('\n'), file, REGISTRY);
    expect(config.out).toBe(join(dir, 'not/yet/there'));
    expect(existsSync(join(dir, 'not'))).toBe(false);
    expect(existsSync(join(dir, 'also'))).toBe(false);
  });

  it('refuses a baseline_run that is a file, but not one that does not exist yet', () => {
    const { dir, file } = suite();
    writeFileSync(join(dir, 'run.json'), '{}');
    expectProblem(problems(['baseline_run: run.json', ...WINDOW], file), '1:15', `"baseline_run" in the config is a file, not a run folder (${join(dir, 'run.json')})`, file);
    expectProblem(problems(['baseline_run: run.json/older', ...WINDOW], file), '1:15', `cannot be created: ${join(dir, 'run.json')} is a file`, file);
    expect(parseConfig(['baseline_run: first/run', ...WINDOW].join('\n'), file, REGISTRY).baseline_run).toBe(join(dir, 'first/run'));
  });

  it('refuses a prompt that is a folder, too big or not UTF-8, at the prompt value', () => {
    const { dir, file } = suite();
    mkdirSync(join(dir, 'prompts'));
    writeFileSync(join(dir, 'big.md'), 'x'.repeat(1024 * 1024 + 1));
    writeFileSync(join(dir, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const strategy = (id: string, prompt: string) => `  - { id: ${id}, use: test-summary, context_limit: 4, keep: 1, summarizer: { prompt: ${prompt} } }`;
    const found = problems(['limits: { max_file_mb: 1 }', 'strategies:', strategy('a', 'prompts'), strategy('b', 'big.md'), strategy('c', 'latin1.md'), strategy('d', 'gone.md')], file);
    expectProblem(found, '3:82', `prompt file "prompts" of strategy "a" is a folder, not a file (${join(dir, 'prompts')})`, file);
    expectProblem(found, '4:82', `prompt file "big.md" of strategy "b" cannot be used: ${join(dir, 'big.md')}: the file is 1048577 bytes, over the 1 MB limit for one file`, file);
    expectProblem(found, '5:82', `prompt file "latin1.md" of strategy "c" cannot be used: ${join(dir, 'latin1.md')}:1:4: invalid UTF-8 (byte 0xE9 followed by 0x0A)`, file);
    expectProblem(found, '6:82', `prompt file "gone.md" of strategy "d" not found (looked for ${join(dir, 'gone.md')})`, file);
  });
});

describe('reading the config file', () => {
  it('reports invalid UTF-8 in the config at its line and column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-utf8-'));
    const file = join(dir, 'memeval.yaml');
    writeFileSync(file, Buffer.concat([Buffer.from('model: offline\nstrategies:\n  - { id: caf'), Buffer.from([0xe9]), Buffer.from(', use: full-history }\n')]));
    expect(thrown(() => loadConfig(file))).toEqual([
      `${file}:3:14: invalid UTF-8 (byte 0xE9 followed by 0x2C); save the file as UTF-8 (it may be in Latin-1 or Windows-1252)`,
    ]);
  });

  it('refuses a config file over the default size without reading it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-big-config-'));
    const file = join(dir, 'memeval.yaml');
    writeFileSync(file, `# ${'x'.repeat(17 * 1024 * 1024)}\nstrategies: [{ use: full-history }]\n`);
    try {
      expect(thrown(() => loadConfig(file))).toEqual([`${file}: the file is 17 MB, over the 16 MB limit for one file`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
