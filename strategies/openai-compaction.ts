// Server compaction, as the Agents SDK does it: the history lives in a session
// wrapped by `OpenAIResponsesCompactionSession`, which, once its trigger fires,
// sends the history to `POST /responses/compact` and replaces it with what the
// server returns (an encrypted `compaction` item). That item is opaque: its
// tokens are the ones the API reported, and facts said in the compacted span
// are neither present nor missing but `opaque` (harness/run/replay.ts).
// The SDK only accepts `gpt-*`, `o<digit>…` and `ft:gpt-*` model names, so the
// model must be served under such a name, a local server included.
// A second mode (`mode: context-management`) asks for the same compaction the
// way an answer request can: the history goes to `POST /responses` with
// `context_management: [{ type: 'compaction', compact_threshold }]` (the SDK's
// `modelSettings.contextManagement`) and a tiny `max_output_tokens`, and the
// `compaction` item of the reply's output replaces the history.
import type { OpenAIResponsesCompactionSession, Session } from '@openai/agents';
import { awaitsResult, sentItems } from '../core/items.js';
import { msSince, tokenCount } from '../core/model.js';
import type { TokenCounter } from '../core/tokens.js';
import type { AgentInputItem, Usage } from '../core/types.js';
import { failedSummary, MemoryStrategy, type OpaqueSpan, type SummaryEvent } from './base.js';
import { optionalNum, type ServerModel, type StrategyDefinition, type StrategyOptions } from './registry.js';

/** The synthetic request line of a failed compaction's record (there is no summary prompt). */
export const COMPACTION_SHADOW = 'Compact the conversation so far (POST /responses/compact).';

/** The synthetic request line of a failed compaction in `context-management` mode. */
export const CONTEXT_MANAGEMENT_SHADOW = 'Compact the conversation so far (POST /responses with context_management).';

/** Output tokens a `context-management` compaction request allows: the reply's text is thrown away. */
export const COMPACTION_REQUEST_MAX_OUTPUT = 16;

/** When to compact; with neither set, the SDK's own default (10 candidate items) applies. */
export interface CompactionTrigger {
  /** Candidate items (everything but user messages and compaction items), as the SDK counts them. */
  items?: number;
  /** Tokens of the session: the API's count for the compacted part, the local count for the rest. */
  tokens?: number;
  /**
   * `context-management` mode: compact once the session's tokens (counted as for
   * `tokens`) reach this; it is also the request's `compact_threshold`.
   */
  compactThreshold?: number;
}

/** The SDK's model-name rule (it throws on any other name; checked here so a config says so first). */
export function sdkCompactionName(spec: string): boolean {
  const name = spec.includes(':') ? spec.slice(spec.indexOf(':') + 1) : spec;
  const root = (name.startsWith('ft:') ? name.slice(3) : name).split(':', 1)[0];
  return root.startsWith('gpt-') || /^o\d[a-z0-9-]*$/i.test(root);
}

/** A plain in-memory Session: the one the SDK's compaction session wraps and rewrites. */
class ListSession implements Session {
  items: AgentInputItem[] = [];

  constructor(private readonly id: string) {}

  async getSessionId(): Promise<string> {
    return this.id;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit === undefined || limit === null) return [...this.items];
    return limit <= 0 ? [] : this.items.slice(-limit);
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    this.items.push(...items);
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    return this.items.pop();
  }

  async clearSession(): Promise<void> {
    this.items = [];
  }
}

/** The server's opaque stand-in for the compacted history. */
function isCompactionItem(item: AgentInputItem): boolean {
  const fields = item as { type?: unknown; encrypted_content?: unknown };
  return fields.type === 'compaction' && typeof fields.encrypted_content === 'string';
}

export class OpenAICompactionStrategy extends MemoryStrategy {
  private readonly list = new ListSession('openai-compaction');
  /** Built on the first add: the SDK and the client load only when the strategy runs. */
  private compactor: Promise<OpenAIResponsesCompactionSession> | undefined;
  private span: OpaqueSpan | undefined;
  /** Adds and compactions one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly model: ServerModel,
    private readonly trigger: CompactionTrigger,
    private readonly counter: TokenCounter,
  ) {
    super();
  }

  protected view(): AgentInputItem[] {
    return [...this.list.items];
  }

  override opaqueSpan(): OpaqueSpan | undefined {
    return this.span;
  }

  override addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    const next = this.queue.then(() => this.addAndCompact(items));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async addAndCompact(added: AgentInputItem[]): Promise<void> {
    this.history.push(...added);
    // The server is sent what any request carries: not a reasoning item it never issued in this session.
    const items = sentItems(added);
    if (this.trigger.compactThreshold !== undefined) return this.addAndManage(items, this.trigger.compactThreshold);
    const compactor = await this.compactorFor();
    await compactor.addItems(items);
    // A call still waiting for its result is not compacted away: the result would then follow no call.
    if (awaitsResult(this.list.items)) return;
    const started = performance.now();
    const lastItem = this.history.length - 1;
    // Input mode: the history itself is sent, so no stored response on the server is needed.
    const outcome = await this.model.call(() => compactor.runCompaction({ compactionMode: 'input' }));
    if (!outcome.ok) {
      // The SDK keeps the history when the call fails; the failure is recorded, never passed over.
      this.events.push(failedSummary(lastItem, outcome.error, msSince(started), COMPACTION_SHADOW));
      return;
    }
    if (outcome.value === null) return;
    // A reply without the compaction item replaced the history with nothing: that is a failed compaction, not an
    // opaque one (its facts are gone, and read as missing), recorded as an error.
    if (!this.list.items.some(isCompactionItem)) {
      const failed = failedSummary(lastItem, 'the compaction reply held no compaction item (type "compaction" with encrypted_content)', msSince(started), COMPACTION_SHADOW);
      this.events.push(this.billed(failed, outcome.value.usage));
      return;
    }
    const usage = usableUsage(outcome.value.usage);
    this.span = { lastItem, viewItems: this.list.items.length, apiTokens: usage?.outputTokens ?? 0 };
    this.events.push(usage ? this.compactionEvent(lastItem, usage, msSince(started), COMPACTION_SHADOW) : badUsage(lastItem, outcome.value.usage, msSince(started), COMPACTION_SHADOW));
  }

  /** A call the server answered (and billed) without compacting: its usage and cost stay on the failure. */
  private billed(failed: SummaryEvent, reported: { inputTokens: unknown; outputTokens: unknown }): SummaryEvent {
    const usage = usableUsage(reported);
    if (!usage) return failed;
    const cost = this.model.cost({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    return { ...failed, output: { ...failed.output, usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }, ...(cost === undefined ? {} : { cost }) } };
  }

  /**
   * `context-management` mode: once the session reaches the threshold, one
   * Responses request through the SDK's model with `modelSettings.contextManagement`;
   * the `compaction` item of its output becomes the whole session (the reply's
   * text, if any, belongs to no turn and is dropped).
   */
  private async addAndManage(items: AgentInputItem[], threshold: number): Promise<void> {
    this.list.items.push(...items);
    if (this.sessionTokens(this.list.items) < threshold || awaitsResult(this.list.items)) return;
    const started = performance.now();
    const lastItem = this.history.length - 1;
    const input = [...this.list.items];
    const outcome = await this.model.call(async () => {
      const [{ OpenAIResponsesModel, NoopTrace, withTrace }, client] = await Promise.all([import('@openai/agents'), this.model.client()]);
      // The model opens a span in the current trace; a no-op trace keeps tracing off, as the run's Runner does.
      return withTrace(new NoopTrace(), () => new OpenAIResponsesModel(client, this.model.name).getResponse({
        input,
        modelSettings: { contextManagement: [{ type: 'compaction', compactThreshold: threshold }], maxTokens: COMPACTION_REQUEST_MAX_OUTPUT, store: false },
        tools: [],
        outputType: 'text',
        handoffs: [],
        tracing: false,
      }));
    });
    if (!outcome.ok) {
      this.events.push(failedSummary(lastItem, outcome.error, msSince(started), CONTEXT_MANAGEMENT_SHADOW));
      return;
    }
    const compaction = outcome.value.output.find((item) => isCompactionItem(item as AgentInputItem));
    if (!compaction) {
      // The server did not compact (its count may be under the threshold where ours is not): the history stays,
      // and the call is recorded as a failed compaction rather than passed over.
      const error = 'the context_management reply held no compaction item (type "compaction" with encrypted_content)';
      this.events.push(this.billed(failedSummary(lastItem, error, msSince(started), CONTEXT_MANAGEMENT_SHADOW), outcome.value.usage));
      return;
    }
    this.list.items = [compaction as AgentInputItem];
    const usage = usableUsage(outcome.value.usage);
    // The reply's output tokens stand for the compaction item (the few of the dropped text included).
    this.span = { lastItem, viewItems: 1, apiTokens: usage?.outputTokens ?? 0 };
    this.events.push(usage ? this.compactionEvent(lastItem, usage, msSince(started), CONTEXT_MANAGEMENT_SHADOW) : badUsage(lastItem, outcome.value.usage, msSince(started), CONTEXT_MANAGEMENT_SHADOW));
  }

  /**
   * A compaction as a summary event, so its tokens, time and cost count with the
   * strategy's summary calls; it has no text, so it is marked opaque and not graded.
   */
  private compactionEvent(lastItem: number, usage: Usage, durationMs: number, shadow: string): SummaryEvent {
    const cost = this.model.cost(usage);
    return {
      firstItem: 0,
      lastItem,
      opaque: true,
      output: { userShadow: shadow, summary: '', request: { system: '', user: '' }, usage, durationMs, ...(cost === undefined ? {} : { cost }) },
    };
  }

  private compactorFor(): Promise<OpenAIResponsesCompactionSession> {
    this.compactor ??= (async () => {
      const [{ OpenAIResponsesCompactionSession: Compaction }, client] = await Promise.all([import('@openai/agents'), this.model.client()]);
      const decide = this.decider();
      return new Compaction({
        client,
        model: this.model.name,
        underlyingSession: this.list,
        compactionMode: 'input',
        ...(decide ? { shouldTriggerCompaction: decide } : {}),
      });
    })();
    return this.compactor;
  }

  /** The trigger as the SDK's decision hook; undefined leaves the SDK's default. */
  private decider(): ((context: { compactionCandidateItems: AgentInputItem[]; sessionItems: AgentInputItem[] }) => boolean) | undefined {
    const { items, tokens } = this.trigger;
    if (items === undefined && tokens === undefined) return undefined;
    return ({ compactionCandidateItems, sessionItems }) =>
      (items !== undefined && compactionCandidateItems.length >= items) || (tokens !== undefined && this.sessionTokens(sessionItems) >= tokens);
  }

  /** The compacted items at the API's count (they cannot be counted here), the rest counted locally. */
  private sessionTokens(items: AgentInputItem[]): number {
    const skip = this.span?.viewItems ?? 0;
    let tokens = this.span?.apiTokens ?? 0;
    for (const item of items.slice(skip)) tokens += this.counter.item(item);
    return tokens;
  }

  override async popItem(): Promise<AgentInputItem | undefined> {
    await this.queue;
    const item = this.history.pop();
    if (item === undefined) return undefined;
    if (this.span && this.history.length <= this.span.lastItem) {
      // Popping into the compacted span: the compaction no longer stands for the history, so the view goes back to it.
      this.span = undefined;
      await this.resetSession([...this.history]);
    } else if (this.compactor) {
      await (await this.compactor).popItem();
    } else {
      this.list.items.pop();
    }
    return item;
  }

  override async clearSession(): Promise<void> {
    await this.queue;
    await super.clearSession();
    this.span = undefined;
    await this.resetSession([]);
  }

  /** The session holds `items` again: through the SDK's compaction session in `compact` mode, so it starts over too. */
  private async resetSession(items: AgentInputItem[]): Promise<void> {
    if (!this.compactor) {
      this.list.items = items;
      return;
    }
    const compactor = await this.compactor;
    await compactor.clearSession();
    await compactor.addItems(items);
  }
}

function triggerOf(options: StrategyOptions): CompactionTrigger {
  if (options.mode === 'context-management') return { compactThreshold: optionalNum(options, 'compact_threshold') };
  return { items: optionalNum(options, 'trigger_items'), tokens: optionalNum(options, 'trigger_tokens') };
}

/** Each mode takes its own trigger options only: one set for the other would be silently unused. */
function modeProblems(options: StrategyOptions): string[] {
  if (options.mode === 'context-management') {
    const problems = options.compact_threshold === undefined ? ['mode: context-management needs option compact_threshold (tokens)'] : [];
    for (const name of ['trigger_items', 'trigger_tokens']) {
      if (options[name] !== undefined) problems.push(`${name} is only used with mode: compact; mode: context-management compacts at compact_threshold`);
    }
    return problems;
  }
  return options.compact_threshold === undefined ? [] : ['compact_threshold is only used with mode: context-management; set that mode or remove it'];
}

export const openaiCompaction: StrategyDefinition = {
  use: 'openai-compaction',
  doc:
    'Server compaction through the Agents SDK: mode compact (OpenAIResponsesCompactionSession, POST /responses/compact) or mode context-management ' +
    '(POST /responses with context_management compaction at compact_threshold). The compacted item is opaque, so its tokens are the API-reported ones ' +
    'and facts in it are "opaque". Needs a gpt-* model on an OpenAI-compatible Responses API.',
  options: {
    model: { type: 'model', required: true, doc: 'The model that compacts: a gpt-* (or o<digit>) model on an OpenAI-compatible provider, e.g. openai:gpt-4.1-mini.' },
    trigger_items: { type: 'int', min: 1, doc: 'Compact once the session holds this many candidate items (all but user messages); the SDK default is 10.' },
    trigger_tokens: { type: 'int', min: 1, doc: 'Compact once the session holds this many tokens (the API-reported count for the compacted part).' },
    mode: {
      type: 'string',
      values: ['compact', 'context-management'],
      default: 'compact',
      doc: 'compact: POST /responses/compact through the SDK\'s compaction session; context-management: POST /responses with context_management (compaction at compact_threshold).',
    },
    compact_threshold: {
      type: 'int',
      min: 1,
      doc: 'mode context-management: compact once the session holds this many tokens (counted as for trigger_tokens); sent as compact_threshold.',
    },
  },
  check(options) {
    const problems = modeProblems(options);
    if (problems.length) return problems;
    const model = options.model;
    if (model === 'offline') {
      return ['needs a model on an OpenAI-compatible API: the server does the compaction (POST /responses/compact), which the offline model cannot; set model: to e.g. openai:gpt-4.1-mini'];
    }
    if (typeof model === 'string' && !sdkCompactionName(model)) {
      return [`model "${model}" is not a name the Agents SDK compacts with (it needs gpt-*, o<digit>… or ft:gpt-*; serve a local model under such a name)`];
    }
    return [];
  },
  create(options, ctx) {
    const spec = options.model;
    if (typeof spec !== 'string') throw new Error('option model is not a string');
    if (!ctx.serverCompaction) throw new Error('openai-compaction needs a run that can call a server; this replay has none');
    return new OpenAICompactionStrategy(ctx.serverCompaction(spec), triggerOf(options), ctx.counter);
  },
};

/** A reply's token counts when they are counts (whole, finite, not negative); undefined otherwise. */
function usableUsage(usage: { inputTokens: unknown; outputTokens: unknown } | undefined): Usage | undefined {
  const inputTokens = tokenCount(usage?.inputTokens);
  const outputTokens = tokenCount(usage?.outputTokens);
  return inputTokens === undefined || outputTokens === undefined ? undefined : { inputTokens, outputTokens };
}

/**
 * A compaction whose reply reports no token counts (missing, negative, text): it happened, but
 * the compacted context's size is unknown, so it is an error of the run rather than a size of 0
 * (or NaN) in every token figure after it.
 */
function badUsage(lastItem: number, usage: unknown, durationMs: number, shadow: string): SummaryEvent {
  return failedSummary(lastItem, `the compaction reply's usage is not token counts (${JSON.stringify(usage) ?? 'none'}), so the compacted context's size is unknown`, durationMs, shadow);
}
