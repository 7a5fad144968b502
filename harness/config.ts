// Loads the suite config (docs/config-format.md is the contract; the schema
// is harness/schema/config.ts). Like transcripts, every problem is collected
// with its file:line:col and thrown once.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { STRATEGIES } from '../strategies/index.js';
import { DEFAULT_SUMMARIZER, type StrategyDefinition, type StrategyOptions, type StrategyRegistry } from '../strategies/registry.js';
import type { GateConfig, MaxErrors } from '../core/types.js';
import { InputError, fileProblem } from '../core/errors.js';
import { CONFIG_FORMAT, DEFAULTS, configFacts, configSchema, factsOf } from './schema/config.js';
import { IssueMapper } from './schema/issues.js';
import { YamlSource } from './yaml-source.js';

export type { PriceConfig, ProviderConfig, StrategyConfig } from './schema/config.js';
export type { GateConfig, MaxErrors };

/** The config as loaded: the file's settings with defaults filled in and paths resolved, plus where it came from. */
export type SuiteConfig = { file?: string; baseDir: string } & z.output<ReturnType<typeof configSchema>>;

/** What runs when there is no config file: the strategies of the spec's example that are registered. */
const DEFAULT_STRATEGIES: { id: string; use: string; options: Record<string, number> }[] = [
  { id: 'full', use: 'full-history', options: {} },
  { id: 'trim-3', use: 'trimming', options: { max_turns: 3 } },
  { id: 'summarize-4-2', use: 'summarizing', options: { context_limit: 4, keep_last_n_turns: 2 } },
  { id: 'budget-2k', use: 'token-budget', options: { max_tokens: 2000 } },
];

export function defaultConfig(baseDir: string, registry: StrategyRegistry = STRATEGIES): SuiteConfig {
  const base = resolve(baseDir);
  const strategies = DEFAULT_STRATEGIES.flatMap((s) => {
    const def = registry.get(s.use);
    const options = def ? plainOptions(def, s.options) : undefined;
    return options ? [{ id: s.id, use: s.use, options }] : [];
  });
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
    // One errored item and the run is incomplete: a number nobody measured must not pass a gate.
    max_errors: { kind: 'count', value: 0 },
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
  const baseDir = dirname(resolve(file));
  const mapper = new IssueMapper(src, CONFIG_FORMAT);
  const data = mapper.data();
  const facts = factsOf(data, registry, baseDir, (path) => mapper.where(path));
  const result = configFacts.run(facts, () => mapper.parse(data, configSchema(registry)));
  if (!result.ok) throw new InputError(result.problems);
  return { file, baseDir, ...result.value };
}
