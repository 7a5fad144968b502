import { describe, expect, it } from 'vitest';
import type { ProbeRecord, RunResult } from '../../core/types.js';
import { renderReport } from '../../reports/html.js';
import { OFFICIAL_TITLE, officialLines, officialNavLink, officialSections, officialSummaryColumns } from '../../reports/official.js';
import { formatTable } from '../../reports/table.js';
import { bareProbeRecord, probeOnlyRun } from '../helpers/sample-run.js';

// A small run builder of its own: LoCoMo probe records with a category, an answer or an error.
interface Spec {
  strategy: string;
  transcript: string;
  probe: string;
  category: number;
  reference: string;
  /** undefined: the answer call failed. */
  answer?: string;
  repeat?: number;
}

function record(s: Spec): ProbeRecord {
  const base = bareProbeRecord({
    strategy: s.strategy,
    transcript: s.transcript,
    probe: s.probe,
    repeat: s.repeat ?? 1,
    reference: s.reference,
    meta: { category: s.category, category_name: 'x' },
  });
  if (s.answer === undefined) return { ...base, error: 'HTTP 500', errorStage: 'answer', passed: false, attribution: 'error' };
  return { ...base, answer: s.answer, exact: true, f1: 1, judge: { verdict: 'pass', reason: '', model: 'offline' }, passed: true };
}

function buildRun(specs: Spec[], transcripts: { id: string; tags: string[] }[], strategies: string[]): RunResult {
  return probeOnlyRun({ probes: specs.map(record), transcripts, strategies });
}

const LOCOMO = { id: 'locomo-conv-1', tags: ['locomo'] };
const OTHER = { id: 'support', tags: ['support'] };
const EVIL = '<b>full</b>';

// Worked by hand (F1 of "On 7 May 2023" against "7 May 2023" is P 3/4, R 1 = 6/7):
// category 1: (2/3 + error) / 2 = 0.333, answered only 0.667; 2: 0.857; 3: 1; 4: (1 + 0) / 2 = 0.5;
// 5: (1 + 0 + error) / 3 = 0.333, answered only 0.5;
// overall 1–4: (2/3 + 6/7 + 1 + 1 + 1 + 0) / 7 = 0.646, answered only / 6 = 0.754; all 1–5: 5.524 / 10 = 0.552.
const SPECS: Spec[] = [
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q1', category: 1, reference: 'London, Paris, Rome', answer: 'Paris, London' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q2', category: 1, reference: 'Sweden' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q3', category: 2, reference: '7 May 2023', answer: 'On 7 May 2023' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q4', category: 3, reference: 'Yes; because she is into art', answer: 'Yes' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q5', category: 3, reference: 'No; she lives far away', answer: 'No' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q6', category: 4, reference: 'runs', answer: 'running' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q7', category: 4, reference: 'red', answer: 'blue' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q8', category: 5, reference: 'Not mentioned in the conversation.', answer: 'Not mentioned.' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q9', category: 5, reference: 'Not mentioned in the conversation.', answer: 'Paris' },
  { strategy: EVIL, transcript: LOCOMO.id, probe: 'q10', category: 5, reference: 'Not mentioned in the conversation.' },
  { strategy: 'trim', transcript: LOCOMO.id, probe: 'q1', category: 1, reference: 'London, Paris, Rome', answer: 'Rome' },
  { strategy: 'other', transcript: OTHER.id, probe: 'p1', category: 4, reference: 'A-1', answer: 'A-1' },
];

const locomoRun = (): RunResult => buildRun(SPECS, [LOCOMO, OTHER], [EVIL, 'trim', 'other']);
const plainRun = (): RunResult => buildRun([{ strategy: 'a', transcript: OTHER.id, probe: 'p1', category: 4, reference: 'A-1', answer: 'A-1' }], [OTHER], ['a']);

function tableRow(html: string, strategy: string): string {
  const section = html.slice(html.indexOf('<h2 id="locomo">'));
  const start = section.indexOf(`<tr><td>${strategy}</td>`);
  return start < 0 ? '' : section.slice(start, section.indexOf('</tr>', start));
}

describe('officialSections (report.html)', () => {
  it('is empty, with no nav link, for a run without LoCoMo probes', () => {
    expect(officialSections(plainRun())).toBe('');
    expect(officialNavLink(plainRun())).toBe('');
    const html = renderReport(plainRun());
    expect(html).not.toContain('id="locomo"');
    expect(html).not.toContain('LoCoMo F1');
  });

  it('is in report.html with its nav link for a LoCoMo run', () => {
    const html = renderReport(locomoRun());
    expect(html).toContain(`<h2 id="locomo">${OFFICIAL_TITLE}</h2>`);
    expect(html).toContain('<a href="#locomo">LoCoMo F1</a>');
  });

  it('names the scorer and the protocol: the rules, overall on 1–4, errors as 0', () => {
    const html = officialSections(locomoRun());
    expect(html).toContain('task_eval/evaluation.py');
    expect(html).toContain('category 3 on the gold before &quot;;&quot;');
    expect(html).toContain('&quot;no information available&quot; or &quot;not mentioned&quot;');
    expect(html).toContain('Overall = the mean over every answer of categories 1–4 (1,540 questions');
    expect(html).toContain('errored counts as 0');
    expect(html).toContain('7 of the 1,540 category 1–4 questions of the full file: a subset, not comparable to full-file results');
  });

  it('puts overall (1–4) after categories 1–4 and adversarial apart', () => {
    const html = officialSections(locomoRun());
    const heads = [...html.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(heads).toEqual(['strategy', '1 multi-hop', '2 temporal', '3 open-domain', '4 single-hop', 'overall (1–4)', '5 adversarial', 'all 1–5 (evaluation_stats.py)']);
  });

  it('shows each mean with its n, and errors counted as 0 beside the answered-only mean', () => {
    const row = tableRow(officialSections(locomoRun()), '&lt;b&gt;full&lt;/b&gt;');
    const cells = [...row.matchAll(/<td class="n">(.*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
    expect(cells).toEqual([
      '0.333 n 2 1 errored, counted as 0 answered only: 0.667',
      '0.857 n 1',
      '1.000 n 2',
      '0.500 n 2',
      '0.646 n 7 1 errored, counted as 0 answered only: 0.754',
      '0.333 n 3 1 errored, counted as 0 answered only: 0.500',
      '0.552 n 10 2 errored, counted as 0 answered only: 0.690',
    ]);
  });

  it('escapes strategy names and leaves out strategies without LoCoMo probes', () => {
    const html = officialSections(locomoRun());
    expect(html).not.toContain(EVIL);
    expect(tableRow(html, 'trim')).toContain('<td class="n">–</td>');
    expect(tableRow(html, 'other')).toBe('');
  });

  it('says when n counts repeats', () => {
    const run = buildRun([1, 2].map((repeat) => ({ strategy: 'a', transcript: LOCOMO.id, probe: 'q1', category: 4, reference: 'x', answer: 'x', repeat })), [LOCOMO], ['a']);
    expect(officialSections(run)).toContain('1 of the 1,540 category 1–4 questions of the full file: a subset, not comparable to full-file results; n counts answers (questions × repeats)');
  });
});

describe('officialLines (CLI)', () => {
  it('prints nothing for a run without LoCoMo probes, and formatTable is unchanged', () => {
    expect(officialLines(plainRun())).toEqual([]);
    expect(formatTable(plainRun())).not.toContain('LoCoMo');
  });

  it('prints the table under its protocol line, with errors per strategy', () => {
    const lines = officialLines(locomoRun());
    expect(lines[1]).toBe(`${OFFICIAL_TITLE}: overall = categories 1-4, adversarial (5) apart; an errored answer counts as 0`);
    expect(lines[2].trim().split(/\s+/)).toEqual(['strategy', 'multi-hop', 'temporal', 'open-domain', 'single-hop', 'overall', '1-4', 'adversarial', 'errors']);
    expect(lines[3].trim().split(/\s+/)).toEqual([EVIL, '0.333', '0.857', '1.000', '0.500', '0.646', '0.333', '2']);
    expect(lines[4].trim().split(/\s+/)).toEqual(['trim', '0.333', '—', '—', '—', '0.333', '—', '0']);
    expect(lines.at(-1)).toContain('questions: 7 of the 1,540');
  });

  it('follows the main table in formatTable', () => {
    const text = formatTable(locomoRun());
    expect(text.indexOf(OFFICIAL_TITLE)).toBeGreaterThan(text.indexOf('reader gap = '));
  });

  it('names LoCoMo probes it cannot score', () => {
    const run = buildRun([{ strategy: 'a', transcript: LOCOMO.id, probe: 'q1', category: 7, reference: 'x', answer: 'x' }], [LOCOMO], ['a']);
    expect(officialLines(run)).toContain('LoCoMo probes without a category 1–5 are not scored (evaluation.py cannot score them): a 1');
  });
});

describe('officialSummaryColumns (summary.csv)', () => {
  it('adds no column to a run without LoCoMo probes', () => {
    expect(officialSummaryColumns(plainRun(), 'a')).toEqual({});
  });

  it('gives the means, counts and errors of one strategy', () => {
    const c = officialSummaryColumns(locomoRun(), EVIL);
    expect(c.locomo_protocol).toBe('evaluation.py rules; overall = categories 1-4; errored answers count as 0');
    expect(c.locomo_f1_overall).toBeCloseTo((2 / 3 + 6 / 7 + 3) / 7, 12);
    expect(c.locomo_f1_overall_answered).toBeCloseTo((2 / 3 + 6 / 7 + 3) / 6, 12);
    expect([c.locomo_n, c.locomo_errors, c.locomo_questions]).toEqual([7, 1, 7]);
    expect([1, 2, 3, 4, 5].map((k) => c[`locomo_f1_cat${k}`])).toEqual([expect.closeTo(1 / 3, 12), expect.closeTo(6 / 7, 12), 1, 0.5, expect.closeTo(1 / 3, 12)]);
    expect([1, 2, 3, 4, 5].map((k) => c[`locomo_n_cat${k}`])).toEqual([2, 1, 2, 2, 3]);
    expect([1, 2, 3, 4, 5].map((k) => c[`locomo_errors_cat${k}`])).toEqual([1, 0, 0, 0, 1]);
    expect(c.locomo_f1_overall_1to5).toBeCloseTo((2 / 3 + 6 / 7 + 4) / 10, 12);
    expect(c.locomo_unscored).toBe(0);
  });

  it('gives every strategy the same columns, empty for one without LoCoMo answers', () => {
    const run = locomoRun();
    const other = officialSummaryColumns(run, 'other');
    expect(Object.keys(other)).toEqual(Object.keys(officialSummaryColumns(run, EVIL)));
    expect(other.locomo_f1_overall).toBeUndefined();
    expect(other.locomo_n).toBe(0);
  });
});
