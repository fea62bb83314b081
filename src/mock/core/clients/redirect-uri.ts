const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})([/?][^#]*)?$/;

/**
 * RFC 6749 section 3.1.2.3 and RFC 9700 section 4.1.3: the redirect URI must equal a registered one,
 * character for character, except that the port of a loopback redirect URI is ignored
 * (RFC 8252 section 7.3; `localhost` is treated like the IP literals, as Keycloak and Okta do).
 */
export function matchRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  // Compared as text with only the port taken out: no case, dot-segment or encoding games.
  const m = LOOPBACK.exec(requested);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return false;
  return registered.includes(`http://${m[1]}${m[3] ?? ''}`);
}

/**
 * Adds parameters to a redirect URI, keeping its query as it is (RFC 6749 section 3.1.2); values are
 * form-urlencoded. Redirect URIs carry no fragment (section 3.1.2), so the parameters go last.
 */
export function withParams(redirectUri: string, params: Record<string, string | undefined>): string {
  let out = redirectUri;
  let sep = redirectUri.includes('?') ? (/[?&]$/.test(redirectUri) ? '' : '&') : '?';
  for (const key in params) {
    const value = params[key];
    if (value === undefined) continue;
    out += `${sep}${key}=${formEncode(value)}`;
    sep = '&';
  }
  return out;
}

function formEncode(value: string): string {
  const encoded = encodeURIComponent(value);
  return encoded.includes('%20') ? encoded.replace(/%20/g, '+') : encoded;
}

/** The origin a form's redirect goes to, for the form-action directive of the page's CSP. */
export function redirectOrigin(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}
