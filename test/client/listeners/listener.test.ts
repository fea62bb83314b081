import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { startRedirectListener, type RedirectListener } from '../../../src/client/listeners/listener.js';
import { loopbackBindAddress } from '../../../src/oauth/loopback.js';
import { UsageError } from '../../../src/errors.js';

const open: RedirectListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function listen(redirectUri: string, extra: { path?: string; maxBodyBytes?: number } = {}): Promise<RedirectListener> {
  const l = await startRedirectListener({ redirectUri, ...extra });
  open.push(l);
  return l;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (lets tests set the Host header and talk to [::1]). */
function send(host: string, port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('loopbackBindAddress', () => {
  it('maps loopback names and refuses everything else', () => {
    expect(loopbackBindAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(loopbackBindAddress('localhost')).toBe('127.0.0.1');
    expect(loopbackBindAddress('[::1]')).toBe('::1');
    expect(loopbackBindAddress('0.0.0.0')).toBeUndefined();
    expect(loopbackBindAddress('example.com')).toBeUndefined();
    expect(loopbackBindAddress('192.168.1.1')).toBeUndefined();
  });
});

describe('startRedirectListener', () => {
  it('binds 127.0.0.1 only, on a free port when the URI has none, and says so in the redirect URI', async () => {
    const l = await listen('http://127.0.0.1/callback');
    expect(l.host).toBe('127.0.0.1');
    expect(l.port).toBeGreaterThan(0);
    expect(l.redirectUri).toBe(`http://127.0.0.1:${l.port}/callback`);
    expect(l.url).toBe(`http://127.0.0.1:${l.port}`);
    // Not reachable on another address of the machine: IPv6 loopback refuses the connection.
    await expect(send('::1', l.port, '/callback?x=1')).rejects.toThrow(/ECONNREFUSED|EADDRNOTAVAIL/);
  });

  it('uses the port the redirect URI names', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const l = await listen(`http://127.0.0.1:${port}/cb`);
    expect(l.port).toBe(port);
    expect(l.redirectUri).toBe(`http://127.0.0.1:${port}/cb`);
  });

  it('explains a port already in use (exit 2)', async () => {
    const first = await listen('http://127.0.0.1/callback');
    await expect(startRedirectListener({ redirectUri: first.redirectUri })).rejects.toThrow(/already in use/);
  });

  it('binds [::1] when the URI names it', async () => {
    const l = await listen('http://[::1]/callback');
    expect(l.host).toBe('::1');
    expect(l.redirectUri).toBe(`http://[::1]:${l.port}/callback`);
    const waiting = l.waitForRedirect();
    const reply = await send('::1', l.port, '/callback?code=c&state=s', { headers: { host: `[::1]:${l.port}` } });
    expect(reply.status).toBe(200);
    expect((await waiting).params).toEqual({ code: 'c', state: 's' });
    await expect(send('127.0.0.1', l.port, '/callback')).rejects.toThrow();
  });

  it('binds 127.0.0.1 for localhost and keeps the name in the redirect URI', async () => {
    const l = await listen('http://localhost/callback');
    expect(l.host).toBe('127.0.0.1');
    expect(l.redirectUri).toBe(`http://localhost:${l.port}/callback`);
  });

  it.each(['http://0.0.0.0/callback', 'http://example.com/callback', 'https://127.0.0.1/callback', 'com.example.app:/callback'])('refuses %s with a usage error', async (uri) => {
    await expect(startRedirectListener({ redirectUri: uri })).rejects.toBeInstanceOf(UsageError);
  });

  it('captures the query of the first redirect, answers a page, then closes', async () => {
    const l = await listen('http://127.0.0.1/callback');
    const waiting = l.waitForRedirect();
    const reply = await send('127.0.0.1', l.port, '/callback?code=abc&state=xyz&iss=https%3A%2F%2Fas');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/text\/html/);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.body).toContain('Authorization received');
    expect(reply.body).not.toContain('abc');
    const capture = await waiting;
    expect(capture).toEqual({
      via: 'query',
      params: { code: 'abc', state: 'xyz', iss: 'https://as' },
      url: `http://127.0.0.1:${l.port}/callback?code=abc&state=xyz&iss=https%3A%2F%2Fas`,
      method: 'GET',
    });
    await l.close();
    await expect(send('127.0.0.1', l.port, '/callback?code=again')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a favicon or another path gets 404 and does not end the wait', async () => {
    const l = await listen('http://127.0.0.1/callback');
    let done = false;
    const waiting = l.waitForRedirect().then((c) => {
      done = true;
      return c;
    });
    expect((await send('127.0.0.1', l.port, '/favicon.ico')).status).toBe(404);
    expect((await send('127.0.0.1', l.port, '/other?code=x&state=y')).status).toBe(404);
    expect((await send('127.0.0.1', l.port, '/callback/extra?code=x')).status).toBe(404);
    expect(done).toBe(false);
    await send('127.0.0.1', l.port, '/callback?code=real&state=s');
    expect((await waiting).params.code).toBe('real');
  });

  it('refuses a foreign Host header (DNS rebinding) without ending the wait', async () => {
    const l = await listen('http://127.0.0.1/callback');
    const waiting = l.waitForRedirect();
    expect((await send('127.0.0.1', l.port, '/callback?code=x&state=y', { headers: { host: 'evil.example' } })).status).toBe(404);
    await send('127.0.0.1', l.port, '/callback?code=ok&state=s');
    expect((await waiting).params.code).toBe('ok');
  });

  it('serves a page that posts a fragment back, and captures it as a fragment', async () => {
    const l = await listen('http://127.0.0.1/callback');
    const waiting = l.waitForRedirect();
    const page = await send('127.0.0.1', l.port, '/callback');
    expect(page.status).toBe(200);
    expect(page.body).toContain('location.hash');
    const nonce = /nonce="([^"]+)"/.exec(page.body)?.[1];
    expect(page.headers['content-security-policy']).toContain(`'nonce-${nonce}'`);
    const posted = await send('127.0.0.1', l.port, '/callback', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-oauthctl-fragment': '1' },
      body: 'code=frag&state=s1',
    });
    expect(posted.status).toBe(200);
    const capture = await waiting;
    expect(capture.via).toBe('fragment');
    expect(capture.params).toEqual({ code: 'frag', state: 's1' });
    expect(capture.url).toBe(`http://127.0.0.1:${l.port}/callback#code=frag&state=s1`);
  });

  it('captures a form_post body', async () => {
    const l = await listen('http://127.0.0.1/callback');
    const waiting = l.waitForRedirect();
    await send('127.0.0.1', l.port, '/callback', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'code=fp&state=s2' });
    const capture = await waiting;
    expect(capture).toMatchObject({ via: 'form_post', method: 'POST', params: { code: 'fp', state: 's2' } });
  });

  it('limits the body size and refuses other content types, without ending the wait', async () => {
    const l = await listen('http://127.0.0.1/callback', { maxBodyBytes: 100 });
    let done = false;
    void l.waitForRedirect().then(() => (done = true));
    const big = await send('127.0.0.1', l.port, '/callback', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `code=${'x'.repeat(200)}` });
    expect(big.status).toBe(413);
    const json = await send('127.0.0.1', l.port, '/callback', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(415);
    expect(done).toBe(false);
  });

  it('shows an error redirect on the page, escaped', async () => {
    const l = await listen('http://127.0.0.1/callback');
    const waiting = l.waitForRedirect();
    const reply = await send('127.0.0.1', l.port, `/callback?error=access_denied&error_description=${encodeURIComponent('<script>alert(1)</script>')}&state=s`);
    expect(reply.body).toContain('Authorization failed');
    expect(reply.body).toContain('access_denied');
    expect(reply.body).not.toContain('<script>alert(1)');
    expect(reply.body).toContain('&#60;script&#62;');
    expect((await waiting).params.error).toBe('access_denied');
  });

  it('serves another path when asked', async () => {
    const l = await listen('http://127.0.0.1/callback', { path: '/other' });
    expect(l.redirectUri).toBe(`http://127.0.0.1:${l.port}/other`);
    const waiting = l.waitForRedirect();
    expect((await send('127.0.0.1', l.port, '/callback?code=x')).status).toBe(404);
    await send('127.0.0.1', l.port, '/other?code=y&state=z');
    expect((await waiting).params.code).toBe('y');
  });

  it('stops waiting when the signal aborts', async () => {
    const l = await listen('http://127.0.0.1/callback');
    const controller = new AbortController();
    const waiting = l.waitForRedirect(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
  });
});
