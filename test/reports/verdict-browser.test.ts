import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../core/types.js';
import { summarize } from '../../reports/aggregate.js';
import { page } from '../../reports/html.js';
import { verdictSection } from '../../reports/verdict.js';
import { bulkRun } from '../helpers/sample-run.js';
import { useChromium } from '../helpers/browser.js';


const SCREEN = { width: 1400, height: 900 };

/** Six strategies with long ids, one significantly worse: a crowded verdict, the case most likely to spill off the first screen. */
function crowdedRun(): RunResult {
  const strategies = ['full-history-baseline', 'trimming-last-twelve-turns', 'trimming-last-six-turns', 'summarizing-rolling-window', 'summarizing-hierarchical', 'trimming-last-two-turns'];
  // 80 probes: with no pass→fail flip, 60 or more pairs bound the loss below 5 points (one-sided 95%).
  const run = bulkRun({ runId: 'r', strategies, transcripts: 20, probesPer: 4, passes: (s, t, p) => s !== 'trimming-last-two-turns' || !(p < 2 && t < 6) });
  strategies.forEach((id, i) => {
    for (const t of run.turns) if (t.strategy === id) t.contextTokens = Math.round(t.contextTokens * (1 - i * 0.15));
  });
  return run;
}

describe('verdict section in headless Chromium', () => {
  const browser = useChromium('verdict-browser');

  it('shows the recommendation sentence and the whole section on the first 1,400 × 900 screen, with no console errors', async () => {
    const run = crowdedRun();
    const tab = await browser().newPage({ viewport: SCREEN });
    const problems: string[] = [];
    tab.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    tab.on('pageerror', (e) => problems.push(e.message));
    await tab.setContent(page('memeval verdict', verdictSection(run, summarize(run))), { waitUntil: 'load' });

    const sentence = tab.locator('#verdict-headline');
    await expect(sentence.innerText()).resolves.toContain('Recommendation: summarizing-hierarchical');
    const box = await sentence.boundingBox();
    expect(box).not.toBeNull();
    const b = box as { x: number; y: number; width: number; height: number };
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.y).toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(SCREEN.width);
    expect(b.y + b.height).toBeLessThanOrEqual(SCREEN.height);

    // The compact table belongs on the first screen too, and nothing may scroll sideways.
    const section = (await tab.locator('section.verdict').boundingBox()) as { y: number; height: number };
    expect(section.y + section.height).toBeLessThanOrEqual(SCREEN.height);
    expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SCREEN.width);
    expect(await tab.locator('.verdict-table .sig.bad').count()).toBe(1);
    expect(problems).toEqual([]);
    await tab.close();
  });
});
