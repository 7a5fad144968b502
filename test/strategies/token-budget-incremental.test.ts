// The incremental token-budget view must equal the original whole-history
// algorithm after every add, pop and clear, with tool pairs, system and
// protected items at the cut.
import { describe, expect, it } from 'vitest';
import { assistantMessage, callIdOf, dropOrphanToolItems, itemRole, itemText, itemType, systemMessage, turnStarts, userMessage } from '../../core/items.js';
import { seededRandom } from '../../core/random.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { MemoryStrategy, type ProtectPredicate } from '../../strategies/base.js';
import { TokenBudgetStrategy, type TokenBudgetSettings } from '../../strategies/token-budget.js';

/** The token-budget strategy as first written (whole-history scans): the oracle the incremental one must equal. */
class ReferenceTokenBudget extends MemoryStrategy {
  readonly settings: TokenBudgetSettings;
  private readonly counter: TokenCounter;
  private readonly instructions: string | undefined;
  private readonly protect: ProtectPredicate;
  /** The predicate may scan text for facts; each item is judged once. */
  private readonly protectedCache = new WeakMap<object, boolean>();
  /** Full-history index of the oldest turn in the view; older turns are cut. */
  private cut = 0;
  /** Survivors of the last cut asked for; history before a cut only changes by pop or clear. */
  private survivors: { cut: number; items: AgentInputItem[] } | undefined;

  constructor(
    settings: TokenBudgetSettings,
    ctx: { counter: TokenCounter; instructions?: string; protect?: ProtectPredicate },
    sessionId?: string,
  ) {
    super(sessionId);
    this.settings = settings;
    this.counter = ctx.counter;
    this.instructions = ctx.instructions;
    this.protect = ctx.protect ?? (() => false);
  }

  protected view(): AgentInputItem[] {
    return this.viewAt(this.cut);
  }

  /**
   * Items before `cut` that survive it: system items (when preserved) and
   * protected items, plus the other half of any protected tool call/result
   * pair so the view never carries half a pair.
   */
  private survivorsBefore(cut: number): AgentInputItem[] {
    if (this.survivors?.cut === cut) return this.survivors.items;
    const items = this.scanSurvivors(cut);
    this.survivors = { cut, items };
    return items;
  }

  private scanSurvivors(cut: number): AgentInputItem[] {
    const before = this.history.slice(0, cut);
    const keep = before.map(
      (item) => (this.settings.preserveSystem && itemRole(item) === 'system') || this.isProtected(item),
    );
    const pairedIds = new Set<string>();
    before.forEach((item, i) => {
      const id = callIdOf(item);
      if (keep[i] && id) pairedIds.add(id);
    });
    return before.filter((item, i) => {
      if (keep[i]) return true;
      const id = callIdOf(item);
      const type = itemType(item);
      return id !== undefined && pairedIds.has(id) && (type === 'function_call' || type === 'function_call_result');
    });
  }

  private isProtected(item: AgentInputItem): boolean {
    const key = item as object;
    let hit = this.protectedCache.get(key);
    if (hit === undefined) {
      hit = this.protect(item);
      this.protectedCache.set(key, hit);
    }
    return hit;
  }

  private viewAt(cut: number): AgentInputItem[] {
    return dropOrphanToolItems([...this.survivorsBefore(cut), ...this.history.slice(cut)]);
  }

  private tokensAt(cut: number): number {
    return this.counter.request(this.instructions, this.viewAt(cut));
  }

  /**
   * Moves the cut forward turn by turn until the prompt fits the low
   * watermark. The newest turn is always kept, even when it alone is over
   * budget: a view without the current question is useless to the model.
   */
  private compact(): void {
    const { budget, compactAt, compactTo } = this.settings;
    if (this.tokensAt(this.cut) <= compactAt * budget) return;
    const candidates = turnStarts(this.history).filter((start) => start > this.cut);
    for (const start of candidates) {
      this.cut = start;
      if (this.tokensAt(start) <= compactTo * budget) return;
    }
  }

  protected override async afterAdd(): Promise<void> {
    this.compact();
  }

  override async popItem(): Promise<AgentInputItem | undefined> {
    const item = await super.popItem();
    this.survivors = undefined;
    if (this.cut >= this.history.length) {
      // The cut turn is gone; decide again from the full history.
      this.cut = 0;
      this.compact();
    }
    return item;
  }

  override async clearSession(): Promise<void> {
    await super.clearSession();
    this.cut = 0;
    this.survivors = undefined;
  }
}


function turn(n: number, withTool: boolean, protectedText: boolean): AgentInputItem[] {
  const items: AgentInputItem[] = [userMessage(`question ${n}${protectedText ? ' KEEP' : ''}`)];
  if (withTool) {
    items.push({ type: 'function_call', callId: `call_${n}`, name: 'lookup', arguments: `{"n":${n}}` });
    items.push({ type: 'function_call_result', callId: `call_${n}`, name: 'lookup', status: 'completed', output: `result ${n}${protectedText ? ' KEEP' : ''}` });
  }
  items.push(assistantMessage(`answer ${n}`));
  return items;
}

describe('token-budget, incremental', () => {
  const protect: ProtectPredicate = (item) => itemText(item).includes('KEEP');
  for (const [budget, preserveSystem] of [[40, true], [60, false], [100, true], [25, true]] as const) {
    it(`equals the whole-history algorithm at every step (budget ${budget}, preserve_system ${preserveSystem})`, async () => {
      const counter = new TokenCounter();
      const settings: TokenBudgetSettings = { budget, preserveSystem, compactAt: 0.9, compactTo: 0.6 };
      const fast = new TokenBudgetStrategy(settings, { counter, instructions: 'Be brief.', protect });
      const reference = new ReferenceTokenBudget(settings, { counter, instructions: 'Be brief.', protect });
      const random = seededRandom(budget);
      for (let step = 0; step < 300; step++) {
        const roll = random();
        const both = async (act: (s: MemoryStrategy) => Promise<unknown>) => {
          await act(fast);
          await act(reference);
        };
        if (roll < 0.08) await both((s) => s.popItem());
        else if (roll < 0.09) await both((s) => s.clearSession());
        else if (roll < 0.17) await both((s) => s.addItems([systemMessage(`rule ${step}`)]));
        else {
          const items = turn(step, roll > 0.6, random() < 0.1);
          await both((s) => s.addItems(items));
        }
        expect(await fast.getItems(), `step ${step}`).toEqual(await reference.getItems());
      }
    });
  }
});
