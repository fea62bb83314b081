import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchBounded } from '../../src/mock/core/clients/bounded-fetch.js';
import { postToClient } from '../../src/mock/core/http/post-to-client.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A loopback server answering each path as `handle` says; counts the requests. */
async function host(handle: (path: string, res: ServerResponse, req: IncomingMessage) => void): Promise<{ base: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handle(req.url ?? '', res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

const LIMITS = { maxBytes: 1024, timeoutMs: 500, policy: { privateNetworks: false } };

describe('fetchBounded: a small JSON document, bounded in size and time, never redirected', () => {
  it('answers the body and headers of a 200, asking for JSON', async () => {
    let accept: string | undefined;
    const h = await host((_p, res, req) => {
      accept = req.headers.accept;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=5' }).end('{"a":1}');
    });
    const r = await fetchBounded(`${h.base}/doc`, LIMITS);
    expect(r).toMatchObject({ ok: true, body: '{"a":1}', headers: { 'cache-control': 'max-age=5' } });
    expect(accept).toBe('application/json');
  });

  it('refuses a redirect without following it, and any status but 200', async () => {
    const h = await host((path, res) => {
      if (path === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
      else res.writeHead(path === '/created' ? 201 : 404).end('{}');
    });
    expect(await fetchBounded(`${h.base}/moved`, LIMITS)).toEqual({ ok: false, reason: 'redirect', status: 302 });
    expect(await fetchBounded(`${h.base}/created`, LIMITS)).toEqual({ ok: false, reason: 'status', status: 201 });
    expect(await fetchBounded(`${h.base}/gone`, LIMITS)).toEqual({ ok: false, reason: 'status', status: 404 });
    expect(h.hits).not.toContain('/elsewhere');
  });

  it('cuts a body announced or grown past the cap, without reading a flood to its end', async () => {
    let written = 0;
    const h = await host((path, res) => {
      if (path === '/announced') return res.writeHead(200, { 'content-length': '2000' }).end('x'.repeat(2000));
      res.writeHead(200);
      const flood = () => {
        while (!res.destroyed && written < 50 * 1024 * 1024 && res.write('x'.repeat(64 * 1024))) written += 64 * 1024;
        if (!res.destroyed && written < 50 * 1024 * 1024) res.once('drain', flood);
      };
      flood();
    });
    expect(await fetchBounded(`${h.base}/announced`, LIMITS)).toEqual({ ok: false, reason: 'too-large' });
    expect(await fetchBounded(`${h.base}/flood`, LIMITS)).toEqual({ ok: false, reason: 'too-large' });
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('one deadline from connect to last byte: a slow answer and a trickling body are both cut at it', async () => {
    const h = await host((path, res) => {
      if (path === '/silent') return;
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    for (const path of ['/silent', '/trickle']) {
      const started = Date.now();
      expect(await fetchBounded(`${h.base}${path}`, LIMITS)).toEqual({ ok: false, reason: 'timeout' });
      expect(Date.now() - started).toBeLessThan(1500);
    }
  });

  it('a host that does not listen, or cuts the body short, is a network failure', async () => {
    const h = await host((_p, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
      setTimeout(() => res.destroy(), 20);
    });
    const closed = await host(() => undefined);
    const port = new URL(closed.base).port;
    await closers.pop()!();
    expect(await fetchBounded(`http://127.0.0.1:${port}/doc`, LIMITS)).toEqual({ ok: false, reason: 'network' });
    expect(await fetchBounded(`${h.base}/short`, LIMITS)).toMatchObject({ ok: false, reason: 'network' });
  });

  it('connects only where the address policy lets it: an address it forbids is refused before any connection, for a GET and for a POST to a client', async () => {
    const h = await host((_p, res) => res.writeHead(200).end('{}'));
    // An IP literal is judged before any socket is made (no packet leaves even if the check were wrong: 10.0.0.1 is never reached).
    expect(await fetchBounded('http://10.0.0.1/doc', LIMITS)).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(await postToClient('http://10.0.0.1/ping', {}, '{}', 500, LIMITS.policy)).toMatchObject({ status: 0, refused: true });
    expect(h.hits).toEqual([]);
    expect(await postToClient(`${h.base}/ping`, {}, '{}', 500, LIMITS.policy)).toMatchObject({ status: 200 });
  });
});
