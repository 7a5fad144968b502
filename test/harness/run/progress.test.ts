// The progress display: one redrawn line on a terminal, throttled plain lines in CI and pipes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Progress } from '../../../harness/run/progress.js';

function stream(isTTY: boolean): { writes: string[]; target: NodeJS.WriteStream } {
  const writes: string[] = [];
  const target = { isTTY, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { writes, target };
}

const counts = () => ({ calls: 7, cacheHits: 3, errors: 1 });
let savedCI: string | undefined;

beforeEach(() => {
  savedCI = process.env.CI;
  delete process.env.CI;
});

afterEach(() => {
  if (savedCI === undefined) delete process.env.CI;
  else process.env.CI = savedCI;
});

it('redraws one line on a terminal with done/total, calls, cache hits, errors and ETA', () => {
  const { writes, target } = stream(true);
  const progress = new Progress(4, counts, target, 5000, 0);
  for (let i = 0; i < 4; i++) progress.tick();
  progress.finish();
  expect(writes.every((w) => w.startsWith('\r'))).toBe(true);
  expect(writes.slice(0, -1).every((w) => !w.includes('\n'))).toBe(true);
  expect(writes.at(-1)).toMatch(/\n$/);
  expect(writes[3]).toMatch(/^\r4\/4 \(100%\) · calls 7 · cache hits 3 · errors 1 · ETA \d+s\x1b\[K$/);
});

it('throttles terminal redraws but always draws the last tick', () => {
  const { writes, target } = stream(true);
  const progress = new Progress(1000, counts, target, 5000, 60_000);
  for (let i = 0; i < 1000; i++) progress.tick();
  expect(writes).toHaveLength(2);
  expect(writes[1]).toContain('1000/1000 (100%)');
});

it('writes plain lines (no carriage returns or escapes) when CI is set, at most one per interval plus the last', () => {
  process.env.CI = 'true';
  const { writes, target } = stream(true);
  const progress = new Progress(500, counts, target, 60_000);
  for (let i = 0; i < 500; i++) progress.tick();
  progress.finish();
  expect(writes).toHaveLength(2);
  for (const w of writes) {
    expect(w).not.toMatch(/[\r\x1b]/);
    expect(w).toMatch(/\n$/);
  }
  expect(writes[1]).toBe('500/500 (100%) · calls 7 · cache hits 3 · errors 1 · ETA 0s\n');
});

it('does not promise an ETA from the first few ticks', () => {
  const { target } = stream(false);
  const progress = new Progress(1000, counts, target, 60_000);
  progress.tick();
  expect(progress.line()).toMatch(/ETA \?$/);
  for (let i = 0; i < 20; i++) progress.tick();
  expect(progress.line()).toMatch(/ETA \d+(m\d\ds|s)$/);
});

it('writes a note on a line of its own: on a terminal the progress line is cleared first and drawn again below it', () => {
  const tty = stream(true);
  const progress = new Progress(4, counts, tty.target, 5000, 0);
  progress.tick();
  progress.note('memeval: the job of strategy s on transcript t stopped on an error: boom');
  expect(tty.writes[1]).toMatch(/^\r\x1b\[Kmemeval: the job of strategy s on transcript t stopped on an error: boom\n1\/4 \(25%\) · .*\x1b\[K$/);
  const plain = stream(false);
  new Progress(4, counts, plain.target).note('a note');
  expect(plain.writes).toEqual(['a note\n']);
});
