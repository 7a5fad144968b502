// Generated LoCoMo-shaped data: a file in the format of snap-research/locomo's
// data/locomo10.json, of its size and shape, for the benchmark. It is not the
// real benchmark and nothing reports it as such.
//
// Shape: 10 samples whose sessions, turns and questions follow the published
// file's (19–32 sessions and 369–689 turns a sample, 5,882 turns and 1,986
// questions in all, ~2.8 MB); questions in its category mix (1 multi-hop,
// 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial with
// `adversarial_answer`), with `evidence` dia_ids; about one line in seven
// shares an image (`img_url`, `blip_caption`, `query`); `event_summary`,
// `observation` and `session_summary` as the real samples have them.
//
// Text: two friends catching up, from templates over word lists; life events
// (a pet, a trip, a class, a new job, …) are stated once and asked about, so
// answers sit in their evidence lines as in LoCoMo. Everything derives from
// one seed: the same options give byte-identical files.
import { seededRandom, type Random } from '../../core/random.js';

/** Sessions, turns and questions of each sample, in the published file's order. */
const SHAPES: readonly { sessions: number; turns: number; questions: number }[] = [
  { sessions: 19, turns: 419, questions: 199 },
  { sessions: 19, turns: 369, questions: 105 },
  { sessions: 32, turns: 663, questions: 193 },
  { sessions: 29, turns: 629, questions: 260 },
  { sessions: 29, turns: 680, questions: 242 },
  { sessions: 28, turns: 675, questions: 158 },
  { sessions: 31, turns: 689, questions: 190 },
  { sessions: 30, turns: 681, questions: 239 },
  { sessions: 25, turns: 509, questions: 196 },
  { sessions: 30, turns: 568, questions: 204 },
];

/** Questions per category over the whole published file (1,986 in all). */
const CATEGORY_SHARE: Readonly<Record<1 | 2 | 3 | 4 | 5, number>> = { 1: 282, 2: 321, 3: 96, 4: 841, 5: 446 };

export interface LocomoShapedOptions {
  seed: number;
  /** Samples to write; default 10. Past 10 the shapes repeat. */
  samples?: number;
}

export interface LocomoLine {
  speaker: string;
  dia_id: string;
  text: string;
  img_url?: string[];
  blip_caption?: string;
  query?: string;
}

export interface LocomoQa {
  question: string;
  answer?: string;
  adversarial_answer?: string;
  evidence: string[];
  category: 1 | 2 | 3 | 4 | 5;
}

export interface LocomoSample {
  qa: LocomoQa[];
  conversation: Record<string, string | LocomoLine[]>;
  event_summary: Record<string, Record<string, string | string[]>>;
  observation: Record<string, Record<string, [string, string][]>>;
  session_summary: Record<string, string>;
  sample_id: string;
}

// ---------------------------------------------------------------- word lists

const NAMES = ['Caroline', 'Melanie', 'Jon', 'Gina', 'John', 'Maria', 'Joanna', 'Nate', 'Tim', 'Audrey', 'Andrew', 'Evan', 'Sam', 'Calvin', 'Dave', 'Jolene', 'Deborah', 'James', 'Priya', 'Tomas', 'Aiko', 'Rafael', 'Ines', 'Kwame'];
const ANIMALS = ['puppy', 'kitten', 'rabbit', 'parrot', 'tortoise', 'beagle', 'golden retriever', 'hamster'];
const PET_NAMES = ['Luna', 'Max', 'Bailey', 'Oliver', 'Pepper', 'Biscuit', 'Milo', 'Daisy', 'Oscar', 'Coco', 'Shadow', 'Maple', 'Ziggy', 'Nova'];
const HOBBIES = ['pottery', 'painting', 'salsa dancing', 'rock climbing', 'photography', 'woodworking', 'yoga', 'knitting', 'archery', 'calligraphy', 'kayaking', 'baking', 'gardening', 'chess', 'improv', 'swimming'];
const PLACES = ['Lake Tahoe', 'the Grand Canyon', 'Yellowstone', 'Big Sur', 'the Rocky Mountains', 'Banff', 'Cape Cod', 'the Smoky Mountains', 'Joshua Tree', 'Lake Como', 'the Outer Banks', 'Zion'];
const CITIES = ['Sweden', 'Lisbon', 'Boston', 'Seattle', 'Denver', 'Toronto', 'Melbourne', 'Dublin', 'Barcelona', 'Austin', 'Kyoto', 'Vancouver'];
const BOOKS = ['Becoming', 'The Night Circus', 'Educated', 'Where the Crawdads Sing', 'Charlotte\'s Web', 'The Alchemist', 'Little Women', 'Project Hail Mary', 'The Midnight Library', 'Circe', 'Atomic Habits', 'Dune'];
const JOBS = ['graphic designer', 'nurse', 'software developer', 'counselor', 'teacher', 'chef', 'photographer', 'marketing manager', 'physical therapist', 'librarian', 'architect', 'social worker'];
const COMPANIES = ['a small startup', 'the city hospital', 'a local school', 'a nonprofit', 'a design studio', 'a bakery downtown', 'the public library', 'a tech company'];
const DISHES = ['lasagna', 'vegetable curry', 'banana bread', 'homemade pizza', 'ramen', 'apple pie', 'tacos', 'mushroom risotto', 'pad thai', 'chili', 'sourdough', 'paella'];
const EVENTS = ['charity run', 'pride parade', 'poetry reading', 'jazz festival', 'science fair', 'farmers market', 'book signing', 'art exhibition', 'community cleanup', 'film festival', 'support group meeting', 'career fair'];
const INSTRUMENTS = ['guitar', 'piano', 'violin', 'ukulele', 'drums', 'cello', 'flute', 'saxophone'];
const ORGS = ['animal shelter', 'food bank', 'youth center', 'homeless shelter', 'community garden', 'senior home', 'LGBTQ center', 'literacy program'];
const RACES = ['5K', '10K', 'half marathon', 'marathon', 'triathlon', 'charity walk'];
const RELATIVES = ['mom', 'dad', 'sister', 'brother', 'grandma', 'aunt', 'best friend', 'partner'];
const GIFTS = ['necklace', 'watch', 'sketchbook', 'camera', 'pair of hiking boots', 'cookbook', 'bike', 'scarf', 'record player', 'telescope'];
const SUBJECTS = ['sunset over the ocean', 'field of sunflowers', 'lighthouse', 'mountain lake', 'city skyline', 'bowl of lemons', 'horse in a meadow', 'forest path', 'rainbow', 'old barn'];
const BANDS = ['Coldplay', 'Taylor Swift', 'the Lumineers', 'Adele', 'Imagine Dragons', 'Florence and the Machine', 'Ed Sheeran', 'Fleetwood Mac tribute band'];
const VENUES = ['the stadium', 'an outdoor amphitheater', 'a tiny club downtown', 'the arena', 'the park bandshell'];
const SEASONS = ['spring', 'summer', 'fall', 'winter'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const CENTERS = ['community center', 'library', 'rec center', 'art school', 'YMCA', 'college campus'];
const MEALS = ['breakfast', 'lunch', 'dinner', 'a potluck', 'a picnic', 'game night'];
const FEELINGS = ['excited', 'exhausted', 'grateful', 'nervous', 'proud', 'relieved', 'inspired', 'overwhelmed', 'happy', 'a bit stressed', 'hopeful', 'calm'];
const FAMILY = ['kids', 'husband', 'wife', 'parents', 'roommate', 'siblings', 'cousins', 'neighbors', 'coworkers', 'friends from school'];
const TIMES = ['last weekend', 'yesterday', 'a few days ago', 'last Friday', 'this morning', 'last night', 'over the holidays', 'on Sunday'];
const THINGS = ['the garden', 'my new apartment', 'work', 'the kids\' school', 'my routine', 'the weather', 'my sleep', 'the house', 'my budget', 'our vacation plans', 'my health', 'the move'];
const VALUES = ['family', 'self-care', 'community', 'honesty', 'creativity', 'patience', 'kindness', 'courage', 'balance', 'growth'];
const PHOTO_THINGS = ['a dog on a beach', 'a plate of pasta', 'a sunset over a lake', 'a painting of flowers', 'a group of friends smiling', 'a mountain trail', 'a birthday cake with candles', 'a cozy living room', 'a bookshelf full of books', 'a child holding a kite', 'a guitar on a stand', 'a tent by a river'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function pick<T>(r: Random, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)];
}

function between(r: Random, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

// ---------------------------------------------------------------- small talk

type Line = (r: Random, me: string, other: string) => string;

const OPENERS: Line[] = [
  (_r, _me, other) => `Hey ${other}!`,
  () => 'Wow,',
  () => 'That\'s awesome!',
  () => 'Oh no,',
  () => 'Haha,',
  () => 'Totally.',
  (_r, _me, other) => `Thanks, ${other}!`,
  () => 'Aw, that\'s so sweet.',
  () => 'Honestly,',
  () => 'Good to hear from you!',
  () => 'No way!',
  () => 'I know, right?',
];

const BODIES: Line[] = [
  (r) => `I've been feeling ${pick(r, FEELINGS)} about ${pick(r, THINGS)} lately, but I'm trying to take it one day at a time.`,
  (r) => `My ${pick(r, FAMILY)} and I spent ${pick(r, TIMES)} just relaxing at home, which was exactly what we needed.`,
  (r) => `It's been a busy stretch with ${pick(r, THINGS)}, so I've been leaning on ${pick(r, VALUES)} to get through it.`,
  (r) => `${pick(r, VALUES).replace(/^./, (c) => c.toUpperCase())} means a lot to me, and I've been thinking about it more since ${pick(r, TIMES)}.`,
  (r) => `I'm so ${pick(r, FEELINGS)} for you, that sounds like a big step.`,
  (r) => `We tried ${pick(r, HOBBIES)} together ${pick(r, TIMES)} and laughed the whole time.`,
  (r) => `I keep meaning to get back into ${pick(r, HOBBIES)}, maybe once things calm down with ${pick(r, THINGS)}.`,
  (r) => `The ${pick(r, FAMILY)} have been asking about you, they still talk about that day at ${pick(r, PLACES)}.`,
  (r) => `Sometimes I need a quiet evening with a good book and some tea, you know?`,
  (r) => `I made ${pick(r, DISHES)} ${pick(r, TIMES)} and it actually turned out pretty good.`,
  (r) => `That reminds me of when we talked about ${pick(r, THINGS)}; it feels like ages ago.`,
  (r) => `It's not always easy, but I'm ${pick(r, FEELINGS)} about where things are heading.`,
  (r) => `Supporting each other like this really matters, especially with ${pick(r, THINGS)} going on.`,
  (r) => `I went for a long walk ${pick(r, TIMES)} to clear my head, and it helped more than I expected.`,
  (r) => `Keep me posted on how it goes, I want to hear everything!`,
  (r) => `You always know how to make me feel better about ${pick(r, THINGS)}.`,
  (r) => `We should plan something fun for the ${pick(r, SEASONS)}, maybe a trip to ${pick(r, PLACES)}?`,
  (r) => `I've been trying to be more mindful about ${pick(r, VALUES)} and not rush through everything.`,
  (r) => `That must have been a lot to handle, I'm glad you had your ${pick(r, FAMILY)} around.`,
  (r) => `I saw a documentary about ${pick(r, HOBBIES)} ${pick(r, TIMES)} and now I want to try it.`,
];

const CLOSERS: Line[] = [
  () => 'How about you?',
  () => 'What have you been up to?',
  () => 'How are things on your end?',
  (_r, _me, other) => `Talk soon, ${other}!`,
  () => 'Anything new with you?',
  () => 'How\'s your week going?',
  () => 'What do you think?',
];

function smallTalk(r: Random, me: string, other: string): string {
  const parts: string[] = [];
  if (r() < 0.45) parts.push(pick(r, OPENERS)(r, me, other));
  parts.push(pick(r, BODIES)(r, me, other));
  if (r() < 0.55) parts.push(pick(r, BODIES)(r, me, other));
  if (r() < 0.25) parts.push(pick(r, CLOSERS)(r, me, other));
  return parts.join(' ');
}

// ---------------------------------------------------------------- life events

interface LifeEvent {
  /** What the line says. */
  statement: string;
  /** The question about it, and the words of the statement that answer it. */
  question: (who: string) => string;
  answer: string;
  /** For multi-hop lists: an activity in a few words, stated verbatim in the line. */
  activity?: string;
  /** For temporal questions: "When did X …?" */
  when: (who: string) => string;
  /** For open-domain questions: a yes/no inference and its reason. */
  wouldEnjoy: (who: string) => string;
  reason: string;
  /** An image the line shares, if any. */
  photo?: string;
}

type EventMaker = (r: Random) => LifeEvent;

const EVENT_MAKERS: EventMaker[] = [
  (r) => {
    const animal = pick(r, ANIMALS);
    const name = pick(r, PET_NAMES);
    return {
      statement: `Guess what, I adopted a ${animal} ${pick(r, TIMES)}! We named him ${name} and he's already running the house.`,
      question: (w) => `What is the name of ${w}'s ${animal}?`,
      answer: name,
      when: (w) => `When did ${w} adopt a ${animal}?`,
      wouldEnjoy: (w) => `Would ${w} likely visit an animal shelter?`,
      reason: `Likely yes; they adopted ${name} and love animals`,
      photo: `a ${animal} sitting on a couch`,
    };
  },
  (r) => {
    const hobby = pick(r, HOBBIES);
    const center = pick(r, CENTERS);
    return {
      statement: `I finally signed up for a ${hobby} class at the ${center}, and the first session was so much fun.`,
      question: (w) => `What class did ${w} sign up for at the ${center}?`,
      answer: hobby,
      activity: hobby,
      when: (w) => `When did ${w} start the ${hobby} class?`,
      wouldEnjoy: (w) => `Would ${w} enjoy a weekend workshop on ${hobby}?`,
      reason: `Likely yes; they signed up for a ${hobby} class and loved it`,
    };
  },
  (r) => {
    const place = pick(r, PLACES);
    const family = pick(r, FAMILY);
    return {
      statement: `My ${family} and I just got back from a camping trip to ${place}. The stars at night were unreal!`,
      question: (w) => `Where did ${w} go camping with their ${family}?`,
      answer: place,
      activity: 'camping',
      when: (w) => `When did ${w} go camping at ${place}?`,
      wouldEnjoy: (w) => `Would ${w} be interested in a national park pass?`,
      reason: `Likely yes; they enjoy camping and went to ${place}`,
      photo: `a tent under a starry sky`,
    };
  },
  (r) => {
    const book = pick(r, BOOKS);
    return {
      statement: `I've been reading "${book}" before bed and I honestly can't put it down.`,
      question: (w) => `What book has ${w} been reading before bed?`,
      answer: book,
      activity: 'reading',
      when: (w) => `When was ${w} reading "${book}"?`,
      wouldEnjoy: (w) => `Would ${w} likely join a book club?`,
      reason: `Likely yes; they love reading, for example "${book}"`,
    };
  },
  (r) => {
    const job = pick(r, JOBS);
    const company = pick(r, COMPANIES);
    return {
      statement: `Big news: I started a new job as a ${job} at ${company}! It's scary but in a good way.`,
      question: (w) => `What job did ${w} start at ${company}?`,
      answer: job,
      when: (w) => `When did ${w} start working as a ${job}?`,
      wouldEnjoy: (w) => `Is ${w} likely to change careers again soon?`,
      reason: `Likely no; they just started as a ${job} and are excited about it`,
    };
  },
  (r) => {
    const dish = pick(r, DISHES);
    const meal = pick(r, MEALS);
    return {
      statement: `I tried making ${dish} from scratch for ${meal} and everyone went back for seconds.`,
      question: (w) => `What did ${w} make from scratch for ${meal}?`,
      answer: dish,
      activity: 'cooking',
      when: (w) => `When did ${w} make ${dish} from scratch?`,
      wouldEnjoy: (w) => `Would ${w} enjoy a cooking class?`,
      reason: `Likely yes; they cook from scratch, like the ${dish}`,
      photo: `a plate of ${dish} on a wooden table`,
    };
  },
  (r) => {
    const event = pick(r, EVENTS);
    const weekday = pick(r, DAYS);
    return {
      statement: `I went to a ${event} on ${weekday} and it was so inspiring to see everyone come together.`,
      question: (w) => `What event did ${w} go to on ${weekday}?`,
      answer: event,
      when: (w) => `When did ${w} go to the ${event}?`,
      wouldEnjoy: (w) => `Would ${w} likely attend a similar community event?`,
      reason: `Likely yes; they found the ${event} inspiring`,
    };
  },
  (r) => {
    const instrument = pick(r, INSTRUMENTS);
    return {
      statement: `I've been practicing the ${instrument} every evening, my fingers hurt but I can play a whole song now.`,
      question: (w) => `What instrument has ${w} been practicing?`,
      answer: instrument,
      activity: `playing the ${instrument}`,
      when: (w) => `When did ${w} learn a whole song on the ${instrument}?`,
      wouldEnjoy: (w) => `Would ${w} enjoy going to a concert?`,
      reason: `Likely yes; they practice the ${instrument} every evening`,
      photo: `a ${instrument} leaning against a wall`,
    };
  },
  (r) => {
    const org = pick(r, ORGS);
    const weekday = pick(r, DAYS);
    return {
      statement: `I started volunteering at the ${org} on ${weekday}s, it keeps me grounded.`,
      question: (w) => `Where does ${w} volunteer on ${weekday}s?`,
      answer: org,
      activity: 'volunteering',
      when: (w) => `When did ${w} start volunteering at the ${org}?`,
      wouldEnjoy: (w) => `Would ${w} likely donate to a charity drive?`,
      reason: `Likely yes; they volunteer at the ${org}`,
    };
  },
  (r) => {
    const race = pick(r, RACES);
    const city = pick(r, CITIES);
    return {
      statement: `I ran my first ${race} in ${city} and crossed the finish line in tears, it was such a rush.`,
      question: (w) => `What race did ${w} run in ${city}?`,
      answer: race,
      activity: 'running',
      when: (w) => `When did ${w} run the ${race}?`,
      wouldEnjoy: (w) => `Would ${w} sign up for another race?`,
      reason: `Likely yes; the ${race} was a rush for them`,
      photo: `a runner crossing a finish line`,
    };
  },
  (r) => {
    const relative = pick(r, RELATIVES);
    const gift = pick(r, GIFTS);
    return {
      statement: `My ${relative} surprised me with a ${gift} for my birthday, I almost cried.`,
      question: (w) => `What did ${w}'s ${relative} give them for their birthday?`,
      answer: gift,
      when: (w) => `When did ${w} get a ${gift} from their ${relative}?`,
      wouldEnjoy: (w) => `Is ${w} close to their ${relative}?`,
      reason: `Likely yes; their ${relative} gave them a thoughtful ${gift}`,
    };
  },
  (r) => {
    const subject = pick(r, SUBJECTS);
    const weekday = pick(r, DAYS);
    return {
      statement: `I painted a ${subject} on ${weekday}, want to see? I'm kind of proud of it.`,
      question: (w) => `What did ${w} paint on ${weekday}?`,
      answer: subject,
      activity: 'painting',
      when: (w) => `When did ${w} paint the ${subject}?`,
      wouldEnjoy: (w) => `Would ${w} enjoy visiting an art museum?`,
      reason: `Likely yes; they paint, for example a ${subject}`,
      photo: `a painting of a ${subject}`,
    };
  },
  (r) => {
    const city = pick(r, CITIES);
    const season = pick(r, SEASONS);
    return {
      statement: `I'm moving to ${city} next ${season}, can you believe it? I've wanted this for years.`,
      question: (w) => `Where is ${w} moving next ${season}?`,
      answer: city,
      when: (w) => `When is ${w} moving to ${city}?`,
      wouldEnjoy: (w) => `Would ${w} likely enjoy living abroad or in a new city?`,
      reason: `Likely yes; they are excited about moving to ${city}`,
    };
  },
  (r) => {
    const band = pick(r, BANDS);
    const venue = pick(r, VENUES);
    return {
      statement: `I saw ${band} live at ${venue} and sang until I lost my voice!`,
      question: (w) => `Who did ${w} see live at ${venue}?`,
      answer: band,
      activity: 'going to concerts',
      when: (w) => `When did ${w} see ${band} live?`,
      wouldEnjoy: (w) => `Would ${w} buy tickets to another concert?`,
      reason: `Likely yes; they loved seeing ${band} live`,
      photo: `a crowd at a concert with stage lights`,
    };
  },
];

// ---------------------------------------------------------------- one sample

interface Stated {
  event: LifeEvent;
  speaker: string;
  diaId: string;
  /** The session's date, `8 May, 2023`. */
  day: { d: number; month: string; year: number };
}

function dateTime(r: Random, day: Date): string {
  const hour = between(r, 1, 12);
  const minute = String(between(r, 0, 59)).padStart(2, '0');
  return `${hour}:${minute} ${r() < 0.5 ? 'am' : 'pm'} on ${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]}, ${day.getUTCFullYear()}`;
}

/** `n` positive counts summing to `total`, each at least `min`, unevenly spread. */
function split(r: Random, total: number, n: number, min: number): number[] {
  const weights = Array.from({ length: n }, () => 0.5 + r());
  const sum = weights.reduce((a, b) => a + b, 0);
  const out = weights.map((w) => Math.max(min, Math.floor((w / sum) * total)));
  let diff = total - out.reduce((a, b) => a + b, 0);
  for (let i = 0; diff !== 0; i = (i + 1) % n) {
    if (diff > 0) {
      out[i]++;
      diff--;
    } else if (out[i] > min) {
      out[i]--;
      diff++;
    }
  }
  return out;
}

/** Questions of each category for a sample, in the file's overall mix (largest remainder). */
function categoryCounts(questions: number): Record<1 | 2 | 3 | 4 | 5, number> {
  const cats = [1, 2, 3, 4, 5] as const;
  const total = cats.reduce((n, c) => n + CATEGORY_SHARE[c], 0);
  const exact = cats.map((c) => (questions * CATEGORY_SHARE[c]) / total);
  const out = exact.map(Math.floor);
  const order = cats.map((_, i) => i).sort((a, b) => exact[b] - out[b] - (exact[a] - out[a]));
  for (let k = 0; out.reduce((a, b) => a + b, 0) < questions; k++) out[order[k % cats.length]]++;
  return { 1: out[0], 2: out[1], 3: out[2], 4: out[3], 5: out[4] };
}

function relativeDay(r: Random, day: Stated['day']): string {
  const form = r();
  if (form < 0.5) return `${day.d} ${day.month} ${day.year}`;
  if (form < 0.75) return `The week before ${day.d} ${day.month} ${day.year}`;
  return `The weekend before ${day.d} ${day.month} ${day.year}`;
}

function sample(index: number, seed: number): LocomoSample {
  const shape = SHAPES[index % SHAPES.length];
  const r = seededRandom((Math.floor(seed) * 7919 + index * 104729 + 0x2545f491) >>> 0);
  const a = pick(r, NAMES);
  let b = pick(r, NAMES);
  while (b === a) b = pick(r, NAMES);
  const conversation: LocomoSample['conversation'] = { speaker_a: a, speaker_b: b };
  const eventSummary: LocomoSample['event_summary'] = {};
  const observation: LocomoSample['observation'] = {};
  const sessionSummary: LocomoSample['session_summary'] = {};
  const stated: Stated[] = [];
  const perSession = split(r, shape.turns, shape.sessions, 8);
  const day = new Date(Date.UTC(2022 + between(r, 0, 1), between(r, 0, 11), between(r, 1, 28)));
  // About one line in three states a life event: enough for every question to have its own.
  const eventEvery = Math.max(2, Math.floor(shape.turns / (shape.questions * 0.9)));
  for (let s = 1; s <= shape.sessions; s++) {
    day.setUTCDate(day.getUTCDate() + between(r, 3, 24));
    const today = { d: day.getUTCDate(), month: MONTHS[day.getUTCMonth()], year: day.getUTCFullYear() };
    conversation[`session_${s}_date_time`] = dateTime(r, day);
    const lines: LocomoLine[] = [];
    const events: Record<string, string[]> = { [a]: [], [b]: [] };
    const seen: Record<string, [string, string][]> = { [a]: [], [b]: [] };
    let speaker = r() < 0.5 ? a : b;
    for (let n = 1; n <= perSession[s - 1]; n++) {
      const other = speaker === a ? b : a;
      const diaId = `D${s}:${n}`;
      const line: LocomoLine = { speaker, dia_id: diaId, text: '' };
      if (n > 1 && r() < 1 / eventEvery) {
        const event = pick(r, EVENT_MAKERS)(r);
        line.text = r() < 0.3 ? `${pick(r, OPENERS)(r, speaker, other)} ${event.statement}` : event.statement;
        stated.push({ event, speaker, diaId, day: today });
        events[speaker].push(event.statement.replace(/^I /, `${speaker} `));
        seen[speaker].push([`${speaker} said: ${event.statement}`, diaId]);
        if (event.photo && r() < 0.5) {
          line.img_url = [`https://example.invalid/locomo-shaped/${index + 1}/${s}-${n}.jpg`];
          line.blip_caption = `a photo of ${event.photo}`;
          line.query = event.photo;
        }
      } else {
        line.text = smallTalk(r, speaker, other);
        if (r() < 0.11) {
          const thing = pick(r, PHOTO_THINGS);
          line.img_url = [`https://example.invalid/locomo-shaped/${index + 1}/${s}-${n}.jpg`];
          line.blip_caption = `a photo of ${thing}`;
          line.query = thing.replace(/^an? /, '');
          // Some shared images come with no words at all, as in the real data.
          if (r() < 0.1) line.text = '';
        } else if (r() < 0.15) {
          seen[speaker].push([`${speaker} mentioned: ${line.text}`, diaId]);
        }
      }
      lines.push(line);
      // Mostly alternating; now and then one speaker says two lines in a row.
      if (r() < 0.92) speaker = other;
    }
    conversation[`session_${s}`] = lines;
    eventSummary[`events_session_${s}`] = { ...events, date: `${today.d} ${today.month}, ${today.year}` };
    observation[`session_${s}_observation`] = seen;
    const topics = [...events[a], ...events[b]];
    sessionSummary[`session_${s}_summary`] =
      `${a} and ${b} caught up on ${today.d} ${today.month}, ${today.year}. ` +
      (topics.length > 0 ? `${topics.join(' ')} ` : 'They mostly chatted about how their weeks had been. ') +
      `${a} talked about ${pick(r, THINGS)} and ${pick(r, VALUES)}, while ${b} shared thoughts on ${pick(r, THINGS)} and feeling ${pick(r, FEELINGS)}. ` +
      `They agreed to keep each other posted and to plan something for the ${pick(r, SEASONS)}.`;
  }
  return { qa: questions(r, shape.questions, stated, a, b), conversation, event_summary: eventSummary, observation, session_summary: sessionSummary, sample_id: `conv-shaped-${index + 1}` };
}

function questions(r: Random, count: number, stated: Stated[], a: string, b: string): LocomoQa[] {
  const counts = categoryCounts(count);
  const qa: LocomoQa[] = [];
  const any = () => pick(r, stated);
  for (let i = 0; i < counts[4]; i++) {
    const s = any();
    qa.push({ question: s.event.question(s.speaker), answer: s.event.answer, evidence: [s.diaId], category: 4 });
  }
  for (let i = 0; i < counts[1]; i++) {
    const who = r() < 0.5 ? a : b;
    const mine = stated.filter((s) => s.speaker === who && s.event.activity !== undefined);
    const chosen: Stated[] = [];
    for (let k = 0, want = between(r, 2, 4); k < want * 4 && chosen.length < want && mine.length > 0; k++) {
      const s = pick(r, mine);
      if (!chosen.some((c) => c.event.activity === s.event.activity)) chosen.push(s);
    }
    if (chosen.length < 2) {
      const s = any();
      qa.push({ question: s.event.question(s.speaker), answer: s.event.answer, evidence: [s.diaId], category: 1 });
      continue;
    }
    qa.push({
      question: pick(r, [`What activities has ${who} done?`, `What hobbies does ${who} have?`, `What does ${who} do to unwind?`]),
      answer: chosen.map((c) => c.event.activity as string).join(', '),
      evidence: chosen.map((c) => c.diaId),
      category: 1,
    });
  }
  for (let i = 0; i < counts[2]; i++) {
    const s = any();
    qa.push({ question: s.event.when(s.speaker), answer: relativeDay(r, s.day), evidence: [s.diaId], category: 2 });
  }
  for (let i = 0; i < counts[3]; i++) {
    const s = any();
    qa.push({ question: s.event.wouldEnjoy(s.speaker), answer: s.event.reason, evidence: [s.diaId], category: 3 });
  }
  for (let i = 0; i < counts[5]; i++) {
    // Asked of the other speaker: the conversation never says it of them.
    const s = any();
    const other = s.speaker === a ? b : a;
    qa.push({ question: s.event.question(other), adversarial_answer: s.event.answer, evidence: [s.diaId], category: 5 });
  }
  // The real file mixes categories; keep each category's order but interleave them.
  return qa
    .map((q) => ({ q, k: r() }))
    .sort((x, y) => x.k - y.k)
    .map((x) => x.q);
}

/** The samples of a generated LoCoMo-shaped file. */
export function generateLocomoShaped(options: LocomoShapedOptions): LocomoSample[] {
  const count = options.samples ?? SHAPES.length;
  return Array.from({ length: count }, (_, i) => sample(i, options.seed));
}

/** The file's text, indented by two spaces. */
export function locomoShapedJson(options: LocomoShapedOptions): string {
  return `${JSON.stringify(generateLocomoShaped(options), null, 2)}\n`;
}
