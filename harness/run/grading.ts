// Builds, once per run, the models and graders the config names: the agent
// model that answers probes, the judge, summarizers, and their counters.
import pLimit from 'p-limit';
import type { SuiteConfig, StrategyConfig } from '../config.js';
import type { LimitFunction } from 'p-limit';
import { Breakers } from '../models/breaker.js';
import { CachedModel, ModelStats, type CallRouter } from '../models/cache.js';
import { createModel, ModelSetupError, openAIModelOf, runnerTargetOf } from '../models/create.js';
import { createEmbedder } from '../models/embeddings.js';
import { costOf, priceFor, type Price } from '../models/prices.js';
import { withRetry } from '../models/retry.js';
import type { Model, ModelRequest, ModelResult } from '../../core/model.js';
import { questionAndContext } from '../models/offline.js';
import type { OpenAIRunnerTarget } from '../models/openai.js';
import { TokenCounter } from '../../core/tokens.js';
import type { MadeSummary, SummaryRecord, Transcript } from '../../core/types.js';
import { createAnswerJudge, type AnswerJudge } from '../../graders/answer-judge.js';
import { createSummaryJudge, gradeSummary, type SummaryJudge } from '../../graders/summary-judge.js';
import type { Summarizer } from '../../strategies/base.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import { createLlmSummarizer } from '../../strategies/llm-summarizer.js';
import type { Embedder, OptionType, ServerModel, StrategyOptions, SummarizerOptions } from '../../strategies/registry.js';
import { summarizerOptionsOf } from '../../strategies/summary-input.js';
import type { StrategyRegistry } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';

export interface Graders {
  counter: TokenCounter;
  answerModel: Model;
  answerJudge: AnswerJudge;
  makeSummarizer(options: SummarizerOptions): Summarizer;
  /** The model a strategy calls itself (a `type: 'model'` option, e.g. openai-compaction's). */
  serverCompaction(spec: string): ServerModel;
  /** The embedder of a `type: 'embedding-model'` option (retrieval's embedding_model). */
  embedder(spec: string): Embedder;
  gradeSummary(transcript: Transcript, summary: MadeSummary, previous: SummaryRecord | undefined, strategy: StrategyConfig): Promise<MadeSummary>;
  counts(): { calls: number; cacheHits: number; dedupHits: number; errors: number };
  /** Settles when the clients the run's first calls need are loaded (with the cache off; at once otherwise). */
  ready(): Promise<void>;
  /** Calls `listener` once, when the next model call (other than `offline`) begins; returns a function that forgets it. */
  onceModelCallBegins(listener: () => void): () => void;
  /** Why an endpoint cannot be used (bad key, unknown model, nothing listening), once a circuit breaker tripped. */
  fatal(): string | undefined;
  /** The run stopped: no model call starts any more (one queued for a slot ends as an error, unsent); calls in flight finish. */
  stopCalls(): void;
  model: string;
  judge: string;
  /** The answering model's price, to cost its calls with cached-input prices; undefined when it has none. */
  answerPrice?: Price;
}

/**
 * Answers through a scoped `@openai/agents` Runner with the strategy's view as
 * its session: OpenAI models run on the SDK's own OpenAIProvider, so the request
 * is built exactly as production builds it; any other model goes through an adapter.
 */
class RunnerAnswerModel implements Model {
  readonly id: string;
  readonly params: Record<string, unknown>;

  constructor(
    private readonly target: OpenAIRunnerTarget | Model,
    base: Model,
    private readonly limit: LimitFunction,
  ) {
    this.id = base.id;
    this.params = { ...base.params, path: 'agents-runner' };
  }

  async complete(request: ModelRequest): Promise<ModelResult> {
    const { question, context } = questionAndContext(request.input);
    // The transcript's tools go to the runner's Agent, as the direct path sends them with the request.
    const prepared = { instructions: request.system, items: context, question, ...(request.tools?.length ? { tools: request.tools } : {}) };
    // Loaded with the first runner call: `@openai/agents` is a large package that a run on the direct path never needs.
    const { answerWithRunner } = await import('../models/agent-path.js');
    const { output, usage, cost, cached, latencyMs, error, toolCalls } = await answerWithRunner({
      prepared,
      question,
      model: this.target,
      limit: this.limit,
      maxOutputTokens: request.maxOutputTokens,
      temperature: request.temperature,
    });
    return { output, usage, cost, cached, latencyMs, error, ...(toolCalls?.length ? { toolCalls } : {}) };
  }
}

/** Every model spec a run will call: the answering model, the judge, and each strategy's summarizer. */
export function modelSpecs(config: SuiteConfig, strategies: StrategyConfig[], registry: StrategyRegistry): string[] {
  const specs = new Set([config.model, config.judge]);
  for (const s of strategies) {
    if (Object.values(registry.get(s.use)?.options ?? {}).some((o) => o.type === 'summarizer')) specs.add(summarizerOptionsOf(s.options).model);
    const options = registry.get(s.use)?.options ?? {};
    for (const spec of [...modelOptions(s.options, options), ...modelOptions(s.options, options, 'embedding-model')]) specs.add(spec);
  }
  specs.delete('offline');
  return [...specs];
}

/** The values of a strategy's options of one type (`model` by default). */
function modelOptions(options: StrategyOptions, specs: Record<string, { type: OptionType }>, type: OptionType = 'model'): string[] {
  return Object.entries(specs).flatMap(([name, spec]) => {
    const value = options[name];
    return spec.type === type && typeof value === 'string' ? [value] : [];
  });
}

/**
 * A model a strategy calls itself through the SDK (server compaction). The SDK
 * makes the request with the run's `openai` client, so it cannot sit behind the
 * call cache (which stores text answers of Model calls); each call still gets
 * the run's retries, breaker and concurrency limit, and is counted.
 */
function serverModel(spec: string, model: Model, limit: LimitFunction, stats: ModelStats, price: Price | undefined): ServerModel {
  const target = runnerTargetOf(model, 'compaction');
  if (!target) throw new ModelSetupError(`${spec} is not served by an OpenAI-compatible provider, which server compaction needs`);
  if (target.api !== 'responses') throw new ModelSetupError(`${spec}: server compaction needs the Responses API, but its provider sets api: chat`);
  return {
    spec,
    name: target.name,
    client: target.client,
    async call(fn) {
      stats.callBegins();
      const outcome = await limit(() => withRetry(() => fn(), target));
      if (outcome.ok) stats.calls++;
      else stats.errors++;
      return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.fatal ? outcome.error : `${target.id}: ${outcome.error}` };
    },
    // Nominal price: these calls are made one by one, never through the Batch API.
    cost: (usage) => costOf(usage, price),
  };
}

/**
 * An embeddings model on the provider settings (base URL, key variable, retries,
 * timeout) of its spec, with the run's breaker, concurrency limit, counters and cache.
 */
function embedderOf(spec: string, model: Model, config: SuiteConfig, limit: LimitFunction, stats: ModelStats): Embedder {
  const openai = openAIModelOf(model);
  const target = openai?.runnerTarget('embeddings');
  if (!openai || !target) throw new ModelSetupError(`${spec} is not served by an OpenAI-compatible provider, which embeddings need`);
  const baseURL = openai.params.baseURL;
  return createEmbedder({ spec, target, params: baseURL === undefined ? {} : { baseURL }, cacheDir: config.cache, limit, stats });
}

function runnerModel(model: Model, config: SuiteConfig, limit: LimitFunction, stats: ModelStats): Model {
  const target = runnerTargetOf(model);
  if (!target) return new RunnerAnswerModel(model, model, limit);
  // Cached at the answer level, like every other call: a rerun makes no requests.
  return new CachedModel(new RunnerAnswerModel(target, model, limit), { dir: config.cache, stats });
}

/**
 * Builds every model the run needs up front, so a missing key or an unknown
 * provider is reported (ModelSetupError) before any work starts.
 */
export function buildGraders(
  config: SuiteConfig,
  strategies: StrategyConfig[] = config.strategies,
  registry: StrategyRegistry = STRATEGIES,
  router?: CallRouter,
): Graders {
  const stats = new ModelStats();
  const breakers = new Breakers();
  const limit = pLimit(config.concurrency);
  const preloads: Promise<void>[] = [];
  const models = new Map<string, Model>();
  const modelFor = (spec: string): Model => {
    let model = models.get(spec);
    if (!model) {
      model = createModel(spec, { providers: config.providers, prices: config.prices, cacheDir: config.cache, limit, stats, breakers, preloads, router });
      models.set(spec, model);
    }
    return model;
  };
  for (const spec of modelSpecs(config, strategies, registry)) modelFor(spec);
  const servers = new Map<string, ServerModel>();
  const serverFor = (spec: string): ServerModel => {
    let server = servers.get(spec);
    if (!server) {
      server = serverModel(spec, modelFor(spec), limit, stats, priceFor(spec, config.prices));
      servers.set(spec, server);
    }
    return server;
  };
  // Checked up front, like every model: a chat-only provider is bad input before any work starts.
  for (const s of strategies) for (const spec of modelOptions(s.options, registry.get(s.use)?.options ?? {})) serverFor(spec);
  const embedders = new Map<string, Embedder>();
  const embedderFor = (spec: string): Embedder => {
    let embedder = embedders.get(spec);
    if (!embedder) {
      embedder = embedderOf(spec, modelFor(spec), config, limit, stats);
      embedders.set(spec, embedder);
    }
    return embedder;
  };
  for (const s of strategies) for (const spec of modelOptions(s.options, registry.get(s.use)?.options ?? {}, 'embedding-model')) embedderFor(spec);
  const answerModel = config.agent === 'runner' ? runnerModel(modelFor(config.model), config, limit, stats) : modelFor(config.model);
  const judgeModel = config.judge === 'offline' ? undefined : modelFor(config.judge);
  const summaryJudges = new Map<number, SummaryJudge>();
  const summaryJudgeFor = (wordLimit: number): SummaryJudge => {
    let judge = summaryJudges.get(wordLimit);
    if (!judge) {
      judge = createSummaryJudge(config.judge, { wordLimit, samples: config.judge_samples }, judgeModel);
      summaryJudges.set(wordLimit, judge);
    }
    return judge;
  };
  return {
    // Shared with the offline model: each distinct text is encoded once per run.
    counter: TokenCounter.shared(config.model),
    answerModel,
    answerJudge: createAnswerJudge(config.judge, judgeModel),
    makeSummarizer: (options) =>
      options.model === 'offline' ? new OfflineSummarizer(options, TokenCounter.shared()) : createLlmSummarizer(options, modelFor(options.model)),
    serverCompaction: serverFor,
    embedder: embedderFor,
    async gradeSummary(transcript, summary, previous, strategy) {
      const wordLimit = summarizerOptionsOf(strategy.options).word_limit;
      const grades = await gradeSummary({ transcript, summary, previous }, { wordLimit }, summaryJudgeFor(wordLimit));
      return { ...summary, grades };
    },
    counts: () => {
      const s = stats.snapshot();
      return { calls: s.calls, cacheHits: s.cacheHits, dedupHits: s.dedupHits, errors: s.errors };
    },
    ready: () => Promise.all(preloads).then(() => undefined),
    onceModelCallBegins: (listener) => stats.onceCallBegins(listener),
    fatal: () => breakers.fatal(),
    stopCalls: () => breakers.halt('not sent: the run was stopped'),
    model: config.model,
    judge: config.judge,
    answerPrice: config.model === 'offline' ? undefined : priceFor(config.model, config.prices),
  };
}
