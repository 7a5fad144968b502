// JUnit XML for CI test tabs. It must agree with the gate's exit code, so only
// the gates suite carries the verdict: a probe record is a CI failure only
// when a failed `probe.*` or `tool.*` gate covers it; every other probe is informational,
// its outcome kept in <system-out> where a CI UI still shows it.
import type { ProbeRecord, RunResult } from '../core/types.js';
import { metricKind } from './aggregate.js';
import { toolCallText } from './drilldown.js';
import type { GateResult } from './gate.js';

/** Escapes text for XML content and attributes, dropping characters XML 1.0 forbids. */
export function xmlEscape(value: unknown): string {
  return String(value ?? '')
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

interface Case {
  classname: string;
  name: string;
  timeSec: number;
  failure?: { message: string; body: string };
  error?: { message: string; body: string };
  skipped?: string;
  systemOut?: string;
}

function caseXml(c: Case): string {
  const open = `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}" time="${c.timeSec.toFixed(3)}"`;
  const inner: string[] = [];
  if (c.failure) inner.push(`      <failure message="${xmlEscape(c.failure.message)}" type="failure">${xmlEscape(c.failure.body)}</failure>`);
  if (c.error) inner.push(`      <error message="${xmlEscape(c.error.message)}" type="error">${xmlEscape(c.error.body)}</error>`);
  if (c.skipped !== undefined) inner.push(`      <skipped message="${xmlEscape(c.skipped)}"/>`);
  if (c.systemOut !== undefined) inner.push(`      <system-out>${xmlEscape(c.systemOut)}</system-out>`);
  return inner.length ? `${open}>\n${inner.join('\n')}\n    </testcase>` : `${open}/>`;
}

function suiteXml(name: string, cases: Case[]): string {
  const failures = cases.filter((c) => c.failure).length;
  const errors = cases.filter((c) => c.error).length;
  const skipped = cases.filter((c) => c.skipped !== undefined).length;
  const time = cases.reduce((a, c) => a + c.timeSec, 0);
  const head = `  <testsuite name="${xmlEscape(name)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time.toFixed(3)}">`;
  return [head, ...cases.map(caseXml), '  </testsuite>'].join('\n');
}

function gateCase(r: GateResult): Case {
  const bound = [
    r.gate.min !== undefined ? `min ${r.gate.min}` : '',
    r.gate.max !== undefined ? `max ${r.gate.max}` : '',
    r.gate.max_drop !== undefined ? `max_drop ${r.gate.max_drop} vs ${r.gate.vs ?? 'baseline-strategy'}${r.gate.significant ? ' (significant)' : ''}` : '',
  ].filter(Boolean).join(', ');
  const c: Case = { classname: `gates.${r.strategy}`, name: `${r.gate.metric} ${bound}${r.gate.optional ? ' (optional)' : ''}`, timeSec: 0 };
  const body = `${r.message}\n(gate at ${r.gate.where})`;
  // A gate that could not be evaluated did not measure a regression: an error, not a failure, but just as red.
  if (r.status === 'fail' && r.notEvaluated !== undefined) c.error = { message: `could not be evaluated: ${r.notEvaluated}`, body };
  else if (r.status === 'fail') c.failure = { message: r.message, body };
  if (r.status === 'skipped') c.skipped = r.message;
  return c;
}

function probeBody(p: ProbeRecord): string {
  return [
    `question: ${p.question}`,
    `reference: ${p.reference}`,
    `answer: ${p.answer ?? ''}`,
    p.judge ? `judge: ${p.judge.verdict} — ${p.judge.reason}` : '',
    p.attribution ? `attribution: ${p.attribution}` : '',
    p.factsMissing.length ? `facts missing: ${p.factsMissing.join(', ')}` : '',
    p.tool || p.toolCalls?.length ? `tool call: ${toolCallText(p)}` : '',
    p.repeatedCalls ? `repeated calls: ${p.repeatedCalls}` : '',
    p.reask ? 're-ask: asked the user for a value they already gave' : '',
    p.error ? `error: ${p.error}` : '',
  ].filter(Boolean).join('\n');
}

/** What went wrong with a probe record, or undefined when it passed. */
function probeProblem(p: ProbeRecord): { kind: 'error' | 'failure'; message: string } | undefined {
  if (p.error || p.judge?.verdict === 'error' || p.passed === undefined) {
    return { kind: 'error', message: p.error ?? (p.judge?.verdict === 'error' ? `judge error: ${p.judge.reason}` : 'not graded') };
  }
  if (!p.passed) return { kind: 'failure', message: `${p.attribution ?? 'failed'}: ${p.judge?.reason ?? 'answer did not match'}` };
  return undefined;
}

/**
 * What a failed continuity gate holds against a record that may well have
 * passed: the repeated calls it made, or its re-ask. Only the gates that cover
 * it count, so a failed tool.accuracy gate does not fail a passing probe for a repeat.
 */
function continuityProblem(p: ProbeRecord, metrics: readonly string[]): string | undefined {
  if (metrics.includes('tool.repeated_calls') && p.repeatedCalls) return `repeated ${p.repeatedCalls} call${p.repeatedCalls === 1 ? '' : 's'} the conversation already made`;
  if (metrics.includes('tool.reasks') && p.reask) return 'asked the user for a value they already gave';
  return undefined;
}

/** `gated`: the metrics of the failed gates covering this record (empty: none), so its failure or error is part of the verdict. */
function probeCase(p: ProbeRecord, gated: readonly string[]): Case {
  const c: Case = {
    classname: `probes.${p.strategy}.${p.transcript}`,
    name: `${p.probe} (${p.kind}) #${p.repeat}`,
    timeSec: (p.cached ? 0 : p.latencyMs ?? 0) / 1000,
  };
  const continuity = continuityProblem(p, gated);
  const problem = probeProblem(p) ?? (continuity ? { kind: 'failure' as const, message: continuity } : undefined);
  if (!problem) return c;
  if (gated.length) c[problem.kind] = { message: problem.message, body: probeBody(p) };
  else c.systemOut = `${problem.kind === 'error' ? 'ERROR' : 'FAILED'} (informational): ${problem.message}\n${probeBody(p)}`;
  return c;
}

/**
 * The records a gate's metric is measured over: `probe.accuracy.<kind>` its
 * kind, `probe.reader_gap` the answerable probes, `probe.answerable` the
 * probes whose context lacked a needed fact; every record for the rest.
 */
function measuredBy(metric: string, p: ProbeRecord): boolean {
  if (metric === 'probe.reader_gap') return p.answerable === true;
  // Repeated calls and re-asks are counted on every probe: the records that have one are what the gate measured.
  if (metric === 'tool.repeated_calls') return (p.repeatedCalls ?? 0) > 0;
  if (metric === 'tool.reasks') return p.reask === true;
  if (metric.startsWith('tool.')) return p.kind === 'tool';
  if (metric === 'probe.answerable') return p.answerable === false;
  const kind = metricKind(metric);
  return kind === undefined || kind === p.kind;
}

/** The metrics of the failed `probe.*` and `tool.*` gates that cover this record. */
function failedGatesCovering(p: ProbeRecord, failed: GateResult[]): string[] {
  return failed.filter((r) => r.strategy === p.strategy && measuredBy(r.gate.metric, p)).map((r) => r.gate.metric);
}

/**
 * The junit.xml of a gate run; `failure` (the run itself failed) becomes one
 * errored testcase. It holds no <failure> or <error> exactly when every gate
 * passed or was skipped, i.e. when `memeval gate` exits 0.
 */
export function gateJUnit(run: RunResult, results: GateResult[], failure?: string): string {
  const id = run.info.runId;
  const gateCases = results.map(gateCase);
  if (failure) gateCases.unshift({ classname: 'run', name: id, timeSec: 0, error: { message: failure, body: failure } });
  // Tool gates are measured on probe records too, so a failed one shows the probes it failed on.
  const failedProbeGates = results.filter((r) => r.status === 'fail' && (r.gate.metric.startsWith('probe.') || r.gate.metric.startsWith('tool.')));
  const gated: { p: ProbeRecord; metrics: string[] }[] = [];
  const informational: ProbeRecord[] = [];
  for (const p of run.probes) {
    const metrics = failedGatesCovering(p, failedProbeGates);
    if (metrics.length) gated.push({ p, metrics });
    else informational.push(p);
  }
  const suites = [suiteXml(`memeval gates (run ${id})`, gateCases)];
  if (gated.length) suites.push(suiteXml(`memeval probes of failed gates (run ${id}, model ${run.info.model})`, gated.map(({ p, metrics }) => probeCase(p, metrics))));
  suites.push(suiteXml(`memeval probes (informational, run ${id}, model ${run.info.model})`, informational.map((p) => probeCase(p, []))));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="memeval">\n${suites.join('\n')}\n</testsuites>\n`;
}
