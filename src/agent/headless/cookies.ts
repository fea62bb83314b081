/**
 * A small cookie jar for the headless user agent (RFC 6265 section 5): enough to carry a login
 * session across the authorization server's pages. HttpOnly and SameSite do not matter to a client
 * that runs no scripts and follows only top-level navigations.
 */
export interface Cookie {
  name: string;
  value: string;
  /** The host the cookie was set by (host-only) or the Domain attribute without a leading dot. */
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  /** Milliseconds since the epoch; undefined for a session cookie. */
  expires?: number;
}

export class CookieJar {
  private cookies: Cookie[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Stores the cookies of every Set-Cookie header of a response to `requestUrl`. */
  setCookies(setCookieHeaders: readonly string[], requestUrl: string | URL): void {
    const url = new URL(requestUrl);
    for (const header of setCookieHeaders) {
      const cookie = parseSetCookie(header, url, this.now());
      if (!cookie) continue;
      this.cookies = this.cookies.filter((c) => !(c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path));
      if (cookie.expires === undefined || cookie.expires > this.now()) this.cookies.push(cookie);
    }
  }

  /** The Cookie header value for a request to `url`, or undefined when no cookie applies (section 5.4). */
  cookieHeader(requestUrl: string | URL): string | undefined {
    const url = new URL(requestUrl);
    const now = this.now();
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now);
    const host = hostOf(url);
    const matching = this.cookies
      .filter((c) => (c.hostOnly ? c.domain === host : domainMatches(host, c.domain)))
      .filter((c) => pathMatches(url.pathname, c.path))
      .filter((c) => !c.secure || url.protocol === 'https:')
      // Longer paths first (section 5.4 step 2).
      .sort((a, b) => b.path.length - a.path.length);
    if (matching.length === 0) return undefined;
    return matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  list(): readonly Cookie[] {
    return this.cookies;
  }
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

/** RFC 6265 section 5.1.3. */
export function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  if (/^[\d.]+$/.test(host) || host.includes(':')) return false; // IP addresses match only exactly
  return host.endsWith(`.${domain}`);
}

/** RFC 6265 section 5.1.4. */
export function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** The default path: the request path up to, but not including, its last slash (section 5.1.4). */
function defaultPath(url: URL): string {
  const p = url.pathname;
  if (!p.startsWith('/') || p.lastIndexOf('/') === 0) return '/';
  return p.slice(0, p.lastIndexOf('/'));
}

/** Parses one Set-Cookie header (section 5.2); undefined when the jar must ignore it. */
export function parseSetCookie(header: string, url: URL, now: number): Cookie | undefined {
  const [pair = '', ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  if (eq < 0) return undefined;
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  if (!name) return undefined;

  const host = hostOf(url);
  const cookie: Cookie = { name, value, domain: host, hostOnly: true, path: defaultPath(url), secure: false };
  let maxAge: number | undefined;
  for (const attribute of attributes) {
    const i = attribute.indexOf('=');
    const key = (i < 0 ? attribute : attribute.slice(0, i)).trim().toLowerCase();
    const val = i < 0 ? '' : attribute.slice(i + 1).trim();
    if (key === 'path') {
      cookie.path = val.startsWith('/') ? val : defaultPath(url);
    } else if (key === 'domain' && val) {
      const domain = val.replace(/^\./, '').toLowerCase();
      // A server may only set cookies for its own domain or a parent of it (section 5.3 step 6).
      if (!domainMatches(host, domain)) return undefined;
      cookie.domain = domain;
      cookie.hostOnly = false;
    } else if (key === 'max-age' && /^-?\d+$/.test(val)) {
      maxAge = Number(val);
    } else if (key === 'expires') {
      const t = Date.parse(val);
      if (!Number.isNaN(t)) cookie.expires = t;
    } else if (key === 'secure') {
      cookie.secure = true;
    }
  }
  // Max-Age wins over Expires (section 5.3 step 3); zero or less expires the cookie now.
  if (maxAge !== undefined) cookie.expires = maxAge <= 0 ? now - 1 : now + maxAge * 1000;
  return cookie;
}
