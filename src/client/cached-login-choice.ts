import { UsageError } from '../errors.js';
import { serverOf, type CachedTokens } from '../store/token-cache.js';

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

/** The options that name a cached login, as they work when copied: `--profile P`, or the server and client. */
export function selectorOptionsOf(entry: CachedTokens): string {
  if (entry.profile !== undefined) return `--profile ${entry.profile}`;
  const server = entry.issuer !== undefined ? `--issuer ${entry.issuer}` : `--token-endpoint ${entry.token_endpoint}`;
  return `${server} --client-id ${entry.client_id}`;
}

/** More than one login fits: the one-line failure that lists the options of each. */
export function sayWhichLogin(logins: readonly { entry: CachedTokens }[], among = 'logins are cached'): UsageError {
  return new UsageError(`${logins.length} ${among}; say which one`, logins.map(({ entry }) => selectorOptionsOf(entry)).join(' | '));
}
