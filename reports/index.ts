// Writes the standard reports of a finished run: the CSVs and report.html.
// Each file is written to a temp file in `dir` and renamed into place, not
// fsynced: run.json is, and `memeval report` rebuilds these from it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../core/types.js';
import { csvReporter } from './csv.js';
import { DRILLDOWN_SIDECAR, drilldownSidecar } from './drilldown.js';
import { htmlReporter, pageChunks } from './html.js';
import { REBUILDABLE, writeChunksAtomic } from '../core/atomic.js';
import type { Reporter } from './types.js';

export const REPORTERS: readonly Reporter[] = [csvReporter, htmlReporter];

export async function writeReports(run: RunResult, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const reporter of REPORTERS) written.push(...(await reporter.write(run, dir)));
  // A run with more failing probes than report.html shows gets every row in a file beside it.
  const sidecar = drilldownSidecar(run, pageChunks);
  if (sidecar) {
    const path = join(dir, DRILLDOWN_SIDECAR);
    writeChunksAtomic(path, sidecar, REBUILDABLE);
    written.push(path);
  }
  return written;
}

export { loadRun } from './load.js';
export { summarize, metricValue, METRIC_NAMES } from './aggregate.js';
