// `memeval diff BASE_RUN CANDIDATE_RUN [--out DIR]`: compares two runs and
// writes diff.md, diff.csv and diff.html (into the candidate's folder by default).
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

const USAGE = 'usage: memeval diff BASE_RUN CANDIDATE_RUN [--out DIR]';

/** `memeval diff BASE_RUN CANDIDATE_RUN [--out DIR]`: exit 0, or 2 on bad input or usage. */
export async function diffCommand(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { out: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 2) {
      process.stderr.write(`${USAGE}\n`);
      return EXIT.badInput;
    }
    const [basePath, candPath] = positionals;
    const diff = diffRuns(loadRun(basePath), loadRun(candPath));
    const dir = values.out ?? runDirOf(candPath);
    const { markdown, written } = writeDiff(diff, dir);
    process.stdout.write(`${markdown}\nwrote ${written.join(', ')}\n`);
    return EXIT.ok;
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
