// When a run starts its jobs. Node runs one thread: jobs started together
// advance in lock step, a turn of each in turn at every `await`, so the first
// job reaches its first model call only when every job has nearly finished
// its replay. Starting the next job only once a model call begins (so some
// job now waits on the network) or the job before it has ended runs their CPU
// work one after another instead: the first requests go out as soon as the
// first job has its contexts, and later jobs replay while those requests are
// in flight.
import pLimit from 'p-limit';

export interface JobStart {
  /** Jobs running at once, at most. */
  concurrency: number;
  /** Once aborted, no further job starts. */
  signal: AbortSignal;
  /** Calls `listener` once, when the next model call begins; returns a function that forgets it. */
  onceCallBegins(listener: () => void): () => void;
}

/**
 * Runs `run(i)` for each index of `order`, in that order, each once a model
 * call (of any running job) has begun since the job before it started, or that
 * job has ended; at most `concurrency` at once. An offline run, which makes no
 * model calls, runs its jobs one by one. A job that throws stops further
 * starts, and the returned promise rejects with its error (jobs already
 * started run on, as they did when every job was started at once).
 */
export async function startJobs(order: readonly number[], start: JobStart, run: (i: number) => Promise<void>): Promise<void> {
  const limit = pLimit(start.concurrency);
  const started: Promise<void>[] = [];
  let failed = false;
  for (const i of order) {
    if (failed || start.signal.aborted) break;
    const job = limit(() => run(i));
    started.push(job);
    await new Promise<void>((resolve) => {
      // A turn of the event loop first, so the call's request is written before the next job's CPU work.
      const forget = start.onceCallBegins(() => setImmediate(resolve));
      const settled = (): void => {
        forget();
        resolve();
      };
      job.then(settled, () => {
        failed = true;
        settled();
      });
    });
  }
  await Promise.all(started);
}
