// Answers one request with the offline model inside a worker thread (offline-in-worker.ts):
// a reader that loops for ever can then be stopped, and the test fails instead of hanging.
// Plain JavaScript that registers tsx first: a worker does not share the test's TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { OfflineModel } = await import('../../harness/models/offline.ts');
const result = await new OfflineModel().complete(workerData);
parentPort?.postMessage(result.output);
