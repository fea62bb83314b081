import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runServeMock } from '../../../src/cli/mock/serve-mock.js';
import { adminMode, isLoopbackHost } from '../../../src/mock/index.js';
import { memoryIO } from '../../helpers/io.js';

describe('whether the admin API is on (adminMode)', () => {
  it.each([
    ['127.0.0.1', undefined, 'loopback'],
    ['127.0.0.2', undefined, 'loopback'],
    ['::1', undefined, 'loopback'],
    ['localhost', undefined, 'loopback'],
    ['0.0.0.0', undefined, 'off'],
    ['::', undefined, 'off'],
    ['192.0.2.2', undefined, 'off'],
    ['mock.example', undefined, 'off'],
    ['0.0.0.0', true, 'any'],
    ['127.0.0.1', false, 'off'],
  ] as const)('listening on %s with --admin %s: %s', (host, admin, mode) => {
    expect(adminMode(host, admin)).toBe(mode);
  });

  it('knows loopback names and addresses, and nothing else', () => {
    for (const host of ['127.0.0.1', '127.255.0.9', '[::1]', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST', 'app.localhost']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '128.0.0.1', '10.0.0.1', 'localhost.example', 'example.com', '', '127.0.0.1.nip.io']) expect(isLoopbackHost(host)).toBe(false);
  });
});

async function started(options: Parameters<typeof runServeMock>[0]) {
  const io = memoryIO();
  const stop = new AbortController();
  const done = runServeMock(options, io, stop.signal);
  while (!io.out().includes('Press Ctrl+C')) await new Promise((r) => setTimeout(r, 10));
  const issuer = /issuer, auth_url\s+(\S+)/.exec(io.out())![1]!;
  const port = new URL(issuer).port;
  return { io, base: `http://127.0.0.1:${port}`, stop: () => (stop.abort(), done) };
}

describe('oauthctl serve-mock and the admin API', () => {
  it('--host 0.0.0.0: off, and the start-up text says how to turn it on', async () => {
    const mock = await started({ host: '0.0.0.0', port: 0 });
    expect(mock.io.out()).toMatch(/admin API\s+off \(not on loopback; --admin turns it on\)/);
    expect((await fetch(`${mock.base}/_mock/requests`)).status).toBe(404);
    expect(await mock.stop()).toBe(0);
  });

  it('--host 0.0.0.0 --admin: on, with a warning that whoever reaches it can mint tokens', async () => {
    const mock = await started({ host: '0.0.0.0', port: 0, admin: true });
    expect(mock.io.out()).toMatch(/admin API\s+http:\/\/0\.0\.0\.0:\d+\/_mock\//);
    expect(mock.io.err()).toMatch(/warning: --admin: anyone who reaches http:\/\/0\.0\.0\.0:\d+\/_mock\/ can mint tokens/);
    const minted = await fetch(`${mock.base}/_mock/tokens`, { method: 'POST', body: JSON.stringify({ sub: 'alice' }) });
    expect(minted.status).toBe(200);
    expect(await mock.stop()).toBe(0);
  });

  it('the built CLI on loopback (the default): the admin API answers on the mock port', async () => {
    const child = spawn(process.execPath, ['bin/oauthctl.js', 'serve-mock', '--port', '0', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const { auth_url: authUrl } = JSON.parse(first) as Record<string, string>;
      const res = await fetch(`${authUrl}/_mock/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sub: 'alice', scope: 'photo' }) });
      expect(res.status).toBe(200);
      const { access_token: token } = (await res.json()) as { access_token: string };
      expect((await fetch(`${authUrl}/api/photos`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
