import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createSocketTransport } from '../../src/client/http-socket.js';
import { createHttpClient } from '../../src/client/http.js';
import { FlowError } from '../../src/errors.js';
import type { Transport } from '../../src/client/http-transport.js';
import { RequestDeadline } from '../../src/client/http-deadline.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

interface RawServer {
  url: string;
  /** Every connection's bytes as received, in order of connection. */
  received: string[];
  connections: Socket[];
}

/**
 * A server that answers each request (a head ending in a blank line, and its Content-Length body) with
 * whatever `answer` writes on the socket: the raw bytes a hostile server would send.
 */
async function rawServer(answer: (socket: Socket, request: string, n: number) => void): Promise<RawServer> {
  const received: string[] = [];
  const connections: Socket[] = [];
  let requests = 0;
  const server: Server = createServer((socket) => {
    const index = connections.push(socket) - 1;
    received[index] = '';
    let pending = '';
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      received[index] += d.toString('latin1');
      pending += d.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = pending.slice(0, end + 4 + length);
        pending = pending.slice(end + 4 + length);
        answer(socket, request, requests++);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        for (const s of connections) s.destroy();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, connections };
}

function transport(options: Parameters<typeof createSocketTransport>[0] = {}): Transport {
  const t = createSocketTransport(options);
  cleanup.push(() => t.close());
  return t;
}

/** A deadline far away, cleared after the test. */
function noDeadline(): RequestDeadline {
  const deadline = new RequestDeadline(60_000);
  cleanup.push(() => deadline.clear());
  return deadline;
}

const send = (t: Transport, url: string, extra: Partial<Parameters<Transport['send']>[0]> = {}) =>
  t.send({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":"\u00e9"}', abort: noDeadline(), maxBytes: 1 << 20, ...extra });

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('the socket transport (HTTP/1.1 over node:net)', () => {
  it('writes a well-formed request, reads the answer, and reuses the connection for the next one', async () => {
    const server = await rawServer((s, _req, n) => s.write(ok(`{"n":${n}}`)));
    const t = transport();
    const first = await send(t, `${server.url}/mcp?x=1`);
    const second = await send(t, `${server.url}/mcp?x=1`);
    expect([first.status, first.body, second.body]).toEqual([200, '{"n":0}', '{"n":1}']);
    expect(first.headers['content-type']).toBe('application/json');
    expect(server.connections).toHaveLength(1);
    const port = new URL(server.url).port;
    // One request: the Host, the caller's fields, the body's length in UTF-8 octets.
    expect(server.received[0]!.split('POST')[1]).toBe(` /mcp?x=1 HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"n":"\u00c3\u00a9"}`);
  });

  it('sends credentials in the URL as Basic authentication, as node:http did, and no body length on a GET', async () => {
    const server = await rawServer((s) => s.write(ok('{}')));
    await send(transport(), server.url.replace('//', '//us%20er:p%40ss@'), { method: 'GET', body: undefined, headers: {} });
    expect(server.received[0]).toContain(`\r\nauthorization: Basic ${Buffer.from('us er:p@ss').toString('base64')}\r\n`);
    expect(server.received[0]).not.toMatch(/content-length|us%20er/i);
  });

  it('a connection the server closed while idle, or one idle too long, is not reused', async () => {
    const server = await rawServer((s) => s.end(ok('{}', 'Connection: close\r\n')));
    const t = transport();
    await send(t, server.url);
    await send(t, server.url);
    expect(server.connections).toHaveLength(2);

    const kept = await rawServer((s) => s.write(ok('{}')));
    const stale = transport({ idleReuseMs: 0 });
    await send(stale, kept.url);
    await send(stale, kept.url);
    expect(kept.connections).toHaveLength(2);

    // The server ends an idle connection: the next request opens another and is answered.
    const closing = await rawServer((s) => s.write(ok('{}')));
    const t2 = transport();
    await send(t2, closing.url);
    closing.connections[0]!.end();
    await expect.poll(() => closing.connections[0]!.closed).toBe(true);
    expect((await send(t2, closing.url)).status).toBe(200);
    expect(closing.connections).toHaveLength(2);
  });

  it('a response followed by bytes it did not frame (a forged second answer) ends the connection', async () => {
    const server = await rawServer((s, _req, n) => s.write(n === 0 ? ok('{"real":0}') + ok('{"forged":true}') : ok(`{"real":${n}}`)));
    const t = transport();
    expect((await send(t, server.url)).body).toBe('{"real":0}');
    expect((await send(t, server.url)).body).toBe('{"real":1}');
    expect(server.connections).toHaveLength(2);
  });

  it('reads chunked answers (SSE, as MCP servers send) trickled a few bytes at a time', async () => {
    const event = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const body = `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n${event.length.toString(16)}\r\n${event}\r\n0\r\n\r\n`;
    const server = await rawServer((s) => {
      let at = 0;
      const next = (): void => {
        if (at >= body.length) return;
        s.write(body.slice(at, (at += 7)), () => setImmediate(next));
      };
      next();
    });
    const res = await send(transport(), server.url);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.body).toBe(event);
  });

  it('refuses a header value that would break the request (a server-given token with CR LF) and sends nothing', async () => {
    const server = await rawServer((s) => s.write(ok('{}')));
    const t = transport();
    await expect(send(t, server.url, { headers: { authorization: 'Bearer x\r\nX-Injected: 1' } })).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    await expect(send(t, server.url, { headers: { 'bad name': 'x' } })).rejects.toMatchObject({ code: 'ERR_INVALID_HTTP_TOKEN' });
    await expect(send(t, server.url, { method: 'GET /x HTTP/1.1\r\n' })).rejects.toMatchObject({ code: 'ERR_INVALID_HTTP_TOKEN' });
    await expect(send(t, server.url.replace('http:', 'ftp:'))).rejects.toMatchObject({ code: 'ERR_INVALID_PROTOCOL' });
    expect(server.connections).toHaveLength(0);
  });

  it('through the client: hostile answers are one line each, and the deadline holds against a slow head', async () => {
    const answers: Record<string, (s: Socket) => void> = {
      '/flood': (s) => s.write(`HTTP/1.1 200 OK\r\n${'X-Flood: aaaaaaaaaaaaaaaa\r\n'.repeat(2000)}`),
      '/escape': (s) => s.write('HTTP/1.1 200 OK\r\nX-Title: \x1b]0;pwned\x07\r\nContent-Length: 0\r\n\r\n'),
      '/smuggle': (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 100\r\n\r\n{'),
      '/half': (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":'),
      '/silent': (s) => s.end(),
      '/huge': (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n'),
      '/slow': (s) => s.write('HTTP/1.1 200 OK\r\n'),
    };
    const server = await rawServer((s, req) => answers[/^POST (\S+)/.exec(req)![1]!]!(s));
    const http = createHttpClient({ timeoutMs: 300 });
    cleanup.push(() => http.close());
    const failure = async (path: string) => {
      const err = await http.request(`${server.url}${path}`, { method: 'POST', body: '{}' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, path).toBeInstanceOf(FlowError);
      const message = (err as Error).message;
      expect(message).not.toMatch(/[\x00-\x1f]/);
      return message;
    };
    expect(await failure('/flood')).toMatch(/not valid HTTP\/1\.1: its head is larger than 16384 bytes/);
    expect(await failure('/escape')).toMatch(/X-Title field has a control character/);
    expect(await failure('/smuggle')).toMatch(/Content-Length is not one number/);
    expect(await failure('/half')).toMatch(/closed the connection mid-response \(ECONNRESET\)/);
    expect(await failure('/silent')).toMatch(/socket hang up \(ECONNRESET\)/);
    expect(await failure('/huge')).toMatch(/response larger than 10485760 bytes/);
    expect(await failure('/slow')).toMatch(/timed out after 300 ms/);
  });

  it('a process with a kept-alive idle connection still exits (the idle socket holds no event loop)', async () => {
    const server = await rawServer((s) => s.write(ok('{"done":true}')));
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const script = `
      const { createSocketTransport } = await import(${JSON.stringify(new URL('../../dist/client/http-socket.js', import.meta.url).href)});
      const { RequestDeadline } = await import(${JSON.stringify(new URL('../../dist/client/http-deadline.js', import.meta.url).href)});
      const t = createSocketTransport({});
      const deadline = new RequestDeadline(60_000);
      const res = await t.send({ url: process.argv[1], method: 'GET', headers: {}, abort: deadline, maxBytes: 1000 });
      deadline.clear();
      process.stdout.write(res.body);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, server.url], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.on('close', r));
    expect([code, out]).toEqual([0, '{"done":true}']);
    expect(server.connections).toHaveLength(1);
  });
});
