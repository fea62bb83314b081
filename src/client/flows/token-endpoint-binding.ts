import { UsageError } from '../../errors.js';
import { loadSelectedProfile } from '../../store/config-store.js';
import type { Env } from '../../store/paths.js';
import { describeKey, type CachedTokens } from '../../store/token-cache.js';
import type { HttpClient } from '../http/http.js';

/**
 * A refresh (or a new client credentials request) of a cached login carries the client's credentials:
 * its secret, or an assertion signed with its key (RFC 6749 section 2.3, RFC 7523). They go only to the
 * token endpoint the profile or the flags name, never to one read from the cache file alone: a planted
 * or edited entry could name a server of someone else's (RFC 9700 section 4.1.1 and 4.10: credentials
 * only to the endpoint they were made for). The endpoint named is the `token_endpoint` given, else
 * `{auth_url}/token`, else the issuer's metadata (RFC 8414). Nothing names one (the only cached login,
 * found without a profile or server): the entry is as trusted as its private directory.
 */
export async function checkTokenEndpoint(http: HttpClient, entry: CachedTokens, selector: ServerSelector, env: Env): Promise<void> {
  const named = await namedServer(entry, selector, env);
  if (named === undefined) return;
  const expected = await tokenEndpointOf(http, named.server);
  if (expected === undefined || sameEndpoint(expected, entry.token_endpoint)) return;
  throw new UsageError(
    `the cached login for ${describeKey({ profile: entry.profile, resource: entry.resource, issuer: entry.issuer, tokenEndpoint: entry.token_endpoint, clientId: entry.client_id })} names the token endpoint ${entry.token_endpoint}, not ${expected} of ${named.by}; nothing was sent to it`,
    `remove the cached login (oauthctl logout${entry.profile !== undefined ? ` --profile ${entry.profile}` : ''}) and log in again`,
  );
}

/** What of a cached-login selector (src/client/cache/cached-login.ts) names a server. */
export interface ServerSelector {
  profile?: string | undefined;
  config?: string | undefined;
  issuer?: string | undefined;
  authUrl?: string | undefined;
  tokenEndpoint?: string | undefined;
}

interface Server {
  tokenEndpoint?: string | undefined;
  authUrl?: string | undefined;
  issuer?: string | undefined;
}

/** The server the profile (the entry's or the selector's) or the selector's flags name, and which of them it is. */
async function namedServer(entry: CachedTokens, selector: ServerSelector, env: Env): Promise<{ server: Server; by: string } | undefined> {
  const flags: Server = { tokenEndpoint: selector.tokenEndpoint, authUrl: selector.authUrl, issuer: selector.issuer };
  if (Object.values(flags).some((v) => v !== undefined)) return { server: flags, by: 'the flags given' };
  const selection = await loadSelectedProfile({ profile: entry.profile ?? selector.profile, config: selector.config }, env);
  if (selection === undefined) return undefined;
  const { profile } = selection;
  return { server: { tokenEndpoint: profile.token_endpoint, authUrl: profile.auth_url, issuer: profile.issuer }, by: `profile ${JSON.stringify(selection.name)}` };
}

/** The token endpoint a server's settings name, the way a login finds it (src/cli/options/flow-options.ts). */
async function tokenEndpointOf(http: HttpClient, server: Server): Promise<string | undefined> {
  if (server.tokenEndpoint !== undefined) return server.tokenEndpoint;
  if (server.authUrl !== undefined) return `${server.authUrl.replace(/\/+$/, '')}/token`;
  if (server.issuer === undefined) return undefined;
  const { discoverMetadata } = await import('./endpoints.js');
  return (await discoverMetadata(http, server.issuer)).metadata.token_endpoint;
}

function sameEndpoint(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}
