// `--ui` and `--step` in Chromium: the built CLI runs against the mock (or a hostile server) and the
// page it prints is opened in Debian's Chromium through playwright-core, as the other page tests do.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMockServer } from '../../../src/mock/index.js';
import { BROWSER_TEST_TIMEOUT, CHROMIUM, haveChromium, launchChromium, PAGE_WAIT, pageUntil } from '../../helpers/chromium.js';
import { ROOT } from '../../helpers/cli.js';
import { startCli, stopAllClis } from '../../helpers/live-cli.js';
import { openUiPage, UI_URL, uiStatus as status, walkSteps } from '../../helpers/ui-page.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
if (!haveChromium) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);

const LOGIN = ['login', '--client-id', 'photo-cli', '--scope', 'openid photo', '--headless', '--username', 'alice', '--password', 'wonderland'];

/** What the tests read of the page's globals (the functions run in the page; the casts are for TypeScript only). */
interface PageGlobals {
  loadedOnce?: boolean;
  pwned?: number;
}

describe.skipIf(!haveChromium)('--ui and --step in Chromium', () => {
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

  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const opened = await openUiPage(browser, url);
    closers.push(() => opened.page.close());
    return opened;
  }

  it('login --ui --headless: the page draws each exchange as it happens, without a reload, the ID token decoded', async () => {
    const mock = await createMockServer({});
    closers.push(() => mock.close());
    // The token endpoint, through a relay that holds the token request until the test lets it go:
    // the page is open, and has drawn the rest, while the flow waits there.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const relay = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void released
          .then(() => fetch(`${mock.issuer}/token`, { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: Buffer.concat(chunks) }))
          .then(async (answer) => res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text()));
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => relay.close(() => resolve())));
    const tokenEndpoint = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/token`;
    const cli = startCli([...LOGIN, '--issuer', mock.issuer, '--token-endpoint', tokenEndpoint, '--ui', '--ui-keep', '300']);
    const [, url] = await cli.waitForStderr(UI_URL);
    const { page, problems } = await open(url!);
    await page.evaluate(() => ((globalThis as PageGlobals).loadedOnce = true));
    // Drawn as it happened: the redirect is there, the token request not yet.
    await page.locator('details.exchange > summary', { hasText: '(listener, callback' }).waitFor({ timeout: PAGE_WAIT });
    expect(await page.locator('details.exchange > summary', { hasText: '(client, token' }).count()).toBe(0);
    const before = await page.locator('details.exchange').count();
    release();
    await pageUntil(
      () => status(page),
      (text) => text === 'The command finished.',
    );
    // The same document all along: it grew by the server's events.
    expect(await page.evaluate(() => (globalThis as PageGlobals).loadedOnce)).toBe(true);
    const summaries = await page.locator('details.exchange > summary').allTextContents();
    expect(summaries.length).toBeGreaterThan(before);
    for (const step of ['(client, discovery', '(client, authorization', '(user-agent, login', '(listener, callback', '(client, token', '(client, jwks']) {
      expect(
        summaries.some((s) => s.includes(step)),
        `${step} in ${summaries.join(' | ')}`,
      ).toBe(true);
    }
    // Every exchange is an arrow of the diagram (a request and its answer; the handoff one arrow).
    expect(await page.locator('svg#diagram a').count()).toBe(summaries.length * 2 - 1);
    // The token exchange, opened: its step explained with its section, the ID token decoded with its times.
    const token = page.locator('details.exchange', { has: page.locator('summary', { hasText: '(client, token' }) });
    await token.locator('summary').click();
    await expect.poll(() => token.locator('.why').textContent(), { timeout: PAGE_WAIT }).toContain('RFC 6749 section 4.1.3');
    const decoded = (await token.locator('pre').allTextContents()).join('\n');
    expect(decoded).toContain('"aud": "photo-cli"');
    expect(decoded).toContain('"nonce"');
    expect(await token.locator('.jwt-times').first().textContent()).toMatch(/^iat \d{4}-\d\d-\d\dT[\d:]+Z · (auth_time \S+ · )?exp \d{4}-\d\d-\d\dT[\d:]+Z, valid for 3600 s$/);
    // The HAR can be saved from the page: the link serves the recording, secrets redacted.
    expect(await page.getAttribute('a[download]', 'href')).toBe('trace.har');
    const har = (await page.evaluate(() => fetch('trace.har').then((r) => r.json()))) as { log: { entries: unknown[]; _oauthctl: { redacted: boolean } } };
    expect(har.log.entries.length).toBe(summaries.length + 1);
    expect(har.log._oauthctl.redacted).toBe(true);
    expect(problems).toEqual([]);
  });

  it('login --ui --step: walked with the page’s buttons, the scope edited on the authorization request; the token has it', async () => {
    const mock = await createMockServer({});
    closers.push(() => mock.close());
    const cli = startCli([...LOGIN, '--issuer', mock.issuer, '--ui', '--step', '--json', '--ui-keep', '300']);
    const [, url] = await cli.waitForStderr(UI_URL);
    const { page, problems } = await open(url!);
    const stops = await walkSteps(page, async (title) => {
      if (title.startsWith('Waiting for you: authorization request')) {
        expect(await page.inputValue('input[aria-label="scope"]')).toBe('openid photo');
        // The secrets of a request are read-only on the page (here: none in the query; the token request's come next).
        await page.fill('input[aria-label="scope"]', 'openid');
      }
      if (title.startsWith('Waiting for you: token request')) {
        // The code verifier is a secret: shown redacted, read-only.
        expect(await page.inputValue('input[aria-label="code_verifier"]')).toBe('[redacted]');
        expect(await page.getAttribute('input[aria-label="code_verifier"]', 'readonly')).not.toBeNull();
        // docs/ui.md's picture: OAUTHCTL_DOCS_SCREENSHOTS=1 npx vitest run test/cli/login/ui-browser.test.ts
        if (process.env.OAUTHCTL_DOCS_SCREENSHOTS === '1') await page.screenshot({ path: join(ROOT, 'docs', 'images', 'ui-step.png'), fullPage: true });
      }
    });
    expect(await status(page)).toBe('The command finished.');
    expect(stops.map((s) => s.replace(/^Waiting for you: (.*?) \(.*$/, '$1'))).toEqual(
      expect.arrayContaining(['discovery request', 'authorization request', 'redirect back to the client', 'token request']),
    );
    // The page marks the person's change where it was made.
    await page.reload();
    const handoff = page.locator('details.exchange', { has: page.locator('summary', { hasText: '✎' }) });
    expect(await handoff.count()).toBe(1);
    await handoff.locator('summary').click();
    expect(await handoff.locator('.edited').textContent()).toBe('Changed by you before it was sent (--step): query scope: "openid photo" -> "openid"');
    expect(problems).toEqual([]);
    // The token has the edited scope.
    await cli.stop();
    const tokens = JSON.parse(cli.stdout()) as { scope: string; access_token: string };
    expect(tokens.scope).toBe('openid');
    expect((JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString('utf8')) as { scope: string }).scope).toBe('openid');
  });

  it("mcp --ui --step: an MCP server's whole authorization walked with the page's buttons, from the 401 to initialize with the token", async () => {
    const mock = await createMockServer(undefined, { autoLogin: 'alice' });
    closers.push(() => mock.close());
    const cli = startCli(['mcp', `${mock.baseUrl}/mcp`, 'tools/call', 'whoami', '--headless', '--ui', '--step', '--json', '--ui-keep', '300']);
    const [, url] = await cli.waitForStderr(UI_URL);
    const { page, problems } = await open(url!);
    const stops = (await walkSteps(page)).map((title) => title.replace(/^Waiting for you: (.*?) \(.*$/, '$1'));
    expect(await status(page)).toBe('The command finished.');
    // Each request of the authorization was a stop, in the order an MCP client makes them.
    const order = ['call to the resource', 'discovery request', 'registration request', 'authorization request', 'redirect back to the client', 'token request', 'call to the resource'];
    let at = -1;
    for (const stop of order) {
      const found = stops.indexOf(stop, at + 1);
      expect(found, `${stop} after stop ${at} of ${JSON.stringify(stops)}`).toBeGreaterThan(at);
      at = found;
    }
    expect(problems).toEqual([]);
    await cli.stop();
    const result = JSON.parse(cli.stdout()) as { structuredContent: { sub: string; scope: string } };
    expect(result.structuredContent).toMatchObject({ sub: 'alice' });
  });

  it('a <script> in a server’s error_description is shown as text and never runs (CSP and escaping)', async () => {
    const hostile = createServer((_req, res) => {
      const body = JSON.stringify({ error: 'invalid_client', error_description: '<script>window.pwned = 1; document.title = "pwned"</script><img src=x onerror="window.pwned = 2">\u001b[2J' });
      res.writeHead(400, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => hostile.close(() => resolve())));
    const token = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/token`;
    const cli = startCli(['client-credentials', '--token-endpoint', token, '--client-id', 'svc', '--client-secret', 'x', '--ui', '--ui-keep', '300'], { BROWSER: 'true' });
    const [, url] = await cli.waitForStderr(UI_URL);
    await cli.waitForStderr(/ui: the page stays/);
    const { page, problems } = await open(url!);
    await page.locator('details.exchange.failed').first().waitFor();
    expect(await page.locator('main').textContent()).toContain('<script>window.pwned = 1;');
    expect(await page.evaluate(() => (globalThis as PageGlobals).pwned)).toBeUndefined();
    expect(await page.title()).toBe('oauthctl client-credentials');
    // Nothing the server sent became an element, so the CSP had nothing to refuse either.
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("a server's HTML page runs nothing and loads nothing on the page: sandboxed, under a CSP, its words readable", async () => {
    // Everything the hostile page names points at this server: it must see no request at all.
    const asked: string[] = [];
    const witness = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.end('x');
    });
    await new Promise<void>((resolve) => witness.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => witness.close(() => resolve())));
    const at = `http://127.0.0.1:${(witness.address() as AddressInfo).port}`;
    const page400 = `<!doctype html><html><head><meta http-equiv="refresh" content="0;url=${at}/refresh"><link rel="stylesheet" href="${at}/css"><base href="${at}/"></head><body><h1>Client authentication failed</h1><p>Registered clients: svc-a, svc-b</p><img src="${at}/img"><script>parent.pwned = 1; fetch('${at}/script')</script><iframe src="${at}/frame"></iframe><form action="${at}/form"><button>go</button></form><a href="${at}/link">more</a></body></html>`;
    const hostile = createServer((_req, res) => res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page400));
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => hostile.close(() => resolve())));
    const token = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/token`;
    const cli = startCli(['client-credentials', '--token-endpoint', token, '--client-id', 'svc', '--client-secret', 'x', '--ui', '--ui-keep', '300'], { BROWSER: 'true' });
    const [, url] = await cli.waitForStderr(UI_URL);
    await cli.waitForStderr(/ui: the page stays/);
    const { page } = await open(url!);
    const frame = page.locator('details.exchange.failed iframe.server-page').first();
    await expect.poll(() => frame.contentFrame().locator('body').innerText(), { timeout: PAGE_WAIT }).toContain('Registered clients: svc-a, svc-b');
    // A person clicks what the page offers: nothing leaves either.
    await frame
      .contentFrame()
      .locator('button')
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    await frame
      .contentFrame()
      .locator('a')
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    expect(await page.evaluate(() => (globalThis as PageGlobals).pwned)).toBeUndefined();
    expect(await page.title()).toBe('oauthctl client-credentials');
    // The page is still the --ui page, and its source is one click away.
    expect(await page.locator('details.exchange.failed details.source pre').first().textContent()).toContain('<script>parent.pwned = 1;');
    expect(asked).toEqual([]);
  });
});
