import { describe, expect, it } from 'vitest';
import { HttpParseError, MAX_HEAD_BYTES, ResponseReader, type ReadResponse } from '../../src/client/http1-response.js';
import { ResponseTooLarge } from '../../src/client/http-transport.js';

/** Feeds a response in pieces cut at the given sizes (cycled), as a connection may deliver it. */
function read(raw: string | Buffer, cuts: number[] = [Infinity], method = 'POST', max = 1 << 20): { res?: ReadResponse; reader: ResponseReader } {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw;
  const reader = new ResponseReader(method, max);
  let at = 0;
  let i = 0;
  while (at < bytes.length) {
    const n = Math.min(cuts[i++ % cuts.length]!, bytes.length - at);
    const res = reader.push(bytes.subarray(at, at + n));
    at += n;
    if (res !== undefined) return { res, reader };
  }
  return { reader };
}

const CUTS = [[Infinity], [1], [2, 3, 5], [7, 1, 13]];

describe('ResponseReader (RFC 9112)', () => {
  it('reads a Content-Length body however the bytes are cut, and leaves the connection open', () => {
    for (const cuts of CUTS) {
      const raw = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n'), Buffer.from('{"a":"\u00e9"}', 'utf8')]);
      const { res, reader } = read(raw, cuts);
      expect(res?.status).toBe(200);
      expect(res?.headers['content-type']).toBe('application/json');
      expect(res?.body.toString('utf8')).toBe('{"a":"\u00e9"}');
      expect(res?.keepAlive).toBe(true);
      expect(reader.leftover).toBe(0);
    }
  });

  it('reads a chunked body with extensions and trailers, cut anywhere', () => {
    const raw = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\n';
    for (const cuts of CUTS) {
      const { res } = read(raw, cuts);
      expect(res?.body.toString()).toBe('Wikipedia in\r\n\r\nchunks.');
      expect(res?.keepAlive).toBe(true);
    }
  });

  it('a body of 100,000 one-byte chunks is read whole (the body grows in one buffer, not a piece per chunk)', () => {
    const text = Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const raw = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${[...text].map((c) => `1\r\n${c}\r\n`).join('')}0\r\n\r\n`;
    for (const cuts of [[Infinity], [4093]]) expect(read(raw, cuts).res?.body.toString()).toBe(text);
  });

  it('a body without framing runs to the close, and the connection is not kept', () => {
    const { res, reader } = read('HTTP/1.0 200 OK\r\n\r\nall of it', [3]);
    expect(res).toBeUndefined();
    const done = reader.end();
    expect(done.body.toString()).toBe('all of it');
    expect(done.keepAlive).toBe(false);
  });

  it('skips interim responses; HEAD, 204 and 304 have no body', () => {
    expect(read('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok').res?.status).toBe(201);
    expect(read('HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n', undefined, 'HEAD').res?.body.length).toBe(0);
    expect(read('HTTP/1.1 204 No Content\r\n\r\n').res?.status).toBe(204);
    expect(read('HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\n\r\n').res?.status).toBe(304);
  });

  it('joins repeated fields as node:http does; an obs-fold becomes a space', () => {
    const { res } = read(
      'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm="a"\r\nwww-authenticate: DPoP algs="ES256"\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Type: text/plain\r\nContent-Type: text/html\r\nX-Long: one\r\n  two\r\nContent-Length: 0\r\n\r\n',
    );
    expect(res?.headers['www-authenticate']).toBe('Bearer realm="a", DPoP algs="ES256"');
    expect(res?.headers['set-cookie']).toBe('a=1\nb=2');
    expect(res?.headers['content-type']).toBe('text/plain');
    expect(res?.headers['x-long']).toBe('one two');
  });

  it('Connection: close, and bytes after the response, end the connection', () => {
    expect(read('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').res?.keepAlive).toBe(false);
    const { res, reader } = read('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged');
    expect(res?.body.toString()).toBe('ok');
    expect(reader.leftover).toBeGreaterThan(0);
    expect(res?.keepAlive).toBe(false);
  });

  it('refuses what a hostile server could smuggle or stall with', () => {
    const bad = [
      ['HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n', 'CRLF'],
      ['HTTP/1.1 200 OK\r\nX-Evil: \x1b]0;owned\x07\r\nContent-Length: 0\r\n\r\n', 'control character'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc', 'Content-Length'],
      ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'Content-Length'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n', 'Content-Length'],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'hexadecimal'],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n', 'CRLF'],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' + 'f'.repeat(2000), 'too long'],
      ['HTTP/2 200\r\n\r\n', 'status line'],
      ['SSH-2.0-OpenSSH\r\n\r\n', 'status line'],
      ['HTTP/1.1 101 Switching Protocols\r\n\r\n', '101'],
      ['HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n', 'field name'],
      ['HTTP/1.1 200 OK\r\n' + 'X: y\r\n'.repeat(MAX_HEAD_BYTES / 5) + '\r\n', 'larger than'],
      ['HTTP/1.1 200 OK\r\n' + 'X: y\r\n'.repeat(MAX_HEAD_BYTES / 5), 'larger than'],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n' + 'T: x\r\n'.repeat(MAX_HEAD_BYTES / 5), 'trailer'],
    ] as const;
    for (const [raw, says] of bad) {
      for (const cuts of [[Infinity], [3]]) expect(() => read(raw, cuts), JSON.stringify(raw.slice(0, 60))).toThrow(HttpParseError);
      expect(() => read(raw)).toThrow(says);
    }
  });

  it('cuts off a body over the limit: at once for a declared length, as it comes for the others', () => {
    expect(() => read('HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n', undefined, 'GET', 1000)).toThrow(ResponseTooLarge);
    const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' + '100\r\n' + 'x'.repeat(256) + '\r\n'.repeat(1) + '400\r\n';
    expect(() => read(chunked, undefined, 'GET', 1000)).toThrow(ResponseTooLarge);
    expect(() => read('HTTP/1.0 200 OK\r\n\r\n' + 'x'.repeat(1001), [100], 'GET', 1000)).toThrow(ResponseTooLarge);
    expect(read('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n' + 'x'.repeat(1000), [64], 'GET', 1000).res?.body.length).toBe(1000);
  });

  it('a close before the response ends is an error, named as node:http names it', () => {
    const none = new ResponseReader('POST', 100);
    expect(() => none.end()).toThrow('socket hang up');
    const { reader } = read('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf');
    expect(() => reader.end()).toThrow('mid-response');
    const { reader: chunked } = read('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nhalf\r\n');
    expect(() => chunked.end()).toThrow('mid-response');
  });
});
