import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrate, type CalibrationItem, type SummaryGrader } from '../../graders/calibrate.js';
import { calibrateCommand } from '../../harness/commands/calibrate.js';
import { calibrationRecordPath, hasCalibration, loadCalibrationSet, parseCalibrationFile } from '../../harness/datasets/calibration.js';
import { accuracy, cohenKappa, kappaInterval } from '../../graders/kappa.js';
import type { Problem } from '../../core/errors.js';
import { OpenAIModel } from '../../harness/models/openai.js';
import type { SummaryJudgement, SummaryRecord, Transcript } from '../../core/types.js';
import { startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';

describe('cohenKappa', () => {
  it('binary: po 0.8, pe 0.5 → 0.6', () => {
    const a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1];
    expect(accuracy(a, b)).toBeCloseTo(0.8, 12);
    expect(cohenKappa(a, b)).toBeCloseTo(0.6, 12);
  });
  it('three categories: po 4/6, pe 12/36 → 0.5', () => {
    expect(cohenKappa(['x', 'x', 'y', 'y', 'z', 'z'], ['x', 'y', 'y', 'y', 'z', 'x'])).toBeCloseTo(0.5, 12);
  });
  it('is NaN when both raters are constant and equal', () => {
    expect(cohenKappa([1, 1, 1], [1, 1, 1])).toBeNaN();
  });
  it('bootstrap interval is reproducible and brackets the estimate', () => {
    const a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
    const b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1];
    const one = kappaInterval(a, b);
    expect(kappaInterval(a, b)).toEqual(one);
    expect(one.low).toBeLessThan(0.6);
    expect(one.high).toBeGreaterThan(0.6);
    expect(one.high).toBeLessThanOrEqual(1);
    expect(kappaInterval(a, b, 2000, 7)).not.toEqual(one);
  });
});

const transcript: Transcript = { id: 't', tags: [], turns: [], facts: [], probes: [], file: 'mem.yaml' };
function item(i: number, labels: CalibrationItem['labels']): CalibrationItem {
  const summary: SummaryRecord = {
    strategy: 'calibration',
    transcript: 't',
    turn: 1,
    coveredTurns: [1, 1],
    index: 1,
    summarizer: 'human',
    request: { system: '', user: '' },
    text: `summary-${i}`,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
  return { id: `t/${i}`, file: 'mem.yaml', transcript, summary, labels };
}

/** Replies from a table keyed by summary text: a deterministic judge with known agreement. */
class TableJudge implements SummaryGrader {
  readonly name = 'table';
  readonly modelId = 'table-judge';
  constructor(private readonly table: Map<string, SummaryJudgement>) {}
  async grade({ summary }: { summary: SummaryRecord }): Promise<SummaryJudgement> {
    const j = this.table.get(summary.text);
    if (!j) throw new Error('no row');
    return j;
  }
}

function judgement(cov: boolean, temporal: boolean, overall: number, error?: string): SummaryJudgement {
  return {
    model: 'table-judge',
    coverage: cov ? 0.9 : 0.5,
    faithfulness: 1,
    temporal: temporal ? 1 : 0,
    format: 1,
    overall,
    score: cov ? 0.9 : 0.5,
    invented: [],
    reasons: {},
    error,
  };
}

describe('calibrate', () => {
  const P = true;
  const F = false;
  const humanCov = [P, P, P, P, P, F, F, F, F, F];
  const judgeCov = [P, P, P, P, F, F, F, F, F, P];
  const humanTemporal = [P, P, P, P, P, P, P, P, F, F];
  const humanOverall = [5, 5, 4, 4, 3, 2, 2, 1, 1, 1];
  const judgeOverall = [5, 4, 4, 3, 3, 2, 1, 1, 1, 4];
  const items = humanCov.map((c, i) =>
    item(i, { coverage: c, faithfulness: true, temporal: humanTemporal[i], format: true, overall: humanOverall[i] }),
  );
  items.push(item(10, { coverage: true, faithfulness: true, temporal: true, format: true, overall: 5 }));
  const table = new Map<string, SummaryJudgement>(judgeCov.map((c, i) => [`summary-${i}`, judgement(c, true, judgeOverall[i])]));
  table.set('summary-10', { ...judgement(false, false, 0), error: 'judge call failed: HTTP 500' });

  it('reports accuracy and kappa per criterion, computed by hand', async () => {
    const report = await calibrate(new TableJudge(table), items);
    expect(report.judge).toBe('table-judge');
    expect(report.items).toBe(11);
    expect(report.errors).toBe(1);
    const by = Object.fromEntries(report.criteria.map((c) => [c.criterion, c]));
    // coverage: po = 8/10, pe = .5·.5 + .5·.5 → (0.8 − 0.5)/0.5
    expect(by.coverage).toMatchObject({ n: 10, agree: 8, accuracy: 0.8, kappa: 0.6, humanPass: 5, judgePass: 5 });
    expect(by.coverage.ci?.[0]).toBeLessThan(0.6);
    expect(by.coverage.ci?.[1]).toBeGreaterThan(0.6);
    // faithfulness: both always pass → kappa undefined
    expect(by.faithfulness).toMatchObject({ accuracy: 1, kappa: null, ci: null });
    // temporal: po = .8, pe = .8·1 + .2·0 = .8 → 0
    expect(by.temporal).toMatchObject({ accuracy: 0.8, kappa: 0 });
    // overall good = ≥ 4: po = .8, pe = .4·.4 + .6·.6 = .52 → .28/.48
    expect(by.overall.accuracy).toBe(0.8);
    expect(by.overall.kappa).toBeCloseTo(0.28 / 0.48, 4);
    expect(report.overallScale).toEqual({ meanAbsoluteError: 0.6, exact: 0.6, withinOne: 0.9 });
    expect(report.results[10]).toMatchObject({ id: 't/10', error: 'judge call failed: HTTP 500' });
    expect(report.results[10].judge).toBeUndefined();
  });
});

describe('calibration set files', () => {
  it('loads the bundled set (≥ 18 labelled summaries of every category)', () => {
    const items = loadCalibrationSet(join(process.cwd(), 'datasets/calibration'));
    expect(items.length).toBeGreaterThanOrEqual(18);
    const categories = new Set(items.map((i) => i.category));
    for (const c of ['good', 'vague', 'wrong', 'format']) expect(categories).toContain(c);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });

  it('reports every problem with file:line:col', () => {
    const text = [
      'id: bad',
      'source:',
      '  - user: hi',
      '    asistant: hello',
      'facts:',
      '  - { id: a, text: x, turn: 1, superseded_by: nope }',
      'summaries:',
      '  - id: s1',
      '    text: x',
      '    labels: { coverage: yes, faithfulness: pass, temporal: pass, format: pass, overall: 6 }',
    ].join('\n');
    const problems: Problem[] = [];
    expect(parseCalibrationFile(text, 'bad.yaml', problems)).toEqual([]);
    const lines = problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.yaml:4:5: unknown key "asistant".*did you mean "assistant"/),
        expect.stringMatching(/^bad\.yaml:6:\d+: superseded_by names no fact: "nope"/),
        expect.stringMatching(/^bad\.yaml:10:\d+: "coverage" in labels of summary 1 must be pass or fail/),
        expect.stringMatching(/^bad\.yaml:10:\d+: "overall" .* must be between 1 and 5, not 6/),
      ]),
    );
  });
});

describe('memeval calibrate', () => {
  let server: FakeServer;
  let out: string;
  const made: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-calib-'));
    made.push(dir);
    return dir;
  };
  beforeAll(async () => {
    server = await startFakeOpenAI(() => ({ json: { error: { message: 'down' } }, status: 500 }));
    out = tempDir();
  });
  afterAll(async () => {
    await server.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('grades the bundled set offline, prints a table and writes the records', async () => {
    let printed = '';
    const code = await calibrateCommand(['--out', out], { stdout: (t) => (printed += t) });
    expect(code).toBe(0);
    expect(printed).toMatch(/criterion\s+n\s+accuracy\s+kappa\s+95% CI/);
    const report = JSON.parse(readFileSync(join(out, 'calibration.json'), 'utf8'));
    expect(report.judge).toBe('offline');
    expect(report.criteria.map((c: { criterion: string }) => c.criterion)).toEqual(['coverage', 'faithfulness', 'temporal', 'format', 'overall']);
    expect(readFileSync(calibrationRecordPath('offline', out), 'utf8')).toBe(readFileSync(join(out, 'calibration.json'), 'utf8'));
    expect(hasCalibration('offline', out)).toBe(true);
    expect(hasCalibration('openai:gpt-4.1-mini', out)).toBe(false);
  });

  it('exits 3 and records the errors when the judge fails', async () => {
    const dir = tempDir();
    const code = await calibrateCommand(['--judge', 'openai:j', '--out', dir], {
      stdout: () => {},
      makeModel: () => new OpenAIModel({ name: 'j', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 }),
    });
    expect(code).toBe(3);
    const report = JSON.parse(readFileSync(calibrationRecordPath('openai:j', dir), 'utf8'));
    expect(report.errors).toBe(report.items);
    expect(report.criteria[0].n).toBe(0);
    // a run with judge failures is kept for inspection but is no calibration
    expect(hasCalibration('openai:j', dir)).toBe(false);
    writeFileSync(calibrationRecordPath('openai:gpt-x', dir), JSON.stringify({ judge: 'openai:gpt-x', items: 3, errors: 0 }));
    expect(hasCalibration('gpt-x', dir)).toBe(true);
    expect(hasCalibration('openai:gpt-x', dir)).toBe(true);
    expect(JSON.stringify(report)).not.toContain('test-key');
  });

  it('exits 2 on a bad flag or bad data, without a stack trace', async () => {
    let err = '';
    expect(await calibrateCommand(['--jduge', 'x'], { stderr: (t) => (err += t) })).toBe(2);
    const data = tempDir();
    writeFileSync(join(data, 'x.yaml'), 'source: []\nsummaries: []\n');
    expect(await calibrateCommand(['--data', data, '--out', out], { stderr: (t) => (err += t) })).toBe(2);
    expect(err).toMatch(/x\.yaml:1:\d+: "source" in the calibration file must not be an empty list/);
    expect(err).not.toMatch(/\n\s+at /);
  });
});
