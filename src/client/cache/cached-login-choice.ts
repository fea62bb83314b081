import { UsageError } from '../../errors.js';
import { serverOf, type CachedTokens } from '../../store/token-cache.js';

/**
 * Which of several cached logins a URL means: the one whose server is that URL, else the one whose
 * server the URL lies under (a resource at `{server}/api`), else the one on the URL's origin. Undefined
 * unless exactly one login fits at the first of these that any login fits.
 */
export function cachedLoginForUrl<T extends { entry: CachedTokens }>(logins: readonly T[], url: string): T | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  const wanted = target.href.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const servers = logins.map((login) => ({ login, server: serverOf({ issuer: login.entry.issuer, tokenEndpoint: login.entry.token_endpoint }) ?? '' }));
  const originOf = (s: string) => {
    try {
      return new URL(s).origin;
    } catch {
      return undefined;
    }
  };
  for (const fits of [(s: string) => s === wanted, (s: string) => wanted.startsWith(`${s}/`), (s: string) => originOf(s) === target.origin]) {
    const found = servers.filter(({ server }) => fits(server));
    if (found.length === 1) return found[0]!.login;
    if (found.length > 1) return undefined;
  }
  return undefined;
}

/**
 * The options that name a cached login, as they work when copied, in the words it was made with:
 * `--profile P`; `--protected-resource URL` for a login made from a resource (its client id may be a
 * generated one, which nobody types); else `--issuer X`, `--auth-url X` (the token endpoint is
 * `X/token`) or `--token-endpoint URL`, with `--client-id` only when another login shares the server.
 */
export function selectorOptionsOf(entry: CachedTokens, others: readonly { entry: CachedTokens }[] = []): string {
  if (entry.profile !== undefined) return `--profile ${entry.profile}`;
  if (entry.resource !== undefined) return `--protected-resource ${entry.resource}`;
  const server = serverOf({ issuer: entry.issuer, tokenEndpoint: entry.token_endpoint });
  const flag =
    entry.issuer !== undefined ? `--issuer ${entry.issuer}` : entry.token_endpoint.replace(/\/+$/, '').endsWith('/token') ? `--auth-url ${server}` : `--token-endpoint ${entry.token_endpoint}`;
  const shared = others.some(
    (o) => o.entry !== entry && o.entry.profile === undefined && o.entry.resource === undefined && serverOf({ issuer: o.entry.issuer, tokenEndpoint: o.entry.token_endpoint }) === server,
  );
  return shared ? `${flag} --client-id ${entry.client_id}` : flag;
}

/** More than one login fits: the one-line failure that lists the options of each. */
export function sayWhichLogin(logins: readonly { entry: CachedTokens }[], among = 'logins are cached'): UsageError {
  return new UsageError(`${logins.length} ${among}; say which one`, logins.map(({ entry }) => selectorOptionsOf(entry, logins)).join(' | '));
}
