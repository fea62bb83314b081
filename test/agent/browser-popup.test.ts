import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { createBrowserNavigator } from '../../src/agent/browser-driver.js';

// Chromium under load (other test runs beside this one) takes seconds per step.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });

const hasChromium = existsSync('/usr/bin/chromium');

/** A loopback server that records every request reaching it. */
async function recorder(handle?: (url: URL, res: import('node:http').ServerResponse) => boolean) {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (handle?.(new URL(req.url ?? '/', 'http://x'), res)) return;
    res.end('caught');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { hits, url, close: () => new Promise((resolve) => server.close(resolve)) };
}

const servers: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe.skipIf(!hasChromium)('the Chromium navigator keeps its promise with popups', () => {
  it('a window.open() popup and a subresource on another host send nothing there', async () => {
    const elsewhere = await recorder();
    const target = await recorder();
    const redirectUri = `${target.url}/callback`;
    const as = await recorder((url, res) => {
      if (url.pathname === '/authorize') {
        // A login page that opens a popup on another host and loads an image from it; its form leads on to the redirect.
        const script = `window.open(${JSON.stringify(`${elsewhere.url}/popup`)}); new Image().src = ${JSON.stringify(`${elsewhere.url}/img`)};`;
        const form = '<form method="post" action="/go"><input name="username"><input type="password" name="password"><button type="submit">Sign in</button></form>';
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Sign in</title><link rel="icon" href="data:,">${form}<script>${script}</script>`);
        return true;
      }
      if (url.pathname === '/go') {
        res.writeHead(303, { location: `${redirectUri}?code=c1&state=s1` }).end();
        return true;
      }
      return false;
    });
    servers.push(elsewhere, target, as);
    const navigator = await createBrowserNavigator({ env: { PATH: process.env.PATH ?? '' } });
    try {
      const trace: string[] = [];
      const result = await navigator.navigate(`${as.url}/authorize`, {
        redirectUri,
        consent: 'approve',
        credentials: { username: 'alice', password: 'wonderland' },
        stopBefore: (url) => url.origin !== as.url,
        trace: (line) => trace.push(line),
      });
      expect(result).toMatchObject({ kind: 'redirect', stoppedBy: 'redirect-uri' });
      expect(trace.join('\n')).toContain(`blocked GET ${elsewhere.url}/popup from a page the login did not open`);
      expect(trace.join('\n')).toContain(`blocked GET ${elsewhere.url}/img (stop-before)`);
    } finally {
      await navigator.close();
    }
    expect(elsewhere.hits).toEqual([]);
    expect(target.hits).toEqual([]);
  });
});
