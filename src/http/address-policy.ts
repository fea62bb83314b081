import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';

/**
 * Where an outbound request made for someone else (a client's metadata document, its jwks_uri, its
 * back-channel endpoints) may connect: a server-side request forgery guard (OWASP SSRF prevention).
 * The check is made on the address the socket is about to use, inside the DNS lookup that the
 * connection itself calls (the `lookup` option of http.request, handed to the socket it opens), so
 * the name cannot resolve to one address when checked and to another when connected (no
 * time-of-check/time-of-use gap, no DNS rebinding). Node calls no lookup for an IP literal: check those with checkHost.
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'unique-local' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

export interface AddressPolicy {
  /** Private (RFC 1918, RFC 6598) and unique-local (RFC 4193) addresses allowed: a lab's network. */
  privateNetworks: boolean;
}

/** The addresses a policy lets through: loopback (tests live there) and the public internet, and a lab's own ranges when allowed. */
export function isAllowed(kind: AddressKind, policy: AddressPolicy): boolean {
  if (kind === 'public' || kind === 'loopback') return true;
  return policy.privateNetworks && (kind === 'private' || kind === 'unique-local');
}

/** The refusal: `host` resolved (or is) `address`, of a kind the policy forbids. Never a network error: nothing was sent. */
export class ForbiddenAddressError extends Error {
  readonly code = 'EADDRFORBIDDEN';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: AddressKind,
  ) {
    // The address a name resolved to stays out of the message (kept in `address`): a refusal must not
    // tell whoever named the host what the mock's DNS says about the inside of its network.
    const a = kind === 'unspecified' ? 'an' : 'a';
    super(host === address ? `${host} is ${a} ${kind} address` : `${host} resolves to ${a} ${kind} address`);
    this.name = 'ForbiddenAddressError';
  }
}

/** a.b.c.d as a 32-bit number, or undefined when it is not dotted-quad IPv4. */
function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

const inV4 = (n: number, base: string, bits: number) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(ipv4Number(base)! / 2 ** (32 - bits));

function classifyV4(n: number): AddressKind {
  if (inV4(n, '0.0.0.0', 8)) return 'unspecified'; // RFC 1122 section 3.2.1.3: "this host on this network"
  if (inV4(n, '127.0.0.0', 8)) return 'loopback';
  if (inV4(n, '169.254.0.0', 16)) return 'link-local'; // RFC 3927; the cloud metadata endpoints
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16)) return 'private'; // RFC 1918
  if (inV4(n, '100.64.0.0', 10)) return 'private'; // RFC 6598 shared address space (carrier NAT; some clouds' metadata)
  if (inV4(n, '224.0.0.0', 4)) return 'multicast'; // RFC 5771
  if (inV4(n, '240.0.0.0', 4)) return 'reserved'; // RFC 1112 section 4, and the broadcast address
  return 'public';
}

/** The 16 bytes of an IPv6 address (a zone index dropped, a dotted IPv4 tail read), or undefined. */
function ipv6Bytes(text: string): number[] | undefined {
  let rest = text.replace(/%.*$/, '').toLowerCase();
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted) {
    const n = ipv4Number(dotted[1]!);
    if (n === undefined) return undefined;
    tail.push(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
    rest = `${rest.slice(0, dotted.index)}:0:0`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const back = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - back.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...back];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  const bytes = all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

const v4At = (b: number[], at: number) => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
const zero = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);

function classifyV6(b: number[]): AddressKind {
  if (zero(b, 0, 16)) return 'unspecified'; // ::
  if (zero(b, 0, 15) && b[15] === 1) return 'loopback'; // ::1
  // An IPv4 address inside is judged as that address: IPv4-mapped ::ffff:0:0/96 (RFC 4291 section
  // 2.5.5.2), IPv4-compatible ::/96 (2.5.5.1), SIIT ::ffff:0:0:0/96 (RFC 6052 section 2.1, RFC 7915),
  // NAT64 64:ff9b::/96 (RFC 6052) and 64:ff9b:1::/48 (RFC 8215), 6to4 2002::/16 (RFC 3056).
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(v4At(b, 12));
  if (zero(b, 0, 12)) return classifyV4(v4At(b, 12));
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) return classifyV4(v4At(b, 12));
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && (zero(b, 4, 12) || (b[4] === 0 && b[5] === 1))) return classifyV4(v4At(b, 12));
  if (b[0] === 0x20 && b[1] === 0x02) return classifyV4(v4At(b, 2));
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local'; // fe80::/10 (RFC 4291 section 2.5.6)
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'private'; // fec0::/10, site-local (RFC 3879: deprecated, still routed inside sites)
  if ((b[0]! & 0xfe) === 0xfc) return 'unique-local'; // fc00::/7 (RFC 4193)
  if (b[0] === 0xff) return 'multicast'; // ff00::/8 (RFC 4291 section 2.7)
  return 'public';
}

/** What kind of address an IP literal is (IPv4 dotted quad, or IPv6 with or without brackets); undefined when it is not one. */
export function classifyAddress(address: string): AddressKind | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = ipv4Number(bare);
  if (v4 !== undefined) return classifyV4(v4);
  if (!bare.includes(':')) return undefined;
  const v6 = ipv6Bytes(bare);
  return v6 === undefined ? undefined : classifyV6(v6);
}

/**
 * For a URL's host that is an IP literal (for which Node calls no lookup): the refusal when the policy
 * forbids it, else undefined (a name is left to guardedLookup, at connect time). `hostname` as
 * `URL.hostname` gives it: IPv4 in dotted-quad form already, IPv6 in brackets.
 */
export function checkHost(hostname: string, policy: AddressPolicy): ForbiddenAddressError | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) === 0) return undefined;
  const kind = classifyAddress(bare)!;
  return isAllowed(kind, policy) ? undefined : new ForbiddenAddressError(bare, bare, kind);
}

type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The signature of dns.lookup as the socket of an http.request calls it (its `lookup` option). */
export type LookupFunction = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for http.request and https.request: resolves the name as dns.lookup does, and
 * fails with ForbiddenAddressError when any address it resolves to is one the policy forbids (a name
 * with one public and one private address is refused: which one a connection would use is not ours to
 * choose). `resolve` is dns.lookup; tests give another.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const kind = classifyAddress(address) ?? 'reserved';
        if (!isAllowed(kind, policy)) return callback(new ForbiddenAddressError(hostname, address, kind), []);
      }
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Resolves a URL's host now and says whether the policy forbids it (for an early answer, at
 * registration; the connection checks again itself). A name that does not resolve is not refused
 * here: that fails when it is fetched.
 */
export async function checkUrlNow(url: URL, policy: AddressPolicy, resolve: Resolver = dnsLookup): Promise<ForbiddenAddressError | undefined> {
  const literal = checkHost(url.hostname, policy);
  if (literal !== undefined || isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) return literal;
  const lookup = guardedLookup(policy, resolve);
  return new Promise((done) => lookup(url.hostname, { all: true }, (err) => done(err instanceof ForbiddenAddressError ? err : undefined)));
}
