import type { Browser, Page } from 'playwright-core';
import { fromServerPage, gotoPage, newTab, pageUntil } from './chromium.js';

/** The line `--ui` prints on stderr with its page's address. */
export const UI_URL = /^ui: (http:\/\/127\.0\.0\.1:\d+\/ui\/[\w-]+\/)$/m;

/**
 * Opens a `--ui` page; `problems` collects its console errors, CSP refusals and script errors (a
 * server's page in its sandboxed frame excepted: Chromium reports there what the sandbox refused).
 */
export async function openUiPage(browser: Browser, url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await newTab(browser, { viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => !fromServerPage(m) && (m.type() === 'error' || /Content Security Policy|Refused/.test(m.text())) && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await gotoPage(page, url);
  return { page, problems };
}

/** The page's status line: running, waiting for you, finished, failed. */
export const uiStatus = (page: Page): Promise<string | null> => page.locator('#status').textContent({ timeout: 1000 });

/**
 * Walks a `--step` run on its page: at each stop, `atStop` (given the stop's title) may look and
 * edit, then Send is clicked; returns the titles of the stops once the command has ended. A stop asked
 * again (an edit refused) is a new stop.
 */
export async function walkSteps(page: Page, atStop: (title: string) => Promise<void> = async () => undefined): Promise<string[]> {
  const stops: string[] = [];
  let last = '';
  for (;;) {
    const { held, status } = await pageUntil(
      async () => ({ held: (await page.getAttribute('#step', 'data-held', { timeout: 1000 })) ?? '', status: (await uiStatus(page)) ?? '' }),
      ({ held, status }) => (held !== '' && held !== last) || /finished|failed/.test(status),
    );
    if (/finished|failed/.test(status) && (held === '' || held === last)) return stops;
    last = held;
    const title = (await page.locator('#held-title').textContent()) ?? '';
    stops.push(title);
    await atStop(title);
    await Promise.all([page.waitForEvent('domcontentloaded'), page.click('#step button[value="send"]')]);
  }
}
