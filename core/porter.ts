// The Porter (1980) suffix-stripping algorithm, written from M. F. Porter, "An algorithm
// for suffix stripping", Program 14(3). LoCoMo's token F1 stems every token with it, so our
// F1 is only comparable to published numbers when we stem the same way.
// Like Porter's own reference implementation, words of one or two letters are left alone.

/** Stem of one lower-case word by the Porter (1980) rules. */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  w = step4(w);
  return step5(w);
}

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

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** *d: ends with a double consonant. */
function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** *o: ends consonant-vowel-consonant, the last consonant not w, x or y. */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  if (!isConsonant(w, n - 3) || isConsonant(w, n - 2) || !isConsonant(w, n - 1)) return false;
  return !'wxy'.includes(w[n - 1]);
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  if (w.endsWith('ss')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith('eed')) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  for (const suffix of ['ed', 'ing']) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    return hasVowel(stem) ? tidyAfter1b(stem) : w;
  }
  return w;
}

// After -ed/-ing is removed: restore an e (hoped → hope), undouble (hopping → hop).
function tidyAfter1b(stem: string): string {
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w.slice(0, -1)) ? `${w.slice(0, -1)}i` : w;
}

type Rule = readonly [suffix: string, replacement: string];

const STEP2: Rule[] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'],
  ['abli', 'able'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'],
  ['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'],
  ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'],
];

const STEP3: Rule[] = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];

// Step 4 only removes suffixes; as rules (replacement '') it shares longestMatch, built once here rather than per word.
const STEP4: Rule[] = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent',
  'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize',
].map((s): Rule => [s, '']);

/** The longest matching suffix decides; when its condition (m > minMeasure) fails, no shorter one is tried. */
function replaceSuffix(w: string, rules: Rule[], minMeasure: number): string {
  const rule = longestMatch(w, rules);
  if (!rule) return w;
  const stem = w.slice(0, -rule[0].length);
  return measure(stem) > minMeasure ? stem + rule[1] : w;
}

function longestMatch(w: string, rules: Rule[]): Rule | undefined {
  let best: Rule | undefined;
  for (const rule of rules) if (w.endsWith(rule[0]) && (!best || rule[0].length > best[0].length)) best = rule;
  return best;
}

function step4(w: string): string {
  const rule = longestMatch(w, STEP4);
  if (!rule) return w;
  const stem = w.slice(0, -rule[0].length);
  if (measure(stem) <= 1) return w;
  // -ion goes only after s or t (adoption → adopt, but not onion).
  if (rule[0] === 'ion' && !/[st]$/.test(stem)) return w;
  return stem;
}

function step5(w: string): string {
  let out = w;
  if (out.endsWith('e')) {
    const stem = out.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) out = stem;
  }
  if (measure(out) > 1 && endsDoubleConsonant(out) && out.endsWith('l')) out = out.slice(0, -1);
  return out;
}
