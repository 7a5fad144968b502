import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { htmlReporter, paretoFrontier, renderReport } from '../../reports/html.js';
import { bulkRun, sampleRun, withSummaryJudgeErrors } from '../helpers/sample-run.js';

const CHROMIUM = '/usr/bin/chromium';
const SCRIPT = '<script>window.__pwned=1</script>';
const IMG = '<img src=x onerror="window.__pwned=1">';
const ATTR = `" onmouseover="window.__pwned=1" x='`;

function evilRun() {
  const run = sampleRun({ model: 'offline', transcriptText: { t1: `${SCRIPT} and ${IMG}`, t2: ATTR } });
  run.info.transcripts[0].title = `Refund ${SCRIPT}`;
  for (const p of run.probes) if (p.transcript === 't1') p.question = `${IMG} ${ATTR}`;
  run.summaries[1].grades!.judge!.reasons.faithfulness = SCRIPT;
  return run;
}

describe('paretoFrontier', () => {
  it('keeps points nothing beats on both tokens and accuracy', () => {
    const pts = [
      { label: 'a', x: 100, y: 0.5 },
      { label: 'b', x: 200, y: 0.9 },
      { label: 'c', x: 300, y: 0.8 },
      { label: 'd', x: 150, y: 0.5 },
    ];
    expect(paretoFrontier(pts).map((p) => p.label)).toEqual(['a', 'b']);
  });
});

describe('report.html markup', () => {
  it('escapes transcript text and needs no network', () => {
    const html = renderReport(evilRun());
    expect(html).not.toContain(SCRIPT);
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<[^>]*\son\w+=/i); // hostile text stays escaped, so no tag carries a handler
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).toContain('offline (built-in extractive reader, not an LLM)');
  });
});

// The markup between <body> and the first heading: where a run's status must show.
function beforeHeading(html: string): string {
  return html.slice(html.indexOf('<body>'), html.indexOf('<h1>'));
}

describe('report.html denominators and errors', () => {
  it('shows accuracy over attempted with its counts, and graded accuracy only beside it', () => {
    const html = renderReport(sampleRun());
    expect(html).toContain('70.0% (7/10)');
    expect(html).toContain('graded only: 77.8% (7/9)');
    expect(html).toContain('90.0% (9/10)');
    expect(html).not.toContain('graded only: 90.0%'); // no errors, nothing to set beside it
  });

  it('shows each strategy against the baseline with raw and Holm p, marking a significant one', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a', 'b', 'c'], transcripts: 10, probesPer: 4, passes: (s, t, p) => s !== 'b' || !(p < 2 && t < 6) });
    const html = renderReport(run);
    expect(html).toContain('<span class="bad">* vs a: -30.0 pts, p = 0.000488, Holm p = 0.000977</span>');
    expect(html).toContain('<span class="muted">vs a: 0.0 pts, p = 1.00, Holm p = 1.00</span>');
  });

  it('lists errors per stage with the first message, escaped', () => {
    const run = sampleRun();
    run.probes.find((p) => p.error)!.error = 'HTTP 500 <b>upstream</b>';
    const html = renderReport(run);
    const table = html.slice(html.indexOf('<table class="stage-errors">'));
    expect(table).toContain('<td>answer</td><td class="n bad">1 / 30</td><td>HTTP 500 &lt;b&gt;upstream&lt;/b&gt;</td>');
    expect(table).toContain('<td>summarizer</td><td class="n bad">1 / 3</td><td>summarizer timed out</td>');
    expect(table).toContain('<td>summary-judge</td><td class="n">0 / 2</td><td>–</td>');
  });

  it('has no stage table when nothing errored', () => {
    const run = sampleRun({ outcomes: { 'trim-2': ['fail', 'fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] } });
    run.summaries = run.summaries.filter((s) => !s.error);
    expect(renderReport(run)).not.toContain('stage-errors');
  });

  it('shows 96 of 96 summary-judge failures as judge errors beside the judge scores', () => {
    const run = withSummaryJudgeErrors(bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 48, probesPer: 1, passes: () => true, summaryOverall: () => 4 }));
    const html = renderReport(run);
    expect(html).toContain('<td class="n">0 / 48 <span class="bad">(48 judge errors)</span></td>');
    expect(html).toContain('<td>summary-judge</td><td class="n bad">96 / 96</td><td>HTTP 401 from judge: invalid api key</td>');
    expect(html).toContain('judge error</span></summary>');
  });

  it('marks an errored probe as an error of its stage, not as a failure', () => {
    const html = renderReport(sampleRun({ outcomes: { full: ['judge-error', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] } }));
    expect(html).toContain('<span class="warn">error (answer-judge)</span> full · t1 · p1');
    expect(html).toContain('<span class="warn">error (answer)</span> trim-2 · t1 · p3');
  });

  it('puts an INCOMPLETE, FAILED or INTERRUPTED banner first, quoting the failure escaped', () => {
    const run = sampleRun({ status: 'incomplete' });
    run.info.failure = `30 of 100 probe answers errored. First answer error: ${SCRIPT}`;
    const top = beforeHeading(renderReport(run));
    expect(top).toContain('<div class="banner" role="alert"><strong>INCOMPLETE</strong>30 of 100 probe answers errored.');
    expect(top).toContain('&lt;script&gt;');
    expect(top).not.toContain(SCRIPT);
    expect(beforeHeading(renderReport(sampleRun({ status: 'failed' })))).toContain('<strong>FAILED</strong>');
    expect(beforeHeading(renderReport(sampleRun({ status: 'interrupted' })))).toContain('<strong>INTERRUPTED</strong>');
  });

  it('has no banner for a complete run', () => {
    const html = renderReport(sampleRun());
    expect(html).not.toContain('class="banner"');
    expect(beforeHeading(html).trim()).toBe('<body>');
  });
});

/** The overview row of one strategy. */
function overviewRow(html: string, strategy: string): string {
  const overview = html.slice(html.indexOf('<h2 id="overview">'), html.indexOf('</table>', html.indexOf('<h2 id="overview">')));
  return overview.split('<tr>').find((row) => row.startsWith(`<td>${strategy} `)) ?? '';
}

describe('report.html answerable and reader gap', () => {
  it('shows both per strategy in the overview with their counts, an errored answerable probe counted as missed', () => {
    const html = renderReport(sampleRun());
    const trim = overviewRow(html, 'trim-2');
    expect(trim).toContain('<td class="n answerable"><span class="nw">80.0% (8/10)</span><br><span class="muted">[');
    expect(trim).toContain('<td class="n reader-gap"><span class="nw">12.5% (1/8)</span>');
    expect(trim).toContain('1 errored, counted as missed');
    expect(overviewRow(html, 'summ')).toContain('<td class="n reader-gap"><span class="nw">30.0% (3/10)</span>');
    expect(overviewRow(html, 'full')).not.toContain('counted as missed');
    expect(html).toContain('<th>answerable (of known)</th><th>reader gap (missed/answerable)</th>');
  });

  it('explains the two numbers in one sentence under the overview', () => {
    const html = renderReport(sampleRun());
    const note = /<p class="muted answerable-note">([^<]*)<\/p>/.exec(html)![1];
    expect(note).toContain('so a low rate means the strategy lost it');
    expect(note).toContain('so a high gap means the reader missed it');
    expect(note).toContain('other probes naming no facts are unknown and left out');
    expect(note.split('. ')).toHaveLength(1);
  });

  it('names probes with an unknown answerable as left out, and shows – when none is known', () => {
    const run = sampleRun();
    for (const p of run.probes) if (p.strategy === 'trim-2' && p.probe === 'p1') p.answerable = null;
    expect(overviewRow(renderReport(run), 'trim-2')).toContain('<td class="n answerable"><span class="nw">100.0% (8/8)</span>');
    expect(overviewRow(renderReport(run), 'trim-2')).toContain('2 unknown (no facts named), left out');
    for (const p of run.probes) p.answerable = null;
    const row = overviewRow(renderReport(run), 'full');
    expect(row).toContain('<td class="n answerable">–');
    expect(row).toContain('<td class="n reader-gap">–</td>');
  });

  it('breaks the reader gap down by probe kind and marks each failure answerable or not', () => {
    const html = renderReport(sampleRun());
    const kinds = html.slice(html.indexOf('<table class="reader-gap-kinds">'));
    const trim = kinds.split('<tr>').find((r) => r.startsWith('<td>trim-2</td>'))!;
    // recall, update, temporal, multi-hop, abstention: trim-2 lost both recall probes, so none was answerable.
    expect(trim).toBe('<td>trim-2</td><td class="n">–</td><td class="n">0.0% <span class="muted">(0/2)</span></td><td class="n">50.0% <span class="muted">(1/2)</span></td><td class="n">0.0% <span class="muted">(0/2)</span></td><td class="n">0.0% <span class="muted">(0/2)</span></td></tr>');
    expect(html).toContain('<td>answerable</td><td>no (a needed fact was missing from the context sent)</td>');
    expect(html).toContain('<td>answerable</td><td>yes (every needed fact was in the context sent)</td>');
  });
});

const haveChromium = existsSync(CHROMIUM);
const NO_CHROMIUM = `${CHROMIUM} not found: install Debian's chromium package (apt-get install chromium)`;
// CI must exercise the report in a real browser, so there a missing browser fails the run;
// a developer without it gets a skip that says why.
const requireChromium = Boolean(process.env.CI);
if (!haveChromium && !requireChromium) console.warn(`reports-html: skipping the browser test: ${NO_CHROMIUM}`);

describe('report.html in headless Chromium', () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'memeval-html-'));
  beforeAll(async () => {
    if (haveChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach((ctx) => {
    if (haveChromium) return;
    if (requireChromium) throw new Error(NO_CHROMIUM);
    ctx.skip(NO_CHROMIUM);
  });

  it('renders charts with data points, keeps hostile text as text, logs no errors', async () => {
    const [path] = await htmlReporter.write(evilRun(), dir);
    expect(readFileSync(path, 'utf8').length).toBeGreaterThan(1000);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(path).href);

    expect(await page.title()).toContain('memeval');
    await expect(page.locator('h1').innerText()).resolves.toContain('memeval report');
    await expect(page.locator('table.meta').first().innerText()).resolves.toContain('offline (built-in extractive reader, not an LLM)');

    const charts = await page.$$eval('svg.chart', (svgs) => svgs.map((s) => ({ label: s.getAttribute('aria-label'), points: s.querySelectorAll('circle.pt').length, paths: s.querySelectorAll('path').length })));
    expect(charts).toHaveLength(3); // scatter + one line chart per transcript
    for (const c of charts) {
      expect(c.points, c.label ?? '').toBeGreaterThan(0);
      expect(c.paths, c.label ?? '').toBeGreaterThan(0);
    }
    expect(charts[0].points).toBe(3);
    expect(charts[1].points).toBe(12); // 3 strategies × 4 turns of t1
    expect(await page.locator('svg.chart circle.pareto').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.chart circle.summary-event').count()).toBe(3); // summ: t1 turns 3, 4; t2 turn 2

    // Open every collapsed block, then look for the hostile strings as visible text.
    await page.$$eval('details', (ds) => ds.forEach((d) => d.setAttribute('open', '')));
    const text = await page.locator('body').innerText();
    expect(text).toContain(SCRIPT);
    expect(text).toContain(IMG);
    expect(text).toContain(ATTR);
    expect(await page.getByText(`Refund ${SCRIPT}`).first().isVisible()).toBe(true);

    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(0);
    const handlers = await page.$$eval('*', (els) => els.flatMap((e) => Array.from(e.attributes, (a) => a.name)).filter((n) => n.startsWith('on')));
    expect(handlers).toEqual([]);
    await page.hover('text=Failures and errors');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
