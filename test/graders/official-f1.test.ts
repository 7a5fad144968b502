import { describe, expect, it } from 'vitest';
import { porterStem } from '../../core/porter.js';
import { officialF1, tokenF1 } from '../../graders/exact.js';

// A line-by-line port of LoCoMo's evaluation (normalize_answer + f1_score), written separately
// from graders/exact.ts so the two can check each other. It shares only the stemmer.
const PYTHON_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

function locomoNormalize(s: string): string {
  const lowered = s.replace(/,/g, '').toLowerCase();
  const unpunctuated = [...lowered].filter((ch) => !PYTHON_PUNCTUATION.has(ch)).join('');
  const noArticles = unpunctuated.replace(/(?<![\p{L}\p{N}_])(a|an|the|and)(?![\p{L}\p{N}_])/gu, ' ');
  return noArticles.split(/\s+/).filter((w) => w.length > 0).join(' ');
}

function locomoF1(prediction: string, gold: string): number {
  const p = locomoNormalize(prediction).split(' ').filter(Boolean).map(porterStem);
  const g = locomoNormalize(gold).split(' ').filter(Boolean).map(porterStem);
  const goldCounts = new Map<string, number>();
  for (const t of g) goldCounts.set(t, (goldCounts.get(t) ?? 0) + 1);
  const predCounts = new Map<string, number>();
  for (const t of p) predCounts.set(t, (predCounts.get(t) ?? 0) + 1);
  let same = 0;
  for (const [t, n] of predCounts) same += Math.min(n, goldCounts.get(t) ?? 0);
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

// [prediction, gold]: formats where our normalisation and LoCoMo's agree by design.
const PAIRS: [string, string][] = [
  ['Windows 10', 'Windows 10'],
  ['She is on Windows 10.', 'Windows 10'],
  ['The RMA number is RMA-66120', 'RMA-66120'],
  ['RMA-661200', 'RMA-66120'],
  ['It cost $1,200', '1200'],
  ['$1,200', '$1200'],
  ['12,400 dollars', '$12,400'],
  ['about 78,000', '78000'],
  ['U.S.', 'US'],
  ['She moved to the U.K. in 2021', 'UK'],
  ['send an e-mail', 'email'],
  ['Her e-mail is ana@example.com', 'ana@example.com'],
  ['The cat and the hat', 'cat hat'],
  ['an apple and a pear', 'apples, pears'],
  ['A dog', 'the dogs'],
  ['running', 'runs'],
  ['ran', 'running'],
  ['She ran a marathon', 'running marathons'],
  ['connection', 'connected'],
  ['Connections were dropped', 'connection dropped'],
  ['The connecting flight', 'connected flights'],
  ['Caroline went hiking', 'Caroline hiked'],
  ['She is happy', 'happiness'],
  ['generalization', 'generalizations'],
  ['relational databases', 'relations in a database'],
  ['7 May 2023', 'May 7, 2023'],
  ['On 7 May 2023 at noon', '7 May 2023'],
  ['last Tuesday', 'Tuesday'],
  ['10:32', '10:32 am'],
  ['It was at 10:32 am', '10:32'],
  ['yes yes', 'yes'],
  ['no', 'yes'],
  ['blue', 'red'],
  ['', 'red'],
  ['red', ''],
  ['the', 'a'],
  ['Pottery and painting', 'painting, pottery'],
  ['She painted a sunset over the lake', 'a painting of a sunset'],
  ['They adopted two cats', 'adopting cats'],
  ['He is studying psychology', 'psychology studies'],
  ['Melanie plays the violin and the clarikonet', 'violin, clarinet'],
  ['because her mother was ill', "her mother's illness"],
  ["John's car", 'the car of John'],
  ['LGBTQ support group', 'support groups for LGBTQ people'],
  ['Firmware v1.0.3', 'v1.0.3'],
  ['Error codes 42 and 404', 'error code 404'],
  ['The router was reset twice', 'router reset two times'],
  ['resetting the batteries', 'battery reset'],
  ['Agreed to the conditions', 'agreement conditional'],
  ['Sev-1 incident', 'SEV1'],
  ['TP 204 to Lisbon', 'TP204'],
  ['three weeks', '21 days'],
  ['Kestrel Foods (C-10482)', 'C-10482 Kestrel Foods'],
  ['mindfulness, meditation and yoga', 'yoga and meditation'],
];

describe('officialF1 equals LoCoMo F1 (independent port, same Porter stemmer)', () => {
  it('has at least 50 pairs', () => expect(PAIRS.length).toBeGreaterThanOrEqual(50));
  it.each(PAIRS)('%j vs %j', (prediction, gold) => {
    expect(officialF1(prediction, gold)).toBeCloseTo(locomoF1(prediction, gold), 12);
  });
  it("agrees with memeval's own F1 on these, where the two normalisations agree by design", () => {
    for (const [prediction, gold] of PAIRS) expect(tokenF1(prediction, gold)).toBeCloseTo(officialF1(prediction, gold), 12);
  });
});

describe('officialF1, worked by hand', () => {
  it.each([
    // Porter stems: running/runs → run; ran stays ran; connection/connected → connect
    ['running', 'runs', 1],
    ['ran', 'running', 0],
    ['connection', 'connected', 1],
    // connect were drop vs connect drop: P 2/3, R 1
    ['Connections were dropped', 'connection dropped', 0.8],
    // carolin went hike vs carolin hike: P 2/3, R 1
    ['Caroline went hiking', 'Caroline hiked', 0.8],
    // she is happi vs happi: P 1/3, R 1
    ['She is happy', 'happiness', 0.5],
    ['generalization', 'generalizations', 1],
    ['an apple and a pear', 'apples, pears', 1],
    // punctuation and units
    ['$1,200', '1200', 1],
    ['U.S.', 'US', 1],
    ['e-mail', 'email', 1],
    // it wa at 1032 am vs 1032: P 1/5, R 1
    ['It was at 10:32 am', '10:32', 1 / 3],
    // mai 7 2023 in either order
    ['7 May 2023', 'May 7, 2023', 1],
    ['yes yes', 'yes', 2 / 3],
    ['the', 'the', 0],
    ['', 'red', 0],
    // numbers as the script reads them: punctuation deleted, so 1200.0 is 12000 and -5 is 5
    ['1200.0', '1,200', 0],
    ['-5', '5', 1],
    ['\u22125 degrees', '-5 degrees', 0.5],
    ['1.5 hours', '15 hours', 1],
    ['15%', '15 percent', 2 / 3],
    // characters other than ASCII punctuation stay in their word, as the script keeps them
    ['Caroline\u2019s dog', "Caroline's dog", 0.5],
    ['Paris\u2026', 'Paris', 0],
    ['A\u2014B', 'A B', 0],
    ['x \u2014 y', 'x y', 0.8],
    ['\ufb01sh', 'fish', 0],
    ['well--known', 'wellknown', 1],
    ['apple,(banana)', 'applebanana', 1],
  ] as const)('%j vs %j = %d', (prediction, gold, expected) => {
    expect(officialF1(prediction, gold)).toBeCloseTo(expected, 12);
    expect(officialF1(prediction, gold)).toBeCloseTo(locomoF1(prediction, gold), 12);
  });
});

describe("tokenF1, memeval's own F1 (probe records, the offline judge)", () => {
  it.each([
    // where its numbers are stricter than LoCoMo's (which gives 0, 1, 0.5, 1 and 0.67)
    ['1200.0', '1,200', 1],
    ['-5', '5', 0],
    ['\u22125 degrees', '-5 degrees', 1],
    ['1.5 hours', '15 hours', 0.5],
    ['15%', '15 percent', 1],
    // typographic punctuation read as ASCII
    ['Caroline\u2019s dog', "Caroline's dog", 1],
  ] as const)('%j vs %j = %d', (prediction, gold, expected) => {
    expect(tokenF1(prediction, gold)).toBeCloseTo(expected, 12);
  });
});

describe('porterStem (Porter 1980, examples from the paper)', () => {
  it.each([
    ['caresses', 'caress'], ['ponies', 'poni'], ['cats', 'cat'], ['feed', 'feed'], ['agreed', 'agre'],
    ['plastered', 'plaster'], ['bled', 'bled'], ['motoring', 'motor'], ['sing', 'sing'], ['hopping', 'hop'],
    ['tanned', 'tan'], ['falling', 'fall'], ['hissing', 'hiss'], ['fizzed', 'fizz'], ['failing', 'fail'],
    ['filing', 'file'], ['happy', 'happi'], ['sky', 'sky'], ['relational', 'relat'], ['conditional', 'condit'],
    ['rational', 'ration'], ['vietnamization', 'vietnam'], ['hopefulness', 'hope'], ['formaliti', 'formal'],
    ['triplicate', 'triplic'], ['formative', 'form'], ['electrical', 'electr'], ['goodness', 'good'],
    ['revival', 'reviv'], ['allowance', 'allow'], ['inference', 'infer'], ['airliner', 'airlin'],
    ['adjustable', 'adjust'], ['defensible', 'defens'], ['irritant', 'irrit'], ['replacement', 'replac'],
    ['adoption', 'adopt'], ['communism', 'commun'], ['activate', 'activ'], ['effective', 'effect'],
    ['bowdlerize', 'bowdler'], ['probate', 'probat'], ['rate', 'rate'], ['cease', 'ceas'],
    ['controll', 'control'], ['roll', 'roll'], ['generalizations', 'gener'], ['oscillators', 'oscil'],
    ['is', 'is'], ['as', 'as'],
  ])('%s → %s', (word, stem) => expect(porterStem(word)).toBe(stem));
});
