// LongMemEval's metrics as its users compare them: the means of
// `src/evaluation/print_qa_metrics.py` in xiaowu0162/LongMemEval, over the
// yes/no labels its `src/evaluation/evaluate_qa.py` judge gives (graders/longmemeval.ts
// sends that judge's prompts). Written from the script's rules:
//
// - Per-type accuracy: the share of "yes" labels among the questions of each of
//   the six question types (`type2acc`).
// - Task-averaged accuracy: the mean of the six per-type accuracies (`task_acc`),
//   so every type weighs the same whatever its size.
// - Overall accuracy: the share of "yes" over every question (`all_acc`).
// - Abstention accuracy: the share of "yes" over the questions whose id contains
//   `_abs` (`abstention_acc`). These questions are ALSO counted in their type
//   and in the overall figure, as the script counts them; the abstention figure
//   is shown apart, never added to the task average.
//
// Where memeval has to decide what the script never meets:
// - An errored answer or judge call has no label. It counts as NOT correct: it
//   stays in every denominator and is counted under `errors` beside each figure
//   (house rule: an error never leaves a denominator silently). `judgedAccuracy`,
//   over the labelled answers only, is kept beside it, never in its place.
// - A subset of the dataset may lack a type; the script would print nan for its
//   accuracy and for the task average. Here the task average is the mean over
//   the types present, and `typesPresent` says how many that is.
// - With `repeat: N`, every answer is one item (n counts questions × repeats).
// - An answer graded by anything other than the official prompts (the offline
//   rule, or a run recorded before them) has no official label: it is counted as
//   `unscored`, never averaged. With `judge: offline` nothing is scored and the
//   reports say so (`LONGMEMEVAL_NOT_SCORED`) instead of showing numbers.
//
// This module is in core/ because reports/ may import only core/.
import type { ProbeRecord, RunResult } from './types.js';

/** The six question types, in print_qa_metrics.py's `type2acc` order. */
export const LONGMEMEVAL_TYPES = [
  'single-session-user',
  'single-session-preference',
  'single-session-assistant',
  'multi-session',
  'temporal-reasoning',
  'knowledge-update',
] as const;

export type LongMemEvalType = (typeof LONGMEMEVAL_TYPES)[number];

/** The transcript tag the LongMemEval importer sets (`tags: ['longmemeval', …]`, with `meta.source: longmemeval`). */
export const LONGMEMEVAL_TAG = 'longmemeval';

/** The transcript id prefix the importer gives (`lme-<question_id>`), for runs that do not list their transcripts. */
export const LONGMEMEVAL_ID_PREFIX = 'lme-';

/**
 * How every verdict given with the official prompts starts its `reason`, so a
 * probe record says by which protocol it was graded (and the metrics count only those).
 */
export const LONGMEMEVAL_PROTOCOL = 'LongMemEval evaluate_qa.py';

/** What the metrics say instead of numbers when no answer was graded with the official prompts. */
export const LONGMEMEVAL_NOT_SCORED = 'not scored: the official protocol needs an LLM judge';

export function isLongMemEvalType(value: unknown): value is LongMemEvalType {
  return typeof value === 'string' && (LONGMEMEVAL_TYPES as readonly string[]).includes(value);
}

/** evaluate_qa.py and print_qa_metrics.py: `'_abs' in question_id` (a substring test). */
export function isAbstentionId(questionId: string): boolean {
  return questionId.includes('_abs');
}

// ---------- which probe records are LongMemEval questions ----------

type RunPart = Pick<RunResult, 'info' | 'probes'>;

/** Transcript id → whether the run lists it with the importer's tag. */
function listedTranscripts(run: RunPart): Map<string, boolean> {
  return new Map(run.info.transcripts.map((t) => [t.id, t.tags.includes(LONGMEMEVAL_TAG)]));
}

/**
 * Whether a probe record is a LongMemEval question: its meta `question_type` is
 * one of the six types and its transcript came from the importer, read from
 * the `longmemeval` tag in `info.transcripts`, or, for a run that does not list
 * the transcript, from the importer's `lme-` id prefix.
 */
function fromLongMemEval(record: ProbeRecord, listed: Map<string, boolean>): boolean {
  if (!isLongMemEvalType(record.meta?.question_type)) return false;
  return listed.get(record.transcript) ?? record.transcript.startsWith(LONGMEMEVAL_ID_PREFIX);
}

/**
 * A record's abstention flag: the transcript id keeps the question id
 * (`lme-<question_id>`), so the script's `_abs` substring test reads it; the
 * importer's `kind: abstention` (set for ids ending in `_abs`) agrees.
 */
function isAbstentionRecord(record: ProbeRecord): boolean {
  return record.kind === 'abstention' || isAbstentionId(record.transcript);
}

export function hasLongMemEvalProbes(run: RunPart): boolean {
  const listed = listedTranscripts(run);
  return run.probes.some((record) => fromLongMemEval(record, listed));
}

// ---------- labels and means ----------

/** One record's official label: yes, no, an error (no label), or graded by another rule. */
export type LongMemEvalLabel = 'yes' | 'no' | 'error' | 'unscored';

/** The label of one LongMemEval probe record. */
export function longMemEvalLabelOf(record: ProbeRecord): LongMemEvalLabel {
  const judge = record.judge;
  if (judge === undefined) return record.error !== undefined ? 'error' : 'unscored';
  if (!judge.reason.startsWith(LONGMEMEVAL_PROTOCOL)) return 'unscored';
  if (judge.verdict === 'error') return 'error';
  return judge.verdict === 'pass' ? 'yes' : 'no';
}

export interface LongMemEvalCell {
  /** Labelled answers plus errored ones: the denominator of `accuracy`. */
  n: number;
  correct: number;
  /** Answers without a label (the answer or judge call failed); not correct, and in `n`. */
  errors: number;
  /** correct / n; undefined when n is 0. */
  accuracy?: number;
  /** correct / (n − errors): beside `accuracy` when there are errors, never in its place. */
  judgedAccuracy?: number;
}

export interface LongMemEvalTypeCell extends LongMemEvalCell {
  type: LongMemEvalType;
}

export interface LongMemEvalStrategyScores {
  strategy: string;
  /** The six types in print_qa_metrics.py's order, each present (n 0 when the run has none). */
  types: LongMemEvalTypeCell[];
  /** Mean of the per-type accuracies of the types with n > 0; undefined when none has. */
  taskAveraged?: number;
  /** How many types `taskAveraged` averages (6 on the full dataset). */
  typesPresent: number;
  /** Every answer of every type. */
  overall: LongMemEvalCell;
  /** The `_abs` questions, also counted in their types and in `overall`. */
  abstention: LongMemEvalCell;
  /** LongMemEval answers graded by another rule (not by the official prompts): counted, never averaged. */
  unscored: number;
}

interface Labelled {
  type: LongMemEvalType;
  abstention: boolean;
  label: 'yes' | 'no' | 'error';
}

function cell(items: Labelled[]): LongMemEvalCell {
  const correct = items.filter((i) => i.label === 'yes').length;
  const errors = items.filter((i) => i.label === 'error').length;
  const out: LongMemEvalCell = { n: items.length, correct, errors };
  if (items.length > 0) out.accuracy = correct / items.length;
  if (items.length > errors) out.judgedAccuracy = correct / (items.length - errors);
  return out;
}

function strategyScores(strategy: string, items: Labelled[], unscored: number): LongMemEvalStrategyScores {
  const types = LONGMEMEVAL_TYPES.map((type) => ({ type, ...cell(items.filter((i) => i.type === type)) }));
  const present = types.filter((t) => t.accuracy !== undefined).map((t) => t.accuracy as number);
  const out: LongMemEvalStrategyScores = {
    strategy,
    types,
    typesPresent: present.length,
    overall: cell(items),
    abstention: cell(items.filter((i) => i.abstention)),
    unscored,
  };
  if (present.length > 0) out.taskAveraged = present.reduce((a, b) => a + b, 0) / present.length;
  return out;
}

/** Strategy ids in config order, then any that only appear in probe records. */
function strategyOrder(run: RunPart): string[] {
  const ids = run.info.strategies.map((s) => s.id);
  for (const p of run.probes) if (!ids.includes(p.strategy)) ids.push(p.strategy);
  return ids;
}

/**
 * LongMemEval metrics per strategy over the run's LongMemEval probe records;
 * strategies without any are left out, so a run without them gives [].
 */
export function longMemEvalScores(run: RunPart): LongMemEvalStrategyScores[] {
  const listed = listedTranscripts(run);
  const labelled = new Map<string, Labelled[]>();
  const unscored = new Map<string, number>();
  for (const record of run.probes) {
    if (!fromLongMemEval(record, listed)) continue;
    const label = longMemEvalLabelOf(record);
    if (label === 'unscored') {
      unscored.set(record.strategy, (unscored.get(record.strategy) ?? 0) + 1);
      continue;
    }
    const item: Labelled = { type: record.meta?.question_type as LongMemEvalType, abstention: isAbstentionRecord(record), label };
    const list = labelled.get(record.strategy);
    if (list) list.push(item);
    else labelled.set(record.strategy, [item]);
  }
  return strategyOrder(run)
    .filter((id) => labelled.has(id) || unscored.has(id))
    .map((id) => strategyScores(id, labelled.get(id) ?? [], unscored.get(id) ?? 0));
}

/**
 * Why the run has no official LongMemEval numbers, or undefined when it has
 * some: with `judge: offline` (or no answer graded with the official prompts)
 * the metrics are not scored rather than made up from another rule's verdicts.
 */
export function longMemEvalNotScored(run: RunPart, scores: LongMemEvalStrategyScores[] = longMemEvalScores(run)): string | undefined {
  if (scores.length === 0) return undefined;
  if (run.info.judge === 'offline') return LONGMEMEVAL_NOT_SCORED;
  return scores.every((s) => s.overall.n === 0) ? `${LONGMEMEVAL_NOT_SCORED} (no answer of this run was graded with the official prompts)` : undefined;
}
