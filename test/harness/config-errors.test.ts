import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../harness/config.js';
import { type InputError, isInputError } from '../../core/errors.js';
import type { AgentInputItem } from '../../core/types.js';
import { MemoryStrategy } from '../../strategies/base.js';
import type { StrategyDefinition, StrategyOptions } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';

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
  try {
    parseConfig(lines.join('\n'), file, REGISTRY);
  } catch (e) {
    expect(isInputError(e)).toBe(true);
    return (e as InputError).message.split('\n');
  }
  throw new Error('expected an InputError');
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
      'unknown strategy "test-windw" in strategy "w" (did you mean "test-window"? registered: full-history, sliding-window, soft-limit-compaction, summarizing, test-summary, test-window, token-budget, trimming)',
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

  it('records where each gate is and defaults vs for max_drop', () => {
    const config = parseConfig([...WINDOW, 'baseline: w', 'gates:', '  - { metric: m, strategy: w, max_drop: 0.1 }'].join('\n'), FILE, REGISTRY);
    expect(config.gates).toEqual([{ metric: 'm', strategy: 'w', max_drop: 0.1, vs: 'baseline-strategy', where: 'suite/memeval.yaml:5:5' }]);
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
    expectProblem(found, '2:137', '"timeout_ms" in provider "local" must be at least 1, not 0');
    expectProblem(found, '3:3', 'provider name "bad name" must use only letters');
    expectProblem(found, '4:12', 'unknown key "api_key" in provider "other" (did you mean "api_key_env"?)');
    expectProblem(found, '6:19', 'the price of "openai:gpt-4.1" is missing "output"');
    expectProblem(found, '6:28', '"input" in the price of "openai:gpt-4.1" must be at least 0, not -1');
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
    expectProblem(found, '4:29', '"retry_base_delay_ms" in provider "p" must be at least 0, not -1');
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
