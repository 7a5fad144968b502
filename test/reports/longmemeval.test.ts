// LongMemEval's metrics (print_qa_metrics.py) on a hand-made run, worked out by
// hand below, and how report.html, the CLI and summary.csv show them.
import { describe, expect, it } from 'vitest';
import { LONGMEMEVAL_NOT_SCORED, LONGMEMEVAL_PROTOCOL, longMemEvalNotScored, longMemEvalScores } from '../../core/longmemeval.js';
import type { ProbeKind, ProbeRecord, RunResult } from '../../core/types.js';
import { LONGMEMEVAL_TITLE, longMemEvalLines, longMemEvalNavLink, longMemEvalSection, longMemEvalSummaryColumns } from '../../reports/longmemeval.js';
import { bareProbeRecord, probeOnlyRun } from '../helpers/sample-run.js';

type Outcome = 'yes' | 'no' | 'judge-error' | 'answer-error' | 'other-rule';

interface Spec {
  strategy: string;
  /** The question id; the transcript is `lme-<id>` as the importer names it. */
  id: string;
  type: string;
  outcome: Outcome;
  transcript?: string;
}

const protocol = (prompt: string) => `${LONGMEMEVAL_PROTOCOL} ${prompt} prompt`;

function record(s: Spec): ProbeRecord {
  const transcript = s.transcript ?? `lme-${s.id}`;
  const kind: ProbeKind = s.id.endsWith('_abs') ? 'abstention' : 'recall';
  const base = bareProbeRecord({
    strategy: s.strategy,
    transcript,
    probe: 'q1',
    kind,
    question: `question ${s.id}`,
    reference: 'gold',
    meta: { question_type: s.type, question: `question ${s.id}` },
  });
  const judged = (verdict: 'pass' | 'fail' | 'error', reason: string, model = 'openai:judge'): ProbeRecord => ({
    ...base,
    answer: 'an answer',
    judge: { verdict, reason, model },
    passed: verdict === 'pass',
    ...(verdict === 'error' ? { error: `judge: ${reason}`, errorStage: 'judge' as const } : {}),
  });
  switch (s.outcome) {
    case 'yes':
      return judged('pass', `${protocol('default')}: judge replied "yes" (yes)`);
    case 'no':
      return judged('fail', `${protocol('default')}: judge replied "no" (no)`);
    case 'judge-error':
      return judged('error', `${protocol('default')}: judge call failed: HTTP 500`);
    case 'answer-error':
      return { ...base, error: 'HTTP 500', errorStage: 'answer', passed: false, attribution: 'error' };
    case 'other-rule':
      return judged('pass', 'rule: every must_include entry is present', 'offline');
  }
}

function buildRun(specs: Spec[], judge: string, strategies = ['full', 'trim']): RunResult {
  const ids = [...new Set(specs.map((s) => s.transcript ?? `lme-${s.id}`))];
  const transcripts = ids.map((id) => ({ id, tags: id.startsWith('lme-') ? ['longmemeval'] : ['support'] }));
  return probeOnlyRun({ probes: specs.map(record), transcripts, strategies, model: 'openai:reader', judge });
}

const EVIL = '<b>full</b>';

// Strategy EVIL, worked by hand:
//   single-session-user        yes, no, judge error     → 1/3 (1 error), judged only 1/2
//   single-session-preference  yes                      → 1/1
//   single-session-assistant   none                     → n 0, not in the task average
//   multi-session              no, answer error         → 0/2 (1 error), judged only 0/1
//   temporal-reasoning         yes, yes (_abs)          → 2/2
//   knowledge-update           yes, no (_abs)           → 1/2; one more graded by the offline rule: unscored
//   task-averaged = (1/3 + 1 + 0 + 1 + 1/2) / 5 = 0.5667 over 5 types
//   overall = 5 / 10 (2 errors), judged only 5/8; abstention = 1/2 (the two _abs, also in their types)
// Strategy trim: one yes per type except knowledge-update (no): task-averaged 5/6, overall 5/6, no abstention.
// A hand-written transcript's probe with a question_type is not LongMemEval and is ignored.
const SPECS: Spec[] = [
  { strategy: EVIL, id: 'u1', type: 'single-session-user', outcome: 'yes' },
  { strategy: EVIL, id: 'u2', type: 'single-session-user', outcome: 'no' },
  { strategy: EVIL, id: 'u3', type: 'single-session-user', outcome: 'judge-error' },
  { strategy: EVIL, id: 'p1', type: 'single-session-preference', outcome: 'yes' },
  { strategy: EVIL, id: 'm1', type: 'multi-session', outcome: 'no' },
  { strategy: EVIL, id: 'm2', type: 'multi-session', outcome: 'answer-error' },
  { strategy: EVIL, id: 't1', type: 'temporal-reasoning', outcome: 'yes' },
  { strategy: EVIL, id: 't2_abs', type: 'temporal-reasoning', outcome: 'yes' },
  { strategy: EVIL, id: 'k1', type: 'knowledge-update', outcome: 'yes' },
  { strategy: EVIL, id: 'k2_abs', type: 'knowledge-update', outcome: 'no' },
  { strategy: EVIL, id: 'k3', type: 'knowledge-update', outcome: 'other-rule' },
  { strategy: EVIL, id: 'x', type: 'single-session-user', outcome: 'no', transcript: 'support-1' },
  { strategy: 'trim', id: 'u1', type: 'single-session-user', outcome: 'yes' },
  { strategy: 'trim', id: 'p1', type: 'single-session-preference', outcome: 'yes' },
  { strategy: 'trim', id: 'a1', type: 'single-session-assistant', outcome: 'yes' },
  { strategy: 'trim', id: 'm1', type: 'multi-session', outcome: 'yes' },
  { strategy: 'trim', id: 't1', type: 'temporal-reasoning', outcome: 'yes' },
  { strategy: 'trim', id: 'k1', type: 'knowledge-update', outcome: 'no' },
];

const run = buildRun(SPECS, 'openai:judge', [EVIL, 'trim']);

describe('LongMemEval metrics (print_qa_metrics.py)', () => {
  const [full, trim] = longMemEvalScores(run);

  it('per type: correct over every answer, errors counted as not correct and shown', () => {
    const byType = Object.fromEntries(full.types.map((t) => [t.type, t]));
    expect(byType['single-session-user']).toMatchObject({ n: 3, correct: 1, errors: 1 });
    expect(byType['single-session-user'].accuracy).toBeCloseTo(1 / 3, 10);
    expect(byType['single-session-user'].judgedAccuracy).toBeCloseTo(1 / 2, 10);
    expect(byType['single-session-preference']).toMatchObject({ n: 1, correct: 1, errors: 0, accuracy: 1 });
    expect(byType['single-session-assistant']).toEqual({ type: 'single-session-assistant', n: 0, correct: 0, errors: 0 });
    expect(byType['multi-session']).toMatchObject({ n: 2, correct: 0, errors: 1, accuracy: 0, judgedAccuracy: 0 });
    expect(byType['temporal-reasoning']).toMatchObject({ n: 2, correct: 2, accuracy: 1 });
    expect(byType['knowledge-update']).toMatchObject({ n: 2, correct: 1, accuracy: 0.5 });
  });

  it('task-averaged = the mean of the per-type accuracies of the types present; overall over every answer', () => {
    expect(full.typesPresent).toBe(5);
    expect(full.taskAveraged).toBeCloseTo((1 / 3 + 1 + 0 + 1 + 1 / 2) / 5, 10);
    expect(full.overall).toMatchObject({ n: 10, correct: 5, errors: 2, accuracy: 0.5 });
    expect(full.overall.judgedAccuracy).toBeCloseTo(5 / 8, 10);
    expect(trim.typesPresent).toBe(6);
    expect(trim.taskAveraged).toBeCloseTo(5 / 6, 10);
  });

  it('abstention apart: the _abs questions, which also stay in their types and overall', () => {
    expect(full.abstention).toMatchObject({ n: 2, correct: 1, errors: 0, accuracy: 0.5 });
    expect(trim.abstention).toEqual({ n: 0, correct: 0, errors: 0 });
  });

  it('counts answers graded by another rule as unscored, and ignores transcripts not from the importer', () => {
    expect(full.unscored).toBe(1);
    expect(trim.unscored).toBe(0);
    expect(longMemEvalScores(run).map((s) => s.strategy)).toEqual([EVIL, 'trim']);
  });

  it('is not scored with judge: offline', () => {
    const offline = buildRun(SPECS.map((s) => ({ ...s, outcome: 'other-rule' as const })), 'offline', [EVIL, 'trim']);
    expect(longMemEvalNotScored(offline)).toBe(LONGMEMEVAL_NOT_SCORED);
    expect(longMemEvalNotScored(run)).toBeUndefined();
  });
});

describe('LongMemEval in the reports', () => {
  it('report.html: a section with per-type, task-averaged, overall and abstention, errors beside, names escaped', () => {
    const html = longMemEvalSection(run);
    expect(html).toContain(LONGMEMEVAL_TITLE);
    expect(html).toContain('id="longmemeval"');
    expect(html).toContain('&lt;b&gt;full&lt;/b&gt;');
    expect(html).not.toContain('<b>full</b>');
    expect(html).toContain('56.7%');
    expect(html).toContain('5 of 6 types');
    expect(html).toContain('33.3%');
    expect(html).toContain('1 errored, counted as not correct');
    expect(html).toContain('judged only: 62.5%');
    expect(html).toContain('83.3%');
    expect(html).toContain('abstention (apart)');
    expect(html).toContain('left out of these figures: &lt;b&gt;full&lt;/b&gt; 1');
    expect(longMemEvalNavLink(run)).toContain('#longmemeval');
  });

  it('CLI: one row per strategy', () => {
    const lines = longMemEvalLines(run);
    const row = lines.find((l) => l.startsWith(EVIL));
    expect(row?.split(/\s+/).slice(-11)).toEqual(['33.3%', '100.0%', '—', '0.0%', '100.0%', '50.0%', '56.7%', '50.0%', '50.0%', '10', '2']);
    const trimRow = lines.find((l) => l.startsWith('trim'));
    expect(trimRow?.split(/\s+/).slice(-5)).toEqual(['83.3%', '83.3%', '—', '6', '0']);
  });

  it('summary.csv: lme_ columns per strategy', () => {
    const cols = longMemEvalSummaryColumns(run, EVIL);
    expect(cols.lme_acc_task_averaged).toBeCloseTo(0.5667, 4);
    expect(cols).toMatchObject({
      lme_acc_overall: 0.5,
      lme_n_overall: 10,
      lme_errors_overall: 2,
      lme_acc_abstention: 0.5,
      lme_n_abstention: 2,
      lme_n_single_session_user: 3,
      lme_errors_single_session_user: 1,
      lme_n_single_session_assistant: 0,
      lme_types_present: 5,
      lme_unscored: 1,
    });
    expect(cols.lme_acc_single_session_assistant).toBeUndefined();
    expect(Object.keys(cols).every((k) => k.startsWith('lme_'))).toBe(true);
  });

  it('with judge: offline, every rendering says "not scored" and shows no numbers', () => {
    const offline = buildRun(SPECS.map((s) => ({ ...s, outcome: 'other-rule' as const })), 'offline', [EVIL, 'trim']);
    expect(longMemEvalSection(offline)).toContain(LONGMEMEVAL_NOT_SCORED);
    expect(longMemEvalSection(offline)).not.toContain('<table');
    expect(longMemEvalLines(offline)).toEqual(['', `LongMemEval metrics ${LONGMEMEVAL_NOT_SCORED}.`]);
    const cols = longMemEvalSummaryColumns(offline, EVIL);
    expect(cols.lme_protocol).toBe(LONGMEMEVAL_NOT_SCORED);
    expect(cols.lme_acc_overall).toBeUndefined();
    expect(cols.lme_acc_task_averaged).toBeUndefined();
  });

  it('leaves runs without LongMemEval probes unchanged', () => {
    const other = buildRun([{ strategy: 'trim', id: 'x', type: 'single-session-user', outcome: 'yes', transcript: 'support-1' }], 'openai:judge');
    expect(longMemEvalSection(other)).toBe('');
    expect(longMemEvalLines(other)).toEqual([]);
    expect(longMemEvalSummaryColumns(other, 'trim')).toEqual({});
    expect(longMemEvalNavLink(other)).toBe('');
  });
});
