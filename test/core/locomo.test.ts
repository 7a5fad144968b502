import { describe, expect, it } from 'vitest';
import { porterStem } from '../../core/porter.js';
import { LOCOMO_ADVERSARIAL_PHRASES, hasLocomoProbes, locomoScore, locomoScores, type LocomoCategory } from '../../core/locomo.js';
import type { ProbeRecord, RunResult } from '../../core/types.js';
import { bareProbeRecord, probeOnlyRun } from '../helpers/sample-run.js';

// A straightforward port of snap-research/locomo task_eval/evaluation.py
// (normalize_answer, f1_score, f1 and the category branches of
// eval_question_answering), written apart from core/locomo.ts so the two check
// each other. It shares only the Porter stemmer.
const PYTHON_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

function pyNormalize(s: string): string {
  const lowered = s.replace(/,/g, '').toLowerCase();
  const unpunctuated = [...lowered].filter((ch) => !PYTHON_PUNCTUATION.has(ch)).join('');
  return unpunctuated.replace(/\b(a|an|the|and)\b/g, ' ').split(/\s+/).filter((w) => w.length > 0).join(' ');
}

function pyF1Score(prediction: string, gold: string): number {
  const p = pyNormalize(prediction).split(' ').filter(Boolean).map(porterStem);
  const g = pyNormalize(gold).split(' ').filter(Boolean).map(porterStem);
  const left = [...g];
  let same = 0;
  for (const t of p) {
    const at = left.indexOf(t);
    if (at >= 0) {
      same++;
      left.splice(at, 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

function pyMultiF1(prediction: string, gold: string): number {
  const predictions = prediction.split(',').map((p) => p.trim());
  const golds = gold.split(',').map((g) => g.trim());
  let total = 0;
  for (const g of golds) {
    let best = 0;
    for (const p of predictions) best = Math.max(best, pyF1Score(p, g));
    total += best;
  }
  return total / golds.length;
}

function pyEvaluate(output: string, answer: string, category: LocomoCategory): number {
  if (category === 3) answer = answer.split(';')[0].trim();
  if (category === 2 || category === 3 || category === 4) return pyF1Score(output, answer);
  if (category === 1) return pyMultiF1(output, answer);
  const lowered = output.toLowerCase();
  return lowered.includes('no information available') || lowered.includes('not mentioned') ? 1 : 0;
}

// [prediction, gold, category]. Formats where memeval's normalisation and Python's
// agree by design (see test/graders/official-f1.test.ts for where they differ).
const TRIPLES: [string, string, LocomoCategory][] = [
  // 1 multi-hop: the gold's comma parts, each matched to the best prediction part
  ['Pottery, camping, painting, swimming', 'Pottery, camping, painting, swimming', 1],
  ['swimming, painting, pottery, camping', 'Pottery, camping, painting, swimming', 1],
  ['She likes painting and pottery', 'Pottery, camping, painting, swimming', 1],
  ['Paris, London', 'London, Paris, Rome', 1],
  ['Paris', 'London, Paris, Rome', 1],
  ['', 'Sweden', 1],
  ['Sweden', 'Sweden', 1],
  ['Transgender woman', 'Transgender woman', 1],
  ['She went to an LGBTQ support group, a pride parade and gave a school speech', 'LGBTQ support group, pride parade, school speech', 1],
  ['running, swimming', 'runs, swims', 1],
  ['ran, swam', 'running, swimming', 1],
  ['Likely no; she wants to be a counselor', 'Likely no', 1],
  ['2022, 2023', '2023', 1],
  ['Melanie, Caroline', 'Caroline and Melanie', 1],
  ['camping at the beach, camping in the mountains, camping in the forest', 'beach, mountains, forest', 1],
  ['beach mountains forest', 'beach, mountains, forest', 1],
  ['Adoption agencies, LGBTQ support groups', 'adoption agency, support group, counseling', 1],
  ['violin,clarinet', 'clarinet, violin', 1],
  ['Connections, friends', 'connected, friendship', 1],
  ['Yes, she does', 'No', 1],
  // 2 temporal: token F1 on the whole gold
  ['7 May 2023', '7 May 2023', 2],
  ['On 7 May 2023', '7 May 2023', 2],
  ['May 2023', '7 May 2023', 2],
  ['The week before 9 June 2023', 'The week before 9 June 2023', 2],
  ['2022', '2022', 2],
  ['last year', '2022', 2],
  ['Sunday before 25 May 2023', 'The sunday before 25 May 2023', 2],
  ['June, 2023', 'June 2023', 2],
  ['10 years ago', 'Ten years ago', 2],
  ['in the summer of 2022', 'Summer 2022', 2],
  ['I do not know', '8 May 2023', 2],
  ['2022, 2023', '2022', 2],
  ['The weekend of 14 July', 'weekends in July', 2],
  // 3 open-domain: the gold before ";" only
  ['Yes', 'Yes; because she is into art', 3],
  ['Yes, because she is into art', 'Yes; because she is into art', 3],
  ['Likely yes', 'Likely yes; she has been saving money', 3],
  ['No', 'Likely no; she lives far away', 3],
  ['Somewhat', 'Somewhat, but she also worries about her career; she said so in May', 3],
  ['Liberal', 'Liberal', 3],
  ['Probably a counselor', 'Counseling or mental health work', 3],
  ['National park', 'National park; she likes the outdoors', 3],
  ['she likes the outdoors', 'National park; she likes the outdoors', 3],
  [' ', 'Yes; she said so', 3],
  ['Religious', 'Somewhat religious', 3],
  ['Books about nature', 'books;nature', 3],
  ['the hikes she went on', '  hiking  ; outdoors', 3],
  // 4 single-hop: token F1 on the whole gold (commas are not split)
  ['Running', 'running', 4],
  ['She runs every morning', 'running', 4],
  ['Connections', 'connected', 4],
  ['adopting two cats', 'She adopted cats', 4],
  ['the violin and the clarinet', 'clarinet and violin', 4],
  ["Her mother's illness", 'because her mother was ill', 4],
  ['A sunset painting', 'a painting of a sunset', 4],
  ['psychology', 'Psychology studies', 4],
  ['generalizations', 'generalization', 4],
  ['Relational databases', 'relations in databases', 4],
  ['happy', 'happiness', 4],
  ['$1,200', '1200', 4],
  ['the the the', 'the', 4],
  ['Windows 10', 'windows 10', 4],
  ['Sweden, Norway', 'Sweden', 4],
  ['blue', 'red', 4],
  ['Yes yes', 'yes', 4],
  ['e-mail', 'email', 4],
  // 5 adversarial: a phrase test on the prediction; the gold is not looked at
  ['Not mentioned in the conversation', 'Not mentioned in the conversation.', 5],
  ['NOT MENTIONED', 'Not mentioned in the conversation.', 5],
  ['That was not mentioned.', 'Not mentioned in the conversation.', 5],
  ['There is no information available about it.', 'Not mentioned in the conversation.', 5],
  ['No information is available.', 'Not mentioned in the conversation.', 5],
  ['The conversation does not mention it.', 'Not mentioned in the conversation.', 5],
  ["I don't know", 'Not mentioned in the conversation.', 5],
  ['Not mentioned, but probably Paris', 'Not mentioned in the conversation.', 5],
  ['It was never mentioned', 'Not mentioned in the conversation.', 5],
  ['Paris', 'Not mentioned in the conversation.', 5],
  ['not-mentioned', 'Not mentioned in the conversation.', 5],
  ['Not  mentioned', 'Not mentioned in the conversation.', 5],
  ['no information available', 'She went to Paris', 5],
  ['She went to Paris', 'She went to Paris', 5],
  ['', 'Not mentioned in the conversation.', 5],
];

describe('locomoScore equals an independent port of evaluation.py', () => {
  it('covers every category, multi-part golds, ";" golds and at least 60 triples', () => {
    expect(TRIPLES.length).toBeGreaterThanOrEqual(60);
    for (const c of [1, 2, 3, 4, 5]) expect(TRIPLES.filter(([, , k]) => k === c).length).toBeGreaterThanOrEqual(10);
    expect(TRIPLES.filter(([, g, k]) => k === 1 && g.includes(',')).length).toBeGreaterThanOrEqual(8);
    expect(TRIPLES.filter(([, g, k]) => k === 3 && g.includes(';')).length).toBeGreaterThanOrEqual(8);
  });
  it.each(TRIPLES)('%j vs %j (category %d)', (prediction, gold, category) => {
    expect(locomoScore(prediction, gold, category)).toBeCloseTo(pyEvaluate(prediction, gold, category), 12);
  });
});

describe('locomoScore, worked by hand', () => {
  it.each([
    // every gold part found in some prediction part
    ['swimming, painting, pottery, camping', 'Pottery, camping, painting, swimming', 1, 1],
    // one prediction part "she like paint potteri" against each gold part: 0.4, 0, 0.4, 0 → mean 0.2
    ['She likes painting and pottery', 'Pottery, camping, painting, swimming', 1, 0.2],
    // London 1, Paris 1, Rome 0
    ['Paris, London', 'London, Paris, Rome', 1, 2 / 3],
    // stems: running/runs → run, swimming/swims → swim
    ['running, swimming', 'runs, swims', 1, 1],
    // "ran" and "swam" stay as they are
    ['ran, swam', 'running, swimming', 1, 0],
    // one gold part, best prediction part "Melanie" or "Caroline": P 1, R 1/2
    ['Melanie, Caroline', 'Caroline and Melanie', 1, 2 / 3],
    // not split for category 2 or 4: the comma is dropped and both tokens count
    ['2022, 2023', '2022', 2, 2 / 3],
    ['Sweden, Norway', 'Sweden', 4, 2 / 3],
    // the same prediction split for category 1
    ['2022, 2023', '2023', 1, 1],
    // category 3 keeps only "Yes"
    ['Yes', 'Yes; because she is into art', 3, 1],
    ['she likes the outdoors', 'National park; she likes the outdoors', 3, 0],
    // the ";" rule is for category 3 only: under 4 the whole gold counts (ye 1/6 recall)
    ['Yes', 'Yes; because she is into art', 4, 2 / 7],
    // a gold copied as the answer scores 0 under category 5
    ['She went to Paris', 'She went to Paris', 5, 0],
    ['Not mentioned, but probably Paris', 'x', 5, 1],
    ['It was never mentioned', 'x', 5, 0],
    ['No information is available.', 'x', 5, 0],
  ] as const)('%j vs %j (category %d) = %d', (prediction, gold, category, expected) => {
    expect(locomoScore(prediction, gold, category)).toBeCloseTo(expected, 12);
  });
  it('uses exactly the two phrases of evaluation.py', () => {
    expect(LOCOMO_ADVERSARIAL_PHRASES).toEqual(['no information available', 'not mentioned']);
  });
});

// ---------- the aggregate ----------

interface Spec {
  strategy: string;
  transcript: string;
  probe: string;
  category: unknown;
  reference: string;
  /** undefined: the answer call failed. */
  answer?: string;
  judgeError?: boolean;
  categoryName?: string;
}

function record(s: Spec): ProbeRecord {
  const base = bareProbeRecord({
    strategy: s.strategy,
    transcript: s.transcript,
    probe: s.probe,
    reference: s.reference,
    meta: { category: s.category, category_name: s.categoryName ?? 'x' },
  });
  if (s.answer === undefined) return { ...base, error: 'HTTP 500', errorStage: 'answer', passed: false, attribution: 'error' };
  if (s.judgeError) {
    return { ...base, answer: s.answer, judge: { verdict: 'error', reason: 'no JSON', model: 'j' }, passed: false, error: 'judge: no JSON', errorStage: 'judge' };
  }
  return { ...base, answer: s.answer, judge: { verdict: 'pass', reason: '', model: 'j' }, passed: true };
}

function buildRun(specs: Spec[], transcripts: { id: string; tags: string[] }[], strategies: string[]): RunResult {
  return probeOnlyRun({ probes: specs.map(record), transcripts, strategies });
}

const LOCOMO = { id: 'locomo-conv-1', tags: ['locomo'] };
const OTHER = { id: 'support', tags: ['support'] };

// Strategy `full`: categories 1–5 with one errored answer in 1 and in 5, and a judge error in 3.
const FULL: Spec[] = [
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q1', category: 1, reference: 'London, Paris, Rome', answer: 'Paris, London' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q2', category: 1, reference: 'Sweden' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q3', category: 2, reference: '7 May 2023', answer: 'On 7 May 2023' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q4', category: 3, reference: 'Yes; because she is into art', answer: 'Yes' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q5', category: 3, reference: 'No; she lives far away', answer: 'No', judgeError: true },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q6', category: 4, reference: 'runs', answer: 'running' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q7', category: 4, reference: 'red', answer: 'blue' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q8', category: 5, reference: 'Not mentioned in the conversation.', answer: 'Not mentioned.' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q9', category: 5, reference: 'Not mentioned in the conversation.', answer: 'Paris' },
  { strategy: 'full', transcript: LOCOMO.id, probe: 'q10', category: 5, reference: 'Not mentioned in the conversation.' },
];

function aggregateRun(): RunResult {
  const others: Spec[] = [
    // Not LoCoMo: another transcript whose probe meta happens to have a category.
    { strategy: 'full', transcript: OTHER.id, probe: 'p1', category: 4, reference: 'A-1', answer: 'A-1', categoryName: 'single-hop' },
    // LoCoMo, but no category evaluation.py can score.
    { strategy: 'full', transcript: LOCOMO.id, probe: 'q11', category: 6, reference: 'x', answer: 'x' },
    { strategy: 'full', transcript: LOCOMO.id, probe: 'q12', category: '4', reference: 'x', answer: 'x' },
    // A transcript the run does not list: LoCoMo only when category_name is LoCoMo's name for the category.
    { strategy: 'trim', transcript: 'unlisted', probe: 'u1', category: 2, reference: '2022', answer: '2022', categoryName: 'temporal' },
    { strategy: 'trim', transcript: 'unlisted', probe: 'u2', category: 2, reference: '2022', answer: '2022', categoryName: 'single-hop' },
    { strategy: 'trim', transcript: LOCOMO.id, probe: 'q1', category: 1, reference: 'London, Paris, Rome', answer: 'Rome' },
    // A strategy with no LoCoMo probe at all.
    { strategy: 'none', transcript: OTHER.id, probe: 'p1', category: 4, reference: 'A-1', answer: 'A-1' },
  ];
  return buildRun([...FULL, ...others], [LOCOMO, OTHER], ['full', 'trim', 'none']);
}

describe('locomoScores (per strategy and category, overall on 1–4)', () => {
  const scores = locomoScores(aggregateRun());
  const full = scores.find((s) => s.strategy === 'full')!;
  const trim = scores.find((s) => s.strategy === 'trim')!;

  it('lists only strategies with LoCoMo probes, in config order', () => {
    expect(scores.map((s) => s.strategy)).toEqual(['full', 'trim']);
  });

  it('gives each category its mean over attempted answers, an error weighing 0 and counted', () => {
    const byCategory = full.categories.map((c) => [c.category, c.name, c.n, c.errors, c.mean]);
    expect(byCategory).toEqual([
      [1, 'multi-hop', 2, 1, expect.closeTo(1 / 3, 12)],
      [2, 'temporal', 1, 0, expect.closeTo(pyF1Score('On 7 May 2023', '7 May 2023'), 12)],
      // the judge error leaves the answer "No", which scores 1 on "No"
      [3, 'open-domain', 2, 0, 1],
      [4, 'single-hop', 2, 0, 0.5],
      [5, 'adversarial', 3, 1, expect.closeTo(1 / 3, 12)],
    ]);
    expect(full.categories[0].meanAnswered).toBeCloseTo(2 / 3, 12);
    expect(full.categories[4].meanAnswered).toBeCloseTo(1 / 2, 12);
  });

  it('takes overall over every answer of categories 1–4 only, and keeps 1–5 apart', () => {
    const parts = [2 / 3, 0, pyF1Score('On 7 May 2023', '7 May 2023'), 1, 1, 1, 0];
    expect(full.overall.n).toBe(7);
    expect(full.overall.errors).toBe(1);
    expect(full.overall.questions).toBe(7);
    expect(full.overall.mean).toBeCloseTo(parts.reduce((a, b) => a + b, 0) / 7, 12);
    expect(full.overall.meanAnswered).toBeCloseTo(parts.reduce((a, b) => a + b, 0) / 6, 12);
    expect(full.overallAll.n).toBe(10);
    expect(full.overallAll.errors).toBe(2);
    expect(full.overallAll.mean).toBeCloseTo((parts.reduce((a, b) => a + b, 0) + 1) / 10, 12);
  });

  it('agrees with the independent port on every record', () => {
    const expected = FULL.filter((s) => s.answer !== undefined && (s.category as number) <= 4).map((s) => pyEvaluate(s.answer!, s.reference, s.category as LocomoCategory));
    expect(full.overall.sum).toBeCloseTo(expected.reduce((a, b) => a + b, 0), 12);
  });

  it('counts LoCoMo probes without a category 1–5 as unscored and ignores other transcripts', () => {
    expect(full.unscored).toBe(2);
    expect(full.categories[3].n).toBe(2); // the support transcript's category-4 probe is not in it
  });

  it('falls back to the probe meta for a transcript the run does not list', () => {
    expect(trim.categories[1].n).toBe(1);
    expect(trim.categories[1].mean).toBe(1);
    expect(trim.categories[0].mean).toBeCloseTo(1 / 3, 12);
    expect(trim.categories[2].n).toBe(0);
    expect(trim.categories[2].mean).toBeUndefined();
  });

  it('gives [] and no LoCoMo probes for a run without them', () => {
    const run = buildRun([{ strategy: 'a', transcript: OTHER.id, probe: 'p', category: 4, reference: 'x', answer: 'x' }], [OTHER], ['a']);
    expect(locomoScores(run)).toEqual([]);
    expect(hasLocomoProbes(run)).toBe(false);
    expect(hasLocomoProbes(aggregateRun())).toBe(true);
  });
});
