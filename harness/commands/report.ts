// `memeval report RUN_DIR`: re-renders a run's reports from its run.json
// (after an upgrade, or for an interrupted run's partial results).
import { EXIT, UsageError } from '../../core/errors.js';
import { writeReports } from '../../reports/index.js';
import { loadRun, runDirOf } from '../../reports/load.js';

export async function reportCommand(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0].startsWith('-')) throw new UsageError('usage: memeval report RUN_DIR');
  const run = loadRun(argv[0]);
  const dir = runDirOf(argv[0]);
  const written = await writeReports(run, dir);
  if (run.info.status !== 'complete') process.stderr.write(`memeval: run ${run.info.runId} is ${run.info.status}; the reports show the work finished so far\n`);
  process.stdout.write(`${written.join('\n')}\n`);
  return EXIT.ok;
}

