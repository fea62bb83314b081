// Hints that point the right way, each over real HTTP on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { runCli } from '../../helpers/cli.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
});

const lastLine = (text: string) => text.trim().split('\n').pop() ?? '';

/** A port nothing listens on: bound, then closed. */
async function deadPort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('hints', () => {
  it('a dead proxy is named as the proxy, with the variable it came from', async () => {
    const proxy = `http://127.0.0.1:${await deadPort()}`;
    const r = await runCli(['refresh', '--refresh-token', 'r', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], { env: { HTTP_PROXY: proxy } });
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toBe(`oauthctl: error: cannot reach the proxy ${proxy} (from HTTP_PROXY) for POST ${mock.authUrl}/token: ECONNREFUSED (check HTTP_PROXY, or list the host in NO_PROXY)`);
  });

  it('a server that is down is not blamed on the proxy when NO_PROXY lists it', async () => {
    const down = `http://127.0.0.1:${await deadPort()}`;
    const r = await runCli(['refresh', '--refresh-token', 'r', '--auth-url', down, '--client-id', 'photo-cli'], { env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' } });
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toMatch(/^oauthctl: error: cannot connect for POST http:\/\/127\.0\.0\.1:\d+\/token: connection refused/);
  });

  it('a client authentication failure says when the secret came from OAUTHCTL_CLIENT_SECRET', async () => {
    const args = ['refresh', '--refresh-token', 'r', '--auth-url', mock.authUrl, '--client-id', 'photo-web'];
    const fromEnv = await runCli(args, { env: { OAUTHCTL_CLIENT_SECRET: 'stale-secret' } });
    expect(fromEnv.code).toBe(1);
    expect(lastLine(fromEnv.stderr)).toMatch(/^oauthctl: error: invalid_client.*the client secret came from OAUTHCTL_CLIENT_SECRET: check it, or unset it\)$/);
    const fromFlag = await runCli([...args, '--client-secret', 'wrong'], { env: { OAUTHCTL_CLIENT_SECRET: 'stale-secret' } });
    expect(fromFlag.code).toBe(1);
    expect(lastLine(fromFlag.stderr)).toMatch(/^oauthctl: error: invalid_client/);
    expect(fromFlag.stderr).not.toMatch(/OAUTHCTL_CLIENT_SECRET/);
  });

  it('listen on a busy port names --port', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const port = (busy.address() as AddressInfo).port;
      const r = await runCli(['listen', '--port', String(port), '--timeout', '5']);
      expect(r.code).toBe(2);
      expect(lastLine(r.stderr)).toBe(`oauthctl: error: port ${port} on 127.0.0.1 is already in use (choose another --port, or leave it out for a free one)`);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  it('a 404 from the --call API is about the URL, not the scope or audience', async () => {
    const r = await runCli([
      'login',
      '--auth-url',
      mock.authUrl,
      '--client-id',
      'photo-cli',
      '--scope',
      'photo',
      '--headless',
      '--username',
      'alice',
      '--password',
      'wonderland',
      '--call',
      `${mock.baseUrl}/nothing-here`,
      '--timeout',
      '20',
    ]);
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toMatch(/^oauthctl: error: the API answered HTTP 404 \(no such resource: check the --call URL\)$/);
  });
});
