// A question word the context never uses, read as a word of the same family that it does
// use: "Who is *officiating*?" is answered by "*Officiant* will be Rev. Dana Whitfield".
// The stemmer leaves such families apart (officiat / officiant, marri / marriag). A code's
// letters may abbreviate the asked attribute too: "which *change* number" → "CHG-3391".
import type { ReaderContext } from './context.js';
import type { Question } from './question.js';
import { df } from './retrieve.js';

/** The shortest stem that is matched by family; shorter words are too often unrelated ("form" / "formal"). */
const MIN_STEM = 5;
/** Two stems that share this many first letters are of one family ("officia-t" / "officia-nt"). */
const SHARED_PREFIX = 7;
/** A code's leading letters: three or four, a separator, then its number ("CHG-3391"); the separator makes them a word of their own. */
const CODE_LETTERS = /^([a-z]{3,4})[-_ ]\d/i;

const families = new WeakMap<ReaderContext, Map<string, string[]>>();
const codes = new WeakMap<ReaderContext, Set<string>>();

/** The context's stems by their first MIN_STEM letters, built once per context, and only when a question word is missing. */
function familiesOf(ctx: ReaderContext): Map<string, string[]> {
  let index = families.get(ctx);
  if (index) return index;
  const seen = new Set<string>();
  index = new Map<string, string[]>();
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
  families.set(ctx, index);
  return index;
}

/** The letters the context's codes start with (`chg` of CHG-3391), lower-cased, once per context. */
function codeLettersOf(ctx: ReaderContext): Set<string> {
  let letters = codes.get(ctx);
  if (letters) return letters;
  letters = new Set<string>();
  for (const unit of ctx.units) {
    for (const span of unit.spans) {
      const code = span.type === 'identifier' ? CODE_LETTERS.exec(span.text)?.[1] : undefined;
      if (code) letters.add(code.toLowerCase());
    }
  }
  codes.set(ctx, letters);
  return letters;
}

function sameFamily(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.startsWith(short)) return true;
  return short.length >= SHARED_PREFIX && long.startsWith(short.slice(0, SHARED_PREFIX));
}

/** The context's stems of the family of `s`, or none when the context uses `s` itself or has no relative. */
function relatives(s: string, ctx: ReaderContext, cache: Map<string, number>): string[] {
  // `df` is the count retrieval needs anyway; it is kept in the answer's cache.
  if (s.length < MIN_STEM || df(ctx, s, cache) > 0) return [];
  const candidates = familiesOf(ctx).get(s.slice(0, MIN_STEM)) ?? [];
  return candidates.filter((c) => sameFamily(s, c));
}

/** `letters` abbreviate `word`: the same first letter, the rest in order ("chg" of "chang", "tck" of "ticket"). */
function abbreviates(letters: string, word: string): boolean {
  if (letters[0] !== word[0] || letters.length >= word.length) return false;
  let at = 1;
  for (const ch of letters.slice(1)) {
    at = word.indexOf(ch, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

function replaced(set: ReadonlySet<string>, map: Map<string, string[]>): Set<string> {
  const out = new Set<string>();
  for (const s of set) for (const r of map.get(s) ?? [s]) out.add(r);
  return out;
}

/**
 * Code letters of the context that abbreviate a word of the asked attribute of a question
 * asking for a code ("which *change* number"), by that word. Other words keep their codes
 * apart: "which address do invoices go to" is not about INV-2026-01498.
 */
function abbreviationsOf(q: Question, ctx: ReaderContext): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (q.type !== 'identifier' || q.focus.size === 0) return out;
  const codeLetters = codeLettersOf(ctx);
  for (const s of q.focus) {
    if (s.length < 4 || /[^a-z]/.test(s)) continue;
    const letters = [...codeLetters].filter((l) => !q.stems.has(l) && abbreviates(l, s));
    if (letters.length > 0) out.set(s, letters);
  }
  return out;
}

/**
 * `q` with each word the context lacks replaced by its relatives in the context, where it has
 * some, and with the code letters that abbreviate a word of its asked attribute (`abbreviations`).
 */
export function alignToContext(q: Question, ctx: ReaderContext, cache: Map<string, number>): Question {
  const map = new Map<string, string[]>();
  for (const s of q.stems) {
    const r = relatives(s, ctx, cache);
    if (r.length > 0) map.set(s, r);
  }
  const aligned: Question =
    map.size === 0
      ? q
      : {
          ...q,
          stems: replaced(q.stems, map),
          focus: replaced(q.focus, map),
          // Names stay as asked: "Alexandra's phone" is not Alexander's.
          head: q.head === undefined ? undefined : (map.get(q.head)?.[0] ?? q.head),
        };
  const abbreviations = abbreviationsOf(aligned, ctx);
  return abbreviations.size === 0 ? aligned : { ...aligned, abbreviations };
}
