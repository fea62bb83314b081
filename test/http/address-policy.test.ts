import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkHost, checkUrlNow, classifyAddress, ForbiddenAddressError, guardedLookup, isAllowed, type AddressKind } from '../../src/http/address-policy.js';

const CLOSED = { privateNetworks: false };
const LAB = { privateNetworks: true };

describe('classifyAddress', () => {
  const cases: [string, AddressKind][] = [
    // IPv4: each range at its edges, and the first address past them.
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.167.255.255', 'public'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['8.8.8.8', 'public'],
    // IPv6.
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'private'],
    ['fc00::', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
    ['fe00::1', 'public'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['[fd00::1]', 'unique-local'],
    // IPv4 inside IPv6: judged by the IPv4 address.
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::FFFF:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['0:0:0:0:0:ffff:192.168.1.1', 'private'],
    ['::10.0.0.1', 'private'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:c0a8:0101::', 'private'],
    ['2002:0808:0808::1', 'public'],
  ];
  it.each(cases)('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('a name or a malformed address is not an address', () => {
    for (const text of ['localhost', 'example.com', '10.0.0', '10.0.0.256', '1.2.3.4.5', '::ffff:10.0.0.999', '1::2::3', 'gggg::1', '1:2:3:4:5:6:7:8:9', ''])
      expect(classifyAddress(text)).toBeUndefined();
  });
});

describe('the policy', () => {
  it('allows loopback and public always; private and unique-local only for a lab; never link-local, unspecified, multicast, reserved', () => {
    const kinds: AddressKind[] = ['public', 'loopback', 'private', 'unique-local', 'link-local', 'unspecified', 'multicast', 'reserved'];
    expect(kinds.filter((k) => isAllowed(k, CLOSED))).toEqual(['public', 'loopback']);
    expect(kinds.filter((k) => isAllowed(k, LAB))).toEqual(['public', 'loopback', 'private', 'unique-local']);
  });

  it('checkHost judges an IP literal as URL.hostname gives it, and leaves a name to the lookup', () => {
    const host = (url: string) => new URL(url).hostname;
    expect(checkHost(host('https://169.254.169.254/latest/meta-data'), CLOSED)?.message).toBe('169.254.169.254 is a link-local address');
    expect(checkHost(host('https://[fd00::1]/doc'), CLOSED)?.kind).toBe('unique-local');
    expect(checkHost(host('https://[::ffff:10.0.0.1]/doc'), CLOSED)?.kind).toBe('private');
    // The URL parser turns other IPv4 spellings into the dotted quad first.
    expect(checkHost(host('http://0xa9fea9fe/'), CLOSED)?.address).toBe('169.254.169.254');
    expect(checkHost(host('http://2852039166/'), CLOSED)?.address).toBe('169.254.169.254');
    expect(checkHost(host('http://0/'), CLOSED)?.kind).toBe('unspecified');
    expect(checkHost(host('https://10.1.2.3/'), LAB)).toBeUndefined();
    expect(checkHost(host('http://127.0.0.1:8080/'), CLOSED)).toBeUndefined();
    expect(checkHost(host('https://metadata.internal/'), CLOSED)).toBeUndefined();
  });
});

/** A resolver that answers fixed addresses, as dns.lookup with all: true would. */
const resolvingTo =
  (...addresses: string[]) =>
  (_host: string, _options: unknown, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

function lookupOnce(lookup: ReturnType<typeof guardedLookup>, options: { all?: boolean }): Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }> {
  return new Promise((resolve) => lookup('db.internal.example', options as never, (err, address, family) => resolve({ err, address, family })));
}

describe('guardedLookup', () => {
  it('refuses a name that resolves to a forbidden address, naming the kind but not the address', async () => {
    const { err } = await lookupOnce(guardedLookup(CLOSED, resolvingTo('10.20.30.40')), {});
    expect(err).toBeInstanceOf(ForbiddenAddressError);
    expect(err?.message).toBe('db.internal.example resolves to a private address');
    expect((err as ForbiddenAddressError).address).toBe('10.20.30.40');
    expect(err?.code).toBe('EADDRFORBIDDEN');
  });

  it('refuses when any of the addresses is forbidden (the connection is not ours to steer)', async () => {
    const { err } = await lookupOnce(guardedLookup(CLOSED, resolvingTo('93.184.215.14', '::ffff:169.254.169.254')), { all: true });
    expect((err as ForbiddenAddressError).kind).toBe('link-local');
  });

  it('answers as dns.lookup does when allowed: one address, or all of them', async () => {
    expect(await lookupOnce(guardedLookup(CLOSED, resolvingTo('93.184.215.14')), {})).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    const all = await lookupOnce(guardedLookup(LAB, resolvingTo('10.0.0.1', 'fd00::1')), { all: true });
    expect(all.address).toEqual([
      { address: '10.0.0.1', family: 4 },
      { address: 'fd00::1', family: 6 },
    ]);
  });

  it('passes a resolver error on unchanged', async () => {
    const failing = (_h: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => cb(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    expect((await lookupOnce(guardedLookup(CLOSED, failing), {})).err?.code).toBe('ENOTFOUND');
  });

  it('checkUrlNow resolves a name at once (registration), an IP literal without a resolver', async () => {
    expect((await checkUrlNow(new URL('https://keys.example/jwks'), CLOSED, resolvingTo('192.168.1.10')))?.kind).toBe('private');
    expect(await checkUrlNow(new URL('https://keys.example/jwks'), LAB, resolvingTo('192.168.1.10'))).toBeUndefined();
    expect((await checkUrlNow(new URL('https://[fe80::1]/jwks'), LAB))?.kind).toBe('link-local');
    expect(await checkUrlNow(new URL('http://localhost:1/jwks'), CLOSED)).toBeUndefined();
  });

  it('is what http.get calls for a name: localhost (loopback) is fetched through it', async () => {
    const server = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const body = await new Promise<string>((resolve, reject) => {
        get(`http://localhost:${port}/`, { lookup: guardedLookup(CLOSED) }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        }).on('error', reject);
      });
      expect(body).toBe('ok');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
