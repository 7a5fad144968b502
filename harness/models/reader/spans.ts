// Typed spans for the offline reader. A question asks for a value of some type ("which
// host" → a host, "how many guests" → a quantity); the reader answers with the span of a
// sentence whose type fits. No model: each recogniser below proposes candidate spans with
// a regular expression, and one resolver keeps the longest non-overlapping ones (the more
// specific type on a tie). Dates are recognised only to block them — another module
// answers "when" — so "May 8" never reads as the number 8 and "in 2026" never as a count.
// Keyed values (JSON fields, key=value pairs, "key: value" records) carry their key as a
// label, so the reader can match "return window" in a question to `return_window_days`.
//
// Everything runs on every context sentence of every probe: the expressions are compiled
// once at load, each is one linear scan, and the resolver is a sort plus an occupancy map.

export type SpanType =
  | 'money'
  | 'percent'
  | 'quantity'
  | 'number'
  | 'time'
  | 'identifier'
  | 'host'
  | 'version'
  | 'email'
  | 'phone'
  | 'url'
  | 'name'
  | 'weekday'
  | 'currency'
  | 'platform'
  | 'diet';

export interface Span {
  type: SpanType;
  text: string;
  /** Character offsets in the text searched. */
  start: number;
  end: number;
  /** Numeric value of a number, money, percent or quantity (the lower end of a range). */
  value?: number;
  /** The unit as written ("kg", "guests", "$", "%"); for a JSON number, the unit its key names. */
  unit?: string;
  /** The key a value sits under (`"order": "BC-4471829"`, `order: …`) or the label before a code (`MRN 00482917`). */
  label?: string;
}

// Internal only: dates and ordinals block the spans they cover, then are dropped.
type CandidateType = SpanType | 'date' | 'ordinal';

interface Candidate {
  type: CandidateType;
  start: number;
  end: number;
  value?: number;
  unit?: string;
  label?: string;
}

type Out = Candidate[];

/** Tie-break between equally long candidates: lower wins. Blocks first, then the more specific type. */
const PRIORITY: Record<CandidateType, number> = {
  date: 0,
  ordinal: 1,
  url: 2,
  email: 3,
  money: 4,
  percent: 5,
  time: 6,
  phone: 7,
  quantity: 8,
  version: 9,
  host: 10,
  identifier: 11,
  weekday: 12,
  currency: 13,
  platform: 14,
  diet: 15,
  name: 16,
  number: 17,
};

// ---------------------------------------------------------------------------
// Word lists

const words = (s: string): string[] => s.trim().split(/\s+/);
const wordSet = (s: string): Set<string> => new Set(words(s));

const SMALL_NUMBERS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
const SCALE_WORDS: Record<string, number> = { hundred: 100, thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
const NUMBER_WORDS = [...Object.keys(SMALL_NUMBERS), ...Object.keys(SCALE_WORDS), 'dozen'];

/** Units a number may carry even in the singular ("20 minute walk", "5 kg", "one day"). Case matters for the short ones. */
const KNOWN_UNITS = wordSet(`
  mg g kg lb lbs oz ton tons tonne tonnes gram grams kilogram kilograms kilo kilos pound pounds ounce ounces stone
  mm cm m km mi ft foot feet inch inches yd yard yards mile miles meter meters metre metres kilometer kilometers kilometre kilometres
  ml mL l L liter liters litre litres gal gallon gallons cup cups tbsp tsp tablespoon tablespoons teaspoon teaspoons pint pints quart quarts
  ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day days night nights week weeks wk wks
  month months mo mos year years yr yrs decade decades
  B KB kB MB GB TB PB KiB MiB GiB TiB byte bytes bit bits kbps Mbps Gbps MB/s GB/s
  Hz kHz MHz GHz W kW kWh Wh mWh MW V mAh mA rpm mph kph km/h knots psi ° °C °F degree degrees
  cal kcal calorie calories step steps rep reps set sets serving servings piece pieces slice slices
  px pt dpi fps person people guest guests room rooms time times item items unit units
`);

/** Units written straight after the digits ("80.6kg", "1.9GB", "36h"); longest first so "kWh" beats "kW". */
const ATTACHED_UNITS = words(`
  mg g kg lb lbs oz mm cm m km mi ft yd ml mL l L gal ms s sec secs min mins h hr hrs d wk wks mo yr yrs
  KB kB MB GB TB PB KiB MiB GiB TiB Ki Mi Gi Ti kbps Mbps Gbps MB/s GB/s Hz kHz MHz GHz W kW kWh Wh mWh MW V mAh mA
  rpm mph kph °C °F ° cal kcal px pt dpi fps
`).sort((a, b) => b.length - a.length);

/** Plurals that do not end in -s. */
const IRREGULAR_PLURALS = wordSet('people children men women feet teeth mice geese sheep fish deer staff crew cattle personnel');

/** Function words: never a unit and never a list item. */
const FUNCTION_WORDS = wordSet(`
  a an the and or but nor if then than so as of to in on at by for from with into onto over under about after before
  during until since per via plus minus is are was were be been being am do does did have has had will would shall should
  can could may might must i me my we us our you your he him his she her it its they them their this that these those
  there here what which who whom whose when where why how all any both each every some no not only own same such very too
  more most less least few many much other another else also just even still yet again ever never always often sometimes
  perhaps towards besides nowadays afterwards unless thus whereas across yes yours ours theirs hers regardless nevertheless
  ago later earlier now today tonight tomorrow yesterday up down out off through around between within without upon
  against among above below near
`);

/** Verbs that end in -s: after a number they are the sentence's verb, not a plural unit ("BC-4472310 arrives"). */
const VERBS_S = wordSet(`
  arrives ships needs suggests takes goes works costs means says seems looks makes gets starts ends comes leaves remains
  stays includes requires covers holds contains matches fails passes expires opens closes shows lands departs is has does
  applies lasts happens begins finishes owns wants uses
`);

/** Words a middle slot of "3 new laptops" may hold though they are function words. */
const MIDDLE_OK = wordSet('more extra additional other');

/** Capitalised words that are never names, wherever they stand. */
const NEVER_NAME = new Set([
  ...words('thanks thank hi hello hey yes yeah yep yup nope ok okay sure sorry please wow oh ah uh um hmm lol haha cheers bye goodbye congrats congratulations'),
  ...NUMBER_WORDS,
  ...words('monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays mon tue tues wed weds thu thur thurs fri sat sun'),
  ...words('hz mbps gbps kbps kb mb gb tb kwh mah wi-fi apt'),
  // Pronouns and determiners, capitalised after an abbreviation or in a title ("No. We must…").
  ...words('i we you he she it they me us him her them my our your his its their this that these those the a an'),
  ...words('there here what which who whom whose when where why how someone everyone anyone nobody somebody everybody anybody'),
]);

/** Months: a name made of them alone is a date word ("May", "June"), not a person. */
const MONTH_WORDS = wordSet('january february march april may june july august september october november december feb apr aug sep sept oct nov dec');

/** Verbs that open imperatives and chat sentences ("Check …", "Sounds good"); they also end list items. */
const SENTENCE_VERBS = wordSet(`
  add added ask avoid book bring buy call cancel change check choose compare confirm consider continue create delete double drop
  email enable disable ensure find fix follow get give go grab help hold include keep let lets list look make mark move note
  open order pay pick plan put read remember remind remove repeat replace reply reset restart review run save schedule see send
  set share show sign skip sounds looks seems feels start stop switch take tell think try turn update upgrade use verify wait
  want watch write going looking thinking getting trying hoping planning working wondering feeling love like hope guess wish
  need makes made went came had have got prefer eat eats ate
`);

/**
 * Ordinary words that start sentences capitalised ("Thanks", "Great", "Also", "Check …").
 * Only a sentence-initial word is tested against it: mid-sentence capitals are names.
 */
const SENTENCE_WORDS = new Set([
  ...FUNCTION_WORDS,
  ...SENTENCE_VERBS,
  ...words(`
    great good nice cool awesome perfect wonderful amazing fantastic excellent lovely beautiful brilliant sweet super glad happy
    sad fine right alright agreed absolutely definitely exactly totally indeed true false correct done noted understood
    well anyway anyways otherwise however meanwhile instead next last first second third finally later soon currently
    recently once maybe probably actually really honestly basically almost quite rather pretty mostly overall unfortunately
    luckily hopefully apparently obviously clearly sadly seriously surprisingly thankfully fortunately usually normally
    quick small big little hard easy important interesting funny crazy busy tired long short full careful
    empty different new old main key whole
    summary reminder warning error status result results answer question edit tip example step output input total fyi ps context
    goal todo action issue problem solution option options recap agenda details info notes source target reason cause impact
    owner date location subject re hint name dear welcome merry
  `),
]);

/** Verbs that, after a lone capitalised word at the start of a sentence, show it is a person ("Kenji approved it"). */
const PERSON_VERBS = wordSet(`
  said says told tells asked asks wants wanted thinks thought called calls emailed texted messaged mentioned suggested
  recommended prefers preferred loves loved likes liked hates hated went visited joined approved signed agreed replied
  wrote writes decided plans planned lives lived worked bought took gave met meets booked
  ordered paid sent sends shared arrived left moved married adopted ran teaches taught helped helps knows knew feels felt
  needed lost got had found made came saw won began kept spent became brought built caught chose drove fell flew forgot
  grew heard held led rode sang sat slept sold spoke stood swam threw wore
`);

/** Names ending like verbs or adverbs (-ed, -ly), so the sentence-start morphology rule spares them. */
const NAME_EXCEPTIONS = wordSet('mohamed mohammed muhammed ahmed hamed javed sayed zayed jared mildred winifred alfred beverly kimberly');

const TITLES = wordSet('Mr Mrs Ms Mx Dr Rev Prof Fr Capt Gen Col Lt Sgt Hon Sen Rep Gov Sir Dame Lady Lord Coach Judge Officer Aunt Uncle Saint St Pastor');
const NAME_SUFFIXES = wordSet('Co Inc Ltd LLC Corp Jr Sr II III IV PLC GmbH Bros LLP');
const NAME_CONNECTORS = wordSet('of de van von der den del della la le du di da dos das bin al el');
/** Abbreviations whose dot does not end a sentence. */
const ABBREVIATIONS = new Set([...TITLES, ...NAME_SUFFIXES, ...words('Vol Fig Mt Ave Apt vs approx')]);

const CURRENCY_CODES = 'USD|EUR|GBP|CAD|AUD|NZD|JPY|CNY|INR|CHF|SEK|NOK|DKK|MXN|BRL|ZAR|SGD|HKD|KRW|PLN|CZK|HUF|TRY|ILS|AED|SAR|RUB';
const CURRENCY_WORDS = 'dollars?|bucks|euros?|cents?|pence|yen|yuan|rupees?|pesos?|quid|francs?|kronor|kroner|reais|rand';
/** Words before a bare number that make it an amount of money ("total 129.99", "price: 129.99"). */
const MONEY_HINTS = 'price|prices|priced|amount|total|totals|totaled|totalled|cost|costs|fee|fees|subtotal|charge|charged|paid|refund|refunded|balance|owed|spent|budget|salary|rent|deposit|tip';
/** Words a code follows ("order 4417", "ticket #4417"): the label of the code. */
const ID_LABELS =
  'order|ticket|case|invoice|claim|policy|account|acct|booking|confirmation|reservation|tracking|reference|ref|member|membership|' +
  'customer|patient|employee|serial|badge|transaction|request|incident|issue|job|build|pr|po|sku|model|part|license|record|' +
  'batch|lot|shipment|package|parcel|return|rma|mrn|id';
const TLDS = 'com|net|org|io|dev|app|ai|co|uk|de|fr|nl|ca|au|jp|eu|tv|info|biz|cloud|local|internal|lan|corp|intra|svc|cluster|test|example|localdomain|home|arpa|gov|edu|xyz|tech|site|online|ch|se|dk|fi|es|pl|br|mx|cn|kr|sg|nz|ie';
/** First parts of lower-case hyphenated words that are English, not host names ("mid-2020", "top-10", "covid-19"). */
const NOT_HOST_PREFIX = wordSet('sub mid pre post late early top type day week level grade size phase step stage part room floor gate round covid class year month version non over under');
const FILE_EXTENSIONS = 'sql|ya?ml|json|csv|tsv|txt|log|md|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|zip|tar|gz|tgz|py|js|mjs|ts|tsx|jsx|sh|rb|rs|java|conf|cfg|ini|toml|xml|html?|css|env|lock|bak|dump|pem|crt|iso|dmg|exe|apk|mp3|mp4|mov|wav';
const VERSION_KEYWORDS =
  'version|ver|firmware|release|patch|kernel|bios|driver|postgres(?:ql)?|mysql|mariadb|redis|mongodb|python|node(?:\\.?js)?|npm|java|jdk|' +
  'ruby|rails|php|perl|golang|rust|dotnet|ios|ipados|android|macos|windows|ubuntu|debian|centos|rhel|fedora|chrome|firefox|safari|' +
  'kubernetes|k8s|docker|terraform|django|react|angular|vue|typescript|nginx|apache|openssl|tls|sdk|elasticsearch|kafka|spark|excel';

// ---------------------------------------------------------------------------
// Expression parts

/** "1,140", "48213496", "80.6". */
const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
/** Number words, capitalised or not, as an alternation. */
const NUM_WORD = NUMBER_WORDS.map((w) => `[${w[0].toUpperCase()}${w[0]}]${w.slice(1)}`).join('|');
/** "five", "twenty-five", "two hundred", "a dozen"; at most five words, so a run of them costs linear time. */
const NUM_WORDS = String.raw`(?:[Aa]\s+(?=(?:hundred|thousand|dozen|million)\b))?(?:${NUM_WORD})(?:(?:\s|-)(?:${NUM_WORD})){0,4}\b`;
/** "k", "M", " million" after an amount. */
const MAGNITUDE = String.raw`(?:\s?(?:million|billion|trillion|thousand|mn|bn)\b|[kKmMbB](?![\p{L}\p{N}]))`;

const MONTH = String.raw`(?:January|February|March|April|May|June|July|August|September|October|November|December|january|february|april|june|july|august|september|october|november|december|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?)(?![\p{L}])`;
const DAY = String.raw`(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?![\p{L}\p{N}])`;
const YEAR = String.raw`(?:1[89]\d{2}|2[01]\d{2})(?![\p{N}])`;
const ZONE = String.raw`(?:\s(?:UTC|GMT|[A-Z]{2,4}T|(?:Pacific|Eastern|Central|Mountain|Atlantic)(?: (?:time|Time))?)\b|Z\b)`;

const re = (source: string, flags = 'gu'): RegExp => new RegExp(source, flags);

const DATE_RES: RegExp[] = [
  re(String.raw`(?<![\p{L}\p{N}_-])\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\p{N}])`),
  re(String.raw`(?<![\p{N}/.-])\d{4}/\d{1,2}/\d{1,2}(?![\p{N}/])`),
  re(String.raw`(?<![\p{N}/.-])\d{1,2}[/.-]\d{1,2}[/.-]\d{4}(?![\p{N}])`),
  re(String.raw`(?<![\p{N}/.-])\d{1,2}/\d{1,2}/\d{2}(?![\p{N}/])`),
  re(String.raw`(?<![\p{L}])${MONTH}\s+${DAY}(?!:)(?:\s?[-–]\s?${DAY})?(?:,?\s+${YEAR})?`),
  re(String.raw`(?<![\p{N}.,:$])${DAY}\s+(?:of\s+)?${MONTH}(?:,?\s+${YEAR})?`),
  re(String.raw`(?<![\p{L}])${MONTH},?\s+(?:of\s+)?${YEAR}`),
  re(String.raw`(?<=\b(?:in|since|by|of|until|till|from|during|before|after|through|to|year|circa|around|early|late|mid|spring|summer|fall|autumn|winter)[\s-])${YEAR}(?![.,]\p{N})`, 'giu'),
  re(String.raw`(?<![\p{L}\p{N}_-])${YEAR}\s?[-–/]\s?(?:1[89]\d{2}|2[01]\d{2}|\d{2})(?![\p{N}-])`),
  re(String.raw`(?<![\p{L}\p{N}])(?:1[89]|20)\d0s\b|(?<=\bthe\s|['’])\d0s\b`),
  re(String.raw`\b(?:Q[1-4]|H[12])(?:\s+${YEAR}|\s?['’]\d{2})?\b|\bFY\s?(?:\d{4}|\d{2})\b`),
];
const ORDINAL_RE = re(String.raw`(?<![\p{L}\p{N}.])\d+(?:st|nd|rd|th)\b`);

const URL_RE = re(String.raw`\b(?:https?|ftp)://[^\s<>"'\x60]+|\bwww\.[^\s<>"'\x60]+`);
const EMAIL_RE = re(String.raw`(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`);

const MONEY_RES: RegExp[] = [
  re(String.raw`(?<![\p{L}\p{N}])-?(?:[A-Z]{1,2}\$|[$€£¥₹₩₽])\s?${NUM}${MAGNITUDE}?`),
  re(String.raw`\b(?:${CURRENCY_CODES})\s?-?${NUM}${MAGNITUDE}?`),
  re(String.raw`(?<![\p{L}\p{N}.,])${NUM}${MAGNITUDE}?\s?(?:${CURRENCY_CODES})\b`),
  re(String.raw`(?<![\p{L}\p{N}.,])(?:${NUM}|${NUM_WORDS})(?:\s(?:million|billion|thousand)|[kK])?\s(?:${CURRENCY_WORDS})\b`),
];
const MONEY_HINT_RE = re(String.raw`\b(?:${MONEY_HINTS})\b(?:\s*[:=]\s*|\s+(?:is|was|of|at|comes to|came to|will be|would be|be)\s+|\s+)(${NUM})(?![\p{N}])`, 'giud');
const CURRENCY_ANY_RE = re(String.raw`[$€£¥₹₩₽]|\b(?:${CURRENCY_CODES}|${CURRENCY_WORDS})\b`, 'iu');

const PERCENT_RE = re(String.raw`(?<![\p{L}\p{N}.,])(?:${NUM}(?:\s?[-–]\s?${NUM})?|${NUM_WORDS})\s?(?:%|[Pp]ercent\b|[Pp]er cent\b|pct\b)`);

const TIME_RES: RegExp[] = [
  re(String.raw`(?<![\p{L}\p{N}:.])\d{1,2}:\d{2}(?::\d{2})?(?![\p{N}]|:\p{N})(?:\s?(?:[AaPp]\.[Mm]\.|[AaPp][Mm](?![\p{L}])))?${ZONE}?`),
  re(String.raw`(?<![\p{L}\p{N}:.,])\d{1,2}(?:[.:]\d{2})?\s?(?:[AaPp]\.[Mm]\.|[AaPp][Mm](?![\p{L}]))${ZONE}?`),
  re(String.raw`\b(?:noon|midnight|midday)\b|\b\d{1,2}\s?o['’]clock\b`, 'giu'),
];

const PHONE_RES: RegExp[] = [
  re(String.raw`(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}(?![\w])`),
  re(String.raw`(?<![\w(])\(\d{3}\)\s?\d{3}[-.\s]\d{4}(?![\w])`),
  re(String.raw`(?<![\w.-])\d{3}[-.]\d{3}[-.]\d{4}(?![\w-]|\.\d)`),
];
/** "555-0134": a phone only near a word that says so; otherwise a range or a code. */
const SHORT_PHONE_RE = re(String.raw`(?<![\w.-])\d{3}-\d{4}(?![\w-]|\.\d)`);
const PHONE_CUE_RE = /\b(?:phone|call|text|tel|mobile|cell|fax|number|reach|contact|dial)\b/i;

const VERSION_RES: RegExp[] = [
  re(String.raw`(?<![\p{L}\p{N}_.-])[vV]\d+(?:\.\d+)*(?:-[0-9A-Za-z.]+)?(?![\p{L}\p{N}_]|\.\p{N})`),
  re(String.raw`(?<![\p{L}\p{N}_.-])\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?(?![\p{N}]|\.\p{N})`),
];
/** "PostgreSQL 16.2", "Firmware 2.3", "version 2", "firmware from 2.1": the version after its keyword. */
const VERSION_KEYWORD_RE = re(
  // Each gap item owns the spaces before it, so there is one way to read a gap (no backtracking blow-up).
  String.raw`\b(?:${VERSION_KEYWORDS})\b(?:\s*[:=]|\s+(?:version|ver\.?|to|from|is|was|now|on|at|running|currently)\b){0,4}\s*v?(\d+(?:\.\d+)*)(?![\p{L}\p{N}]|\.\p{N})`,
  'giud',
);
/** "… from 2.1 to 2.3": a second version joined to the first. */
const VERSION_NEXT_RE = re(String.raw`\s+(?:to|->|→|and|or|,)\s+v?(\d+(?:\.\d+)+)(?![\p{L}\p{N}]|\.\p{N})`, 'yud');

const HOST_RES: RegExp[] = [
  re(String.raw`(?<![\p{L}\p{N}_.@/-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:${TLDS})(?::\d{1,5})?(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}])`),
  re(String.raw`\blocalhost(?::\d{1,5})?\b`),
];
const IPV4_RE = re(String.raw`(?<![\p{N}.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?:/\d{1,2})?(?![\p{N}]|\.\p{N})`);
/** Lower-case words joined by - or . ("db-orders-16a", "pgbouncer-2"); kept only with a digit. */
const HOST_WORD_RE = re(String.raw`(?<![\p{L}\p{N}_.@/-])[a-z][a-z0-9]*(?:[-.][a-z0-9]+)+(?::\d{1,5})?(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}])`);

const IDENTIFIER_RES: RegExp[] = [
  // Snake-case names of tables, slots, files without extension: "mig_orders_16".
  re(String.raw`(?<![\w.-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w-])`),
  // "#4417"
  re(String.raw`(?<![\w#&])#(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]+(?![\w-])`),
  // File names: "count_compare.sql", "report.pdf".
  re(String.raw`(?<![\w./-])[\w-]+(?:\.[\w-]+)*\.(?:${FILE_EXTENSIONS})(?![\w-]|\.\w)`, 'giu'),
];
/** Upper-case codes joined by - or /: "RMA-66120", "FL-LT-2291", "3A/7F2E1F50". */
const JOINED_CODE_RE = re(String.raw`(?<![\w.-])[A-Z0-9]+(?:[-/][A-Z0-9]+)+(?![\w-]|\.\w)`);
/** Upper-case letters and digits in one word: "AX3000", "PF4X9K40". */
// A commit hash ("9f3c2ab", "e41b7d0"): lower-case hex of 7 to 40 characters with a digit and a letter.
const HEX_HASH_RE = /(?<![\p{L}\p{N}_.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\p{L}\p{N}_-])/gu;
const ALNUM_CODE_RE = re(String.raw`(?<![\w.-])(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)[A-Z0-9]{2,}(?![\w-]|\.\w)`);
/** "MRN 00482917": a capitalised label and a digit code; the code is the span, the label its label. */
const LABELLED_CODE_RE = re(String.raw`(?<![\w-])([A-Z]{2,6})\s*(?:#|:|No\.?)?\s*(\d[\d-]*\d)(?![\w-]|\.\d)`, 'gud');
/** "order 4417", "ticket number: 20931": a code after the word naming it. */
const WORD_LABELLED_CODE_RE = re(String.raw`\b(${ID_LABELS})\b\s*(?:(number|no\.?|num|id|#)\s*)?([:#])?\s*(\d[\d-]*\d|\d)(?![\w-]|\.\d)`, 'giud');
/** "VAT number GB 293 1847 22": a code written in spaced groups after "number", "no." or "id". */
const SPACED_CODE_RE = re(String.raw`\b([\p{L}]+ )?(?:number|no\.?|id)\s*[:#]?\s*((?:[A-Z]{1,3} )?\d{2,}(?: \d{2,}){1,4})(?![\w-]|\.\d)`, 'giud');
/** The label word just before a code, for codes found another way ("ticket #4417"). */
const LABEL_BEFORE_RE = re(String.raw`(?:^|[^\p{L}])(${ID_LABELS})\s*(?:number|no\.?|num|id)?\s*[:#]?\s*$`, 'iu');
const NOT_CODE_LABELS = new Set([...CURRENCY_CODES.split('|'), ...words('UTC GMT KB MB GB TB PB AM PM FY')]);

const WEEKDAY_RE = re(
  String.raw`\b(?:[Mm]on|[Tt]ues?|[Ww]ed(?:nes)?|[Tt]hu(?:rs?)?|[Ff]ri|[Ss]at(?:ur)?|[Ss]un)days?\b|\b(?:Mon|Tue|Tues|Wed|Weds|Thu|Thur|Thurs|Fri|Sat|Sun)\b`,
);

/**
 * A currency named without an amount ("report every amount in EUR", "paid in euros"): the
 * answer to "which currency". "cents", "pence", "bucks" and "quid" are amounts of one, not
 * currencies; "rand" and "real" are left out, being a surname and a common word.
 */
const CURRENCY_RE = re(String.raw`\b(?:${CURRENCY_CODES})\b(?![\p{N}])|\b(?:[Dd]ollars?|[Ee]uros?|[Pp]ounds? sterling|[Yy]en|[Yy]uan|[Rr]upees?|[Pp]esos?|(?:Swiss )?[Ff]rancs?|[Kk]ronor|[Kk]roner|[Rr]eais)\b`);

/**
 * An operating system or a web browser by name ("Windows 10", "macOS", "Chrome"; a version
 * after it stays a version of its own, "iOS 17"): what "which operating system" or "what
 * browser" asks for, where the kind
 * itself is rarely said beside the name. Browsers named by a common word (Edge, Opera, Brave)
 * are left out: "Edge cases" and "the opera" are no browsers.
 */
const PLATFORM_RE = re(
  String.raw`\b(?:Windows(?: (?:\d{1,2}|XP|Vista|Server(?: \d{4})?))?|mac ?OS(?: X)?|OS X|Linux|Ubuntu|Debian|Fedora|CentOS|Red Hat|Android|iOS|iPadOS|Chrome ?OS|Chrome|Firefox|Safari|Microsoft Edge)\b`,
);

/** A diet by name ("pescatarian", "strictly gluten-free"): what "what diet" asks for. */
const DIET_RE = re(
  String.raw`\b(?:strictly )?(?:vegetarian|vegan|pescatarian|flexitarian|gluten-free|dairy-free|lactose-free|nut-free|egg-free|sugar-free|keto|ketogenic|paleo|halal|kosher|low-carb|low-sodium|low-fat|low-FODMAP)\b`,
  'giu',
);

/** A number at a word start: digits (with a magnitude) or number words. */
const NUM_HEAD_RE = re(
  String.raw`(?<![\p{L}\p{N}_.:/#@$€£¥₹\\]|[\p{L}\p{N}]-)(?:(${NUM})(?:[kK]|M(?![\p{L}\p{N}])|\s(?:million|billion|thousand|trillion)\b)?|(?<![\p{L}])(${NUM_WORDS}))`,
);
const ATTACHED_UNIT_RE = re(`(?:${ATTACHED_UNITS.map(escapeRe).join('|')})(?![\\p{L}\\p{N}])`, 'yu');
const HYPHEN_UNIT_RE = re(String.raw`-([a-z]{2,})(?![\p{L}\p{N}])`, 'yu');
const SPACED_WORD_RE = re(String.raw`[ \u00a0](°[CF]?|\p{L}[\p{L}/]*)`, 'yu');
const RANGE_TAIL_RE = re(String.raw`\s?[-–]\s?${NUM}|\s(?:to|or)\s${NUM}`, 'yu');

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// ---------------------------------------------------------------------------
// Scanning helpers

function* eachMatch(pattern: RegExp, s: string): Generator<RegExpExecArray> {
  pattern.lastIndex = 0;
  for (let m = pattern.exec(s); m !== null; m = pattern.exec(s)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    yield m;
  }
}

function add(out: Out, type: CandidateType, start: number, end: number, extra?: Omit<Candidate, 'type' | 'start' | 'end'>): void {
  if (end > start) out.push({ type, start, end, ...extra });
}

/** Adds every match of the expressions as `type`. */
function addAll(out: Out, s: string, patterns: RegExp[], type: CandidateType): void {
  for (const p of patterns) for (const m of eachMatch(p, s)) add(out, type, m.index, m.index + m[0].length);
}

/** A span's number, money or percent fields from its text. */
function withValue(out: Out, type: CandidateType, s: string, start: number, end: number, unit?: string): void {
  add(out, type, start, end, { value: parseNumber(s.slice(start, end)), unit });
}

// ---------------------------------------------------------------------------
// Recognisers

function dates(s: string, out: Out): void {
  addAll(out, s, DATE_RES, 'date');
  addAll(out, s, [ORDINAL_RE], 'ordinal');
}

function links(s: string, out: Out): void {
  for (const m of eachMatch(URL_RE, s)) add(out, 'url', m.index, m.index + m[0].replace(/[.,;:!?)\]}'"]+$/, '').length);
  for (const m of eachMatch(EMAIL_RE, s)) add(out, 'email', m.index, m.index + m[0].replace(/[.-]+$/, '').length);
}

function money(s: string, out: Out): void {
  for (const p of MONEY_RES) {
    for (const m of eachMatch(p, s)) withValue(out, 'money', s, m.index, m.index + m[0].length, currencyOf(m[0]));
  }
  for (const m of eachMatch(MONEY_HINT_RE, s)) {
    const at = m.indices?.[1];
    if (at) add(out, 'money', at[0], at[1], { value: parseNumber(m[1]) });
  }
}

function currencyOf(text: string): string | undefined {
  return /[A-Z]{1,2}\$|[$€£¥₹₩₽]|\b[A-Z]{3}\b|\b\p{L}+$/u.exec(text)?.[0];
}

function percents(s: string, out: Out): void {
  for (const m of eachMatch(PERCENT_RE, s)) {
    const unit = /%|[Pp]er ?cent|pct/.exec(m[0])?.[0];
    withValue(out, 'percent', s, m.index, m.index + m[0].length, unit);
  }
}

function times(s: string, out: Out): void {
  addAll(out, s, TIME_RES, 'time');
}

function phones(s: string, out: Out): void {
  for (const p of PHONE_RES) {
    for (const m of eachMatch(p, s)) {
      const digits = m[0].replace(/\D/g, '').length;
      if (digits >= 7 && digits <= 15) add(out, 'phone', m.index, m.index + m[0].length);
    }
  }
  for (const m of eachMatch(SHORT_PHONE_RE, s)) {
    if (PHONE_CUE_RE.test(s.slice(Math.max(0, m.index - 30), m.index))) add(out, 'phone', m.index, m.index + m[0].length);
  }
}

function versions(s: string, out: Out): void {
  addAll(out, s, VERSION_RES, 'version');
  for (const m of eachMatch(VERSION_KEYWORD_RE, s)) {
    const at = m.indices?.[1];
    if (!at) continue;
    add(out, 'version', at[0], at[1]);
    // Follow "from 2.1 to 2.3" along.
    let end = at[1];
    for (VERSION_NEXT_RE.lastIndex = end; ; VERSION_NEXT_RE.lastIndex = end) {
      const next = VERSION_NEXT_RE.exec(s);
      const nextAt = next?.indices?.[1];
      if (!nextAt) break;
      add(out, 'version', nextAt[0], nextAt[1]);
      end = nextAt[1];
    }
  }
}

function hosts(s: string, out: Out): void {
  addAll(out, s, HOST_RES, 'host');
  for (const m of eachMatch(IPV4_RE, s)) {
    if (m[0].split(/[.:/]/, 4).every((octet) => Number(octet) <= 255)) add(out, 'host', m.index, m.index + m[0].length);
  }
  for (const m of eachMatch(HOST_WORD_RE, s)) if (isHostWord(m[0])) add(out, 'host', m.index, m.index + m[0].length);
}

function isHostWord(word: string): boolean {
  const name = word.replace(/:\d+$/, '');
  const first = name.split(/[-.]/, 1)[0];
  return /\d/.test(name) && !/^v\d/.test(name) && first.length >= 2 && !NOT_HOST_PREFIX.has(first);
}

function identifiers(s: string, out: Out): void {
  addAll(out, s, IDENTIFIER_RES, 'identifier');
  for (const m of eachMatch(JOINED_CODE_RE, s)) if (isJoinedCode(m[0])) add(out, 'identifier', m.index, m.index + m[0].length);
  // "5K", "10M": an amount with its magnitude, read by the number scan.
  for (const m of eachMatch(ALNUM_CODE_RE, s)) if (!/^\d+[KM]$/.test(m[0])) add(out, 'identifier', m.index, m.index + m[0].length);
  for (const m of eachMatch(HEX_HASH_RE, s)) add(out, 'identifier', m.index, m.index + m[0].length);
  for (const m of eachMatch(LABELLED_CODE_RE, s)) {
    const at = m.indices?.[2];
    if (at && !NOT_CODE_LABELS.has(m[1]) && m[2].replace(/-/g, '').length >= 4) add(out, 'identifier', at[0], at[1], { label: m[1] });
  }
  for (const m of eachMatch(SPACED_CODE_RE, s)) {
    const at = m.indices?.[2];
    if (at) add(out, 'identifier', at[0], at[1], m[1] ? { label: m[1].trim() } : {});
  }
  for (const m of eachMatch(WORD_LABELLED_CODE_RE, s)) {
    const at = m.indices?.[4];
    const marked = m[2] !== undefined || m[3] !== undefined;
    const digits = m[4].replace(/-/g, '').length;
    if (at && ((marked && digits >= 2) || digits >= 4)) add(out, 'identifier', at[0], at[1], { label: m[1] });
  }
}

/** A joined code has letters, and digits too unless it is dash-joined capitals of two letters or more ("FL-LT"). */
function isJoinedCode(code: string): boolean {
  if (!/[A-Z]/.test(code)) return false;
  if (/\d/.test(code)) return true;
  return !code.includes('/') && code.split('-').every((part) => part.length >= 2);
}

function currencies(s: string, out: Out): void {
  for (const m of eachMatch(CURRENCY_RE, s)) add(out, 'currency', m.index, m.index + m[0].length);
}

function diets(s: string, out: Out): void {
  for (const m of eachMatch(DIET_RE, s)) add(out, 'diet', m.index, m.index + m[0].length);
}

function platforms(s: string, out: Out): void {
  for (const m of eachMatch(PLATFORM_RE, s)) add(out, 'platform', m.index, m.index + m[0].length);
}

function weekdays(s: string, out: Out): void {
  for (const m of eachMatch(WEEKDAY_RE, s)) {
    // "the Sun" is the star, not Sunday.
    if (m[0] === 'Sun' && /\bthe\s$/i.test(s.slice(Math.max(0, m.index - 4), m.index))) continue;
    add(out, 'weekday', m.index, m.index + m[0].length);
  }
}

// Numbers and quantities share one scan: every number head is a number, and a quantity too
// when a unit follows it.

function numbersAndQuantities(s: string, out: Out): void {
  for (const m of eachMatch(NUM_HEAD_RE, s)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[1] !== undefined) digitHead(s, start, end, out);
    else wordHead(s, start, end, out);
  }
}

function digitHead(s: string, start: number, end: number, out: Out): void {
  const head = s.slice(start, end);
  const value = parseNumber(head);
  if (/\p{L}/u.test(s[end] ?? '')) {
    // Letters straight after the digits: a unit ("80.6kg") or part of a word ("16a", "3rd").
    ATTACHED_UNIT_RE.lastIndex = end;
    const unit = ATTACHED_UNIT_RE.exec(s);
    if (unit) add(out, 'quantity', start, end + unit[0].length, { value, unit: unit[0] });
    return;
  }
  if (/^0\d{3,}$/.test(head)) {
    // A leading zero marks a code ("00482917"), not an amount.
    if (s[start - 1] !== '-') add(out, 'identifier', start, end);
    return;
  }
  add(out, 'number', start, end, { value });
  quantityAfter(s, start, end, value, false, out);
}

function wordHead(s: string, start: number, end: number, out: Out): void {
  const head = s.slice(start, end);
  const value = parseNumber(head);
  // "one" alone is a pronoun far more often than a count ("the one I liked", "no one").
  if (!/^one$/i.test(head)) add(out, 'number', start, end, { value });
  quantityAfter(s, start, end, value, true, out);
}

/** Adds the quantity of a number and the unit after it, if any; a range ("3-4 days") when the unit follows it. */
function quantityAfter(s: string, start: number, end: number, value: number | undefined, spelled: boolean, out: Out): void {
  RANGE_TAIL_RE.lastIndex = end;
  const range = spelled ? null : RANGE_TAIL_RE.exec(s);
  if (range) {
    const unit = unitAfter(s, end + range[0].length, value, false);
    if (unit) {
      add(out, 'quantity', start, unit.end, { value, unit: unit.unit });
      return;
    }
  }
  const unit = unitAfter(s, end, value, spelled);
  if (unit) add(out, 'quantity', start, unit.end, { value, unit: unit.unit });
}

/** The unit written at `at` after a number: "-foot", " kg", " guests", " new laptops". */
function unitAfter(s: string, at: number, value: number | undefined, spelled: boolean): { end: number; unit: string } | undefined {
  HYPHEN_UNIT_RE.lastIndex = at;
  const hyphen = HYPHEN_UNIT_RE.exec(s);
  if (hyphen) return FUNCTION_WORDS.has(hyphen[1]) ? undefined : { end: at + hyphen[0].length, unit: hyphen[1] };
  SPACED_WORD_RE.lastIndex = at;
  const first = SPACED_WORD_RE.exec(s);
  if (!first) return undefined;
  const single = value === 1;
  if (isUnit(first[1], single, spelled)) return { end: at + first[0].length, unit: first[1] };
  if (!mayHaveMiddleWord(s, at, value, first[1])) return undefined;
  const afterFirst = at + first[0].length;
  SPACED_WORD_RE.lastIndex = afterFirst;
  const second = SPACED_WORD_RE.exec(s);
  if (!second || !(KNOWN_UNITS.has(second[1]) || looksPlural(second[1]))) return undefined;
  return { end: afterFirst + second[0].length, unit: second[1] };
}

/**
 * One word may stand between a count and its unit ("3 new laptops", "2 big dogs"): a lower-case
 * adjective after a whole number that is not a year ("a 1907 house needs" is no count of needs).
 */
function mayHaveMiddleWord(s: string, at: number, value: number | undefined, word: string): boolean {
  if (value === undefined || !Number.isInteger(value) || (value >= 1900 && value <= 2099)) return false;
  if (s[at - 1] === '.' || /\d\.\d+$/.test(s.slice(Math.max(0, at - 12), at))) return false;
  return /^\p{Ll}+$/u.test(word) && (!FUNCTION_WORDS.has(word) || MIDDLE_OK.has(word)) && !VERBS_S.has(word);
}

/** Whether `word` can be the unit of a count: a known unit, a plural noun, or any noun after "1". */
function isUnit(word: string, single: boolean, spelled: boolean): boolean {
  if (KNOWN_UNITS.has(word) || KNOWN_UNITS.has(word.toLowerCase())) return /^\p{Ll}|^[°A-Z]/u.test(word);
  if (!/^\p{Ll}+$/u.test(word) || FUNCTION_WORDS.has(word)) return false;
  if (looksPlural(word)) return true;
  // After "1" any noun counts ("1 room"), but not a verb or an adverb ("SEV-1 noted").
  return single && !spelled && word.length >= 2 && !/(?:ed|ing|ly)$/.test(word);
}

function looksPlural(word: string): boolean {
  if (IRREGULAR_PLURALS.has(word)) return true;
  return /^\p{Ll}{2,}s$/u.test(word) && !/(?:ss|us|is)$/.test(word) && !FUNCTION_WORDS.has(word) && !VERBS_S.has(word);
}

// ---------------------------------------------------------------------------
// Names

type TokenKind = 'cap' | 'title' | 'suffix' | 'conn' | 'initial' | 'other';

interface Token {
  start: number;
  end: number;
  word: string;
  kind: TokenKind;
}

const WORD_RE = re(String.raw`[\p{L}\p{M}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}]+)*(?:-[\p{L}\p{M}\p{N}]+)*`);
const POSSESSIVE_RE = /['’]s$/;

function tokenKind(s: string, word: string, end: number): TokenKind {
  const base = word.replace(POSSESSIVE_RE, '');
  if (/\d/.test(base)) return 'other';
  if (TITLES.has(base)) return 'title';
  if (NAME_SUFFIXES.has(base)) return 'suffix';
  if (NAME_CONNECTORS.has(base)) return 'conn';
  if (/^\p{Lu}$/u.test(base) && s[end] === '.' && base !== 'I' && base !== 'A') return 'initial';
  if (isCapitalised(base) && !NEVER_NAME.has(base.toLowerCase())) return 'cap';
  return 'other';
}

/** "Dana", "McKay", "O'Brien"; not "OK", "GBs", "iPhone". */
function isCapitalised(word: string): boolean {
  return /^\p{Lu}[\p{Ll}\p{M}]/u.test(word) || /^\p{Lu}['’]\p{Lu}\p{Ll}/u.test(word);
}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  for (const m of eachMatch(WORD_RE, s)) {
    const end = m.index + m[0].length;
    out.push({ start: m.index, end, word: m[0], kind: tokenKind(s, m[0], end) });
  }
  return out;
}

/** 'hard' after a sentence end or line start, 'soft' after a colon or semicolon, else 'none'. */
function sentenceStart(s: string, pos: number): 'hard' | 'soft' | 'none' {
  const i = skipBack(s, pos - 1);
  if (i === LINE_START) return 'hard';
  // A numbered clause ("4.1.1 Full-time employees", "2) Schedule updated") starts like a line.
  if (/[\d.)]/.test(s[i])) {
    let j = i;
    while (j >= 0 && /[\d.)]/.test(s[j])) j--;
    if (/\d/.test(s.slice(j + 1, i + 1)) && skipBack(s, j) === LINE_START) return 'hard';
  }
  const c = s[i];
  if (c === '!' || c === '?' || c === '…') return 'hard';
  if (c === '.') return abbreviationEndsAt(s, i) ? 'none' : 'hard';
  if (c === ':' || c === ';') return 'soft';
  return 'none';
}

const LINE_START = -1;

/** Index of the last character before `i` that is no space, quote or bullet; LINE_START at a line start. */
function skipBack(s: string, i: number): number {
  for (; i >= 0 && /[\s"'“‘(\[*•>_-]/.test(s[i]); i--) if (s[i] === '\n') return LINE_START;
  return i;
}

/** Whether the dot at `dot` closes an abbreviation ("Dr.", "Co.", an initial) rather than a sentence. */
function abbreviationEndsAt(s: string, dot: number): boolean {
  let i = dot;
  while (i > 0 && /\p{L}/u.test(s[i - 1])) i--;
  const word = s.slice(i, dot);
  return ABBREVIATIONS.has(word) || (/^\p{Lu}$/u.test(word) && word !== 'I');
}

/** Whether a sentence-initial capitalised word is an ordinary word ("Thanks", "Starting", "Honestly"). */
function isSentenceWord(word: string): boolean {
  // "We've", "You're", "Don't": a pronoun or a verb with its contraction is still that word.
  const lower = word.replace(POSSESSIVE_RE, '').toLowerCase().replace(/['\u2019](?:ve|re|ll|d|m)$|n['\u2019]t$/, '');
  const head = lower.split('-', 1)[0];
  if (SENTENCE_WORDS.has(lower) || NEVER_NAME.has(lower) || SENTENCE_WORDS.has(head)) return true;
  if (NAME_EXCEPTIONS.has(lower)) return false;
  // -ing, -ed and -ly openers are verbs and adverbs ("Starting", "Added", "Honestly"); names this long rarely end so.
  return (lower.length >= 6 && lower.endsWith('ing')) || (lower.length >= 5 && lower.endsWith('ed')) || (lower.length >= 7 && lower.endsWith('ly'));
}

function isMonth(t: Token): boolean {
  return t.word
    .replace(POSSESSIVE_RE, '')
    .toLowerCase()
    .split('-')
    .every((part) => MONTH_WORDS.has(part));
}

function names(s: string, out: Out): void {
  const tokens = tokenize(s);
  const midCaps = new Set<string>();
  for (const t of tokens) if (t.kind === 'cap' && sentenceStart(s, t.start) === 'none') midCaps.add(t.word.replace(POSSESSIVE_RE, ''));
  for (let i = 0; i < tokens.length; ) {
    if (tokens[i].kind !== 'cap' && tokens[i].kind !== 'title') {
      i++;
      continue;
    }
    const last = extendName(s, tokens, i);
    emitName(s, tokens.slice(i, last + 1), midCaps, out);
    i = last + 1;
  }
}

/** Index of the last token of the name that starts at token `i`. */
function extendName(s: string, tokens: Token[], i: number): number {
  let k = i;
  while (k + 1 < tokens.length && joins(s, tokens, k)) k++;
  return k;
}

/** Whether token k+1 continues the name through token k. */
function joins(s: string, tokens: Token[], k: number): boolean {
  const cur = tokens[k];
  const next = tokens[k + 1];
  const gap = s.slice(cur.end, next.start);
  // A month ends a name: "Newark May 14" is a place and a date.
  if (isMonth(cur) || isMonth(next)) return false;
  // An initial joins only between names ("John F. Kennedy"), so "Systems B.V." stops at "Systems".
  const after = tokens[k + 2];
  const initialJoins = next.kind === 'initial' && after !== undefined && after.kind === 'cap' && s.slice(next.end, after.start) === '. ';
  const capLike = next.kind === 'cap' || initialJoins;
  if (gap === ' ') {
    // "Bank of America": a connector needs a name on both sides.
    if (next.kind === 'conn') return after !== undefined && after.kind === 'cap' && s.slice(next.end, after.start) === ' ';
    return capLike || next.kind === 'suffix';
  }
  if (gap === '. ') return (cur.kind === 'title' || cur.kind === 'initial') && capLike;
  if (gap === ' & ') return next.kind === 'cap' || next.kind === 'suffix';
  if (gap === ', ') return next.kind === 'suffix' && cur.kind !== 'conn';
  return false;
}

function emitName(s: string, seq: Token[], midCaps: Set<string>, out: Out): void {
  // Drop ordinary words that open the sentence ("Thanks Dana" → "Dana").
  let from = 0;
  while (from < seq.length && seq[from].kind === 'cap' && isSentenceWord(seq[from].word) && (from > 0 || sentenceStart(s, seq[from].start) !== 'none')) from++;
  const dropped = from > 0;
  let to = seq.length - 1;
  while (to >= from && (seq[to].kind === 'conn' || seq[to].kind === 'title')) to--;
  const kept = seq.slice(from, to + 1);
  const caps = kept.filter((t) => t.kind === 'cap');
  if (caps.length === 0 || caps.every(isMonth)) return;
  const lone = kept.length === 1;
  if (lone && !dropped && sentenceStart(s, kept[0].start) === 'hard' && !looksLikePerson(s, kept[0], midCaps)) return;
  const first = kept[0];
  const lastToken = kept[kept.length - 1];
  let end = lastToken.end;
  if (POSSESSIVE_RE.test(lastToken.word)) end -= 2;
  else if ((lastToken.kind === 'suffix' || lastToken.kind === 'initial') && s[end] === '.' && lastToken.word !== 'II') end++;
  add(out, 'name', first.start, end);
}

/** Evidence that a lone sentence-initial capitalised word is a person or place, not a common word. */
function looksLikePerson(s: string, t: Token, midCaps: Set<string>): boolean {
  if (POSSESSIVE_RE.test(t.word) || midCaps.has(t.word)) return true;
  const after = s.slice(t.end, t.end + 40);
  // A speaker label ("Caroline: Hey") or the head of a list of names ("Dana, Kenji and Priya").
  if (/^:\s+(?:\p{Lu}\p{Ll}|I\b)/u.test(after) || /^,\s+\p{Lu}\p{Ll}/u.test(after)) return true;
  if (/^\s+(?:and|&)\s+\p{Lu}\p{Ll}/u.test(after)) return true;
  // A verb in the past or of speech follows a person ("Jon lost his job", "Gina said …").
  const verb = /^\s+(\p{Ll}+)/u.exec(after);
  return verb !== null && (PERSON_VERBS.has(verb[1]) || (verb[1].length >= 5 && verb[1].endsWith('ed')));
}

// ---------------------------------------------------------------------------
// Keyed values: JSON fields, key=value pairs and "key: value" records

interface Field {
  key: string;
  /** The value's characters (inside the quotes of a string). */
  start: number;
  end: number;
  /** Record fields ("key: value, …") label only a span that is their whole value; JSON and key=value label every span inside. */
  exactOnly: boolean;
}

interface Layout {
  /** The text with JSON keys and key= prefixes blanked, so keys are never read as values. */
  scan: string;
  fields: Field[];
}

const JSON_KEY_RE = re(String.raw`"((?:[^"\\\n]|\\.){1,80})"\s*:\s*`, 'g');
const JSON_NUMBER_RE = re(String.raw`-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?`, 'y');
const JSON_STRING_END_RE = re(String.raw`(?:[^"\\]|\\.)*"`, 'y');
const JSON_SKIP_RE = re(String.raw`\s*(,)?\s*`, 'y');
const KEY_VALUE_RE = re(String.raw`(?<![^\s(,;{\[])([A-Za-z_][\w.-]{0,40})=(?!=)("[^"\n]*"|[^\s,;)\]}"']+)`, 'gd');
const RECORD_KEY_RE = re(String.raw`(?:^|(?<=,\s)|(?<=\(\s?))([\p{L}_][\p{L}\p{N}_ .'-]{0,40}?):\s+`, 'gu');

function layout(text: string): Layout {
  const fields: Field[] = [];
  const blanks: Array<[number, number]> = [];
  if (text.includes('"')) jsonFields(text, fields, blanks);
  if (text.includes('=')) keyValueFields(text, fields, blanks);
  if (text.includes(': ')) recordFields(text, fields);
  return { scan: blanks.length > 0 ? blank(text, blanks) : text, fields };
}

function blank(text: string, ranges: Array<[number, number]>): string {
  const chars = text.split('');
  for (const [a, b] of ranges) for (let i = a; i < b; i++) chars[i] = ' ';
  return chars.join('');
}

function jsonFields(text: string, fields: Field[], blanks: Array<[number, number]>): void {
  JSON_KEY_RE.lastIndex = 0;
  for (let m = JSON_KEY_RE.exec(text); m !== null; m = JSON_KEY_RE.exec(text)) {
    const valueAt = m.index + m[0].length;
    const end = jsonValue(text, valueAt, m[1], fields, blanks);
    if (end === undefined) continue;
    blanks.push([m.index, valueAt]);
    JSON_KEY_RE.lastIndex = Math.max(end, valueAt);
  }
}

/** Reads the value at `at` (a string, a number or an array of them); its end, or undefined when it is no JSON value. */
function jsonValue(text: string, at: number, key: string, fields: Field[], blanks: Array<[number, number]>): number | undefined {
  const c = text[at];
  if (c === '{') return at;
  if (c === '[') return jsonArray(text, at + 1, key, fields, blanks);
  if (/^(?:true|false|null)\b/.test(text.slice(at, at + 5))) return at;
  return jsonScalar(text, at, key, fields);
}

function jsonScalar(text: string, at: number, key: string, fields: Field[]): number | undefined {
  if (text[at] === '"') {
    JSON_STRING_END_RE.lastIndex = at + 1;
    const m = JSON_STRING_END_RE.exec(text);
    if (!m) return undefined;
    const end = at + 1 + m[0].length;
    fields.push({ key, start: at + 1, end: end - 1, exactOnly: false });
    return end;
  }
  JSON_NUMBER_RE.lastIndex = at;
  const n = JSON_NUMBER_RE.exec(text);
  if (!n) return undefined;
  fields.push({ key, start: at, end: at + n[0].length, exactOnly: false });
  return at + n[0].length;
}

/** The scalars of an array each sit under the array's key; the commas between them are blanked so "[10,200]" stays two numbers. */
function jsonArray(text: string, at: number, key: string, fields: Field[], blanks: Array<[number, number]>): number {
  let pos = at;
  for (;;) {
    JSON_SKIP_RE.lastIndex = pos;
    pos += JSON_SKIP_RE.exec(text)?.[0].length ?? 0;
    const end = text[pos] === ']' ? undefined : jsonScalar(text, pos, key, fields);
    if (end === undefined) return pos;
    JSON_SKIP_RE.lastIndex = end;
    const sep = JSON_SKIP_RE.exec(text);
    if (!sep?.[1]) return end;
    blanks.push([end, end + sep[0].length]);
    pos = end + sep[0].length;
  }
}

function keyValueFields(text: string, fields: Field[], blanks: Array<[number, number]>): void {
  for (const m of eachMatch(KEY_VALUE_RE, text)) {
    const at = m.indices?.[2];
    if (!at) continue;
    const quoted = m[2].startsWith('"');
    fields.push({ key: m[1], start: quoted ? at[0] + 1 : at[0], end: quoted ? at[1] - 1 : at[1], exactOnly: false });
    blanks.push([m.index, at[0]]);
  }
}

/** "order: BC-4471829, return window days: 30": each value runs to the next key or the end. */
function recordFields(text: string, fields: Field[]): void {
  const keys: Array<{ key: string; start: number; valueAt: number }> = [];
  for (const m of eachMatch(RECORD_KEY_RE, text)) {
    // A key is a few words, each with a letter ("return window days", "p95 ms"), not a clause with values in it.
    const keyWords = m[1].trim().split(/\s+/);
    if (keyWords.length > 4 || !keyWords.every((w) => /\p{L}/u.test(w))) continue;
    keys.push({ key: m[1].trim(), start: m.index, valueAt: m.index + m[0].length });
  }
  keys.forEach((k, i) => {
    const next = keys[i + 1];
    const end = next ? text.lastIndexOf(',', next.start) : text.length;
    if (end > k.valueAt) fields.push({ key: k.key, start: k.valueAt, end, exactOnly: true });
  });
}

/** The "key: value" fields of a record line, each value as written (trimmed). */
export function recordEntries(text: string): { key: string; value: string }[] {
  const fields: Field[] = [];
  recordFields(text, fields);
  return fields.map((f) => ({ key: f.key, value: text.slice(f.start, f.end).trim() }));
}

/** Labels the spans inside each field with its key, and retypes a whole-value number by what the key says it is. */
function applyFields(text: string, spans: Span[], fields: Field[]): void {
  for (const f of fields) {
    const value = text.slice(f.start, f.end);
    const start = f.start + (value.length - value.trimStart().length);
    const end = f.end - (value.length - value.trimEnd().length);
    for (let i = firstAtOrAfter(spans, f.start); i < spans.length && spans[i].start < f.end; i++) {
      const span = spans[i];
      if (span.end > f.end) continue;
      const whole = span.start === start && span.end === end;
      if (f.exactOnly && !whole) continue;
      span.label = f.key;
      if (whole) retypeByKey(span, f.key);
    }
  }
}

/** Index of the first span starting at or after `pos` (spans are sorted by start). */
function firstAtOrAfter(spans: Span[], pos: number): number {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spans[mid].start < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const MONEY_KEY_PARTS = new Set([...MONEY_HINTS.split('|'), ...words('payment revenue spend due usd eur gbp')]);
const NOT_MONEY_KEY_PARTS = wordSet('cents count rows qty quantity items');
const KEY_UNITS = wordSet('days hours hrs minutes mins seconds secs ms bytes kb mb gb tb kg g lbs lb km miles nights weeks months years guests people rooms rows items');

/** "price": "129.99" is money, "return_window_days": 30 a quantity of days, "order_id": 4417 a code. */
function retypeByKey(span: Span, key: string): void {
  if (span.type !== 'number') return;
  const parts = key
    .split(/[\s_.-]+|(?<=[a-z])(?=[A-Z])/)
    .filter((p) => p.length > 0)
    .map((p) => p.toLowerCase());
  const lastPart = parts[parts.length - 1] ?? '';
  if (/(?:^|[\s_.-])(?:pct|percent|percentage)$/i.test(key)) {
    span.type = 'percent';
    span.unit = '%';
  } else if (KEY_UNITS.has(lastPart)) {
    span.type = 'quantity';
    span.unit = lastPart;
  } else if (/^(?:id|no|num|number|ref|code|sku|mrn|ticket|order|case|invoice|claim|policy|account|tracking|confirmation|serial|rma|po)$/.test(lastPart) && !span.text.includes('.')) {
    span.type = 'identifier';
    span.value = undefined;
  } else if (/version|firmware|release/i.test(key)) {
    span.type = 'version';
    span.value = undefined;
  } else if (parts.some((p) => MONEY_KEY_PARTS.has(p)) && !parts.some((p) => NOT_MONEY_KEY_PARTS.has(p))) {
    span.type = 'money';
  }
}

/** Gives a code found without its label the label word before it ("ticket #4417" → "ticket"). */
function labelCodes(text: string, spans: Span[]): void {
  for (const span of spans) {
    if (span.type !== 'identifier' || span.label !== undefined) continue;
    const before = text.slice(Math.max(0, span.start - 30), span.start);
    const m = LABEL_BEFORE_RE.exec(before);
    if (m) span.label = m[1];
    // Any noun right before a code names it too ("form RW-12", "change CHG-3391"); a function word does not.
    else {
      const word = /(?:^|[^\p{L}])(\p{Ll}{3,})\s$/u.exec(before)?.[1];
      if (word && !FUNCTION_WORDS.has(word) && !SENTENCE_VERBS.has(word)) span.label = word;
    }
  }
}

// ---------------------------------------------------------------------------
// Resolution

/** Longest first, then the more specific type, then a labelled one; each kept span claims its characters. */
function resolve(candidates: Candidate[], length: number): Candidate[] {
  candidates.sort(
    (a, b) =>
      b.end - b.start - (a.end - a.start) ||
      PRIORITY[a.type] - PRIORITY[b.type] ||
      Number(b.label !== undefined) - Number(a.label !== undefined) ||
      a.start - b.start,
  );
  const taken = new Uint8Array(length);
  const kept: Candidate[] = [];
  for (const c of candidates) {
    let free = true;
    for (let i = c.start; i < c.end && free; i++) free = taken[i] === 0;
    if (!free) continue;
    taken.fill(1, c.start, c.end);
    kept.push(c);
  }
  return kept;
}

const RECOGNISERS: Array<(s: string, out: Out) => void> = [
  dates,
  links,
  money,
  percents,
  times,
  phones,
  versions,
  hosts,
  identifiers,
  weekdays,
  currencies,
  platforms,
  diets,
  numbersAndQuantities,
  names,
];

/** Every typed span of `text`, in order of `start`, not overlapping (the more specific type wins). */
export function findSpans(text: string): Span[] {
  const { scan, fields } = layout(text);
  const candidates: Candidate[] = [];
  for (const recognise of RECOGNISERS) recognise(scan, candidates);
  const spans: Span[] = [];
  for (const c of resolve(candidates, text.length)) {
    if (c.type === 'date' || c.type === 'ordinal') continue;
    const span: Span = { type: c.type, text: text.slice(c.start, c.end), start: c.start, end: c.end };
    if (c.value !== undefined && !Number.isNaN(c.value)) span.value = c.value;
    if (c.unit !== undefined) span.unit = c.unit;
    if (c.label !== undefined) span.label = c.label;
    spans.push(span);
  }
  spans.sort((a, b) => a.start - b.start);
  applyFields(text, spans, fields);
  labelCodes(text, spans);
  return spans;
}

// ---------------------------------------------------------------------------
// Numbers

const FIRST_NUMBER_RE = /(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?|\.\d+/;
const MAGNITUDE_AFTER_RE = /^(?:\s?(million|billion|trillion|thousand|mn|bn)\b|([kKmMbB])(?![\p{L}\p{N}]))/u;
const MAGNITUDES: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9, trillion: 1e12 };

/** Numeric value of a number, money or quantity text ("$1,140" → 1140, "$4.2M" → 4200000, "twelve" → 12). */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  const m = FIRST_NUMBER_RE.exec(t);
  if (!m) return parseNumberWords(t);
  let n = Number(m[0].replace(/,/g, ''));
  if (Number.isNaN(n)) return undefined;
  const before = t.slice(0, m.index);
  if (/^\s*-/.test(before) && !/\d/.test(before)) n = -n;
  const rest = t.slice(m.index + m[0].length);
  const fraction = /^\/(\d+)(?!\d)/.exec(rest);
  if (fraction && !m[0].includes(',') && Number(fraction[1]) > 0) return n / Number(fraction[1]);
  return scale(n, rest, CURRENCY_ANY_RE.test(t));
}

/** Applies a magnitude after the digits. A bare "m" or "b" is metres or bytes unless the text is money. */
function scale(n: number, rest: string, isMoney: boolean): number {
  const mag = MAGNITUDE_AFTER_RE.exec(rest);
  if (!mag) return n;
  const word = (mag[1] ?? mag[2]).toLowerCase();
  const letter = mag[2];
  if (letter !== undefined && letter !== 'k' && letter !== 'K' && letter !== 'M' && !isMoney) return n;
  return Number((n * MAGNITUDES[word]).toPrecision(15));
}

/** "twelve" → 12, "twenty-five" → 25, "two hundred" → 200, "a dozen" → 12; stops at the first other word. */
function parseNumberWords(text: string): number | undefined {
  let total = 0;
  let current = 0;
  let seen = false;
  for (const word of text.toLowerCase().split(/[\s-]+/)) {
    if (word === 'a' && !seen) continue;
    if (word === 'and' && seen) continue;
    if (word in SMALL_NUMBERS) current += SMALL_NUMBERS[word];
    else if (word === 'hundred') current = (current || 1) * 100;
    else if (word === 'dozen') current = (current || 1) * 12;
    else if (word in SCALE_WORDS) {
      total += (current || 1) * SCALE_WORDS[word];
      current = 0;
    } else if (word === 'twice') current += 2;
    else break;
    seen = true;
  }
  return seen ? total + current : undefined;
}

// ---------------------------------------------------------------------------
// Lists

const LIST_SEPARATOR_RE = /^(?:\s*,\s*(?:(?:and|or|&|nor)\s+)?|\s+(?:and|or|&|nor|plus)\s+|\s*\/\s*|\s*&\s*)$/i;
const CONJUNCTION_RE = /\b(?:and|or|nor|plus)\b|&/i;
const WORD_SEPARATOR_AFTER_RE = /,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+/y;
const WORD_SEPARATOR_BEFORE_RE = /(?:,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)$/;
const LIST_WORD_RE = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/uy;
const LIST_WORD_BEFORE_RE = /[\p{L}\p{N}][\p{L}\p{N}'’-]*$/u;
const MAX_RIGHT_ITEM_WORDS = 3;
const MAX_LEFT_ITEM_WORDS = 2;

/**
 * A list of values joined by commas/and/or ("Tuesday, Thursday and Sunday", "latex and sulfa drugs"):
 * the smallest enclosing list span around `span` in text, if the neighbours are of the same type.
 * A span that is one of `spans` lists with spans of its type; any other span (a word the caller
 * picked) lists with untyped words, each item up to a few words long.
 */
export function listAround(text: string, span: Span, spans: Span[]): { start: number; end: number; text: string } | undefined {
  const index = spans.findIndex((s) => s.start === span.start && s.end === span.end);
  const range = index >= 0 ? typedList(text, spans, index) : wordList(text, span, spans);
  if (!range) return undefined;
  return { start: range.start, end: range.end, text: text.slice(range.start, range.end) };
}

/**
 * The list of same-type spans around `index`. The chain of spans joined by separators is cut
 * after each conjunction's item ("Monday and Tuesday, Friday" is a list and a lone day).
 */
function typedList(text: string, spans: Span[], index: number): { start: number; end: number } | undefined {
  const type = spans[index].type;
  const gap = (i: number) => text.slice(spans[i].end, spans[i + 1].start);
  const joined = (i: number) => spans[i + 1].type === type && LIST_SEPARATOR_RE.test(gap(i));
  let lo = index;
  while (lo > 0 && joined(lo - 1)) lo--;
  let hi = index;
  while (hi + 1 < spans.length && joined(hi)) hi++;
  let first = lo;
  for (let i = lo; i < hi; i++) {
    if (!CONJUNCTION_RE.test(gap(i))) continue;
    // Item i+1 closes the list that started at `first`.
    if (index <= i + 1) return first === i + 1 ? undefined : { start: spans[first].start, end: spans[i + 1].end };
    first = i + 2;
  }
  return first >= hi || index < first ? undefined : { start: spans[first].start, end: spans[hi].end };
}

function overlapsTyped(spans: Span[], start: number, end: number): boolean {
  return spans.some((s) => s.start < end && s.end > start);
}

/** Untyped words around `span`, joined by commas and one conjunction. */
function wordList(text: string, span: Span, spans: Span[]): { start: number; end: number } | undefined {
  let end = span.end;
  let conjunctions = 0;
  for (;;) {
    WORD_SEPARATOR_AFTER_RE.lastIndex = end;
    const sep = WORD_SEPARATOR_AFTER_RE.exec(text);
    if (!sep) break;
    const itemEnd = itemAfter(text, end + sep[0].length, spans);
    if (itemEnd === undefined) break;
    end = itemEnd;
    if (CONJUNCTION_RE.test(sep[0])) {
      conjunctions++;
      break;
    }
  }
  let start = span.start;
  for (;;) {
    const sep = WORD_SEPARATOR_BEFORE_RE.exec(text.slice(Math.max(0, start - 12), start));
    if (!sep) break;
    const isConj = CONJUNCTION_RE.test(sep[0]);
    if (isConj && conjunctions > 0) break;
    const itemStart = itemBefore(text, start - sep[0].length, spans);
    if (itemStart === undefined) break;
    start = itemStart;
    if (isConj) conjunctions++;
  }
  return conjunctions > 0 && (start < span.start || end > span.end) ? { start, end } : undefined;
}

/** End of a list item of untyped words starting at `at`, or undefined when none starts there. */
function itemAfter(text: string, at: number, spans: Span[]): number | undefined {
  let end: number | undefined;
  let pos = at;
  for (let n = 0; n < MAX_RIGHT_ITEM_WORDS; n++) {
    LIST_WORD_RE.lastIndex = pos;
    const w = LIST_WORD_RE.exec(text);
    if (!w || !isItemWord(w[0], n === 0) || overlapsTyped(spans, pos, pos + w[0].length)) break;
    end = pos + w[0].length;
    if (text[end] !== ' ') break;
    pos = end + 1;
  }
  return end;
}

/** Start of a list item of untyped words ending at `at`. */
function itemBefore(text: string, at: number, spans: Span[]): number | undefined {
  let start: number | undefined;
  let pos = at;
  for (let n = 0; n < MAX_LEFT_ITEM_WORDS; n++) {
    const w = LIST_WORD_BEFORE_RE.exec(text.slice(Math.max(0, pos - 40), pos));
    if (!w) break;
    const wordStart = pos - w[0].length;
    if (!isItemWord(w[0], false) || overlapsTyped(spans, wordStart, pos)) break;
    start = wordStart;
    if (text[wordStart - 1] !== ' ') break;
    pos = wordStart - 1;
  }
  return start;
}

/** Function words end an item; an article may open one ("a dog and a cat"). */
function isItemWord(word: string, first: boolean): boolean {
  const lower = word.toLowerCase();
  if (first && (lower === 'a' || lower === 'an' || lower === 'the')) return true;
  return !FUNCTION_WORDS.has(lower) && !SENTENCE_VERBS.has(lower) && !PERSON_VERBS.has(lower);
}
