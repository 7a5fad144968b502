// Tool-call grading by rule: right tool, argument accuracy, exact call, extra
// calls; repeated calls and re-asks as continuity counters.
import { describe, expect, it } from 'vitest';
import type { ExpectedCall, Probe, ToolCall, Turn } from '../../core/types.js';
import { asksUser, callsUpTo, gradeToolCalls, matchArgument, repeatedCalls, toolGradeReason, userGaveNeededValue } from '../../graders/tool-calls.js';

const call = (name: string, args: Record<string, unknown> | string): ToolCall => ({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });

const expected: ExpectedCall = {
  name: 'run_sql',
  arguments: { host: { rule: 'normalised', value: 'db-prod-7' }, query: { rule: 'any' }, limit: { rule: 'exact', value: 10 } },
};

describe('matchArgument', () => {
  it('normalised: case, spacing and number format do not matter; the value does', () => {
    expect(matchArgument({ rule: 'normalised', value: 'db-prod-7' }, 'DB-Prod-7')).toBe(true);
    expect(matchArgument({ rule: 'normalised', value: 'Leopoldstrasse 244, Munich' }, ' leopoldstrasse  244 ,munich')).toBe(true);
    expect(matchArgument({ rule: 'normalised', value: '1,200' }, 1200)).toBe(true);
    expect(matchArgument({ rule: 'normalised', value: '20' }, '20.00')).toBe(true);
    expect(matchArgument({ rule: 'normalised', value: 'db-prod-7' }, 'db-prod-71')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: 'x' }, { x: 1 })).toBe(false);
  });

  it('normalised: a space between digits only groups them', () => {
    expect(matchArgument({ rule: 'normalised', value: 'SK 604 118 273' }, 'SK 604118273')).toBe(true);
    expect(matchArgument({ rule: 'one-of', values: ['+44 20 7946 0958'] }, '+442079460958')).toBe(true);
    // Between a letter and a digit a space still separates: "flat 4" is not "flat4"'s digits regrouped.
    expect(matchArgument({ rule: 'normalised', value: 'flat 4' }, 'flat4')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: 'SK 604 118 273' }, 'SK 604 118 274')).toBe(false);
  });

  it('normalised: punctuation is part of the value, and no word is dropped', () => {
    expect(matchArgument({ rule: 'normalised', value: 'app-eu-17' }, 'app-eu1-7')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: 'app-eu-17' }, 'appeu17')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: 'gs://tallis-analytics/churn-q4/' }, 'gs://tallis/analytics-churn-q4/')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: 'Flat A' }, 'Flat')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: 'The Hague' }, 'Hague')).toBe(false);
  });

  it('a value with no letter or digit matches nothing, an empty argument included', () => {
    expect(matchArgument({ rule: 'normalised', value: '' }, '')).toBe(false);
    expect(matchArgument({ rule: 'normalised', value: '?' }, '?')).toBe(false);
    expect(matchArgument({ rule: 'one-of', values: [''] }, '-')).toBe(false);
  });

  it('exact: the same JSON value and type', () => {
    expect(matchArgument({ rule: 'exact', value: 10 }, 10)).toBe(true);
    expect(matchArgument({ rule: 'exact', value: 10 }, '10')).toBe(false);
    expect(matchArgument({ rule: 'exact', value: { a: [1, 2] } }, { a: [1, 2] })).toBe(true);
    expect(matchArgument({ rule: 'exact', value: { a: [1, 2] } }, { a: [2, 1] })).toBe(false);
  });

  it('one-of and any; a missing or null argument never matches', () => {
    expect(matchArgument({ rule: 'one-of', values: ['eu-west-1', 'Ireland'] }, 'ireland')).toBe(true);
    expect(matchArgument({ rule: 'one-of', values: ['eu-west-1'] }, 'us-east-1')).toBe(false);
    expect(matchArgument({ rule: 'any' }, '')).toBe(true);
    expect(matchArgument({ rule: 'any' }, undefined)).toBe(false);
    expect(matchArgument({ rule: 'any' }, null)).toBe(false);
  });
});

describe('gradeToolCalls', () => {
  it('an exact call: right tool, every argument matched, no extra calls', () => {
    const grade = gradeToolCalls(expected, [call('run_sql', { host: 'db-prod-7', query: 'select 1', limit: 10 })]);
    expect(grade).toEqual({ expected: 'run_sql', called: 'run_sql', rightTool: true, argsMatched: 3, argsExpected: 3, exactCall: true, extraCalls: 0, mismatches: [] });
    expect(toolGradeReason(grade)).toBe('right tool, 3/3 arguments');
  });

  it('a wrong argument: right tool, partial accuracy, the mismatch named', () => {
    const grade = gradeToolCalls(expected, [call('run_sql', { host: 'db-prod-2', query: 'select 1', limit: 10 })]);
    expect(grade).toMatchObject({ rightTool: true, argsMatched: 2, exactCall: false, mismatches: ['host: expected "db-prod-7", got "db-prod-2"'] });
  });

  it('a wrong tool scores no arguments; the first call to the expected tool is graded, the others are extra', () => {
    expect(gradeToolCalls(expected, [call('page_oncall', { host: 'db-prod-7' })])).toMatchObject({ rightTool: false, argsMatched: 0, called: 'page_oncall', exactCall: false });
    const two = gradeToolCalls(expected, [call('page_oncall', {}), call('run_sql', { host: 'db-prod-7', query: 'q', limit: 10 })]);
    expect(two).toMatchObject({ rightTool: true, exactCall: true, extraCalls: 1 });
  });

  it('no call, or arguments that are not a JSON object, fail', () => {
    expect(gradeToolCalls(expected, [])).toMatchObject({ called: null, rightTool: false, argsMatched: 0, exactCall: false, extraCalls: 0 });
    expect(gradeToolCalls(expected, [call('run_sql', '{"host": ')])).toMatchObject({ rightTool: true, argsMatched: 0, exactCall: false });
    expect(gradeToolCalls(expected, [call('run_sql', '[1]')])).toMatchObject({ argsMatched: 0 });
  });

  it('no call expected: right when none is made; every call is extra', () => {
    expect(gradeToolCalls(null, [])).toMatchObject({ expected: null, rightTool: true, exactCall: true, extraCalls: 0 });
    const grade = gradeToolCalls(null, [call('run_sql', {}), call('run_sql', {})]);
    expect(grade).toMatchObject({ rightTool: false, exactCall: false, extraCalls: 2 });
    expect(toolGradeReason(grade)).toBe('called run_sql where no call was expected');
  });
});

const turns: Turn[] = [
  { kind: 'message', user: 'The primary is db-prod-7.', toolCalls: [{ name: 'run_sql', arguments: { host: 'db-prod-7', query: 'select lag' }, output: '12s' }] },
  {
    kind: 'items',
    items: [
      { type: 'function_call', callId: 'c1', name: 'get_ticket', arguments: '{"id":"TCK-9"}', status: 'completed' },
      { type: 'function_call_result', callId: 'c1', name: 'get_ticket', status: 'completed', output: { type: 'text', text: 'open' } },
    ],
  },
  { kind: 'message', user: 'My email is ana@example.com.', toolCalls: [{ name: 'run_sql', arguments: { host: 'db-prod-9', query: 'x' }, output: '' }] },
];

describe('continuity counters', () => {
  it('collects the calls up to a turn, message and raw turns alike', () => {
    expect(callsUpTo(turns, 2).map((c) => c.name)).toEqual(['run_sql', 'get_ticket']);
    expect(callsUpTo(turns, 3)).toHaveLength(3);
  });

  it('a repeated call is the same tool with the same arguments, each normalised; the expected call is not one', () => {
    const earlier = callsUpTo(turns, 2);
    const again = call('run_sql', { query: 'SELECT lag', host: 'DB-PROD-7' });
    expect(repeatedCalls([again], earlier)).toBe(1);
    expect(repeatedCalls([call('get_ticket', { id: 'tck-9' })], earlier)).toBe(1);
    expect(repeatedCalls([call('run_sql', { host: 'db-prod-9', query: 'x' })], earlier)).toBe(0);
    expect(repeatedCalls([again], earlier, again)).toBe(0);
  });

  it('asksUser spots requests for information, not statements', () => {
    expect(asksUser('Could you provide the ticket number?')).toBe(true);
    expect(asksUser('Please share your email address.')).toBe(true);
    expect(asksUser('Which host do you want me to query?')).toBe(true);
    expect(asksUser('The ticket is TCK-9.')).toBe(false);
    expect(asksUser('Is the lag still 12s? It was 12s at 10:00.')).toBe(false);
  });

  it('a needed value the user gave: a needed fact or an expected argument value in a user message up to the probe', () => {
    const base: Probe = { id: 'p', afterTurn: 3, question: 'q', answer: 'a', mustInclude: [], facts: ['email'], kind: 'recall' };
    const facts = [{ id: 'email', text: 'ana@example.com', aliases: [], turn: 3, critical: false }];
    expect(userGaveNeededValue(base, { turns, facts })).toBe(true);
    expect(userGaveNeededValue({ ...base, afterTurn: 2 }, { turns, facts })).toBe(false);
    const tool: Probe = { ...base, facts: [], kind: 'tool', expectCall: expected };
    expect(userGaveNeededValue(tool, { turns, facts })).toBe(true);
    // A value only a tool gave is not the user's.
    expect(userGaveNeededValue({ ...tool, expectCall: { name: 'get_ticket', arguments: { id: { rule: 'normalised', value: 'TCK-9' } } } }, { turns, facts })).toBe(false);
  });
});
