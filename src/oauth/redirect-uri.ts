import { isLoopbackHost } from './loopback.js';

/**
 * Which redirect URIs a client may register, one rule for every way a client comes to a server
 * (configuration, dynamic registration, a client ID metadata document): an absolute URI without a
 * fragment (RFC 6749 section 3.1.2), compared exactly, so without wildcards (RFC 9700 section 4.1.3)
 * or credentials, and of one of three kinds (RFC 8252 section 7; RFC 9700 section 2.1):
 *  - https;
 *  - http on a loopback address, for a native app's listener (RFC 8252 section 7.3);
 *  - a private-use scheme in reverse domain name form, such as `com.example.app:/callback`
 *    (RFC 8252 section 7.1): a scheme with a dot in it, which no browser gives a meaning of its own.
 * Every other scheme is refused: those a browser runs or reads (`javascript:`, `vbscript:`, `data:`,
 * `blob:`, `file:`, `view-source:`, `about:`), those of another protocol (`ws:`, `wss:`, `ftp:`),
 * `urn:ietf:wg:oauth:2.0:oob`, which is no redirect, and any private-use scheme without a dot, which
 * another app could claim as easily (RFC 8252 section 8.4).
 * Returns why the URI cannot be registered, or undefined when it can.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be an absolute URL (a string)';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash || uri.includes('#')) return 'must not contain a fragment (RFC 6749 section 3.1.2)';
  if (uri.includes('*')) return 'has a wildcard; redirect URIs are compared exactly (RFC 9700 section 4.1.3)';
  if (url.username || url.password) return 'carries credentials';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return undefined;
  if (scheme === 'http') return isLoopbackHost(url.hostname) ? undefined : 'is http on a host that is not loopback; use https (RFC 9700 section 2.1)';
  if (!scheme.includes('.')) {
    return `uses the ${scheme}: scheme; a redirect URI must be https, http on a loopback address, or a private-use scheme in reverse domain name form such as com.example.app: (RFC 8252 sections 7.1 and 7.3)`;
  }
  return undefined;
}
