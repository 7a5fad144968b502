import { describe, expect, it } from 'vitest';
import { porterStem } from '../../core/porter.js';
import { officialF1 } from '../../graders/exact.js';

// Expected stems are the output of NLTK 3.8's `PorterStemmer()` (default mode,
// NLTK_EXTENSIONS), which LoCoMo's evaluation.py uses, run once over these words.
const NLTK_STEMS: readonly (readonly [word: string, stem: string])[] = [
  ['ties', 'tie'], ['tie', 'tie'], ['possibly', 'possibl'], ['possible', 'possibl'], ['enjoyment', 'enjoy'],
  ['enjoy', 'enjoy'], ['dying', 'die'], ['die', 'die'], ['died', 'die'], ['hopefully', 'hope'],
  ['hopeful', 'hope'], ['proceeded', 'proceed'], ['proceed', 'proceed'], ['cried', 'cri'], ['cry', 'cri'],
  ['news', 'news'], ['skies', 'sky'], ['sky', 'sky'], ['innings', 'inning'], ['inning', 'inning'],
  ['outings', 'outing'], ['outing', 'outing'], ['cannings', 'canning'], ['canning', 'canning'],
  ['howe', 'howe'], ['exceed', 'exceed'], ['exceeded', 'exceed'], ['succeed', 'succeed'],
  ['succeeded', 'succeed'], ['lying', 'lie'], ['lied', 'lie'], ['tying', 'tie'], ['tied', 'tie'],
  ['try', 'tri'], ['tried', 'tri'], ['tries', 'tri'], ['spy', 'spi'], ['spied', 'spi'], ['spies', 'spi'],
  ['fly', 'fli'], ['flies', 'fli'], ['day', 'day'], ['days', 'day'], ['say', 'say'], ['says', 'say'],
  ['toy', 'toy'], ['toys', 'toy'], ['boy', 'boy'], ['boys', 'boy'], ['enjoyed', 'enjoy'],
  ['enjoying', 'enjoy'], ['happy', 'happi'], ['happiness', 'happi'], ['happily', 'happili'],
  ['geology', 'geolog'], ['geologist', 'geologist'], ['biology', 'biolog'], ['theology', 'theolog'],
  ['archaeology', 'archaeolog'], ['owing', 'owe'], ['owed', 'owe'], ['owe', 'owe'], ['dies', 'die'],
  ['lies', 'lie'], ['caresses', 'caress'], ['ponies', 'poni'], ['cats', 'cat'], ['feed', 'feed'],
  ['agreed', 'agre'], ['plastered', 'plaster'], ['bled', 'bled'], ['motoring', 'motor'], ['sing', 'sing'],
  ['hopping', 'hop'], ['tanned', 'tan'], ['falling', 'fall'], ['hissing', 'hiss'], ['fizzed', 'fizz'],
  ['failing', 'fail'], ['filing', 'file'], ['relational', 'relat'], ['conditional', 'condit'],
  ['rational', 'ration'], ['valency', 'valenc'], ['hesitancy', 'hesit'], ['digitizer', 'digit'],
  ['conformably', 'conform'], ['radically', 'radic'], ['differently', 'differ'], ['vilely', 'vile'],
  ['analogously', 'analog'], ['vietnamization', 'vietnam'], ['predication', 'predic'], ['operator', 'oper'],
  ['feudalism', 'feudal'], ['decisiveness', 'decis'], ['hopefulness', 'hope'], ['callousness', 'callous'],
  ['formality', 'formal'], ['sensitivity', 'sensit'], ['sensibility', 'sensibl'], ['triplicate', 'triplic'],
  ['formative', 'form'], ['formalize', 'formal'], ['electricity', 'electr'], ['electrical', 'electr'],
  ['goodness', 'good'], ['revival', 'reviv'], ['allowance', 'allow'], ['inference', 'infer'],
  ['airliner', 'airlin'], ['gyroscopic', 'gyroscop'], ['adjustable', 'adjust'], ['defensible', 'defens'],
  ['irritant', 'irrit'], ['replacement', 'replac'], ['adjustment', 'adjust'], ['dependent', 'depend'],
  ['adoption', 'adopt'], ['homologous', 'homolog'], ['communism', 'commun'], ['activate', 'activ'],
  ['angularity', 'angular'], ['effective', 'effect'], ['bowdlerize', 'bowdler'], ['probate', 'probat'],
  ['rate', 'rate'], ['cease', 'ceas'], ['controlling', 'control'], ['roll', 'roll'], ['running', 'run'],
  ['jumping', 'jump'], ['swimming', 'swim'], ['walked', 'walk'], ['talked', 'talk'], ['played', 'play'],
  ['playing', 'play'], ['stayed', 'stay'], ['studying', 'studi'], ['studied', 'studi'],
  ['studies', 'studi'], ['carried', 'carri'], ['carrying', 'carri'], ['worried', 'worri'],
  ['quickly', 'quickli'], ['slowly', 'slowli'], ['really', 'realli'], ['finally', 'final'],
  ['usually', 'usual'], ['family', 'famili'], ['families', 'famili'], ['early', 'earli'],
  ['easily', 'easili'], ['easy', 'easi'], ['easier', 'easier'], ['kindness', 'kind'], ['darkness', 'dark'],
  ['sadness', 'sad'], ['weakness', 'weak'], ['awareness', 'awar'], ['national', 'nation'],
  ['international', 'intern'], ['organizational', 'organiz'], ['educational', 'educ'],
  ['sensational', 'sensat'], ['operational', 'oper'], ['organizer', 'organ'], ['organization', 'organ'],
  ['realization', 'realiz'], ['generalization', 'gener'], ['generalizations', 'gener'],
  ['oscillators', 'oscil'], ['notably', 'notabl'], ['reasonably', 'reason'], ['capability', 'capabl'],
  ['responsibility', 'respons'], ['availability', 'avail'], ['beautiful', 'beauti'],
  ['beautifully', 'beauti'], ['carefully', 'care'], ['successfully', 'success'], ['wonderful', 'wonder'],
  ['meeting', 'meet'], ['meetings', 'meet'], ['mating', 'mate'], ['matting', 'mat'], ['milling', 'mill'],
  ['messing', 'mess'], ['disabled', 'disabl'], ['a', 'a'], ['an', 'an'], ['is', 'is'], ['as', 'as'],
  ['by', 'by'], ['be', 'be'], ['go', 'go'], ['do', 'do'], ['it', 'it'], ['to', 'to'], ['me', 'me'],
  ['my', 'my'], ['we', 'we'], ['us', 'us'], ['of', 'of'], ['on', 'on'], ['in', 'in'], ['at', 'at'],
  ['or', 'or'], ['up', 'up'], ['bus', 'bu'], ['gas', 'ga'], ['yes', 'ye'], ['his', 'hi'], ['was', 'wa'],
  ['has', 'ha'], ['this', 'thi'], ['plus', 'plu'], ['generously', 'gener'], ['dangerously', 'danger'],
  ['anxiously', 'anxious'], ['universe', 'univers'], ['university', 'univers'], ['universal', 'univers'],
  ['birthday', 'birthday'], ['holiday', 'holiday'], ['holidays', 'holiday'], ['monday', 'monday'],
  ['yesterday', 'yesterday'], ['today', 'today'], ['painting', 'paint'], ['paintings', 'paint'],
  ['painted', 'paint'], ['painter', 'painter'], ['painters', 'painter'], ['pottery', 'potteri'],
  ['photography', 'photographi'], ['photographs', 'photograph'], ['photographer', 'photograph'],
  ['hiking', 'hike'], ['camping', 'camp'], ['relaxing', 'relax'], ['relaxed', 'relax'],
  ['relaxation', 'relax'], ['volunteering', 'volunt'], ['volunteer', 'volunt'], ['volunteered', 'volunt'],
  ['adopted', 'adopt'], ['adopting', 'adopt'], ['adoptive', 'adopt'], ['conference', 'confer'],
  ['referenced', 'referenc'], ['argument', 'argument'], ['arguments', 'argument'],
  ['agreement', 'agreement'], ['emotional', 'emot'], ['emotion', 'emot'], ['emotions', 'emot'],
  ['traveling', 'travel'], ['travelled', 'travel'], ['travelling', 'travel'], ['traveled', 'travel'],
  ['married', 'marri'], ['marriage', 'marriag'], ['marry', 'marri'], ['buy', 'buy'], ['buying', 'buy'],
  ['bought', 'bought'], ['lovely', 'love'], ['loving', 'love'], ['loved', 'love'], ['lover', 'lover'],
  ['mississippi', 'mississippi'], ['syzygy', 'syzygi'], ['toying', 'toy'], ['employ', 'employ'],
  ['employment', 'employ'], ['abilities', 'abil'], ['ability', 'abil'], ['apology', 'apolog'],
  ['apologies', 'apolog'], ['sculpture', 'sculptur'], ['sculptures', 'sculptur'],
];

describe('porterStem matches NLTK\'s default PorterStemmer', () => {
  it('has a table large enough to cover every step', () => {
    expect(new Set(NLTK_STEMS.map(([w]) => w)).size).toBe(NLTK_STEMS.length);
    expect(NLTK_STEMS.length).toBeGreaterThanOrEqual(150);
  });

  it.each(NLTK_STEMS)('%s → %s', (word, stem) => expect(porterStem(word)).toBe(stem));
});

describe('porterStem where NLTK departs from the 1980 paper', () => {
  it.each([
    // irregular forms, looked up before any step
  ['skies', 'sky'], ['dying', 'die'], ['lying', 'lie'], ['tying', 'tie'], ['news', 'news'],
  ['innings', 'inning'], ['outings', 'outing'], ['cannings', 'canning'], ['howe', 'howe'],
  ['proceed', 'proceed'], ['exceed', 'exceed'], ['succeed', 'succeed'],
    // four-letter -ies / -ied → -ie; longer -ied → -i
  ['ties', 'tie'], ['died', 'die'], ['cried', 'cri'], ['spied', 'spi'],
    // y → i only after a consonant that is not the whole stem
  ['cry', 'cri'], ['happy', 'happi'], ['enjoy', 'enjoy'], ['day', 'day'], ['toy', 'toy'], ['by', 'by'],
    // a two-letter vowel + consonant stem counts as *o
  ['owing', 'owe'], ['owed', 'owe'],
    // step 2: -bli → -ble, -alli first, -fulli, -logi
  ['possibly', 'possibl'], ['radically', 'radic'], ['hopefully', 'hope'], ['geology', 'geolog'],
  ])('%s → %s', (word, stem) => expect(porterStem(word)).toBe(stem));
});

describe('officialF1 on pairs NLTK stems alike', () => {
  it.each([
  ['ties', 'tie', 1], ['possibly', 'possible', 1], ['enjoyment', 'enjoy', 1], ['dying', 'die', 1],
  ['hopefully', 'hopeful', 1], ['proceeded', 'proceed', 1], ['She cried', 'cry', 2 / 3],
  ] as const)('%j vs %j = %d', (prediction, gold, expected) => {
    expect(officialF1(prediction, gold)).toBeCloseTo(expected, 12);
  });
});
