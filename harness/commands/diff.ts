// `memeval diff BASE_RUN CANDIDATE_RUN [--out DIR] [--allow-protocol-change]`:
// compares two runs and writes diff.md, diff.csv and diff.html (into the
// candidate's folder by default). Runs whose protocol manifests differ (answer
// prompt, judge prompts or models, scorers) are not comparable: the files still
// say what differs, at the top, and the command exits 2 (bad input: the two
// runs cannot be compared as given) unless --allow-protocol-change is passed.
import { parseArgs } from 'node:util';
import { EXIT, isInputError } from '../../core/errors.js';
import { mkdirSync } from 'node:fs';
import { diffCsv, diffHtml, diffRuns, type RunDiff } from '../../reports/diff.js';
import { writeFilesAtomic } from '../../core/atomic.js';
import { loadRun, runDirOf } from '../../reports/load.js';
import { diffMarkdown } from '../../reports/markdown.js';

/** Writes diff.md, diff.csv and diff.html into `dir`; returns the markdown (also printed) and the paths. */
function writeDiff(diff: RunDiff, dir: string): { markdown: string; written: string[] } {
  mkdirSync(dir, { recursive: true });
  const markdown = diffMarkdown(diff);
  const written = writeFilesAtomic(dir, [
    ['diff.md', markdown],
    ['diff.csv', diffCsv(diff)],
    ['diff.html', diffHtml(diff)],
  ]);
  return { markdown, written };
}

/**
 * Exit 2 when the protocols differ and no one said that was intended: a CI
 * step comparing against a baseline must not read a judge or prompt change as
 * a strategy's regression or gain. The files are written either way.
 */
function protocolVerdict(diff: RunDiff, allowed: boolean): number {
  if (diff.comparable || allowed) return EXIT.ok;
  process.stderr.write(`memeval diff: ${diff.warnings[0]}\nPass --allow-protocol-change to compare them anyway.\n`);
  return EXIT.badInput;
}

const USAGE = 'usage: memeval diff BASE_RUN CANDIDATE_RUN [--out DIR] [--allow-protocol-change]';

/** `memeval diff BASE_RUN CANDIDATE_RUN [--out DIR] [--allow-protocol-change]`: exit 0, or 2 on bad input, usage, or runs whose protocols differ. */
export async function diffCommand(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { out: { type: 'string' }, 'allow-protocol-change': { type: 'boolean' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 2) {
      process.stderr.write(`${USAGE}\n`);
      return EXIT.badInput;
    }
    const [basePath, candPath] = positionals;
    const allowProtocolChange = values['allow-protocol-change'] === true;
    const diff = diffRuns(loadRun(basePath), loadRun(candPath), { allowProtocolChange });
    const dir = values.out ?? runDirOf(candPath);
    const { markdown, written } = writeDiff(diff, dir);
    process.stdout.write(`${markdown}\nwrote ${written.join(', ')}\n`);
    return protocolVerdict(diff, allowProtocolChange);
  } catch (err) {
    if (isInputError(err)) {
      for (const line of err.message.split('\n')) process.stderr.write(`${line}\n`);
      return EXIT.badInput;
    }
    if (err instanceof TypeError && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`memeval diff: ${err.message}\n${USAGE}\n`);
      return EXIT.badInput;
    }
    throw err;
  }
}
