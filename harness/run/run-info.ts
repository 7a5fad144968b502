// Labels a run so it can be reproduced and compared: versions, git sha, the
// resolved config, where every model was served from, and a fingerprint per
// strategy. Nothing recorded here is an absolute local path or a key: run
// directories are copied between machines and attached to CI artifacts.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { AnswerCalibrationReport, CalibrationReport, RateStats } from '../../graders/calibrate.js';
import { calibrationRecordPath, DEFAULT_CALIBRATION_OUT } from '../datasets/calibration.js';
import type { StrategyOptions, SummarizerOptions } from '../../strategies/registry.js';
import { loadSummaryPrompt, promptLabel } from '../../strategies/summary-input.js';
import type { GateConfig, ProviderConfig, SuiteConfig, StrategyConfig } from '../config.js';
import { parseModelSpec } from '../models/create.js';
import { DEFAULT_OPENAI_BASE_URL, publicBaseURL } from '../models/openai.js';
import { memevalVersion, packagePath } from '../../core/package-root.js';
import type { JudgeCalibration, Provenance, RunInfo, StrategyFingerprint, Transcript } from '../../core/types.js';

const PACKAGES = ['openai', '@openai/agents', 'tiktoken', 'yaml', 'p-limit', 'csv-stringify'];

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(packagePath(`node_modules/${name}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function gitSha(cwd: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return undefined;
  }
}

/** The calibration on record for this judge, so every run says how far its judge can be trusted. */
export function judgeCalibration(judge: string, baseDir: string): JudgeCalibration | undefined {
  const file = calibrationRecordPath(judge, join(baseDir, DEFAULT_CALIBRATION_OUT));
  if (!existsSync(file)) return undefined;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as CalibrationReport;
    const criteria = report.criteria.map(({ criterion, accuracy, kappa, ci }) => ({ criterion, accuracy, kappa, ci }));
    const calibration: JudgeCalibration = { createdAt: report.createdAt, items: report.items, criteria };
    if (report.answers) calibration.answers = answerCalibration(report.answers);
    return calibration;
  } catch {
    return undefined;
  }
}

/** The answer judge's rates as run.json keeps them (the per-item results stay in the calibration record). */
function answerCalibration(a: AnswerCalibrationReport): NonNullable<JudgeCalibration['answers']> {
  const rate = ({ n, count, rate, ci }: RateStats) => ({ n, count, rate, ci });
  return {
    createdAt: a.createdAt,
    items: a.items,
    falseAccept: rate(a.falseAccept),
    falseReject: rate(a.falseReject),
    perLabel: a.perLabel.map((l) => ({ label: l.label, error: l.error, ...rate(l) })),
  };
}

/** UTC timestamp plus a short hash of the config, e.g. `20261122T103000Z-3f9a1c`. */
export function newRunId(config: SuiteConfig, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const hash = createHash('sha256').update(JSON.stringify(config)).update(String(now.getTime())).digest('hex');
  return `${stamp}-${hash.slice(0, 6)}`;
}


type Env = Record<string, string | undefined>;

/** The public base URL a model spec is called at (credentials stripped); undefined for `offline`. */
function endpointOf(spec: string, providers: Record<string, ProviderConfig>, env: Env = process.env): string | undefined {
  const { provider } = parseModelSpec(spec);
  if (provider === 'offline') return undefined;
  const configured = providers[provider]?.base_url;
  if (provider !== 'openai') return publicBaseURL(configured);
  return publicBaseURL(configured ?? env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL);
}

/** The `summarizer:` block of a strategy, for strategies that summarise. */
function summarizerOf(options: StrategyOptions): SummarizerOptions | undefined {
  const value = options.summarizer;
  return typeof value === 'object' && value !== null ? value : undefined;
}

interface RunLabels {
  /** The answering model spec and the judge spec. */
  model: string;
  judge: string;
}

function runProvenance(config: SuiteConfig, strategies: StrategyConfig[], labels: RunLabels, env: Env): Provenance {
  const summarizers = [...new Set(strategies.flatMap((s) => summarizerOf(s.options)?.model ?? []))];
  const endpoints: Record<string, string> = {};
  for (const spec of [labels.model, labels.judge, ...summarizers]) {
    const url = endpointOf(spec, config.providers, env);
    if (url !== undefined) endpoints[spec] = url;
  }
  const provenance: Provenance = {
    endpoints,
    answerModel: labels.model,
    judge: labels.judge,
    summarizers,
    agent: config.agent,
    memevalVersion: memevalVersion(),
  };
  const sha = gitSha(config.baseDir);
  if (sha !== undefined) provenance.gitSha = sha;
  return provenance;
}

/** `path` relative to `from`; relative paths are taken as already relative and kept. */
function relativePath(from: string, path: string): string {
  if (!isAbsolute(path)) return path;
  return relative(from, path) || '.';
}

/** A strategy's options with the summary prompt path relative to the config's folder. */
function recordedOptions(options: StrategyOptions, baseDir: string): StrategyOptions {
  const summarizer = summarizerOf(options);
  if (summarizer?.prompt === undefined) return { ...options };
  return { ...options, summarizer: { ...summarizer, prompt: relativePath(baseDir, summarizer.prompt) } };
}

/** The reverse of recordedOptions: the prompt path absolute again. */
function absoluteOptions(options: StrategyOptions, baseDir: string): StrategyOptions {
  const summarizer = summarizerOf(options);
  if (summarizer?.prompt === undefined) return options;
  return { ...options, summarizer: { ...summarizer, prompt: resolve(baseDir, summarizer.prompt) } };
}

function strategyFingerprint(s: StrategyConfig, config: SuiteConfig, provenance: Provenance): StrategyFingerprint {
  const fingerprint: StrategyFingerprint = {
    use: s.use,
    options: recordedOptions(s.options, config.baseDir),
    answerModel: provenance.answerModel,
    judge: provenance.judge,
    agent: provenance.agent,
  };
  const endpoint = provenance.endpoints[provenance.answerModel];
  if (endpoint !== undefined) fingerprint.endpoint = endpoint;
  const summarizer = summarizerOf(s.options);
  if (summarizer) {
    fingerprint.summarizer = summarizer.model;
    // The text is kept so a later diff can show what changed, not just that a hash did.
    const prompt = loadSummaryPrompt(summarizer.prompt);
    fingerprint.prompt = { path: promptLabel(prompt.path, config.baseDir), hash: prompt.hash, text: prompt.text };
  }
  return fingerprint;
}

/** A gate's `file:line:col` with the config file named as `file` names it. */
function gateWhere(gate: GateConfig, from: string | undefined, to: string | undefined): GateConfig {
  if (from === undefined || to === undefined || !gate.where.startsWith(`${from}:`)) return gate;
  return { ...gate, where: `${to}${gate.where.slice(from.length)}` };
}

function relativeGlob(baseDir: string, glob: string): string {
  const negated = glob.startsWith('!');
  const path = relativePath(baseDir, negated ? glob.slice(1) : glob);
  return negated ? `!${path}` : path;
}

/**
 * The config with every path it holds (the config file, out, cache,
 * baseline_run, summarizer prompts, gate locations) passed through `map`:
 * one list, so recording and restoring a config cannot drift apart.
 */
function mapConfigPaths(config: SuiteConfig, map: (path: string) => string, mapOptions: (o: StrategyOptions) => StrategyOptions): SuiteConfig {
  const file = config.file === undefined ? undefined : map(config.file);
  const mapped: SuiteConfig = {
    ...config,
    out: map(config.out),
    cache: config.cache === false ? false : map(config.cache),
    strategies: config.strategies.map((s) => ({ ...s, options: mapOptions(s.options) })),
    gates: config.gates.map((g) => gateWhere(g, config.file, file)),
  };
  if (file !== undefined) mapped.file = file;
  if (config.baseline_run !== undefined) mapped.baseline_run = map(config.baseline_run);
  return mapped;
}

/**
 * The config as run.json records it: `baseDir` relative to the run directory,
 * every other path relative to the config's folder, so the run directory can
 * move with its project and be read on another machine.
 */
export function configRecord(config: SuiteConfig, runDir: string): Record<string, unknown> {
  const base = config.baseDir;
  const record: SuiteConfig = {
    ...mapConfigPaths(config, (path) => relativePath(base, resolve(path)), (o) => recordedOptions(o, base)),
    baseDir: relative(resolve(runDir), base) || '.',
    datasets: config.datasets.map((g) => relativeGlob(base, g)),
  };
  return record as unknown as Record<string, unknown>;
}

/**
 * A recorded `info.config` as an absolute SuiteConfig again (for `--resume`
 * and `memeval gate RUN`). Runs recorded before paths were made relative hold
 * an absolute `baseDir`; their config is returned unchanged.
 */
export function recordedConfig(info: RunInfo, runDir: string): SuiteConfig {
  const saved = info.config as unknown as SuiteConfig;
  if (typeof saved.baseDir !== 'string' || isAbsolute(saved.baseDir)) return saved;
  const base = resolve(runDir, saved.baseDir);
  return { ...mapConfigPaths(saved, (path) => resolve(base, path), (o) => absoluteOptions(o, base)), baseDir: base };
}

function transcriptInfo(t: Transcript, baseDir: string): RunInfo['transcripts'][number] {
  return { id: t.id, file: relativePath(baseDir, t.file), title: t.title, tags: t.tags, turns: t.turns.length, probes: t.probes.length };
}

/**
 * The info block of a new run. `runDir` is where its run.json goes: the
 * recorded config's `baseDir` is relative to it. `env` is read only for
 * OPENAI_BASE_URL, never for a key.
 */
export function runInfo(
  runId: string,
  runDir: string,
  config: SuiteConfig,
  strategies: StrategyConfig[],
  transcripts: Transcript[],
  labels: RunLabels,
  env: Env = process.env,
): RunInfo {
  const provenance = runProvenance(config, strategies, labels, env);
  return {
    runId,
    status: 'running',
    startedAt: new Date().toISOString(),
    memevalVersion: provenance.memevalVersion,
    node: process.version,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, packageVersion(p)])),
    gitSha: provenance.gitSha,
    provenance,
    model: labels.model,
    judge: labels.judge,
    judgeCalibration: judgeCalibration(labels.judge, config.baseDir),
    repeat: config.repeat,
    baseline: config.baseline,
    configFile: config.file === undefined ? undefined : relative(process.cwd(), resolve(config.file)),
    config: configRecord(config, runDir),
    strategies: strategies.map((s) => ({
      id: s.id,
      use: s.use,
      options: recordedOptions(s.options, config.baseDir),
      fingerprint: strategyFingerprint(s, config, provenance),
    })),
    transcripts: transcripts.map((t) => transcriptInfo(t, config.baseDir)),
  };
}
