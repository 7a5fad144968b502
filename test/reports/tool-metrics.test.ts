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
import { renderReport } from '../../reports/html.js';
import { gateJUnit } from '../../reports/junit.js';
import { diffMarkdown, gateMarkdown } from '../../reports/markdown.js';
import { TOOL_NOTE, formatTable } from '../../reports/table.js';
import { diffCsv, diffRuns } from '../../reports/diff.js';
import { parseCsv } from '../helpers/cli.js';
import { sampleRun, withToolProbes, type ToolOutcome } from '../helpers/sample-run.js';

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

describe('mean F1 with tool probes', () => {
  it('leaves out probes expecting a call, and counts 0 for an errored probe expecting an answer or one answered with a call', () => {
    // The sample run's full answers score 9.25 over 10 probes; k2 is the tool probe expecting no call.
    const f1 = (k2: ToolOutcome) => summarizeStrategy(withToolProbes(sampleRun(), { full: ['exact', k2, 'exact', 'exact'] }), 'full').meanF1;
    expect(f1('exact')).toBeCloseTo(9.25 / 10, 12);
    expect(f1('error')).toBeCloseTo(9.25 / 11, 12);
    expect(f1('called')).toBeCloseTo(9.25 / 11, 12);
  });
});

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

  it('passes a probe expecting no call only when its answer passes too; the call decision alone is right_tool', () => {
    const wrong = withToolProbes(sampleRun(), { full: ['exact', 'wrong-answer', 'exact', 'exact'] });
    expect(summarizeStrategy(wrong, 'full').tool).toMatchObject({ exactCalls: 3, accuracy: 0.75, rightTool: 4, rightToolRate: 1 });
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
    expect(results[1].message).toBe('trim-2 tool.accuracy = 0 (4 tool probes: 3 graded, 1 errored) < min 0.5 — FAIL');
    expect(results[3].message).toBe('trim-2 tool.args_accuracy = 0.25 (3 tool probes expecting a call: 2 graded, 1 errored) < min 0.5 — FAIL');
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

  it('does not count extra calls, repeats or re-asks past an error: the gate fails and says why', () => {
    // trim-2 has two failed answers (the sample's and a tool probe's): their calls were never seen.
    const results = evaluateGates(run, [
      gate({ metric: 'tool.extra_calls', strategy: 'trim-2', max: 5 }),
      gate({ metric: 'tool.repeated_calls', strategy: 'trim-2', max: 5 }),
      gate({ metric: 'tool.reasks', strategy: 'trim-2', max: 5 }),
      gate({ metric: 'tool.extra_calls', strategy: 'full', max: 0 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fail', 'fail', 'fail', 'pass']);
    expect(results[0].notEvaluated).toBe('1 error left the calls of errored tool probes uncounted, and a count without them could only read low');
    expect(results[1].notEvaluated).toBe('2 errors left the calls of failed answers uncounted, and a count without them could only read low');
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

/** The part of `html` from `start` to the end of the first table after it. */
function section(html: string, start: string): string {
  const at = html.indexOf(start);
  return at < 0 ? '' : html.slice(at, html.indexOf('</table>', at));
}

describe('tool use in report.html', () => {
  const html = renderReport(toolRun());

  it('adds tool accuracy, args accuracy, repeated calls and re-asks to the overview', () => {
    const overview = section(html, '<h2 id="overview">');
    expect(overview).toContain('<th>tool accuracy (exact/tool probes) [95% CI]</th><th>args accuracy (matched/expected)</th><th>repeated calls</th><th>re-asks</th>');
    const trim = overview.split('<tr>').find((r) => r.startsWith('<td>trim-2 '))!;
    expect(trim).toContain('<td class="n tool-accuracy"><span class="nw">0.0% (0/4)</span>');
    expect(trim).toContain('1 errored, counted as failed');
    expect(trim).toContain('<span class="nw">25.0% (1/4)</span>');
  });

  it('has a Tool use table with one row per strategy', () => {
    const table = section(html, '<h3 id="tools">Tool use</h3>');
    const summ = table.split('<tr>').find((r) => r.startsWith('<td>summ</td>'))!;
    expect(summ).toContain('4 <span class="muted">(3 call · 1 no call)</span>');
    expect(summ).toContain('<span class="nw">50.0% (2/4)</span>');
    expect(summ).toContain('<span class="nw">75.0% (3/4)</span>');
    expect(summ).toContain('<td class="n bad">2 <span class="muted">(over 14 answers)</span></td>');
    expect(html).toContain('<a href="#tools">tool use</a>');
  });

  it('shows the expected call against the call made in the failures view', () => {
    const failures = html.slice(html.indexOf('<h2 id="failures">'));
    expect(failures).toContain('<th>tool call</th>');
    expect(failures).toContain('expected get_order · made get_order({"id":"A-1042","region":"us"})');
    expect(failures).toContain('expected no call · made get_order({"id":"A-1042"})');
    expect(failures).toContain('expected lookup_device · made nothing (errored)');
  });

  it('shows no tool column, table, section link or failures row for a run without tool probes', () => {
    const plain = renderReport(sampleRun());
    expect(plain).not.toContain('tool accuracy');
    expect(plain).not.toContain('<h3 id="tools">');
    expect(plain).not.toContain('#tools');
    expect(plain).not.toContain('<th>tool call</th>');
  });
});

describe('per-kind tables list only the kinds the run attempted', () => {
  const heads = (html: string, start: string) => section(html, start).split('<tr>')[1];

  it('omits the tool kind from a run without tool probes, and every kind the run never asked', () => {
    const run = sampleRun();
    run.probes = run.probes.filter((p) => p.kind !== 'temporal');
    const html = renderReport(run);
    expect(heads(html, '<table class="kinds">')).toBe('<th>strategy</th><th>recall</th><th>update</th><th>multi-hop</th><th>abstention</th><th>mean F1</th><th>pass^N</th></tr>');
    expect(heads(html, '<table class="reader-gap-kinds">')).toBe('<th>strategy</th><th>recall</th><th>update</th><th>multi-hop</th><th>abstention</th></tr>');
  });

  it('lists the tool kind when the run has tool probes', () => {
    const html = renderReport(toolRun());
    expect(heads(html, '<table class="kinds">')).toContain('<th>abstention</th><th>tool</th><th>mean F1</th>');
    expect(heads(html, '<table class="reader-gap-kinds">')).toContain('<th>abstention</th><th>tool</th></tr>');
  });
});

describe('tool metrics in gate.md, junit.xml, the CLI table and diffs', () => {
  const run = toolRun();

  it('gate.md and the CLI table show the tool columns only when the run has tool probes', () => {
    const md = gateMarkdown(run, []);
    expect(md).toContain('| strategy | accuracy (passed/attempted) | answerable (of known) | reader gap (missed/answerable) | tool accuracy (exact/tool probes) | args accuracy | repeated calls | re-asks |');
    expect(md).toContain('| 0.0% (0/4) (1 errored) | 25.0% (1/4) | 1 | 0 |');
    expect(gateMarkdown(sampleRun(), [])).not.toContain('tool accuracy');
    const table = formatTable(run);
    expect(table.split('\n')[0]).toMatch(/reader gap\s+tool acc\s+args acc\s+repeats\s+re-asks\s+mean tok/);
    expect(table).toContain(TOOL_NOTE);
    expect(formatTable(sampleRun())).not.toContain('tool acc');
  });

  it('junit.xml fails a tool gate and the tool probes it failed on, with the expected and made call', () => {
    const results = evaluateGates(run, [gate({ metric: 'tool.accuracy', strategy: 'trim-2', min: 0.5 }), gate({ metric: 'tool.reasks', strategy: 'summ', max: 0 })]);
    const xml = gateJUnit(run, results);
    expect(xml).toContain('<testcase classname="gates.trim-2" name="tool.accuracy min 0.5" time="0.000">\n      <failure message="trim-2 tool.accuracy = 0 (4 tool probes: 3 graded, 1 errored) &lt; min 0.5 — FAIL"');
    const gated = xml.slice(xml.indexOf('memeval probes of failed gates'), xml.indexOf('memeval probes (informational'));
    expect(gated).toContain('name="k1 (tool) #1"');
    expect(gated).toContain('tool call: expected get_order · made get_order({&quot;id&quot;:&quot;A-1042&quot;,&quot;region&quot;:&quot;us&quot;})');
    // A re-ask fails the re-ask gate; summ's passing tool probes stay informational.
    expect(gated).toContain('<testcase classname="probes.summ.t2" name="k4 (tool) #1" time="0.000">\n      <failure message="present-but-missed: no call; expected get_warranty"');
    expect(gated).not.toContain('classname="probes.summ.t1" name="k1 (tool) #1"');
    // A passing probe that repeated calls fails a failed repeated-calls gate, and only that gate.
    const repeats = gateJUnit(run, evaluateGates(run, [gate({ metric: 'tool.repeated_calls', strategy: 'summ', max: 0 })]));
    expect(repeats).toContain('name="p1 (recall) #1" time="1.000">\n      <failure message="repeated 2 calls the conversation already made"');
    expect(xml).not.toContain('repeated 2 calls the conversation already made');
    // A run without tool probes fails its tool gate as not evaluated.
    const plain = sampleRun();
    expect(gateJUnit(plain, evaluateGates(plain, [gate({ metric: 'tool.reasks', strategy: 'full', max: 0 })]))).toContain(`<error message="could not be evaluated: ${NO_TOOL_PROBES}"`);
  });

  it('the diff compares the tool metrics and lists their changes', () => {
    const base = withToolProbes(sampleRun({ runId: 'base' }), { full: ['exact', 'exact', 'exact', 'exact'] });
    const cand = withToolProbes(sampleRun({ runId: 'cand' }), { full: ['partial', 'called', 'exact', 'reask'] });
    const diff = diffRuns(base, cand);
    const full = diff.strategies.find((s) => s.strategy === 'full')!;
    expect(full.metrics.find((m) => m.metric === 'tool.accuracy')).toMatchObject({ base: 1, cand: 0.25, worse: true });
    expect(full.metrics.find((m) => m.metric === 'tool.reasks')).toMatchObject({ base: 0, cand: 1, worse: true });
    expect(diffMarkdown(diff)).toMatch(/\| full \| tool\.repeated_calls \| 0 \| 1 \| \+1 ⚠️ \|/);
    expect(diffCsv(diff)).toContain('full,tool.args_accuracy,1,0.5,-0.5,true');
  });
});
