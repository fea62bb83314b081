import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BROWSER, runCli } from '../../helpers/cli.js';

/**
 * A server that answers at once and then sends one byte every 200 ms, forever: each phase of the
 * request makes progress, so only a deadline on the whole request ends it.
 */
let server: Server;
let url: string;
const trickles = new Set<NodeJS.Timeout>();

function trickle(res: ServerResponse, type: string): void {
  res.writeHead(200, { 'content-type': type });
  res.write(type.includes('json') ? '{' : '<');
  const timer = setInterval(() => res.write(' '), 200);
  trickles.add(timer);
  res.on('close', () => {
    clearInterval(timer);
    trickles.delete(timer);
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    // Under /ok, the authorization endpoint answers at once (login reaches its token request).
    if (u.pathname === '/ok/authorize') {
      const redirect = new URL(u.searchParams.get('redirect_uri') ?? '');
      redirect.searchParams.set('code', 'c1');
      redirect.searchParams.set('state', u.searchParams.get('state') ?? '');
      res.writeHead(302, { location: redirect.href }).end();
      return;
    }
    trickle(res, u.pathname.endsWith('/authorize') ? 'text/html' : 'application/json');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const t of trickles) clearInterval(t);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const TIMED_OUT = /oauthctl: error: POST .* timed out after 1 s \(the whole request, connect to last byte\).*--http-timeout/;

describe('--http-timeout bounds each request, connect to last byte', () => {
  it('exchange', async () => {
    const r = await runCli(['exchange', '--auth-url', url, '--client-id', 'c', '--code', 'x', '--http-timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(TIMED_OUT);
  });

  it('login', async () => {
    const r = await runCli(['login', '--auth-url', `${url}/ok`, '--client-id', 'c', '--no-cache', '--timeout', '30', '--http-timeout', '1'], { env: { BROWSER: FAKE_BROWSER } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(TIMED_OUT);
  });

  it("login --headless: the agent's own requests keep the deadline", async () => {
    const r = await runCli(['login', '--headless', '--auth-url', url, '--client-id', 'c', '--username', 'a', '--password', 'b', '--no-cache', '--timeout', '30', '--http-timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: GET .*\/authorize\?.* timed out after 1 s/);
  });

  it('call', async () => {
    const r = await runCli(['call', `${url}/api`, '--token', 't', '--http-timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: GET .*\/api timed out after 1 s/);
  });

  it('audit', async () => {
    const r = await runCli(['audit', '--auth-url', url, '--client-id', 'c', '--username', 'a', '--password', 'b', '--probe', 'flow', '--http-timeout', '1', '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.probes[0].detail).toMatch(/timed out after 1 s/);
  });

  it('is a whole number of seconds', async () => {
    const r = await runCli(['exchange', '--auth-url', url, '--client-id', 'c', '--code', 'x', '--http-timeout', '0.5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--http-timeout must be a whole number from 1 to 3600/);
  });
});
