// Where a statement's clauses start and where the question's words sit in it: a value in
// the clause that holds the question's words answers it ("The first error is at 08:58:11",
// not "rolled out at 08:41, 17 minutes before the first error").
import type { Unit } from './context.js';
import { writtenForms } from './words.js';

/** The positions of each matched question word, one list per word. */
export function anchorGroups(unit: Unit, matched: Set<string>): number[][] {
  const lower = unit.text.toLowerCase();
  const stems = [...matched].filter((s) => !s.startsWith('@'));
  const out: number[][] = [];
  for (const stem of stems) {
    if (stems.some((other) => other !== stem && other.includes(stem))) continue;
    const group: number[] = [];
    for (const form of [stem, ...writtenForms(stem)]) {
      for (let at = lower.indexOf(form); at >= 0; at = lower.indexOf(form, at + 1)) {
        if (at === 0 || !/[\p{L}\p{N}]/u.test(lower[at - 1])) group.push(at);
      }
    }
    group.sort((a, b) => a - b);
    if (group.length > 0) out.push(group);
  }
  return out;
}

/** Where the clauses of a statement start: at commas, semicolons, "and", "but". */
export function clauseBounds(text: string): number[] {
  const out = [0];
  for (const m of text.matchAll(/[,;]\s|\s(?:and|but|while|whereas)\s/g)) out.push((m.index ?? 0) + m[0].length);
  return out;
}

/** Which clause a position is in. */
export function clauseAt(bounds: number[], at: number): number {
  return bounds.filter((b) => b <= at).length;
}

/**
 * Every one of the question's words (two or more, one group per word as `anchorGroups` lists
 * them) shares a clause with one of `values`.
 */
export function valueBesideAllWords(unit: Unit, matched: Set<string>, values: { start: number }[]): boolean {
  const groups = anchorGroups(unit, matched);
  if (groups.length < 2) return false;
  const bounds = clauseBounds(unit.text);
  return values.some((v) => {
    const own = clauseAt(bounds, v.start);
    return groups.every((g) => g.some((p) => clauseAt(bounds, p) === own));
  });
}
