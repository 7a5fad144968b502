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
import { DEFAULT_OPENAI_BASE_URL, publicBaseURL } from '../models/endpoint.js';
import { memevalVersion, packagePath } from '../../core/package-root.js';
import type { JudgeCalibration, Provenance, RunInfo, StrategyFingerprint, Transcript } from '../../core/types.js';
import type { Model, ModelRequest } from '../../core/model.js';
import { LOCOMO_CATEGORIES, LOCOMO_TAG } from '../../core/locomo.js';
import { PROBE_KINDS } from '../../core/schema/run.js';
import { itemText } from '../../core/items.js';
import { LlmAnswerJudge, OFFLINE_F1_THRESHOLD } from '../../graders/answer-judge.js';
import { LlmSummaryJudge } from '../../graders/summary-judge.js';
import { genericFactCount } from '../datasets/importers/shared.js';

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
    // A calibration in which the judge failed on some item does not count, as `memeval gate` reads it
    // (hasCalibration): its agreement is over the items left, and report.html would show it as whole.
    if (report.errors !== 0 || (report.answers !== undefined && report.answers.errors !== 0)) return undefined;
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
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
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

/**
 * What a run's info needs of a transcript: all of it but its turns, and how
 * many turns it has. A run keeps these for every transcript and reads the
 * turns again when the transcript's first job starts (harness/run/run.ts).
 */
export type TranscriptHeader = WithoutTurns & { turnCount: number; sha256?: string };

/** A transcript's fields that the protocol manifest reads (never the turns). */
type WithoutTurns = Omit<Transcript, 'turns'>;

export function transcriptHeader(t: Transcript): TranscriptHeader {
  const { turns, ...rest } = t;
  return { ...rest, turnCount: turns.length };
}

function transcriptInfo(t: TranscriptHeader, baseDir: string): RunInfo['transcripts'][number] {
  const info: RunInfo['transcripts'][number] = { id: t.id, file: relativePath(baseDir, t.file), title: t.title, tags: t.tags, turns: t.turnCount, probes: t.probes.length };
  if (t.sha256 !== undefined) info.sha256 = t.sha256;
  return info;
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
  transcripts: readonly TranscriptHeader[],
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
      // A point of a sweep says so, so its curve can be drawn again from run.json alone.
      ...(s.sweep ? { sweep: s.sweep } : {}),
      fingerprint: strategyFingerprint(s, config, provenance),
    })),
    transcripts: transcripts.map((t) => transcriptInfo(t, config.baseDir)),
    protocol: protocolManifest(transcripts, { model: labels.model, judge: labels.judge, agent: config.agent, judgeSamples: config.judge_samples }),
  };
}

// ---------- the protocol manifest ----------

type Protocol = NonNullable<RunInfo['protocol']>;
type ProtocolPrompt = Protocol['answerJudge']['prompts'][number];
type ProtocolDataset = Protocol['datasets'][number];

/** Bumped when a manifest field changes meaning; `memeval diff` treats different versions as different protocols. */
export const PROTOCOL_VERSION = 1;

/** Scorer names a manifest lists (`scorers`). */
export const SCORERS = {
  /** memeval's own: must_include / abstention check, token F1, and the answer judge's pass/fail. */
  memeval: 'memeval-rules',
  /** LoCoMo's evaluation.py per-category rules (core/locomo.ts), for LoCoMo probes. */
  locomo: 'locomo-official-f1',
  /** LongMemEval's evaluate_qa.py judge prompts, for LongMemEval probes graded by an LLM judge. */
  longmemeval: 'longmemeval-official-judge',
} as const;

const LONGMEMEVAL_SOURCE = 'longmemeval';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * What memeval sends the answering model. It adds no instructions of its own,
 * so the transcript's system prompt is the whole of "the answer prompt"; the
 * words here change only when the way a request is assembled changes.
 */
function answerRequestText(agent: SuiteConfig['agent']): string {
  if (agent === 'runner') {
    return "@openai/agents Runner, one turn: instructions = the transcript's system prompt (memeval adds none); session items = the strategy's context; run input = the probe's question verbatim (the last user message); tools = the transcript's tools:, stubbed from its recorded outputs, the run stopped at the first call";
  }
  return "system = the transcript's system prompt (memeval adds none); input = the strategy's context items, then the probe's question verbatim as the last user message; tools = the transcript's tools: (none when it has none)";
}

/** Transcripts grouped by the system prompt they send (`none` when they send none), sorted so equal runs hash equal. */
function systemPrompts(transcripts: readonly WithoutTurns[]): Protocol['answer']['systemPrompts'] {
  const groups = new Map<string, string[]>();
  for (const t of transcripts) {
    const key = t.system === undefined ? 'none' : sha256(t.system);
    groups.set(key, [...(groups.get(key) ?? []), t.id]);
  }
  return [...groups].map(([hash, ids]) => ({ sha256: hash, transcripts: ids.sort() })).sort((a, b) => a.sha256.localeCompare(b.sha256));
}

// ----- judge prompts, read from the judges themselves -----

/**
 * A model that answers nothing and keeps every request. The judges do not
 * export their prompts, so the manifest records what they actually send: each
 * judge grades a placeholder input against this model once, and the requests
 * are the prompts (placeholders in `{braces}` where a probe's text goes).
 */
class RecordingModel implements Model {
  readonly id = 'protocol-recorder';
  readonly params = {};
  readonly requests: ModelRequest[] = [];

  constructor(private readonly reply: (request: ModelRequest) => string) {}

  async complete(request: ModelRequest) {
    this.requests.push(request);
    return { output: this.reply(request), usage: { inputTokens: 0, outputTokens: 0 }, cached: false, latencyMs: 0 };
  }
}

function promptOf(request: ModelRequest): ProtocolPrompt {
  const settings: Record<string, unknown> = {};
  if (request.temperature !== undefined) settings.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) settings.maxOutputTokens = request.maxOutputTokens;
  if (request.responseFormat !== undefined) settings.responseFormat = request.responseFormat;
  const prompt: ProtocolPrompt = { user: request.input.map(itemText).join('\n') };
  if (request.system !== undefined) prompt.system = request.system;
  if (Object.keys(settings).length > 0) prompt.settings = settings;
  return prompt;
}

const PLACEHOLDER_TRANSCRIPT: Transcript = {
  id: '{transcript}',
  tags: [],
  turns: [{ kind: 'message', user: '{turn}', toolCalls: [] }],
  facts: [{ id: '{fact id}', text: '{fact}', aliases: [], turn: 1, critical: false }],
  probes: [],
  file: '{file}',
};

/** The answer judge's request for each probe kind (the rubric differs by kind). */
async function answerJudgePrompts(): Promise<ProtocolPrompt[]> {
  const model = new RecordingModel(() => '{"verdict":"yes","reason":""}');
  const judge = new LlmAnswerJudge(model);
  for (const kind of PROBE_KINDS) {
    const probe = { id: '{probe}', afterTurn: 1, question: '{question}', answer: '{reference}', mustInclude: [['{key term}']], facts: [], kind };
    await judge.grade({ transcript: PLACEHOLDER_TRANSCRIPT, probe, answer: '{answer}' });
  }
  return model.requests.map(promptOf);
}

/** The summary judge's coverage request and verdict request, one sample. */
async function summaryJudgePrompts(): Promise<ProtocolPrompt[]> {
  // The coverage call must get a valid reply, or the judge stops before its second call.
  const model = new RecordingModel((r) => (r.responseFormat?.name === 'coverage_verdict' ? '{"coverage":[{"id":"{fact id}","answer":"yes"}]}' : '{}'));
  // Word limit 0 is replaced by a placeholder: the limit is a strategy option, recorded in its fingerprint.
  const judge = new LlmSummaryJudge(model, { wordLimit: 0, samples: 1 });
  const summary = {
    strategy: '{strategy}',
    transcript: '{transcript}',
    turn: 1,
    coveredTurns: [1, 1] as [number, number],
    index: 1,
    summarizer: '{summarizer}',
    request: { system: '', user: '{source}' },
    text: '{summary}',
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
  await judge.grade({ transcript: PLACEHOLDER_TRANSCRIPT, summary });
  return model.requests.map(promptOf).map((p) => ({ ...p, user: p.user.replace(/^WORD LIMIT: 0$/m, 'WORD LIMIT: {word limit}') }));
}

// Read once when the module loads: the prompts are constants of this build, and
// runInfo stays synchronous for its callers. No network: the model is the recorder.
const JUDGE_PROMPTS = { answer: await answerJudgePrompts(), summary: await summaryJudgePrompts() };

const OFFLINE_ANSWER_RULE =
  `abstention probes pass iff the answer abstains; others pass iff every must_include entry is present, or, with no must_include, ` +
  `iff token F1 against the reference is at least ${OFFLINE_F1_THRESHOLD} and the answer does not abstain, hedge or negate it; an answer that is only scaffolding fails`;

const OFFLINE_SUMMARY_RULE =
  'coverage = share of due facts in the summary; faithfulness = share of its identifiers found in the source; temporal = no stale fact; ' +
  'format = headings present and within the word limit; overall = 1 + round(4 × min(coverage, faithfulness)), −1 stale, −1 format, at least 1';

function judgeRecord(model: string, name: string, prompts: ProtocolPrompt[], rule?: string, extra: Record<string, unknown> = {}): Protocol['answerJudge'] {
  const record: Protocol['answerJudge'] = { model, name, prompts, sha256: sha256(JSON.stringify({ name, prompts, rule, ...extra })) };
  if (rule !== undefined) record.rule = rule;
  return record;
}

function answerJudgeRecord(judge: string): Protocol['answerJudge'] {
  if (judge === 'offline') return judgeRecord(judge, 'offline-answer-rule', [], OFFLINE_ANSWER_RULE);
  return judgeRecord(judge, 'llm-answer-judge', JUDGE_PROMPTS.answer);
}

function summaryJudgeRecord(judge: string, samples: number): Protocol['summaryJudge'] {
  if (judge === 'offline') return judgeRecord(judge, 'offline-summary-rule', [], OFFLINE_SUMMARY_RULE);
  // Samples change the verdict (majority and median over them), so they are part of the hash.
  const prompts = JUDGE_PROMPTS.summary.map((p) => ({ ...p, settings: { ...p.settings, samples } }));
  return judgeRecord(judge, 'llm-summary-judge', prompts, undefined, { samples });
}

// ----- imported data -----

/** `locomo`, `longmemeval`, or undefined for a transcript no importer wrote. */
export function benchmarkOf(t: Pick<Transcript, 'tags' | 'meta'>): string | undefined {
  const source = t.meta?.source;
  if (source === LOCOMO_TAG || source === LONGMEMEVAL_SOURCE) return source;
  if (t.tags.includes(LOCOMO_TAG)) return LOCOMO_TAG;
  return t.tags.includes(LONGMEMEVAL_SOURCE) ? LONGMEMEVAL_SOURCE : undefined;
}

function countInto(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

function locomoCategories(transcripts: readonly WithoutTurns[]): Pick<ProtocolDataset, 'categories' | 'absentCategories'> {
  const categories: NonNullable<ProtocolDataset['categories']> = {};
  for (const p of transcripts.flatMap((t) => t.probes)) {
    const key = String(p.meta?.category ?? 'unknown');
    const name = typeof p.meta?.category_name === 'string' ? p.meta.category_name : 'unknown';
    const cell = (categories[key] ??= { name, kind: p.kind, probes: 0 });
    cell.probes++;
  }
  const absentCategories = LOCOMO_CATEGORIES.filter((c) => !(String(c) in categories));
  return { categories, absentCategories };
}

function questionTypes(transcripts: readonly WithoutTurns[]): Record<string, number> {
  const types: Record<string, number> = {};
  for (const p of transcripts.flatMap((t) => t.probes)) countInto(types, String(p.meta?.question_type ?? 'unknown'));
  return types;
}

/** The importer's own record of its options, once per distinct record (none today: see the import docs). */
function importRecords(transcripts: readonly WithoutTurns[]): Record<string, unknown>[] {
  const seen = new Map<string, Record<string, unknown>>();
  for (const t of transcripts) {
    const record = t.meta?.import;
    if (typeof record === 'object' && record !== null && !Array.isArray(record)) seen.set(JSON.stringify(record), record as Record<string, unknown>);
  }
  return [...seen.values()];
}

function datasetRecord(source: string, transcripts: readonly WithoutTurns[]): ProtocolDataset {
  const record: ProtocolDataset = { source, transcripts: transcripts.length, probes: transcripts.reduce((n, t) => n + t.probes.length, 0) };
  if (source === LOCOMO_TAG) Object.assign(record, locomoCategories(transcripts));
  if (source === LONGMEMEVAL_SOURCE) record.questionTypes = questionTypes(transcripts);
  const generic = transcripts.reduce((n, t) => n + genericFactCount(t), 0);
  if (generic > 0) record.genericFacts = generic;
  const imports = importRecords(transcripts);
  if (imports.length > 0) record.import = imports;
  return record;
}

function datasets(transcripts: readonly WithoutTurns[]): ProtocolDataset[] {
  const bySource = new Map<string, WithoutTurns[]>();
  for (const t of transcripts) {
    const source = benchmarkOf(t);
    if (source !== undefined) bySource.set(source, [...(bySource.get(source) ?? []), t]);
  }
  return [...bySource].sort(([a], [b]) => a.localeCompare(b)).map(([source, ts]) => datasetRecord(source, ts));
}

/** The scorers the run's probes call for: memeval's always, an official one when its benchmark's probes are present. */
export function scorersFor(transcripts: readonly WithoutTurns[], judge: string): string[] {
  const withProbes = transcripts.filter((t) => t.probes.length > 0);
  const scorers: string[] = withProbes.length > 0 ? [SCORERS.memeval] : [];
  const sources = new Set(withProbes.map(benchmarkOf));
  if (sources.has(LOCOMO_TAG)) scorers.push(SCORERS.locomo);
  // LongMemEval's official scorer is an LLM judge; the offline rule cannot run it.
  if (sources.has(LONGMEMEVAL_SOURCE) && judge !== 'offline') scorers.push(SCORERS.longmemeval);
  return scorers;
}

export interface ProtocolLabels {
  model: string;
  judge: string;
  agent: SuiteConfig['agent'];
  /** Summary-judge calls per summary (`judge_samples`). */
  judgeSamples: number;
}

/** The run's protocol manifest (run.json `info.protocol`; see core/schema/run.ts). */
export function protocolManifest(transcripts: readonly WithoutTurns[], labels: ProtocolLabels): Protocol {
  const request = answerRequestText(labels.agent);
  return {
    version: PROTOCOL_VERSION,
    answer: { model: labels.model, agent: labels.agent, request, sha256: sha256(request), systemPrompts: systemPrompts(transcripts) },
    answerJudge: answerJudgeRecord(labels.judge),
    summaryJudge: summaryJudgeRecord(labels.judge, labels.judgeSamples),
    scorers: scorersFor(transcripts, labels.judge),
    datasets: datasets(transcripts),
  };
}
