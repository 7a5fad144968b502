// `memeval import locomo|longmemeval FILE.json --out DIR [options]`: one
// transcript YAML file per conversation or question of a public benchmark.
import { parseArgs } from 'node:util';
import { EXIT } from '../../core/errors.js';
import { ImportInterrupted, type ImportOptions, type ImportSummary, LOCOMO_CATEGORIES, LONGMEMEVAL_KINDS, type Selection, importBenchmark, readErrataFiles } from '../datasets/importers/index.js';
import { SIGNAL_EXIT, stopOnSignals } from '../signals.js';
import { GENERIC_FACT_MIN_TURNS } from '../datasets/importers/shared.js';

export const IMPORT_USAGE = `usage: memeval import locomo|longmemeval FILE.json --out DIR [--clean] [--limit N]
         [--sample N --seed S] [--exclude-category N[,M]] [--errata FILE] [--types a,b]

  --out DIR                 folder for the transcripts; written all or nothing
  --clean                   remove memeval transcripts in DIR that this import does not
                            write (an earlier import's); without it their presence is an error
  --limit N                 only the first N records of FILE
  --sample N --seed S       a stratified sample of N questions (by LoCoMo category or
                            LongMemEval question type), the same for the same seed
  --exclude-category N[,M]  LoCoMo: leave out these categories (5 = adversarial)
  --errata FILE             LoCoMo: leave out known-wrong gold answers (dial481/locomo-audit
                            errors_conv_<n>.json or errors.json; repeatable)
  --types a,b               LongMemEval: keep only these question types`;

class BadOption extends Error {}

function usage(message: string): number {
  process.stderr.write(`memeval import: ${message}\n${IMPORT_USAGE}\n`);
  return EXIT.badInput;
}

function wholeNumber(flag: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new BadOption(`${flag} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`} (got "${raw}")`);
  }
  return n;
}

function list(flag: string, raw: string): string[] {
  const items = raw.split(',').map((s) => s.trim());
  if (items.some((s) => s.length === 0)) throw new BadOption(`${flag} takes a comma-separated list with no empty entries (got "${raw}")`);
  return items;
}

function categories(raw: string): Set<number> {
  const known = Object.keys(LOCOMO_CATEGORIES).map(Number);
  const names = Object.entries(LOCOMO_CATEGORIES).map(([n, c]) => `${n} ${c.name}`).join(', ');
  return new Set(
    list('--exclude-category', raw).map((item) => {
      const n = Number(item);
      if (!known.includes(n)) throw new BadOption(`--exclude-category: unknown LoCoMo category "${item}" (${names})`);
      return n;
    }),
  );
}

function questionTypes(raw: string): Set<string> {
  const known = Object.keys(LONGMEMEVAL_KINDS);
  return new Set(
    list('--types', raw).map((item) => {
      if (!known.includes(item)) throw new BadOption(`--types: unknown LongMemEval question type "${item}" (${known.join(', ')})`);
      return item;
    }),
  );
}

interface Values {
  out?: string;
  limit?: string;
  clean?: boolean;
  sample?: string;
  seed?: string;
  'exclude-category'?: string;
  types?: string;
  errata?: string[];
}

/** Options that only make sense for one benchmark are refused for the other, rather than silently ignored. */
function checkBenchmarkOptions(benchmark: 'locomo' | 'longmemeval', values: Values): void {
  const onlyLocomo = values['exclude-category'] !== undefined ? '--exclude-category' : values.errata !== undefined ? '--errata' : undefined;
  if (benchmark === 'longmemeval' && onlyLocomo) throw new BadOption(`${onlyLocomo} is for LoCoMo; LongMemEval has question types (--types)`);
  if (benchmark === 'locomo' && values.types !== undefined) throw new BadOption('--types is for LongMemEval; LoCoMo has categories (--exclude-category)');
}

function importOptions(benchmark: 'locomo' | 'longmemeval', values: Values & { out: string }): ImportOptions {
  checkBenchmarkOptions(benchmark, values);
  if (values.seed !== undefined && values.sample === undefined) throw new BadOption('--seed only goes with --sample N');
  if (values.sample !== undefined && values.seed === undefined) throw new BadOption('--sample needs --seed S (a whole number; the same seed draws the same sample)');
  const selection: Selection = {};
  if (values['exclude-category'] !== undefined) selection.excludeCategories = categories(values['exclude-category']);
  if (values.types !== undefined) selection.types = questionTypes(values.types);
  // Errata are read before anything is converted, so a bad file fails fast.
  if (values.errata !== undefined) selection.errata = readErrataFiles(values.errata);
  return {
    out: values.out,
    clean: values.clean === true,
    limit: values.limit === undefined ? undefined : wholeNumber('--limit', values.limit, 1),
    sample: values.sample === undefined ? undefined : { size: wholeNumber('--sample', values.sample, 1), seed: wholeNumber('--seed', values.seed as string, 0, 0xffffffff) },
    selection,
    ...(values.errata !== undefined ? { errataFiles: values.errata } : {}),
  };
}

/** The lines printed after an import: counts, what was left out, what was tolerated. */
export function summaryLines(summary: ImportSummary, out: string): string[] {
  const lines = [`${summary.written.length} transcripts, ${summary.probes} probes, ${summary.facts} facts → ${out}`];
  if (summary.genericFacts > 0) {
    lines.push(`left out ${summary.genericFacts} facts too generic to track (their words are said in ${GENERIC_FACT_MIN_TURNS} or more turns of the conversation)`);
  }
  const { errata, category, type } = summary.dropped;
  if (category > 0) lines.push(`left out ${category} questions of excluded categories`);
  if (type > 0) lines.push(`left out ${type} questions of other types`);
  if (summary.errata) {
    const kept = summary.errata.citationOnly > 0 ? `; kept ${summary.errata.citationOnly} whose errata entry is citation-only` : '';
    lines.push(`left out ${errata} questions listed in the errata${kept}`);
    const unmatched = summary.errata.unmatched;
    if (unmatched.length > 0) lines.push(`warning: ${unmatched.length} errata entries matched no question (e.g. ${unmatched[0]})`);
  }
  if (summary.sample) {
    const s = summary.sample;
    const strata = Object.entries(s.perStratum).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`sample (seed ${s.seed}): ${summary.probes} of ${s.population} questions${s.requested > s.population ? ` (all; ${s.requested} asked)` : ''}: ${strata}`);
  }
  if (summary.removed.length > 0) lines.push(`removed ${summary.removed.length} transcripts of an earlier import (--clean)`);
  if (summary.quirks.length > 0) lines.push('tolerated in the data:', ...summary.quirks.map((q) => `  ${q}`));
  return lines;
}

/** CLI entry. Returns the exit code; bad data is thrown as InputError (the CLI prints it and exits 2). */
export async function importCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        limit: { type: 'string' },
        clean: { type: 'boolean' },
        sample: { type: 'string' },
        seed: { type: 'string' },
        'exclude-category': { type: 'string' },
        types: { type: 'string' },
        errata: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    return usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${IMPORT_USAGE}\n`);
    return EXIT.ok;
  }
  const [benchmark, file, ...extra] = positionals;
  if (benchmark !== 'locomo' && benchmark !== 'longmemeval') return usage(`unknown benchmark "${benchmark ?? ''}" (locomo or longmemeval)`);
  if (!file) return usage('missing FILE.json');
  if (extra.length > 0) return usage(`unexpected argument "${extra[0]}"`);
  if (!values.out) return usage('--out DIR is required');
  let options: ImportOptions;
  try {
    options = importOptions(benchmark, { ...values, out: values.out });
  } catch (e) {
    if (e instanceof BadOption) return usage(e.message);
    throw e;
  }
  // Ctrl-C stops between records so the staging folder is removed; a second one quits at once.
  const stopper = stopOnSignals();
  try {
    const summary = await importBenchmark(benchmark, file, { ...options, signal: stopper.signal });
    process.stdout.write(`${summaryLines(summary, values.out).join('\n')}\n`);
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof ImportInterrupted)) throw e;
    process.stderr.write(`memeval import: ${e.message}\n`);
    return SIGNAL_EXIT[stopper.received() ?? 'SIGINT'];
  } finally {
    stopper.dispose();
  }
}
