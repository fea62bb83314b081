import { afterEach, describe, expect, it } from 'vitest';
import { ResponseTooLarge, type Outbound, type OutboundRequest } from '../../src/http/outbound.js';
import { createOutbound } from '../../src/http/request.js';
import { RequestDeadline } from '../../src/http/deadline.js';
import { ok, rawServer as rawServerOf } from './raw-server.js';

const cleanup: (() => Promise<void> | void)[] = [];
const rawServer = (answer: Parameters<typeof rawServerOf>[0]) => rawServerOf(answer, (fn) => cleanup.push(fn));
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function outbound(options: Parameters<typeof createOutbound>[0] = {}): Outbound {
  const o = createOutbound(options);
  cleanup.push(() => o.close());
  return o;
}

/** A deadline far away, cleared after the test. */
function noDeadline(): RequestDeadline {
  const deadline = new RequestDeadline(60_000);
  cleanup.push(() => deadline.clear());
  return deadline;
}

const send = (o: Outbound, url: string, extra: Partial<OutboundRequest> = {}) =>
  o.send({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":"\u00e9"}', abort: noDeadline(), maxBytes: 1 << 20, ...extra });

describe('outbound requests (src/http: node:http)', () => {
  it('sends the request with its body in UTF-8, reads the answer, and reuses the connection for the next one', async () => {
    const server = await rawServer((s, _req, n) => s.write(ok(`{"n":${n}}`)));
    const o = outbound();
    const first = await send(o, `${server.url}/mcp?x=1`);
    const second = await send(o, `${server.url}/mcp?x=1`);
    expect([first.status, first.body, second.body]).toEqual([200, '{"n":0}', '{"n":1}']);
    expect(first.headers['content-type']).toBe('application/json');
    expect(server.connections).toHaveLength(1);
    expect(server.received[0]).toMatch(/^POST \/mcp\?x=1 HTTP\/1\.1\r\n/);
    expect(server.received[0]).toMatch(/\r\ncontent-length: 10\r\n/i);
    expect(server.received[0]).toContain('{"n":"\u00c3\u00a9"}');
  });

  it('sends credentials in the URL as Basic authentication, and no body length on a GET', async () => {
    const server = await rawServer((s) => s.write(ok('{}')));
    await send(outbound(), server.url.replace('//', '//us%20er:p%40ss@'), { method: 'GET', body: undefined, headers: {} });
    expect(server.received[0]).toMatch(new RegExp(`\\r\\nauthorization: Basic ${Buffer.from('us er:p@ss').toString('base64')}\\r\\n`, 'i'));
    expect(server.received[0]).not.toMatch(/content-length|us%20er/i);
  });

  it('a server that closes the connection after each answer without saying so: every request is answered', async () => {
    // Closed as the next request arrives on the kept connection: nothing of an answer came, so the
    // request is sent once more on a fresh connection.
    const closing = await rawServer((s, _req, n, onConnection) => (onConnection === 0 ? s.write(ok(`{"n":${n}}`)) : s.destroy()));
    const o = outbound();
    expect((await send(o, closing.url)).body).toBe('{"n":0}');
    expect((await send(o, closing.url)).body).toBe('{"n":2}');
    expect(closing.connections).toHaveLength(2);
    // Ended right after each answer, no Connection: close: however the close and the next request meet.
    const ending = await rawServer((s, _req, n) => s.end(ok(`{"n":${n}}`)));
    const o2 = outbound();
    for (let i = 0; i < 5; i++) expect((await send(o2, ending.url)).status).toBe(200);
  });

  it('a request on a fresh connection that the server drops is not sent again', async () => {
    const server = await rawServer((s) => s.destroy());
    await expect(send(outbound(), server.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(server.connections).toHaveLength(1);
  });

  it('a response followed by bytes it did not frame (a forged second answer) ends the connection', async () => {
    const server = await rawServer((s, _req, n) => s.write(n === 0 ? ok('{"real":0}') + ok('{"forged":true}') : ok(`{"real":${n}}`)));
    const o = outbound();
    expect((await send(o, server.url)).body).toBe('{"real":0}');
    await expect.poll(() => server.connections[0]!.closed).toBe(true);
    expect((await send(o, server.url)).body).toBe('{"real":1}');
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
    const res = await send(outbound(), server.url);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.body).toBe(event);
  });

  describe('a stream whose answer has come (enough)', () => {
    const event = (n: number) => `event: message\ndata: {"jsonrpc":"2.0","id":${n},"result":{}}\n\n`;
    const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const enough = (_status: number, _headers: Record<string, string>, body: Buffer) => body.includes('\n\n');
    /** Resolves when the server has seen `socket` closed. */
    const closed = (socket: import('node:net').Socket) => new Promise<void>((r) => (socket.destroyed ? r() : socket.once('close', () => r())));

    it('answers at once, and a stream the server then ends leaves its connection for the next request', async () => {
      // As an MCP server's POST: the response event, then (a moment later) the stream's end.
      const server = await rawServer((s, _req, n) => {
        s.write(head + chunk(event(n)));
        setImmediate(() => s.write('0\r\n\r\n'));
      });
      const o = outbound();
      const first = await send(o, server.url, { enough });
      expect(first.body).toBe(event(0));
      const second = await send(o, server.url, { enough });
      expect(second.body).toBe(event(1));
      // The second request went on the first connection once the first stream ended, or on a second one if
      // it was sent before that end arrived: never more than two, and the first is not closed by oauthctl.
      expect(server.connections.length).toBeLessThanOrEqual(2);
      const third = await send(o, server.url, { enough });
      expect(third.body).toBe(event(2));
      expect(server.connections.length).toBeLessThanOrEqual(2);
    });

    it('a stream the server keeps open after the answer is closed after a short grace, and never reused', async () => {
      const server = await rawServer((s, _req, n) => s.write(head + chunk(event(n))));
      const o = outbound();
      expect((await send(o, server.url, { enough })).body).toBe(event(0));
      await closed(server.connections[0]!);
      expect((await send(o, server.url, { enough })).body).toBe(event(1));
      expect(server.connections).toHaveLength(2);
    });

    it('a stream that floods past the limit after its answer is cut off there', async () => {
      const server = await rawServer((s) => {
        s.write(head + chunk(event(0)));
        const flood = chunk('x'.repeat(4096));
        const more = (): void => void (s.destroyed || s.write(flood, () => setImmediate(more)));
        more();
      });
      expect((await send(outbound(), server.url, { enough, maxBytes: 64 * 1024 })).body).toBe(event(0));
      await closed(server.connections[0]!);
      expect(server.connections).toHaveLength(1);
    });
  });

  it('refuses a header value that would break the request (a server-given token with CR LF) and sends nothing', async () => {
    const server = await rawServer((s) => s.write(ok('{}')));
    const o = outbound();
    await expect(send(o, server.url, { headers: { authorization: 'Bearer x\r\nX-Injected: 1' } })).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    await expect(send(o, server.url, { headers: { 'bad name': 'x' } })).rejects.toMatchObject({ code: 'ERR_INVALID_HTTP_TOKEN' });
    await expect(send(o, server.url, { method: 'GET /x HTTP/1.1\r\n' })).rejects.toMatchObject({ code: 'ERR_INVALID_HTTP_TOKEN' });
    await expect(send(o, server.url.replace('http:', 'ftp:'))).rejects.toMatchObject({ code: 'ERR_INVALID_PROTOCOL' });
    expect(server.connections).toHaveLength(0);
  });

  it('bounds the body: a declared length past the limit at once, a body growing past it as it comes; a status whose body is not wanted is not read', async () => {
    const server = await rawServer((s, req) => {
      if (req.startsWith('POST /declared')) s.write('HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n');
      else if (req.startsWith('POST /chunked')) s.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n${'a'.repeat(1024)}\r\n400\r\n${'a'.repeat(1024)}\r\n`);
      else s.write('HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/\r\nContent-Length: 99999999999\r\n\r\n');
    });
    const o = outbound();
    await expect(send(o, `${server.url}/declared`, { maxBytes: 1500 })).rejects.toBeInstanceOf(ResponseTooLarge);
    await expect(send(o, `${server.url}/chunked`, { maxBytes: 1500 })).rejects.toBeInstanceOf(ResponseTooLarge);
    // No redirect is followed: the answer comes back as it came.
    const redirect = await send(o, `${server.url}/moved`, { maxBytes: 1500, readBody: (status) => status === 200 });
    expect([redirect.status, redirect.headers.location, redirect.body]).toEqual([302, 'http://169.254.169.254/', '']);
  });

  it('connects where the lookup option says (the hook of an address policy)', async () => {
    const server = await rawServer((s) => s.write(ok('{"looked":"up"}')));
    const asked: string[] = [];
    const o = outbound({
      keepAlive: false,
      lookup: (hostname, options, callback) => {
        asked.push(hostname);
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
        else callback(null, '127.0.0.1', 4);
      },
    });
    const res = await send(o, server.url.replace('127.0.0.1', 'client.example'));
    expect([res.body, asked]).toEqual(['{"looked":"up"}', ['client.example']]);
    const refusing = outbound({ lookup: (_hostname, _options, callback) => callback(Object.assign(new Error('refused by policy'), { code: 'EACCES' }), '', 0) });
    await expect(send(refusing, server.url.replace('127.0.0.1', 'client.example'))).rejects.toMatchObject({ code: 'EACCES' });
  });

  it('a process with a kept-alive idle connection still exits', async () => {
    const server = await rawServer((s) => s.write(ok('{"done":true}')));
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const script = `
      const { createOutbound } = await import(${JSON.stringify(new URL('../../dist/http/request.js', import.meta.url).href)});
      const { RequestDeadline } = await import(${JSON.stringify(new URL('../../dist/http/deadline.js', import.meta.url).href)});
      const deadline = new RequestDeadline(60_000);
      const res = await createOutbound().send({ url: process.argv[1], method: 'GET', headers: {}, abort: deadline, maxBytes: 1000 });
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
