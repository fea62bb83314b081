import { connect } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../../src/client/ui/server.js';
import { HarRecorder } from '../../../src/output/har.js';
import type { StepAnswer } from '../../../src/output/step.js';

const servers: UiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(showSecrets = false): Promise<{ server: UiServer; recorder: HarRecorder }> {
  const recorder = new HarRecorder();
  const server = await startUiServer({ recorder, title: 'oauthctl login', showSecrets, version: 'test' });
  servers.push(server);
  return { server, recorder };
}

/** A raw request with the headers given as they are (fetch would set Host and Origin itself). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const exchange = (url: string, status: number, responseBody: string) => ({
  actor: 'client' as const,
  startedAt: Date.now(),
  durationMs: 3,
  method: 'POST',
  url,
  requestHeaders: [['content-type', 'application/x-www-form-urlencoded']] as [string, string][],
  requestBody: 'grant_type=authorization_code&code=abc&client_secret=hunter2',
  status,
  responseHeaders: [['content-type', 'application/json']] as [string, string][],
  responseBody,
});

describe('the --ui server', () => {
  it('listens on 127.0.0.1 at an unguessable path, and serves the page with a CSP that allows only its own script', async () => {
    const { server } = await start();
    const url = new URL(server.url);
    expect(url.hostname).toBe('127.0.0.1');
    // 24 random bytes: 192 bits.
    expect(url.pathname).toMatch(/^\/ui\/[A-Za-z0-9_-]{32}\/$/);
    const page = await get(server.url);
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).not.toMatch(/unsafe/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).toContain('Running…');
  });

  it('answers the same bare 404 to a wrong path, another Host (DNS rebinding), another Origin or a cross-site fetch', async () => {
    const { server } = await start();
    const url = new URL(server.url);
    const origin = `http://127.0.0.1:${url.port}`;
    const token = url.pathname.split('/')[2]!;
    const wrong = [
      await get(`${origin}/`),
      await get(`${origin}/ui/`),
      await get(`${origin}/ui/${token.slice(0, -1)}A/`),
      await get(`${origin}/ui/${token}`),
      await get(server.url, { host: `evil.example:${url.port}` }),
      await get(server.url, { host: `localhost:${url.port}` }),
      await get(server.url, { origin: 'http://evil.example' }),
      await get(server.url, { origin: 'null' }),
      await get(server.url, { 'sec-fetch-site': 'cross-site' }),
      await get(`${server.url}events`, { host: `attacker.example:${url.port}` }),
      await get(`${server.url}trace.har`, { origin: 'http://evil.example' }),
    ];
    for (const answer of wrong) {
      expect(answer.status).toBe(404);
      expect(answer.text).toBe('Not found\n');
    }
    // Its own origin is answered.
    expect((await get(server.url, { origin, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('draws what the recorder holds, escaped, secrets redacted; the HAR can be saved from it', async () => {
    const { server, recorder } = await start();
    recorder.record(exchange('http://127.0.0.1:1/token', 400, JSON.stringify({ error: 'invalid_grant', error_description: '<script>alert(1)</script>\u001b[2J' })));
    const page = await get(server.url);
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.text).not.toContain('\u001b');
    expect(page.text).not.toContain('hunter2');
    expect(page.text).toContain('Failed here');
    const har = await get(`${server.url}trace.har`);
    expect(har.headers['content-disposition']).toMatch(/attachment/);
    const doc = JSON.parse(har.text) as { log: { entries: { request: { postData: { text: string } } }[]; _oauthctl: { redacted: boolean } } };
    expect(doc.log.entries).toHaveLength(1);
    expect(doc.log._oauthctl.redacted).toBe(true);
    expect(doc.log.entries[0]!.request.postData.text).not.toContain('hunter2');
  });

  it('tells each listening page of a change by a server-sent event, and refuses a ninth page', async () => {
    const { server, recorder } = await start();
    const first = await openEvents(server.url);
    // On connecting, the page is told to look once (what changed since it loaded).
    await first.until(/event: change\ndata: 0\n\n/);
    recorder.record(exchange('http://127.0.0.1:1/token', 200, '{}'));
    await first.until(/event: change\ndata: 1\n\n/);
    const more = await Promise.all(Array.from({ length: 7 }, () => openEvents(server.url)));
    const ninth = await openEvents(server.url);
    expect(ninth.status).toBe(503);
    recorder.end(0);
    await first.until(/event: end\n/);
    for (const e of [first, ...more]) e.close();
  });

  it('tells a listening page that the command has ended before it closes', async () => {
    const { server, recorder } = await start();
    const page = await openEvents(server.url);
    await page.until(/event: change\n/);
    recorder.end(1, 'the token request was skipped');
    await server.close();
    await page.until(/event: end\ndata: \d+\n\n/);
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('keeps a slow reader to what its connection holds: a million changes do not pile up for it', async () => {
    const { server, recorder } = await start();
    const url = new URL(server.url);
    const socket = connect(Number(url.port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let received = 0;
    let head = '';
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (head.length < 200) head += chunk.toString('latin1');
      tail = (tail + chunk.toString('latin1')).slice(-100);
    });
    socket.write(`GET ${url.pathname}events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    // The reader takes the headers, then stops reading.
    while (!head.includes('retry:')) await new Promise((resolve) => setImmediate(resolve));
    socket.pause();
    for (let i = 0; i < 1_000_000; i++) recorder.changed();
    // Unbounded, that is a million events, some 28 MB; bounded, what the socket buffers held and one more.
    socket.resume();
    recorder.changed();
    // The last change reaches it once its connection has drained: the latest count, not every one before.
    await new Promise<void>((resolve) => {
      const check = () => (tail.includes('data: 1000001\n\n') ? resolve() : setImmediate(check));
      check();
    });
    socket.destroy();
    expect(received).toBeLessThan(12 * 1024 * 1024);
  });

  it('holds a --step request until the page answers: a POST with the CSRF token and the request id, from its own origin', async () => {
    const { server } = await start();
    let answer: StepAnswer | undefined;
    const asked = server.stepper
      .ask({
        step: 'token',
        title: 'token request',
        method: 'POST',
        url: 'http://127.0.0.1:1/token',
        fields: [
          { place: 'form', name: 'scope', value: 'openid photo', secret: false },
          { place: 'form', name: 'client_secret', value: '[redacted]', secret: true },
        ],
      })
      .then((a) => (answer = a));
    const page = await get(server.url);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const held = /name="held" value="([^"]+)"/.exec(page.text)![1]!;
    expect(page.text).toContain('Waiting for you: token request');
    const origin = new URL(server.url).origin;
    const form = (fields: Record<string, string>) =>
      new URLSearchParams({ count: '3', p0: 'form', n0: 'scope', v0: 'openid', p1: 'form', n1: 'client_secret', v1: 'stolen', action: 'send', ...fields }).toString();
    const post = (body: string, headers: Record<string, string> = {}) => get(`${server.url}step`, { 'content-type': 'application/x-www-form-urlencoded', origin, ...headers }, 'POST', body);
    expect((await post(form({ csrf: 'forged', held }))).status).toBe(409);
    expect((await post(form({ csrf, held: 'stale' }))).status).toBe(409);
    expect((await post(form({ csrf, held }), { origin: 'http://evil.example' })).status).toBe(404);
    expect(answer).toBeUndefined();
    const sent = await post(form({ csrf, held }));
    expect(sent.status).toBe(303);
    await asked;
    // The edited scope is taken; the secret, read-only on the page, comes back as it was shown.
    expect(answer).toEqual({
      action: 'send',
      fields: [
        { place: 'form', name: 'scope', value: 'openid', secret: false },
        { place: 'form', name: 'client_secret', value: '[redacted]', secret: true },
      ],
    });
    // Answered once: the same form again changes nothing.
    expect((await post(form({ csrf, held }))).status).toBe(409);
  });
});

async function openEvents(url: string): Promise<{ status: number; until: (p: RegExp) => Promise<void>; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}events`, (res) => {
      let text = '';
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d;
        for (const w of waiters.splice(0)) w();
      });
      resolve({
        status: res.statusCode ?? 0,
        until: async (p) => {
          while (!p.test(text)) await new Promise<void>((wake) => waiters.push(wake));
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
