// Sweeps: a strategy entry that gives a list for one or two numeric options
// (`max_turns: [2, 4, 8, 16]`) stands for one ordinary strategy per value, or
// per pair of values for two lists. The points are expanded when the config is
// read, so everything after it (runs, the call cache, gates, reports) sees
// plain strategies; each point remembers its sweep so reports can draw it as a
// curve. docs/config-format.md ("Sweeps") is the contract.
import type { SweepMembership } from '../../core/schema/run.js';
import type { OptionSpec } from '../../strategies/registry.js';

export type { SweepMembership };

/** One curve, or a grid of curves: more lists would make a cube no chart can show. */
export const MAX_SWEPT_OPTIONS = 2;

/**
 * Whether an option can take a list of values to sweep: numbers only, since a
 * curve needs an ordered axis, and not those whose larger values are cheaper
 * (the knee takes the smallest setting as the cheapest).
 */
export function isSweepable(spec: OptionSpec | undefined): boolean {
  return (spec?.type === 'int' || spec?.type === 'number') && spec.sweep !== false;
}

/**
 * The id of one point: the entry's id and its values in the strategy's order
 * of options, joined by "-" (`trim-4`, `sum-8-4`), as hand-written ids of this
 * kind already read.
 */
export function pointId(group: string, values: readonly number[]): string {
  return [group, ...values.map(String)].join('-');
}

/** Each swept option's values, in the strategy's order of options; the first is the x axis of the curves. */
export type SweptLists = [string, number[]][];

/** Every combination of the swept values, the first option outermost, each option's values ascending. */
export function sweepPoints(lists: SweptLists): Record<string, number>[] {
  let points: Record<string, number>[] = [{}];
  for (const [name, values] of lists) {
    const sorted = [...values].sort((a, b) => a - b);
    points = points.flatMap((point) => sorted.map((value) => ({ ...point, [name]: value })));
  }
  return points;
}

/** The points of an entry: its own id and options once, or one id and options per combination of the swept values. */
export function expandEntry<O extends Record<string, unknown>>(id: string, options: O, lists: SweptLists): { id: string; options: O; sweep?: SweepMembership }[] {
  if (lists.length === 0) return [{ id, options }];
  return sweepPoints(lists).map((point) => ({
    id: pointId(id, Object.values(point)),
    options: { ...options, ...point },
    sweep: { group: id, options: point },
  }));
}

/**
 * The options of an entry that hold a list for a sweepable option, in the
 * order the strategy declares its options (not as written, so a point's id
 * does not change when the keys are reordered). Read from still unchecked
 * data too, so only the numbers of a list are kept.
 */
export function sweptListsOf(entry: Record<string, unknown>, specs: Record<string, OptionSpec>): SweptLists {
  return Object.entries(specs).flatMap(([name, spec]): SweptLists => {
    const value = entry[name];
    if (!isSweepable(spec) || !Array.isArray(value)) return [];
    const numbers = value.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return [[name, [...new Set(numbers)]]];
  });
}

/** `max_turns = 4` or `context_limit = 8, keep_last_n_turns = 4`: how messages and reports name a point. */
export function pointLabel(options: Readonly<Record<string, number>>): string {
  return Object.entries(options)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
}
