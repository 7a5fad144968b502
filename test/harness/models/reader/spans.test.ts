import { describe, expect, it } from 'vitest';
import { type Span, type SpanType, findSpans, listAround, parseNumber } from '../../../../harness/models/reader/spans.js';

/** The spans of a text as [type, text] pairs, the shape most cases compare. */
function pairs(text: string): Array<[SpanType, string]> {
  return findSpans(text).map((s) => [s.type, s.text]);
}

/** The one span whose text is `text` (it must exist). */
function spanOf(source: string, text: string): Span {
  const span = findSpans(source).find((s) => s.text === text);
  expect(span, `a span ${JSON.stringify(text)} in ${JSON.stringify(source)}`).toBeDefined();
  return span as Span;
}

/** The texts of the spans of one type. */
function textsOf(source: string, type: SpanType): string[] {
  return findSpans(source)
    .filter((s) => s.type === type)
    .map((s) => s.text);
}

describe('money', () => {
  it('reads currency symbols and codes, with the value and the currency as unit', () => {
    expect(pairs('Refund of $1,140 and $89.00, €500, £12, USD 9870.00 and $4.2M approved.')).toEqual([
      ['money', '$1,140'],
      ['money', '$89.00'],
      ['money', '€500'],
      ['money', '£12'],
      ['money', 'USD 9870.00'],
      ['money', '$4.2M'],
    ]);
    expect(spanOf('It came to $1,140.', '$1,140')).toMatchObject({ value: 1140, unit: '$' });
    expect(spanOf('It came to USD 9870.00 in total.', 'USD 9870.00')).toMatchObject({ value: 9870, unit: 'USD' });
    expect(spanOf('Raised $4.2M so far.', '$4.2M')).toMatchObject({ value: 4_200_000 });
  });

  it('reads currency words and spelled amounts', () => {
    expect(pairs('20 dollars, five bucks, 30 cents and 500 EUR')).toEqual([
      ['money', '20 dollars'],
      ['money', 'five bucks'],
      ['money', '30 cents'],
      ['money', '500 EUR'],
    ]);
    expect(spanOf('It was five bucks.', 'five bucks')).toMatchObject({ value: 5, unit: 'bucks' });
  });

  it('reads a bare amount as money only after a word that says so', () => {
    expect(pairs('The total 129.99 was charged; price: 42.50.')).toEqual([
      ['money', '129.99'],
      ['money', '42.50'],
    ]);
    expect(pairs('Size 129.99 is odd.')).toEqual([['number', '129.99']]);
  });
});

describe('percent', () => {
  it('reads % and "percent"', () => {
    expect(pairs('A 5% discount, or 10 percent for members.')).toEqual([
      ['percent', '5%'],
      ['percent', '10 percent'],
    ]);
    expect(spanOf('Down 22.7% now.', '22.7%')).toMatchObject({ value: 22.7, unit: '%' });
  });
});

describe('quantity', () => {
  it('is a number with its unit', () => {
    const text =
      'I weigh 80.6 kg, ate 140 g, slept 36 hours; lag 412 MB then 1.9 GB; 20 rooms for 110 guests; ran 18 km; an 8-foot opening; 22 days.';
    expect(textsOf(text, 'quantity')).toEqual(['80.6 kg', '140 g', '36 hours', '412 MB', '1.9 GB', '20 rooms', '110 guests', '18 km', '8-foot', '22 days']);
    expect(spanOf(text, '80.6 kg')).toMatchObject({ value: 80.6, unit: 'kg' });
    expect(spanOf(text, '110 guests')).toMatchObject({ value: 110, unit: 'guests' });
    expect(spanOf(text, '8-foot')).toMatchObject({ value: 8, unit: 'foot' });
  });

  it('takes the count of "3 sets of 15" and leaves 15 a number', () => {
    expect(pairs('Do 3 sets of 15, three times a week.')).toEqual([
      ['quantity', '3 sets'],
      ['number', '15'],
      ['quantity', 'three times'],
    ]);
  });

  it('counts number words, units written on the digits, ranges and one adjective between', () => {
    expect(pairs('five guests for three days, twenty-five minutes, a dozen eggs')).toEqual([
      ['quantity', 'five guests'],
      ['quantity', 'three days'],
      ['quantity', 'twenty-five minutes'],
      ['quantity', 'a dozen eggs'],
    ]);
    expect(spanOf('five guests', 'five guests')).toMatchObject({ value: 5, unit: 'guests' });
    expect(textsOf('80.6kg and 1.9GB in 36h', 'quantity')).toEqual(['80.6kg', '1.9GB', '36h']);
    expect(spanOf('arrive in 3 to 5 days', '3 to 5 days')).toMatchObject({ value: 3, unit: 'days' });
    expect(spanOf('We have 2 big dogs.', '2 big dogs')).toMatchObject({ value: 2, unit: 'dogs' });
  });

  it('does not take a verb, a year or a code for a count', () => {
    expect(pairs('Lamp BC-4472310 arrives Friday.')).toEqual([
      ['identifier', 'BC-4472310'],
      ['weekday', 'Friday'],
    ]);
    expect(pairs('That 5k suggests an easy pace.')).toEqual([['number', '5k']]);
    expect(textsOf('A 1907 house needs a check.', 'quantity')).toEqual([]);
    expect(textsOf('SEV-1 noted.', 'quantity')).toEqual([]);
  });
});

describe('number', () => {
  it('is a bare number not part of anything else', () => {
    expect(pairs('Table 5 has 48213496 entries?')).toEqual([
      ['number', '5'],
      ['quantity', '48213496 entries'],
    ]);
    expect(pairs('It was 57, then 48213496.')).toEqual([
      ['number', '57'],
      ['number', '48213496'],
    ]);
    expect(spanOf('It was 1,204 in the end.', '1,204')).toMatchObject({ value: 1204 });
  });

  it('reads spelled numbers but not the pronoun "one"', () => {
    expect(pairs('Twelve of us came, not the one I liked.')).toEqual([['number', 'Twelve']]);
    expect(spanOf('we were twelve', 'twelve')).toMatchObject({ value: 12 });
  });
});

describe('time', () => {
  it('keeps a zone named in words with its time, so it is no name', () => {
    expect(pairs('Core hours are 10:00 to 15:00 Pacific; the call is 9am Eastern time.')).toEqual([
      ['time', '10:00'],
      ['time', '15:00 Pacific'],
      ['time', '9am Eastern time'],
    ]);
    expect(textsOf('Pacific Gas sends the bill.', 'name')).toEqual(['Pacific Gas']);
  });

  it('reads clock times, am/pm and zones', () => {
    expect(pairs('Meet at 14:00, 06:30, 1:00 pm, 9am or 01:00 UTC.')).toEqual([
      ['time', '14:00'],
      ['time', '06:30'],
      ['time', '1:00 pm'],
      ['time', '9am'],
      ['time', '01:00 UTC'],
    ]);
    expect(textsOf('noon, 5 o’clock, 9:30 a.m. and 7 PM EST', 'time')).toEqual(['noon', '5 o’clock', '9:30 a.m.', '7 PM EST']);
  });

  it('types a score like a time (the reader decides)', () => {
    expect(pairs('Final score 25:55.')).toEqual([['time', '25:55']]);
  });
});

describe('identifier', () => {
  it('reads a code written in spaced groups after "number", with the word before as its label', () => {
    expect(spanOf('Added VAT number GB 293 1847 22.', 'GB 293 1847 22')).toMatchObject({ type: 'identifier', label: 'VAT' });
    expect(textsOf('We need 2 number 10 envelopes.', 'identifier')).toEqual([]);
  });

  it('reads codes with letters and digits or dash-joined capitals', () => {
    const codes = [
      'RMA-66120', 'BLD-2026-04417', 'PO-2025-0412', 'FL-LT-2291', 'CLM-2026-118457', 'BC-4471829', 'AX3000', 'PF4X9K40',
      'MTWED25', 'C-10482', 'Q-88213-R1', 'HO-7712-0394', '2BX4H-HALO2', 'FL-LT',
    ];
    expect(pairs(`Codes: ${codes.join(', ')}.`)).toEqual(codes.map((c) => ['identifier', c]));
  });

  it('takes the code after a label and keeps the label', () => {
    expect(findSpans('Patient MRN 00482917 was admitted.')).toEqual([
      { type: 'identifier', text: '00482917', start: 12, end: 20, label: 'MRN' },
    ]);
    expect(spanOf('See ticket #4417 please.', '#4417')).toMatchObject({ type: 'identifier', label: 'ticket' });
    expect(spanOf('My order 4417 shipped.', '4417')).toMatchObject({ type: 'identifier', label: 'order' });
    expect(spanOf('Your ticket no. 20931 is open.', '20931')).toMatchObject({ type: 'identifier', label: 'ticket' });
    // As a record field the whole key is the label.
    expect(spanOf('ticket number: 20931', '20931')).toMatchObject({ type: 'identifier', label: 'ticket number' });
  });

  it('reads a commit hash: lower-case hex of 7 or more with a digit and a letter', () => {
    expect(pairs('Reverted 9f3c2ab; the fix is commit e41b7d0.').map(([type, text]) => [type, text])).toEqual([
      ['identifier', '9f3c2ab'],
      ['identifier', 'e41b7d0'],
    ]);
    // Words, years and short hex are no hashes; nor is the end of a host name.
    expect(textsOf('We added a decade of data in 2014; see 4f2a and checkout-7d9f8c6b5.', 'identifier')).toEqual([]);
  });

  it('reads snake_case names and file names', () => {
    expect(pairs('Slot mig_orders_16 ran count_compare.sql.')).toEqual([
      ['identifier', 'mig_orders_16'],
      ['identifier', 'count_compare.sql'],
    ]);
  });
});

describe('host', () => {
  it('reads host names, domains and addresses', () => {
    expect(pairs('Hosts db-orders-16a, halo2-staging.example.com, 10.0.3.17, api.example.com:8443 and pgbouncer-2.')).toEqual([
      ['host', 'db-orders-16a'],
      ['host', 'halo2-staging.example.com'],
      ['host', '10.0.3.17'],
      ['host', 'api.example.com:8443'],
      ['host', 'pgbouncer-2'],
    ]);
  });

  it('leaves hyphenated English words and lower-case words without a digit', () => {
    expect(textsOf('A mid-2020 top-10 list from orders-worker, e.g. covid-19.', 'host')).toEqual([]);
  });
});

describe('version', () => {
  it('reads v-versions, dotted triples and numbers after a product or version word', () => {
    expect(pairs('Upgrade to v1.0.3; PostgreSQL 16.2 is on db-orders-16a. Firmware 2.3 is out.')).toEqual([
      ['version', 'v1.0.3'],
      ['name', 'PostgreSQL'],
      ['version', '16.2'],
      ['host', 'db-orders-16a'],
      ['version', '2.3'],
    ]);
    expect(textsOf('Python 3.12.3, iOS 17, version 2, firmware from 2.1 to 2.3', 'version')).toEqual(['3.12.3', '17', '2', '2.1', '2.3']);
  });

  it('does not read a unit count after a version word as a version', () => {
    expect(pairs('The release 3 days ago')).toEqual([['quantity', '3 days']]);
  });
});

describe('email, phone, url', () => {
  it('reads each', () => {
    expect(pairs('Email dana@example.com or call +1 415-555-0134 or (415) 555-0134, see https://example.com/docs.')).toEqual([
      ['email', 'dana@example.com'],
      ['phone', '+1 415-555-0134'],
      ['phone', '(415) 555-0134'],
      ['url', 'https://example.com/docs'],
    ]);
  });

  it('reads a seven-digit number as a phone only when the sentence says phone', () => {
    expect(pairs('Call me at 555-0134.')).toEqual([['phone', '555-0134']]);
    expect(textsOf('Rows 555-0134 were skipped.', 'phone')).toEqual([]);
  });
});

describe('name', () => {
  it('never reads a pronoun with a contraction at the start of a sentence as a name', () => {
    expect(textsOf("We've got a pup and a kitty.", 'name')).toEqual([]);
    expect(textsOf("You've got people to lean on, Melanie.", 'name')).toEqual(['Melanie']);
    expect(textsOf("They're back, said Dana.", 'name')).toEqual(['Dana']);
  });

  it('reads capitalised sequences with titles, suffixes and connectors', () => {
    expect(textsOf('Please ask Rev. Dana Whitfield and Dr. Okafor.', 'name')).toEqual(['Rev. Dana Whitfield', 'Dr. Okafor']);
    expect(textsOf('Kenji Ito booked Harbor View Pavilion with Kestrel Foods and Crumb & Co. for the party.', 'name')).toEqual([
      'Kenji Ito',
      'Harbor View Pavilion',
      'Kestrel Foods',
      'Crumb & Co.',
    ]);
    expect(textsOf('We picked Pietra Grey and I ran the Lakeshore Half Marathon.', 'name')).toEqual(['Pietra Grey', 'Lakeshore Half Marathon']);
    expect(textsOf('Dana Whitfield is change manager tonight.', 'name')).toEqual(['Dana Whitfield']);
    expect(textsOf('Bank of America and John F. Kennedy', 'name')).toEqual(['Bank of America', 'John F. Kennedy']);
  });

  it('drops the possessive', () => {
    expect(textsOf("Check Dana Whitfield's notes.", 'name')).toEqual(['Dana Whitfield']);
  });

  it('keeps a lone sentence-initial name only with evidence it is one', () => {
    expect(textsOf('Gina said the interviews are next month.', 'name')).toEqual(['Gina']);
    expect(textsOf('Jon lost his job.', 'name')).toEqual(['Jon']);
    expect(textsOf('Caroline: Hey Mel! Good to see you.', 'name')).toEqual(['Caroline', 'Mel']);
    expect(textsOf('Dana, Kenji and Priya are on call.', 'name')).toEqual(['Dana', 'Kenji', 'Priya']);
    expect(textsOf('Hard rule from finance. Maintenance mode at 01:00? Lag now?', 'name')).toEqual([]);
  });

  it('is not an ordinary word opening a sentence', () => {
    expect(findSpans('Thanks, that works. Great! Also I think OK is fine. Sounds good.')).toEqual([]);
    expect(textsOf('Starting tonight. Honestly, no. Added it. Travel, what is the limit?', 'name')).toEqual([]);
    expect(textsOf('Thanks Dana, and hi Kenji.', 'name')).toEqual(['Dana', 'Kenji']);
  });

  it('is not a weekday, a month or an all-caps code', () => {
    expect(textsOf('Monday works, June too; the LGBTQ group and USD.', 'name')).toEqual([]);
    expect(textsOf('Leaving Newark May 14 at 21:40.', 'name')).toEqual(['Newark']);
    expect(textsOf("So what will April's invoice be?", 'name')).toEqual([]);
  });
});

describe('currency', () => {
  it('reads a currency named without an amount, by code or by name', () => {
    expect(pairs('Report every amount in EUR; the raw data mixes USD and GBP.')).toEqual([
      ['currency', 'EUR'],
      ['currency', 'USD'],
      ['currency', 'GBP'],
    ]);
    expect(textsOf('Paid in euros, not Swiss francs.', 'currency')).toEqual(['euros', 'Swiss francs']);
  });

  it('leaves an amount whole: a code or a unit beside a number is money or a quantity', () => {
    expect(pairs('Total 1,200 USD.')).toEqual([['money', '1,200 USD']]);
    expect(textsOf('Five pounds of flour, 20 dollars, 90 cents.', 'currency')).toEqual([]);
  });
});

describe('platform', () => {
  it('reads an operating system or a browser by name, with its version', () => {
    expect(pairs('By the way, I am using Windows 10.')).toEqual([['platform', 'Windows 10']]);
    expect(pairs('Works in Chrome 126 and Firefox, not on macOS or Ubuntu.')).toEqual([
      ['platform', 'Chrome'],
      ['version', '126'],
      ['platform', 'Firefox'],
      ['platform', 'macOS'],
      ['platform', 'Ubuntu'],
    ]);
  });

  it('leaves common words alone', () => {
    expect(textsOf('Edge cases at the opera; brave and chrome-plated.', 'platform')).toEqual([]);
  });
});

describe('diet', () => {
  it('reads a diet by name, with "strictly" before it', () => {
    expect(textsOf("I'm not strictly vegetarian, I eat fish, so pescatarian. Sam is gluten-free; Zoe is vegan.", 'diet')).toEqual([
      'strictly vegetarian',
      'pescatarian',
      'gluten-free',
      'vegan',
    ]);
  });
});

describe('weekday', () => {
  it('reads full names, plurals and capitalised abbreviations', () => {
    expect(pairs('Tuesday, Thursday and Sundays; Mon and Wed.')).toEqual([
      ['weekday', 'Tuesday'],
      ['weekday', 'Thursday'],
      ['weekday', 'Sundays'],
      ['weekday', 'Mon'],
      ['weekday', 'Wed'],
    ]);
    expect(textsOf('We sat in the Sun.', 'weekday')).toEqual([]);
  });
});

describe('overlaps', () => {
  it('lets the more specific span win over its parts', () => {
    expect(pairs('$4.2M at 10.0.3.17 for 1:00 pm')).toEqual([
      ['money', '$4.2M'],
      ['host', '10.0.3.17'],
      ['time', '1:00 pm'],
    ]);
    expect(pairs('PO-2025-0412 and 5GB and 5%')).toEqual([
      ['identifier', 'PO-2025-0412'],
      ['quantity', '5GB'],
      ['percent', '5%'],
    ]);
    expect(pairs('dana@example.com, https://api.example.com/v1')).toEqual([
      ['email', 'dana@example.com'],
      ['url', 'https://api.example.com/v1'],
    ]);
  });

  it('returns spans in order and never overlapping', () => {
    const text =
      'Dana Whitfield moved CHG-3391 from db-orders-03 (PostgreSQL 13.14) to db-orders-16a at 01:00 UTC on May 8; lag 412 MB, ' +
      'refund $89.00 (5%), 3 sets of 15, call +1 415-555-0134, see https://x.example.com/a?b=1, MRN 00482917, 2026-04-18T00:40:00Z.';
    const spans = findSpans(text);
    expect(spans.length).toBeGreaterThan(10);
    for (let i = 0; i < spans.length; i++) {
      expect(spans[i].text).toBe(text.slice(spans[i].start, spans[i].end));
      if (i > 0) expect(spans[i].start).toBeGreaterThanOrEqual(spans[i - 1].end);
    }
  });
});

describe('JSON and keyed values', () => {
  it('labels values with their key and types numbers by it', () => {
    const text = '{"order":"BC-4471829","return_window_days":30,"price":"129.99"}';
    expect(findSpans(text)).toEqual([
      { type: 'identifier', text: 'BC-4471829', start: 10, end: 20, label: 'order' },
      { type: 'quantity', text: '30', start: 43, end: 45, value: 30, unit: 'days', label: 'return_window_days' },
      { type: 'money', text: '129.99', start: 55, end: 61, value: 129.99, label: 'price' },
    ]);
  });

  it('reads arrays, nested objects and key hints, and never a key', () => {
    const text =
      '{"slot":"mig_orders_16","lag_bytes":432013312,"lag_pretty":"412 MB","active":true,"hosts":["db-orders-03","db-orders-16a"],' +
      '"ids":[10,200,300],"customer":{"name":"Dana Whitfield","order_id":4417,"discount_pct":5,"total_rows":1200,"current":140}}';
    const got = findSpans(text).map((s) => [s.type, s.text, s.label, s.unit]);
    expect(got).toEqual([
      ['identifier', 'mig_orders_16', 'slot', undefined],
      ['quantity', '432013312', 'lag_bytes', 'bytes'],
      ['quantity', '412 MB', 'lag_pretty', 'MB'],
      ['host', 'db-orders-03', 'hosts', undefined],
      ['host', 'db-orders-16a', 'hosts', undefined],
      ['number', '10', 'ids', undefined],
      ['number', '200', 'ids', undefined],
      ['number', '300', 'ids', undefined],
      ['name', 'Dana Whitfield', 'name', undefined],
      ['identifier', '4417', 'order_id', undefined],
      ['percent', '5', 'discount_pct', '%'],
      ['quantity', '1200', 'total_rows', 'rows'],
      ['number', '140', 'current', undefined],
    ]);
  });

  it('labels key=value pairs and "key: value" records', () => {
    expect(findSpans('target=db-orders-16a subscription=mig_orders_16').map((s) => [s.type, s.text, s.label])).toEqual([
      ['host', 'db-orders-16a', 'target'],
      ['identifier', 'mig_orders_16', 'subscription'],
    ]);
    expect(findSpans('order: BC-4471829, return window days: 30, price: 129.99').map((s) => [s.type, s.text, s.label, s.unit])).toEqual([
      ['identifier', 'BC-4471829', 'order', undefined],
      ['quantity', '30', 'return window days', 'days'],
      ['money', '129.99', 'price', undefined],
    ]);
  });

  it('labels a record value only when the span is the whole value', () => {
    expect(findSpans('Plan: stop writes at 01:00, then compare.').map((s) => s.label)).toEqual([undefined]);
  });
});

describe('parseNumber', () => {
  it.each([
    ['$1,140', 1140],
    ['$4.2M', 4_200_000],
    ['€1.5bn', 1_500_000_000],
    ['$5 million', 5_000_000],
    ['-$50', -50],
    ['USD 9870.00', 9870],
    ['80.6 kg', 80.6],
    ['3-4 days', 3],
    ['10k', 10_000],
    ['5m', 5],
    ['1/2', 0.5],
    ['twelve', 12],
    ['twenty-five', 25],
    ['two hundred', 200],
    ['a dozen', 12],
    ['hundred', 100],
    ['thousand', 1000],
    ['five guests', 5],
  ])('%s → %d', (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it('is undefined for a text without a number', () => {
    expect(parseNumber('guests')).toBeUndefined();
    expect(parseNumber('')).toBeUndefined();
  });
});

describe('listAround', () => {
  const around = (text: string, word: string): string | undefined => {
    const spans = findSpans(text);
    const at = text.indexOf(word);
    const span = spans.find((s) => s.start === at) ?? { type: 'name' as const, text: word, start: at, end: at + word.length };
    return listAround(text, span, spans)?.text;
  };

  it('finds the list of same-type spans around a span', () => {
    const days = 'Available Tuesday, Thursday and Sunday for training.';
    expect(around(days, 'Tuesday')).toBe('Tuesday, Thursday and Sunday');
    expect(around(days, 'Thursday')).toBe('Tuesday, Thursday and Sunday');
    expect(around(days, 'Sunday')).toBe('Tuesday, Thursday and Sunday');
    expect(around('Hosts db-orders-03, db-orders-16a, and pgbouncer-2 were patched.', 'db-orders-16a')).toBe('db-orders-03, db-orders-16a, and pgbouncer-2');
    expect(around('Call at 14:00 or 16:00 UTC.', '14:00')).toBe('14:00 or 16:00 UTC');
  });

  it('returns the span position and stops where the list ends', () => {
    const text = 'Dana, Kenji and Priya are on call; Marcus is off.';
    const spans = findSpans(text);
    const kenji = spans.find((s) => s.text === 'Kenji') as Span;
    expect(listAround(text, kenji, spans)).toEqual({ start: 0, end: 21, text: 'Dana, Kenji and Priya' });
    const marcus = spans.find((s) => s.text === 'Marcus') as Span;
    expect(listAround(text, marcus, spans)).toBeUndefined();
    expect(around('Monday and Tuesday, Friday', 'Friday')).toBeUndefined();
  });

  it('does not join spans of different types', () => {
    expect(around('Dana and 3 guests', 'Dana')).toBeUndefined();
  });

  it('lists untyped words around a span that is not a typed one', () => {
    expect(around("I'm allergic to latex and sulfa drugs.", 'latex')).toBe('latex and sulfa drugs');
    expect(around('We need eggs, milk and bread.', 'milk')).toBe('eggs, milk and bread');
    expect(around('I like latex gloves.', 'latex')).toBeUndefined();
  });
});

describe('false positives', () => {
  it('does not type dates, ordinals or years in dates as numbers', () => {
    expect(findSpans('On May 8 and 8 May 2026, the 8th, 05/08/2026, 2026-04-18T00:40:00Z.')).toEqual([]);
    expect(findSpans('April 30, 2026 is the deadline; in 2026, since 2019, mid-2020, the 1990s, Q3 2026, 2025-26.')).toEqual([]);
    expect(pairs('On May 8 we booked 5 guests.')).toEqual([['quantity', '5 guests']]);
  });

  it('does not type "I", "OK", a lone "v" or "Q&A"', () => {
    expect(findSpans('I said OK to the Q&A, v is not a version.')).toEqual([]);
  });

  it('reads an amount with a magnitude as a number, not a code', () => {
    expect(findSpans('I ran a 5K and logged 10k steps.').map((s) => [s.type, s.text, s.value])).toEqual([
      ['number', '5K', 5000],
      ['quantity', '10k steps', 10_000],
    ]);
  });

  it('reads nothing from plain prose', () => {
    expect(findSpans('that sounds great, thank you so much for the help')).toEqual([]);
  });
});

describe('cost', () => {
  // Each recogniser is one scan; a gap or a run of number words must not make one backtrack exponentially.
  it('stays fast on pathological input', () => {
    const inputs = [
      `firmware ${'version to from is '.repeat(300)}x`,
      `${'one two three '.repeat(1000)}x`,
      `PostgreSQL${' '.repeat(5000)}x`,
      `{"a":"${'x'.repeat(5000)}",${'"k":1,'.repeat(1000)}}`,
      `+1 ${'12 '.repeat(2000)}`,
    ];
    for (const text of inputs) {
      const started = performance.now();
      findSpans(text);
      expect(performance.now() - started, text.slice(0, 30)).toBeLessThan(1000);
    }
  });
});
