// `memeval merge SHARD_DIR… [--out DIR]`: combines the shards of one run
// (`memeval run --shard i/n`) into one run directory with every report, and
// exits by the merged run's verdict as `memeval run` does.
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../../core/errors.js';
import { formatTable } from '../../reports/table.js';
import { mergeShards } from '../run/merge.js';

const USAGE = 'usage: memeval merge SHARD_DIR… [--out DIR]';

function parseMergeArgs(argv: string[]): { dirs: string[]; out?: string; help: boolean } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    return { dirs: positionals, out: values.out, help: values.help === true };
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

export async function mergeCommand(argv: string[]): Promise<number> {
  const args = parseMergeArgs(argv);
  if (args.help) {
    process.stdout.write(`${USAGE}\nEvery shard of the run is needed; the merged run is checked and reported like an unsharded one.\n`);
    return EXIT.ok;
  }
  if (args.dirs.length === 0) throw new UsageError(USAGE);
  const { dir, run } = await mergeShards({ dirs: args.dirs, out: args.out });
  process.stdout.write(formatTable(run));
  process.stdout.write(`\nmerged ${run.info.mergedFrom?.length ?? 0} shards: ${dir}\n`);
  const { status, failure } = run.info;
  if (status !== 'complete') process.stderr.write(`\nmemeval: the merged run is ${status.toUpperCase()}. ${failure ?? ''}\n`);
  return status === 'complete' ? EXIT.ok : EXIT.runFailed;
}
