// judgeRun: the status a finished run gets from its errors and its missing work.
import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../harness/run/verdict.js';
import type { StageErrors } from '../../../core/types.js';

const clean: StageErrors[] = [
  { stage: 'answer', errors: 0, attempted: 10 },
  { stage: 'answer-judge', errors: 0, attempted: 10 },
  { stage: 'summarizer', errors: 0, attempted: 0 },
  { stage: 'summary-judge', errors: 0, attempted: 0 },
];
const none = { kind: 'count', value: 0 } as const;

describe('judgeRun', () => {
  it('a run with every answer recorded and no error is complete', () => {
    expect(judgeRun(clean, none)).toEqual({ status: 'complete' });
  });

  it('answers owed but never recorded make the run incomplete, even with no error and no stop', () => {
    const verdict = judgeRun(clean, { kind: 'percent', value: 100 }, undefined, 4);
    expect(verdict.status).toBe('incomplete');
    expect(verdict.failure).toBe('4 probe answers the run owes have no record. `memeval run --resume RUN_DIR` attempts them.');
  });

  it('a stop or a crash still comes first and says how many were not attempted', () => {
    expect(judgeRun(clean, none, 'the API key was rejected', 3).failure).toBe('The run stopped early: the API key was rejected 3 probe answers were not attempted.');
    expect(judgeRun(clean, none, undefined, 2, { what: 'The job of x stopped.', hint: 'Resume it.' })).toEqual({
      status: 'failed',
      failure: 'The job of x stopped. 2 probe answers were not attempted. Resume it.',
    });
  });

  it('errors over max_errors make it incomplete; within it, complete', () => {
    const errored = clean.map((s) => (s.stage === 'answer' ? { ...s, errors: 1, firstError: 'boom' } : s));
    expect(judgeRun(errored, none).status).toBe('incomplete');
    expect(judgeRun(errored, { kind: 'count', value: 1 }).status).toBe('complete');
  });
});
