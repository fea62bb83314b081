/** Loopback hosts (RFC 8252 sections 7.3 and 8.3): http is allowed there, and a redirect URI's port may vary. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
