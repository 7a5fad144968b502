// Captures what a command writes to stdout and stderr, for tests that call commands as
// functions: the output stays off the test log and can be read back.
import { afterEach, beforeEach, vi, type MockInstance } from 'vitest';

export interface CapturedOutput {
  stdout(): string;
  stderr(): string;
  /** Forgets what was written to stderr so far. */
  clearStderr(): void;
}

type Write = MockInstance<typeof process.stdout.write>;

const written = (mock: Write | undefined) => (mock ? mock.mock.calls.map((c) => String(c[0])).join('') : '');

/** Silences stdout and stderr around every test of the calling `describe`, keeping what was written. */
export function captureOutput(): CapturedOutput {
  let out: Write | undefined;
  let err: Write | undefined;
  beforeEach(() => {
    out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());
  return { stdout: () => written(out), stderr: () => written(err), clearStderr: () => err?.mockClear() };
}
