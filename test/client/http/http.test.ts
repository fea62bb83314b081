import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createHttpClient, MAX_RESPONSE_BYTES, redactBody, type HttpClient } from '../../../src/client/http/http.js';
import { FlowError } from '../../../src/errors.js';
import { createRenderer } from '../../../src/output/render.js';
import type { IO } from '../../../src/output/io.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function serve(handler: Parameters<typeof createHttpServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createHttpServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => closeServer(server));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function client(options: Parameters<typeof createHttpClient>[0]): HttpClient {
  const c = createHttpClient(options);
  cleanup.push(() => c.close());
  return c;
}

function memoryIO(): IO & { err(): string } {
  let err = '';
  const sink = (fn: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        fn(String(chunk));
        cb();
      },
    });
  return {
    stdout: sink(() => undefined),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    env: { NO_COLOR: '1' },
    err: () => err,
  };
}

/** A forward proxy that records what went through it (CONNECT tunnels and absolute-form requests). */
async function startProxy(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  const sockets = new Set<Socket>();
  server.on('connect', (req, socket: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    sockets.add(socket).add(upstream);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(async () => {
    for (const s of sockets) s.destroy();
    await closeServer(server);
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('createHttpClient', () => {
  it('sends the request and returns status, lower-case headers, body and json()', async () => {
    const { url } = await serve((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.writeHead(201, { 'Content-Type': 'application/json', 'X-Test': 'yes' }).end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] }));
      });
    });
    const res = await client({ env: {} }).request(`${url}/x`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(201);
    expect(res.headers['x-test']).toBe('yes');
    expect(res.json()).toEqual({ method: 'POST', body: 'hello', type: 'text/plain' });
  });

  it('json() on a non-JSON body is a one-line FlowError', async () => {
    const { url } = await serve((_req, res) => res.end('<html>'));
    const res = await client({ env: {} }).request(url);
    expect(() => res.json()).toThrow(FlowError);
    expect(() => res.json()).toThrow(/not JSON/);
  });

  it('goes through HTTP_PROXY, and around it for hosts in NO_PROXY', async () => {
    const { url } = await serve((_req, res) => res.end('direct or proxied'));
    const proxy = await startProxy();
    const proxied = await client({ env: { HTTP_PROXY: proxy.url } }).request(`${url}/through`);
    expect(proxied.body).toBe('direct or proxied');
    expect(proxy.seen.length).toBe(1);
    expect(proxy.seen[0]).toContain(new URL(url).host);

    const direct = await client({ env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } }).request(`${url}/around`);
    expect(direct.body).toBe('direct or proxied');
    expect(proxy.seen.length).toBe(1);
  });

  it('reads the proxy from the environment it is given, not from process.env', async () => {
    const { url } = await serve((_req, res) => res.end('ok'));
    const proxy = await startProxy();
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      await client({ env: {} }).request(url);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
    expect(proxy.seen).toEqual([]);
  });

  it('gives up after the timeout with one line saying so', async () => {
    const { url } = await serve(() => undefined);
    await expect(client({ env: {}, timeoutMs: 300 }).request(`${url}/slow`)).rejects.toThrow(/timed out after 0 s|timed out/);
  });

  it('one deadline for the whole request: a body trickled byte by byte is cut off, directly and through a proxy', async () => {
    const timers: NodeJS.Timeout[] = [];
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      timers.push(setInterval(() => res.write(' '), 50));
    });
    cleanup.push(async () => timers.forEach(clearInterval));
    const proxy = await startProxy();
    for (const env of [{}, { HTTP_PROXY: proxy.url }]) {
      await expect(client({ env, timeoutMs: 400 }).request(`${url}/trickle`)).rejects.toThrow(/timed out after 400 ms \(the whole request, connect to last byte\)/);
    }
    expect(proxy.seen.length).toBe(1);
  });

  it('cuts off a response larger than the limit, directly and through a proxy', async () => {
    const big = Buffer.alloc(MAX_RESPONSE_BYTES + 1, 'x');
    const { url } = await serve((_req, res) => res.end(big));
    const proxy = await startProxy();
    for (const env of [{}, { HTTP_PROXY: proxy.url }]) {
      await expect(client({ env }).request(`${url}/big`)).rejects.toThrow(/response larger than \d+ bytes/);
    }
  });

  it('explains a refused connection', async () => {
    const { url, server } = await serve((_req, res) => res.end());
    await closeServer(server);
    const err = await client({ env: {} })
      .request(url)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FlowError);
    expect((err as FlowError).message).toMatch(/connection refused/);
  });

  it('--verbose traces request and response with secrets redacted, and in full with --show-secrets', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'sid=cookiesecret' }).end('{"access_token":"tokensecret","token_type":"Bearer"}');
    });
    const body = 'grant_type=authorization_code&code=c1&client_secret=postsecret&code_verifier=verifiersecret';
    const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic YmFzaWNzZWNyZXQ=' };

    const io = memoryIO();
    await client({ env: {}, renderer: createRenderer(io, { verbose: true }) }).request(`${url}/token`, { method: 'POST', headers, body });
    const trace = io.err();
    expect(trace).toContain(`> POST ${url}/token`);
    expect(trace).toContain('< HTTP 200');
    expect(trace).toContain('grant_type=authorization_code');
    expect(trace).toContain('Basic [redacted');
    for (const secret of ['postsecret', 'verifiersecret', 'tokensecret', 'YmFzaWNzZWNyZXQ=', 'cookiesecret']) expect(trace).not.toContain(secret);

    const shown = memoryIO();
    await client({ env: {}, renderer: createRenderer(shown, { verbose: true, showSecrets: true }) }).request(`${url}/token`, { method: 'POST', headers, body });
    for (const secret of ['postsecret', 'verifiersecret', 'tokensecret', 'YmFzaWNzZWNyZXQ=']) expect(shown.err()).toContain(secret);
  });

  it('is silent without --verbose', async () => {
    const { url } = await serve((_req, res) => res.end('{}'));
    const io = memoryIO();
    await client({ env: {}, renderer: createRenderer(io, {}) }).request(url);
    expect(io.err()).toBe('');
  });

  it('--insecure prints a loud warning', () => {
    const io = memoryIO();
    client({ env: {}, insecure: true, renderer: createRenderer(io, {}) });
    expect(io.err()).toMatch(/warning: --insecure: TLS certificates are NOT verified/);
  });
});

describe('redactBody', () => {
  it('redacts JSON and form secrets, leaves other fields', () => {
    expect(redactBody('{"refresh_token":"abc","scope":"x"}', 'application/json', false)).toBe('{"refresh_token":"[redacted 3 chars]","scope":"x"}');
    expect(redactBody('password=hunter2&username=alice', 'application/x-www-form-urlencoded', false)).toBe('password=[redacted 7 chars]&username=alice');
    expect(redactBody('plain text', 'text/plain', false)).toBe('plain text');
  });
});
