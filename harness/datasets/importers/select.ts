// Which questions of a benchmark an import keeps: errata (LoCoMo), excluded
// categories (LoCoMo), question types (LongMemEval), and a stratified sample.
//
// Sampling rule (`--sample N --seed S`): questions are grouped by stratum (LoCoMo
// category, LongMemEval question type). Each stratum gets N × its share of the
// questions, rounded by the largest-remainder method so the total is exactly N;
// when N is at least the number of strata, every stratum gets at least one (taken
// from the strata rounded up the most), and no stratum gets more than it has. Within
// a stratum, questions are drawn uniformly with seededRandom(S), strata in name
// order, so the same file, filters, N and S always give the same sample. N at or
// above the number of questions keeps them all.
import { GENERIC_FACTS_KEY } from './shared.js';
import { seededRandom } from '../../../core/random.js';
import type { Probe, Transcript } from '../../../core/types.js';
import type { Problem } from '../../../core/errors.js';
import { type Errata, type ErrataEntry, sameQuestion } from './errata.js';

export type Benchmark = 'locomo' | 'longmemeval';

export interface Selection {
  /** LoCoMo categories to leave out. */
  excludeCategories?: ReadonlySet<number>;
  /** LongMemEval question types to keep (all when absent). */
  types?: ReadonlySet<string>;
  errata?: Errata;
}

/** How many questions each filter left out, and errata entries that matched nothing. */
export interface SelectionStats {
  category: number;
  type: number;
  errata: number;
  /** Errata entries whose conversation was imported but whose question was not found. */
  errataUnmatched: string[];
}

export function emptyStats(): SelectionStats {
  return { category: 0, type: 0, errata: 0, errataUnmatched: [] };
}

/** The stratum a question is sampled in. */
export function stratumOf(benchmark: Benchmark, probe: Probe): string {
  if (benchmark === 'longmemeval') return String(probe.meta?.question_type ?? 'unknown');
  const name = probe.meta?.category_name;
  return `category ${String(probe.meta?.category ?? '?')}${typeof name === 'string' ? ` (${name})` : ''}`;
}

/** The transcript with only the probes `keep` accepts, and only the facts those probes point at. */
export function keepProbes(t: Transcript, keep: (p: Probe) => boolean): Transcript {
  const probes = t.probes.filter(keep);
  if (probes.length === t.probes.length) return t;
  // Importers plant facts only as evidence for probes; one no kept probe uses would be graded for nothing.
  const used = new Set(probes.flatMap((p) => p.facts));
  // Generic facts are listed per probe (meta.generic_facts); only those of kept probes still count.
  const usedGeneric = new Set(probes.flatMap((p) => stringList(p.meta?.[GENERIC_FACTS_KEY])));
  const generic = t.meta?.[GENERIC_FACTS_KEY];
  const meta = Array.isArray(generic) ? { ...t.meta, [GENERIC_FACTS_KEY]: generic.filter((g) => usedGeneric.has(genericId(g))) } : t.meta;
  return { ...t, probes, facts: t.facts.filter((f) => used.has(f.id)), ...(meta ? { meta } : {}) };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A generic fact's id as the transcript records it (an object with `id`, or the id itself). */
function genericId(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  return typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string' ? (entry as { id: string }).id : '';
}

function probeForEntry(t: Transcript, entry: ErrataEntry): Probe | undefined {
  // LoCoMo probe ids are `q<qa index + 1>` (see locomo.ts).
  if (entry.qaIndex !== undefined) return t.probes.find((p) => p.id === `q${entry.qaIndex! + 1}`);
  return t.probes.find((p) => sameQuestion(p.question, entry.question as string));
}

/** Probe ids the errata drop from LoCoMo sample `index`; a quoted question that differs from the data is a problem. */
function errataDrops(t: Transcript, index: number, errata: Errata, stats: SelectionStats, problems: Problem[]): Set<string> {
  const drop = new Set<string>();
  const sampleId = t.meta?.sample_id;
  for (const entry of errata.entries) {
    if (entry.conversation !== index && entry.conversation !== sampleId) continue;
    const probe = probeForEntry(t, entry);
    if (!probe) {
      stats.errataUnmatched.push(entry.source);
      continue;
    }
    if (entry.question !== undefined && !sameQuestion(probe.question, entry.question)) {
      const message = `errata entry for ${t.id} ${probe.id} quotes "${entry.question}" but the question is "${probe.question}" (errata for another version of the file?)`;
      problems.push({ file: entry.source, line: 0, col: 0, message });
      continue;
    }
    drop.add(probe.id);
  }
  return drop;
}

/** Applies errata, categories and types to one converted record; counts what each left out. */
export function applySelection(benchmark: Benchmark, t: Transcript, index: number, selection: Selection, stats: SelectionStats, problems: Problem[]): Transcript {
  let out = t;
  if (selection.errata && benchmark === 'locomo') {
    const drop = errataDrops(out, index, selection.errata, stats, problems);
    stats.errata += drop.size;
    out = keepProbes(out, (p) => !drop.has(p.id));
  }
  const excluded = selection.excludeCategories;
  if (excluded && benchmark === 'locomo') {
    const before = out.probes.length;
    out = keepProbes(out, (p) => !excluded.has(Number(p.meta?.category)));
    stats.category += before - out.probes.length;
  }
  const types = selection.types;
  if (types && benchmark === 'longmemeval') {
    const before = out.probes.length;
    out = keepProbes(out, (p) => types.has(String(p.meta?.question_type)));
    stats.type += before - out.probes.length;
  }
  return out;
}

/** One question that can be sampled: `key` is `<record index>/<probe id>`. */
export interface Unit {
  key: string;
  stratum: string;
}

export function unitKey(index: number, probe: Probe): string {
  return `${index}/${probe.id}`;
}

function largest<T>(items: T[], score: (x: T) => number, tie: (a: T, b: T) => number): T | undefined {
  return items.reduce<T | undefined>((best, x) => (best === undefined || score(x) > score(best) || (score(x) === score(best) && tie(x, best) < 0) ? x : best), undefined);
}

/** How many questions each stratum gets (see the rule at the top of this file). */
export function allocate(sizes: ReadonlyMap<string, number>, n: number): Map<string, number> {
  const names = [...sizes.keys()].sort();
  const total = names.reduce((s, k) => s + (sizes.get(k) ?? 0), 0);
  const out = new Map(names.map((k) => [k, sizes.get(k) ?? 0]));
  if (n >= total) return out;
  const quota = new Map(names.map((k) => [k, (n * (sizes.get(k) ?? 0)) / total]));
  const minimum = n >= names.length ? 1 : 0;
  for (const k of names) out.set(k, Math.max(minimum, Math.floor(quota.get(k) ?? 0)));
  const sum = (): number => names.reduce((s, k) => s + (out.get(k) ?? 0), 0);
  const byName = (a: string, b: string): number => a.localeCompare(b);
  const gap = (k: string): number => (quota.get(k) ?? 0) - (out.get(k) ?? 0);
  while (sum() < n) {
    const k = largest(names.filter((x) => (out.get(x) ?? 0) < (sizes.get(x) ?? 0)), gap, byName);
    if (k === undefined) break;
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  while (sum() > n) {
    const k = largest(names.filter((x) => (out.get(x) ?? 0) > minimum), (x) => -gap(x), byName);
    if (k === undefined) break;
    out.set(k, (out.get(k) ?? 0) - 1);
  }
  return out;
}

/** The keys of a stratified sample of `n` units, drawn with `seed`. */
export function stratifiedSample(units: readonly Unit[], n: number, seed: number): { keys: Set<string>; perStratum: Map<string, number> } {
  const strata = new Map<string, string[]>();
  for (const u of units) {
    const list = strata.get(u.stratum);
    if (list) list.push(u.key);
    else strata.set(u.stratum, [u.key]);
  }
  const perStratum = allocate(new Map([...strata].map(([k, v]) => [k, v.length])), n);
  const random = seededRandom(seed);
  const keys = new Set<string>();
  for (const [stratum, count] of perStratum) {
    const pool = (strata.get(stratum) ?? []).slice();
    // Partial Fisher–Yates: the first `count` places end up a uniform draw without replacement.
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(random() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j], pool[i]];
      keys.add(pool[i]);
    }
  }
  return { keys, perStratum };
}
