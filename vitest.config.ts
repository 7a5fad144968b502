import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest leaves one core idle by default, which on a 2-core machine runs the files one at a
    // time; much of the suite waits on child processes and local servers, so every core gets a
    // worker (on 2 cores: 203 s instead of 305 s for the whole suite).
    maxWorkers: availableParallelism(),
  },
});
