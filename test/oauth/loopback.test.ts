import { describe, expect, it } from 'vitest';
import { hostOfHeader, isLoopbackHost, loopbackBindAddress } from '../../src/oauth/loopback.js';

// The one answer to "is this host loopback?" (RFC 8252 section 8.3, RFC 6761 section 6.3), and the
// address a redirect listener binds for it: always an IP literal, never a name.
const TABLE: readonly [host: string, loopback: boolean, binds: string | undefined][] = [
  ['127.0.0.1', true, '127.0.0.1'],
  ['127.255.3.9', true, '127.255.3.9'],
  ['::1', true, '::1'],
  ['[::1]', true, '::1'],
  ['0:0:0:0:0:0:0:1', true, '::1'],
  ['[0000::0001]', true, '::1'],
  ['::ffff:127.0.0.1', true, '127.0.0.1'],
  // How a URL writes it: new URL('http://[::ffff:127.0.0.1]/').hostname.
  ['[::ffff:7f00:1]', true, '127.0.0.1'],
  ['[::FFFF:7F00:2]', true, '127.0.0.2'],
  ['localhost', true, '127.0.0.1'],
  ['LOCALHOST', true, '127.0.0.1'],
  ['localhost.', true, '127.0.0.1'],
  ['app.localhost', true, '127.0.0.1'],
  ['app.localhost.', true, '127.0.0.1'],
  ['0.0.0.0', false, undefined],
  ['::', false, undefined],
  ['[::]', false, undefined],
  ['::2', false, undefined],
  ['::ffff:10.0.0.1', false, undefined],
  ['::ffff:7f00:1:1', false, undefined],
  ['128.0.0.1', false, undefined],
  ['10.0.0.1', false, undefined],
  ['127.1', false, undefined],
  ['127.0.0.1.nip.io', false, undefined],
  ['localhost.example', false, undefined],
  ['notlocalhost', false, undefined],
  ['localhost..', false, undefined],
  ['example.com', false, undefined],
  ['', false, undefined],
  ['[', false, undefined],
];

describe('isLoopbackHost and loopbackBindAddress', () => {
  it.each(TABLE)('%j: loopback %s, binds %s', (host, loopback, binds) => {
    expect(isLoopbackHost(host)).toBe(loopback);
    expect(loopbackBindAddress(host)).toBe(binds);
  });

  it('agrees with the URL parser: a redirect URI host as new URL() gives it', () => {
    for (const [uri, binds] of [
      ['http://127.0.0.1:8080/cb', '127.0.0.1'],
      ['http://[::1]/cb', '::1'],
      ['http://[::ffff:127.0.0.1]/cb', '127.0.0.1'],
      ['http://LocalHost/cb', '127.0.0.1'],
      ['http://0x7f000001/cb', '127.0.0.1'],
      ['http://evil.example/cb', undefined],
    ] as const) {
      expect(loopbackBindAddress(new URL(uri).hostname), uri).toBe(binds);
    }
  });
});

describe('hostOfHeader', () => {
  it.each([
    ['127.0.0.1:8080', '127.0.0.1'],
    ['[::1]:8080', '[::1]'],
    ['[::1]', '[::1]'],
    ['localhost', 'localhost'],
    ['[::1', '[::1'],
  ])('%j -> %j', (header, host) => {
    expect(hostOfHeader(header)).toBe(host);
  });
});
