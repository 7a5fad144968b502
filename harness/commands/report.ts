// `memeval report RUN_DIR`: re-renders a run's reports from its run.json
// (after an upgrade, or for an interrupted run's partial results).
import { dirname } from 'node:path';
import { EXIT, UsageError } from '../../core/errors.js';
import { writeReports } from '../../reports/index.js';
import { loadRun, runFilePath } from '../../reports/load.js';
import { lockRunDir } from '../run/run-dir.js';

export async function reportCommand(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0].startsWith('-')) throw new UsageError('usage: memeval report RUN_DIR');
  const file = runFilePath(argv[0]);
  const dir = dirname(file);
  // A run (or another report) writing the same directory would leave reports of two states side
  // by side, the older ones written last: the directory is held while it is read and rendered.
  const release = lockRunDir(dir);
  try {
    const run = loadRun(file);
    const written = await writeReports(run, dir);
    if (run.info.status !== 'complete') process.stderr.write(`memeval: run ${run.info.runId} is ${run.info.status}; the reports show the work finished so far\n`);
    process.stdout.write(`${written.join('\n')}\n`);
    return EXIT.ok;
  } finally {
    release();
  }
}
