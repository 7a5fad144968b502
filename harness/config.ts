// Loads the suite config (docs/config-format.md is the contract; the schema
// is harness/schema/config.ts). Like transcripts, every problem is collected
// with its file:line:col and thrown once.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { STRATEGIES } from '../strategies/index.js';
import type { StrategyDefinition, StrategyOptions, StrategyRegistry } from '../strategies/registry.js';
import type { GateConfig, MaxErrors } from '../core/types.js';
import { InputError, UsageError } from '../core/errors.js';
import { CONFIG_FORMAT, DEFAULTS, configFacts, configSchema, factsOf, withDefaults } from './schema/config.js';
import { readTextFile } from './schema/files.js';
import { readYaml } from './schema/issues.js';
import { DEFAULT_LIMITS } from './schema/limits.js';

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
    limits: { ...DEFAULT_LIMITS },
  };
  if (strategies.some((s) => s.id === 'full')) config.baseline = 'full';
  return config;
}

/**
 * Options given in code, with defaults filled in as a config's are; undefined
 * when they do not fit the definition (an unknown or missing option, or its
 * own check fails). The values are trusted to have the declared types.
 */
function plainOptions(def: StrategyDefinition, raw: Record<string, number>): StrategyOptions | undefined {
  if (Object.keys(raw).some((name) => !(name in def.options))) return undefined;
  const options = withDefaults(def, raw);
  if (Object.entries(def.options).some(([name, spec]) => spec.required && options[name] === undefined)) return undefined;
  return (def.check?.(options) ?? []).length === 0 ? options : undefined;
}

/**
 * What every command runs with: `--config FILE` (which must exist), else
 * ./memeval.config.yaml, else the built-in defaults.
 */
export function loadConfigOrDefault(file: string | undefined): SuiteConfig {
  if (file) {
    if (!existsSync(file)) throw new UsageError(`${file}: config file not found`);
    return loadConfig(file);
  }
  const fallback = resolve('memeval.config.yaml');
  return existsSync(fallback) ? loadConfig(fallback) : defaultConfig(process.cwd());
}

/**
 * `registry`: the strategies `use:` may name (default: the built-in ones).
 * The file itself is read within the default limits: its own `limits:` are not known before it is read.
 */
export function loadConfig(path: string, registry: StrategyRegistry = STRATEGIES): SuiteConfig {
  const read = readTextFile(path, { what: 'config file' });
  if (!read.ok) throw new InputError([read.problem]);
  return parseConfig(read.text, path, registry);
}

/** Parses a config; `file` names it in messages and its directory anchors relative paths. */
export function parseConfig(text: string, file: string, registry: StrategyRegistry = STRATEGIES): SuiteConfig {
  const baseDir = dirname(resolve(file));
  const result = readYaml(text, file, {
    format: CONFIG_FORMAT,
    schema: configSchema(registry),
    reportEmpty: (src) => src.report(null, 'the config is empty; it needs at least "strategies:"'),
    facts: { scope: configFacts, of: (data, where) => factsOf(data, registry, baseDir, where) },
  });
  if (!result.ok) throw new InputError(result.problems);
  return { file, baseDir, ...result.value };
}
