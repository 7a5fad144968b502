// A job that throws (a bug in a strategy or in memeval, not a model's error)
// must not take the run down with it: the other jobs finish and are reported,
// and the run is FAILED, naming the job and the error, never complete.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite, type RunOutcome } from '../../../harness/run/run.js';
import { STRATEGIES } from '../../../strategies/index.js';
import { FullHistoryStrategy } from '../../../strategies/full-history.js';
import type { StrategyDefinition } from '../../../strategies/registry.js';
import type { ViewChange } from '../../../strategies/base.js';
import { itemText } from '../../../core/items.js';
import { tinyTranscript, Workspace } from '../../helpers/cli.js';
import { summarize } from '../../../reports/aggregate.js';

/** Full history, except that its view throws once transcript t1's second turn (its router, model R200) is in it. */
class BreaksOnT1 extends FullHistoryStrategy {
  override viewChange(): ViewChange {
    if (this.history.some((item) => itemText(item).includes('model R200'))) throw new TypeError("Cannot read properties of undefined (reading 'text')");
    return super.viewChange();
  }
}
const breaks: StrategyDefinition = { use: 'breaks-on-t1', doc: 'Throws on one transcript.', options: {}, create: () => new BreaksOnT1() };
const registry = STRATEGIES.with([breaks]);

const ws = new Workspace({
  'memeval.config.yaml': `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
cache: false
max_errors: 100%
strategies:
  - { id: full, use: full-history }
  - { id: bad, use: breaks-on-t1 }
`,
  'data/t1.yaml': tinyTranscript('t1'),
  'data/t22.yaml': tinyTranscript('t22'),
});
let outcome: RunOutcome;

beforeAll(async () => {
  outcome = await runSuite({ config: loadConfig(ws.path('memeval.config.yaml'), registry), registry, log: () => undefined });
});
afterAll(() => ws.cleanup());

it('finishes every other job and records its answers', () => {
  const { probes } = outcome.run;
  const jobs = new Set(probes.map((p) => `${p.strategy}/${p.transcript}`));
  expect([...jobs].sort()).toEqual(['bad/t22', 'full/t1', 'full/t22']);
  expect(probes.every((p) => p.error === undefined)).toBe(true);
});

it('is FAILED, whatever max_errors allows, and says which job stopped, on what, and how many answers are missing', () => {
  const { info } = outcome.run;
  const missing = outcome.run.probes.filter((p) => p.strategy === 'full' && p.transcript === 't1').length;
  expect(missing).toBeGreaterThan(0);
  const onDisk = JSON.parse(readFileSync(join(outcome.dir, 'run.json'), 'utf8')).info as typeof info;
  expect(outcome.interrupted).toBe(false);
  for (const i of [info, onDisk]) {
    expect(i.status).toBe('failed');
    expect(i.failure).toBe(
      "The job of strategy bad on transcript t1 stopped on an error in memeval or the strategy, not the model's: Cannot read properties of undefined (reading 'text'). " +
        `${missing} probe answers were not attempted. Set MEMEVAL_DEBUG=1 to print the error's stack; \`memeval run --resume RUN_DIR\` runs the job again.`,
    );
  }
});

it('counts the answers the job owed as not passed, in the accuracy and its interval', () => {
  const rows = summarize(outcome.run);
  const bad = rows.find((r) => r.strategy === 'bad')!;
  const full = rows.find((r) => r.strategy === 'full')!;
  expect(full.unattempted).toBe(0);
  expect(bad.unattempted).toBe(full.attempted / 2);
  expect(bad.attempted).toBe(full.attempted / 2);
  expect(bad.accuracy).toBeCloseTo(bad.passed / full.attempted, 10);
  expect(bad.accuracyLow!).toBeLessThanOrEqual(bad.accuracy!);
  expect(bad.accuracyHigh!).toBeGreaterThanOrEqual(bad.accuracy!);
  const csv = readFileSync(join(outcome.dir, 'summary.csv'), 'utf8');
  expect(csv.split('\n')[0].split(',')).toContain('unattempted');
});

it('writes every report, marked FAILED', () => {
  for (const f of ['summary.csv', 'probes.csv', 'report.html']) expect(existsSync(join(outcome.dir, f)), f).toBe(true);
  expect(readFileSync(join(outcome.dir, 'report.html'), 'utf8')).toMatch(/FAILED/);
});
