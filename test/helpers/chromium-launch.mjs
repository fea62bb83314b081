// Launching Debian's Chromium for the tests, shared by chromium.ts (the test files) and
// chromium-user.mjs (the person at a browser that oauthctl starts): one place for the flags, the
// bounds that hold on a loaded 2-core machine, and the one retry of a launch that did not start.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Each launch may take this long: a starved machine starts Chromium in tens of seconds, not one. */
export const LAUNCH_TIMEOUT = 90_000;
/** Each action (a click, a fill, a locator's wait): Playwright's own 30 s was missed on a loaded machine. */
export const ACTION_TIMEOUT = 60_000;
/** Each navigation (a goto, a click that loads a page). */
export const NAVIGATION_TIMEOUT = 90_000;

const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

/** Launches Chromium; a launch that fails (a timeout, a crash at start) is tried once more. */
export async function launchChromium() {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: LAUNCH_TIMEOUT });
  } catch {
    return await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: LAUNCH_TIMEOUT });
  }
}

/** A page with the bounds above for every action and navigation on it. */
export async function newTab(browser, options = {}) {
  const page = await browser.newPage(options);
  page.setDefaultTimeout(ACTION_TIMEOUT);
  page.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT);
  return page;
}
