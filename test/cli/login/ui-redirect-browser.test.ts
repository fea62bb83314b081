// `login --ui --step` in Chromium for a person debugging a redirect: an edited redirect_uri is
// followed by the listener (same port, new path; or a new loopback port) or refused with the reason on
// the page and the terminal; the server's error page (the mock's lists the registered redirect URIs) is
// drawn in a sandboxed frame. The built CLI against the mock, Debian's Chromium through playwright-core.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMockServer, type MockConfigInput } from '../../../src/mock/index.js';
import { BROWSER_TEST_TIMEOUT, CHROMIUM, haveChromium, launchChromium, PAGE_WAIT } from '../../helpers/chromium.js';
import { startCli, stopAllClis, type RunningCli } from '../../helpers/live-cli.js';
import { openUiPage, UI_URL, uiStatus, walkSteps } from '../../helpers/ui-page.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
if (!haveChromium) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);

/** A public client with two redirect paths registered (any port on loopback, RFC 8252 section 7.3). */
const CONFIG = { clients: [{ client_id: 'two-paths', redirect_uris: ['http://127.0.0.1/callback', 'http://127.0.0.1/other'], token_endpoint_auth_method: 'none' }] } as MockConfigInput;
const LOGIN = ['login', '--client-id', 'two-paths', '--scope', 'openid', '--headless', '--username', 'alice', '--password', 'wonderland', '--ui', '--step', '--ui-keep', '300'];
const AUTHORIZATION_STOP = 'Waiting for you: authorization request';

describe.skipIf(!haveChromium)('--ui --step: an edited redirect_uri, in Chromium', () => {
  let browser: Browser;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterEach(async () => {
    await stopAllClis();
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Starts the login against a fresh mock and opens its page. */
  async function start(): Promise<{ cli: RunningCli; page: Page; problems: string[]; mock: Awaited<ReturnType<typeof createMockServer>> }> {
    const mock = await createMockServer(CONFIG);
    closers.push(() => mock.close());
    const cli = startCli([...LOGIN, '--issuer', mock.issuer]);
    const [, url] = await cli.waitForStderr(UI_URL);
    const opened = await openUiPage(browser, url!);
    closers.push(() => opened.page.close());
    return { cli, mock, ...opened };
  }

  /** Sets redirect_uri at the authorization request's stop, from the one the client chose. */
  const editRedirectUri = (page: Page, edit: (chosen: URL) => string) => async (title: string) => {
    if (!title.startsWith(AUTHORIZATION_STOP)) return;
    const field = page.locator('input[aria-label="redirect_uri"]');
    const chosen = new URL(await field.inputValue());
    await field.fill(edit(chosen));
  };

  const summaries = (page: Page) => page.locator('details.exchange > summary').allTextContents();

  it('a new path on the listener’s port is followed: the redirect arrives there and the token request names it', async () => {
    const { cli, page, problems } = await start();
    let moved = '';
    await walkSteps(
      page,
      editRedirectUri(page, (chosen) => (moved = `http://127.0.0.1:${chosen.port}/other`)),
    );
    expect(await uiStatus(page)).toBe('The command finished.');
    expect(cli.stderr()).toContain(`the listener now waits for the redirect at ${moved}`);
    const lines = await summaries(page);
    expect(lines.find((l) => l.includes('(listener, callback'))).toMatch(/GET \/other \(state=/);
    expect(lines.find((l) => l.includes('POST /token'))).toContain(`redirect_uri=${moved}`);
    expect(problems).toEqual([]);
    await cli.stop();
  });

  it('another loopback port is followed by a listener there', async () => {
    const { cli, page, problems } = await start();
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const moved = `http://127.0.0.1:${port}/callback`;
    await walkSteps(
      page,
      editRedirectUri(page, () => moved),
    );
    expect(await uiStatus(page)).toBe('The command finished.');
    expect((await summaries(page)).find((l) => l.includes('(listener, callback'))).toBeDefined();
    expect(cli.stderr()).toContain(`the listener now waits for the redirect at ${moved}`);
    expect(problems).toEqual([]);
    await cli.stop();
  });

  it('a URI no listener can receive is refused, one line on the page and the terminal, and the request asked again', async () => {
    const { cli, page, problems } = await start();
    const refusal = 'redirect_uri "https://app.example/callback" was not sent: oauthctl can receive a redirect only at a loopback http URI (RFC 8252 section 7.3), such as http://127.0.0.1:PORT/path';
    let asked = 0;
    const stops = await walkSteps(page, async (title) => {
      if (!title.startsWith(AUTHORIZATION_STOP)) return;
      asked++;
      if (asked === 1) {
        await page.fill('input[aria-label="redirect_uri"]', 'https://app.example/callback');
        return;
      }
      // Asked again, as it was, with the reason above the form.
      expect(await page.locator('#step [role="alert"]').textContent()).toBe(refusal);
      expect(await page.inputValue('input[aria-label="redirect_uri"]')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    });
    expect(asked).toBe(2);
    expect(stops.filter((s) => s.startsWith(AUTHORIZATION_STOP))).toHaveLength(2);
    expect(await uiStatus(page)).toBe('The command finished.');
    expect(cli.stderr()).toContain(`warning: ${refusal}`);
    expect(problems).toEqual([]);
    await cli.stop();
  });

  it('a path the server does not know: its error page is drawn in a sandbox, listing the registered URIs, its source beside it', async () => {
    const { cli, page, problems } = await start();
    await walkSteps(
      page,
      editRedirectUri(page, (chosen) => `http://127.0.0.1:${chosen.port}/typo`),
    );
    await expect.poll(() => uiStatus(page), { timeout: PAGE_WAIT }).toMatch(/^The command failed/);
    // The failure is the server's, and said to be.
    expect(cli.stderr()).toMatch(/headless login stopped at http:\/\/127\.0\.0\.1:\d+\/authorize: the server answered HTTP 400/);
    const failed = page.locator('details.exchange.failed', { has: page.locator(':scope > summary', { hasText: '(user-agent, authorization' }) });
    const frame = failed.locator('iframe.server-page');
    expect(await frame.getAttribute('sandbox')).toBe('');
    await expect.poll(() => frame.contentFrame().locator('body').innerText(), { timeout: PAGE_WAIT }).toContain('http://127.0.0.1/other');
    const text = await frame.contentFrame().locator('body').innerText();
    expect(text).toMatch(/redirect_uri 'http:\/\/127\.0\.0\.1:\d+\/typo' is not registered for client 'two-paths'/);
    expect(text).toContain('http://127.0.0.1/callback');
    await failed.locator('details.source > summary').click();
    expect(await failed.locator('details.source pre').textContent()).toMatch(/^<!doctype html>/i);
    expect(problems).toEqual([]);
    await cli.stop();
  });
});
