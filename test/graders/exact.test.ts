import { describe, expect, it } from 'vitest';
import { createAnswerJudge, OfflineAnswerJudge } from '../../graders/answer-judge.js';
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
});

describe('tokenF1 (LoCoMo style)', () => {
  it('drops articles and "and", counts overlapping tokens', () => {
    // answer tokens: router was reset twice; reference: router reset two time → 2 common, P=2/4, R=2/4
    expect(answerTokens('The router was reset twice')).toEqual(['router', 'was', 'reset', 'twice']);
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
  it('stems lightly and leaves identifiers alone', () => {
    expect(answerTokens('resetting batteries called status v1.0.3s')).toEqual(['reset', 'battery', 'call', 'status', 'v1.0.3s']);
    expect(tokenF1('I reset the router', 'resetting router')).toBeCloseTo(0.8, 10);
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
  ])('abstains: %s', (text) => expect(isAbstention(text)).toBe(true));
  it.each(['Your firmware is v1.0.4.', 'You are on Windows 10.', '', 'I know: it is error 42.', 'The router showed "unknown host".'])(
    'claims: %s',
    (text) => expect(isAbstention(text)).toBe(false),
  );
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
