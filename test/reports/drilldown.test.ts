import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DRILLDOWN_SCRIPT, DRILLDOWN_SCRIPT_CSP, drilldownSection, drilldownSidecar, failureGroups, mergeCells } from '../../reports/drilldown.js';
import { bulkRun, sampleRun } from '../helpers/sample-run.js';
import { ContextLookup, contextRef, messageDigest, toRanges } from '../../core/contexts.js';

const SCRIPT = '<script>window.__pwned=1</script>';
const IMG = '<img src=x onerror="window.__pwned=1">';

/** The row markup of the section, one entry per rendered row. */
function rows(html: string): string[] {
  const list = html.slice(html.indexOf('<div class="dd-rows">'), html.indexOf('<h3 id="dd-contexts">'));
  return list.split('<details data-t=').slice(1);
}

/** The section without its own script, where no other script may appear. */
function withoutOwnScript(html: string): string {
  return html.replace(`<script>${DRILLDOWN_SCRIPT}</script>`, '');
}

const wrap = (title: string, body: Iterable<string>): Iterable<string> => [`<!doctype html><title>${title}</title>`, ...body];

describe('failureGroups', () => {
  it('makes one group per transcript × probe × repeat that did not pass somewhere, with every strategy in order', () => {
    const groups = failureGroups(sampleRun());
    // full fails q2 r2; trim-2 fails p1 r1, r2 and errors on p3 r2; summ fails p2 r1 and q1 r1, r2.
    expect(groups.map((g) => `${g.transcript}/${g.probe}/${g.repeat}`)).toEqual(['t1/p1/1', 't1/p1/2', 't1/p2/1', 't1/p3/2', 't2/q1/1', 't2/q1/2', 't2/q2/2']);
    for (const g of groups) expect(g.records.map((p) => p.strategy)).toEqual(['full', 'trim-2', 'summ']);
  });

  it('leaves out a probe every strategy passed', () => {
    const groups = failureGroups(sampleRun());
    expect(groups.find((g) => g.probe === 'p2' && g.repeat === 2)).toBeUndefined();
  });
});

describe('drilldownSection rows', () => {
  it('renders one row per failing probe naming every strategy’s outcome, the question, reference and answers', () => {
    const html = drilldownSection(sampleRun());
    const list = rows(html);
    expect(list).toHaveLength(7);
    expect(list[0]).toContain('<span class="ok">full, summ passed</span>; <span class="bad">trim-2 failed: trimmed</span>');
    expect(list[0]).toContain('<q>What is the order number?</q><span class="dd-ref">reference: A-1042</span>');
    // Strategies that did the same share a column; a passing strategy's context is not shown (only failures are explained).
    expect(list[0]).toContain('<th></th><th>full, summ</th><th class="bad">trim-2</th>');
    expect(list[4]).toContain('<th>full, trim-2</th><th class="bad">summ</th>');
    expect(list[4]).toContain('<tr><th>context sent</th><td>–</td><td><a href="#dc3">150 tokens</a></td></tr>');
    expect(list[0]).toContain('<tr class="dd-a"><th>answer</th><td>A-1042</td><td>I am not sure, maybe "B-7"?</td></tr>');
    expect(list[0]).toContain('<tr><th>answerable</th><td>yes</td><td>no: missing f1</td></tr>');
    expect(list[2]).not.toContain('answerable'); // every context held what the probe needs
    expect(list[2]).toContain('<span class="bad">summ failed: lost-in-summary</span>');
    expect(list[3]).toContain('<span class="warn">trim-2 error (answer)</span>');
    expect(list[6]).toContain('<span class="bad">full failed: abstain-fail</span>; <span class="ok">trim-2, summ passed</span>');
    expect(html).toContain('<h2 id="failures">Failures and errors (7 probes)</h2>');
    expect(html).toContain('7 failed or errored answers in 7 probes');
  });

  it('keys each row for the filters by strategy and cause of the same strategy, and by transcript and kind', () => {
    const list = rows(drilldownSection(sampleRun()));
    // strategies full 0, trim-2 1, summ 2; causes in the schema's order: trimmed 0, lost-in-summary 1, …, error 4.
    expect(list[0]).toMatch(/^"0" data-k="recall" data-f="1\.0">/);
    expect(list[2]).toMatch(/^"0" data-k="update" data-f="2\.1">/);
    expect(list[3]).toMatch(/^"0" data-k="temporal" data-f="1\.4">/);
    expect(list[6]).toMatch(/^"1" data-k="abstention" data-f="0\.3">/);
  });

  it('names repeats only when a probe ran more than once', () => {
    expect(drilldownSection(sampleRun())).toContain('<b>t1 · p1 (recall) · repeat 1 · after turn 4</b>');
    const once = bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 1, probesPer: 1, passes: (s) => s === 'a' });
    expect(drilldownSection(once)).toContain('<b>bt0 · p0 (recall) · after turn 2</b>');
  });

  it('says every probe passed when none failed', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts: 2, probesPer: 2, passes: () => true });
    expect(drilldownSection(run)).toContain('<p class="ok">Every probe passed.</p>');
  });

  it('merges equal adjacent cells into one spanning cell', () => {
    expect(mergeCells(['<td>x</td>', '<td>x</td>', '<td>y</td>', '<td>x</td>'])).toBe('<td colspan="2">x</td><td>y</td><td>x</td>');
  });
});

describe('drilldownSection contexts', () => {
  it('renders each distinct context once and every distinct message once, rows linking to them', () => {
    const run = sampleRun({ transcriptText: { t1: 'the refund conversation', t2: 'the laptop conversation' } });
    const html = drilldownSection(run);
    // Every record carries its context, but only the failing ones are shown. On t1 trim-2 failed at 200
    // tokens and summ at 160, each sending [system, t1 text]; on t2 the failures sent [system, t2 text] at 150:
    // three contexts over three distinct messages, each message rendered once.
    expect(html.match(/<details id="dc\d+">/g)).toEqual(['<details id="dc1">', '<details id="dc2">', '<details id="dc3">']);
    expect(html.match(/<pre data-r=/g)).toHaveLength(3);
    expect(html.split('the refund conversation')).toHaveLength(2);
    expect(html).toContain('<summary>context #1: 2 messages, 200 tokens</summary><p>messages #1–#2</p>');
    expect(html).toContain('<summary>context #2: 2 messages, 160 tokens</summary><p>messages #1–#2</p>');
    expect(html).toContain('<summary>context #3: 2 messages, 150 tokens</summary><p>messages #1, #3</p>');
    // One link per failed or errored record: seven rows, one failing strategy each.
    expect(html.match(/href="#dc\d"/g)).toHaveLength(7);
    for (const row of rows(html)) expect(row).toMatch(/href="#dc\d"/);
    expect(html).not.toContain('context #4');
  });

  it('renders contexts stored once in the run (contexts.jsonl) as it renders copies on the records', () => {
    const copies = sampleRun({ transcriptText: { t1: 'the refund conversation', t2: 'the laptop conversation' } });
    const stored = sampleRun({ transcriptText: { t1: 'the refund conversation', t2: 'the laptop conversation' } });
    const lookup = new ContextLookup();
    const numbers = new Map<string, number>();
    for (const p of stored.probes) {
      const ids = (p.context ?? []).map((m) => {
        const key = `${m.role} ${m.text}`;
        if (!numbers.has(key)) {
          numbers.set(key, numbers.size);
          lookup.add({ m: numbers.size - 1, ...m });
        }
        return numbers.get(key) ?? -1;
      });
      p.contextRef = contextRef((p.context ?? []).map(messageDigest));
      lookup.add({ c: p.contextRef, r: toRanges(ids) });
      delete p.context;
    }
    stored.contexts = lookup;
    expect(drilldownSection(stored)).toBe(drilldownSection(copies));
  });

  it('says how many failures name a context the run directory no longer holds', () => {
    const run = sampleRun();
    for (const p of run.probes) {
      delete p.context;
      p.contextRef = 'gone';
    }
    run.contexts = new ContextLookup();
    expect(drilldownSection(run)).toContain('<p class="warn">7 failed answers name a context that contexts.jsonl does not hold');
    expect(drilldownSection(sampleRun())).not.toContain('does not hold');
  });

  it('says so when a failure has no recorded context', () => {
    const run = sampleRun();
    for (const p of run.probes) delete p.context;
    const html = drilldownSection(run);
    expect(html).not.toContain('id="dd-contexts"');
    expect(html).not.toContain('href="#dc');
  });
});

describe('drilldownSection escaping', () => {
  it('keeps markup in questions, answers, references, contexts and strategy ids as text', () => {
    const run = sampleRun({ transcriptText: { t1: `${SCRIPT} ${IMG}`, t2: '</pre></details><b>x</b>' } });
    for (const p of run.probes) {
      p.question = `${IMG} what?`;
      p.reference = SCRIPT;
      if (p.answer) p.answer = `</td></tr></table>${SCRIPT}`;
      if (p.strategy === 'summ') p.strategy = '<i>summ</i>';
    }
    run.info.strategies[2].id = '<i>summ</i>';
    const html = withoutOwnScript(drilldownSection(run));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>x</b>');
    expect(html).not.toContain('<i>summ</i>');
    expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    expect(html).toContain('&lt;img src=x onerror="window.__pwned=1"&gt; what?');
    expect(html).toContain('&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;');
    expect(html).toContain('&lt;/pre&gt;&lt;/details&gt;&lt;b&gt;x&lt;/b&gt;');
  });

  it('has exactly one script, the one its CSP source allows, and no network address', () => {
    const html = drilldownSection(sampleRun());
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toEqual([DRILLDOWN_SCRIPT]);
    expect(DRILLDOWN_SCRIPT_CSP).toBe(`'sha256-${createHash('sha256').update(scripts[0]).digest('base64')}'`);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });
});

describe('drilldownSection paging', () => {
  // 2 strategies × 30 transcripts × 20 probes, b failing every other probe: 600 failing probes.
  const big = () => bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 30, probesPer: 20, passes: (s) => s === 'a' });

  it('renders the first rows only, says how many more and links the sidecar', () => {
    const html = drilldownSection(big());
    expect(rows(html)).toHaveLength(500);
    expect(html).toContain('Showing the first 500 of 600 rows; 100 more are in <a href="failures.html">failures.html</a>');
    expect(drilldownSection(big(), { limit: 10 })).toContain('Showing the first 10 of 600 rows; 590 more');
  });

  it('writes every row to the sidecar only when the report leaves some out', () => {
    const pieces = drilldownSidecar(big(), wrap);
    expect(pieces).toBeDefined();
    const sidecar = [...(pieces ?? [])].join('');
    expect(rows(sidecar)).toHaveLength(600);
    expect(sidecar).toContain('<a href="report.html">back to report.html</a>');
    expect(sidecar).not.toContain('Showing the first');
    expect(drilldownSidecar(sampleRun(), wrap)).toBeUndefined();
  });
});
