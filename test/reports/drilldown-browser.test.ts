import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRILLDOWN_SCRIPT_CSP, drilldownSection } from '../../reports/drilldown.js';
import { page as htmlPage } from '../../reports/html.js';
import { sampleRun } from '../helpers/sample-run.js';
import { useChromium } from '../helpers/browser.js';

const SCRIPT = '<script>window.__pwned=1</script>';
const IMG = '<img src=x onerror="window.__pwned=1">';


/**
 * sampleRun with markup in the contexts and in t1's questions and failed answers, and summ
 * also failing p1 repeat 1 (lost-in-summary) beside trim-2 (trimmed): one row, two causes.
 */
function evilRun() {
  const run = sampleRun({ model: 'offline', transcriptText: { t1: `${SCRIPT} and ${IMG}`, t2: 'the laptop talk' } });
  const summ = run.probes.find((p) => p.strategy === 'summ' && p.probe === 'p1' && p.repeat === 1)!;
  Object.assign(summ, { passed: false, attribution: 'lost-in-summary', answer: 'maybe "B-7"' });
  for (const p of run.probes) {
    if (p.transcript === 't1') p.question = `${IMG} ${p.question}`;
    if (p.passed === false && p.answer) p.answer = `${p.answer} ${SCRIPT}`;
  }
  return run;
}

/**
 * The document as report.html builds it, its policy allowing the section's script by hash
 * (added here while page() does not add it itself); `allow: false` leaves the script out of the policy.
 */
function reportPage(allow = true): string {
  const html = htmlPage('drilldown', drilldownSection(evilRun()));
  const source = allow ? DRILLDOWN_SCRIPT_CSP : '';
  if (allow && html.includes(DRILLDOWN_SCRIPT_CSP)) return html;
  return html.replace(/(http-equiv="Content-Security-Policy" content=")([^"]*)"/, (_, head: string, policy: string) => {
    const rest = policy.split(';').map((d) => d.trim()).filter((d) => d && !d.startsWith('script-src'));
    return `${head}${[...rest, `script-src ${source || "'none'"}`].join('; ')}"`;
  });
}

interface Watch {
  problems: string[];
  requests: string[];
}

async function open(browser: Browser, file: string, options: { javaScriptEnabled?: boolean } = {}): Promise<{ page: Page; watch: Watch }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const watch: Watch = { problems: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') watch.problems.push(m.text());
  });
  page.on('pageerror', (e) => watch.problems.push(e.message));
  page.on('request', (r) => watch.requests.push(r.url()));
  // Init scripts are the harness's own and run whatever the page's policy says, so they can record its violations.
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(e.violatedDirective));
  });
  await page.goto(pathToFileURL(file).href);
  return { page, watch };
}

const visibleRows = (page: Page) => page.locator('#dd .dd-rows > details:visible').count();
const violations = (page: Page) => page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp);
const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);

describe('failures drilldown in headless Chromium', () => {
  const browser = useChromium('reports-drilldown');
  const dir = mkdtempSync(join(tmpdir(), 'memeval-drilldown-'));
  const allowed = join(dir, 'allowed.html');
  const blocked = join(dir, 'blocked.html');
  beforeAll(() => {
    writeFileSync(allowed, reportPage(true));
    writeFileSync(blocked, reportPage(false));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('filters by strategy, cause, kind and transcript and searches questions and answers, with no error or CSP violation', async () => {
    const { page, watch } = await open(browser(), allowed);
    await expect(page.locator('#dd .dd-bar').isVisible()).resolves.toBe(true);
    expect(await visibleRows(page)).toBe(7);
    await expect(page.locator('#dd .dd-count').innerText()).resolves.toBe('7 of 7 rows shown');

    // trim-2 failed p1 (twice) and errored on p3; of those, the two p1 failures were trimmed.
    await page.selectOption('#dd select[name="s"]', { label: 'trim-2 (3)' });
    expect(await visibleRows(page)).toBe(3);
    await page.selectOption('#dd select[name="c"]', { label: 'trimmed (2)' });
    expect(await visibleRows(page)).toBe(2);
    await expect(page.locator('#dd .dd-count').innerText()).resolves.toBe('2 of 7 rows shown');
    // The cause must belong to the selected strategy: on p1 trim-2 trimmed and summ lost it in a summary,
    // and trim-2 lost nothing in a summary anywhere.
    await page.selectOption('#dd select[name="c"]', { label: 'lost-in-summary (2)' });
    expect(await visibleRows(page)).toBe(0);
    await page.selectOption('#dd select[name="s"]', { label: 'all' });
    expect(await visibleRows(page)).toBe(2);
    await page.selectOption('#dd select[name="c"]', { label: 'all' });

    await page.fill('#dd input[name="q"]', 'LAPTOP');
    expect(await visibleRows(page)).toBe(2); // q1, both repeats
    await page.fill('#dd input[name="q"]', 'maybe "b-7"');
    expect(await visibleRows(page)).toBe(6); // every row with a wrong answer; the errored p3 has none
    await page.fill('#dd input[name="q"]', '<script>window.__pwned');
    expect(await visibleRows(page)).toBe(6); // the hostile text is searched as text
    await page.fill('#dd input[name="q"]', '');
    await page.selectOption('#dd select[name="t"]', { label: 't2 (3)' });
    await page.selectOption('#dd select[name="k"]', { label: 'abstention (1)' });
    expect(await visibleRows(page)).toBe(1);

    expect(await violations(page)).toEqual([]);
    expect(await pwned(page)).toBeUndefined();
    expect(watch.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('opens a context under its row with its messages, hostile text staying text', async () => {
    const { page, watch } = await open(browser(), allowed);
    const row = page.locator('#dd .dd-rows > details').first();
    await row.locator('summary').click();
    await row.locator('a[href="#dc1"]').click();
    const context = row.locator('.dd-slot > details#dc1');
    await expect(context.getAttribute('open')).resolves.toBe('');
    expect(await context.locator('pre').count()).toBe(2);
    await expect(context.locator('pre').nth(1).innerText()).resolves.toContain(`${SCRIPT} and ${IMG}`);
    expect(await page.locator('#dd-msgs').count()).toBe(1); // the message list stays where it was
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    expect(await pwned(page)).toBeUndefined();
    expect(await violations(page)).toEqual([]);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('reads top to bottom without scripts: filters hidden, every row there', async () => {
    const { page } = await open(browser(), allowed, { javaScriptEnabled: false });
    expect(await page.locator('#dd .dd-bar').isVisible()).toBe(false);
    expect(await visibleRows(page)).toBe(7);
    await page.context().close();
  });

  it('reports the violation when the policy does not allow the script (the checks above can fail)', async () => {
    const { page, watch } = await open(browser(), blocked);
    expect(await violations(page)).toContain('script-src-elem');
    expect(watch.problems.join('\n')).toContain('Content Security Policy');
    expect(await page.locator('#dd .dd-bar').isVisible()).toBe(false);
    await page.context().close();
  });
});
