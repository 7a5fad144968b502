// junit.xml must agree with `memeval gate`'s exit code: CI tabs show it as the
// verdict, so a failing probe nobody gated on must not turn the tab red.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GateConfig } from '../../harness/config.js';
import type { RunResult } from '../../core/types.js';
import { evaluateGates } from '../../reports/gate.js';
import { gateCommand, type GateConfigSource } from '../../harness/commands/gate.js';
import { gateJUnit } from '../../reports/junit.js';
import { bulkRun, sampleRun } from '../helpers/sample-run.js';

function gate(partial: Partial<GateConfig> & Pick<GateConfig, 'metric'>): GateConfig {
  return { strategy: '*', where: 'memeval.config.yaml:10:5', ...partial };
}

// A minimal XML reader for the JUnit checks: elements, attributes and text, entities decoded.
interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function decode(s: string): string {
  return s.replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] as string);
}

function parseXml(xml: string): XmlNode {
  const body = xml.replace(/^<\?xml[^>]*\?>\s*/, '');
  const root: XmlNode = { name: '#root', attrs: {}, children: [], text: '' };
  const stack = [root];
  const re = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w.-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(body))) {
    expect(m.index).toBe(consumed); // nothing the pattern could not read (e.g. a raw "<")
    consumed = re.lastIndex;
    const [, close, name, attrText, selfClose, text] = m;
    const top = stack[stack.length - 1];
    if (text !== undefined) {
      top.text += decode(text);
      continue;
    }
    if (close) {
      expect(top.name).toBe(name);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText.matchAll(/([\w.-]+)="([^"]*)"/g)) attrs[a[1]] = decode(a[2]);
    const node: XmlNode = { name, attrs, children: [], text: '' };
    top.children.push(node);
    if (!selfClose) stack.push(node);
  }
  expect(consumed).toBe(body.length);
  expect(stack).toHaveLength(1);
  return root.children[0];
}

function suiteNamed(doc: XmlNode, prefix: string): XmlNode | undefined {
  return doc.children.find((s) => s.attrs.name.startsWith(prefix));
}

/** <failure> and <error> elements anywhere, checked against the suites' own counts. */
function redCount(doc: XmlNode): number {
  let elements = 0;
  let counted = 0;
  for (const suite of doc.children) {
    counted += Number(suite.attrs.failures) + Number(suite.attrs.errors);
    for (const c of suite.children) elements += c.children.filter((x) => x.name === 'failure' || x.name === 'error').length;
  }
  expect(counted).toBe(elements);
  return elements;
}

describe('gateJUnit', () => {
  it('keeps probe outcomes informational when no probe gate failed, escaped and parseable', () => {
    const run = sampleRun();
    run.probes[9].question = 'Is <b>"A & B"</b> it\'s \u0001 fine?';
    // Passes for full (0.9) although full has a failing probe.
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 }), gate({ metric: 'context.mean_tokens', max: 300 })]);
    const doc = parseXml(gateJUnit(run, results));
    expect(doc.name).toBe('testsuites');
    expect(doc.children.map((s) => s.attrs.name)).toEqual([
      'memeval gates (run 20260101T000000Z-abc123)',
      'memeval probes (informational, run 20260101T000000Z-abc123, model openai:gpt-4.1-mini)',
    ]);
    const [gates, probes] = doc.children;
    expect(gates.attrs).toMatchObject({ tests: '4', failures: '0', errors: '0' });
    expect(probes.attrs).toMatchObject({ tests: '30', failures: '0', errors: '0' });
    const q2 = probes.children.find((c) => c.attrs.classname === 'probes.full.t2' && c.attrs.name === 'q2 (abstention) #2')!;
    expect(q2.children.map((c) => c.name)).toEqual(['system-out']);
    expect(q2.children[0].text).toContain('FAILED (informational): abstain-fail');
    expect(q2.children[0].text).toContain('question: Is <b>"A & B"</b> it\'s  fine?');
    const errored = probes.children.filter((c) => c.children[0]?.text.startsWith('ERROR (informational): HTTP 500 from provider after 3 retries'));
    expect(errored).toHaveLength(1);
    expect(redCount(doc)).toBe(0);
  });

  it('makes the failing and errored probes of a failed probe gate failures, and only of that strategy', () => {
    const run = sampleRun();
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })]);
    const doc = parseXml(gateJUnit(run, results));
    const gated = suiteNamed(doc, 'memeval probes of failed gates')!;
    // trim-2: two failed probes and one errored, out of ten.
    expect(gated.attrs).toMatchObject({ tests: '10', failures: '2', errors: '1' });
    expect(gated.children.every((c) => c.attrs.classname.startsWith('probes.trim-2.'))).toBe(true);
    expect(suiteNamed(doc, 'memeval probes (informational')!.attrs).toMatchObject({ tests: '20', failures: '0', errors: '0' });
    expect(suiteNamed(doc, 'memeval gates')!.attrs).toMatchObject({ tests: '1', failures: '1', errors: '0' });
  });

  it('covers only the probe kind a probe.accuracy.<kind> gate names', () => {
    const run = sampleRun();
    const results = evaluateGates(run, [gate({ metric: 'probe.accuracy.recall', strategy: 'trim-2', min: 0.8 })]);
    const gated = suiteNamed(parseXml(gateJUnit(run, results)), 'memeval probes of failed gates')!;
    expect(gated.children.map((c) => c.attrs.name)).toEqual(['p1 (recall) #1', 'p1 (recall) #2']);
  });

  it('covers the answerable probes for a failed probe.reader_gap gate, the others for a failed probe.answerable gate', () => {
    const run = sampleRun();
    const gap = evaluateGates(run, [gate({ metric: 'probe.reader_gap', strategy: 'trim-2', max: 0.1 })]);
    const missed = suiteNamed(parseXml(gateJUnit(run, gap)), 'memeval probes of failed gates')!;
    // trim-2's 8 answerable records; the errored p3 #2 is the one the reader gap counts.
    expect(missed.attrs).toMatchObject({ tests: '8', failures: '0', errors: '1' });
    const lost = evaluateGates(run, [gate({ metric: 'probe.answerable', strategy: 'trim-2', min: 0.9 })]);
    const gated = suiteNamed(parseXml(gateJUnit(run, lost)), 'memeval probes of failed gates')!;
    expect(gated.children.map((c) => c.attrs.name)).toEqual(['p1 (recall) #1', 'p1 (recall) #2']);
    expect(gated.attrs).toMatchObject({ failures: '2', errors: '0' });
  });

  it('reports a gate that could not be evaluated as an error, an optional one as skipped, a failed run as an error', () => {
    const run = sampleRun();
    const results = evaluateGates(run, [
      gate({ metric: 'probe.accuracy', strategy: 'full', max_drop: 0.05, vs: 'baseline-run' }),
      gate({ metric: 'summary.judge.overall', strategy: 'full', min: 3, optional: true }),
    ]);
    const gates = suiteNamed(parseXml(gateJUnit(run, results)), 'memeval gates')!;
    expect(gates.attrs).toMatchObject({ tests: '2', failures: '0', errors: '1', skipped: '1' });
    expect(gates.children[0].children[0].attrs.message).toBe('could not be evaluated: no baseline run to compare with (pass --baseline RUN or set baseline_run:)');
    expect(gates.children[1].attrs.name).toContain('(optional)');
    const failed = parseXml(gateJUnit(run, [], 'run x is incomplete, not complete: 3 errors'));
    expect(suiteNamed(failed, 'memeval gates')!.children[0].children[0]).toMatchObject({ name: 'error', attrs: { message: 'run x is incomplete, not complete: 3 errors', type: 'error' } });
  });
});

describe('junit.xml and the exit code of memeval gate', () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-junit-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    delete process.env.GITHUB_STEP_SUMMARY;
  });
  afterEach(() => vi.restoreAllMocks());

  const noConfigFile = (): GateConfigSource => {
    throw new Error('the config file was read');
  };

  async function gateAndRead(name: string, run: RunResult, gates: GateConfig[], extra: string[] = []): Promise<{ code: number; red: number }> {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    run.info.config = { gates };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    const code = await gateCommand([dir, ...extra], noConfigFile);
    return { code, red: redCount(parseXml(readFileSync(join(dir, 'junit.xml'), 'utf8'))) };
  }

  const allPass = () => bulkRun({ runId: 'base', strategies: ['s', 't'], transcripts: 4, probesPer: 2, passes: () => true });
  const mostlyPass = () => bulkRun({ runId: 'cand', strategies: ['s', 't'], transcripts: 4, probesPer: 2, passes: (_s, t, p) => !(t === 0 && p === 0) });

  it('has no failure and no error exactly when the gate exits 0', async () => {
    mkdirSync(join(root, 'kept'), { recursive: true });
    writeFileSync(join(root, 'kept', 'run.json'), JSON.stringify(allPass()));
    const incomplete = sampleRun({ status: 'incomplete' });
    incomplete.info.failure = '1 of 30 probe answers errored.';
    const cases: [string, RunResult, GateConfig[], string[]?][] = [
      ['probe gate passes beside failing probes', sampleRun(), [gate({ metric: 'probe.accuracy', strategy: 'full', min: 0.8 })]],
      ['probe gate fails', sampleRun(), [gate({ metric: 'probe.accuracy', strategy: 'trim-2', min: 0.8 })]],
      ['other gate fails', sampleRun(), [gate({ metric: 'context.mean_tokens', max: 140 })]],
      ['no baseline run', mostlyPass(), [gate({ metric: 'probe.accuracy', max_drop: 0.5, vs: 'baseline-run' })]],
      ['optional without baseline', mostlyPass(), [gate({ metric: 'probe.accuracy', max_drop: 0.5, vs: 'baseline-run', optional: true })]],
      ['within max_drop of the baseline run', mostlyPass(), [gate({ metric: 'probe.accuracy', max_drop: 0.5, vs: 'baseline-run' })], ['--baseline', join(root, 'kept')]],
      ['beyond max_drop of the baseline run', mostlyPass(), [gate({ metric: 'probe.accuracy', max_drop: 0.01, vs: 'baseline-run' })], ['--baseline', join(root, 'kept')]],
      ['run incomplete', incomplete, [gate({ metric: 'probe.accuracy', min: 0 })]],
    ];
    const outcomes: string[] = [];
    for (const [name, run, gates, extra] of cases) {
      const { code, red } = await gateAndRead(name.replace(/\W+/g, '-'), run, gates, extra);
      expect(red === 0, `${name}: exit ${code} with ${red} failures and errors in junit.xml`).toBe(code === 0);
      outcomes.push(`${code}`);
    }
    // Both sides of the invariant are exercised, and every kind of exit.
    expect(outcomes).toEqual(['0', '100', '100', '100', '0', '0', '100', '3']);
  });
});
