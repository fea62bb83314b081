import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT, haveChromium, launchChromium, newTab } from '../helpers/chromium.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
import { DEVICE_CODE_GRANT } from '../../src/oauth/grant-types.js';
import { postForm, startMock } from './helpers.js';

describe.skipIf(!haveChromium)('the device verification page in Chromium (RFC 8628 section 3.3)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('typing the code (any case, no dash), confirming, signing in and allowing approves the device', async () => {
    const server = await startMock({ device_interval: 1 });
    const { body } = await postForm(`${server.authUrl}/device_authorization`, { client_id: 'photo-cli', scope: 'photo' });
    const page = await newTab(browser);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()));
    await page.goto(String(body.verification_uri));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Connect a device');
    await page.getByLabel('Code').fill(String(body.user_code).replace('-', '').toLowerCase());
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/\/device\?user_code=/);
    expect(await page.textContent('.code')).toBe(String(body.user_code));
    expect(await page.textContent('main')).toMatch(/Photo CLI/);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Account name').fill('alice');
    await page.getByLabel('Password').fill('wonderland');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Device connected');
    expect(errors).toEqual([]);
    const tokens = await postForm(`${server.authUrl}/token`, { grant_type: DEVICE_CODE_GRANT, device_code: String(body.device_code), client_id: 'photo-cli' });
    expect(tokens.status).toBe(200);
    await page.close();
  });

  it('verification_uri_complete opens the confirmation; Cancel denies; a wrong code shows a clear page', async () => {
    const server = await startMock({ device_interval: 1 });
    const { body } = await postForm(`${server.authUrl}/device_authorization`, { client_id: 'photo-cli', scope: 'photo' });
    const page = await newTab(browser);
    await page.goto(String(body.verification_uri_complete));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Access denied');
    const denied = await postForm(`${server.authUrl}/token`, { grant_type: DEVICE_CODE_GRANT, device_code: String(body.device_code), client_id: 'photo-cli' });
    expect(denied.body.error).toBe('access_denied');
    const response = await page.goto(`${server.authUrl}/device?user_code=ZZZZ-ZZZZ`);
    expect(response?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toMatch(/no sign-in waiting for this code/);
    await page.close();
  });
});
