// The suite config as a schema (docs/config-format.md is the contract). The
// config only ever holds the *name* of an API key's variable.
import type { PromptCacheRule } from '../../core/prompt-cache.js';
import { resolve } from 'node:path';
import { z } from 'zod';
import { didYouMean, quote } from '../../core/errors.js';
import { isRecord } from '../../core/record.js';
import { gateSchema } from '../../core/schema/gate.js';
import { AGENTS } from '../../core/schema/run.js';
import type { MaxErrors } from '../../core/types.js';
import { METRIC_NAMES, isMetricName, metricRange } from '../../reports/aggregate.js';
import { DEFAULT_SUMMARIZER, type OptionSpec, type StrategyDefinition, type StrategyOptions, type StrategyRegistry } from '../../strategies/registry.js';
import { parseMaxErrors } from '../run/verdict.js';
import type { Path } from '../yaml-source.js';
import { Scope, bool, choice, int, list, map, number, report, text, typeError, whenValid, word } from './fields.js';
import { existingDirProblem, textFileProblem, writableDirProblem } from './files.js';
import { templateFor, type YamlFormat } from './issues.js';
import { DEFAULT_LIMITS, LIMIT_NAMES, limitHint, overLimit, type Limits } from './limits.js';
import { MAX_SWEPT_OPTIONS, expandEntry, isSweepable, pointLabel, sweptListsOf, type SweepMembership } from './sweeps.js';

export const CONFIG_FORMAT: YamlFormat = {
  root: 'the config',
  rules: [
    { path: ['strategies', '#'], label: ({ id, n }) => (id ? `strategy ${quote(id)}` : `strategy ${n}`) },
    { path: ['strategies', '#', 'summarizer'], label: ({ up }) => `the summarizer of ${up(1)}` },
    { path: ['gates', '#'], label: ({ n }) => `gate ${n}` },
    { path: ['providers', '*'], label: ({ key }) => `provider "${key}"` },
    { path: ['prices', '*'], label: ({ key }) => `the price of ${quote(key)}` },
  ],
};

export const DEFAULTS = {
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

const APIS = ['responses', 'chat'] as const;
const MAX_ERRORS_FORMS = 'a whole number of errored items (0 or more) or a percentage from 0% to 100% such as "2%"';
/** Ids appear in CLI lists (`--strategies a,b`), file names and gate patterns. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const PROVIDER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What fields are checked against, read from the data before it is validated so each field can be checked alone. */
export interface ConfigFacts {
  /** The config's folder; relative paths resolve against it. */
  baseDir: string;
  /** Provider names a model name may use (`openai` and those under `providers:`). */
  providers: ReadonlySet<string>;
  /** The providers that set `api: chat`: they have no Responses API. */
  chatProviders: ReadonlySet<string>;
  /** Strategy ids as the run knows them: as written (an entry without `id` goes by its `use`), a sweep's as expanded. */
  ids: readonly string[];
  /** The ids of each `strategies:` entry, for the checks that ids are unique. */
  entries: readonly EntryIds[];
  hasBaseline: boolean;
  /** The baseline strategy's id, when `baseline:` names a configured one. */
  baseline?: string;
  /** The bounds of `limits:` (defaults where it is absent or not valid; the block reports its own problems). */
  limits: Readonly<Limits>;
  /** `file:line:col` of the place at a path, for gates to record. */
  where(path: Path): string;
}

/** Set while one config is parsed; see `Scope`. */
export const configFacts = new Scope<ConfigFacts>();

/** The ids one `strategies:` entry makes. */
export interface EntryIds {
  /** Its place in the list. */
  index: number;
  /** The id it is written with (or its `use`); a sweep's group. */
  id: string;
  /** Written as `id:`, not taken from `use:`. */
  explicit: boolean;
  /** A sweep's: the option whose list makes the ids (the first swept), and the id of each point. */
  sweep?: { key: string; points: string[] };
}

/** Reads provider names, strategy ids and the baseline from still unchecked data. */
export function factsOf(data: unknown, registry: StrategyRegistry, baseDir: string, where: (path: Path) => string): ConfigFacts {
  const top = isRecord(data) ? data : {};
  const providers = isRecord(top.providers) ? Object.keys(top.providers).filter(isProviderName) : [];
  const chatProviders = providers.filter((name) => isRecord(top.providers) && isRecord(top.providers[name]) && top.providers[name].api === 'chat');
  const entries = (Array.isArray(top.strategies) ? top.strategies : []).flatMap((entry, index) => entryIds(entry, index, registry));
  const ids = entries.flatMap((e) => e.sweep?.points ?? [e.id]);
  const hasBaseline = typeof top.baseline === 'string' && ids.includes(top.baseline);
  const baseline = hasBaseline ? (top.baseline as string) : undefined;
  return { baseDir, providers: new Set(['openai', ...providers]), chatProviders: new Set(chatProviders), ids, entries, hasBaseline, baseline, limits: limitsOf(top.limits), where };
}

/** The ids of a still unchecked entry; none when it names no registered strategy or its id is not valid. */
function entryIds(entry: unknown, index: number, registry: StrategyRegistry): EntryIds[] {
  const def = isRecord(entry) && typeof entry.use === 'string' ? registry.get(entry.use) : undefined;
  if (!def || !isRecord(entry)) return [];
  const id = 'id' in entry ? entry.id : entry.use;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return [];
  const lists = sweptListsOf(entry, def.options).slice(0, MAX_SWEPT_OPTIONS);
  const out: EntryIds = { index, id, explicit: 'id' in entry };
  if (lists.length > 0) out.sweep = { key: lists[0][0], points: expandEntry(id, entry, lists).map((point) => point.id) };
  return [out];
}

/** The bounds a `limits:` block sets, each one that is not a valid bound left at its default. */
function limitsOf(block: unknown): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  if (!isRecord(block)) return limits;
  for (const name of LIMIT_NAMES) {
    const value = block[name];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) limits[name] = value;
  }
  return limits;
}

function isProviderName(name: string): boolean {
  return PROVIDER_PATTERN.test(name) && name !== 'offline';
}

// ---------------------------------------------------------------- models

/** Why a model name is not usable, or undefined when it is. */
export function modelNameProblem(name: string, providers: ReadonlySet<string>): string | undefined {
  if (name === 'offline') return undefined;
  const colon = name.indexOf(':');
  if (colon <= 0 || colon === name.length - 1 || /\s/.test(name)) {
    return 'is not a model name (use offline, openai:<model> or <provider>:<model>)';
  }
  const provider = name.slice(0, colon);
  if (providers.has(provider)) return undefined;
  const known = [...providers].sort().join(', ');
  return `uses provider "${provider}", which is not defined under "providers:" (known: ${known})`;
}

function modelName(): z.ZodString {
  return word().superRefine((name, rctx) => {
    const problem = modelNameProblem(name, configFacts.get().providers);
    if (problem) report(rctx, { message: `{key} ${quote(name)} in {label-1} ${problem}` });
  });
}

/**
 * A model a strategy calls itself through the Responses API (server
 * compaction): never one of a provider set to `api: chat`. (`offline` the
 * strategy's own check refuses, saying what it would need instead.)
 */
function serverModelName(): z.ZodString {
  return word().superRefine((name, rctx) => {
    const facts = configFacts.get();
    const provider = name.slice(0, Math.max(0, name.indexOf(':')));
    const chat = facts.chatProviders.has(provider)
      ? `uses provider "${provider}", which sets api: chat; the strategy calls the Responses API, which Chat Completions cannot stand in for`
      : undefined;
    const problem = modelNameProblem(name, facts.providers) ?? chat;
    if (problem) report(rctx, { message: `{key} ${quote(name)} in {label-1} ${problem}` });
  });
}

/** A model that embeds text: one behind an OpenAI-compatible embeddings endpoint, never `offline`. */
function embeddingModelName(): z.ZodString {
  return word().superRefine((name, rctx) => {
    const problem =
      name === 'offline'
        ? 'cannot embed: embeddings need a model behind an OpenAI-compatible /v1/embeddings endpoint (e.g. openai:text-embedding-3-small or <provider>:<name>)'
        : modelNameProblem(name, configFacts.get().providers);
    if (problem) report(rctx, { message: `{key} ${quote(name)} in {label-1} ${problem}` });
  });
}

// ---------------------------------------------------------------- top-level scalars

/** A single glob is short for a list of one. */
function datasets(): z.ZodType<string[], unknown> {
  const globs = list(text({ nonEmpty: true }), { nonEmpty: true, emptyMessage: '{label} must list at least one glob' });
  const single = (value: unknown) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number';
  return z.preprocess((value) => (single(value) ? [value] : value), globs);
}

/** A path resolved against the config's folder. */
function path(): z.ZodType<string, unknown> {
  return text({ nonEmpty: true }).transform((p) => resolve(configFacts.get().baseDir, p));
}

/**
 * A folder a run writes into: checked now (without creating it), so a path
 * that is a file, or lies below one, is not found out by a run half-way.
 */
function writableDir(): z.ZodType<string, unknown> {
  return path().superRefine((dir, rctx) => {
    const problem = writableDirProblem(dir);
    if (problem) report(rctx, { message: `{label} ${problem}` });
  });
}

function cache(): z.ZodType<string | false, unknown> {
  const usable = (value: unknown): value is string | false => value === false || (typeof value === 'string' && value.trim() !== '');
  return z
    .custom<string | false>(usable, { error: typeError('a directory path or false') })
    .default(DEFAULTS.cache)
    .transform((value, rctx) => {
      if (value === false) return false;
      const dir = resolve(configFacts.get().baseDir, value);
      const problem = writableDirProblem(dir);
      if (problem) report(rctx, { message: `{label} ${problem}` });
      return dir;
    });
}

/**
 * A kept run folder. It need not exist yet (a suite's first run is what later
 * becomes its baseline), but a file there, or above it, can never become one.
 */
function runDir(): z.ZodType<string, unknown> {
  return path().superRefine((dir, rctx) => {
    const problem = existingDirProblem(dir);
    if (problem) report(rctx, { message: `{label} ${problem}` });
  });
}

/** A whole number from 1 up to the bound `name` of the config's `limits:`. */
function bounded(name: keyof Limits): z.ZodNumber {
  return int({ min: 1 }).superRefine((value, rctx) => {
    // A value that is not a whole number is already reported as that.
    const over = Number.isSafeInteger(value) ? overLimit(value, name, configFacts.get().limits) : undefined;
    if (over) report(rctx, { message: `{label} must be ${over}, not ${value}` });
  });
}

/** `limits:`, each bound a whole number ≥ 1; those left out keep their defaults. */
function limits(): z.ZodType<Limits, unknown> {
  const shape = Object.fromEntries(LIMIT_NAMES.map((name) => [name, int({ min: 1 }).optional()])) as Record<keyof Limits, z.ZodOptional<z.ZodNumber>>;
  return map(shape, { expected: `a mapping of bounds (${LIMIT_NAMES.join(':, ')}:)` })
    .default(() => ({}))
    .transform((given): Limits => {
      const set = Object.entries(given).filter(([, value]) => value !== undefined);
      return { ...DEFAULT_LIMITS, ...Object.fromEntries(set) };
    });
}

/** `max_errors:` as a count (`3`) or a percentage (`"2%"`, `2.5%`), spelt as `--max-errors` is, so the two cannot drift apart. */
function maxErrors(): z.ZodType<MaxErrors, unknown> {
  const written = z.union([z.string(), z.number()], { error: typeError(MAX_ERRORS_FORMS) });
  return written.default('0').transform((value, rctx) => {
    const parsed = parseMaxErrors(String(value));
    if (parsed) return parsed;
    const shown = typeof value === 'string' ? quote(value) : '{found}';
    report(rctx, { message: `{label} must be ${MAX_ERRORS_FORMS}, not ${shown}` });
    return z.NEVER;
  });
}

function baseline(): z.ZodString {
  return word().superRefine((id, rctx) => {
    const { ids } = configFacts.get();
    if (ids.includes(id)) return;
    const guess = didYouMean(id, ids);
    const hint = guess ? `did you mean "${guess}"? ` : '';
    report(rctx, { message: `{key} ${quote(id)} is not a strategy id in this config (${hint}configured: ${ids.join(', ')})` });
  });
}

// ---------------------------------------------------------------- strategies

/** The `summarizer:` block; a bare model name is short for `{ model: <name> }`. */
function summarizer() {
  const block = map({
    model: modelName().optional(),
    prompt: promptFile().optional(),
    max_tokens: int({ min: 1 }).optional(),
    tool_trim_limit: int({ min: 0 }).optional(),
    word_limit: int({ min: 1 }).optional(),
  });
  return z.preprocess((value) => (typeof value === 'string' ? { model: value } : value), block).transform((s) => ({
    model: s.model ?? DEFAULT_SUMMARIZER.model,
    max_tokens: s.max_tokens ?? DEFAULT_SUMMARIZER.max_tokens,
    tool_trim_limit: s.tool_trim_limit ?? DEFAULT_SUMMARIZER.tool_trim_limit,
    word_limit: s.word_limit ?? DEFAULT_SUMMARIZER.word_limit,
    ...(s.prompt === undefined ? {} : { prompt: s.prompt }),
  }));
}

/** A summarizer's prompt file, resolved against the config's folder once, for both the check and the value. */
function promptFile(): z.ZodType<string, unknown> {
  return text({ nonEmpty: true }).transform((written, rctx) => {
    const prompt = resolve(configFacts.get().baseDir, written);
    // Checked now (there, a file, within max_file_mb, UTF-8) so a nightly run does not fail at its first summary.
    const problem = textFileProblem(prompt, configFacts.get().limits, limitHint('max_file_mb'));
    if (problem === 'not found') report(rctx, { message: `prompt file ${quote(written)} of {label-2} not found (looked for ${prompt})` });
    else if (problem) report(rctx, { message: `prompt file ${quote(written)} of {label-2} ${problem}${problem.includes(prompt) ? '' : ` (${prompt})`}` });
    return prompt;
  });
}

function option(spec: OptionSpec): z.ZodType<StrategyOptions[string], unknown> {
  const rule = { min: spec.min, max: spec.max };
  switch (spec.type) {
    case 'int':
      return int(rule);
    case 'number':
      return number(rule);
    case 'boolean':
      return bool();
    case 'string':
      return spec.values ? choice(spec.values) : text();
    case 'string-list':
      return list(text({ nonEmpty: true }));
    case 'model':
      return serverModelName();
    case 'embedding-model':
      return embeddingModelName();
    case 'summarizer':
      return summarizer();
  }
}

/** A numeric option may be a list of values to sweep, each checked as the option is; others take one value. */
function sweepable(spec: OptionSpec): z.ZodType {
  const one = option(spec);
  if (!isSweepable(spec)) return one;
  const many = list(one, { nonEmpty: true, emptyMessage: '{label} must list at least one value to sweep' }).superRefine(
    (values, rctx) => {
      // Each value is one strategy in the run: a repeat is a slip (a typo for another value), not a second point.
      values.forEach((value, i) => {
        if (values.indexOf(value) < i) report(rctx, { path: [i], message: `{label} repeats ${value} of the sweep; list each value once` });
      });
    },
    { when: (payload) => Array.isArray(payload.value) },
  );
  const kind = spec.type === 'int' ? 'a whole number' : 'a number';
  return z.union([one, many], { error: typeError(`${kind} or a list of them (a sweep)`) });
}


/** A third list in one entry would make a cube of points no chart can show: it is reported at that option. */
function tooManySweeps(entry: Record<string, unknown>, def: StrategyDefinition, rctx: z.core.$RefinementCtx): void {
  const swept = sweptListsOf(entry, def.options).map(([name]) => name);
  for (const name of swept.slice(MAX_SWEPT_OPTIONS)) {
    report(rctx, { path: [name], message: `{label-1} sweeps ${swept.length} options (${swept.join(', ')}); an entry may sweep at most ${MAX_SWEPT_OPTIONS} (a curve, or a grid of curves): give {key} one value or split the entry` });
  }
}

function strategyId(): z.ZodString {
  return word().refine((id) => ID_PATTERN.test(id), {
    error: (iss) => `strategy id ${quote(String(iss.input))} must start with a letter or digit and use only letters, digits, ".", "_" and "-"`,
  });
}

/** A strategy of the run: a plain entry, or one point of a sweep. */
export interface StrategyConfig {
  id: string;
  use: string;
  options: StrategyOptions;
  /** Set on a point of a sweep: the entry it came from and its swept values. */
  sweep?: SweepMembership;
}

/**
 * Options as the definition declares them: required ones present, defaults
 * filled in, its own check run once they are valid. An entry that sweeps
 * options is read as one strategy per point (harness/schema/sweeps.ts).
 */
function strategyOf(def: StrategyDefinition): z.ZodType<StrategyConfig[], unknown> {
  const specs = Object.entries(def.options);
  const shape: Record<string, z.ZodType> = Object.fromEntries(specs.map(([name, spec]) => [name, sweepable(spec).optional()]));
  return map({ id: strategyId().optional(), use: word(), ...shape }, { noun: 'option', context: ` (use: ${def.use})` })
    .superRefine(
      (s, rctx) => {
        for (const [name, spec] of specs) {
          if (spec.required && (s as Record<string, unknown>)[name] === undefined) report(rctx, { path: [name], message: `{label-1} needs option {key} (${spec.doc})` });
        }
        tooManySweeps(s as Record<string, unknown>, def, rctx);
      },
      { when: (payload) => isRecord(payload.value) },
    )
    // Runs only once every field is valid (a transform skips a value with issues), so the check sees options of the right types.
    .transform((s): StrategyConfig[] => {
      const entry = s as Record<string, unknown>;
      return expandEntry(s.id ?? def.use, entry, sweptListsOf(entry, def.options)).map((point) => {
        const config: StrategyConfig = { id: point.id, use: def.use, options: withDefaults(def, point.options) };
        if (point.sweep) config.sweep = point.sweep;
        return config;
      });
    })
    .superRefine(
      (points, rctx) => {
        for (const point of points) {
          // A sweep's point is named, since the entry as written holds a list where the check saw one value.
          const at = point.sweep ? ` (at ${pointLabel(point.sweep.options)})` : '';
          for (const message of def.check?.(point.options) ?? []) report(rctx, { message: `{label}: ${message}${at}` });
        }
      },
      { when: (payload) => payload.issues.length === 0 },
    );
}

/** `given` with every option it leaves out set to its default (a summarizer to the default summarizer). */
export function withDefaults(def: StrategyDefinition, given: Record<string, unknown>): StrategyOptions {
  const options: StrategyOptions = {};
  for (const [name, spec] of Object.entries(def.options)) {
    const value = (given[name] as StrategyOptions[string]) ?? (spec.type === 'summarizer' ? { ...DEFAULT_SUMMARIZER } : spec.default);
    if (value !== undefined) options[name] = value;
  }
  return options;
}

/** An entry whose `use` names no registered strategy: only `use` and `id` can be checked. */
function unknownStrategy(registry: StrategyRegistry) {
  const names = registry.names();
  const use = word().superRefine((name, rctx) => {
    const guess = didYouMean(name, names);
    const hint = guess ? `did you mean "${guess}"? ` : '';
    report(rctx, { message: `unknown strategy ${quote(name)} in {label-1} (${hint}registered: ${names.join(', ')})` });
  });
  return z.looseObject({ id: strategyId().optional(), use }, { error: typeError('a mapping') });
}

/** One `strategies:` entry, read with the options of the strategy its `use` names: one strategy, or a sweep's points. */
function strategy(registry: StrategyRegistry): z.ZodType<StrategyConfig[], unknown> {
  const known = new Map(registry.names().map((name) => [name, strategyOf(registry.get(name) as StrategyDefinition)]));
  const unknown = unknownStrategy(registry);
  return z.unknown().transform((value, rctx) => {
    const schema = isRecord(value) && typeof value.use === 'string' ? known.get(value.use) : undefined;
    const parsed = (schema ?? unknown).safeParse(value, { error: templateFor });
    if (parsed.success && schema) return parsed.data as StrategyConfig[];
    for (const issue of parsed.success ? [] : parsed.error.issues) rctx.addIssue({ ...issue });
    return z.NEVER;
  });
}

/**
 * Every id once. Read from the entries as written (configFacts), so an id is
 * checked even when its entry has other problems: a written id used twice is
 * reported at the second; a sweep's point that takes an id already in use, at
 * the sweep's list.
 */
function uniqueStrategyIds(rctx: z.core.$RefinementCtx): void {
  const { entries } = configFacts.get();
  // An entry without `id:` is named by its `use:`: two of them would pool their records under one id.
  const plain = new Map<string, EntryIds>();
  for (const e of entries.filter((entry) => !entry.sweep)) {
    const earlier = plain.get(e.id);
    const hint = e.explicit && earlier?.explicit ? '' : '; an entry without id: is named by its use:, so give one of them an id:';
    if (earlier) report(rctx, { path: [e.index, e.explicit ? 'id' : 'use'], message: `duplicate strategy id ${quote(e.id)} (first defined at {first})${hint}`, first: takenAt(earlier) });
    else plain.set(e.id, e);
  }
  // `--strategies ID` selects a sweep's points by its id: a strategy of the same id would be selected with them.
  for (const e of entries.filter((entry) => entry.sweep && plain.has(entry.id))) {
    report(rctx, { path: [e.index, e.explicit ? 'id' : 'use'], message: `the sweep's id ${quote(e.id)} is also a strategy's id (at {first}); rename one of them`, first: takenAt(plain.get(e.id) as EntryIds) });
  }
  const made = new Map<string, EntryIds>();
  for (const e of entries) {
    if (!e.sweep) continue;
    for (const id of e.sweep.points) {
      const other = plain.get(id) ?? made.get(id);
      if (other) report(rctx, { path: [e.index, e.sweep.key], atKey: true, message: `the sweep of {label-1} makes strategy id ${quote(id)}, ${takenBy(other)}; rename one of them`, first: takenAt(other) });
      made.set(id, e);
    }
  }
}

/** Who else has an id a sweep makes, for the collision message; {first} is `takenAt`. */
function takenBy(other: EntryIds): string {
  return other.sweep ? `which the sweep of strategy ${quote(other.id)} (at {first}) makes too` : `which strategy ${quote(other.id)} (defined at {first}) already has`;
}

function takenAt(other: EntryIds): PropertyKey[] {
  return ['strategies', other.index, other.sweep?.key ?? (other.explicit ? 'id' : 'use')];
}

function strategies(registry: StrategyRegistry): z.ZodType<StrategyConfig[], unknown> {
  return list(strategy(registry), { nonEmpty: true })
    .superRefine((_, rctx) => uniqueStrategyIds(rctx), { when: (payload) => Array.isArray(payload.value) })
    .transform((groups) => groups.flat());
}

// ---------------------------------------------------------------- gates

/** A metric gates can read (reports/aggregate.ts), with a suggestion for a typo. */
function metricName(): z.ZodString {
  return word().superRefine((metric, rctx) => {
    if (metric.trim() === '') return report(rctx, { message: '{label} must not be empty' });
    if (isMetricName(metric)) return;
    const guess = didYouMean(metric, METRIC_NAMES);
    const hint = guess ? `did you mean "${guess}"?` : `known metrics: ${METRIC_NAMES.join(', ')}`;
    report(rctx, { message: `unknown metric ${quote(metric)} in {label-1} (${hint})` });
  });
}

function gate() {
  const has = (g: object, key: string) => key in g;
  return gateSchema
    .omit({ where: true })
    .extend({ metric: metricName() })
    .superRefine(
      (g, rctx) => {
        if (!['min', 'max', 'max_drop'].some((k) => has(g, k))) report(rctx, { message: '{label} needs at least one of "min", "max" or "max_drop"' });
        if (has(g, 'vs') && !has(g, 'max_drop')) report(rctx, { path: ['vs'], message: '{label} only applies together with "max_drop"' });
        if (has(g, 'significant') && !has(g, 'max_drop')) report(rctx, { path: ['significant'], message: '{label} only applies together with "max_drop"' });
        const vs = has(g, 'vs') ? g.vs : has(g, 'max_drop') ? 'baseline-strategy' : undefined;
        if (vs === 'baseline-strategy' && has(g, 'max_drop') && !configFacts.get().hasBaseline) {
          report(rctx, { path: ['max_drop'], message: '{label-1} compares against the baseline strategy, but the config sets no "baseline:"' });
        }
        if (vs === 'baseline-strategy' && has(g, 'max_drop') && 'strategy' in g && g.strategy === configFacts.get().baseline) {
          report(rctx, { path: ['strategy'], message: `{label-1} measures a drop of ${quote(String(g.strategy))} against the baseline strategy, which is ${quote(String(g.strategy))} itself: the drop is always 0, so the gate could never fail (gate another strategy, or use vs: baseline-run)` });
        }
      },
      { when: (payload) => isRecord(payload.value) },
    )
    .superRefine((g, rctx) => {
      const { ids } = configFacts.get();
      if (g.strategy === '*' || ids.includes(g.strategy)) return;
      report(rctx, { path: ['strategy'], message: `{label-1} names strategy ${quote(g.strategy)}, which is not configured (use "*" or one of: ${ids.join(', ')})` });
    }, whenValid('strategy'))
    .superRefine((g, rctx) => {
      if (g.min !== undefined && g.max !== undefined && g.min > g.max) report(rctx, { path: ['max'], message: `{label-1} has max ${g.max} below min ${g.min}` });
    }, whenValid('min', 'max'))
    .superRefine(outsideRange, whenValid('metric', 'min', 'max', 'max_drop'))
    .transform((g) => (g.max_drop !== undefined && g.vs === undefined ? { ...g, vs: 'baseline-strategy' as const } : g));
}

/** A bound outside what the metric can be, or a max_drop wider than all of it: a gate that could never fail (or never pass). */
function outsideRange(g: { metric: string; min?: number; max?: number; max_drop?: number }, rctx: z.RefinementCtx): void {
  const range = metricRange(g.metric);
  if (!range) return;
  const [lo, hi] = range;
  const span = hi === Number.POSITIVE_INFINITY ? `${lo} or more` : `${lo} to ${hi}`;
  for (const key of ['min', 'max'] as const) {
    const value = g[key];
    if (value === undefined || (value >= lo && value <= hi)) continue;
    report(rctx, { path: [key], message: `{key} ${value} in {label-1} is outside what ${g.metric} can be (${span}), so the gate could never ${(key === 'min') === value < lo ? 'fail' : 'pass'}` });
  }
  if (g.max_drop !== undefined && g.max_drop > hi - lo) {
    const hint = hi - lo === 1 ? ' (rates are fractions: 0.05 is 5 points)' : '';
    report(rctx, { path: ['max_drop'], message: `{key} ${g.max_drop} in {label-1} is more than ${g.metric} can move (${span}), so the gate could never fail${hint}` });
  }
}

function gates(): z.ZodType<z.output<typeof gateSchema>[], unknown> {
  return list(gate()).transform((entries) => entries.map((g, i) => ({ ...g, where: configFacts.get().where(['gates', i]) })));
}

// ---------------------------------------------------------------- providers and prices

function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL (e.g. http://127.0.0.1:11434/v1)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (url.username || url.password) return 'must not contain credentials; name the key with "api_key_env"';
  // run.json records the config as written (a resumed run reads it back), and reports show the URL.
  const credential = [...url.searchParams.keys()].find((name) => CREDENTIAL_PARAM.test(name));
  if (credential !== undefined) return `must not carry a credential in its query (parameter "${credential}"): the config is recorded in run.json; name the key with "api_key_env"`;
  return undefined;
}

/** The longest delay Node's timers take (2^31 − 1 ms, 24.8 days): a longer one fires at once, so every call would time out. */
const MAX_TIMER_MS = 2_147_483_647;

/** Query parameters that carry a credential: `?key=`, `?api_key=`, `?access_token=`, `?sig=`. */
const CREDENTIAL_PARAM = /^(?:(?:api[-_]?)?key|apikey|(?:access[-_]?|auth[-_]?|id[-_]?)?token|auth|secret|password|passwd|pwd|sig|signature|code|client[-_]?secret)$/i;

/** `false`, or the smallest cached prefix and the step hits grow by (OpenAI: 1024 and 128). */
function promptCache(): z.ZodType<PromptCacheRule | false, unknown> {
  const rule = map({ min_tokens: int({ min: 1 }), step: int({ min: 1 }) }, { expected: 'false or a mapping (min_tokens:, step:)' });
  return z.union([z.literal(false), rule], { error: typeError('false or a mapping (min_tokens:, step:)') });
}

const providerSchema = map({
  // The URL is not echoed: it may carry credentials.
  base_url: word()
    .superRefine((url, rctx) => {
      const problem = baseUrlProblem(url);
      if (problem) report(rctx, { message: `{label} ${problem}` });
    })
    .optional(),
  // Never echo the value: a pasted key is exactly the mistake this catches.
  api_key_env: word()
    .refine((name) => ENV_NAME_PATTERN.test(name), '{label} must be the name of an environment variable (e.g. MY_API_KEY), never the key itself')
    .optional(),
  api: choice(APIS).optional(),
  timeout_ms: int({ min: 1, max: MAX_TIMER_MS }).optional(),
  max_attempts: int({ min: 1 }).optional(),
  /** Backoff cap of the first retry (doubles per attempt) and of any retry, in ms. */
  retry_base_delay_ms: int({ min: 0, max: MAX_TIMER_MS }).optional(),
  retry_max_delay_ms: int({ min: 0, max: MAX_TIMER_MS }).optional(),
  /** What the provider's prompt cache serves of a request's shared prefix (core/prompt-cache.ts); `false` for no cache. */
  prompt_cache: promptCache().optional(),
}).superRefine((p, rctx) => {
  const { retry_base_delay_ms: base, retry_max_delay_ms: max } = p;
  // A cap below the first delay would make every retry wait the cap, which is never what was meant.
  if (base !== undefined && max !== undefined && max < base) {
    report(rctx, { path: ['retry_max_delay_ms'], message: `{label} (${max}) must not be below "retry_base_delay_ms" (${base})` });
  }
}, whenValid('retry_base_delay_ms', 'retry_max_delay_ms'));

export type ProviderConfig = z.output<typeof providerSchema>;

const providers = z.record(z.string(), providerSchema, { error: typeError('a mapping') }).superRefine(
  (entries, rctx) => {
    for (const name of Object.keys(entries)) {
      if (isProviderName(name)) continue;
      report(rctx, { path: [name], atKey: true, message: `provider name ${quote(name)} must use only letters, digits, "_" and "-" and not be "offline"` });
    }
  },
  { when: (payload) => isRecord(payload.value) },
);

/** USD per 1M tokens. */
const priceSchema = map({ input: number({ min: 0 }), output: number({ min: 0 }), cached_input: number({ min: 0 }).optional() });
export type PriceConfig = z.output<typeof priceSchema>;

// ---------------------------------------------------------------- the config

/** Built once per registry (building zod schemas costs more than using them). */
const SCHEMAS = new WeakMap<StrategyRegistry, ReturnType<typeof buildConfigSchema>>();

export function configSchema(registry: StrategyRegistry): ReturnType<typeof buildConfigSchema> {
  let schema = SCHEMAS.get(registry);
  if (!schema) SCHEMAS.set(registry, (schema = buildConfigSchema(registry)));
  return schema;
}

/** The config file's keys; parse it inside `configFacts.run`. */
function buildConfigSchema(registry: StrategyRegistry) {
  return map(
    {
      /** Bounds on input (harness/schema/limits.ts); the checks below and the loaders read them. */
      limits: limits(),
      datasets: datasets().default(() => [...DEFAULTS.datasets]),
      out: writableDir().prefault(DEFAULTS.out),
      model: modelName().default(DEFAULTS.model),
      judge: modelName().default(DEFAULTS.judge),
      concurrency: bounded('max_concurrency').default(DEFAULTS.concurrency),
      repeat: bounded('max_repeat').default(DEFAULTS.repeat),
      /** Summary-judge samples per summary, folded by majority vote (median for scores). */
      judge_samples: bounded('max_judge_samples').default(DEFAULTS.judge_samples),
      cache: cache(),
      baseline: baseline().optional(),
      /** A previous run directory (resolved against the config's folder) that `vs: baseline-run` gates compare with. */
      baseline_run: runDir().optional(),
      max_errors: maxErrors(),
      /** Probes sent directly to the model, or through the @openai/agents runner. */
      agent: choice(AGENTS).default(DEFAULTS.agent),
      strategies: strategies(registry),
      gates: gates().default(() => []),
      providers: providers.default(() => ({})),
      prices: z.record(z.string(), priceSchema, { error: typeError('a mapping') }).default(() => ({})),
    },
    { expected: 'a mapping (datasets:, strategies:, ...)' },
  );
}
