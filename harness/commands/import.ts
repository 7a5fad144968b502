// `memeval import locomo|longmemeval FILE.json --out DIR [--limit N]`: one
// transcript YAML file per conversation or question of a public benchmark.
import { parseArgs } from 'node:util';
import { EXIT } from '../../core/errors.js';
import { importBenchmark } from '../datasets/importers/index.js';

const USAGE = 'usage: memeval import locomo|longmemeval FILE.json --out DIR [--limit N]';

function usage(message: string): number {
  process.stderr.write(`memeval import: ${message}\n${USAGE}\n`);
  return EXIT.badInput;
}

/** CLI entry. Returns the exit code; bad data is thrown as InputError (the CLI prints it and exits 2). */
export async function importCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' }, limit: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    return usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const [benchmark, file, ...extra] = positionals;
  if (benchmark !== 'locomo' && benchmark !== 'longmemeval') return usage(`unknown benchmark "${benchmark ?? ''}" (locomo or longmemeval)`);
  if (!file) return usage('missing FILE.json');
  if (extra.length > 0) return usage(`unexpected argument "${extra[0]}"`);
  if (!values.out) return usage('--out DIR is required');
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return usage(`--limit must be a whole number ≥ 1 (got "${values.limit}")`);
  const summary = await importBenchmark(benchmark, file, { out: values.out, limit });
  process.stdout.write(`${summary.written.length} transcripts, ${summary.probes} probes, ${summary.facts} facts → ${values.out}\n`);
  return EXIT.ok;
}
