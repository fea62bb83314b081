import { isIP } from 'node:net';

/**
 * Whether a host is loopback: where plain http is allowed and a redirect URI's port may vary
 * (RFC 8252 sections 7.3 and 8.3), and where the mock's admin API answers. One answer for the client,
 * the audit and the mock. `host` as a URL's hostname or a Host header's has it (an IPv6 address in
 * brackets or not), case-insensitive:
 * - an IPv4 address in 127.0.0.0/8 (RFC 1122 section 3.2.1.3), written as four decimal numbers;
 * - the IPv6 loopback address ::1 in any spelling, and the IPv4-mapped form of a 127.0.0.0/8
 *   address (RFC 4291 section 2.5.5.2: `::ffff:127.0.0.1`, which a URL writes `[::ffff:7f00:1]`);
 * - the name `localhost` and any name under it (`app.localhost`), with or without the final dot
 *   of an absolute name (RFC 6761 section 6.3: they resolve to loopback only).
 * Anything else (0.0.0.0, `127.1`, a name that merely resolves to 127.0.0.1) is not.
 */
export function isLoopbackHost(host: string): boolean {
  const name = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return ipv6Loopback(name) !== undefined;
  const absolute = name.endsWith('.') ? name.slice(0, -1) : name;
  return absolute === 'localhost' || absolute.endsWith('.localhost');
}

/**
 * The address a loopback listener binds for a redirect URI's host: the IP literal itself (an
 * IPv4-mapped one as its IPv4 address), and 127.0.0.1 for a localhost name (RFC 8252 section 8.3: a
 * name could resolve elsewhere, so no name is ever bound); undefined when the host is not loopback.
 */
export function loopbackBindAddress(host: string): string | undefined {
  if (!isLoopbackHost(host)) return undefined;
  const name = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (isIP(name) === 4) return name;
  if (isIP(name) === 6) return ipv6Loopback(name);
  return '127.0.0.1';
}

/** The host of a Host header (RFC 9110 section 7.2), without the port; an IPv6 address keeps its brackets. */
export function hostOfHeader(header: string): string {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return end < 0 ? header : header.slice(0, end + 1);
  }
  const colon = header.indexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}

/** For an IPv6 loopback address: the address to bind (`::1`, or the IPv4 address a mapped one stands for). */
function ipv6Loopback(name: string): string | undefined {
  const groups = expandIpv6(name);
  if (groups === undefined) return undefined;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return '::1';
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (!mapped || groups[6]! >> 8 !== 127) return undefined;
  return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
}

/** The eight 16-bit groups of a valid IPv6 address (isIP said so), a trailing dotted IPv4 part included. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : undefined;
}
