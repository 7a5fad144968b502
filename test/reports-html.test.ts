import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlReporter, paretoFrontier, renderReport } from '../reports/html.js';
import { sampleRun } from './helpers/sample-run.js';

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

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`reports-html: ${CHROMIUM} not found; skipping the browser test (apt-get install chromium)`);

describe.skipIf(!haveChromium)('report.html in headless Chromium', () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'memeval-html-'));
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
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
