// Offline runs are CPU-bound chains of promises that never wait on I/O, and
// Node runs signal handlers (and timers, and the progress line) only when the
// event loop turns. Long stretches of work call this to let it turn.

/** How long work may hold the event loop before it lets signals in. */
const SLICE_MS = 50;

let sliceStart = performance.now();

/** Lets the event loop turn when the current slice of work has run SLICE_MS; otherwise costs one clock read. */
export async function yieldToEvents(): Promise<void> {
  const now = performance.now();
  if (now - sliceStart < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStart = performance.now();
}
