import { UsageError } from '../../errors.js';
import { serverOf, type CachedTokens } from '../../store/token-cache.js';

/**
 * Where a cached login's access token may be sent without being told: a bearer token is usable by
 * whoever receives it (RFC 6750 section 5.2; RFC 9700 section 4.9: a token only to the resource it
 * was obtained for). A login made for a protected resource (RFC 9728) goes to that resource's origin;
 * any other to the origin of its server (the issuer, or the token endpoint's base), where its API is
 * (the mock's `base_url`). Undefined when the URL is one of them, else the one line that refuses it.
 * A command calls this before sending a cached token to a URL; `--token`, or `--profile` naming the
 * login, is the user saying where it goes, and is not checked.
 */
export function cachedTokenDestinationProblem(entry: CachedTokens, url: string): UsageError | undefined {
  const allowed = originOf(entry.resource ?? serverOf({ issuer: entry.issuer, tokenEndpoint: entry.token_endpoint }) ?? '');
  const target = originOf(url);
  if (allowed !== undefined && target === allowed) return undefined;
  const obtained = entry.resource !== undefined ? `the protected resource ${entry.resource}` : `${allowed ?? entry.token_endpoint}`;
  return new UsageError(
    `the cached login's token was obtained for ${obtained}, not ${target ?? url}: it is not sent there`,
    'name the login with --profile NAME to send its token anyway, or give the token with --token',
  );
}

function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
