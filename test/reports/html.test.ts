import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lineChart, MAX_MARKERS, mergeIdentical, placeLabels, readableOn, styleFor, textWidth, type Series } from '../../reports/charts.js';
import { htmlReporter, MAX_SMALL_MULTIPLES, MAX_SUMMARY_BLOCKS, medianPoints, paretoFrontier, renderReport } from '../../reports/html.js';
import { esc } from '../../reports/format.js';
import { bulkRun, sampleRun, withSummaryJudgeErrors } from '../helpers/sample-run.js';
import { DRILLDOWN_SCRIPT, DRILLDOWN_SCRIPT_CSP } from '../../reports/drilldown.js';
import { useChromium } from '../helpers/browser.js';
import { protocolManifest } from '../../harness/run/run-info.js';

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
    expect(html.replace(`<script>${DRILLDOWN_SCRIPT}</script>`, '')).not.toMatch(/<script/i);
    expect(html).toContain(`script-src ${DRILLDOWN_SCRIPT_CSP}">`);
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
    expect(html).toContain('<b>t1 · p1 (recall) · repeat 1 · after turn 4</b> — <span class="warn">full error (answer-judge)</span>; <span class="bad">trim-2 failed: trimmed</span>');
    expect(html).toContain('<b>t1 · p3 (temporal) · repeat 2 · after turn 4</b> — <span class="ok">full, summ passed</span>; <span class="warn">trim-2 error (answer)</span>');
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
    // Nothing but the verdict (no banner on a clean run) comes before the first heading.
    expect(beforeHeading(html)).not.toContain('class="banner"');
    expect(beforeHeading(html).trim()).toMatch(/^<body>\s*<style>\.verdict/);
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
    // Each failure shows, per strategy, whether its context held every fact the probe needs.
    expect(html).toContain('<tr><th>answerable</th><td>yes</td><td>no: missing f1</td></tr>');
  });
});

// Eight strategies at one context size, accuracies 16, 18, … 28, 28% (the last two coincide):
// the crowded case for labels. One id carries markup, to be shown as text.
const INJECTED = '<b onmouseover="window.__pwned=1">x</b>';
const CROWDED = ['full', 'trim-6', 'summarize-8-4', 'budget-2k', 'window-16', 'soft-3k', INJECTED, 'sliding-window-long-name'];
function crowdedRun() {
  return bulkRun({ runId: 'crowded', strategies: CROWDED, transcripts: 4, probesPer: 50, passes: (s, _t, p) => p < 8 + Math.min(6, CROWDED.indexOf(s)) });
}

/** The scatter's SVG markup. */
function scatterSvg(html: string): string {
  const start = html.indexOf('<svg class="chart" role="img" aria-label="accuracy against mean context tokens"');
  return html.slice(start, html.indexOf('</svg>', start));
}

function yTicks(svgMarkup: string): number[] {
  return [...svgMarkup.matchAll(/class="tick ytick" data-v="([\d.]+)"/g)].map((m) => Number(m[1]));
}

describe('chart styles and helpers', () => {
  it('gives eight strategies eight colours and eight distinct dash and marker pairs', () => {
    const styles = [...Array(8)].map((_, i) => styleFor(i));
    expect(new Set(styles.map((s) => s.color)).size).toBe(8);
    expect(new Set(styles.map((s) => `${s.dash}|${s.shape}`)).size).toBe(8);
  });

  it('draws lines that coincide point for point once, named after every strategy', () => {
    const pts = (k: number) => [1, 2, 3].map((turn) => ({ turn, tokens: turn * k, summarized: false }));
    const series: Series[] = [
      { label: 'full', style: styleFor(0), points: pts(100) },
      { label: 'trim-6', style: styleFor(1), points: pts(100) },
      { label: 'summ', style: styleFor(2), points: pts(50) },
    ];
    expect(mergeIdentical(series).map((s) => s.label)).toEqual(['full, trim-6 (identical)', 'summ']);
    // A summary at one turn is a visible difference, so those lines stay apart.
    series[1].points[2].summarized = true;
    expect(mergeIdentical(series)).toHaveLength(3);
  });

  it('places labels of twenty coinciding points without overlaps, leaving out those that do not fit', () => {
    const anchors = [...Array(20)].map((_, i) => ({ px: 300, py: 150, text: `strategy-${i}` }));
    const placed = placeLabels(anchors, { x: 0, y: 0, w: 600, h: 300 });
    const boxes = placed.flatMap((p) => (p ? [p.box] : []));
    expect(boxes.length).toBeGreaterThan(8);
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) expect(a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y).toBe(true);
      expect(a.x >= 0 && a.y >= 0 && a.x + a.w <= 600 && a.y + a.h <= 300).toBe(true);
    }
    // A label next to its point needs nothing more; one placed further out gets a line back to it.
    const near = (b: { x: number; y: number; w: number; h: number }) => b.x - 12 <= 300 && 300 <= b.x + b.w + 12 && b.y - 12 <= 150 && 150 <= b.y + b.h + 12;
    for (const p of placed) if (p && !p.leader) expect(near(p.box)).toBe(true);
    expect(placed.filter((p) => p?.leader).length).toBeGreaterThan(4);
    expect(textWidth('mmmm')).toBeGreaterThan(textWidth('iiii') * 2);
  });
});

describe('report.html charts', () => {
  it('fits the scatter y axis to the data and its CIs, not to 0–100%', () => {
    const ticks = yTicks(scatterSvg(renderReport(crowdedRun())));
    expect(Math.min(...ticks)).toBeGreaterThanOrEqual(0.05);
    expect(Math.min(...ticks)).toBeLessThanOrEqual(0.16);
    expect(Math.max(...ticks)).toBeGreaterThanOrEqual(0.28);
    expect(Math.max(...ticks)).toBeLessThanOrEqual(0.45);
  });

  it('draws a 95% CI whisker per strategy and sizes charts by viewBox, not pixels', () => {
    const html = renderReport(sampleRun());
    expect(scatterSvg(html).match(/<path class="ci"/g)).toHaveLength(3);
    expect(html).toMatch(/<svg class="chart[^"]*" role="img"[^>]*viewBox="0 0 \d+ \d+"/);
    expect(html).not.toMatch(/<svg class="chart[^>]*\swidth="/);
  });

  it('draws the per-transcript charts on one shared y scale, identical lines once', () => {
    const html = renderReport(sampleRun());
    const multiples = html.slice(html.indexOf('<div class="multiples">'));
    const charts = multiples.split('<svg class="chart"').slice(1);
    expect(charts).toHaveLength(2);
    expect(yTicks(charts[0])).toEqual(yTicks(charts[1])); // t1 peaks at 400 tokens, t2 at 150
    expect(Math.max(...yTicks(charts[1]))).toBeGreaterThanOrEqual(400);
    // t2: full and trim-2 coincide; summ has the same tokens but made a summary.
    expect(charts[1].match(/<path class="series"/g)).toHaveLength(2);
    expect(charts[1]).toContain('<title>full, trim-2 (identical)</title>');
    expect(charts[0].match(/<path class="series"/g)).toHaveLength(3);
  });

  it('draws one chart of each strategy’s median per turn, not thousands of small multiples, past MAX_SMALL_MULTIPLES transcripts', () => {
    const run = bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: MAX_SMALL_MULTIPLES + 1, probesPer: 1, passes: () => true });
    // Strategy b's context at turn 2 differs per transcript: 0, 10, 20, … tokens more than a's 150; its median is the middle one.
    run.turns.filter((t) => t.strategy === 'b' && t.turn === 2).forEach((t, i) => (t.contextTokens = 150 + 10 * i));
    const html = renderReport(run);
    const section = html.slice(html.indexOf('<h2 id="transcripts">'), html.indexOf('<h2 id="failures">'));
    expect(section).not.toContain('<div class="multiples">');
    expect(section.split('<svg class="chart"')).toHaveLength(2);
    expect(section).toContain(`${MAX_SMALL_MULTIPLES + 1} transcripts are too many to chart one by one`);
    const few = renderReport(bulkRun({ runId: 'r', strategies: ['a', 'b'], transcripts: 3, probesPer: 1, passes: () => true }));
    expect(few.slice(few.indexOf('<div class="multiples">')).split('<svg class="chart"')).toHaveLength(4);
    // a's lines are 100 then 150 everywhere; b's turn 2 runs 150, 160, … over 49 transcripts: its median is the 25th, 390.
    expect(medianPoints(run.turns, 'a').map((p) => [p.turn, p.tokens])).toEqual([[1, 100], [2, 150]]);
    expect(medianPoints(run.turns, 'b').map((p) => [p.turn, p.tokens])).toEqual([[1, 100], [2, 390]]);
    expect(medianPoints([...run.turns.slice(0, 2), { ...run.turns[1], contextTokens: 250 }], 'a').map((p) => p.tokens)).toEqual([100, 200]);
  });

  it('thins the point markers of a long line, keeping its last point and every summary ring', () => {
    const points = Array.from({ length: 600 }, (_, i) => ({ turn: i + 1, tokens: 100 + i, summarized: i % 97 === 0 }));
    const chart = lineChart('long', [{ label: 'a', style: styleFor(0), points }], [0, 500, 1000]);
    const markers = chart.match(/class="pt"/g) ?? [];
    expect(markers.length).toBeLessThanOrEqual(MAX_MARKERS + 1);
    expect(markers.length).toBeGreaterThan(MAX_MARKERS / 2);
    expect(chart).toContain('a, turn 600: 699 tokens');
    expect(chart.match(/class="summary-event"/g)).toHaveLength(points.filter((p) => p.summarized).length);
    // A short line keeps every marker.
    expect(lineChart('short', [{ label: 'a', style: styleFor(0), points: points.slice(0, 20) }], [0, 500]).match(/class="pt"/g)).toHaveLength(20);
  });

  it('says once which rule an offline summary judge graded by, and shows an LLM judge’s reasons per summary', () => {
    const offline = sampleRun();
    offline.info.protocol = protocolManifest([], { model: 'offline', judge: 'offline', agent: 'direct', judgeSamples: 1 });
    for (const s of offline.summaries) if (s.grades?.judge) s.grades.judge.reasons = {};
    const section = (html: string) => html.slice(html.indexOf('<h2 id="summaries">'), html.indexOf('<h2', html.indexOf('<h2 id="summaries">') + 1));
    const ruled = section(renderReport(offline));
    expect(ruled.match(/The summary judge is a fixed rule \(offline-summary-rule\), not a model: coverage = share of due facts/g)).toHaveLength(1);
    expect(ruled).not.toContain('reason: ');
    const llm = sampleRun();
    llm.info.protocol = protocolManifest([], { model: 'offline', judge: 'openai:judge', agent: 'direct', judgeSamples: 1 });
    const judged = section(renderReport(llm));
    expect(judged).not.toContain('fixed rule');
    expect(judged).toContain('<td>reason: faithfulness</td><td>invents B-7</td>');
  });

  it('shows at most MAX_SUMMARY_BLOCKS summaries, the worst graded first, and says where the rest are', () => {
    const transcripts = MAX_SUMMARY_BLOCKS + 30;
    // Judge overall 5 everywhere but transcript 7 (overall 1): that summary must be shown first.
    const run = bulkRun({ runId: 'r', strategies: ['a'], transcripts, probesPer: 1, passes: () => true, summaryOverall: (_s, t) => (t === 7 ? 1 : 5) });
    const html = renderReport(run);
    const section = html.slice(html.indexOf('<h2 id="summaries">'));
    expect(section).toContain(`Summaries (${transcripts})`);
    expect(section.match(/<details class="summary-rec">/g)).toHaveLength(MAX_SUMMARY_BLOCKS);
    expect(section).toContain(`Showing the ${MAX_SUMMARY_BLOCKS} of ${transcripts} summaries most worth a look`);
    expect(section.indexOf('a · bt7 · summary 1')).toBeLessThan(section.indexOf('a · bt0 · summary 1'));
    const few = renderReport(bulkRun({ runId: 'r', strategies: ['a'], transcripts: 3, probesPer: 1, passes: () => true, summaryOverall: () => 5 }));
    expect(few).not.toContain('most worth a look');
  });

  it('shows failure causes as stacked bars on one scale, beside the count table', () => {
    const html = renderReport(sampleRun());
    const bars = html.slice(html.indexOf('<svg class="chart bars"'), html.indexOf('<table class="attribution">'));
    const segs = [...bars.matchAll(/<rect class="seg" x="[\d.]+" y="\d+" width="([\d.]+)"[^>]*><title>([^<]*)<\/title>/g)].map((m) => [m[2], Number(m[1])]);
    // Per sample-run.ts, over both repeats: full 1 abstain-fail; trim-2 2 trimmed, 1 error; summ 1 lost-in-summary, 2 present-but-missed.
    expect(segs.map(([t]) => t)).toEqual(['full: abstain-fail 1', 'trim-2: trimmed 2', 'trim-2: error 1', 'summ: lost-in-summary 1', 'summ: present-but-missed 2']);
    const one = segs[0][1] as number;
    expect(segs.map(([, w]) => Math.round(((w as number) / one) * 100) / 100)).toEqual([1, 2, 1, 1, 2]); // one scale across rows
    expect(html).toContain('<table class="attribution">');
  });

  it('shades the probe-kind table by value with readable text', () => {
    const html = renderReport(sampleRun());
    const row = html.slice(html.indexOf('<table class="kinds">')).split('<tr>').find((r) => r.startsWith('<td>trim-2</td>'))!;
    // recall 0%, update 100%: lightest and darkest cells, dark and white text.
    expect(row).toContain('<td class="n heat" style="background:#f2f7fc;color:#1b1f24">0.0%</td>');
    expect(row).toContain('<td class="n heat" style="background:#08306b;color:#ffffff">100.0%</td>');
    expect(readableOn('#ffffff')).toBe('#1b1f24');
    expect(readableOn('#000000')).toBe('#ffffff');
  });

  it('keeps markup in a strategy id as text in every chart', () => {
    const html = renderReport(crowdedRun());
    expect(html).not.toContain(INJECTED);
    expect(html).not.toMatch(/<b\s/);
    expect(html).toContain(esc(INJECTED));
  });
});

describe('report.html in headless Chromium', () => {
  const browser = useChromium('reports-html');
  const dir = mkdtempSync(join(tmpdir(), 'memeval-html-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders charts with data points, keeps hostile text as text, logs no errors', async () => {
    const [path] = await htmlReporter.write(evilRun(), dir);
    expect(readFileSync(path, 'utf8').length).toBeGreaterThan(1000);
    const page = await browser().newPage();
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

    const charts = await page.$$eval('svg.chart', (svgs) => svgs.map((s) => ({ label: s.getAttribute('aria-label'), points: s.querySelectorAll('.pt').length, paths: s.querySelectorAll('path').length, bars: s.querySelectorAll('rect.seg').length })));
    expect(charts.map((c) => c.label)).toEqual(['failed probes by cause, per strategy', 'accuracy against mean context tokens', 'context tokens per turn for t1', 'context tokens per turn for t2']);
    expect(charts[0].bars).toBe(5);
    for (const c of charts.slice(1)) {
      expect(c.points, c.label ?? '').toBeGreaterThan(0);
      expect(c.paths, c.label ?? '').toBeGreaterThan(0);
    }
    expect(charts[1].points).toBe(3);
    expect(charts[2].points).toBe(12); // 3 strategies × 4 turns of t1
    expect(charts[3].points).toBe(4); // t2: full and trim-2 drawn once (2 turns), summ (2 turns)
    expect(await page.locator('svg.chart .pareto').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.chart circle.summary-event').count()).toBe(3); // summ: t1 turns 3, 4; t2 turn 2
    // Charts take the column's width, not a fixed 640 px.
    const widths = await page.$$eval('svg.chart', (svgs) => svgs.map((s) => s.getBoundingClientRect().width));
    expect(widths[1]).toBeGreaterThan(1000);

    // Open every collapsed block, then look for the hostile strings as visible text.
    await page.$$eval('details', (ds) => ds.forEach((d) => d.setAttribute('open', '')));
    const text = await page.locator('body').innerText();
    expect(text).toContain(SCRIPT);
    expect(text).toContain(IMG);
    expect(text).toContain(ATTR);
    expect(await page.getByText(`Refund ${SCRIPT}`).first().isVisible()).toBe(true);

    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    const handlers = await page.$$eval('*', (els) => els.flatMap((e) => Array.from(e.attributes, (a) => a.name)).filter((n) => n.startsWith('on')));
    expect(handlers).toEqual([]);
    await page.hover('text=Failures and errors');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
  it('places the crowded scatter labels without overlaps and keeps a strategy id with markup as text', async () => {
    const sub = mkdtempSync(join(dir, 'crowded-'));
    const [path] = await htmlReporter.write(crowdedRun(), sub);
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(pathToFileURL(path).href);
    const scatter = page.locator('svg[aria-label="accuracy against mean context tokens"]');
    const boxes = await scatter.evaluate((svg) =>
      Array.from(svg.querySelectorAll<SVGTextElement>('text.label'), (t) => {
        const b = t.getBBox();
        return { text: t.textContent ?? '', x: b.x, y: b.y, w: b.width, h: b.height };
      }),
    );
    expect(boxes.length).toBeGreaterThanOrEqual(6);
    const overlaps = boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h).map((b) => `${a.text} × ${b.text}`));
    expect(overlaps).toEqual([]);
    expect(await scatter.locator('.pt').count()).toBe(8);
    // Every strategy is named in the key under the chart, labelled or not.
    const key = await page.locator('table.chart-key').innerText();
    for (const id of CROWDED) expect(key).toContain(id);
    expect(boxes.map((b) => b.text)).toContain(INJECTED);
    expect(await page.locator('svg b, table.chart-key b').count()).toBe(0);
    // The y axis spans the data (16–28%, with CIs), not 0–100%.
    const ticks = await scatter.evaluate((svg) => Array.from(svg.querySelectorAll('text.ytick'), (t) => Number(t.getAttribute('data-v'))));
    expect(Math.min(...ticks)).toBeGreaterThan(0);
    expect(Math.max(...ticks)).toBeLessThan(0.5);
    // All eight lines of each transcript coincide: one path, named after all eight.
    const first = page.locator('svg[aria-label="context tokens per turn for bt0"]');
    expect(await first.locator('path.series').count()).toBe(1);
    expect(await first.locator('path.series title').textContent()).toBe(`${CROWDED.join(', ')} (identical)`);
    await page.hover('svg[aria-label="accuracy against mean context tokens"] text.label >> nth=0');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });
});
