import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { createBrowserNavigator, createBrowserUserAgent } from '../../src/agent/browser-driver.js';
import { decideRenderedAction, type RenderedControl } from '../../src/agent/browser-rendered.js';
import { startRedirectListener, type RedirectListener } from '../../src/client/listeners/listener.js';
import { createRenderer } from '../../src/output/render.js';
import { memoryIO } from './helpers/io.js';
import { startSpaServer, type SpaServer } from './helpers/spa-server.js';

// Chromium under load (other test runs beside this one) takes seconds per step.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });

const hasChromium = existsSync('/usr/bin/chromium');
const USER = 'carol@example.com';
const PASS = 'open sesame';
const env = { PATH: process.env.PATH ?? '' };

let spa: SpaServer | undefined;
let listener: RedirectListener | undefined;
afterEach(async () => {
  await spa?.close();
  await listener?.close();
  spa = undefined;
  listener = undefined;
});

async function loginThroughSpa(options: { password?: string; consent?: 'approve' | 'deny' } = {}) {
  spa = await startSpaServer();
  listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback' });
  const io = memoryIO();
  const agent = createBrowserUserAgent({ username: USER, password: options.password ?? PASS, consent: options.consent ?? 'approve', stepTimeoutMs: 20_000 });
  const url = `${spa.url}/authorize?redirect_uri=${encodeURIComponent(listener.redirectUri)}&state=s-1`;
  await agent({ authorizationUrl: url, redirectUri: listener.redirectUri, signal: new AbortController().signal, io, renderer: createRenderer(io, { verbose: true, color: false }) });
  return { capture: await listener.waitForRedirect(), io };
}

const control = (index: number, kind: RenderedControl['kind'], name: string, more: Partial<RenderedControl> = {}): RenderedControl => ({
  index,
  kind,
  tag: kind === 'control' ? 'button' : 'input',
  type: kind === 'password' ? 'password' : kind === 'checkbox' ? 'checkbox' : kind === 'field' ? 'text' : 'button',
  name,
  attrName: '',
  attrId: '',
  autocomplete: '',
  empty: true,
  checked: false,
  disabled: false,
  form: -1,
  ...more,
});

describe('reading a rendered page as a person would (decideRenderedAction)', () => {
  it('fills the account and password fields and presses the control that signs in, not the one that cancels', () => {
    const action = decideRenderedAction(
      [control(0, 'field', 'Search'), control(1, 'field', 'Email', { type: 'email' }), control(2, 'password', 'Password'), control(3, 'control', 'Cancel'), control(4, 'control', 'Sign in')],
      {
        consent: 'approve',
      },
    );
    expect(action).toMatchObject({ kind: 'login', username: { index: 1 }, password: { index: 2 }, submit: { index: 4 } });
  });

  it('on a grant step, ticks the boxes and presses Grant (a link to "#" too); denying ticks nothing', () => {
    const page = [
      control(0, 'checkbox', 'Share your photos'),
      control(1, 'checkbox', 'Share your profile', { checked: true }),
      control(2, 'control', 'Deny'),
      control(3, 'control', 'Grant', { tag: 'a' }),
    ];
    expect(decideRenderedAction(page, { consent: 'approve' })).toMatchObject({ kind: 'consent', checkboxes: [{ index: 0 }], control: { index: 3 } });
    expect(decideRenderedAction(page, { consent: 'deny' })).toMatchObject({ kind: 'consent', checkboxes: [], control: { index: 2 } });
  });

  it('says what it saw when nothing answers the question', () => {
    expect(decideRenderedAction([control(0, 'control', 'Help'), control(1, 'control', 'Privacy')], { consent: 'deny' })).toEqual({
      kind: 'none',
      detail: 'no visible control to deny among "Help", "Privacy"',
    });
  });
});

describe.skipIf(!hasChromium)('the Chromium driver through a single-page app login', () => {
  it('fills fields drawn by script, presses a button outside any form, ticks the grant boxes, follows a "#" link, and sees location.assign reach the listener', async () => {
    const { capture, io } = await loginThroughSpa();
    expect(capture.params).toEqual({ code: `code-for-${USER}`, scope: 'photos profile', state: 's-1' });
    expect(spa?.requests).not.toContain('GET /trap');
    expect(io.err()).toContain('browser: login fields filled as rendered');
    expect(io.err()).toContain('browser: consent: approve with link "Grant"');
    expect(io.err()).not.toContain(PASS);
  });

  it('denies with the "Deny" button', async () => {
    const { capture } = await loginThroughSpa({ consent: 'deny' });
    expect(capture.params).toEqual({ error: 'access_denied', state: 's-1' });
  });

  it('a wrong password is one line that quotes the app', async () => {
    const failure = await loginThroughSpa({ password: 'wrong' }).then(
      () => undefined,
      (err: unknown) => err as Error & { hint?: string },
    );
    // The same words as the headless agent's (page-errors.ts): the page's own error, quoted.
    expect(failure?.message).toMatch(/^login failed at http:\/\/127\.0\.0\.1:\d+\/app: the server said "Wrong email or password"$/);
    expect(failure?.hint).toMatch(/^check the username and password/);
  });

  it('without credentials, a rendered login is one line asking for them', async () => {
    spa = await startSpaServer();
    const navigator = await createBrowserNavigator({ env, stepTimeoutMs: 20_000 });
    try {
      const failure = await navigator
        .navigate(`${spa.url}/authorize?redirect_uri=${encodeURIComponent('http://127.0.0.1:1/callback')}&state=x`, { redirectUri: 'http://127.0.0.1:1/callback', consent: 'approve' })
        .then(
          () => undefined,
          (err: unknown) => err as Error & { hint?: string },
        );
      expect(failure?.message).toMatch(/^the server at http:\/\/127\.0\.0\.1:\d+\/app\?tx=\w+ asks for a login$/);
      expect(failure?.hint).toBe('give --username and --password');
    } finally {
      await navigator.close();
    }
  });

  it('the audit navigator gets the code through the app (busy with slow requests) and sends nothing to the redirect URI', async () => {
    spa = await startSpaServer({ busy: true });
    const hits: string[] = [];
    const target = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end('caught');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const redirectUri = `http://127.0.0.1:${(target.address() as AddressInfo).port}/callback`;
    const navigator = await createBrowserNavigator({ env, stepTimeoutMs: 20_000 });
    try {
      for (const state of ['a', 'b']) {
        const result = await navigator.navigate(`${spa.url}/authorize?redirect_uri=${encodeURIComponent(redirectUri)}&state=${state}`, {
          redirectUri,
          consent: 'approve',
          credentials: { username: USER, password: PASS },
        });
        expect(result).toMatchObject({ kind: 'redirect', method: 'GET', stoppedBy: 'redirect-uri' });
        expect(result.kind === 'redirect' && Object.fromEntries(new URL(result.url).searchParams)).toEqual({ code: `code-for-${USER}`, scope: 'photos profile', state });
      }
      expect(hits).toEqual([]);
    } finally {
      await navigator.close();
      await new Promise((resolve) => target.close(resolve));
    }
  });
});

describe.skipIf(!hasChromium)('the route answers each request once (audit --browser-driver chromium on a slow portal)', () => {
  it('a walk that ends while a page is still being fetched: no "Route is already handled!", no unhandled error, the next walk works', async () => {
    // A slow server: /slow is answered 4 s after it is asked, and the test waits for that answer to have gone out.
    let slowAsked = false;
    let answered!: () => void;
    const lateAnswer = new Promise<void>((resolve) => (answered = resolve));
    const server = createServer((req, res) => {
      if (req.url === '/slow') {
        slowAsked = true;
        res.once('close', answered);
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Late</title><p>late</p>'), 4_000);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end("<title>Portal</title><div id=m></div><script>setTimeout(() => location.assign('/slow'), 50)</script>");
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const unhandled: unknown[] = [];
    const collect = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', collect);
    const navigator = await createBrowserNavigator({ env, stepTimeoutMs: 1_500 });
    try {
      const first = await navigator.navigate(`${base}/start`, { redirectUri: 'http://127.0.0.1:1/callback', consent: 'approve' });
      expect(first.kind).toBe('page');
      // The page is still being fetched when the walk ends; its answer comes after.
      if (slowAsked) await lateAnswer;
      const second = await navigator.navigate(`${base}/start`, { redirectUri: 'http://127.0.0.1:1/callback', consent: 'approve' });
      expect(second.kind).toBe('page');
      expect(unhandled.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', collect);
      await navigator.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a failure of the browser is one line', async () => {
    const server = createServer((_req, res) => {
      // A sign-in button under an overlay (a cookie banner): Playwright waits to click, then fails with a call log.
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<title>Sign in</title><input type=email autocomplete=username><input type=password><button type=button>Sign in</button><div style="position:fixed;inset:0;background:#fff8">cookies?</div><script></script>',
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const navigator = await createBrowserNavigator({ env, stepTimeoutMs: 3_000 });
    try {
      const failure = await navigator
        .navigate(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { redirectUri: 'http://127.0.0.1:1/callback', consent: 'approve', credentials: { username: USER, password: PASS } })
        .then(
          () => undefined,
          (err: unknown) => err as Error,
        );
      expect(failure?.message).toMatch(/^browser step failed: locator\.click: Timeout 3000ms exceeded\.$/);
    } finally {
      await navigator.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
