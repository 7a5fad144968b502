// Debian's Chromium for the browser tests: launched once per describe block.
// CI must exercise the reports in a real browser, so there a missing browser
// fails every test; a developer without it gets a skip that says why.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
const NO_CHROMIUM = `${CHROMIUM} not found: install Debian's chromium package (apt-get install chromium)`;

/** Registers the hooks of a browser describe block; call the result inside a test for the browser. */
export function useChromium(label: string): () => Browser {
  const have = existsSync(CHROMIUM);
  const required = Boolean(process.env.CI);
  if (!have && !required) console.warn(`${label}: skipping the browser test: ${NO_CHROMIUM}`);
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (have) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach((ctx) => {
    if (have) return;
    if (required) throw new Error(NO_CHROMIUM);
    ctx.skip(NO_CHROMIUM);
  });
  return () => {
    if (!browser) throw new Error(NO_CHROMIUM);
    return browser;
  };
}
