// The offline model's answer within a deadline. A synchronous loop cannot be interrupted by a
// test timeout (the thread never returns to the event loop), so the model runs in a worker
// thread that is terminated at the deadline.
import { Worker } from 'node:worker_threads';
import type { ModelRequest } from '../../core/model.js';

export async function offlineAnswerWithin(request: ModelRequest, ms: number): Promise<string> {
  const worker = new Worker(new URL('./offline-worker.mjs', import.meta.url), { workerData: request });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the offline model did not answer within ${ms} ms`)), ms);
      worker.once('message', (output: string) => resolve(output));
      worker.once('error', reject);
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
