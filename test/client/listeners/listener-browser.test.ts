import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT, haveChromium, launchChromium, newTab } from '../../helpers/chromium.js';
import { startRedirectListener } from '../../../src/client/listeners/listener.js';

// The fragment relay page runs JavaScript: check it in a real browser (Debian's Chromium).
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
const hasChromium = haveChromium;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasChromium)('listener in Chromium', () => {
  it('a fragment response is posted back by the page and captured', async () => {
    const listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback' });
    try {
      const page = await newTab(browser!);
      const waiting = listener.waitForRedirect();
      await page.goto(`${listener.redirectUri}#code=frag-code&state=st%20ate&iss=https%3A%2F%2Fas`);
      const capture = await waiting;
      expect(capture.via).toBe('fragment');
      expect(capture.params).toEqual({ code: 'frag-code', state: 'st ate', iss: 'https://as' });
      await page.getByText('Authorization received').waitFor();
      // The fragment is gone from the address bar once handed over.
      expect(page.url()).toBe(listener.redirectUri);
      await page.close();
    } finally {
      await listener.close();
    }
  });

  it('a query response shows the success page', async () => {
    const listener = await startRedirectListener({ redirectUri: 'http://localhost/callback' });
    try {
      const page = await newTab(browser!);
      const waiting = listener.waitForRedirect();
      await page.goto(`${listener.redirectUri}?code=c&state=s`);
      expect((await waiting).params).toEqual({ code: 'c', state: 's' });
      expect(await page.textContent('h1')).toBe('Authorization received');
      await page.close();
    } finally {
      await listener.close();
    }
  });

  it('an empty redirect page says it waits, without ending the flow', async () => {
    const listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback' });
    try {
      const page = await newTab(browser!);
      let done = false;
      const waiting = listener.waitForRedirect().then((c) => {
        done = true;
        return c;
      });
      await page.goto(listener.redirectUri);
      await page.getByText('carried no parameters').waitFor();
      expect(done).toBe(false);
      await page.goto(`${listener.redirectUri}?code=late&state=s`);
      expect((await waiting).params.code).toBe('late');
      await page.close();
    } finally {
      await listener.close();
    }
  });
});
