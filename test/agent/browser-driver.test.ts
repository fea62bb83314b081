import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { createBrowserNavigator, createBrowserUserAgent, findBrowser } from '../../src/agent/browser-driver.js';
import { startRedirectListener, type RedirectListener } from '../../src/client/listeners/listener.js';
import { buildHar, HarRecorder } from '../../src/output/har.js';
import { redactHar } from '../../src/output/har-redact.js';
import { createRenderer } from '../../src/output/render.js';
import type { IO } from '../../src/output/io.js';
import { startFormServer, type FormServer } from './helpers/form-server.js';

// Chromium under load (other test runs beside this one) takes seconds per step.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });

const hasChromium = existsSync('/usr/bin/chromium');
const USER = 'bob@example.com';
const PASS = 'p@ss word&=';

let server: FormServer | undefined;
let listener: RedirectListener | undefined;
afterEach(async () => {
  await server?.close();
  await listener?.close();
  server = undefined;
  listener = undefined;
});

function memoryIO(): IO & { err: () => string } {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const stdout = new PassThrough();
  stdout.resume();
  return { stdout, stderr, stdin: new PassThrough(), env: { PATH: process.env.PATH ?? '' }, err: () => err };
}

async function loginThroughChromium(options: { needsJavaScript?: boolean; password?: string; consent?: 'approve' | 'deny'; har?: HarRecorder }) {
  server = await startFormServer(options.needsJavaScript ? { needsJavaScript: true } : {});
  listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback', har: options.har });
  const io = memoryIO();
  io.har = options.har;
  const agent = createBrowserUserAgent({ username: USER, password: options.password ?? PASS, consent: options.consent ?? 'approve' });
  const url = `${server.url}/authorize?redirect_uri=${encodeURIComponent(listener.redirectUri)}&state=xyz`;
  await agent({ authorizationUrl: url, redirectUri: listener.redirectUri, signal: new AbortController().signal, io, renderer: createRenderer(io, { verbose: true, color: false }) });
  return { capture: await listener.waitForRedirect(), io };
}

describe('finding the browser', () => {
  it('names the missing browser and what to do', () => {
    expect(() => findBrowser('/nonexistent/chromium', {})).toThrow(/--browser-path "\/nonexistent\/chromium" is not an executable file/);
  });
});

describe.skipIf(!hasChromium)('browser driver (Chromium via playwright-core)', () => {
  it('logs in and approves on plain HTML pages; the browser itself reaches the listener', async () => {
    const { capture, io } = await loginThroughChromium({});
    expect(capture.params).toEqual({ code: `code-for-${USER}`, state: 'xyz' });
    expect(io.err()).toContain('browser: login form chosen');
    expect(io.err()).not.toContain(PASS);
  });

  it("--trace: the browser's own requests are the user agent's exchanges, bodies of pages kept, the typed password scrubbed from the file", async () => {
    const har = new HarRecorder();
    const { capture } = await loginThroughChromium({ needsJavaScript: true, har });
    expect(capture.params.code).toBe(`code-for-${USER}`);
    // In the order the requests started, as the file has them (a page finishes after its script).
    const browser = har.exchanges.filter((e) => e.actor === 'user-agent').sort((a, b) => a.startedAt - b.startedAt);
    const line = (e: (typeof browser)[number]) => `${e.method} ${new URL(e.url).pathname} ${e.status}`;
    expect(browser.map(line)).toEqual(['GET /authorize 302', 'GET /app/spa 200', 'GET /bundle.js 200', 'POST /app/login 303', 'GET /app/consent 200', 'POST /app/consent 302', 'GET /callback 200']);
    const spa = browser.find((e) => new URL(e.url).pathname === '/app/spa')!;
    expect(spa.responseBody).toContain('<script src="/bundle.js">');
    expect(spa.requestHeaders.some(([n, v]) => n === 'user-agent' && v.includes('Chrome'))).toBe(true);
    expect(browser.find((e) => new URL(e.url).pathname === '/bundle.js')!.responseBody).toBe('');
    expect(browser.find((e) => e.method === 'POST' && new URL(e.url).pathname === '/app/login')!.requestBody).toContain(new URLSearchParams({ pwd: PASS }).toString());
    const heard = har.exchanges.filter((e) => e.actor === 'listener');
    expect(heard.map((e) => new URL(e.url).pathname)).toEqual(['/callback']);
    expect(heard[0]!.responseHeaders).toContainEqual(['content-type', 'text/html; charset=utf-8']);
    const file = redactHar(buildHar(har, { redacted: true, version: 'test' }), har.secrets);
    const text = JSON.stringify(file);
    expect(text).not.toContain(encodeURIComponent(PASS).replace(/%20/g, '+'));
    expect(text).not.toContain(PASS);
    const loginPost = file.log.entries.find((e) => e.request.method === 'POST' && e.request.url.endsWith('/app/login'))!;
    expect(loginPost.request.postData?.params).toContainEqual({ name: 'pwd', value: `[redacted ${PASS.length} chars]` });
    expect(loginPost.request.postData?.params).toContainEqual({ name: 'identifier', value: USER });
  });

  // The flood starts at a click (the walk presses "Continue" and waits for the navigation), so that a slow machine does not end the walk first.
  it("--trace of a hostile page (600 fetches, bodies of 3 MB): the first 500 requests kept, a body's first MiB at most, said once on stderr", async () => {
    listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback' });
    const big = 'x'.repeat(3 * 1024 * 1024);
    const flood = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/big') return res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) }).end(big);
      if (path === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(big);
      }
      if (path === '/x') return res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const next = `${listener!.redirectUri}?code=c&state=xyz`;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>busy</title><button type="button" onclick="go()">Continue</button><script>async function go() { await fetch('/big'); await fetch('/big-chunked'); for (let i = 0; i < 600; i++) await fetch('/x?' + i); location.assign(${JSON.stringify(next)}); }</script>`,
      );
    });
    await new Promise<void>((resolve) => flood.listen(0, '127.0.0.1', resolve));
    try {
      const har = new HarRecorder();
      const io = memoryIO();
      io.har = har;
      const agent = createBrowserUserAgent({ username: USER, password: PASS, stepTimeoutMs: 20_000 });
      const url = `http://127.0.0.1:${(flood.address() as AddressInfo).port}/authorize`;
      await agent({ authorizationUrl: url, redirectUri: listener.redirectUri, signal: new AbortController().signal, io, renderer: createRenderer(io, { color: false }) });
      expect((await listener.waitForRedirect()).params.code).toBe('c');
      await har.settled();
      expect(har.exchanges).toHaveLength(500);
      const bigBody = har.exchanges.find((e) => e.url.endsWith('/big'))!.responseBody;
      expect(bigBody).toBe('[oauthctl: a body of 3145728 bytes, not kept]');
      const chunked = har.exchanges.find((e) => e.url.endsWith('/big-chunked'))!.responseBody;
      expect(chunked).toBe(`${'x'.repeat(1024 * 1024)}[oauthctl: ${2 * 1024 * 1024} more characters not kept]`);
      expect(io.err().match(/the browser's page made more than 500 requests: the trace keeps the first 500/g)).toHaveLength(1);
    } finally {
      await new Promise((resolve) => flood.close(resolve));
    }
  });

  it('logs in on a page whose form only exists after its script ran', async () => {
    const { capture } = await loginThroughChromium({ needsJavaScript: true });
    expect(capture.params.code).toBe(`code-for-${USER}`);
  });

  it('denies consent, and fails clearly on a wrong password', async () => {
    const { capture } = await loginThroughChromium({ consent: 'deny' });
    expect(capture.params.error).toBe('access_denied');
    await server?.close();
    await listener?.close();
    await expect(loginThroughChromium({ password: 'wrong' })).rejects.toThrow(/login failed at \S+: the server said/);
  });
});

describe.skipIf(!hasChromium)("the audit's browser navigator (audit --browser-driver chromium)", () => {
  /** A server at the redirect URI that counts what reaches it: the navigator must send it nothing. */
  async function catcher() {
    const hits: string[] = [];
    const http = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end('caught');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const redirectUri = `http://127.0.0.1:${(http.address() as AddressInfo).port}/callback`;
    return { hits, redirectUri, close: () => new Promise((resolve) => http.close(resolve)) };
  }

  it.each([
    ['a login page that needs JavaScript, the code in the query', { needsJavaScript: true }, 'GET'],
    ['response_mode=form_post, the code posted by a script', { formPost: true }, 'POST'],
  ])('%s: reports the redirect and sends nothing to the redirect URI', async (_name, serverOptions, method) => {
    server = await startFormServer(serverOptions);
    const target = await catcher();
    const navigator = await createBrowserNavigator({ env: { PATH: process.env.PATH ?? '' } });
    try {
      const trace: string[] = [];
      const result = await navigator.navigate(`${server.url}/authorize?redirect_uri=${encodeURIComponent(target.redirectUri)}&state=xyz`, {
        redirectUri: target.redirectUri,
        consent: 'approve',
        credentials: { username: USER, password: PASS },
        trace: (line) => trace.push(line),
      });
      expect(result).toMatchObject({ kind: 'redirect', method, stoppedBy: 'redirect-uri' });
      const params = result.kind === 'redirect' ? new URLSearchParams(method === 'POST' ? result.body : new URL(result.url).search) : undefined;
      expect(params?.get('code')).toBe(`code-for-${USER}`);
      expect(params?.get('state')).toBe('xyz');
      expect(target.hits).toEqual([]);
      expect(trace.join('\n')).not.toContain(PASS);
    } finally {
      await navigator.close();
      await target.close();
    }
  });
});
