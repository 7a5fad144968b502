// Replays one transcript through one strategy, turn by turn, and measures what
// the strategy would send: token pressure, facts kept, summaries made. Probes
// are captured as the exact view the model would see; they never enter the session.
import type { MemoryStrategy, ProtectPredicate, SummaryEvent, ViewChange } from '../../strategies/base.js';
import type { StrategyContext, StrategyDefinition, StrategyOptions } from '../../strategies/registry.js';
import { summarizerOptionsOf } from '../../strategies/summary-input.js';
import { isSent, itemText, sentItems, turnItems } from '../../core/items.js';
import { containsNormalized, factPhrases, isAscii, normalizeText } from '../../core/text.js';
import type { TokenCounter } from '../../core/tokens.js';
import { orNone, type TurnFacts } from '../../core/schema/run.js';
import { yieldToEvents } from './yield.js';
import type { TurnSpan } from '../../graders/attribution.js';
import { OPENAI_PROMPT_CACHE, cacheStanding, type PromptCacheRule } from '../../core/prompt-cache.js';
import type { AgentInputItem, Fact, MadeSummary, Probe, Transcript, TurnRecord } from '../../core/types.js';

/** What the model would be sent for one probe, and what that context holds. */
export interface ProbeContext {
  probe: Probe;
  items: AgentInputItem[];
  contextTokens: number;
  factsPresent: string[];
  factsMissing: string[];
  /** Needed facts stated in a span the server compacted into an opaque item. */
  factsOpaque: string[];
  /** Runs of turns (1-based, ascending) whose items are absent from the view. */
  cutSpans: TurnSpan[];
  /** Cut turns up to this one a server-compacted, opaque item in the view stands for (0: none). */
  opaqueUpTo: number;
  /** Turns stood for by a summary that is in the view, and the summary texts. */
  summarizedTurns: number[];
  summaryTexts: string[];
  /** Tokens of the request at the probe's turn a provider's prompt cache can serve (see core/prompt-cache.ts). */
  cacheableTokens: number;
}

export interface ReplayResult {
  turns: TurnRecord[];
  summaries: MadeSummary[];
  probes: ProbeContext[];
  /** The replay was stopped (`stop` fired) before its last turn: its records are partial. */
  stopped?: boolean;
}

export interface ReplayInput {
  transcript: Transcript;
  strategyId: string;
  definition: StrategyDefinition;
  options: StrategyOptions;
  counter: TokenCounter;
  makeSummarizer: StrategyContext['makeSummarizer'];
  /** For strategies that compact on a server; a replay without it cannot build them. */
  serverCompaction?: StrategyContext['serverCompaction'];
  embedder?: StrategyContext['embedder'];
  /** Checked between turns: a stopped run does not finish a long replay first. */
  stop?: AbortSignal;
  /** The answering provider's prompt-cache rule (`false`: none); OpenAI's by default. */
  promptCache?: PromptCacheRule | false;
}

/**
 * Which facts a text states, per text, shared by the replays of one transcript
 * (its `facts`) under one counter (one run, or one benchmark repetition): every
 * strategy replays the same turns, as fresh item objects holding the same texts.
 */
const scanCaches = new WeakMap<TokenCounter, WeakMap<Fact[], Map<string, readonly number[]>>>();

function scanCacheFor(counter: TokenCounter, facts: Fact[]): Map<string, readonly number[]> {
  let byFacts = scanCaches.get(counter);
  if (!byFacts) {
    byFacts = new WeakMap();
    scanCaches.set(counter, byFacts);
  }
  let cache = byFacts.get(facts);
  if (!cache) {
    cache = new Map();
    byFacts.set(facts, cache);
  }
  return cache;
}

/** The one list of a text stating no fact (most texts), frozen. */
const NO_FACTS: readonly number[] = Object.freeze([]);

/** Remembers, per item object, which facts its text states (computed once per item), as the facts' positions. */
class FactIndex {
  private readonly phrases: string[][];
  /** Each phrase's longest word (see `mayState`). */
  private readonly keys: string[][];
  private readonly cache = new WeakMap<object, readonly number[]>();
  private readonly byText: Map<string, readonly number[]>;

  constructor(facts: Fact[], byText: Map<string, readonly number[]> = new Map()) {
    ({ phrases: this.phrases, keys: this.keys } = phrasesOf(facts));
    this.byText = byText;
  }

  of(item: AgentInputItem): readonly number[] {
    const key = item as object;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.scan(itemText(item));
      this.cache.set(key, hit);
    }
    return hit;
  }

  /** The positions of the facts `text` states, ascending (the returned array is shared: never modify it). */
  scan(text: string): readonly number[] {
    let hit = this.byText.get(text);
    if (!hit) {
      // Most texts state no fact; an ASCII one whose lower-case form lacks every phrase's
      // longest word is never normalised (normalising keeps each word's characters as they
      // are and only turns what lies between words into single spaces).
      const lower = isAscii(text) ? text.toLowerCase() : undefined;
      let norm: string | undefined;
      const states = (p: string, key: string) => (lower === undefined || lower.includes(key)) && containsNormalized((norm ??= normalizeText(text)), p);
      const stated: number[] = [];
      this.phrases.forEach((ps, i) => {
        if (ps.some((p, j) => states(p, this.keys[i][j]))) stated.push(i);
      });
      hit = stated.length === 0 ? NO_FACTS : stated;
      this.byText.set(text, hit);
    }
    return hit;
  }
}

/**
 * Each fact's phrases, normalised, and their longest words, per facts list: every
 * strategy replays the same transcript (and its facts) and need not normalise them again.
 */
const factPhrasesOf = new WeakMap<Fact[], { phrases: string[][]; keys: string[][] }>();

function phrasesOf(facts: Fact[]): { phrases: string[][]; keys: string[][] } {
  let hit = factPhrasesOf.get(facts);
  if (!hit) {
    const phrases = facts.map((f) => factPhrases(f).map(normalizeText).filter((p) => p.length > 0));
    hit = { phrases, keys: phrases.map((ps) => ps.map(longestWord)) };
    factPhrasesOf.set(facts, hit);
  }
  return hit;
}

function longestWord(normalized: string): string {
  return normalized.split(' ').reduce((a, b) => (b.length > a.length ? b : a), '');
}

/**
 * Measures a view's tokens and facts, and the prefix it shares with the view
 * before it. Most views grow by appending (full history, and every strategy
 * between compactions), so only the items after the shared prefix are counted:
 * replay time stays linear in the transcript's length instead of quadratic in
 * its turns.
 *
 * The shared prefix is item-granular: the instructions, then the leading items
 * equal to the previous view's (the same object, or the same content); the
 * first item that differs ends it, even when it differs only at its end.
 */
class ViewMeter {
  /** Tokens of the instructions and the first i items of `last`, at i (so its last entry is the whole view). */
  private prefixTokens: number[];
  /** Per fact, how many items of the view state it. */
  private readonly factCounts: Int32Array;
  /** Facts whose count changed since `takeChanged` was last called. */
  private changed = new Set<number>();
  private measured = false;

  constructor(
    private readonly counter: TokenCounter,
    private readonly index: FactIndex,
    instructions: string | undefined,
    facts: number,
  ) {
    this.prefixTokens = [counter.request(instructions, [])];
    this.factCounts = new Int32Array(facts);
  }

  /**
   * `view` is the sent view after `change`. Items rebuilt with the same content as the ones
   * they replace (a summary message made again) still belong to the shared prefix.
   */
  measure(view: readonly AgentInputItem[], change: SentChange): { tokens: number; sharedTokens: number; previousTokens?: number } {
    const { removed, added } = change;
    let same = 0;
    while (same < removed.length && same < added.length && this.sameItem(added[same], removed[same])) same++;
    const kept = change.kept + same;
    const prefix = this.prefixTokens;
    const previousTokens = this.measured ? prefix[prefix.length - 1] : undefined;
    const sharedTokens = prefix[kept];
    // Cut back to the shared prefix in place, not copied: a view that only grows would copy every earlier count per turn.
    prefix.length = kept + 1;
    for (let i = kept; i < view.length; i++) prefix.push(prefix[i] + this.counter.item(view[i]));
    this.countFacts(removed.slice(same), added.slice(same));
    this.measured = true;
    return { tokens: prefix[view.length], sharedTokens, previousTokens };
  }

  /**
   * Updates the per-fact counts from the items that left the view and those
   * that came into it; an item in both (moved) counts as staying. A view that
   * drops or rewrites a few items (a window sliding, a result masked) is then
   * not scanned whole every turn.
   */
  private countFacts(gone: readonly AgentInputItem[], come: readonly AgentInputItem[]): void {
    const leaving = new Map<AgentInputItem, number>();
    for (const item of gone) leaving.set(item, (leaving.get(item) ?? 0) + 1);
    for (const item of come) {
      const stays = leaving.get(item);
      if (stays) leaving.set(item, stays - 1);
      else this.addFacts(item, 1);
    }
    for (const [item, times] of leaving) if (times > 0) this.addFacts(item, -times);
  }

  private addFacts(item: AgentInputItem, times: number): void {
    for (const i of this.index.of(item)) {
      this.factCounts[i] += times;
      this.changed.add(i);
    }
  }

  /** Whether an item of the view states fact `i` (by its position). */
  states(i: number): boolean {
    return this.factCounts[i] > 0;
  }

  /** The facts an item stating them came into or left the view since the last call. */
  takeChanged(): Iterable<number> {
    const changed = this.changed;
    this.changed = new Set();
    return changed;
  }

  /** Tokens of the first `n` items of the view last measured (the instructions not included). */
  itemTokens(n: number): number {
    return this.prefixTokens[n] - this.prefixTokens[0];
  }

  /**
   * A strategy may rebuild an item it keeps (a summary message, say): equal content is the same
   * prefix to a provider. Items with equal content have equal token counts (remembered per item),
   * so items whose counts differ, as a window's first items mostly do, are not serialised.
   */
  private sameItem(a: AgentInputItem, b: AgentInputItem): boolean {
    return a === b || (this.counter.item(a) === this.counter.item(b) && JSON.stringify(a) === JSON.stringify(b));
  }
}

const NOT_DUE = 0;
const PRESENT = 1;
const MISSING = 2;
const OPAQUE = 3;

/**
 * Which due facts a view holds, turn after turn. A fact is due once its turn
 * has come, until a fact replacing it (its `supersededBy`) is stated; due, it
 * is present (the view or the instructions state it), opaque (not found, in a
 * span a server compacted) or missing. Only the facts whose standing can have
 * changed in a turn are looked at: those stated or replaced in it, and those
 * an item came into or left the view for; so a turn costs what changed, not
 * the number of facts. What is lost and regained follows the rule of
 * core/schema/run.ts `FactChanges` (a test holds the two equal).
 */
class FactTracker {
  private readonly state: Uint8Array;
  private readonly count = [0, 0, 0, 0];
  private criticalMissing = 0;
  private opaqueUpTo = 0;
  /** Positions of the facts stated at a turn, by turn. */
  private readonly statedAt = new Map<number, number[]>();
  /** Positions of the facts a fact replaces, by the replacing fact's id. */
  private readonly replacedBy = new Map<string, number[]>();
  private readonly stated = new Set<string>();

  constructor(
    private readonly facts: Fact[],
    /** Whether the view or the instructions state the fact at a position. */
    private readonly present: (i: number) => boolean,
  ) {
    this.state = new Uint8Array(facts.length);
    facts.forEach((f, i) => {
      listAt(this.statedAt, f.turn).push(i);
      if (f.supersededBy) listAt(this.replacedBy, f.supersededBy).push(i);
    });
  }

  /**
   * Turn `n`'s fact fields. `changed`: facts an item came into or left the view for.
   * `opaqueUpTo`: the last turn of a span compacted into an opaque item (0: none).
   */
  turn(n: number, changed: Iterable<number>, opaqueUpTo: number): TurnFacts {
    const look = new Set(changed);
    for (const i of this.statedAt.get(n) ?? []) {
      this.stated.add(this.facts[i].id);
      look.add(i);
      for (const j of this.replacedBy.get(this.facts[i].id) ?? []) look.add(j);
    }
    if (opaqueUpTo !== this.opaqueUpTo) {
      // A server compaction moved the opaque span (rare): every fact up to either end may change.
      const upTo = Math.max(opaqueUpTo, this.opaqueUpTo);
      this.facts.forEach((f, i) => f.turn <= upTo && look.add(i));
      this.opaqueUpTo = opaqueUpTo;
    }
    const lost: number[] = [];
    const regained: number[] = [];
    for (const i of look) {
      const was = this.state[i];
      const now = this.standing(i, n);
      if (was === now) continue;
      this.move(i, was, now);
      if (now === MISSING) lost.push(i);
      else if (now === PRESENT && was === MISSING) regained.push(i);
    }
    const ids = (list: number[]) => list.sort((a, b) => a - b).map((i) => this.facts[i].id);
    return {
      factsPresentCount: this.count[PRESENT],
      factsMissingCount: this.count[MISSING],
      criticalMissingCount: this.criticalMissing,
      factsOpaqueCount: this.count[OPAQUE],
      factsLost: orNone(ids(lost)),
      factsRegained: orNone(ids(regained)),
      criticalLost: orNone(ids(lost.filter((i) => this.facts[i].critical))),
    };
  }

  private standing(i: number, n: number): number {
    const f = this.facts[i];
    if (f.turn > n || (f.supersededBy !== undefined && this.stated.has(f.supersededBy))) return NOT_DUE;
    if (this.present(i)) return PRESENT;
    return f.turn <= this.opaqueUpTo ? OPAQUE : MISSING;
  }

  private move(i: number, was: number, now: number): void {
    this.state[i] = now;
    this.count[was]--;
    this.count[now]++;
    if (this.facts[i].critical) this.criticalMissing += (now === MISSING ? 1 : 0) - (was === MISSING ? 1 : 0);
  }
}

function listAt<K>(map: Map<K, number[]>, key: K): number[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

/** Items stating a critical fact must survive budget trimming. */
function protectCritical(index: FactIndex, facts: Fact[]): ProtectPredicate | undefined {
  const critical = facts.map((f, i) => (f.critical ? i : -1)).filter((i) => i >= 0);
  if (critical.length === 0) return undefined;
  const isCritical = new Set(critical);
  return (item) => index.of(item).some((i) => isCritical.has(i));
}

/** 1-based turn of every full-history index, kept in step with the strategy's history, and of every history item. */
class TurnMap {
  readonly turnOfItem: number[] = [];
  private readonly turnOf = new WeakMap<object, number>();
  add(items: readonly AgentInputItem[], turn: number): void {
    for (const item of items) {
      this.turnOfItem.push(turn);
      this.turnOf.set(item as object, turn);
    }
  }
  turnAt(index: number): number {
    return this.turnOfItem[Math.min(Math.max(index, 0), this.turnOfItem.length - 1)] ?? 1;
  }
  /** The turn a history item was added in; undefined for an item the history never had (a summary, a mask). */
  turnOfHistoryItem(item: AgentInputItem): number | undefined {
    return this.turnOf.get(item as object);
  }
}

function summaryRecord(
  input: ReplayInput,
  event: SummaryEvent,
  index: number,
  turn: number,
  turns: TurnMap,
): MadeSummary {
  const out = event.output;
  return {
    strategy: input.strategyId,
    transcript: input.transcript.id,
    turn,
    coveredTurns: [turns.turnAt(event.firstItem), turns.turnAt(event.lastItem)],
    index,
    summarizer: summarizerLabel(input),
    promptPath: out.promptPath,
    promptHash: out.promptHash,
    request: out.request,
    text: out.summary,
    usage: out.usage,
    durationMs: out.durationMs,
    ...(out.cost === undefined ? {} : { cost: out.cost }),
    ...(event.opaque ? { opaque: true } : {}),
    error: event.error,
  };
}

function summarizerLabel(input: ReplayInput): string {
  // A strategy that compacts on a server names its model in `model:`, not in a summarizer block.
  if (typeof input.options.model === 'string') return input.options.model;
  // Retrieval by embeddings records a failed embedding call as a failed summary, named by its model.
  if (typeof input.options.embedding_model === 'string') return input.options.embedding_model;
  const { model } = summarizerOptionsOf(input.options);
  return model === 'offline' ? 'offline-extractive' : model;
}

/**
 * How many items of the view each turn has, kept from the view's changes: a
 * probe finds the turns its view cut without reading the view or the history.
 * Views keep history items by identity; anything else in a view (a summary, a
 * masked result) belongs to no turn.
 */
class TurnsInView {
  /** At index t: the view's items of turn t. */
  private readonly counts: number[] = [0];

  constructor(private readonly turns: TurnMap) {}

  apply(change: SentChange): void {
    for (const item of change.removed) this.count(item, -1);
    for (const item of change.added) this.count(item, 1);
  }

  private count(item: AgentInputItem, by: number): void {
    const turn = this.turns.turnOfHistoryItem(item);
    if (turn === undefined) return;
    while (this.counts.length <= turn) this.counts.push(0);
    this.counts[turn] += by;
  }

  /** Runs of turns up to `last` none of whose items is in the view. */
  cut(last: number): TurnSpan[] {
    const spans: TurnSpan[] = [];
    let from = 0;
    for (let t = 1; t <= last + 1; t++) {
      const isCut = t <= last && !(this.counts[t] > 0);
      if (isCut && from === 0) from = t;
      else if (!isCut && from > 0) {
        spans.push([from, t - 1]);
        from = 0;
      }
    }
    return spans;
  }
}

/**
 * Which summaries the view holds: those whose text is in one of its items that
 * no turn added (a summary message, however the strategy wraps it). Each such
 * item is read once per summary made: it is remembered with the summaries it
 * was checked against, so a probe reads only what is new since.
 */
class SummariesInView {
  private readonly found = new WeakMap<object, { checked: number; holds: number[] }>();
  /** Per summary made, whether its text can stand for turns (`readable`), judged once. */
  private readonly readable: boolean[] = [];

  constructor(private readonly turns: TurnMap) {}

  /** Positions in `events`, ascending, of the summaries the view holds. */
  of(view: readonly AgentInputItem[], events: readonly SummaryEvent[]): number[] {
    for (let k = this.readable.length; k < events.length; k++) this.readable.push(readable(events[k]));
    const held = new Set<number>();
    for (const item of view) {
      if (this.turns.turnOfHistoryItem(item) !== undefined) continue;
      let seen = this.found.get(item as object);
      if (!seen) {
        seen = { checked: 0, holds: [] };
        this.found.set(item as object, seen);
      }
      if (seen.checked < events.length) {
        const text = itemText(item);
        for (let k = seen.checked; k < events.length; k++) if (this.readable[k] && text.includes(events[k].output.summary)) seen.holds.push(k);
        seen.checked = events.length;
      }
      for (const k of seen.holds) held.add(k);
    }
    return [...held].sort((a, b) => a - b);
  }
}

/**
 * A summary with text that stands for its turns. A server compaction has no text: its facts are
 * opaque (opaqueSpan), never summarized. An empty summary holds nothing, and every text
 * "includes" it: it summarizes no turn.
 */
function readable(event: SummaryEvent): boolean {
  return !event.error && !event.opaque && event.output.summary.trim() !== '';
}

/** The turns the view cut, and the turns summaries in it stand for, with their texts. */
function cutAndSummarized(
  view: AgentInputItem[],
  inView: TurnsInView,
  summaries: SummariesInView,
  turns: TurnMap,
  events: SummaryEvent[],
): { cutSpans: TurnSpan[]; summarizedTurns: number[]; summaryTexts: string[] } {
  const texts: string[] = [];
  const summarized = new Set<number>();
  for (const k of summaries.of(view, events)) {
    const event = events[k];
    texts.push(event.output.summary);
    for (let t = turns.turnAt(event.firstItem); t <= turns.turnAt(event.lastItem); t++) summarized.add(t);
  }
  const cut = inView.cut(turns.turnAt(turns.turnOfItem.length - 1));
  return { cutSpans: cut, summarizedTurns: [...summarized].sort((a, b) => a - b), summaryTexts: texts };
}


/** A change to the sent items of the view: its first `kept` stay, `removed` followed them before, `added` follow them now. */
interface SentChange {
  kept: number;
  removed: AgentInputItem[];
  added: AgentInputItem[];
}

/**
 * The sent items of the view, kept up to date from the strategy's view changes:
 * only what a change adds is judged, so a long view that grows by a turn costs
 * that turn (judging and copying the whole view every turn made replay quadratic).
 */
class SentView {
  /** The sent items of the current view; changed in place by `apply`, so a record keeps a copy. */
  readonly items: AgentInputItem[] = [];
  /** `counts[i]`: how many of the view's first i items are sent. */
  private readonly counts: number[] = [0];

  apply(change: ViewChange): SentChange {
    if (change.kept >= this.counts.length) throw new Error(`the strategy kept ${change.kept} items of a view of ${this.counts.length - 1}`);
    const kept = this.counts[change.kept];
    const removed = this.items.splice(kept);
    this.counts.length = change.kept + 1;
    const added: AgentInputItem[] = [];
    for (const item of change.added) {
      if (isSent(item)) added.push(item);
      this.counts.push(kept + added.length);
    }
    for (const item of added) this.items.push(item);
    return { kept, removed, added };
  }
}

export async function replayTranscript(input: ReplayInput): Promise<ReplayResult> {
  const { transcript, counter } = input;
  const facts = transcript.facts;
  const index = new FactIndex(facts, scanCacheFor(counter, facts));
  const inInstructions = new Set(index.scan(transcript.system ?? ''));
  const strategy: MemoryStrategy = input.definition.create(input.options, {
    counter,
    instructions: transcript.system,
    protect: protectCritical(index, facts),
    makeSummarizer: input.makeSummarizer,
    serverCompaction: input.serverCompaction,
    embedder: input.embedder,
  });
  const turnMap = new TurnMap();
  const meter = new ViewMeter(counter, index, transcript.system, facts.length);
  const present = (i: number) => inInstructions.has(i) || meter.states(i);
  const result: ReplayResult = { turns: [], summaries: [], probes: [] };
  let fullTokens = counter.request(transcript.system, []);
  const tracker = new FactTracker(facts, present);
  const positions = positionsById(facts);
  const probesAt = probesByTurn(transcript.probes);
  const sent = new SentView();
  const inView = new TurnsInView(turnMap);
  const summariesInView = new SummariesInView(turnMap);

  for (let n = 1; n <= transcript.turns.length; n++) {
    await yieldToEvents();
    if (input.stop?.aborted) return { ...result, stopped: true };
    const items = turnItems(transcript.turns[n - 1], n);
    const eventsBefore = strategy.events.length;
    turnMap.add(items, n);
    await strategy.addItems(items);
    for (const item of sentItems(items)) fullTokens += counter.item(item);

    // What a model would be sent: items no request carries (reasoning) are neither counted nor read for facts.
    const change = sent.apply(strategy.viewChange());
    const view = sent.items;
    const measured = meter.measure(view, change);
    inView.apply(change);
    const { sharedTokens, previousTokens } = measured;
    const cache = cacheStanding(sharedTokens, previousTokens, input.promptCache ?? OPENAI_PROMPT_CACHE);
    const span = strategy.opaqueSpan();
    const opaqueUpTo = span ? turnMap.turnAt(span.lastItem) : 0;
    // A compacted span counts at the API's figure in place of its items' local count (already in the meter's).
    const contextTokens = span ? measured.tokens - meter.itemTokens(span.viewItems) + span.apiTokens : measured.tokens;
    const presence = tracker.turn(n, meter.takeChanged(), opaqueUpTo);
    const newEvents = strategy.events.slice(eventsBefore);
    newEvents.forEach((event, i) => {
      result.summaries.push(summaryRecord(input, event, eventsBefore + i + 1, n, turnMap));
    });
    // Every field written out in one literal, in the schema's order: a record
    // built by spreading got its own hidden class and an out-of-object property
    // store, three times the memory of the values themselves (a run holds every
    // turn record until its reports are written).
    result.turns.push({
      strategy: input.strategyId,
      transcript: transcript.id,
      turn: n,
      fullTokens,
      contextTokens,
      apiTokens: span?.apiTokens ?? 0,
      items: view.length,
      factsPresentCount: presence.factsPresentCount,
      factsMissingCount: presence.factsMissingCount,
      criticalMissingCount: presence.criticalMissingCount,
      factsOpaqueCount: presence.factsOpaqueCount,
      factsLost: presence.factsLost,
      factsRegained: presence.factsRegained,
      criticalLost: presence.criticalLost,
      summaries: newEvents.length,
      cacheableTokens: cache.cacheableTokens,
      cacheBreak: cache.cacheBreak,
    });

    const probes = probesAt.get(n);
    if (!probes) continue;
    // What the view cut and summarised is the same for every probe of the turn.
    // One copy of the view for the turn's probes: the replay changes its own in place.
    const context = view.slice();
    const where = cutAndSummarized(context, inView, summariesInView, turnMap, strategy.events);
    for (const probe of probes) {
      const { factsPresent, factsMissing, factsOpaque } = probeFacts(probe, positions, present, facts, opaqueUpTo);
      // One literal, as the turn records above: no record of its own shape per probe.
      result.probes.push({
        probe,
        items: context,
        contextTokens,
        factsPresent,
        factsMissing,
        factsOpaque,
        cutSpans: where.cutSpans,
        opaqueUpTo,
        summarizedTurns: where.summarizedTurns,
        summaryTexts: where.summaryTexts,
        cacheableTokens: cache.cacheableTokens,
      });
    }
  }
  return result;
}

/** The transcript's probes by the turn they follow, in the transcript's order. */
function probesByTurn(probes: readonly Probe[]): Map<number, Probe[]> {
  const byTurn = new Map<number, Probe[]>();
  for (const probe of probes) {
    const list = byTurn.get(probe.afterTurn);
    if (list) list.push(probe);
    else byTurn.set(probe.afterTurn, [probe]);
  }
  return byTurn;
}

/** Each fact id's positions in the transcript's facts. */
function positionsById(facts: readonly Fact[]): Map<string, number[]> {
  const byId = new Map<string, number[]>();
  facts.forEach((f, i) => listAt(byId, f.id).push(i));
  return byId;
}

/** The probe's facts present, missing and opaque, each in the transcript's order of facts. */
function probeFacts(
  probe: Probe,
  positions: Map<string, number[]>,
  present: (i: number) => boolean,
  facts: readonly Fact[],
  opaqueUpTo: number,
): { factsPresent: string[]; factsMissing: string[]; factsOpaque: string[] } {
  const factsPresent: string[] = [];
  const factsMissing: string[] = [];
  const factsOpaque: string[] = [];
  const wanted = [...new Set(probe.facts)].flatMap((id) => positions.get(id) ?? []).sort((a, b) => a - b);
  for (const i of wanted) {
    const fact = facts[i];
    if (present(i)) factsPresent.push(fact.id);
    else (fact.turn <= opaqueUpTo ? factsOpaque : factsMissing).push(fact.id);
  }
  return { factsPresent, factsMissing, factsOpaque };
}
