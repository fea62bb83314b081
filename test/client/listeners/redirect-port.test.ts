import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/program/main.js';
import { portAsWritten, startRedirectListener } from '../../../src/client/listeners/listener.js';
import { UsageError } from '../../../src/errors.js';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { memoryIO } from '../../agent/helpers/io.js';

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('the redirect URI keeps the port as written', () => {
  it('reads the port as written, the default one too', () => {
    expect(portAsWritten('http://127.0.0.1:80/callback')).toBe(80);
    expect(portAsWritten('http://[::1]:8080/cb?x=1')).toBe(8080);
    expect(portAsWritten('http://user:pw@localhost:443/cb')).toBe(443);
    expect(portAsWritten('http://127.0.0.1/callback')).toBeUndefined();
    expect(portAsWritten('http://127.0.0.1:/callback')).toBeUndefined();
  });

  it('listens on an explicit port and gives back the URI as written', async () => {
    const port = await freePort();
    const listener = await startRedirectListener({ redirectUri: `http://127.0.0.1:${port}/callback` });
    try {
      expect(listener.port).toBe(port);
      expect(listener.redirectUri).toBe(`http://127.0.0.1:${port}/callback`);
    } finally {
      await listener.close();
    }
  });

  it(':80 is listened on and kept in the URI (or, when taken, the failure names port 80)', async () => {
    const listening = startRedirectListener({ redirectUri: 'http://127.0.0.1:80/callback' });
    const listener = await listening.catch((err: Error) => err);
    if (listener instanceof UsageError) {
      expect(listener.message).toBe('port 80 on 127.0.0.1 is already in use, so the redirect cannot be received there');
      return;
    }
    if (listener instanceof Error) throw listener;
    try {
      expect(listener.port).toBe(80);
      expect(listener.redirectUri).toBe('http://127.0.0.1:80/callback');
    } finally {
      await listener.close();
    }
  });
});

describe('login --redirect-uri with an explicit port', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer();
  });
  afterAll(async () => {
    await mock.close();
  });

  it('sends the redirect URI as written and receives the redirect on that port', async () => {
    const port = await freePort();
    const io = memoryIO();
    const code = await run(
      [
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
        '--redirect-uri',
        `http://127.0.0.1:${port}/callback`,
        '--json',
      ],
      io,
    );
    expect(code).toBe(0);
    const authorize = mock.requests().find((r) => r.path === '/authorize');
    expect(authorize?.query.redirect_uri).toBe(`http://127.0.0.1:${port}/callback`);
    const token = mock.requests().find((r) => r.path === '/token');
    expect(token?.form?.redirect_uri).toBe(`http://127.0.0.1:${port}/callback`);
  });
});
