// Tool use in the reports: the per-strategy tool block, its CSV columns, the
// tool.* gate metrics, and report.html. The run is the sample run with four
// tool probes per strategy (test/helpers/sample-run.ts, withToolProbes):
//   full   exact, exact (no call), exact, exact
//   trim-2 partial (1/2 arguments), called (where none was expected, a repeat), answer error, wrong tool
//   summ   exact, judge error (no call, as expected), exact, re-ask
import { describe, expect, it } from 'vitest';
import type { GateConfig } from '../../harness/config.js';
import type { RunResult } from '../../core/types.js';
import { NO_TOOL_PROBES, summarize, summarizeStrategy } from '../../reports/aggregate.js';
import { probesCsv, summaryCsv } from '../../reports/csv.js';
import { evaluateGates } from '../../reports/gate.js';
import { parseCsv } from '../helpers/cli.js';
import { sampleRun, withToolProbes } from '../helpers/sample-run.js';

function toolRun(): RunResult {
  const run = withToolProbes(sampleRun(), {
    full: ['exact', 'exact', 'exact', 'exact'],
    'trim-2': ['partial', 'called', 'error', 'wrong-tool'],
    summ: ['exact', 'judge-error', 'exact', 'reask'],
  });
  // A recall probe that repeated two calls: the counter covers every probe kind, not tool probes only.
  const recall = run.probes.find((p) => p.strategy === 'summ' && p.probe === 'p1' && p.repeat === 1);
  if (recall) recall.repeatedCalls = 2;
  return run;
}

function rowsOf(text: string): Record<string, string>[] {
  const [head, ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

function gate(partial: Partial<GateConfig> & Pick<GateConfig, 'metric'>): GateConfig {
  return { strategy: '*', where: 'memeval.config.yaml:10:5', ...partial };
}

describe('tool block of a strategy summary', () => {
  const run = toolRun();

  it('counts exact calls, correct no-calls included, over every tool probe', () => {
    const full = summarizeStrategy(run, 'full').tool;
    expect(full).toMatchObject({ probes: 4, callProbes: 3, noCallProbes: 1, errors: 0, exactCalls: 4, accuracy: 1, rightTool: 4, argsMatched: 4, argsExpected: 4, argsAccuracy: 1, extraCalls: 0, repeatedCalls: 0, reasks: 0 });
  });

  it('counts an errored tool probe as a failure in every rate and reports it, its arguments kept in the denominator', () => {
    const trim = summarizeStrategy(run, 'trim-2').tool;
    // partial: right tool, 1 of 2 arguments; called: a call where none was expected; error: 0 of 1; wrong tool: 0 of 1.
    expect(trim).toMatchObject({ probes: 4, errors: 1, callErrors: 1, exactCalls: 0, accuracy: 0, rightTool: 1, rightToolRate: 0.25, argsMatched: 1, argsExpected: 4, argsAccuracy: 0.25, extraCalls: 1, repeatedCalls: 1 });
    // The sample's own answer error of trim-2 and this one: 14 records, 2 not answered.
    expect(trim?.answered).toBe(12);
  });

  it('counts a judge error as a failure even when the call decision was right, and re-asks and repeats over every kind', () => {
    const summ = summarizeStrategy(run, 'summ').tool;
    expect(summ).toMatchObject({ errors: 1, callErrors: 0, exactCalls: 2, accuracy: 0.5, rightTool: 2, argsMatched: 3, argsExpected: 4, argsAccuracy: 0.75, reasks: 1, repeatedCalls: 2, answered: 14 });
  });

  it('gives the rates a clustered 95% interval around them', () => {
    const summ = summarizeStrategy(run, 'summ').tool!;
    for (const [rate, low, high] of [[summ.accuracy, summ.accuracyLow, summ.accuracyHigh], [summ.rightToolRate, summ.rightToolLow, summ.rightToolHigh], [summ.argsAccuracy, summ.argsLow, summ.argsHigh]]) {
      expect(low).toBeLessThan(rate as number);
      expect(high).toBeGreaterThan(rate as number);
    }
    // Point values only (gates, diffs) skip the intervals.
    expect(summarizeStrategy(run, 'summ', false).tool?.accuracyLow).toBeUndefined();
  });

  it('is absent when the run has no tool probes', () => {
    for (const row of summarize(sampleRun())) expect(row.tool).toBeUndefined();
  });
});

describe('tool columns in the CSV files', () => {
  const run = toolRun();

  it('summary.csv has the tool rates beside their counts', () => {
    const [full, trim, summ] = rowsOf(summaryCsv(run));
    expect(full).toMatchObject({ tool_probes: '4', tool_accuracy: '1', tool_args_accuracy: '1', tool_repeated_calls: '0', tool_reasks: '0' });
    expect(trim).toMatchObject({ tool_errors: '1', tool_exact_calls: '0', tool_accuracy: '0', tool_right_tool_rate: '0.25', tool_args_matched: '1', tool_args_expected: '4', tool_extra_calls: '1', tool_repeated_calls: '1' });
    expect(summ).toMatchObject({ tool_accuracy: '0.5', tool_args_accuracy: '0.75', tool_reasks: '1', tool_repeated_calls: '2' });
    expect(Number(summ.tool_accuracy_ci_low)).toBeLessThan(0.5);
  });

  it('summary.csv keeps the tool columns empty, not 0, for a run without tool probes', () => {
    const [full] = rowsOf(summaryCsv(sampleRun()));
    expect(full).toMatchObject({ tool_probes: '', tool_accuracy: '', tool_repeated_calls: '', tool_reasks: '' });
  });

  it('probes.csv has each tool probe\'s grade, the calls made, and the continuity counters of every answer', () => {
    const rows = rowsOf(probesCsv(run));
    const row = (strategy: string, probe: string) => rows.find((r) => r.strategy === strategy && r.probe === probe && r.repeat === '1')!;
    expect(row('trim-2', 'k1')).toMatchObject({ tool_expected: 'get_order', tool_called: 'get_order', tool_right_tool: 'true', tool_args_matched: '1', tool_args_expected: '2', tool_exact_call: 'false', tool_mismatches: 'region: expected "eu", got "us"' });
    expect(row('trim-2', 'k1').tool_calls).toBe('get_order({"id":"A-1042","region":"us"})');
    expect(row('trim-2', 'k2')).toMatchObject({ tool_expected: 'no call', tool_extra_calls: '1', repeated_calls: '1' });
    expect(row('summ', 'k4')).toMatchObject({ reask: 'true', repeated_calls: '0' });
    // An answer that failed read nothing: the counters stay empty.
    expect(row('trim-2', 'k3')).toMatchObject({ repeated_calls: '', reask: '', tool_exact_call: 'false' });
    expect(row('full', 'p1')).toMatchObject({ tool_expected: '', repeated_calls: '0', reask: 'false' });
  });
});

describe('tool gates', () => {
  const run = toolRun();

  it('passes and fails on the tool metrics, saying what each rests on', () => {
    const results = evaluateGates(run, [gate({ metric: 'tool.accuracy', min: 0.5 }), gate({ metric: 'tool.args_accuracy', strategy: 'trim-2', min: 0.5 })]);
    expect(results.map((r) => `${r.strategy}:${r.status}`)).toEqual(['full:pass', 'trim-2:fail', 'summ:pass', 'trim-2:fail']);
    expect(results[1].message).toBe('trim-2 tool.accuracy = 0 over 3 tool probes (1 error) < min 0.5 — FAIL');
    expect(results[3].message).toBe('trim-2 tool.args_accuracy = 0.25 over 2 tool probes expecting a call (1 error) < min 0.5 — FAIL');
  });

  it('bounds the counters: right tool, exact and extra calls, repeated calls, re-asks', () => {
    const results = evaluateGates(run, [
      gate({ metric: 'tool.right_tool', strategy: 'trim-2', min: 0.5 }),
      gate({ metric: 'tool.exact_calls', strategy: 'full', min: 4 }),
      gate({ metric: 'tool.extra_calls', strategy: 'trim-2', max: 0 }),
      gate({ metric: 'tool.repeated_calls', strategy: 'summ', max: 1 }),
      gate({ metric: 'tool.reasks', strategy: 'summ', max: 0 }),
      gate({ metric: 'tool.reasks', strategy: 'full', max: 0 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fail', 'pass', 'fail', 'fail', 'fail', 'pass']);
    expect(results[3].message).toBe('summ tool.repeated_calls = 2 over 14 answered probes > max 1 — FAIL');
  });

  it('fails a tool gate on a run without tool probes, with the reason, and skips it only when optional', () => {
    const plain = sampleRun();
    for (const metric of ['tool.accuracy', 'tool.args_accuracy', 'tool.repeated_calls', 'tool.reasks']) {
      const [r] = evaluateGates(plain, [gate({ metric, strategy: 'full', max: 1 })]);
      expect(r.status).toBe('fail');
      expect(r.notEvaluated).toBe(NO_TOOL_PROBES);
      expect(r.message).toBe(`full ${metric}: ${NO_TOOL_PROBES} — FAIL`);
    }
    const [optional] = evaluateGates(plain, [gate({ metric: 'tool.reasks', strategy: 'full', max: 0, optional: true })]);
    expect(optional.status).toBe('skipped');
  });

  it('fails a tool gate whose every tool probe errored, never reading 0 as measured', () => {
    const errored = withToolProbes(sampleRun(), { full: ['error', 'error', 'error', 'error'] });
    const [r] = evaluateGates(errored, [gate({ metric: 'tool.accuracy', strategy: 'full', max: 1 })]);
    expect(r.status).toBe('fail');
    expect(r.notEvaluated).toBe('no graded tool probes (4 errors)');
  });
});
