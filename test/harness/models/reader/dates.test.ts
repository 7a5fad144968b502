import { describe, it, expect } from 'vitest';
import {
  type DateMention,
  type Day,
  addDays,
  daysBetween,
  dominantStyle,
  findDates,
  findDurations,
  formatDay,
  messageDay,
  weekday,
  weekdayName,
} from '../../../../harness/models/reader/dates.js';

const day = (year: number, month: number, d: number): Day => ({ year, month, day: d });
/** Friday, 8 May 2026. */
const REF = day(2026, 5, 8);

/** The mentions' texts and ISO days, the shape most cases compare. */
function found(text: string, reference?: Day, fallbackYear?: number): Array<[string, string]> {
  return findDates(text, reference, fallbackYear).map((m) => [m.text, formatDay(m.day, 'iso', true)]);
}

function only(text: string, reference?: Day, fallbackYear?: number): DateMention {
  const mentions = findDates(text, reference, fallbackYear);
  expect(mentions, `one date in ${JSON.stringify(text)}`).toHaveLength(1);
  return mentions[0];
}

describe('day arithmetic', () => {
  it('counts signed days, across months, years and leap days', () => {
    expect(daysBetween(day(2026, 5, 1), day(2026, 5, 8))).toBe(7);
    expect(daysBetween(day(2026, 5, 8), day(2026, 5, 1))).toBe(-7);
    expect(daysBetween(day(2025, 12, 31), day(2026, 1, 1))).toBe(1);
    expect(daysBetween(day(2024, 2, 28), day(2024, 3, 1))).toBe(2); // 2024 is a leap year
    expect(daysBetween(day(2023, 2, 28), day(2023, 3, 1))).toBe(1);
    expect(daysBetween(day(1900, 2, 28), day(1900, 3, 1))).toBe(1); // centuries are not, unless /400
    expect(daysBetween(day(2000, 2, 28), day(2000, 3, 1))).toBe(2);
    expect(daysBetween(day(2024, 1, 1), day(2025, 1, 1))).toBe(366);
  });

  it('adds days and names weekdays', () => {
    expect(addDays(day(2026, 12, 30), 3)).toEqual(day(2027, 1, 2));
    expect(addDays(day(2024, 3, 1), -1)).toEqual(day(2024, 2, 29));
    expect(weekday(REF)).toBe(5);
    expect(weekdayName(REF)).toBe('Friday');
    expect(weekdayName(day(2023, 5, 8))).toBe('Monday');
  });
});

describe('formatDay and dominantStyle', () => {
  it('writes each style with and without the year', () => {
    expect(formatDay(REF, 'month-day', false)).toBe('May 8');
    expect(formatDay(REF, 'month-day', true)).toBe('May 8, 2026');
    expect(formatDay(REF, 'day-month', false)).toBe('8 May');
    expect(formatDay(REF, 'day-month', true)).toBe('8 May 2026');
    expect(formatDay(REF, 'iso', false)).toBe('2026-05-08');
    expect(formatDay(day(2026, 12, 31), 'iso', true)).toBe('2026-12-31');
  });

  it('picks the most common written style, ties to month-day', () => {
    expect(dominantStyle(findDates('8 May 2026, then 9 May, and June 1.', REF))).toBe('day-month');
    expect(dominantStyle(findDates('May 8 or 9 June', REF))).toBe('month-day');
    expect(dominantStyle(findDates('Shipped 2026-04-28, due 2026-05-02, see May 8.', REF))).toBe('iso');
    expect(dominantStyle([])).toBe('month-day');
  });

  it('ignores relative and coarse mentions, which show no style', () => {
    const mentions = findDates('Yesterday, today, last week, in 2022 and on May 8.', REF);
    expect(mentions.some((m) => m.relative)).toBe(true);
    expect(dominantStyle(mentions)).toBe('month-day');
  });
});

describe('findDates: written dates', () => {
  it('reads ISO dates, also inside JSON and datetimes', () => {
    expect(found('Delivered 2026-04-28.')).toEqual([['2026-04-28', '2026-04-28']]);
    expect(found('{"delivered":"2026-04-28","status":"ok"}')).toEqual([['2026-04-28', '2026-04-28']]);
    expect(found('at 2026-04-28T10:00:00Z sharp')).toEqual([['2026-04-28', '2026-04-28']]);
    expect(found('2023/05/20 (Sat) 02:21')).toEqual([['2023/05/20', '2023-05-20']]);
    const m = only('2026-04-28');
    expect(m).toMatchObject({ explicitYear: true, relative: false, precision: 'day', style: 'iso', start: 0, end: 10 });
  });

  it('skips ISO-shaped strings that are not days', () => {
    expect(found('2026-13-01 and 2026-02-30 and v2026-04-28 and 12026-04-28')).toEqual([]);
  });

  it('reads month-day forms, with weekday, ordinal, comma and year', () => {
    expect(found('It shipped May 8.', REF)).toEqual([['May 8', '2026-05-08']]);
    expect(found('on May 8, 2023 we met')).toEqual([['May 8, 2023', '2023-05-08']]);
    expect(found('Monday May 18 works', REF)).toEqual([['Monday May 18', '2026-05-18']]);
    expect(found('Friday, January 23 at noon', REF)).toEqual([['Friday, January 23', '2026-01-23']]);
    expect(found('due Jan. 5th, 2027')).toEqual([['Jan. 5th, 2027', '2027-01-05']]);
    expect(found('sept 3 and Dec 25', REF)).toEqual([['sept 3', '2026-09-03'], ['Dec 25', '2026-12-25']]);
    expect(found('on March the 3rd', REF)).toEqual([['March the 3rd', '2026-03-03']]);
    expect(only('May 8', REF)).toMatchObject({ style: 'month-day', explicitYear: false, precision: 'day' });
  });

  it('reads day-month forms', () => {
    expect(found('on 8 May we', REF)).toEqual([['8 May', '2026-05-08']]);
    expect(found('on 8 May 2026.')).toEqual([['8 May 2026', '2026-05-08']]);
    expect(found('1:56 pm on 8 May, 2023')).toEqual([['8 May, 2023', '2023-05-08']]);
    expect(found('Thursday 24 April suits me', REF)).toEqual([['Thursday 24 April', '2026-04-24']]);
    expect(found('by the 8th of May', REF)).toEqual([['the 8th of May', '2026-05-08']]);
    expect(found('3rd Feb. 2025')).toEqual([['3rd Feb. 2025', '2025-02-03']]);
    expect(only('8 May', REF).style).toBe('day-month');
  });

  it('reads month precision', () => {
    const m = only('We moved in May 2023.');
    expect(m).toMatchObject({ text: 'May 2023', day: day(2023, 5, 1), precision: 'month', explicitYear: true });
    expect(only('through March, 2025').precision).toBe('month');
    expect(only('back in March I tried it', REF)).toMatchObject({ text: 'March', precision: 'month', day: day(2026, 3, 1), explicitYear: false });
    expect(only('the end of April', REF).precision).toBe('month');
    expect(only('since June', REF).day).toEqual(day(2026, 6, 1));
  });

  it('reads year precision only where the number reads as a year', () => {
    expect(only('That was in 2022.')).toMatchObject({ text: '2022', day: day(2022, 1, 1), precision: 'year', explicitYear: true });
    expect(only('since early 2019 I run').day.year).toBe(2019);
    expect(only('the summer of 2021').day.year).toBe(2021);
    expect(only('2022').precision).toBe('year');
    expect(found('Order 48213496 shipped.')).toEqual([]);
    expect(found('upgrade to v2022 or build 2022')).toEqual([]);
    expect(found('in 1850 and in 2300')).toEqual([]);
    expect(found('out of 2000 and a budget of 1999 and increased by 2000')).toEqual([]);
    expect(found('in 2000 people')).toEqual([]);
  });

  it('reads numeric dates only when the order shows', () => {
    expect(only('paid 4/28/2026')).toMatchObject({ day: day(2026, 4, 28), style: 'month-day', explicitYear: true });
    expect(only('paid 28/04/2026')).toMatchObject({ day: day(2026, 4, 28), style: 'day-month' });
    expect(only('due on 4/28', REF)).toMatchObject({ day: day(2026, 4, 28), explicitYear: false });
    // Ambiguous: skipped without evidence, settled by the text's own written dates or the caller.
    expect(found('paid 05/06/2026')).toEqual([]);
    expect(found('8 May 2026, paid 05/06/2026')).toEqual([['8 May 2026', '2026-05-08'], ['05/06/2026', '2026-06-05']]);
    expect(found('May 8, 2026, paid 05/06/2026')).toEqual([['May 8, 2026', '2026-05-08'], ['05/06/2026', '2026-05-06']]);
    expect(findDates('paid 05/06/2026', undefined, undefined, 'day-month').map((m) => m.day)).toEqual([day(2026, 6, 5)]);
  });

  it('skips numeric forms that are scores, fractions or short years', () => {
    expect(found('I scored 12/20 and ate 1/3 of it', REF)).toEqual([]);
    expect(found('on 4/5', REF)).toEqual([]);
    expect(found('on 4/28/26', REF)).toEqual([]);
    expect(found('ratio 40/50 and 48/92', REF)).toEqual([]);
  });

  it('uses the reference year, then the fallback, else skips a yearless date', () => {
    expect(found('May 8', undefined, 2023)).toEqual([['May 8', '2023-05-08']]);
    expect(found('May 8 and in March')).toEqual([]);
    expect(found('Feb 29', day(2023, 1, 1))).toEqual([]); // no such day that year
    expect(found('Feb 29', day(2024, 1, 1))).toEqual([['Feb 29', '2024-02-29']]);
  });

  it('finds several dates in order with offsets into the text', () => {
    const text = 'Ordered April 2, delivered "2026-04-28", returned on 5 May 2026.';
    const mentions = findDates(text, REF);
    expect(mentions.map((m) => m.text)).toEqual(['April 2', '2026-04-28', '5 May 2026']);
    for (const m of mentions) expect(text.slice(m.start, m.end)).toBe(m.text);
  });
});

describe('findDates: false positives', () => {
  it('leaves times, versions, money, scores and counts alone', () => {
    expect(found('Meet at 14:00, then 9:30am.', REF)).toEqual([]);
    expect(found('Update to 16.2 or v1.0.3 please.', REF)).toEqual([]);
    expect(found('It cost $2026 and €2,022.50.', REF)).toEqual([]);
    expect(found('Final score 25:55, we lost 3-1.', REF)).toEqual([]);
    expect(found('We had 2000 visitors and 12 orders.', REF)).toEqual([]);
  });

  it('does not read "may" and "march" as months', () => {
    expect(found('May I ask a question?', REF)).toEqual([]);
    expect(found('It may be late; I may 2x the order.', REF)).toEqual([]);
    expect(found('The band will march on.', REF)).toEqual([]);
    expect(found('We march 3 miles a day.', REF)).toEqual([]);
    expect(found('March is long.', REF)).toEqual([]);
    expect(found('In may be wrong', REF)).toEqual([]);
    expect(found('May 2 people join?', REF)).toEqual([]);
  });

  it('keeps a date next to an amount', () => {
    expect(found('On May 8, 2000 people marched.', REF)).toEqual([['May 8', '2026-05-08']]);
  });

  it('does not take a lower-case weekday abbreviation into the mention', () => {
    expect(found('I sat 5 May at home', REF)).toEqual([['5 May', '2026-05-05']]);
  });
});

describe('findDates: relative dates', () => {
  it('needs a reference', () => {
    expect(found('yesterday and last Friday and two weeks ago')).toEqual([]);
  });

  it('resolves the fixed phrases', () => {
    expect(found('today, tonight and this morning', REF).map((f) => f[1])).toEqual(['2026-05-08', '2026-05-08', '2026-05-08']);
    expect(found('Yesterday I left', REF)).toEqual([['Yesterday', '2026-05-07']]);
    expect(found('the day before yesterday', REF)).toEqual([['the day before yesterday', '2026-05-06']]);
    expect(found('tomorrow or the day after tomorrow', REF)).toEqual([
      ['tomorrow', '2026-05-09'],
      ['the day after tomorrow', '2026-05-10'],
    ]);
    expect(found('last night', REF)).toEqual([['last night', '2026-05-07']]);
    expect(only('yesterday', REF)).toMatchObject({ relative: true, explicitYear: false, precision: 'day', style: 'day-month' });
  });

  it('crosses month and year boundaries', () => {
    expect(found('yesterday', day(2026, 3, 1))).toEqual([['yesterday', '2026-02-28']]);
    expect(found('yesterday', day(2024, 3, 1))).toEqual([['yesterday', '2024-02-29']]);
    expect(found('yesterday', day(2026, 1, 1))).toEqual([['yesterday', '2025-12-31']]);
    expect(found('tomorrow', day(2025, 12, 31))).toEqual([['tomorrow', '2026-01-01']]);
    expect(found('two weeks ago', day(2026, 1, 5))).toEqual([['two weeks ago', '2025-12-22']]);
    expect(found('in 3 days', day(2025, 12, 30))).toEqual([['in 3 days', '2026-01-02']]);
  });

  it('resolves last/this/next weekdays strictly before and after', () => {
    // REF is a Friday.
    expect(found('last Friday', REF)).toEqual([['last Friday', '2026-05-01']]);
    expect(found('last Thursday', REF)).toEqual([['last Thursday', '2026-05-07']]);
    expect(found('next Friday', REF)).toEqual([['next Friday', '2026-05-15']]);
    expect(found('next Thursday', REF)).toEqual([['next Thursday', '2026-05-14']]);
    expect(found('this Friday', REF)).toEqual([['this Friday', '2026-05-08']]);
    expect(found('this Sunday', REF)).toEqual([['this Sunday', '2026-05-10']]);
    expect(found('last Monday', day(2026, 1, 1))).toEqual([['last Monday', '2025-12-29']]);
    expect(found('I went there on Friday.', REF)).toEqual([]); // bare weekday: skipped
  });

  it('prefers a written date over the relative phrase around it', () => {
    expect(found('last Friday, May 1, we met', REF)).toEqual([['Friday, May 1', '2026-05-01']]);
  });

  it('resolves counts ago and in', () => {
    expect(found('3 days ago', REF)).toEqual([['3 days ago', '2026-05-05']]);
    expect(found('a week ago', REF)).toEqual([['a week ago', '2026-05-01']]);
    expect(found('in two weeks', REF)).toEqual([['in two weeks', '2026-05-22']]);
    expect(found('in a day', REF)).toEqual([['in a day', '2026-05-09']]);
    const months = only('three months ago', REF);
    expect(months).toMatchObject({ day: day(2026, 2, 1), precision: 'month', relative: true });
    expect(only('2 months ago', day(2026, 1, 20)).day).toEqual(day(2025, 11, 1));
    expect(only('a year ago', REF)).toMatchObject({ day: day(2025, 1, 1), precision: 'year' });
    expect(found('a few days ago', REF)).toEqual([]);
  });

  it('resolves last week, weekend, month and year', () => {
    expect(only('last week', REF)).toMatchObject({ day: day(2026, 5, 1), precision: 'day', relative: true });
    expect(only('last weekend', REF).day).toEqual(day(2026, 5, 2)); // Friday → the Saturday before
    expect(only('last weekend', day(2026, 5, 11)).day).toEqual(day(2026, 5, 9)); // Monday
    expect(only('last weekend', day(2026, 5, 10)).day).toEqual(day(2026, 5, 2)); // Sunday: the weekend before
    expect(only('last month', day(2026, 1, 15))).toMatchObject({ day: day(2025, 12, 1), precision: 'month' });
    expect(only('last year', REF)).toMatchObject({ day: day(2025, 1, 1), precision: 'year' });
    expect(only('next week', REF).day).toEqual(day(2026, 5, 15));
    expect(only('next month', day(2026, 12, 3)).day).toEqual(day(2027, 1, 1));
    expect(only('last March', REF)).toMatchObject({ day: day(2026, 3, 1), precision: 'month' });
    expect(only('last May', REF).day).toEqual(day(2025, 5, 1));
  });
});

describe('messageDay', () => {
  it('reads an ISO stamp at the start', () => {
    expect(messageDay('[2026-03-02T07:19:00Z] My order is late.')).toEqual({ day: day(2026, 3, 2), rest: 'My order is late.' });
    expect(messageDay('[2026-03-02] hi')).toEqual({ day: day(2026, 3, 2), rest: 'hi' });
    expect(messageDay('No stamp here [2026-03-02T07:19:00Z]')).toBeUndefined();
    expect(messageDay('[2026-13-02T07:19:00Z] bad month')).toBeUndefined();
  });

  it('reads a session header on any line', () => {
    expect(messageDay('[Session 3: 1:56 pm on 8 May, 2023]')).toEqual({ day: day(2023, 5, 8), rest: '' });
    expect(messageDay('Intro\n[Session 3: 1:56 pm on 8 May, 2023]\nCaroline: Hi!')).toEqual({
      day: day(2023, 5, 8),
      rest: 'Intro\nCaroline: Hi!',
    });
    expect(messageDay('[Session 1: 2023/05/20 (Sat) 02:21]\nhello')).toEqual({ day: day(2023, 5, 20), rest: 'hello' });
    expect(messageDay('[Session 2]\nno date')).toBeUndefined();
    expect(messageDay('see [Session 3: 8 May, 2023] inline')).toBeUndefined();
  });

  it('drops the session header an import puts after the stamp', () => {
    const text = '[2023-05-08T13:56:00] [Session 3: 1:56 pm on 8 May, 2023]\nCaroline: Hi!';
    expect(messageDay(text)).toEqual({ day: day(2023, 5, 8), rest: 'Caroline: Hi!' });
  });
});

describe('findDurations', () => {
  const durations = (text: string) => findDurations(text).map((d) => [d.text, d.amount, d.unit]);

  it('reads digits, number words and a/an', () => {
    expect(durations('a 30 days return window')).toEqual([['30 days', 30, 'day']]);
    expect(durations('4 weeks, two weeks and a week')).toEqual([
      ['4 weeks', 4, 'week'],
      ['two weeks', 2, 'week'],
      ['a week', 1, 'week'],
    ]);
    expect(durations('3 months then 10 years')).toEqual([
      ['3 months', 3, 'month'],
      ['10 years', 10, 'year'],
    ]);
    expect(durations('an extra year and twenty days')).toEqual([
      ['an extra year', 1, 'year'],
      ['twenty days', 20, 'day'],
    ]);
    expect(durations('a 30-day trial')).toEqual([['30-day', 30, 'day']]);
    expect(durations('for one day only')).toEqual([['one day', 1, 'day']]);
  });

  it('gives offsets into the text', () => {
    const text = 'It lasted 2 weeks.';
    const [d] = findDurations(text);
    expect(text.slice(d.start, d.end)).toBe('2 weeks');
  });

  it('skips frequencies, idioms and other words', () => {
    expect(durations('twice a day, once a week, 3 times a year, half a day')).toEqual([]);
    expect(durations('365 days a year')).toEqual([['365 days', 365, 'day']]);
    expect(durations("One day I'd love to go.")).toEqual([]);
    expect(durations('every weekend, daytime, monthly, yearly')).toEqual([]);
    expect(durations('v1.30 days')).toEqual([]);
  });
});

describe('speed', () => {
  it('scans a long text in linear time', () => {
    const text = 'On May 8, 2023 we met; yesterday I paid 4/28/2026 at 14:00 for v16.2. '.repeat(5000);
    const started = performance.now();
    const mentions = findDates(text, REF);
    expect(mentions.length).toBe(15000);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
