import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT, CHROMIUM, haveChromium, launchChromium, newTab, PAGE_WAIT } from '../../helpers/chromium.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { authorizeUrl, pkceRequest, pkceTokens, startMock } from '../helpers.js';

if (!haveChromium) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);

/** WCAG 2.x contrast ratio of the text and background colours of elements, computed in the page. */
const CONTRASTS = `(selector) => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (el) => { for (let e = el; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c; } return 'rgb(255, 255, 255)'; };
  return [...document.querySelectorAll(selector)].map((el) => { const a = lum(rgb(getComputedStyle(el).color)); const b = lum(rgb(background(el))); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); });
}`;

describe.skipIf(!haveChromium)('the flows page in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function open(url: string, colorScheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; problems: string[] }> {
    const page = await newTab(browser, { colorScheme });
    const problems: string[] = [];
    // The favicon's 404 aside (the mock has none), as in the login pages' browser test.
    page.on('console', (m) => (m.type() === 'error' || /Content Security Policy|Refused/.test(m.text())) && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(url);
    return { page, problems };
  }

  it('reads as headings, a labelled list of parameters and captioned tables, with no CSP violation', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await pkceTokens(server);
    const { page, problems } = await open(`${server.authUrl}/_mock/?refresh=off`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.title()).toBe('Recent flows · oauthctl mock');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Recent flows');
    const flowHeading = page.getByRole('heading', { level: 2, name: /^Flow \d+: photo-cli, tokens issued$/ });
    expect(await flowHeading.count()).toBe(1);
    const flow = /Flow (\d+)/.exec((await flowHeading.textContent())!)![1];
    // The section is named by its heading, the parameters by theirs, the steps table by its caption.
    expect(await page.getByRole('region', { name: /^Flow \d+/ }).count()).toBe(1);
    expect(await page.getByRole('term').first().textContent()).toBe('response_type');
    const table = page.getByRole('table', { name: `Steps of flow ${flow}` });
    const headers = await table.getByRole('columnheader').allTextContents();
    expect(headers).toEqual(['#', 'Time', 'Request', 'Status', 'Outcome', 'Details']);
    const outcomes = await table.locator('tbody tr td:nth-child(5)').allTextContents();
    expect(outcomes).toEqual(['code issued', 'tokens issued']);
    // Styled by the stylesheet alone (the only style source the CSP allows).
    expect(await page.evaluate("getComputedStyle(document.querySelector('.flow')).borderRadius")).toBe('12px');
    expect(problems).toEqual([]);
    await page.close();
  });

  it.each(['light', 'dark'] as const)('has text contrast of at least 4.5:1 in the %s scheme', async (scheme) => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await pkceTokens(server);
    await fetch(`${server.authUrl}/jwks`);
    const { page } = await open(`${server.authUrl}/_mock/?refresh=off`, scheme);
    const ratios = (await page.evaluate(`(${CONTRASTS})('h1, h2, h3, p, dt, dd, th, td, caption, a')`)) as number[];
    expect(ratios.length).toBeGreaterThan(20);
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(4.5);
    await page.close();
  });

  it('updates itself: a flow that starts while the page is open appears without a reload by the user', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const { page, problems } = await open(`${server.authUrl}/_mock/`);
    expect(await page.getByText('No authorization request yet.').count()).toBe(1);
    // The mark stays only if the page is redrawn in place (its events), not reloaded (the meta refresh, without JavaScript).
    await page.evaluate(() => ((globalThis as { loadedOnce?: boolean }).loadedOnce = true));
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { state: 'while-open' })), { redirect: 'manual' });
    await page.waitForSelector('text=while-open', { timeout: PAGE_WAIT });
    expect(await page.evaluate(() => (globalThis as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    expect(await page.getByRole('heading', { level: 2, name: /photo-cli, code issued/ }).count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });
});
