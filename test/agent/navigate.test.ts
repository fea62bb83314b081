import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { createHttpClient, type HttpClient } from '../../src/client/http/http.js';
import { navigate } from '../../src/agent/headless/navigate.js';
import { createHeadlessUserAgent } from '../../src/agent/headless/agent.js';
import { startRedirectListener } from '../../src/client/listeners/listener.js';
import { createRenderer } from '../../src/output/render.js';
import type { IO } from '../../src/output/io.js';
import { startFormServer, type FormServer } from './helpers/form-server.js';

const USER = 'bob@example.com';
const PASS = 'p@ss word&=';
let server: FormServer | undefined;
let http: HttpClient | undefined;

afterEach(async () => {
  await server?.close();
  await http?.close();
  server = undefined;
  http = undefined;
});

function memoryIO(): IO & { err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  stdout.resume();
  return { stdout, stderr, stdin: new PassThrough(), env: {}, err: () => err };
}

const redirectUri = 'http://127.0.0.1:1/cb';
const authorizeUrl = (s: FormServer, state = 'st') => `${s.url}/authorize?response_type=code&client_id=c&redirect_uri=${encodeURIComponent(redirectUri)}&state=${state}`;

describe('headless navigation against a plain HTML login server', () => {
  it('logs in, approves consent and stops before the redirect URI, keeping cookies and hidden fields', async () => {
    server = await startFormServer();
    http = createHttpClient();
    const lines: string[] = [];
    const result = await navigate(authorizeUrl(server), { http, redirectUri, consent: 'approve', credentials: { username: USER, password: PASS }, trace: (l) => lines.push(l) });
    expect(result).toMatchObject({ kind: 'redirect', method: 'GET', stoppedBy: 'redirect-uri', url: `${redirectUri}?code=code-for-${encodeURIComponent(USER)}&state=st` });
    const login = server.requests.find((r) => r.method === 'POST' && r.path === '/app/login');
    expect(login?.cookie).toBe('sid=s1');
    expect(new URLSearchParams(login?.body)).toEqual(new URLSearchParams({ _csrf: 'csrf-123', identifier: USER, pwd: PASS }));
    expect(server.requests[0]?.cookie).toBeUndefined();
    const trace = lines.join('\n');
    expect(trace).toContain('login form chosen (form 1 of 1); POST http://127.0.0.1');
    expect(trace).toContain(`identifier=${USER} (account name)`);
    expect(trace).toContain('pwd=[redacted 11 chars] (password)');
    expect(trace).toContain('consent: approve with button "Allow access"');
    expect(trace).not.toContain(PASS);
  });

  it('denies consent with the deny button', async () => {
    server = await startFormServer();
    http = createHttpClient();
    const result = await navigate(authorizeUrl(server), { http, redirectUri, consent: 'deny', credentials: { username: USER, password: PASS } });
    expect(result.kind === 'redirect' && new URL(result.url).searchParams.get('error')).toBe('access_denied');
  });

  it('handles identifier-first logins and form_post responses', async () => {
    server = await startFormServer({ identifierFirst: true, formPost: true });
    http = createHttpClient();
    const result = await navigate(authorizeUrl(server), { http, redirectUri, consent: 'approve', credentials: { username: USER, password: PASS } });
    expect(result).toMatchObject({ kind: 'redirect', method: 'POST', url: redirectUri });
    expect(result.kind === 'redirect' && new URLSearchParams(result.body).get('state')).toBe('st');
  });

  it('fails with a clear message when the login form comes back', async () => {
    server = await startFormServer();
    http = createHttpClient();
    const failure = navigate(authorizeUrl(server), { http, redirectUri, consent: 'approve', credentials: { username: USER, password: 'wrong' } });
    await expect(failure).rejects.toMatchObject({
      exitCode: 1,
      message: `login failed at ${server.url}/app/login: the server said "Invalid email or password."`,
      hint: 'check the username and password (--username and --password, or OAUTHCTL_USERNAME and OAUTHCTL_PASSWORD)',
    });
  });

  it('says when a page needs JavaScript and points to the browser driver', async () => {
    server = await startFormServer({ needsJavaScript: true });
    http = createHttpClient();
    const failure = navigate(authorizeUrl(server), { http, redirectUri, consent: 'approve', credentials: { username: USER, password: PASS } });
    await expect(failure).rejects.toMatchObject({ message: expect.stringContaining('needs JavaScript'), hint: expect.stringContaining('--browser-driver chromium') });
  });

  it('returns an error page it cannot act on, and stops at the step limit', async () => {
    server = await startFormServer();
    http = createHttpClient();
    const page = await navigate(`${server.url}/app/login`, { http, redirectUri, consent: 'approve' });
    expect(page).toMatchObject({ kind: 'page', status: 400, text: 'Your session has expired.' });
    const limited = navigate(authorizeUrl(server), { http, redirectUri, consent: 'approve', credentials: { username: USER, password: PASS }, maxSteps: 2 });
    await expect(limited).rejects.toMatchObject({ message: expect.stringContaining('gave up after 2 steps') });
  });

  it('stops before leaving the server when asked to, sending nothing there', async () => {
    server = await startFormServer();
    http = createHttpClient();
    const origin = new URL(server.url).origin;
    const result = await navigate(authorizeUrl(server), {
      http,
      redirectUri: 'http://127.0.0.1:1/other',
      consent: 'approve',
      credentials: { username: USER, password: PASS },
      stopBefore: (u) => u.origin !== origin,
    });
    expect(result).toMatchObject({ kind: 'redirect', stoppedBy: 'stop-before' });
  });
});

describe('the headless user agent', () => {
  it('delivers the redirect to the loopback listener itself and never traces the password', async () => {
    server = await startFormServer();
    const listener = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback' });
    try {
      const io = memoryIO();
      const renderer = createRenderer(io, { verbose: true, color: false });
      const agent = createHeadlessUserAgent({ username: USER, password: PASS });
      const url = `${server.url}/authorize?redirect_uri=${encodeURIComponent(listener.redirectUri)}&state=abc`;
      const controller = new AbortController();
      await agent({ authorizationUrl: url, redirectUri: listener.redirectUri, signal: controller.signal, io, renderer });
      const capture = await listener.waitForRedirect();
      expect(capture.params).toEqual({ code: `code-for-${USER}`, state: 'abc' });
      expect(io.err()).toContain('headless: consent: approve');
      expect(io.err()).toContain('> POST');
      expect(io.err()).not.toContain(PASS);
      expect(io.err()).not.toContain(encodeURIComponent(PASS));
      expect(io.err()).not.toContain(new URLSearchParams({ p: PASS }).toString().slice(2));
    } finally {
      await listener.close();
    }
  });
});
