// Loads the suite config (docs/config-format.md is the contract). Like
// transcripts, every problem is collected with its file:line:col and thrown
// once. The config only ever holds the *name* of an API key's variable.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_SUMMARIZER, type StrategyRegistry } from '../strategies/registry.js';
import { STRATEGIES } from '../strategies/index.js';
import type { OptionSpec, StrategyDefinition, StrategyOptions, SummarizerOptions } from '../strategies/registry.js';
import type { GateConfig, MaxErrors } from '../core/types.js';
import { InputError, fileProblem } from '../core/errors.js';
import { parseMaxErrors } from './run/verdict.js';
import { MapReader, YamlSource, describe, didYouMean, isMap, isScalar, quote, readMap, scalarText, type YNode } from './yaml-source.js';

export interface ProviderConfig {
  base_url?: string;
  api_key_env?: string;
  api?: 'responses' | 'chat';
  timeout_ms?: number;
  max_attempts?: number;
  /** Backoff cap of the first retry (doubles per attempt) and of any retry, in ms. */
  retry_base_delay_ms?: number;
  retry_max_delay_ms?: number;
}

/** USD per 1M tokens. */
export interface PriceConfig {
  input: number;
  output: number;
}

export interface StrategyConfig {
  id: string;
  use: string;
  options: StrategyOptions;
}



export type { GateConfig, MaxErrors };

export interface SuiteConfig {
  file?: string;
  baseDir: string;
  datasets: string[];
  out: string;
  model: string;
  judge: string;
  concurrency: number;
  repeat: number;
  /** Summary-judge samples per summary, folded by majority vote (median for scores). */
  judge_samples: number;
  cache: string | false;
  baseline?: string;
  /** A previous run directory (resolved against the config's folder) that `vs: baseline-run` gates compare with. */
  baseline_run?: string;
  max_errors: MaxErrors;
  /** Probes sent directly to the model, or through the @openai/agents runner. */
  agent: 'direct' | 'runner';
  strategies: StrategyConfig[];
  gates: GateConfig[];
  providers: Record<string, ProviderConfig>;
  prices: Record<string, PriceConfig>;
}

const TOP_KEYS = [
  'datasets', 'out', 'model', 'judge', 'concurrency', 'repeat', 'judge_samples', 'cache', 'baseline',
  'baseline_run', 'max_errors', 'agent', 'strategies', 'gates', 'providers', 'prices',
] as const;
const SUMMARIZER_KEYS = ['model', 'prompt', 'max_tokens', 'tool_trim_limit', 'word_limit'] as const;
const GATE_KEYS = ['metric', 'strategy', 'min', 'max', 'max_drop', 'vs', 'significant', 'optional'] as const;
const PROVIDER_KEYS = ['base_url', 'api_key_env', 'api', 'timeout_ms', 'max_attempts', 'retry_base_delay_ms', 'retry_max_delay_ms'] as const;
const PRICE_KEYS = ['input', 'output'] as const;
const GATE_VS = ['baseline-run', 'baseline-strategy'] as const;
const AGENTS = ['direct', 'runner'] as const;
const APIS = ['responses', 'chat'] as const;
const MAX_ERRORS_FORMS = 'a whole number of errored items (0 or more) or a percentage from 0% to 100% such as "2%"';
/** Ids appear in CLI lists (`--strategies a,b`), file names and gate patterns. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const PROVIDER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const DEFAULTS = {
  // datasets/calibration/ holds labelled summaries for judge calibration, not transcripts.
  datasets: ['datasets/**/*.yaml', '!datasets/calibration/**'],
  out: 'runs',
  model: 'offline',
  judge: 'offline',
  concurrency: 8,
  repeat: 1,
  judge_samples: 1,
  cache: '.memeval/cache',
  agent: 'direct',
} as const;

/** One errored item and the run is incomplete: a number nobody measured must not pass a gate. */
function defaultMaxErrors(): MaxErrors {
  return { kind: 'count', value: 0 };
}

/** What runs when there is no config file: the strategies of the spec's example that are registered. */
const DEFAULT_STRATEGIES: { id: string; use: string; options: Record<string, number> }[] = [
  { id: 'full', use: 'full-history', options: {} },
  { id: 'trim-3', use: 'trimming', options: { max_turns: 3 } },
  { id: 'summarize-4-2', use: 'summarizing', options: { context_limit: 4, keep_last_n_turns: 2 } },
  { id: 'budget-2k', use: 'token-budget', options: { max_tokens: 2000 } },
];

export function defaultConfig(baseDir: string, registry: StrategyRegistry = STRATEGIES): SuiteConfig {
  const base = resolve(baseDir);
  const strategies: StrategyConfig[] = [];
  for (const s of DEFAULT_STRATEGIES) {
    const def = registry.get(s.use);
    if (!def) continue;
    const options = plainOptions(def, s.options);
    if (options) strategies.push({ id: s.id, use: s.use, options });
  }
  const config: SuiteConfig = {
    baseDir: base,
    datasets: [...DEFAULTS.datasets],
    out: resolve(base, DEFAULTS.out),
    model: DEFAULTS.model,
    judge: DEFAULTS.judge,
    concurrency: DEFAULTS.concurrency,
    repeat: DEFAULTS.repeat,
    judge_samples: DEFAULTS.judge_samples,
    cache: resolve(base, DEFAULTS.cache),
    agent: DEFAULTS.agent,
    max_errors: defaultMaxErrors(),
    strategies,
    gates: [],
    providers: {},
    prices: {},
  };
  if (strategies.some((s) => s.id === 'full')) config.baseline = 'full';
  return config;
}

/** Options given in code, checked against the definition; undefined when they do not fit it. */
function plainOptions(def: StrategyDefinition, raw: Record<string, number>): StrategyOptions | undefined {
  const options: StrategyOptions = {};
  for (const [name, spec] of Object.entries(def.options)) {
    const value = raw[name] ?? spec.default;
    if (spec.type === 'summarizer') options[name] = { ...DEFAULT_SUMMARIZER };
    else if (value !== undefined) options[name] = value;
    else if (spec.required) return undefined;
  }
  if (Object.keys(raw).some((name) => !(name in def.options))) return undefined;
  return (def.check?.(options) ?? []).length === 0 ? options : undefined;
}

/** `registry`: the strategies `use:` may name (default: the built-in ones). */
export function loadConfig(path: string, registry: StrategyRegistry = STRATEGIES): SuiteConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new InputError([fileProblem(path, `cannot read config file (${typeof code === 'string' ? code : (e as Error).message})`)]);
  }
  return parseConfig(text, path, registry);
}

/** Parses a config; `file` names it in messages and its directory anchors relative paths. */
export function parseConfig(text: string, file: string, registry: StrategyRegistry = STRATEGIES): SuiteConfig {
  const src = YamlSource.parse(text, file);
  if (!src.ok) throw new InputError(src.problems);
  if (src.root === null) {
    src.report(null, 'the config is empty; it needs at least "strategies:"');
    throw new InputError(src.problems);
  }
  const top = readMap(src, src.root, 'the config', 'a mapping (datasets:, strategies:, ...)');
  if (!top) throw new InputError(src.problems);
  const config = readConfig(top, file, registry);
  if (!src.ok) throw new InputError(src.problems);
  return config;
}

function readConfig(top: MapReader, file: string, registry: StrategyRegistry): SuiteConfig {
  top.allow(TOP_KEYS);
  const baseDir = dirname(resolve(file));
  const providers = readProviders(top);
  const modelNames = new Set(['openai', ...Object.keys(providers)]);
  const strategies = readStrategies(top, baseDir, modelNames, registry);
  const ids = strategies.map((s) => s.id);
  const config: SuiteConfig = {
    file,
    baseDir,
    datasets: readDatasets(top),
    out: resolve(baseDir, top.string('out', { nonEmpty: true }) ?? DEFAULTS.out),
    model: readModelName(top, 'model', modelNames) ?? DEFAULTS.model,
    judge: readModelName(top, 'judge', modelNames) ?? DEFAULTS.judge,
    concurrency: top.int('concurrency', { min: 1 }) ?? DEFAULTS.concurrency,
    repeat: top.int('repeat', { min: 1 }) ?? DEFAULTS.repeat,
    judge_samples: top.int('judge_samples', { min: 1 }) ?? DEFAULTS.judge_samples,
    cache: readCache(top, baseDir),
    agent: readChoice(top, 'agent', AGENTS) ?? DEFAULTS.agent,
    max_errors: readMaxErrors(top) ?? defaultMaxErrors(),
    strategies,
    gates: [],
    providers,
    prices: readPrices(top),
  };
  const baseline = readBaseline(top, ids);
  if (baseline !== undefined) config.baseline = baseline;
  // Not checked for existence: the first run of a suite is what later becomes its baseline run.
  const baselineRun = top.string('baseline_run', { nonEmpty: true });
  if (baselineRun !== undefined) config.baseline_run = resolve(baseDir, baselineRun);
  config.gates = readGates(top, ids, baseline !== undefined);
  return config;
}

function readDatasets(top: MapReader): string[] {
  if (!top.has('datasets')) return [...DEFAULTS.datasets];
  const single = scalarText(top.value('datasets'));
  if (single !== undefined && single.trim() !== '') return [single];
  const list = top.stringList('datasets', { nonEmptyEntries: true });
  if (list === undefined) return [];
  if (list.length === 0) top.problem('datasets', '"datasets" in the config must list at least one glob');
  return list;
}

/** `max_errors:` as a count (`3`) or a percentage (`"2%"`, `2.5%`); undefined when absent or bad (reported). */
function readMaxErrors(top: MapReader): MaxErrors | undefined {
  if (!top.has('max_errors')) return undefined;
  const node = top.value('max_errors');
  const text = scalarText(node);
  // The same spelling as --max-errors, so the flag and the key cannot drift apart.
  const parsed = text === undefined ? undefined : parseMaxErrors(text);
  if (parsed) return parsed;
  const shown = node && isScalar(node) && typeof node.value === 'string' ? quote(node.value) : describe(node);
  top.problem('max_errors', `"max_errors" in the config must be ${MAX_ERRORS_FORMS}, not ${shown}`);
  return undefined;
}

function readCache(top: MapReader, baseDir: string): string | false {
  if (!top.has('cache')) return resolve(baseDir, DEFAULTS.cache);
  const node = top.value('cache');
  if (node && isScalar(node) && node.value === false) return false;
  if (node && isScalar(node) && typeof node.value === 'string' && node.value.trim() !== '') return resolve(baseDir, node.value);
  top.wrongType('cache', 'a directory path or false');
  return false;
}

function readChoice<T extends string>(reader: MapReader, key: string, choices: readonly T[]): T | undefined {
  const value = reader.word(key);
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  const guess = didYouMean(value, choices);
  const hint = guess ? ` (did you mean "${guess}"?)` : '';
  reader.problem(key, `"${key}" in ${reader.label} must be one of ${choices.join(', ')}, not ${quote(value)}${hint}`);
  return undefined;
}

/** Why a model name is not usable, or undefined when it is. */
function modelNameProblem(name: string, providers: Set<string>): string | undefined {
  if (name === 'offline') return undefined;
  const colon = name.indexOf(':');
  if (colon <= 0 || colon === name.length - 1 || /\s/.test(name)) {
    return `is not a model name (use offline, openai:<model> or <provider>:<model>)`;
  }
  const provider = name.slice(0, colon);
  if (providers.has(provider)) return undefined;
  const known = [...providers].sort().join(', ');
  return `uses provider "${provider}", which is not defined under "providers:" (known: ${known})`;
}

function readModelName(reader: MapReader, key: string, providers: Set<string>): string | undefined {
  const name = reader.word(key);
  if (name === undefined) return undefined;
  const problem = modelNameProblem(name, providers);
  if (problem === undefined) return name;
  reader.problem(key, `"${key}" ${quote(name)} in ${reader.label} ${problem}`);
  return undefined;
}

// ---------------------------------------------------------------- strategies

function readStrategies(top: MapReader, baseDir: string, providers: Set<string>, registry: StrategyRegistry): StrategyConfig[] {
  const nodes = top.list('strategies', { required: true, nonEmpty: true }) ?? [];
  const strategies: StrategyConfig[] = [];
  const firstAt = new Map<string, string>();
  nodes.forEach((node, i) => {
    const s = readStrategy(top.src, node, i + 1, baseDir, providers, registry);
    if (!s) return;
    const at = s.reader.at('id');
    const earlier = firstAt.get(s.config.id);
    if (earlier) top.src.report(at, `duplicate strategy id ${quote(s.config.id)} (first defined at ${earlier})`);
    else firstAt.set(s.config.id, top.src.where(at));
    strategies.push(s.config);
  });
  return strategies;
}

function readStrategy(
  src: YamlSource,
  node: YNode,
  index: number,
  baseDir: string,
  providers: Set<string>,
  registry: StrategyRegistry,
): { config: StrategyConfig; reader: MapReader } | undefined {
  const reader = readMap(src, node, strategyLabel(src, node, index));
  if (!reader) return undefined;
  const use = reader.word('use', { required: true });
  const id = readStrategyId(reader, use);
  if (use === undefined) return undefined;
  const def = registry.get(use);
  if (!def) {
    const guess = didYouMean(use, registry.names());
    const hint = guess ? `did you mean "${guess}"? ` : '';
    reader.problem('use', `unknown strategy ${quote(use)} in ${reader.label} (${hint}registered: ${registry.names().join(', ')})`);
    return undefined;
  }
  reader.allow(['id', 'use', ...Object.keys(def.options)], 'option', ` (use: ${use})`);
  const before = src.problems.length;
  const options = readOptions(reader, def, baseDir, providers);
  if (src.problems.length === before) {
    for (const message of def.check?.(options) ?? []) src.report(reader.node, `${reader.label}: ${message}`);
  }
  if (id === undefined) return undefined;
  return { config: { id, use, options }, reader };
}

function strategyLabel(src: YamlSource, node: YNode, index: number): string {
  const map = src.resolve(node);
  if (map && isMap(map)) {
    for (const pair of map.items) {
      if (isScalar(pair.key) && pair.key.value === 'id') {
        const id = scalarText(pair.value as YNode | null);
        if (id) return `strategy ${quote(id)}`;
      }
    }
  }
  return `strategy ${index}`;
}

/** `id` defaults to the `use` name, so `- use: full-history` alone is a valid entry. */
function readStrategyId(reader: MapReader, use: string | undefined): string | undefined {
  const id = reader.has('id') ? reader.word('id') : use;
  if (id === undefined) return undefined;
  if (!ID_PATTERN.test(id)) {
    reader.problem('id', `strategy id ${quote(id)} must start with a letter or digit and use only letters, digits, ".", "_" and "-"`);
    return undefined;
  }
  return id;
}

function readOptions(reader: MapReader, def: StrategyDefinition, baseDir: string, providers: Set<string>): StrategyOptions {
  const options: StrategyOptions = {};
  for (const [name, spec] of Object.entries(def.options)) {
    const value = readOption(reader, name, spec, baseDir, providers);
    if (value !== undefined) options[name] = value;
  }
  return options;
}

function readOption(
  reader: MapReader,
  name: string,
  spec: OptionSpec,
  baseDir: string,
  providers: Set<string>,
): StrategyOptions[string] {
  if (!reader.has(name)) {
    if (spec.required) reader.problem(name, `${reader.label} needs option "${name}" (${spec.doc})`);
    if (spec.type === 'summarizer') return { ...DEFAULT_SUMMARIZER };
    return spec.default;
  }
  const rule = { min: spec.min, max: spec.max };
  switch (spec.type) {
    case 'int':
      return reader.int(name, rule);
    case 'number':
      return reader.number(name, rule);
    case 'boolean':
      return reader.boolean(name);
    case 'string':
      return reader.string(name);
    case 'summarizer':
      return readSummarizer(reader, name, baseDir, providers);
  }
}

/** The `summarizer:` block; a bare model name is short for `{ model: <name> }`. */
function readSummarizer(reader: MapReader, name: string, baseDir: string, providers: Set<string>): SummarizerOptions | undefined {
  const node = reader.value(name);
  if (node && isScalar(node) && typeof node.value === 'string') {
    const model = readModelName(reader, name, providers);
    return model === undefined ? undefined : { ...DEFAULT_SUMMARIZER, model };
  }
  const block = reader.map(name, `the summarizer of ${reader.label}`);
  if (!block) return undefined;
  block.allow(SUMMARIZER_KEYS);
  const options: SummarizerOptions = {
    model: readModelName(block, 'model', providers) ?? DEFAULT_SUMMARIZER.model,
    max_tokens: block.int('max_tokens', { min: 1 }) ?? DEFAULT_SUMMARIZER.max_tokens,
    tool_trim_limit: block.int('tool_trim_limit', { min: 0 }) ?? DEFAULT_SUMMARIZER.tool_trim_limit,
    word_limit: block.int('word_limit', { min: 1 }) ?? DEFAULT_SUMMARIZER.word_limit,
  };
  const prompt = block.string('prompt', { nonEmpty: true });
  if (prompt !== undefined) {
    const path = resolve(baseDir, prompt);
    // Checked now so a nightly run does not fail at its first summary.
    if (!existsSync(path)) block.problem('prompt', `prompt file ${quote(prompt)} of ${reader.label} not found (looked for ${path})`);
    options.prompt = path;
  }
  return options;
}

function readBaseline(top: MapReader, ids: string[]): string | undefined {
  const baseline = top.word('baseline');
  if (baseline === undefined) return undefined;
  if (ids.includes(baseline)) return baseline;
  const guess = didYouMean(baseline, ids);
  const hint = guess ? `did you mean "${guess}"? ` : '';
  top.problem('baseline', `"baseline" ${quote(baseline)} is not a strategy id in this config (${hint}configured: ${ids.join(', ')})`);
  return undefined;
}

// ---------------------------------------------------------------- gates

function readGates(top: MapReader, ids: string[], hasBaseline: boolean): GateConfig[] {
  const nodes = top.list('gates') ?? [];
  const gates: GateConfig[] = [];
  nodes.forEach((node, i) => {
    const gate = readGate(top.src, node, i + 1, ids, hasBaseline);
    if (gate) gates.push(gate);
  });
  return gates;
}

function readGate(src: YamlSource, node: YNode, index: number, ids: string[], hasBaseline: boolean): GateConfig | undefined {
  const g = readMap(src, node, `gate ${index}`);
  if (!g) return undefined;
  g.allow(GATE_KEYS);
  const metric = g.word('metric', { required: true });
  if (metric !== undefined && metric.trim() === '') g.problem('metric', `"metric" in ${g.label} must not be empty`);
  const strategy = g.word('strategy', { required: true });
  if (strategy !== undefined && strategy !== '*' && !ids.includes(strategy)) {
    g.problem('strategy', `${g.label} names strategy ${quote(strategy)}, which is not configured (use "*" or one of: ${ids.join(', ')})`);
  }
  const min = g.number('min');
  const max = g.number('max');
  const maxDrop = g.number('max_drop', { min: 0 });
  const significant = g.boolean('significant');
  const optional = g.boolean('optional');
  const vs = readChoice(g, 'vs', GATE_VS);
  const bounds = ['min', 'max', 'max_drop'].filter((k) => g.has(k));
  if (bounds.length === 0) src.report(g.node, `${g.label} needs at least one of "min", "max" or "max_drop"`);
  if (min !== undefined && max !== undefined && min > max) g.problem('max', `${g.label} has max ${max} below min ${min}`);
  if (g.has('vs') && !g.has('max_drop')) g.problem('vs', `"vs" in ${g.label} only applies together with "max_drop"`);
  const effectiveVs = g.has('vs') ? vs : g.has('max_drop') ? 'baseline-strategy' : undefined;
  if (effectiveVs === 'baseline-strategy' && g.has('max_drop') && !hasBaseline) {
    g.problem('max_drop', `${g.label} compares against the baseline strategy, but the config sets no "baseline:"`);
  }
  if (metric === undefined || strategy === undefined) return undefined;
  const gate: GateConfig = { metric, strategy, where: src.where(g.node) };
  if (min !== undefined) gate.min = min;
  if (max !== undefined) gate.max = max;
  if (maxDrop !== undefined) gate.max_drop = maxDrop;
  if (effectiveVs !== undefined) gate.vs = effectiveVs;
  if (significant !== undefined) gate.significant = significant;
  if (optional !== undefined) gate.optional = optional;
  return gate;
}

// ---------------------------------------------------------------- providers and prices

function readProviders(top: MapReader): Record<string, ProviderConfig> {
  const block = top.map('providers', '"providers"');
  if (!block) return {};
  const providers: Record<string, ProviderConfig> = {};
  for (const name of block.keys()) {
    if (!PROVIDER_PATTERN.test(name) || name === 'offline') {
      block.src.report(block.keyNode(name), `provider name ${quote(name)} must use only letters, digits, "_" and "-" and not be "offline"`);
      continue;
    }
    const reader = readMap(block.src, block.value(name), `provider "${name}"`, 'a mapping', block.at(name));
    if (reader) providers[name] = readProvider(reader);
  }
  return providers;
}

function readProvider(p: MapReader): ProviderConfig {
  p.allow(PROVIDER_KEYS);
  const provider: ProviderConfig = {};
  const baseUrl = p.word('base_url');
  if (baseUrl !== undefined) {
    const problem = baseUrlProblem(baseUrl);
    // The URL is not echoed: it may carry credentials.
    if (problem) p.problem('base_url', `"base_url" in ${p.label} ${problem}`);
    else provider.base_url = baseUrl;
  }
  const keyEnv = p.word('api_key_env');
  if (keyEnv !== undefined) {
    // Never echo the value: a pasted key is exactly the mistake this catches.
    if (!ENV_NAME_PATTERN.test(keyEnv)) {
      p.problem('api_key_env', `"api_key_env" in ${p.label} must be the name of an environment variable (e.g. MY_API_KEY), never the key itself`);
    } else provider.api_key_env = keyEnv;
  }
  const api = readChoice(p, 'api', APIS);
  if (api !== undefined) provider.api = api;
  const timeout = p.int('timeout_ms', { min: 1 });
  if (timeout !== undefined) provider.timeout_ms = timeout;
  const attempts = p.int('max_attempts', { min: 1 });
  if (attempts !== undefined) provider.max_attempts = attempts;
  readRetryDelays(p, provider);
  return provider;
}

function readRetryDelays(p: MapReader, provider: ProviderConfig): void {
  const base = p.int('retry_base_delay_ms', { min: 0 });
  const max = p.int('retry_max_delay_ms', { min: 0 });
  if (base !== undefined) provider.retry_base_delay_ms = base;
  if (max !== undefined) provider.retry_max_delay_ms = max;
  // A cap below the first delay would make every retry wait the cap, which is never what was meant.
  if (base !== undefined && max !== undefined && max < base) {
    p.problem('retry_max_delay_ms', `"retry_max_delay_ms" in ${p.label} (${max}) must not be below "retry_base_delay_ms" (${base})`);
  }
}

function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL (e.g. http://127.0.0.1:11434/v1)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (url.username || url.password) return 'must not contain credentials; name the key with "api_key_env"';
  return undefined;
}

function readPrices(top: MapReader): Record<string, PriceConfig> {
  const block = top.map('prices', '"prices"');
  if (!block) return {};
  const prices: Record<string, PriceConfig> = {};
  for (const model of block.keys()) {
    const reader = readMap(block.src, block.value(model), `the price of ${quote(model)}`, 'a mapping', block.at(model));
    if (!reader) continue;
    reader.allow(PRICE_KEYS);
    const input = reader.number('input', { required: true, min: 0 });
    const output = reader.number('output', { required: true, min: 0 });
    if (input !== undefined && output !== undefined) prices[model] = { input, output };
  }
  return prices;
}
