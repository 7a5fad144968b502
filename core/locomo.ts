// LoCoMo's own scoring, as its users compare it: the per-category rules of
// `eval_question_answering` in snap-research/locomo `task_eval/evaluation.py`,
// and the per-category and overall means of `task_eval/evaluation_stats.py`.
// Written from those rules, not from their code:
//
// - Token F1 (`f1_score`): `normalize_answer` (drop commas, lower-case, delete
//   Python's `string.punctuation`, drop the words a/an/the/and, collapse
//   spaces), Porter-stem every token, F1 of the multiset overlap; 0 when
//   nothing is shared (so also when either side is empty).
// - Category 1 (multi-hop, `f1`): prediction and gold are each split on ","
//   and stripped; every gold part takes the best F1 over the prediction
//   parts, and the score is the mean over gold parts.
// - Category 2 (temporal) and 4 (single-hop): `f1_score` on the whole gold.
// - Category 3 (open-domain): `f1_score` on the gold up to its first ";"
//   (stripped); what follows the ";" is not scored.
// - Category 5 (adversarial): 1 when the lower-cased prediction contains
//   "no information available" or "not mentioned" as a substring, else 0;
//   the gold is not looked at.
// - Any other category: evaluation.py raises; here such probes are counted
//   as unscored, never averaged.
//
// Means: evaluation_stats.py divides each category's summed score by every
// question of that category, so a question without a score weighs 0; errored
// answers are treated the same way here and counted beside the mean. Its
// `analyze_aggr_acc` "Overall accuracy" sums all five categories; published
// LoCoMo comparisons use categories 1–4 (1,540 questions of locomo10.json),
// so `overall` here is 1–4 and `overallAll` (1–5) is kept beside it.
//
// This module is in core/ because reports/ may import only core/; the token F1
// is core/text.ts `officialF1`, the one every LoCoMo figure in memeval uses.
//
// Stemming: evaluation.py stems with NLTK's `PorterStemmer()`, whose default
// mode is NLTK_EXTENSIONS, and core/porter.ts implements that mode (checked
// against NLTK's output in test/core/porter.test.ts): pairs such as ties/tie,
// cried/cry or proceeded/proceed stem alike here as they do there.
import { officialF1 } from './text.js';
import type { ProbeRecord, RunResult } from './types.js';

export type LocomoCategory = 1 | 2 | 3 | 4 | 5;

export const LOCOMO_CATEGORIES: readonly LocomoCategory[] = [1, 2, 3, 4, 5];

/** The names the LoCoMo importer gives the categories (harness/datasets/importers/locomo.ts). */
export const LOCOMO_CATEGORY_NAMES: Readonly<Record<LocomoCategory, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

/** The categories of the overall figure published LoCoMo results compare (1,540 questions in the full file). */
export const LOCOMO_OVERALL_CATEGORIES: readonly LocomoCategory[] = [1, 2, 3, 4];

/** Questions of categories 1–4 in the full locomo10.json, so a subset can say it is one. */
export const LOCOMO_FULL_OVERALL_QUESTIONS = 1540;

/** evaluation.py's category-5 test: either phrase anywhere in the lower-cased prediction. */
export const LOCOMO_ADVERSARIAL_PHRASES: readonly string[] = ['no information available', 'not mentioned'];

/** The transcript tag the LoCoMo importer sets (`tags: ['locomo']`, with `meta.source: locomo`). */
export const LOCOMO_TAG = 'locomo';

/** evaluation.py `f1` (multi-answer): mean over the gold's comma parts of the best F1 against any prediction part. */
export function locomoMultiAnswerF1(prediction: string, gold: string): number {
  const predictions = prediction.split(',').map((p) => p.trim());
  const golds = gold.split(',').map((g) => g.trim());
  const best = golds.map((g) => Math.max(...predictions.map((p) => officialF1(p, g))));
  return best.reduce((a, b) => a + b, 0) / best.length;
}

/** Category 3's gold: the text before the first ";", stripped. */
export function locomoOpenDomainGold(gold: string): string {
  return gold.split(';')[0].trim();
}

/** Category 5: 1 when the prediction says the information is not there in one of evaluation.py's two phrasings. */
export function locomoAdversarialScore(prediction: string): 0 | 1 {
  const lowered = prediction.toLowerCase();
  return LOCOMO_ADVERSARIAL_PHRASES.some((phrase) => lowered.includes(phrase)) ? 1 : 0;
}

/**
 * The score evaluation.py gives `prediction` for a question of `category` whose
 * gold answer is `gold`, with `officialF1` (evaluation.py `f1_score`) per pair.
 */
export function locomoScore(prediction: string, gold: string, category: LocomoCategory): number {
  switch (category) {
    case 1:
      return locomoMultiAnswerF1(prediction, gold);
    case 2:
    case 4:
      return officialF1(prediction, gold);
    case 3:
      return officialF1(prediction, locomoOpenDomainGold(gold));
    case 5:
      return locomoAdversarialScore(prediction);
  }
}

/** A probe's LoCoMo category: its meta `category` when that is the number 1–5 (evaluation.py compares numbers). */
export function locomoCategoryOf(meta: Record<string, unknown> | undefined): LocomoCategory | undefined {
  const raw = meta?.category;
  return typeof raw === 'number' && (LOCOMO_CATEGORIES as readonly number[]).includes(raw) ? (raw as LocomoCategory) : undefined;
}

// ---------- which probe records are LoCoMo questions ----------

type RunPart = Pick<RunResult, 'info' | 'probes'>;

/**
 * Transcript id → whether it came from the LoCoMo importer, for the transcripts
 * the run lists (`info.transcripts`, which carries each transcript's tags).
 */
function listedTranscripts(run: RunPart): Map<string, boolean> {
  return new Map(run.info.transcripts.map((t) => [t.id, t.tags.includes(LOCOMO_TAG)]));
}

/**
 * Whether a probe record is a LoCoMo question. Probe records do not carry the
 * transcript's meta, so provenance is read from the run: the transcript is
 * listed in `info.transcripts` with the `locomo` tag the importer sets. A run
 * that does not list the transcript (one recorded before the list existed)
 * falls back to the probe meta the importer writes: a `category_name` that is
 * the LoCoMo name of its `category`.
 */
function fromLocomo(record: ProbeRecord, listed: Map<string, boolean>, category: LocomoCategory | undefined): boolean {
  const tagged = listed.get(record.transcript);
  if (tagged !== undefined) return tagged;
  return category !== undefined && record.meta?.category_name === LOCOMO_CATEGORY_NAMES[category];
}

/**
 * Each record's own LoCoMo score, as `locomoScores` scores it (evaluation.py's rule for its
 * category): undefined for a record that is no LoCoMo question, has no usable category, or has
 * no answer (an errored one, which the table counts as 0).
 */
export function locomoRecordScorer(run: RunPart): (record: ProbeRecord) => number | undefined {
  const listed = listedTranscripts(run);
  return (record) => {
    const category = locomoCategoryOf(record.meta);
    if (category === undefined || record.answer === undefined || !fromLocomo(record, listed, category)) return undefined;
    return locomoScore(record.answer, record.reference, category);
  };
}

/** True when some probe record of the run is a LoCoMo question (or a LoCoMo probe without a usable category). */
export function hasLocomoProbes(run: RunPart): boolean {
  const listed = listedTranscripts(run);
  return run.probes.some((record) => fromLocomo(record, listed, locomoCategoryOf(record.meta)));
}

// ---------- means ----------

/** One cell: the answers of a strategy in some categories. */
export interface LocomoCell {
  /** Probe records (questions × repeats), errored ones included. */
  n: number;
  /** Records with an answer to score. */
  answered: number;
  /** Records without one: the answer call failed or never returned. They weigh 0 in `mean`. */
  errors: number;
  /** Distinct questions (transcript × probe). */
  questions: number;
  /** Summed score over the answered records. */
  sum: number;
  /** sum / n: every record counts, an errored one as 0 (as evaluation_stats.py counts an unscored question). Undefined when n is 0. */
  mean?: number;
  /** sum / answered: beside `mean` when there are errors, never in its place. */
  meanAnswered?: number;
}

export interface LocomoCategoryCell extends LocomoCell {
  category: LocomoCategory;
  name: string;
}

export interface LocomoStrategyScores {
  strategy: string;
  /** Categories 1–5 in order, each present (n 0 when the run has none of it). */
  categories: LocomoCategoryCell[];
  /** Every answer of categories 1–4 (micro mean): the published LoCoMo overall. */
  overall: LocomoCell;
  /** Every answer of categories 1–5: evaluation_stats.py's own overall. */
  overallAll: LocomoCell;
  /** Records of LoCoMo transcripts whose category is not the number 1–5: evaluation.py cannot score them; counted, not averaged. */
  unscored: number;
}

interface Scored {
  transcript: string;
  probe: string;
  category: LocomoCategory;
  /** Undefined for an errored record. */
  score?: number;
}

function cell(items: Scored[]): LocomoCell {
  const answered = items.filter((i) => i.score !== undefined);
  const sum = answered.reduce((a, i) => a + (i.score ?? 0), 0);
  const questions = new Set(items.map((i) => `${i.transcript}\u0000${i.probe}`)).size;
  const out: LocomoCell = { n: items.length, answered: answered.length, errors: items.length - answered.length, questions, sum };
  if (items.length > 0) out.mean = sum / items.length;
  if (answered.length > 0) out.meanAnswered = sum / answered.length;
  return out;
}

function strategyScores(strategy: string, items: Scored[], unscored: number): LocomoStrategyScores {
  const inCategories = (cats: readonly LocomoCategory[]) => items.filter((i) => cats.includes(i.category));
  return {
    strategy,
    categories: LOCOMO_CATEGORIES.map((category) => ({ category, name: LOCOMO_CATEGORY_NAMES[category], ...cell(inCategories([category])) })),
    overall: cell(inCategories(LOCOMO_OVERALL_CATEGORIES)),
    overallAll: cell(items),
    unscored,
  };
}

/** Strategy ids in config order, then any that only appear in probe records. */
function strategyOrder(run: RunPart): string[] {
  const ids = run.info.strategies.map((s) => s.id);
  for (const p of run.probes) if (!ids.includes(p.strategy)) ids.push(p.strategy);
  return ids;
}

/**
 * LoCoMo scores per strategy, over the run's LoCoMo probe records (see
 * `fromLocomo`); strategies without any are left out, so a run without
 * LoCoMo probes gives []. An answer is scored whenever it exists: a failed
 * judge call does not touch it (evaluation.py needs no judge).
 */
export function locomoScores(run: RunPart): LocomoStrategyScores[] {
  const listed = listedTranscripts(run);
  const scored = new Map<string, Scored[]>();
  const unscored = new Map<string, number>();
  for (const record of run.probes) {
    const category = locomoCategoryOf(record.meta);
    if (!fromLocomo(record, listed, category)) continue;
    if (category === undefined) {
      unscored.set(record.strategy, (unscored.get(record.strategy) ?? 0) + 1);
      continue;
    }
    const item: Scored = { transcript: record.transcript, probe: record.probe, category };
    if (record.answer !== undefined) item.score = locomoScore(record.answer, record.reference, category);
    const list = scored.get(record.strategy);
    if (list) list.push(item);
    else scored.set(record.strategy, [item]);
  }
  return strategyOrder(run)
    .filter((id) => scored.has(id) || unscored.has(id))
    .map((id) => strategyScores(id, scored.get(id) ?? [], unscored.get(id) ?? 0));
}
