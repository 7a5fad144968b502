// `memeval export`: a run's answers in the files LongMemEval's and LoCoMo's own scripts read.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProbeRecord, RunResult } from '../../../core/types.js';
import { exportCommand, exportRun, locomoSamples } from '../../../harness/commands/export.js';
import { sampleRun } from '../../helpers/sample-run.js';
import { captureOutput } from '../../helpers/output.js';

const SOURCE = join(import.meta.dirname, '..', '..', 'fixtures', 'importers', 'locomo-mini.json');

function record(strategy: string, transcript: string, probe: string, question: string, answer: string | undefined, extra: Partial<ProbeRecord> = {}): ProbeRecord {
  const base: ProbeRecord = {
    strategy,
    transcript,
    probe,
    kind: 'recall',
    afterTurn: 1,
    repeat: 1,
    question,
    reference: 'ref',
    contextTokens: 1,
    contextItems: 1,
    factsNeeded: [],
    factsPresent: [],
    factsMissing: [],
    answerable: null,
  };
  return answer === undefined ? { ...base, error: '500 server error', errorStage: 'answer', passed: false, ...extra } : { ...base, answer, passed: true, ...extra };
}

/** A run over two LongMemEval questions, one LoCoMo sample and one hand-written transcript. */
function benchmarkRun(): RunResult {
  const run = sampleRun({ runId: 'bench' });
  run.info.repeat = 1;
  run.info.strategies = run.info.strategies.filter((s) => s.id !== 'trim-2');
  const listed = (id: string, tags: string[]) => ({ id, file: `${id}.yaml`, tags, turns: 1, probes: 1 });
  run.info.transcripts = [listed('lme-a1b2c3', ['longmemeval']), listed('lme-zz_abs', ['longmemeval']), listed('locomo-conv-mini-1', ['locomo']), listed('own', ['support'])];
  const q = (i: number) => (JSON.parse(readFileSync(SOURCE, 'utf8')) as { qa: { question: string }[] }[])[0].qa[i].question;
  run.probes = [
    record('full', 'lme-a1b2c3', 'q1', 'Which store?', 'Target'),
    record('full', 'lme-zz_abs', 'q1', 'Which bank?', undefined),
    record('full', 'lme-zz_abs', 'q1', 'Which bank?', 'second sample', { repeat: 2 }),
    record('summ', 'lme-a1b2c3', 'q1', 'Which store?', 'Walmart', { meta: { question_id: 'a1b2c3-exact' } }),
    record('summ', 'lme-zz_abs', 'q1', 'Which bank?', 'not mentioned', { error: 'judge: bad reply', errorStage: 'judge' }),
    record('full', 'locomo-conv-mini-1', 'q1', q(0), 'a support group'),
    record('full', 'locomo-conv-mini-1', 'q3', q(2), undefined),
    record('full', 'own', 'p1', 'What is the order number?', 'A-1042'),
  ];
  return run;
}

describe('exportRun', () => {
  it('writes LongMemEval JSONL per strategy, an errored answer as an empty hypothesis with a warning', () => {
    const result = exportRun(benchmarkRun(), { format: 'longmemeval' });
    expect(result.files.map((f) => f.strategy)).toEqual(['full', 'summ']);
    expect(result.files[0].text).toBe('{"question_id":"a1b2c3","hypothesis":"Target"}\n{"question_id":"zz_abs","hypothesis":""}\n');
    // The importer's own record of the id wins; a judge error does not touch the answer.
    expect(result.files[1].text).toBe('{"question_id":"a1b2c3-exact","hypothesis":"Walmart"}\n{"question_id":"zz_abs","hypothesis":"not mentioned"}\n');
    expect(result.warnings).toEqual(['warning: full: 1 of 2 answers errored; exported with an empty hypothesis (they score 0)']);
    expect(exportRun(benchmarkRun(), { format: 'longmemeval', strategy: 'full', repeat: 2 }).files[0].text).toBe('{"question_id":"zz_abs","hypothesis":"second sample"}\n');
  });

  it('fills LoCoMo predictions into the source structure, keeping only the asked questions', () => {
    const result = exportRun(benchmarkRun(), { format: 'locomo', source: SOURCE, strategy: 'full' });
    const source = JSON.parse(readFileSync(SOURCE, 'utf8')) as Record<string, unknown>[];
    const out = JSON.parse(result.files[0].text) as { sample_id: string; qa: Record<string, unknown>[]; conversation: unknown }[];
    expect(out.map((s) => s.sample_id)).toEqual(['conv-mini-1']);
    expect(out[0].conversation).toEqual(source[0].conversation);
    expect(out[0].qa).toHaveLength(2);
    expect(out[0].qa[0]).toMatchObject({ category: 4, prediction: 'a support group', full_prediction: 'a support group' });
    expect(out[0].qa[1]).toMatchObject({ category: 1, prediction: '', full_prediction: '' });
    expect(result.warnings).toEqual(['warning: full: 1 of 2 answers errored; exported with an empty hypothesis (they score 0)']);
  });

  it('refuses a run missing answers it owes, or a shard: the official script would score only those answered', () => {
    const interrupted = benchmarkRun();
    interrupted.info.status = 'interrupted';
    interrupted.probes = interrupted.probes.filter((p) => !(p.strategy === 'summ' && p.transcript === 'lme-zz_abs'));
    expect(() => exportRun(interrupted, { format: 'longmemeval' }, 'runs/x')).toThrow(
      'runs/x: strategy "summ" has 1 of the 2 answers the run owes (status interrupted): finish it first (memeval run --resume RUN_DIR), or the official script would score only the questions answered',
    );
    // Another strategy, whole, still exports on its own.
    expect(exportRun(interrupted, { format: 'longmemeval', strategy: 'full' }).files).toHaveLength(1);
    const shard = benchmarkRun();
    shard.info.shard = { index: 1, count: 2, jobs: [] };
    expect(() => exportRun(shard, { format: 'longmemeval' }, 'runs/s')).toThrow('runs/s: is shard 1 of 2 and holds only its jobs: merge the shards (memeval merge) and export the merged run');
  });

  it('names samples whose ids read the same as the importer does, in file order: a later one never takes the first one\'s place', () => {
    const samples = locomoSamples([{ sample_id: 'conv 2', qa: [{ question: 'first?' }] }, { sample_id: 'conv-2', qa: [{ question: 'second?' }] }, { sample_id: 'conv@2', qa: [] }], 'x.json');
    expect([...samples.keys()]).toEqual(['locomo-conv-2', 'locomo-conv-2-2', 'locomo-conv-2-3']);
    expect(samples.get('locomo-conv-2-2')?.qa[0].question).toBe('second?');
  });

  it('refuses a LoCoMo source that does not hold the asked questions, or none at all', () => {
    const run = benchmarkRun();
    run.probes[5].question = 'A question this file never asked?';
    expect(() => exportRun(run, { format: 'locomo', source: SOURCE })).toThrow(/has no question "A question this file never asked\?".*another version of the file/);
    expect(() => exportRun(benchmarkRun(), { format: 'locomo' })).toThrow(/needs --source/);
    expect(() => exportRun(benchmarkRun(), { format: 'longmemeval', strategy: 'nope' })).toThrow(/no strategy "nope"/);
  });
});

describe('exportCommand', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-export-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const { stdout, stderr } = captureOutput();

  function runDir(name: string, run: RunResult): string {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    return dir;
  }

  it('writes one file per strategy into RUN_DIR/export, or --out for one strategy', async () => {
    const dir = runDir('r1', benchmarkRun());
    expect(await exportCommand([dir, '--format', 'longmemeval'])).toBe(0);
    expect(readFileSync(join(dir, 'export', 'full.longmemeval.jsonl'), 'utf8')).toContain('"hypothesis":"Target"');
    expect(existsSync(join(dir, 'export', 'summ.longmemeval.jsonl'))).toBe(true);
    expect(stdout()).toContain('full: 2 answers →');
    expect(stderr()).toContain('warning: full: 1 of 2 answers errored');
    const out = join(root, 'one.json');
    expect(await exportCommand([dir, '--format', 'locomo', '--source', SOURCE, '--strategy', 'full', '--out', out])).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(1);
  });

  it('exits 2 on a bad format or a flag for the other format', async () => {
    const dir = runDir('r2', benchmarkRun());
    expect(await exportCommand([dir, '--format', 'csv'])).toBe(2);
    expect(await exportCommand([dir, '--format', 'longmemeval', '--source', SOURCE])).toBe(2);
    expect(stderr()).toContain('--format must be longmemeval or locomo');
  });

  it('is a command of the CLI (exit 2 without a source for LoCoMo)', () => {
    const dir = runDir('r3', benchmarkRun());
    const cli = join(import.meta.dirname, '..', '..', '..', 'harness', 'cli.ts');
    const script = `import { main } from ${JSON.stringify(cli)}; process.exitCode = await main(process.argv.slice(1));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, 'export', dir, '--format', 'locomo'], { encoding: 'utf8' });
    expect(child.stderr).toContain('needs --source');
    expect(child.status).toBe(2);
  });
});
