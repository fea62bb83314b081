import type { CookieJar as ToughCookieJar } from 'tough-cookie';

/**
 * The headless user agent's cookies (RFC 6265), kept in tough-cookie's jar: it knows the public
 * suffix list, so a server cannot set a cookie for `com` or `co.uk` (section 5.3 step 5), and it
 * follows the RFC's domain, path, expiry and Secure rules. tough-cookie is loaded when the first
 * cookie is set: a login that meets no cookie never loads it.
 */
export class CookieJar {
  private jar: Promise<ToughCookieJar> | undefined;

  /** Stores the cookies of every Set-Cookie header of a response to `requestUrl`; a refused one is dropped. */
  async setCookies(setCookieHeaders: readonly string[], requestUrl: string | URL): Promise<void> {
    if (setCookieHeaders.length === 0) return;
    this.jar ??= import('tough-cookie').then(({ CookieJar: Jar }) => new Jar());
    const jar = await this.jar;
    for (const header of setCookieHeaders) {
      await jar.setCookie(header, String(requestUrl), { ignoreError: true });
    }
  }

  /** The Cookie header value for a request to `requestUrl`, or undefined when no cookie applies (section 5.4). */
  async cookieHeader(requestUrl: string | URL): Promise<string | undefined> {
    if (!this.jar) return undefined;
    const header = await (await this.jar).getCookieString(String(requestUrl));
    return header || undefined;
  }
}
