import { isIP } from 'node:net';

/** True for a loopback address or name: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost (RFC 6761 section 6.3). */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = name.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost')) return true;
  if (isIP(lower) === 4) return lower.startsWith('127.');
  if (isIP(lower) === 6) return lower === '::1' || /^(0{0,4}:){2,7}0{0,3}1$/.test(lower) || /^::ffff:127\./.test(lower);
  return false;
}

/** The host name of a Host header (RFC 9110 section 7.2), without the port. */
export function hostOfHeader(header: string): string {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return end < 0 ? header : header.slice(0, end + 1);
  }
  const colon = header.indexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}

/**
 * Whether the admin API answers, from the listening host and --admin: on loopback it is on (for requests
 * whose Host is a loopback name, against DNS rebinding); beyond loopback only with --admin, because
 * whoever reaches it can mint tokens.
 */
export function adminMode(listenHost: string, admin?: boolean): 'off' | 'loopback' | 'any' {
  if (admin === true) return 'any';
  if (admin === false) return 'off';
  return isLoopbackHost(listenHost) ? 'loopback' : 'off';
}
