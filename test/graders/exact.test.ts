import { describe, expect, it } from 'vitest';
import { createAnswerJudge, OfflineAnswerJudge, offlineVerdict } from '../../graders/answer-judge.js';
import { answerTokens, isAbstention, mustIncludePass, tokenF1 } from '../../graders/exact.js';
import type { Probe, Transcript } from '../../core/types.js';

function probe(over: Partial<Probe>): Probe {
  return { id: 'p', afterTurn: 1, question: 'q?', answer: 'Windows 10', mustInclude: [], facts: [], kind: 'recall', ...over };
}
const transcript: Transcript = { id: 't', tags: [], turns: [], facts: [], probes: [], file: 't.yaml' };

describe('mustIncludePass', () => {
  it('needs every entry, any alternative, normalised', () => {
    const must = [['Windows 10', 'Win10'], ['1.0.3']];
    expect(mustIncludePass('You are on WIN10, firmware v1.0.3.', must)).toBe(true);
    expect(mustIncludePass('You are on Windows 10.', must)).toBe(false);
    expect(mustIncludePass('windows   10 with firmware 1.0.3', must)).toBe(true);
    // "10" must not match inside "100"
    expect(mustIncludePass('Windows 100, 1.0.3', must)).toBe(false);
    expect(mustIncludePass('anything', [])).toBe(true);
  });

  it('fails an answer that gives another value of the code\'s kind first, unless it sets that value aside', () => {
    const must = [['vpn-eu2']];
    expect(mustIncludePass("You're set up on vpn-eu1.corp.example; vpn-eu2 was only mentioned as a possible later move.", must)).toBe(false);
    expect(mustIncludePass('Use vpn-eu2 now. You were on vpn-eu1 at first.', must)).toBe(true);
    expect(mustIncludePass('Support moved you from vpn-eu1 to vpn-eu2.', must)).toBe(true);
    expect(mustIncludePass('Not CHG-3319: tonight is CHG-3391.', [['CHG-3391']])).toBe(true);
    expect(mustIncludePass("CHG-3319 is tonight's change, CHG-3391 is next week's.", [['CHG-3391']])).toBe(false);
    // A commit among commits: the first one given is the answer.
    expect(mustIncludePass('Canary for v4.12.1 (commit e41b7d0) passes. checkout-api v4.12.0, commit 9f3c2ab, went out at 02:03.', [['9f3c2ab']])).toBe(false);
    expect(mustIncludePass('9f3c2ab; e41b7d0 is the hotfix that reverted it.', [['9f3c2ab']])).toBe(true);
    // Codes of other letters are other things, not competing values: a host beside a region.
    expect(mustIncludePass('db-orders-3 was promoted and runs in eu-central-1.', [['eu-central-1']])).toBe(true);
  });

  it('does not take a value after "unless" as asserted, nor one before it as hedged', () => {
    const must = [['Mill Lane']];
    expect(mustIncludePass("It's going to the Leeds office, unless the change to Mill Lane went through.", must)).toBe(false);
    expect(mustIncludePass('It goes to 27 Mill Lane unless you change it again.', must)).toBe(true);
  });

  it('reads a dot before a word as a break, not in a number or an abbreviation', () => {
    expect(mustIncludePass('vpn-eu2.corp.example', [['vpn-eu2']])).toBe(true);
    expect(mustIncludePass('Connect to vpn-eu2.corp.example.', [['vpn-eu2.corp.example']])).toBe(true);
    expect(mustIncludePass('Firmware v1.0.3 is current.', [['1.0']])).toBe(false);
    expect(mustIncludePass('Shipped within the U.S. only.', [['US']])).toBe(true);
  });

  it('reads a slash between words as a break between them, not between digits', () => {
    expect(mustIncludePass('Your time zone is America/Chicago.', [['Chicago']])).toBe(true);
    expect(mustIncludePass('Runs are Mon/Wed/Fri.', [['Wednesday', 'Wed']])).toBe(true);
    expect(mustIncludePass('Use 3/4 cup.', [['3']])).toBe(false);
    expect(mustIncludePass('Use 3/4 cup.', [['3/4']])).toBe(true);
    // A must_include that has such a slash itself is read the same way: a path matches itself.
    const path = 's3://pw-heapdumps/app-eu-15/2026-02-10T0910.hprof';
    expect(mustIncludePass(path, [[path]], path)).toBe(true);
    expect(mustIncludePass('Use America/Chicago.', [['America/Chicago']])).toBe(true);
  });

  it.each([
    ['$1,200', '1200'],
    ['It costs $1,200.00.', '1,200'],
    ['1200.0', '$1,200'],
    ['Send it by e-mail', 'email'],
    ['the U.S. office', 'US'],
    ['15%', '15 percent'],
    ['15 percent', '15%'],
    ['a 15% discount', '15'],
    ['−5 °C', '-5'],
    ['minus 5', '-5'],
    ['SEV1', 'SEV-1'],
    ['{"order":"BC-4471829","size":"10"}', 'BC-4471829'],
    ['{"delta":-5}', '-5'],
  ])('matches %j to %j as the official normalisation does', (answer, phrase) => {
    expect(mustIncludePass(answer, [[phrase]])).toBe(true);
  });

  it.each([
    ['1.5', '15'],
    ['12,000', '1,200'],
    ['5', '-5'],
    ['-5', '5'],
  ])('keeps %j apart from %j (decimal point and sign are part of the number)', (answer, phrase) => {
    expect(mustIncludePass(answer, [[phrase]])).toBe(false);
  });
});

describe('mustIncludePass: an amount given only as an aside, a number only as a date', () => {
  it('fails an amount the answer gives only in an aside after another of its kind', () => {
    expect(mustIncludePass('$400 (it was going to be $500)', [['500']])).toBe(false);
    expect(mustIncludePass('78 (84 was a typo)', [['84']])).toBe(false);
    expect(mustIncludePass('75% (78% was only tested)', [['78']])).toBe(false);
    expect(mustIncludePass('9 (8 if you count the one that died)', [['8', 'eight']])).toBe(false);
    expect(mustIncludePass('Level 5 (they were level 4 before)', [['4', 'four']])).toBe(false);
  });

  it('still passes the amount as the answer, beside an aside of another kind or a change it names', () => {
    expect(mustIncludePass('$500 (it was going to be $400)', [['500']])).toBe(true);
    expect(mustIncludePass('4 weeks (28 days)', [['28']])).toBe(true);
    expect(mustIncludePass('The budget went from $400 to $500.', [['500']])).toBe(true);
    expect(mustIncludePass('A $50 deposit, and $500 in all', [['500']])).toBe(true);
    expect(mustIncludePass('84 guests (the 78 was a typo)', [['84']])).toBe(true);
    expect(mustIncludePass('About 2 km (1.2 miles)', [['1.2 miles']])).toBe(true);
    expect(mustIncludePass('The total was $500, and the deposit $50.', [['500']])).toBe(true);
    expect(mustIncludePass('The deposit is $50, and the total was $500.', [['500']])).toBe(true);
    expect(mustIncludePass('The base is $400, and $500 if you include tax.', [['500']])).toBe(true);
    expect(mustIncludePass('78; 84 was a typo', [['84']])).toBe(false);
  });

  it('reads a unit written against its number as a word of its own', () => {
    expect(mustIncludePass('6:30am', [['6:30']])).toBe(true);
    expect(mustIncludePass('Bisoprolol 5mg', [['5 mg']])).toBe(true);
    expect(mustIncludePass('9.8 kg', [['9.8kg']])).toBe(true);
    expect(mustIncludePass('95mg', [['5 mg']])).toBe(false);
    expect(mustIncludePass('model AX3000', [['AX3000']])).toBe(true);
  });

  it('does not read the day of a date as a bare number', () => {
    expect(mustIncludePass('9 June', [['9', 'nine']])).toBe(false);
    expect(mustIncludePass('June 2', [['2', 'two']])).toBe(false);
    expect(mustIncludePass('9 days, from 10 June to 19 June', [['9', 'nine']])).toBe(true);
    expect(mustIncludePass('9 June', [['9 June']])).toBe(true);
  });
});

describe('mustIncludePass against a reference that negates', () => {
  const reference = 'No tree nuts at all; Ellie has a severe tree nut allergy.';
  it('accepts a negation the reference makes too', () => {
    expect(mustIncludePass('No tree nuts in any food, including the cake.', [['nuts']], reference)).toBe(true);
    expect(mustIncludePass('No tree nuts in any food, including the cake.', [['nuts']])).toBe(false);
  });
  it('fails the phrase asserted where the reference negates it, a negation it does not make, an "or" and a hedge', () => {
    expect(mustIncludePass('Tree nuts are fine.', [['nuts']], reference)).toBe(false);
    expect(mustIncludePass('Tree nuts are fine.', [['nuts']])).toBe(true);
    expect(mustIncludePass('Not nuts.', [['nuts']], 'Ellie eats nuts.')).toBe(false);
    expect(mustIncludePass('No peanuts or nuts.', [['nuts']], reference)).toBe(false);
    expect(mustIncludePass('Maybe no nuts.', [['nuts']], reference)).toBe(false);
  });
  it('fails a negation of something else and a negation inside "I don\'t know"', () => {
    expect(mustIncludePass('There are no restrictions on tree nuts.', [['nuts']], reference)).toBe(false);
    expect(mustIncludePass("I don't know whether there are no tree nuts.", [['nuts']], reference)).toBe(false);
    expect(mustIncludePass("I don't know; no tree nuts.", [['nuts']], reference)).toBe(false);
    expect(mustIncludePass('Maybe the cake is fine; no tree nuts in it.', [['nuts']], reference)).toBe(true);
  });
  it('reads each reference on its own when the same phrase is checked against several, again and again', () => {
    // The reference's reading is remembered; a verdict must still follow the reference it is given.
    for (let round = 0; round < 3; round++) {
      expect(mustIncludePass('No tree nuts here.', [['nuts']], reference)).toBe(true);
      expect(mustIncludePass('No tree nuts here.', [['nuts']], 'Ellie eats tree nuts.')).toBe(false);
      expect(mustIncludePass('Tree nuts here.', [['nuts']], 'Ellie eats tree nuts.')).toBe(true);
      expect(mustIncludePass('Tree nuts here.', [['nuts']], reference)).toBe(false);
      expect(mustIncludePass('Tree nuts here.', [['Nuts']], reference)).toBe(false);
      expect(mustIncludePass('Tree nuts here.', [['nuts']], '')).toBe(true);
    }
  });
  it('never counts a value stated in the clause that says it does not know', () => {
    expect(mustIncludePass('I have no idea whether the code RMA-66120 is right.', [['RMA-66120']])).toBe(false);
  });
});

describe('tokenF1 (LoCoMo: official normalisation, Porter stems)', () => {
  it('drops articles and "and", counts overlapping tokens', () => {
    // answer tokens: router wa reset twice; reference: router reset two time → 2 common, P=2/4, R=2/4
    expect(answerTokens('The router was reset twice')).toEqual(['router', 'wa', 'reset', 'twice']);
    expect(tokenF1('The router was reset twice', 'router reset two times')).toBeCloseTo(0.5, 10);
  });
  it('stems plurals, so codes = code; F1 = 2·(3/4)·1/(3/4+1)', () => {
    expect(tokenF1('Error codes 42 and 404', 'error code 404')).toBeCloseTo((2 * 0.75 * 1) / 1.75, 10);
  });
  it('counts repeated tokens once per occurrence in the reference', () => {
    expect(tokenF1('yes yes', 'yes')).toBeCloseTo(2 / 3, 10);
  });
  it('is 0 with nothing in common or an empty side', () => {
    expect(tokenF1('blue', 'red')).toBe(0);
    expect(tokenF1('', 'red')).toBe(0);
    expect(tokenF1('the', 'a')).toBe(0);
  });
  it('stems every token with Porter, identifiers included', () => {
    expect(answerTokens('resetting batteries called status v1.0.3s')).toEqual(['reset', 'batteri', 'call', 'statu', 'v1.0.3']);
    expect(tokenF1('I reset the router', 'resetting router')).toBeCloseTo(0.8, 10);
  });
  it('no longer fails a right value for its punctuation or format', () => {
    // "$1,200" was one token "1,200" that never met "1200"; now both are "1200".
    expect(tokenF1('It costs $1,200', '1200 dollars')).toBeCloseTo(0.4, 10);
    expect(tokenF1('send an e-mail', 'email')).toBeCloseTo(2 / 3, 10);
    expect(tokenF1('the U.S. office', 'US')).toBeCloseTo(2 / 3, 10);
    expect(tokenF1('1200.0', '1,200')).toBe(1);
  });
});

describe('isAbstention', () => {
  it.each([
    "I don't know — that was not mentioned in our conversation.",
    'That information was never provided.',
    'You did not mention your serial number.',
    "I'm not sure; there is no information about that.",
    'The warranty date is unknown.',
    'I cannot tell from our conversation.',
    'I have no idea.',
    "I'm not sure.",
    'There is no information about that.',
    'That was never mentioned.',
    "I can't find that.",
    'Unknown.',
    'That information is not available.',
    "That was not given in our conversation: HB-8.4 doesn't say either way, so I can't confirm that from the handbook.",
  ])('abstains: %s', (text) => expect(isAbstention(text)).toBe(true));
  it.each([
    'Your firmware is v1.0.4.',
    'You are on Windows 10.',
    '',
    'I know: it is error 42.',
    'The router showed "unknown host".',
    'Unknown host db-2',
    'db-1 is not available.',
    'There was no data loss.',
    "I don't know, perhaps RMA-66120.",
    "I'm not sure, but I think it's RMA-66120.",
    "I don't know, either RMA-66120 or RMA-66121.",
  ])('does not abstain: %s', (text) => expect(isAbstention(text)).toBe(false));
});

// A crafted wrong answer next to the right answer to the same probe. The offline rule must
// fail every wrong one and pass every right one. `abstain` is an abstention probe; otherwise
// the entry is the probe's must_include.
type Crafted = [expected: 'abstain' | string[][], wrong: string, right: string];
const RMA = [['RMA-66120']];
const CRAFTED: Crafted[] = [
  // negation
  [RMA, 'It is not RMA-66120.', 'It is RMA-66120.'],
  [RMA, 'RMA-66120 is not the number.', 'RMA-66120 is the number.'],
  [RMA, "Your RMA isn't RMA-66120.", 'Your RMA is RMA-66120.'],
  [RMA, 'It was never RMA-66120.', 'It was always RMA-66120.'],
  [RMA, 'There is no RMA-66120 on file.', 'RMA-66120 is on file.'],
  [RMA, "I don't think it's RMA-66120.", "Don't lose RMA-66120; you need it for the return."],
  [[['1.0.4']], 'The firmware is not v1.0.4 yet.', 'The firmware is v1.0.4 now, not v1.0.3.'],
  // hedging and a second value offered
  [RMA, 'Maybe RMA-66120 or RMA-66121.', 'RMA-66120.'],
  [RMA, "It's RMA-66120 or RMA-66121.", "It's RMA-66120, not RMA-66121."],
  [RMA, 'Perhaps RMA-66120.', 'Definitely RMA-66120.'],
  [[['May 8']], 'Either May 8 or May 12.', 'May 8 (moved from May 12).'],
  [RMA, 'It could be RMA-66120.', 'It is RMA-66120.'],
  [[['31 March']], 'It might be 31 March.', 'Leave may be carried over until 31 March.'],
  [RMA, "It's RMA-66120, or RMA-66121.", "It's RMA-66120; RMA-66121 was the old one."],
  [[['5B']], 'Apt 5B or 5C.', 'Your address is now 418 Alder Street, Apt 5B, Portland, OR 97214.'],
  // abstain, then guess
  [RMA, "I don't know, perhaps RMA-66120.", 'I know it: RMA-66120.'],
  [RMA, "I'm not sure. RMA-66120?", 'RMA-66120.'],
  [RMA, 'I have no idea; my guess is RMA-66120.', 'Your RMA is RMA-66120; the ship date was never mentioned.'],
  // a lost minus sign
  [[['-5']], '5', '-5'],
  [[['-5']], 'It is 5 degrees.', 'It is \u22125 degrees.'],
  [[['-5']], '5°C', 'minus 5°C'],
  [[['5']], '-5', '5'],
  // a value inside a longer token
  [RMA, 'RMA-661200', 'RMA-66120'],
  [RMA, 'XRMA-66120', 'RMA-66120'],
  [[['66120']], '166120', 'RMA 66120'],
  [[['Windows 10']], 'Windows 100', 'Windows 10'],
  // numbers in another format are the same value; a different value is not
  [[['1,200']], '$12,000', '$1200.00'],
  [[['15%']], '1.5%', '15 percent'],
  // "unknown" as part of a claim
  [[['db-1']], 'Unknown host db-2', 'Host db-1'],
  ['abstain', 'Unknown host db-2', 'I have no idea.'],
  // abstention probes
  ['abstain', 'Your serial is RX-1.', "I'm not sure."],
  ['abstain', "I don't know, perhaps RMA-66120.", "I don't know."],
  ['abstain', 'db-1 is not available.', 'That information is not available.'],
  ['abstain', 'There was no data loss.', 'There is no information about that.'],
  ['abstain', 'It was mentioned: RMA-66120.', 'That was never mentioned.'],
  ['abstain', 'I can find it: RMA-66120.', "I can't find that."],
  ['abstain', "Probably RMA-66120, but I'm not sure.", "I'm not sure; it was never given."],
];

function offlinePass(expected: Crafted[0], answer: string): boolean {
  const p =
    expected === 'abstain'
      ? probe({ kind: 'abstention', answer: 'It was never mentioned.' })
      : probe({ mustInclude: expected, answer: expected[0][0] });
  return offlineVerdict({ transcript, probe: p, answer }).verdict === 'pass';
}

describe('the offline answer rule on crafted wrong answers', () => {
  it('has at least 28 pairs', () => expect(CRAFTED.length).toBeGreaterThanOrEqual(28));
  it.each(CRAFTED)('%j: fails %j, passes %j', (expected, wrong, right) => {
    expect(offlinePass(expected, wrong)).toBe(false);
    expect(offlinePass(expected, right)).toBe(true);
  });
});

describe('OfflineAnswerJudge (a rule, not a model)', () => {
  const judge = new OfflineAnswerJudge();
  it('is labelled offline', async () => {
    const v = await judge.grade({ transcript, probe: probe({ mustInclude: [['Windows 10']] }), answer: 'Windows 10' });
    expect(v).toMatchObject({ verdict: 'pass', model: 'offline' });
    expect(v.reason).toMatch(/^rule:/);
    expect(createAnswerJudge('offline')).toBeInstanceOf(OfflineAnswerJudge);
  });
  it('fails a missing must_include entry', async () => {
    const v = await judge.grade({ transcript, probe: probe({ mustInclude: [['Windows 10'], ['Premium']] }), answer: 'Windows 10' });
    expect(v.verdict).toBe('fail');
  });
  it('passes abstention probes only when the answer abstains', async () => {
    const p = probe({ kind: 'abstention', answer: 'It was never mentioned.' });
    expect((await judge.grade({ transcript, probe: p, answer: 'That was not mentioned.' })).verdict).toBe('pass');
    expect((await judge.grade({ transcript, probe: p, answer: 'Your serial is RX-1.' })).verdict).toBe('fail');
  });
  it('uses token F1 ≥ 0.5 when must_include is empty', async () => {
    const p = probe({ answer: 'router reset two times' });
    expect((await judge.grade({ transcript, probe: p, answer: 'The router was reset twice' })).verdict).toBe('pass');
    expect((await judge.grade({ transcript, probe: p, answer: 'It was unplugged' })).verdict).toBe('fail');
  });
  it('refuses to build an LLM judge without a model', () => {
    expect(() => createAnswerJudge('openai:gpt-4.1-mini')).toThrow(/needs a model/);
  });
});
