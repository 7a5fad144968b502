import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../reports/html.js';
import { writeReports } from '../../reports/index.js';
import { loadRun } from '../../reports/load.js';
import { stringify } from 'csv-stringify/sync';
import { CSV_OPTIONS, csvLine, probesCsv, summariesCsv, summaryCsv, type Cell } from '../../reports/csv.js';
import { parseCsv } from '../helpers/cli.js';
import { officialF1 } from '../../core/text.js';
import { bulkRun, sampleRun, withSummaryJudgeErrors } from '../helpers/sample-run.js';

/** CSV text as one object per row, keyed by the header; every row must be as wide as the header. */
function rowsOf(text: string): Record<string, string>[] {
  const [head, ...rows] = parseCsv(text);
  for (const r of rows) expect(r.length).toBe(head.length);
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

function records(file: string): Record<string, string>[] {
  return rowsOf(readFileSync(file, 'utf8'));
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'memeval-csv-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('CSV reports', () => {
  const tricky = 'Line one, with a comma\nline two "quoted"';
  const run = sampleRun({ model: 'offline', transcriptText: { t1: tricky } });
  const dir = tempDir();
  let written: string[] = [];

  it('writes the CSVs and report.html atomically (no temp files left)', async () => {
    written = await writeReports(run, dir);
    expect(written.map((p) => p.slice(dir.length + 1)).sort()).toEqual(['probes.csv', 'report.html', 'summaries.csv', 'summary.csv', 'turns.csv']);
    expect(readdirSync(dir).sort()).toEqual(['probes.csv', 'report.html', 'summaries.csv', 'summary.csv', 'turns.csv']);
  });

  it('turns.csv has one row per turn record', () => {
    const rows = records(join(dir, 'turns.csv'));
    expect(rows).toHaveLength(run.turns.length);
    const at = (turn: string) => rows.find((x) => x.strategy === 'trim-2' && x.transcript === 't1' && x.turn === turn)!;
    // trim-2 drops f1 (critical) at turn 3 and f2 at turn 4: each named once, where it was lost.
    expect(at('3')).toMatchObject({ facts_present_count: '2', facts_missing_count: '1', critical_missing_count: '1', facts_lost: 'f1', critical_lost: 'f1' });
    expect(at('4')).toMatchObject({ full_tokens: '400', context_tokens: '200', facts_missing_count: '2', critical_missing_count: '1', facts_lost: 'f2', facts_regained: '', critical_lost: '' });
  });

  it('probes.csv flattens every record field, quotes survive the round trip', () => {
    const rows = records(join(dir, 'probes.csv'));
    expect(rows).toHaveLength(30);
    const fail = rows.find((x) => x.strategy === 'full' && x.probe === 'q2' && x.repeat === '2')!;
    expect(fail).toMatchObject({
      transcript: 't2', kind: 'abstention', after_turn: '2', model: 'offline', model_kind: 'built-in offline reader (not an LLM)',
      context_tokens: '150', api_input_tokens: '160', output_tokens: '5', answer: 'I am not sure, maybe "B-7"?', exact: 'false',
      f1: '0.25', judge_verdict: 'fail', judge_reason: 'does not give the reference', passed: 'false', attribution: 'abstain-fail',
      cost: '0.001', latency_ms: '1000', cached: 'false', error: '',
    });
    const err = rows.find((x) => x.strategy === 'trim-2' && x.probe === 'p3' && x.repeat === '2')!;
    expect(err).toMatchObject({ error: 'HTTP 500 from provider after 3 retries', error_stage: 'answer', passed: '', api_input_tokens: '', attribution: 'error' });
    // Known even though the answer errored: the context held p3's fact.
    expect(err.answerable).toBe('true');
    expect(fail.error_stage).toBe('');
    const cached = rows.find((x) => x.strategy === 'full' && x.probe === 'p1' && x.repeat === '2')!;
    expect(cached.cached).toBe('true');
    expect(cached.facts_needed).toBe('f1');
  });

  it('probes.csv has answerable right after passed: true, false, or empty when unknown', () => {
    const [head] = parseCsv(readFileSync(join(dir, 'probes.csv'), 'utf8'));
    expect(head.indexOf('answerable')).toBe(head.indexOf('passed') + 1);
    const rows = records(join(dir, 'probes.csv'));
    const at = (strategy: string, probe: string) => rows.find((x) => x.strategy === strategy && x.probe === probe && x.repeat === '1')!;
    expect(at('trim-2', 'p1')).toMatchObject({ passed: 'false', answerable: 'false', facts_missing: 'f1' });
    expect(at('summ', 'q1')).toMatchObject({ passed: 'false', answerable: 'true' });
    expect(at('full', 'q2')).toMatchObject({ kind: 'abstention', facts_needed: '', answerable: 'true' });
    const unknown = sampleRun();
    unknown.probes[0].answerable = null;
    expect(rowsOf(probesCsv(unknown))[0].answerable).toBe('');
  });

  it('probes.csv keeps the probe meta: category, question type, evidence turns and the transcript tags', () => {
    const withMeta = sampleRun({ model: 'offline' });
    withMeta.probes[0] = { ...withMeta.probes[0], meta: { category: 2, evidence: ['D1:3'] }, evidenceTurns: [1, 3] };
    withMeta.probes[1] = { ...withMeta.probes[1], meta: { question_type: 'knowledge-update', category: { nested: true } } };
    withMeta.info.transcripts[0] = { ...withMeta.info.transcripts[0], tags: ['locomo', 'long-range'] };
    const rows = rowsOf(probesCsv(withMeta));
    const tagsOf = (r: Record<string, string>) => (r.transcript === 't1' ? 'locomo;long-range' : 'shopping');
    expect(rows[0]).toMatchObject({ category: '2', question_type: '', evidence_turns: '1;3', tags: tagsOf(rows[0]) });
    // Only a word or a number is a category; anything else stays out of the cell.
    expect(rows[1]).toMatchObject({ category: '', question_type: 'knowledge-update', evidence_turns: '', tags: tagsOf(rows[1]) });
    expect(rows.every((r) => r.tags === tagsOf(r))).toBe(true);
    // Columns that existed before keep their order; the new ones come last.
    const [head] = parseCsv(probesCsv(withMeta));
    const at = head.indexOf('error_stage') + 1;
    expect(head.slice(at, at + 4)).toEqual(['category', 'question_type', 'evidence_turns', 'tags']);
    // The tool columns came later still, after them, and the LoCoMo score last.
    expect(head.slice(at + 4, at + 5)).toEqual(['tool_expected']);
    expect(head[head.length - 1]).toBe('locomo_score');
    // A LoCoMo question's own score, as the official table scores it; none for other probes.
    const locomo = withMeta.probes[0];
    expect(locomo.answer).toBeDefined();
    expect(rows[0].locomo_score).toBe(String(officialF1(locomo.answer as string, locomo.reference)));
    expect(rows.filter((r) => r.transcript !== 't1').every((r) => r.locomo_score === '')).toBe(true);
  });

  it('report.html groups accuracy by tag when the transcripts carry more than one tag value, and counts attributions', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    const table = /<h3 id="tags">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table).toContain('<th>shopping</th><th>support</th>');
    expect(table).toMatch(/<td>trim-2<\/td>(<td class="n">[^<]*<span class="muted">\(\d+\/\d+\)<\/span><\/td>){2}<\/tr>/);
    expect(html).toMatch(/<h3 id="attribution">[\s\S]*?<th>unknown<\/th>/);
    const oneTag = sampleRun({ model: 'offline' });
    oneTag.info.transcripts = oneTag.info.transcripts.map((t) => ({ ...t, tags: ['support'] }));
    expect(renderReport(oneTag)).not.toContain('id="tags"');
  });

  it('summary.csv has an attribution column for every attribution, unknown included', () => {
    const [row] = records(join(dir, 'summary.csv'));
    for (const a of ['trimmed', 'lost-in-summary', 'present-but-missed', 'abstain-fail', 'error', 'unknown']) expect(row).toHaveProperty(`attribution_${a}`);
  });

  it('summary.csv has answerable and reader gap columns with their denominators, overall and per kind', () => {
    const rows = records(join(dir, 'summary.csv'));
    const trim = rows[1];
    expect(trim).toMatchObject({ answerable: '8', answerable_known: '10', answerable_rate: '0.8', answerable_errors: '1', reader_gap: '1', reader_gap_rate: '0.125' });
    expect(trim).toMatchObject({ reader_gap_recall: '', reader_gap_temporal: '0.5', reader_gap_update: '0' });
    expect(Number(trim.reader_gap_ci_low)).toBeLessThanOrEqual(0.125);
    expect(Number(trim.reader_gap_ci_high)).toBeGreaterThanOrEqual(0.125);
    expect(Number(trim.answerable_ci_high)).toBeGreaterThanOrEqual(0.8);
    expect(rows[2]).toMatchObject({ answerable_rate: '1', reader_gap: '3', reader_gap_rate: '0.3', 'reader_gap_multi-hop': '1' });
  });

  it('summary.csv has one row per strategy with kinds and CI columns', () => {
    const rows = records(join(dir, 'summary.csv'));
    expect(rows.map((r) => r.strategy)).toEqual(['full', 'trim-2', 'summ']);
    const trim = rows[1];
    // trim-2 has one errored answer: it stays in the denominator of accuracy.
    expect(Number(trim.accuracy)).toBeCloseTo(7 / 10, 12);
    expect(Number(trim.accuracy_graded)).toBeCloseTo(7 / 9, 12);
    expect(trim).toMatchObject({ attempted: '10', graded: '9', passed: '7', errors: '1', answer_errors: '1', answer_judge_errors: '0' });
    expect(trim.accuracy_recall).toBe('0');
    expect(trim.accuracy_temporal).toBe('0.5');
    expect(trim.model).toBe('offline (built-in extractive reader, not an LLM)');
    expect(Number(trim.accuracy_ci_low)).toBeLessThanOrEqual(Number(trim.accuracy));
    expect(Number(trim.accuracy_ci_high)).toBeGreaterThanOrEqual(Number(trim.accuracy));
    expect(rows[2].judge_overall).toBe('3');
    expect(rows[2]).toMatchObject({ summaries_attempted: '3', summaries: '2', summarizer_errors: '1', summary_errors: '1', summaries_judged: '2', summary_judge_errors: '0' });
    expect(rows[0].judge_overall).toBe('');
    // The baseline strategy (full) is compared with no one; the others carry the in-run comparison.
    expect(rows[0]).toMatchObject({ vs_baseline_delta: '', vs_baseline_p: '', vs_baseline_significant: '' });
    expect(trim.vs_baseline_p).toMatch(/^\d/);
    expect(Number(trim.vs_baseline_p_holm)).toBeGreaterThanOrEqual(Number(trim.vs_baseline_p));
    expect(['true', 'false']).toContain(trim.vs_baseline_significant);
  });

  it('summaries.csv has one row per summary with checks, judge and drift', () => {
    const rows = records(join(dir, 'summaries.csv'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ index: '1', covered_from: '1', covered_to: '2', prompt_hash: 'sha256:abc123', unsupported: 'X-99', judge_overall: '4', text: tricky });
    expect(rows[1].drift_lost).toBe('f2');
    expect(rows[2].error).toBe('summarizer timed out');
  });
});

describe('loadRun', () => {
  it('reads a run directory or its run.json', () => {
    const dir = tempDir();
    const run = sampleRun();
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    expect(loadRun(dir).info.runId).toBe(run.info.runId);
    expect(loadRun(join(dir, 'run.json')).probes).toHaveLength(30);
  });
  it('reads a run.json written before answerable existed as answerable null, left out of the rates', () => {
    const dir = tempDir();
    const old = JSON.parse(JSON.stringify(sampleRun())) as { probes: Record<string, unknown>[] };
    for (const p of old.probes) delete p.answerable;
    writeFileSync(join(dir, 'run.json'), JSON.stringify(old));
    const run = loadRun(dir);
    expect(run.probes.every((p) => p.answerable === null)).toBe(true);
    expect(rowsOf(probesCsv(run)).every((r) => r.answerable === '')).toBe(true);
    expect(rowsOf(summaryCsv(run))[1]).toMatchObject({ answerable: '0', answerable_known: '0', answerable_rate: '', reader_gap_rate: '', accuracy: '0.7' });
  });

  it('reports a missing or broken run as an InputError with the path', () => {
    const dir = tempDir();
    expect(() => loadRun(join(dir, 'nope'))).toThrow(expect.objectContaining({ name: 'InputError', message: expect.stringContaining('nope') }));
    expect(() => loadRun(dir)).toThrow(/run\.json/);
    writeFileSync(join(dir, 'run.json'), '{\n  "info": {,\n}');
    expect(() => loadRun(dir)).toThrow(/run\.json:2:\d+: invalid JSON/);
    writeFileSync(join(dir, 'run.json'), '{"info": {"runId": "x"}}');
    expect(() => loadRun(dir)).toThrow(/"probes" must be a list/);
  });
});

describe('formula injection', () => {
  // Text a spreadsheet would run as a formula, as a probe's answer.
  const HOSTILE = ['=HYPERLINK("http://x")', '@SUM(A1)', '- step one', '+1+1', '\tcmd', '\rcmd', '\uFF1DSUM(A1)'];

  function probeRows(): Record<string, string>[] {
    const run = sampleRun();
    HOSTILE.forEach((text, i) => Object.assign(run.probes[i], { answer: text }));
    Object.assign(run.probes[0], { cost: -3, exact: true });
    return rowsOf(probesCsv(run));
  }

  it('prefixes text cells a spreadsheet would run as a formula with a quote', () => {
    const rows = probeRows();
    expect(rows.slice(0, HOSTILE.length).map((r) => r.answer)).toEqual(HOSTILE.map((text) => `'${text}`));
  });

  it('leaves numbers, booleans, empty cells and plain text as they are', () => {
    const rows = probeRows();
    expect(rows[0]).toMatchObject({ cost: '-3', exact: 'true', error: '' });
    expect(rows[0].question).toBe(sampleRun().probes[0].question);
    expect(rows[0].question).not.toMatch(/^'/);
  });
});

describe('summary.csv counts what could not be measured', () => {
  it('shows summary-judge failures as judge errors with nothing judged', () => {
    const run = withSummaryJudgeErrors(bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 48, probesPer: 1, passes: () => true, summaryOverall: () => 4 }));
    const rows = rowsOf(summaryCsv(run));
    for (const row of rows) {
      expect(row).toMatchObject({ summaries_attempted: '48', summaries_judged: '0', judged: '0', summary_judge_errors: '48', judge_errors: '48', judge_overall: '' });
    }
  });

  it('writes an errored summary judgement in summaries.csv as empty scores beside the error, never 0', () => {
    const run = withSummaryJudgeErrors(bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 1, passes: () => true, summaryOverall: () => 4 }));
    const rows = rowsOf(summariesCsv(run));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.judge_error).toContain('HTTP 401');
      for (const col of ['judge_coverage', 'judge_faithfulness', 'judge_temporal', 'judge_format', 'judge_overall', 'judge_score']) expect(row[col], col).toBe('');
    }
  });

  it('writes a score that was not measured (NaN) as an empty cell', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 1, probesPer: 1, passes: () => true, summaryOverall: () => Number.NaN });
    const rows = rowsOf(summariesCsv(run));
    expect(rows.map((r) => r.judge_overall)).toEqual(rows.map(() => ''));
  });

  it('gives an all-errored strategy accuracy 0 and an empty graded accuracy', () => {
    const rows = rowsOf(summaryCsv(bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 2, passes: () => 'error' })));
    expect(rows[0]).toMatchObject({ attempted: '4', graded: '0', errors: '4', accuracy: '0', accuracy_graded: '' });
  });

  it('writes the full header for a run without strategies', () => {
    const run = sampleRun();
    const empty = { ...run, info: { ...run.info, strategies: [] }, turns: [], probes: [], summaries: [] };
    const [head] = parseCsv(summaryCsv(empty));
    for (const col of ['attempted', 'passed', 'errors', 'answer_errors', 'answer_judge_errors', 'summaries_attempted', 'summarizer_errors', 'summary_judge_errors', 'summaries_judged', 'accuracy', 'accuracy_graded', 'answerable', 'answerable_known', 'answerable_rate', 'reader_gap', 'reader_gap_rate', 'reader_gap_abstention']) {
      expect(head).toContain(col);
    }
  });
});

describe('CSV rows', () => {
  // Cells csv-stringify writes as they are, and cells it quotes, escapes or marks as not a formula.
  const POOL: Cell[] = [
    '', 'a', 'plain words', 'x-y', "'quoted", ' lead', 'trail ', 'a;b', 'émoji 😀', 'a,b', 'a"b', '"', 'a\nb', 'a\rb', 'a\r\nb',
    '-x', '=1+1', '+1', '@sum', '\tx', '\rx', '\uFF1Dx', '\uFF0Bx', '\uFF0Dx', '\uFF20x', 'x=1', '-', '=',
    0, 1, -1, 1.5, -0.25, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, -1e-7, true, false, undefined,
  ];

  it('are written exactly as csv-stringify writes them, cell by cell and in any mix', () => {
    for (const cell of POOL) expect(csvLine([cell]), JSON.stringify(cell)).toBe(stringify([[cell]], CSV_OPTIONS));
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let i = 0; i < 3000; i++) {
      const row = Array.from({ length: 1 + next(6) }, () => POOL[next(POOL.length)]);
      expect(csvLine(row), JSON.stringify(row)).toBe(stringify([row], CSV_OPTIONS));
    }
  });

  it('leave a cell of another type (null read back from JSON) to csv-stringify', () => {
    const row = ['a', null as unknown as Cell, 2];
    expect(csvLine(row)).toBe(stringify([row], CSV_OPTIONS));
  });
});
