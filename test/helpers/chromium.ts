import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

/**
 * Chromium for the browser tests, made to hold on a loaded machine (2 cores shared with other test
 * runs): one launch per file with a launch timeout that a busy machine meets, page loads retried a
 * bounded number of times (a load, never an assertion), and test timeouts sized for Chromium.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** Per test and per hook in a file that drives Chromium: a page load or a click can take seconds under load. */
export const BROWSER_TEST_TIMEOUT = 90_000;

const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Launches the file's one Chromium (call it in beforeAll, close it in afterAll). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: 60_000 });
}

/**
 * Loads `url` in `page`, again up to twice more when the load itself fails or times out (a starved
 * renderer), each attempt allowed 30 s; what the page then shows is for the test to assert, once.
 */
export async function gotoPage(page: Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}
