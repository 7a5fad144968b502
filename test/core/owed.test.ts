import { describe, expect, it } from 'vitest';
import { answersPerJob, jobKey, type RunInfo } from '../../core/types.js';

const transcript = (id: string, probes: number): RunInfo['transcripts'][number] => ({ id, file: `${id}.yaml`, tags: [], turns: 10, probes });
const strategy = (id: string): RunInfo['strategies'][number] => ({ id, use: 'full-history', options: {} });

describe('answersPerJob', () => {
  const info = { strategies: [strategy('full'), strategy('trim')], transcripts: [transcript('a', 3), transcript('b', 5)], repeat: 2 };

  it('owes every probe of every transcript, once per repeat, under every strategy', () => {
    expect(answersPerJob(info)).toEqual(
      new Map([
        [jobKey('full', 'a'), 6],
        [jobKey('full', 'b'), 10],
        [jobKey('trim', 'a'), 6],
        [jobKey('trim', 'b'), 10],
      ]),
    );
  });

  it("owes only a shard's own jobs", () => {
    const shard = { index: 1, count: 2, jobs: [jobKey('trim', 'b'), jobKey('full', 'a')] };
    expect(answersPerJob({ ...info, shard })).toEqual(
      new Map([
        [jobKey('full', 'a'), 6],
        [jobKey('trim', 'b'), 10],
      ]),
    );
  });
});
