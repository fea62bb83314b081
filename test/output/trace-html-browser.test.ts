// The page of `oauthctl trace FILE --html OUT` in Chromium: it loads with no console error
// and no CSP violation, at a wide and a narrow width (screenshots), in light and dark mode; every
// arrow has an accessible name and opens its exchange's request and response, with no script.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMockServer } from '../../src/mock/index.js';
import { runCli } from '../daily/helpers/io.js';
import { homeEnv } from '../helpers/cli.js';
import { BROWSER_TEST_TIMEOUT, CHROMIUM, fromServerPage, gotoPage, haveChromium, launchChromium, newTab, PAGE_WAIT } from '../helpers/chromium.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
if (!haveChromium) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);

describe.skipIf(!haveChromium)('the trace page in Chromium', () => {
  let browser: Browser;
  let dir: string;
  let page: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oauthctl-trace-html-'));
    const env = homeEnv(dir);
    const mock = await createMockServer({});
    try {
      // A login that works, then a refresh the server refuses: the page has a failing step to mark.
      const har = join(dir, 'flow.har');
      const login = await runCli(
        ['login', '--issuer', mock.issuer, '--client-id', 'photo-cli', '--scope', 'openid photo offline_access', '--headless', '--username', 'alice', '--password', 'wonderland', '--trace', har],
        env,
      );
      expect(login.code, login.stderr).toBe(0);
      await mock.enqueue({ endpoint: 'token', status: 400, error: 'invalid_grant', error_description: 'refresh token <b>revoked</b>' });
      const refresh = await runCli(['refresh', '--issuer', mock.issuer, '--client-id', 'photo-cli', '--trace', join(dir, 'refresh.har')], env);
      expect(refresh.code).toBe(1);
      // One file with both: the entries of the refresh after those of the login.
      const a = JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: unknown[] } };
      const b = JSON.parse(readFileSync(join(dir, 'refresh.har'), 'utf8')) as { log: { entries: unknown[] } };
      a.log.entries.push(...b.log.entries);
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(dir, 'both.har'), JSON.stringify(a));
      page = join(dir, 'flow.html');
      const r = await runCli(['trace', join(dir, 'both.har'), '--html', page], env);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await mock.close();
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<{ tab: Page; problems: string[] }> {
    const tab = await newTab(browser, { viewport: { width, height: 900 }, colorScheme });
    const problems: string[] = [];
    // The server's pages (the login form) are drawn in a sandbox that refuses their styles and scripts: Chromium says so, in their frame.
    tab.on('console', (m) => !fromServerPage(m) && (m.type() === 'error' || m.type() === 'warning' || /Content Security Policy|Refused/.test(m.text())) && problems.push(m.text()));
    tab.on('pageerror', (e) => problems.push(e.message));
    tab.on('request', (req) => !req.url().startsWith('file:') && problems.push(`request to ${req.url()}`));
    await gotoPage(tab, `file://${page}`);
    return { tab, problems };
  }

  it.each([1280, 420])('loads at %i px wide with no console error and no CSP violation (screenshot)', async (width) => {
    const { tab, problems } = await open(width);
    expect(await tab.title()).toBe('oauthctl trace of both.har');
    const shot = await tab.screenshot({ fullPage: true });
    expect(shot.length).toBeGreaterThan(10_000);
    expect(await tab.locator('svg.seq').count()).toBe(1);
    // The diagram scrolls inside its box on a narrow screen; the page itself does not.
    expect(await tab.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')).toBe(true);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('every arrow is a link with an accessible name; the failing step is marked', async () => {
    const { tab, problems } = await open(1280);
    const arrows = tab.locator('svg.seq a');
    const count = await arrows.count();
    expect(count).toBeGreaterThanOrEqual(18);
    const names = await arrows.evaluateAll((as) => as.map((a) => a.getAttribute('aria-label') ?? ''));
    expect(names.every((n) => /^\d+\. (user agent|client|authorization server) to (user agent|client|authorization server): /.test(n))).toBe(true);
    expect(await tab.getByRole('link', { name: /client to authorization server: POST \/token \(grant_type=refresh_token, client_id=photo-cli\)/ }).count()).toBe(1);
    expect(await tab.getByRole('link', { name: /authorization server to client: response 400 \(error=invalid_grant, error_description=refresh token <b>revoked<\/b>\), failed/ }).count()).toBe(1);
    expect(await tab.getByRole('alert').textContent()).toMatch(/The flow failed at exchange \d+, refresh: HTTP 400, invalid_grant/);
    // Remote text is text: the server's <b> is not a tag.
    expect(await tab.locator('details.exchange b').count()).toBe(0);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('an arrow opens its request and response (no script: the link reveals its <details>)', async () => {
    const { tab, problems } = await open(1280);
    const token = tab.getByRole('link', {
      name: /client to authorization server: POST \/token \(grant_type=authorization_code, client_id=photo-cli, redirect_uri=http:\/\/127\.0\.0\.1:\d+\/callback\)/,
    });
    const ref = (await token.getAttribute('href'))!.slice(1);
    const details = tab.locator(`details:has(#${ref})`);
    const isOpen = () => details.evaluate((d) => (d as unknown as { open: boolean }).open);
    expect(await isOpen()).toBe(false);
    await token.click();
    // The browser opens the <details> as it follows the fragment: waited for, not assumed done.
    await expect.poll(isOpen, { timeout: PAGE_WAIT }).toBe(true);
    await expect.poll(() => tab.url(), { timeout: PAGE_WAIT }).toMatch(new RegExp(`#${ref}$`));
    const body = await tab.locator(`#${ref}`).textContent();
    expect(body).toContain('grant_type');
    expect(body).toContain('[redacted');
    expect(body).toContain('HTTP 200');
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('numbers the exchanges 1 to N, N being the count it gives (a redirect recorded twice is one exchange)', async () => {
    const { tab } = await open(1280);
    const count = Number(/^(\d+) HTTP exchanges/.exec((await tab.locator('main > p.muted').first().textContent()) ?? '')?.[1]);
    const numbers = (await tab.locator('details.exchange > summary').allTextContents()).map((s) => Number(/^(\d+)\./.exec(s)?.[1]));
    expect(numbers).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    // Each arrow's link goes to an exchange that is on the page.
    const refs = await tab.locator('svg.seq a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    for (const ref of new Set(refs)) expect(await tab.locator(ref).count(), ref).toBe(1);
    await tab.close();
  });

  it("draws the server's login page in a sandboxed frame (no script runs, nothing loads), its source a click away", async () => {
    const { tab, problems } = await open(1280);
    const login = tab.locator('details.exchange', { has: tab.locator('summary', { hasText: '(user-agent, authorization' }) }).first();
    await login.locator(':scope > summary').click();
    const frame = login.locator('iframe.server-page');
    expect(await frame.getAttribute('sandbox')).toBe('');
    // Drawn as a page: its words, not its markup.
    await expect.poll(() => frame.contentFrame().locator('body').innerText(), { timeout: PAGE_WAIT }).toMatch(/Sign in/);
    expect(await frame.contentFrame().locator('form').count()).toBeGreaterThan(0);
    // The source is kept, as text.
    await login.locator('details.source > summary').click();
    expect(await login.locator('details.source pre').textContent()).toMatch(/<form/);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('reads in dark mode: light text on a dark page', async () => {
    const { tab } = await open(1280, 'dark');
    const [fg, bg] = (await tab.evaluate('[getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor]')) as string[];
    const lum = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).reduce((s, v) => s + Number(v), 0);
    expect(lum(fg!)).toBeGreaterThan(lum(bg!));
    await tab.close();
  });

  it('prints: every exchange is in the PDF, open or not', async () => {
    const { tab } = await open(1280);
    await tab.emulateMedia({ media: 'print' });
    const hidden = await tab.evaluate("[...document.querySelectorAll('details.exchange:not([open]) .exchange-body')].filter((e) => e.getBoundingClientRect().height === 0).length");
    expect(hidden).toBe(0);
    expect((await tab.pdf()).length).toBeGreaterThan(10_000);
    await tab.close();
  });
});
