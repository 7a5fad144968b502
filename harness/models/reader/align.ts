// A question word the context never uses, read as a word of the same family that it does
// use: "Who is *officiating*?" is answered by "*Officiant* will be Rev. Dana Whitfield".
// The stemmer leaves such families apart (officiat / officiant, marri / marriag).
import type { ReaderContext } from './context.js';
import type { Question } from './question.js';

/** The shortest stem that is matched by family; shorter words are too often unrelated ("form" / "formal"). */
const MIN_STEM = 5;
/** Two stems that share this many first letters are of one family ("officia-t" / "officia-nt"). */
const SHARED_PREFIX = 7;

const indexes = new WeakMap<ReaderContext, Map<string, string[]>>();

/** The context's stems by their first MIN_STEM letters, built once per context. */
function familyIndex(ctx: ReaderContext): Map<string, string[]> {
  let index = indexes.get(ctx);
  if (index) return index;
  const seen = new Set<string>();
  index = new Map();
  for (const unit of ctx.units) {
    for (const s of unit.stems) {
      if (s.length < MIN_STEM || seen.has(s)) continue;
      seen.add(s);
      const key = s.slice(0, MIN_STEM);
      const list = index.get(key);
      if (list) list.push(s);
      else index.set(key, [s]);
    }
  }
  indexes.set(ctx, index);
  return index;
}

function sameFamily(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.startsWith(short)) return true;
  return short.length >= SHARED_PREFIX && long.startsWith(short.slice(0, SHARED_PREFIX));
}

/** The context's stems of the family of `s`, or none when the context uses `s` itself or has no relative. */
function relatives(s: string, index: Map<string, string[]>): string[] {
  if (s.length < MIN_STEM) return [];
  const candidates = index.get(s.slice(0, MIN_STEM)) ?? [];
  if (candidates.includes(s)) return [];
  return candidates.filter((c) => sameFamily(s, c));
}

function replaced(set: ReadonlySet<string>, map: Map<string, string[]>): Set<string> {
  const out = new Set<string>();
  for (const s of set) for (const r of map.get(s) ?? [s]) out.add(r);
  return out;
}

/** `q` with each word the context lacks replaced by its relatives in the context, where it has some. */
export function alignToContext(q: Question, ctx: ReaderContext): Question {
  const index = familyIndex(ctx);
  const map = new Map<string, string[]>();
  for (const s of q.stems) {
    const r = relatives(s, index);
    if (r.length > 0) map.set(s, r);
  }
  if (map.size === 0) return q;
  return {
    ...q,
    stems: replaced(q.stems, map),
    focus: replaced(q.focus, map),
    names: replaced(q.names, map),
    head: q.head === undefined ? undefined : (map.get(q.head)?.[0] ?? q.head),
  };
}
