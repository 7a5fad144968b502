// JUnit XML for CI test tabs: one testcase per gate result and one per probe
// record, so a CI UI shows both the gate verdicts and every failing probe.
import type { ProbeRecord, RunResult } from '../harness/types.js';
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
}

function caseXml(c: Case): string {
  const open = `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}" time="${c.timeSec.toFixed(3)}"`;
  const inner: string[] = [];
  if (c.failure) inner.push(`      <failure message="${xmlEscape(c.failure.message)}" type="failure">${xmlEscape(c.failure.body)}</failure>`);
  if (c.error) inner.push(`      <error message="${xmlEscape(c.error.message)}" type="error">${xmlEscape(c.error.body)}</error>`);
  if (c.skipped !== undefined) inner.push(`      <skipped message="${xmlEscape(c.skipped)}"/>`);
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
  const c: Case = { classname: `gates.${r.strategy}`, name: `${r.gate.metric} ${bound}`, timeSec: 0 };
  const body = `${r.message}\n(gate at ${r.gate.where})`;
  if (r.status === 'fail') c.failure = { message: r.message, body };
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
    p.error ? `error: ${p.error}` : '',
  ].filter(Boolean).join('\n');
}

function probeCase(p: ProbeRecord): Case {
  const c: Case = {
    classname: `probes.${p.strategy}.${p.transcript}`,
    name: `${p.probe} (${p.kind}) #${p.repeat}`,
    timeSec: (p.cached ? 0 : p.latencyMs ?? 0) / 1000,
  };
  if (p.error || p.judge?.verdict === 'error' || p.passed === undefined) {
    c.error = { message: p.error ?? (p.judge?.verdict === 'error' ? `judge error: ${p.judge.reason}` : 'not graded'), body: probeBody(p) };
  } else if (!p.passed) {
    c.failure = { message: `${p.attribution ?? 'failed'}: ${p.judge?.reason ?? 'answer did not match'}`, body: probeBody(p) };
  }
  return c;
}

/** The junit.xml of a gate run; `failure` (the run itself failed) becomes one errored testcase. */
export function gateJUnit(run: RunResult, results: GateResult[], failure?: string): string {
  const suites: string[] = [];
  const gateCases = results.map(gateCase);
  if (failure) gateCases.unshift({ classname: 'run', name: run.info.runId, timeSec: 0, error: { message: failure, body: failure } });
  suites.push(suiteXml(`memeval gates (${run.info.runId})`, gateCases));
  suites.push(suiteXml(`memeval probes (${run.info.runId}, model ${run.info.model})`, run.probes.map(probeCase)));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="memeval">\n${suites.join('\n')}\n</testsuites>\n`;
}
