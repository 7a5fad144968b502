// The Porter suffix-stripping algorithm as NLTK's `PorterStemmer()` runs it by default
// (mode NLTK_EXTENSIONS, nltk/stem/porter.py). LoCoMo's token F1 (task_eval/evaluation.py)
// stems every token with that stemmer, so our F1 is only comparable to published numbers
// when we stem the same way, departures from the 1980 paper included.
//
// The steps are those of M. F. Porter, "An algorithm for suffix stripping", Program 14(3),
// 1980. NLTK's default mode departs from the paper in these places, each marked below:
//   - a table of irregular forms is looked up before anything else (`pool`);
//   - words of one or two letters are left alone (`stem`);
//   - *o also holds for a two-letter stem vowel + consonant (`_ends_cvc`);
//   - four-letter -ies / -ied become -ie (`_step1a`, `_step1b`), other -ied → -i at once;
//   - y → i only after a consonant that is not the whole stem (`_step1c`);
//   - step 2: -alli → -al first, then step 2 again; -bli → -ble (not -abli → -able);
//     -fulli → -ful; -logi → -log (`_step2`).
// Within a step, NLTK tries the rules in its listed order and the first suffix that matches
// decides: if its condition fails, no later rule is tried (`_apply_rule_list`).

/** Stem of one lower-case word, as NLTK's default PorterStemmer gives it. */
export function porterStem(word: string): string {
  // NLTK `stem`: the irregular-forms table bypasses the steps entirely.
  const irregular = IRREGULAR_FORMS.get(word);
  if (irregular !== undefined) return irregular;
  // NLTK `stem`: strings of one or two letters are not stemmed (not in the paper).
  if (word.length <= 2) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = applyRules(w, STEP3);
  w = applyRules(w, STEP4);
  w = step5a(w);
  return step5b(w);
}

// NLTK `__init__` (NLTK_EXTENSIONS): errors reported to Porter over the years, each word
// mapped straight to its stem. Without it, e.g. proceed → procee by the EED rule.
const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'], ['skies', 'sky'],
  ['dying', 'die'], ['lying', 'lie'], ['tying', 'tie'],
  ['news', 'news'],
  ['innings', 'inning'], ['inning', 'inning'],
  ['outings', 'outing'], ['outing', 'outing'],
  ['cannings', 'canning'], ['canning', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'], ['exceed', 'exceed'], ['succeed', 'succeed'],
]);

// A consonant is a letter other than a, e, i, o, u, and other than y preceded by a consonant.
function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel-consonant sequences. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  while (i < stem.length && isConsonant(stem, i)) i++;
  while (i < stem.length) {
    while (i < stem.length && !isConsonant(stem, i)) i++;
    if (i >= stem.length) break;
    m++;
    while (i < stem.length && isConsonant(stem, i)) i++;
  }
  return m;
}

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;
const measureAboveOne = (stem: string): boolean => measure(stem) > 1;

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: ends with a double consonant. */
function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/**
 * *o: ends consonant-vowel-consonant, the last consonant not w, x or y. NLTK `_ends_cvc`
 * also accepts a whole stem of vowel + consonant (any consonant, w included), so that
 * short stems get their e back: owing/owed → owe.
 */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n === 2) return !isConsonant(w, 0) && isConsonant(w, 1);
  if (n < 3) return false;
  if (!isConsonant(w, n - 3) || isConsonant(w, n - 2) || !isConsonant(w, n - 1)) return false;
  return !'wxy'.includes(w[n - 1]);
}

/** A suffix, what replaces it, and the condition on the stem left once the suffix is removed. */
interface Rule {
  readonly suffix: string;
  readonly replacement: string;
  readonly when: (stem: string) => boolean;
}

const rule = (suffix: string, replacement: string, when: (stem: string) => boolean): Rule => ({ suffix, replacement, when });

/**
 * NLTK `_apply_rule_list`: the first rule, in list order, whose suffix the word ends with
 * decides; when its condition fails the word is kept and no later rule is tried.
 */
function applyRules(w: string, rules: readonly Rule[]): string {
  for (const r of rules) {
    if (!w.endsWith(r.suffix)) continue;
    const stem = w.slice(0, w.length - r.suffix.length);
    return r.when(stem) ? stem + r.replacement : w;
  }
  return w;
}

function step1a(w: string): string {
  // NLTK `_step1a`: a four-letter -ies keeps its e, so ties/dies/lies → tie/die/lie (flies → fli).
  if (w.length === 4 && w.endsWith('ies')) return `${w.slice(0, -3)}ie`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  if (w.endsWith('ss')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  // NLTK `_step1b`: -ied is settled before the paper's rules and without their tidying:
  // died → die (four letters), cried/spied → cri/spi, so they meet cry/spy of step 1c.
  if (w.endsWith('ied')) return w.length === 4 ? `${w.slice(0, -3)}ie` : `${w.slice(0, -3)}i`;
  if (w.endsWith('eed')) return positiveMeasure(w.slice(0, -3)) ? w.slice(0, -1) : w;
  for (const suffix of ['ed', 'ing']) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (hasVowel(stem)) return tidyAfter1b(stem);
  }
  return w;
}

// After -ed/-ing is removed: restore an e (hoped → hope), undouble (hopping → hop).
function tidyAfter1b(stem: string): string {
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  // A double l, s or z stays (falling → fall) and then no e is added either.
  if (endsDoubleConsonant(stem)) return /[lsz]$/.test(stem) ? stem : stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

/**
 * NLTK `_step1c`: y → i only when the letter before it is a consonant and is not the
 * whole stem. The paper asks only for a vowel somewhere before the y, which turned
 * enjoy/day/toy into enjoi/dai/toi; NLTK keeps those, and stems cry/try/spy to
 * cri/tri/spi so that they meet cried/tried/spied.
 */
function step1c(w: string): string {
  if (!w.endsWith('y')) return w;
  const stem = w.slice(0, -1);
  return stem.length > 1 && isConsonant(stem, stem.length - 1) ? `${stem}i` : w;
}

// Step 2 in NLTK's order; its -alli rule is handled before this list (see step2).
const STEP2: readonly Rule[] = [
  rule('ational', 'ate', positiveMeasure),
  rule('tional', 'tion', positiveMeasure),
  rule('enci', 'ence', positiveMeasure),
  rule('anci', 'ance', positiveMeasure),
  rule('izer', 'ize', positiveMeasure),
  // NLTK `bli_rule`: -bli → -ble where the paper has -abli → -able, so possibly → possible.
  rule('bli', 'ble', positiveMeasure),
  rule('alli', 'al', positiveMeasure),
  rule('entli', 'ent', positiveMeasure),
  rule('eli', 'e', positiveMeasure),
  rule('ousli', 'ous', positiveMeasure),
  rule('ization', 'ize', positiveMeasure),
  rule('ation', 'ate', positiveMeasure),
  rule('ator', 'ate', positiveMeasure),
  rule('alism', 'al', positiveMeasure),
  rule('iveness', 'ive', positiveMeasure),
  rule('fulness', 'ful', positiveMeasure),
  rule('ousness', 'ous', positiveMeasure),
  rule('aliti', 'al', positiveMeasure),
  rule('iviti', 'ive', positiveMeasure),
  rule('biliti', 'ble', positiveMeasure),
  // NLTK extension: hopefully → hopeful (then step 3 → hope, as hopeful does).
  rule('fulli', 'ful', positiveMeasure),
  // NLTK extension: -logi → -log, measured with the l kept on the stem so that short
  // stems like geo-/theo- qualify as archaeo-/philo- do (geology → geolog).
  rule('logi', 'log', (stem) => positiveMeasure(`${stem}l`)),
];

function step2(w: string): string {
  // NLTK `_step2`: -alli → -al is tried first, and what it gives goes through step 2 again.
  if (w.endsWith('alli')) {
    const stem = w.slice(0, -4);
    if (positiveMeasure(stem)) return step2(`${stem}al`);
  }
  return applyRules(w, STEP2);
}

const STEP3: readonly Rule[] = [
  rule('icate', 'ic', positiveMeasure),
  rule('ative', '', positiveMeasure),
  rule('alize', 'al', positiveMeasure),
  rule('iciti', 'ic', positiveMeasure),
  rule('ical', 'ic', positiveMeasure),
  rule('ful', '', positiveMeasure),
  rule('ness', '', positiveMeasure),
];

// Step 4 only removes suffixes. -ement comes before -ment and -ent, so the longest is tried first.
const STEP4: readonly Rule[] = [
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map((s) => rule(s, '', measureAboveOne)),
  // -ion goes only after s or t (adoption → adopt, but not onion).
  rule('ion', '', (stem) => measureAboveOne(stem) && /[st]$/.test(stem)),
  ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((s) => rule(s, '', measureAboveOne)),
];

// Step 5a tries both conditions on a final e, unlike the rule lists (probate → probat, cease → ceas).
function step5a(w: string): string {
  if (!w.endsWith('e')) return w;
  const stem = w.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : w;
}

// Step 5b: (m > 1 and *d and *L) → single letter (controll → control, roll stays).
function step5b(w: string): string {
  return w.endsWith('ll') && measure(w.slice(0, -1)) > 1 ? w.slice(0, -1) : w;
}
