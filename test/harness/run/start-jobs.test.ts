// When a run starts its jobs: one after another while they only compute, the
// next as soon as one waits on a model call, never more than the limit.
import { describe, expect, it } from 'vitest';
import { ModelStats } from '../../../harness/models/cache.js';
import { startJobs, type JobStart } from '../../../harness/run/start-jobs.js';

/** The run's model counters, as a run's graders hold them: `call()` is a model call beginning. */
function calls(): { start: (concurrency: number, signal?: AbortSignal) => JobStart; call: () => void } {
  const stats = new ModelStats();
  return {
    start: (concurrency, signal = new AbortController().signal) => ({ concurrency, signal, onceCallBegins: (listener) => stats.onceCallBegins(listener) }),
    call: () => stats.callBegins(),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('startJobs', () => {
  it('runs jobs that make no model call one after another, in the given order', async () => {
    const events: string[] = [];
    const model = calls();
    await startJobs([2, 0, 1], model.start(8), async (i) => {
      events.push(`start ${i}`);
      await tick();
      await tick();
      events.push(`end ${i}`);
    });
    expect(events).toEqual(['start 2', 'end 2', 'start 0', 'end 0', 'start 1', 'end 1']);
  });

  it('starts the next job once the one before it waits on a model call', async () => {
    const events: string[] = [];
    const model = calls();
    const replies: (() => void)[] = [];
    const done = startJobs([0, 1, 2], model.start(8), async (i) => {
      events.push(`start ${i}`);
      const reply = new Promise<void>((resolve) => replies.push(resolve));
      model.call();
      await reply;
      events.push(`end ${i}`);
    });
    while (replies.length < 3) await tick();
    // All three wait on their calls at once; none has ended.
    expect(events).toEqual(['start 0', 'start 1', 'start 2']);
    for (const reply of replies) reply();
    await done;
    expect(events.slice(3).sort()).toEqual(['end 0', 'end 1', 'end 2']);
  });

  it('never runs more jobs at once than the limit', async () => {
    const model = calls();
    let running = 0;
    let most = 0;
    await startJobs([0, 1, 2, 3, 4, 5, 6], model.start(3), async () => {
      running++;
      most = Math.max(most, running);
      model.call();
      for (let k = 0; k < 5; k++) await tick();
      running--;
    });
    expect(most).toBe(3);
  });

  it('starts no job after one has thrown, and rejects with its error once the others settle', async () => {
    const started: number[] = [];
    const model = calls();
    const run = startJobs([0, 1, 2], model.start(4), async (i) => {
      started.push(i);
      if (i === 1) throw new Error('boom');
    });
    await expect(run).rejects.toThrow('boom');
    expect(started).toEqual([0, 1]);
  });

  it('starts no job once the signal is aborted', async () => {
    const stop = new AbortController();
    const started: number[] = [];
    const model = calls();
    await startJobs([0, 1, 2], model.start(4, stop.signal), async (i) => {
      started.push(i);
      if (i === 0) stop.abort();
    });
    expect(started).toEqual([0]);
  });
});
