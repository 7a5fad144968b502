// `memeval diff` as a command: the files it writes and its exit codes.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffCommand } from '../../../harness/commands/diff.js';
import { sampleRun } from '../../helpers/sample-run.js';
import { captureOutput } from '../../helpers/output.js';

const CAND_OUTCOMES = {
  full: ['fail', 'fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const,
  summ: ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const,
};

function candidate() {
  const cand = sampleRun({ runId: 'cand', outcomes: { full: [...CAND_OUTCOMES.full], summ: [...CAND_OUTCOMES.summ] } });
  cand.summaries[0].grades!.judge!.overall = 5;
  return cand;
}

describe('diffCommand', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-diff-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const { stdout, stderr } = captureOutput();

  function runDir(name: string, run: unknown): string {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    return dir;
  }

  it('writes diff.md, diff.csv and diff.html into the candidate dir by default', async () => {
    const base = runDir('base', sampleRun({ runId: 'base' }));
    const evil = candidate();
    evil.probes[0].probe = '<script>window.__pwned=1</script>';
    evil.info.runId = 'cand <img src=x onerror=alert(1)>';
    const cand = runDir('cand', evil);
    expect(await diffCommand([base, cand])).toBe(0);
    for (const f of ['diff.md', 'diff.csv', 'diff.html']) expect(existsSync(join(cand, f))).toBe(true);
    const html = readFileSync(join(cand, 'diff.html'), 'utf8');
    expect(html).not.toContain('<script>window');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const md = readFileSync(join(cand, 'diff.md'), 'utf8');
    expect(md).toContain('| full | 0.900 → 0.800 |');
    expect(md).not.toContain('<img');
    expect(readFileSync(join(cand, 'diff.csv'), 'utf8')).toContain('full,probe.pass_to_fail,,1,,');
    expect(stdout()).not.toBe('');
  });

  it('honours --out', async () => {
    const base = runDir('b2', sampleRun());
    const cand = runDir('c2', candidate());
    const dest = join(root, 'elsewhere');
    expect(await diffCommand([base, cand, '--out', dest])).toBe(0);
    expect(existsSync(join(dest, 'diff.html'))).toBe(true);
  });

  it('exits 2 on bad input or usage, without a stack trace', async () => {
    const base = runDir('b3', sampleRun());
    expect(await diffCommand([base])).toBe(2);
    expect(await diffCommand([base, join(root, 'missing')])).toBe(2);
    expect(await diffCommand([base, base, '--bogus'])).toBe(2);
    const text = stderr();
    expect(text).toContain('missing');
    expect(text).not.toMatch(/\n\s+at /);
  });
});

