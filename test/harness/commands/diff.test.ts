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

  it('exits 2 on runs whose protocols differ, still writing what differs, and 0 with --allow-protocol-change', async () => {
    const withJudge = (judge: string) => {
      const run = sampleRun();
      const prompts = [{ system: 'Grade.', user: '{answer}' }];
      const answerJudge = { model: judge, name: 'llm-answer-judge', prompts, sha256: 'a'.repeat(64) };
      run.info.protocol = {
        version: 1,
        answer: { model: run.info.model, agent: 'direct', request: 'as sent', sha256: 'r'.repeat(64), systemPrompts: [] },
        answerJudge,
        summaryJudge: { ...answerJudge, name: 'llm-summary-judge' },
        scorers: ['memeval-rules'],
        datasets: [],
      };
      return run;
    };
    const base = runDir('pb', withJudge('openai:gpt-4.1'));
    const cand = runDir('pc', withJudge('openai:gpt-5'));
    expect(await diffCommand([base, cand])).toBe(2);
    expect(stderr()).toContain('not comparable: answer judge model openai:gpt-4.1 → openai:gpt-5');
    expect(stderr()).toContain('--allow-protocol-change');
    expect(readFileSync(join(cand, 'diff.md'), 'utf8')).toContain('not comparable: answer judge model');
    expect(await diffCommand([base, cand, '--allow-protocol-change'])).toBe(0);
    expect(readFileSync(join(cand, 'diff.html'), 'utf8')).toContain('protocol changed (compared anyway, --allow-protocol-change)');
  });
});

