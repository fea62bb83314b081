import { existsSync } from 'node:fs';
import type { ConsoleMessage, Page } from 'playwright-core';
import { expect } from 'vitest';
import { ACTION_TIMEOUT, CHROMIUM, NAVIGATION_TIMEOUT } from './chromium-launch.mjs';

/**
 * Chromium for the browser tests, made to hold on a loaded machine (2 cores shared with other test
 * runs): one launch per file, tried twice (chromium-launch.mjs), every action and navigation bounded
 * at a minute or more, page loads retried a bounded number of times (a load, never an assertion), each
 * test waiting for the condition it needs (`pageUntil`, expect.poll, a locator's wait), never a sleep.
 */
export { ACTION_TIMEOUT, CHROMIUM, launchChromium, NAVIGATION_TIMEOUT, newTab } from './chromium-launch.mjs';
export const haveChromium = existsSync(CHROMIUM);

/**
 * Per test and per hook in a file that drives Chromium (vi.setConfig at the top of each file): a test
 * makes several waits, each bounded by ACTION_TIMEOUT, and its launch is bounded by twice LAUNCH_TIMEOUT.
 */
export const BROWSER_TEST_TIMEOUT = 240_000;

/** How long a test waits for a page to get where it should (a redraw, a status line): a minute. */
export const PAGE_WAIT = ACTION_TIMEOUT;

/**
 * Loads `url` in `page`, again up to twice more when the load itself fails or times out (a starved
 * renderer), each attempt bounded by NAVIGATION_TIMEOUT; what the page then shows is for the test to
 * assert, once.
 */
export async function gotoPage(page: Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url, { waitUntil: 'load', timeout: NAVIGATION_TIMEOUT });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

/**
 * Asks the page until the answer satisfies `ok`, within PAGE_WAIT; a question that throws (a
 * navigation in between) is one more try. Returns the answer that satisfied it.
 */
export async function pageUntil<T>(ask: () => Promise<T>, ok: (value: T) => boolean, timeout = PAGE_WAIT): Promise<T> {
  let last: T | undefined;
  await expect
    .poll(
      async () => {
        last = await ask().catch(() => undefined);
        return last !== undefined && ok(last);
      },
      { timeout, interval: 100 },
    )
    .toBe(true);
  return last as T;
}

/**
 * Whether a console message comes from a server's page drawn in the trace page's sandboxed frame
 * (srcdoc): Chromium reports there each script, load and style the sandbox and the CSP refused.
 */
export function fromServerPage(message: ConsoleMessage): boolean {
  const { url } = message.location();
  return url === 'about:srcdoc' || url === 'about:blank';
}
