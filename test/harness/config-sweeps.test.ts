// Sweeps in the config: a list for one or two numeric options of a strategy
// entry becomes one ordinary strategy per point, each remembering its sweep;
// every problem is reported at the element or key it is about.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../harness/config.js';
import { pointId, sweepPoints } from '../../harness/schema/sweeps.js';
import { MemoryStrategy } from '../../strategies/base.js';
import type { StrategyDefinition } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import type { AgentInputItem } from '../../core/types.js';
import { thrown } from '../helpers/errors.js';

class KeepAll extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    return [...this.history];
  }
}

/** Three numeric options, so a third list can be tried. */
const cube: StrategyDefinition = {
  use: 'test-cube',
  doc: 'test definition',
  options: {
    a: { type: 'int', min: 1, default: 1, doc: 'a' },
    b: { type: 'number', min: 0, max: 1, default: 0.5, doc: 'b' },
    c: { type: 'int', default: 3, doc: 'c' },
    label: { type: 'string', doc: 'a name' },
  },
  create: () => new KeepAll(),
};

const REGISTRY = STRATEGIES.with([cube]);
const FILE = 'suite/memeval.yaml';

function problems(lines: string[]): string[] {
  return thrown(() => parseConfig(lines.join('\n'), FILE, REGISTRY));
}

function expectProblem(found: string[], at: string, fragment: string): void {
  const matches = found.filter((l) => l.startsWith(`${FILE}:${at}: `) && l.includes(fragment));
  expect(matches, `no "${fragment}" at ${at} in:\n${found.join('\n')}`).toHaveLength(1);
}

describe('sweeps in the config', () => {
  it('expands a list into one strategy per value, ascending, with readable ids and the sweep remembered', () => {
    const config = parseConfig(['strategies:', '  - { id: full, use: full-history }', '  - { id: trim, use: trimming, max_turns: [16, 2, 8, 4] }'].join('\n'), FILE, REGISTRY);
    expect(config.strategies.map((s) => s.id)).toEqual(['full', 'trim-2', 'trim-4', 'trim-8', 'trim-16']);
    expect(config.strategies[2]).toEqual({ id: 'trim-4', use: 'trimming', options: { max_turns: 4 }, sweep: { group: 'trim', options: { max_turns: 4 } } });
    expect(config.strategies[0].sweep).toBeUndefined();
  });

  it("expands two lists into a grid in the strategy's order of options, however written; a sweep without id goes by its use", () => {
    const config = parseConfig(['strategies:', '  - { use: test-cube, b: [0.5, 0.25], a: [2, 1] }'].join('\n'), FILE, REGISTRY);
    expect(config.strategies.map((s) => s.id)).toEqual(['test-cube-1-0.25', 'test-cube-1-0.5', 'test-cube-2-0.25', 'test-cube-2-0.5']);
    expect(config.strategies[1].options).toEqual({ a: 1, b: 0.5, c: 3 });
    expect(config.strategies[1].sweep).toEqual({ group: 'test-cube', options: { a: 1, b: 0.5 } });
    expect(Object.keys(config.strategies[1].sweep?.options ?? {})).toEqual(['a', 'b']);
  });

  it('lets the baseline and gates name a point, and refuses the sweep id itself there', () => {
    const config = parseConfig(['baseline: trim-8', 'strategies:', '  - { id: trim, use: trimming, max_turns: [4, 8] }', 'gates:', '  - { metric: probe.accuracy, strategy: trim-4, min: 0.1 }'].join('\n'), FILE, REGISTRY);
    expect(config.baseline).toBe('trim-8');
    expectProblem(problems(['baseline: trim', 'strategies:', '  - { id: trim, use: trimming, max_turns: [4, 8] }']), '1:11', '"baseline" "trim" is not a strategy id in this config');
  });

  it('checks each value as the option, at its element', () => {
    const found = problems(['strategies:', '  - { id: t, use: trimming, max_turns: [2, 0, 2.5, 4, 4] }', '  - { id: e, use: trimming, max_turns: [] }', '  - { id: s, use: trimming, max_turns: "x" }']);
    expectProblem(found, '2:44', 'entry 2 of "max_turns" in strategy "t" must be at least 1, not 0');
    expectProblem(found, '2:47', 'entry 3 of "max_turns" in strategy "t" must be a whole number, not the number 2.5');
    expectProblem(found, '2:55', 'entry 5 of "max_turns" in strategy "t" repeats 4 of the sweep; list each value once');
    expectProblem(found, '3:40', '"max_turns" in strategy "e" must list at least one value to sweep');
    expectProblem(found, '4:40', '"max_turns" in strategy "s" must be a whole number or a list of them (a sweep), not text');
    expect(found).toHaveLength(5);
  });

  it('takes lists for numeric options only, and at most two per entry', () => {
    const found = problems(['strategies:', '  - { id: k, use: test-cube, a: [1, 2], b: [0.1], c: [3, 4], label: [x] }']);
    expectProblem(found, '2:54', 'strategy "k" sweeps 3 options (a, b, c); an entry may sweep at most 2 (a curve, or a grid of curves): give "c" one value');
    expectProblem(found, '2:69', '"label" in strategy "k" must be text, not a list');
    expect(found).toHaveLength(2);
  });

  it("runs the definition's own check at every point and names the point", () => {
    const found = problems(['strategies:', '  - { id: s, use: summarizing, context_limit: [4, 8], keep_last_n_turns: 6 }']);
    expect(found).toEqual(['suite/memeval.yaml:2:5: strategy "s": keep_last_n_turns (6) must not exceed context_limit (4) (at context_limit = 4)']);
  });

  it('reports an id a sweep makes that another strategy has, at the swept option', () => {
    const found = problems([
      'strategies:',
      '  - { id: trim, use: trimming, max_turns: [4, 8] }',
      '  - { id: trim-8, use: trimming, max_turns: 8 }',
      '  - { id: x, use: test-cube, a: [1], c: [2] }',
      '  - { id: x-1, use: trimming, max_turns: [2, 3] }',
      '  - { id: w-1, use: trimming, max_turns: [3] }',
      '  - { id: w, use: trimming, max_turns: [1, 2] }',
    ]);
    expectProblem(found, '2:32', 'the sweep of strategy "trim" makes strategy id "trim-8", which strategy "trim-8" (defined at suite/memeval.yaml:3:11) already has; rename one of them');
    expectProblem(found, '5:31', 'the sweep of strategy "x-1" makes strategy id "x-1-2", which the sweep of strategy "x" (at suite/memeval.yaml:4:33) makes too');
    // A sweep's own id is not a strategy of the run, so "w-1" (w at max_turns 1) takes no one's id.
    expect(found).toHaveLength(2);
  });

  it('makes every combination once, and ids that stay apart', () => {
    const points = sweepPoints([['x', [11, 1]], ['y', [2, 12]]]);
    const ids = points.map((p) => pointId('g', Object.values(p)));
    expect(ids).toEqual(['g-1-2', 'g-1-12', 'g-11-2', 'g-11-12']);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('ids taken from use:', () => {
  it('refuses two entries without id: of one strategy, whose records would pool under one id', () => {
    const found = problems(['strategies:', '  - use: trimming', '    max_turns: 4', '  - use: trimming', '    max_turns: 6']);
    expectProblem(found, '4:10', 'duplicate strategy id "trimming" (first defined at suite/memeval.yaml:2:10); an entry without id: is named by its use:');
  });

  it('refuses a sweep whose id is also a strategy id (--strategies would select both)', () => {
    const found = problems(['strategies:', '  - { id: trim, use: full-history }', '  - id: trim', '    use: trimming', '    max_turns: [2, 4]']);
    expectProblem(found, '3:9', `the sweep's id "trim" is also a strategy's id`);
  });
});

describe('options whose larger values are cheaper', () => {
  it('take no list: the knee would name the most expensive setting', () => {
    const found = problems(['strategies:', '  - id: tb', '    use: token-budget', '    context_window: 4000', '    safety_margin: [0, 3000]']);
    expect(found.some((l) => l.startsWith(`${FILE}:5:`))).toBe(true);
    expect(parseConfig(['strategies:', '  - id: tb', '    use: token-budget', '    context_window: [2000, 4000]'].join('\n'), FILE, REGISTRY).strategies.map((s) => s.id)).toEqual(['tb-2000', 'tb-4000']);
  });
});
