import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT, CHROMIUM, haveChromium, launchChromium, newTab } from '../helpers/chromium.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
import { createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, pkceRequest, startMock } from './helpers.js';

if (!haveChromium) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!haveChromium)('login and consent pages in Chromium', () => {
  let browser: Browser;
  let app: Server;
  let callback: string;

  beforeAll(async () => {
    browser = await launchChromium();
    // The client's loopback redirect listener: shows what the redirect carried.
    app = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`callback ${req.url}`);
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.close(resolve));
  });

  async function open(server: Awaited<ReturnType<typeof startMock>>, overrides: Record<string, string> = {}): Promise<Page> {
    const page = await newTab(browser);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()));
    await page.goto(authorizeUrl(server, pkceRequest(createPkcePair(), { redirect_uri: callback, scope: 'photo offline_access', ...overrides })));
    expect(errors).toEqual([]);
    return page;
  }

  it('signs in with labelled fields, consents with Allow, and lands on the redirect with code, state and iss', async () => {
    const server = await startMock();
    const page = await open(server);
    expect(await page.title()).toMatch(/Sign in/);
    await page.getByLabel('Account name').fill('alice');
    await page.getByLabel('Password').fill('wonderland');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/consent\?/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow access?');
    const scopes = await page.getByRole('list', { name: 'Requested permissions' }).textContent();
    expect(scopes).toMatch(/photo/);
    expect(scopes).toMatch(/offline_access/);
    expect(await page.textContent('main')).toMatch(/Photo CLI/);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('code')).toBeTruthy();
    expect(url.searchParams.get('state')).toBe('state-123');
    expect(url.searchParams.get('iss')).toBe(server.issuer);
    await page.close();
  });

  it('a wrong password shows one alert and keeps the account name', async () => {
    const server = await startMock();
    const page = await open(server);
    await page.getByLabel('Account name').fill('alice');
    await page.getByLabel('Password').fill('not-it');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('[role=alert]');
    expect(await page.getByRole('alert').textContent()).toBe('Incorrect account name or password.');
    expect(await page.getByLabel('Account name').inputValue()).toBe('alice');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await page.close();
  });

  it('works with the keyboard alone: focus starts in the account name, Tab moves on, Enter submits, Deny refuses', async () => {
    const server = await startMock();
    const page = await open(server);
    // Chromium applies autofocus in a task of its own after the load, later on a busy machine.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('username');
    await page.keyboard.type('alice');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('password');
    await page.keyboard.type('wonderland');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/consent\?/);
    // Tab to Allow, then to Deny; the focused button shows an outline (focus visible).
    let name: unknown = '';
    for (let i = 0; i < 10 && name !== 'Deny'; i++) {
      await page.keyboard.press('Tab');
      name = await page.evaluate("document.activeElement?.textContent ?? ''");
    }
    expect(name).toBe('Deny');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).toBe('solid');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/callback\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('state-123');
    await page.close();
  });

  it('an invalid redirect URI shows an error page and stays on the server', async () => {
    const server = await startMock();
    const page = await open(server, { redirect_uri: 'https://evil.example/callback' });
    expect(page.url().startsWith(server.issuer)).toBe(true);
    expect(await page.getByRole('alert').textContent()).toMatch(/not registered/);
    await page.close();
  });

  it('the pages load with no CSP violation, styled by the stylesheet alone', async () => {
    const server = await startMock();
    const page = await newTab(browser);
    const violations: string[] = [];
    page.on('console', (m) => /Content Security Policy|Refused/.test(m.text()) && violations.push(m.text()));
    await page.goto(authorizeUrl(server, pkceRequest(createPkcePair(), { redirect_uri: callback })));
    // The stylesheet applied (it is the only style source the CSP allows).
    expect(await page.evaluate("getComputedStyle(document.querySelector('main')).borderRadius")).toBe('12px');
    expect(violations).toEqual([]);
    await page.close();
  });
});
