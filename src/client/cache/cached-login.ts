import { FlowError, UsageError } from '../../errors.js';
import { usesClientSecret, type ClientAuthMethod, type ClientCredentials } from '../../oauth/token-request.js';
import { loadSelectedProfile, profileClientSecret, selectedProfileName, type ProfileSelection } from '../../store/config-store.js';
import type { HttpClient } from '../http/http.js';
import type { Env } from '../../store/paths.js';
import { listCachedTokens, openTokenCache, readCachedTokens, type CachedTokens, type TokenCache, type TokenCacheKey } from '../../store/token-cache.js';
import {
  getValidAccessToken,
  LoginNeededError,
  refreshCached,
  ServerUnreachableError,
  type RefreshTokens,
  type RequestTokensAgain,
  type ValidToken,
  type ValidTokenOptions,
} from '../../store/token-refresh.js';
import { requestToken, TokenRequestError } from '../flows/token.js';
import { checkTokenEndpoint } from '../flows/token-endpoint-binding.js';

/**
 * Which cached login a command means: `--profile` (or OAUTHCTL_PROFILE); else `--issuer`, `--auth-url`
 * or `--token-endpoint` with `--client-id`; else the only login in the cache.
 */
export interface CachedLoginSelector {
  profile?: string | undefined;
  config?: string | undefined;
  issuer?: string | undefined;
  authUrl?: string | undefined;
  tokenEndpoint?: string | undefined;
  clientId?: string | undefined;
  /** --protected-resource: the login made for that resource (RFC 9728). */
  protectedResource?: string | undefined;
  /** `call URL`: when nothing else names a login, the one made for the protected resource that holds URL. */
  callUrl?: string | undefined;
  /** For a refresh by a confidential client; else OAUTHCTL_CLIENT_SECRET, else the profile's. */
  clientSecret?: string | undefined;
  /** The URL the token is for (`call URL`): of several cached logins, the one of its server is taken. */
  url?: string | undefined;
}

export interface CachedLogin {
  key: TokenCacheKey;
  entry: CachedTokens | undefined;
  cache: TokenCache;
}

/** The key the selector names, without reading the cache; undefined when it names none. */
export function keyFromSelector(selector: CachedLoginSelector, env: Env): TokenCacheKey | undefined {
  const profile = selectedProfileName(selector.profile, env);
  if (profile !== undefined) return { profile };
  if (selector.protectedResource !== undefined) return { resource: selector.protectedResource };
  const tokenEndpoint = selector.tokenEndpoint ?? (selector.authUrl !== undefined ? `${selector.authUrl.replace(/\/+$/, '')}/token` : undefined);
  if (selector.issuer === undefined && tokenEndpoint === undefined) return undefined;
  if (selector.clientId === undefined) {
    throw new UsageError('--client-id is needed with --issuer, --auth-url or --token-endpoint to find a cached login', 'or use --profile NAME');
  }
  return { issuer: selector.issuer, tokenEndpoint, clientId: selector.clientId };
}

/** The same key a login saved under: its profile, else issuer (or token endpoint) and client id. */
export function keyOfEntry(entry: CachedTokens): TokenCacheKey {
  if (entry.profile !== undefined) return { profile: entry.profile };
  if (entry.resource !== undefined) return { resource: entry.resource };
  return { issuer: entry.issuer, tokenEndpoint: entry.token_endpoint, clientId: entry.client_id };
}

/** Finds the login the selector means. `entry` is undefined when nothing is cached for it. */
export async function findCachedLogin(selector: CachedLoginSelector, env: Env, cache: TokenCache = openTokenCache(env)): Promise<CachedLogin> {
  // A server named without --client-id: the login cached for that server, when there is one.
  const server = selectedProfileName(selector.profile, env) === undefined && selector.clientId === undefined ? (selector.issuer ?? selector.authUrl ?? selector.tokenEndpoint) : undefined;
  const key = server === undefined ? keyFromSelector(selector, env) : undefined;
  if (key !== undefined) return { key, entry: await readCachedTokens(cache, key), cache };
  const all = await listCachedTokens(cache);
  // The login made for the protected resource that holds the URL (RFC 9728) comes first.
  const forResource = selector.callUrl === undefined ? undefined : all.find(({ entry }) => entry.resource !== undefined && holdsUrl(entry.resource, selector.callUrl!));
  if (forResource) return { key: keyOfEntry(forResource.entry), entry: forResource.entry, cache };
  const chosen = await chooseCachedLogin(all, server ?? selector.url, server !== undefined);
  if (chosen === undefined) return { key: {}, entry: undefined, cache };
  return { key: keyOfEntry(chosen.entry), entry: chosen.entry, cache };
}

/** Of the cached logins, the only one, or the one `url` names; with `mustFit`, only one that fits it. */
async function chooseCachedLogin<T extends { entry: CachedTokens }>(all: readonly T[], url: string | undefined, mustFit: boolean): Promise<T | undefined> {
  const { cachedLoginForUrl, sayWhichLogin } = await import('./cached-login-choice.js');
  const fits = url === undefined ? undefined : cachedLoginForUrl(all, url);
  if (fits !== undefined) return fits;
  if (mustFit) {
    if (all.length > 1) throw sayWhichLogin(all, `logins are cached, none of them alone for ${url}`);
    return undefined;
  }
  if (all.length > 1) throw sayWhichLogin(all);
  return all[0];
}

/** The resource is the URL, or a path prefix of it on the same origin (RFC 9728 section 3.3: the MCP SDK's rule too). */
function holdsUrl(resource: string, url: string): boolean {
  if (resource === url) return true;
  const base = resource.endsWith('/') ? resource : `${resource}/`;
  return url.startsWith(base) || url.startsWith(`${resource}?`);
}

/**
 * A refresh_token grant (RFC 6749 section 6) through the token request `login` uses. A confidential
 * client's secret comes from the selector, OAUTHCTL_CLIENT_SECRET, or the entry's profile.
 */
export function createRefresher(http: HttpClient, selector: CachedLoginSelector, env: Env, scope?: string): RefreshTokens {
  return async (entry) => {
    await checkTokenEndpoint(http, entry, selector, env);
    const client = await cachedClientCredentials(entry, selector, env, 'refreshing');
    // RFC 9449 section 5: a DPoP-bound login refreshes with proofs of the same key.
    const { dpopSessionOf } = await import('./cached-client-keys.js');
    const { clientSecret } = client;
    return unreachableTold(
      requestToken(
        http,
        {
          ...client,
          tokenEndpoint: entry.token_endpoint,
          clientSecretFromEnv: clientSecret !== undefined && selector.clientSecret === undefined && clientSecret === env.OAUTHCTL_CLIENT_SECRET,
          dpop: await dpopSessionOf(entry),
        },
        { grant_type: 'refresh_token', refresh_token: entry.refresh_token, scope },
      ),
    );
  };
}

/** A token request whose server did not answer fails with ServerUnreachableError, so the cached tokens are kept. */
async function unreachableTold<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (err) {
    // The server answered (an OAuth error, a bad response): the request was refused. Anything else is the network.
    if (err instanceof TokenRequestError || !(err instanceof FlowError)) throw err;
    throw new ServerUnreachableError(err.message, err.hint);
  }
}

/**
 * How the client of a cached login authenticates (RFC 6749 section 2.3): the login's own method with
 * what it needs, its secret (clientSecretOf) or its assertion key (RFC 7523); a certificate-bound
 * client's certificate is its HTTP client's (clientCertificateOf). The one answer for every request a
 * cached login makes as its client: a refresh, a new client credentials request, a revocation.
 */
export async function cachedClientCredentials(entry: CachedTokens, selector: CachedLoginSelector, env: Env, doing: string): Promise<ClientCredentials> {
  const { assertionKeysOf } = await import('./cached-client-keys.js');
  return { clientId: entry.client_id, authMethod: entry.auth_method as ClientAuthMethod, clientSecret: await clientSecretOf(entry, selector, env, doing), ...(await assertionKeysOf(entry)) };
}

/**
 * The client secret of a cached login whose method uses one: the selector, OAUTHCTL_CLIENT_SECRET, or
 * the entry's profile; a UsageError that says `doing` needs it when none is given.
 */
export async function clientSecretOf(entry: CachedTokens, selector: CachedLoginSelector, env: Env, doing: string): Promise<string | undefined> {
  if (!usesClientSecret(entry.auth_method as ClientAuthMethod)) return undefined;
  let clientSecret = selector.clientSecret ?? (env.OAUTHCTL_CLIENT_SECRET || undefined);
  if (clientSecret === undefined && entry.profile !== undefined) {
    const selection: ProfileSelection | undefined = await loadSelectedProfile({ profile: entry.profile, config: selector.config }, env).catch(() => undefined);
    if (selection) clientSecret = profileClientSecret(selection.name, selection.profile, env);
  }
  if (clientSecret === undefined) {
    throw new UsageError(`${doing} needs the client secret of ${entry.client_id} (${entry.auth_method})`, 'give --client-secret or set OAUTHCTL_CLIENT_SECRET');
  }
  return clientSecret;
}

/** A new client credentials request (RFC 6749 section 4.4) for a cached entry of that grant, with its scope. */
export function createRequester(http: HttpClient, selector: CachedLoginSelector, env: Env): RequestTokensAgain {
  return async (entry) => {
    await checkTokenEndpoint(http, entry, selector, env);
    const client = await cachedClientCredentials(entry, selector, env, 'a new client credentials request');
    const [{ requestClientCredentials }, { dpopSessionOf }] = await Promise.all([import('../flows/client-credentials.js'), import('./cached-client-keys.js')]);
    return unreachableTold(
      requestClientCredentials(
        http,
        {
          ...client,
          tokenEndpoint: entry.token_endpoint,
          dpop: await dpopSessionOf(entry),
        },
        { scopes: entry.scope?.split(' ').filter(Boolean) },
      ),
    );
  };
}

/** How `token`, `call` and the rest renew an expired cached token: refresh, or for client credentials a new request. */
function renewers(http: HttpClient, selector: CachedLoginSelector, ctx: CachedTokenContext): ValidTokenOptions {
  const { env, tell } = ctx;
  // The waiter's own timeout bounds the wait for another run's refresh, as it bounds the wait for its login.
  const out = { refresh: createRefresher(http, selector, env), requestAgain: createRequester(http, selector, env), ...(ctx.waitMs !== undefined && { lockTimeoutMs: ctx.waitMs }) };
  if (tell === undefined) return out;
  return { ...out, onWait: (pid) => tell(`waiting for another oauthctl${pid !== undefined ? ` (pid ${pid})` : ''} that is refreshing the same login`) };
}

export interface CachedTokenContext {
  http: HttpClient;
  env: Env;
  /** Injected clock and directory for tests; default the real ones. */
  cache?: TokenCache;
  /**
   * Logs in when no token can be had otherwise (nothing cached, no refresh token, a refused refresh);
   * run under the login lock (src/store/lock.ts), so that concurrent callers log in once. False when
   * it cannot (nothing says where to log in): the first failure is reported then.
   */
  logIn?: (key: TokenCacheKey) => Promise<boolean>;
  /** How long to wait for another run's login, default 5 minutes. */
  waitMs?: number;
  /** Where a waiter says what it waits for (stderr). */
  tell?: (line: string) => void;
}

/**
 * A valid access token from the cache, refreshed first when it has expired. For `call` and any
 * command that needs "the token I logged in with". FlowError (exit 1) when a login is needed.
 */
export async function accessTokenFromCache(selector: CachedLoginSelector, ctx: CachedTokenContext): Promise<ValidToken & { key: TokenCacheKey }> {
  const found = await findCachedLogin(selector, ctx.env, ctx.cache);
  if (!found.entry && found.key.profile === undefined && found.key.clientId === undefined && found.key.resource === undefined) throw noLoginCached();
  const options = renewers(ctx.http, selector, ctx);
  const { logIn } = ctx;
  let needed: LoginNeededError;
  try {
    return { ...(await getValidAccessToken(found.cache, found.key, options)), key: found.key };
  } catch (err) {
    if (!(err instanceof LoginNeededError) || logIn === undefined) throw err;
    needed = err;
  }
  const { withLoginLock } = await import('../../store/lock.js');
  return withLoginLock(
    found.cache,
    found.key,
    async () => {
      // Read again under the lock: the run this one waited for may have logged in (or refreshed).
      try {
        return { ...(await getValidAccessToken(found.cache, found.key, options)), key: found.key };
      } catch (err) {
        if (!(err instanceof LoginNeededError)) throw err;
      }
      if (!(await logIn(found.key))) throw needed;
      return { ...(await getValidAccessToken(found.cache, found.key, options)), key: found.key };
    },
    { timeoutMs: ctx.waitMs ?? 300_000, tell: ctx.tell ?? (() => undefined) },
  );
}

/**
 * After a protected resource answered 401 to `rejectedAccessToken`: refresh once and return the new
 * token (or the one another run already put in its place).
 */
export async function refreshAfterUnauthorized(selector: CachedLoginSelector, rejectedAccessToken: string, ctx: CachedTokenContext): Promise<ValidToken & { key: TokenCacheKey }> {
  const found = await findCachedLogin(selector, ctx.env, ctx.cache);
  if (!found.entry && found.key.profile === undefined && found.key.clientId === undefined && found.key.resource === undefined) throw noLoginCached();
  const result = await refreshCached(found.cache, found.key, rejectedAccessToken, renewers(ctx.http, selector, ctx));
  return { ...result, key: found.key };
}

function noLoginCached(): FlowError {
  return new FlowError('no login is cached, and nothing says where to log in', 'give --profile NAME, or --issuer URL (or --auth-url URL) and --client-id ID; or log in first with oauthctl login');
}
