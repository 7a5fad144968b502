// Word lists and the content-stem reduction the reader compares questions and context with.
import { isStopWord, normalizeText, stem } from '../../../core/text.js';
import { TextMemo } from './memo.js';

/**
 * Words a question uses to ask, not to name what it asks about ("What firmware version did I
 * *report*?"). They still count when the context has them, but their absence never makes the
 * reader abstain.
 */
const ASKING_WORDS = new Set(
  (
    'report reported give gave given share shared provide provided note noted put set pick picked choose chose chosen ' +
    'decide decided use using want wanted need needed ask asked call called find found keep kept make made go going ' +
    'come take took plan planned aim aiming end ended happen happened again exactly remind read back sorry quick ' +
    'check record records file filed currently current right point latest actually first last still sure'
  )
    .split(/\s+/)
    .map(stem),
);

// Abbreviations read as the word a question uses ("140 g" answers "how many grams", "Apt 5B" "which apartment").
const UNIT_WORDS: Record<string, string> = {
  apt: 'apartment', dept: 'department', acct: 'account', mgr: 'manager', qty: 'quantity', approx: 'approximately',
  g: 'gram', kg: 'kilogram', mg: 'milligram', lb: 'pound', lbs: 'pound', km: 'kilometre', mi: 'mile', m: 'metre',
  h: 'hour', hr: 'hour', hrs: 'hour', min: 'minute', mins: 'minute', sec: 'second', secs: 'second', ms: 'millisecond',
  gb: 'gigabyte', mb: 'megabyte', tb: 'terabyte', kb: 'kilobyte', usd: 'dollar', eur: 'euro', gbp: 'pound',
};

// Chat clippings and spellings read as the word ("my fave memory" for "favorite memory").
const CLIPPED_WORDS: Record<string, string> = {
  fav: 'favorite', fave: 'favorite', favs: 'favorites', faves: 'favorites', favourite: 'favorite', favourites: 'favorites',
  pic: 'picture', pics: 'pictures', bday: 'birthday', congrats: 'congratulations',
};

// Irregular past forms read as their verb: "did you see" finds "we saw", "what did she make"
// finds "I made". "left" stays itself: "the left knee" is no leaving.
const IRREGULAR_VERBS: Record<string, string> = Object.fromEntries(
  (
    'went:go gone:go made:make bought:buy brought:bring took:take taken:take gave:give given:give got:get gotten:get ' +
    'ran:run ate:eat eaten:eat wrote:write written:write told:tell said:say found:find felt:feel met:meet ' +
    'thought:think taught:teach sang:sing sung:sing drew:draw drawn:draw knew:know known:know began:begin begun:begin ' +
    'chose:choose chosen:choose won:win lost:lose spent:spend sent:send built:build kept:keep held:hold heard:hear ' +
    'paid:pay sold:sell saw:see seen:see became:become grew:grow grown:grow flew:fly flown:fly swam:swim swum:swim ' +
    'rode:ride ridden:ride wore:wear worn:wear broke:break broken:break spoke:speak spoken:speak fell:fall fallen:fall ' +
    'caught:catch fought:fight forgot:forget forgotten:forget hid:hide hidden:hide threw:throw thrown:throw woke:wake'
  )
    .split(' ')
    .map((pair) => pair.split(':')),
);

/** The written forms a stem may stand for beyond itself ("buy" → "bought", "favorit" → "fave"): where a matched word sits in a text. */
const FORMS = new Map<string, string[]>();
for (const [form, word] of Object.entries({ ...CLIPPED_WORDS, ...IRREGULAR_VERBS })) {
  const key = stem(word);
  FORMS.set(key, [...(FORMS.get(key) ?? []), form]);
}

export function writtenForms(stemmed: string): readonly string[] {
  return FORMS.get(stemmed) ?? [];
}

// Period adjectives stand for their period: "the weekly budget" is "$180 a week".
const PERIOD_WORDS: Record<string, string> = {
  hourly: 'hour', daily: 'day', nightly: 'night', weekly: 'week', monthly: 'month', quarterly: 'quarter', yearly: 'year', annual: 'year', annually: 'year',
};

/** Stems of the content words of a text (lower-cased, stop words removed). */
export function contentStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of normalizeText(text).split(' ')) {
    // "what's" is "what", "Brooks'" is "brooks", "isn't" is a stop word.
    const said = raw.replace(/'(?:s|re|ll|ve|d|m)?$/, '').replace(/n't$/, '');
    const word = CLIPPED_WORDS[said] ?? IRREGULAR_VERBS[said] ?? said;
    const period = PERIOD_WORDS[word];
    if (period) {
      out.add(stem(period));
      continue;
    }
    const unitWord = UNIT_WORDS[word];
    if (unitWord) out.add(stem(unitWord));
    if (word.length === 0 || isStopWord(word)) continue;
    if (word.length < 2 && !/\d/.test(word)) continue;
    out.add(stem(word));
    // `db-orders-16a` also matches "orders"; `kitchen-dining` matches "kitchen".
    if (/[-.:/()]/.test(word)) for (const part of word.split(/[-.:/()]+/)) if (part.length > 1 && !isStopWord(part)) out.add(stem(part));
  }
  return out;
}

/** The words of a schema name or key: `order_id`, `orderId` and `order-id` are "order id". */
export function nameWords(name: string): string {
  return name.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' ').toLowerCase();
}

export function isAskingWord(stemmed: string): boolean {
  return ASKING_WORDS.has(stemmed);
}

const memoStems = new TextMemo<ReadonlySet<string>>();

/** `contentStems` of a text that recurs across probes (a span, a speaker name), worked out once; never change the set. */
export function stemsOf(text: string): ReadonlySet<string> {
  return memoStems.get(text, () => contentStems(text));
}
