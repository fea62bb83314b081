import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { createHttpClient, type HttpClient } from '../../../src/client/http/http.js';
import { FlowError } from '../../../src/errors.js';
import { rawServer } from '../../http/raw-server.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function client(timeoutMs: number): HttpClient {
  const http = createHttpClient({ timeoutMs });
  cleanup.push(() => http.close());
  return http;
}

/** The one line a failed request gives: a FlowError without a control character. */
async function failure(http: HttpClient, url: string): Promise<string> {
  const err = await http.request(url, { method: 'POST', body: '{}' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, url).toBeInstanceOf(FlowError);
  const message = (err as Error).message;
  expect(message).not.toMatch(/[\x00-\x1f\x7f]/);
  return message;
}

/** A server that answers each request by its path with the raw bytes given. */
async function answering(answers: Record<string, (s: Socket) => void>): Promise<string> {
  const server = await rawServer(
    (s, req) => answers[/^POST (\S+)/.exec(req)![1]!]!(s),
    (fn) => cleanup.push(fn),
  );
  return server.url;
}

describe('what the client makes of hostile and broken answers (Node http, llhttp)', () => {
  it('each is one line, and the deadline holds against a slow head', async () => {
    const url = await answering({
      '/flood': (s) => s.write(`HTTP/1.1 200 OK\r\n${'X-Flood: aaaaaaaaaaaaaaaa\r\n'.repeat(2000)}`),
      '/escape': (s) => s.write('HTTP/1.1 200 OK\r\nX-Title: \x1b]0;pwned\x07\r\nContent-Length: 0\r\n\r\n'),
      '/smuggle': (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 100\r\n\r\n{'),
      '/half': (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":'),
      '/half-chunked': (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n'),
      '/silent': (s) => s.end(),
      '/huge': (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n'),
      '/slow': (s) => s.write('HTTP/1.1 200 OK\r\n'),
    });
    const http = client(300);
    expect(await failure(http, `${url}/flood`)).toMatch(/not valid HTTP\/1\.1: Header overflow \(HPE_HEADER_OVERFLOW\)/);
    expect(await failure(http, `${url}/escape`)).toMatch(/not valid HTTP\/1\.1: Invalid header value char/);
    expect(await failure(http, `${url}/smuggle`)).toMatch(/not valid HTTP\/1\.1: Duplicate Content-Length/);
    expect(await failure(http, `${url}/half`)).toMatch(/closed the connection mid-response \(ECONNRESET\)/);
    expect(await failure(http, `${url}/half-chunked`)).toMatch(/closed the connection mid-response \(ECONNRESET\)/);
    expect(await failure(http, `${url}/silent`)).toMatch(/socket hang up \(ECONNRESET\)/);
    expect(await failure(http, `${url}/huge`)).toMatch(/response larger than 10485760 bytes/);
    expect(await failure(http, `${url}/slow`)).toMatch(/timed out after 300 ms/);
  });

  it('the cases where a lenient reader differed from llhttp fail at once with the reason, not at the deadline', async () => {
    const url = await answering({
      // RFC 9112 section 6.3: Transfer-Encoding with Content-Length "ought to be handled as an error".
      '/te-and-cl': (s) => s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n2\r\n{}\r\n0\r\n\r\n'),
      // Section 5.2: obs-fold, here on the framing fields.
      '/folded-length': (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length:\r\n 2\r\n\r\n{}'),
      '/folded-te': (s) => s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\n chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'),
      // Section 2.2: a bare LF as a line end.
      '/bare-lf': (s) => s.write('HTTP/1.1 200 OK\nContent-Length: 2\n\n{}'),
      '/banner': (s) => s.write('SSH-2.0-OpenSSH_9.6\r\n'),
    });
    const http = client(60_000);
    const started = Date.now();
    expect(await failure(http, `${url}/te-and-cl`)).toMatch(/not valid HTTP\/1\.1: Content-Length can't be present with Transfer-Encoding \(HPE_/);
    expect(await failure(http, `${url}/folded-length`)).toMatch(/not valid HTTP\/1\.1: .* \(HPE_/);
    expect(await failure(http, `${url}/folded-te`)).toMatch(/not valid HTTP\/1\.1: .* \(HPE_/);
    expect(await failure(http, `${url}/bare-lf`)).toMatch(/not valid HTTP\/1\.1: Missing expected CR after response line \(HPE_CR_EXPECTED\)/);
    expect(await failure(http, `${url}/banner`)).toMatch(/not valid HTTP\/1\.1: Expected HTTP\/.* \(HPE_INVALID_CONSTANT\)/);
    // Five refusals, each as soon as the bytes came: nowhere near the minute's deadline.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a Transfer-Encoding: chunked the user gives frames the body as chunks, with no Content-Length beside it', async () => {
    const seen: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())).then(() => undefined));
    cleanup.push(() => server.closeAllConnections());
    const http = client(10_000);
    const res = await http.request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'Transfer-Encoding': 'chunked' },
      body: 'a=b',
    });
    expect(res.status).toBe(200);
    expect(seen[0]!.body).toBe('a=b');
    expect(seen[0]!.headers['transfer-encoding']).toBe('chunked');
    expect(seen[0]!.headers['content-length']).toBeUndefined();
  });
});
