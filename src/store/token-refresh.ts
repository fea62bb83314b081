import { FlowError, UsageError } from '../errors.js';
import { LockTimeoutError, withFileLock, type LockOptions } from './atomic-file.js';
import {
  cacheEntryFrom,
  cacheFilePath,
  describeKey,
  entrySource,
  readCachedTokens,
  readEntry,
  tokenState,
  writeEntry,
  type CachedTokens,
  type TokenCache,
  type TokenCacheKey,
  type TokenResponseFields,
} from './token-cache.js';

/*
 * A valid access token from the token cache: the cached one while it lives, else a refresh (RFC 6749
 * section 6) or, for client credentials, a new request, under the entry's file lock so that any number
 * of concurrent runs make one refresh.
 */

/** No token can be had without a new login: nothing cached, no refresh token, or the refresh was refused. */
export class LoginNeededError extends FlowError {}

/** A refresher's failure when the server could not be asked at all (no connection, a timeout): no new login needed. */
export class ServerUnreachableError extends FlowError {}

/** Sends a refresh_token grant (RFC 6749 section 6) for an entry and returns the token response. */
export type RefreshTokens = (entry: CachedTokens & { refresh_token: string }) => Promise<TokenResponseFields>;

/** Asks anew for an entry without a refresh token whose grant allows that (client credentials). */
export type RequestTokensAgain = (entry: CachedTokens) => Promise<TokenResponseFields>;

export interface ValidTokenOptions {
  refresh: RefreshTokens;
  /** For an entry of the client credentials grant, which has no refresh token. */
  requestAgain?: RequestTokensAgain;
  skewSeconds?: number;
  /** Called once when another run holds the refresh lock (with its pid): a waiter says what it waits for. */
  onWait?: (holderPid: number | undefined) => void;
  /** How long to wait for another run's refresh (the waiter's own `--timeout`), default 300 s. */
  lockTimeoutMs?: number;
}

/** Waiting for another run's refresh, when the waiter gives no timeout of its own. */
const DEFAULT_LOCK_TIMEOUT_MS = 300_000;

export interface ValidToken {
  accessToken: string;
  entry: CachedTokens;
  refreshed: boolean;
  /** The token endpoint's answer, when this call refreshed. */
  response?: TokenResponseFields;
}

/**
 * A valid access token for the key: the cached one, or a fresh one from the refresh token when it
 * has expired (with skew). Fails (FlowError, exit 1) when nothing is cached or the token cannot be
 * refreshed, saying to log in again. The usual way for a command (`token`, `call`) to get a token.
 */
export async function getValidAccessToken(cache: TokenCache, key: TokenCacheKey, options: ValidTokenOptions): Promise<ValidToken> {
  const entry = await readCachedTokens(cache, key);
  if (!entry) throw notLoggedIn(key);
  if (tokenState(entry, cache.now(), options.skewSeconds) !== 'expired') {
    return { accessToken: entry.access_token, entry, refreshed: false };
  }
  return refreshUnderLock(cache, key, options, (current) => tokenState(current, cache.now(), options.skewSeconds) !== 'expired');
}

/**
 * Refreshes now, whatever the expiry says: for a protected resource that answered 401 to
 * `rejectedAccessToken` (RFC 6750 section 3.1 invalid_token). If another run has already replaced that
 * token meanwhile, its token is returned without a second refresh.
 */
export async function refreshCached(cache: TokenCache, key: TokenCacheKey, rejectedAccessToken: string, options: ValidTokenOptions): Promise<ValidToken> {
  return refreshUnderLock(cache, key, options, (current) => current.access_token !== rejectedAccessToken);
}

/**
 * Refreshes now and writes the new tokens back (`oauthctl refresh` on a cached login): with a server
 * that rotates refresh tokens, the spent one must not stay in the cache (RFC 9700 section 4.14.2).
 */
export async function refreshCachedNow(cache: TokenCache, key: TokenCacheKey, options: ValidTokenOptions): Promise<ValidToken> {
  return refreshUnderLock(cache, key, options, () => false);
}

async function refreshUnderLock(cache: TokenCache, key: TokenCacheKey, options: ValidTokenOptions, stillGood: (entry: CachedTokens) => boolean): Promise<ValidToken> {
  const path = cacheFilePath(cache, key);
  const timeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const lockOptions = { timeoutMs, ...(options.onWait && { onWait: options.onWait }) };
  try {
    return await refreshLocked(cache, key, options, stillGood, path, lockOptions);
  } catch (err) {
    if (!(err instanceof LockTimeoutError)) throw err;
    throw new FlowError(
      `gave up after ${Math.round(timeoutMs / 1000)} s waiting for another oauthctl refreshing ${describeKey(key)}`,
      `let it finish, or remove ${err.lockPath} if no oauthctl is running`,
    );
  }
}

async function refreshLocked(
  cache: TokenCache,
  key: TokenCacheKey,
  options: ValidTokenOptions,
  stillGood: (entry: CachedTokens) => boolean,
  path: string,
  lockOptions: LockOptions,
): Promise<ValidToken> {
  return withFileLock(
    path,
    async () => {
      // Read again under the lock: another run may have refreshed while this one waited.
      const entry = await readEntry(path);
      if (!entry) throw notLoggedIn(key);
      if (stillGood(entry)) return { accessToken: entry.access_token, entry, refreshed: false };
      const refreshToken = entry.refresh_token;
      const renew = renewalOf(entry, options);
      if (renew === undefined) {
        throw new LoginNeededError(`the cached access token for ${describeKey(key)} has expired and there is no refresh token`, loginHint(key));
      }
      let response: TokenResponseFields;
      try {
        response = await renew();
      } catch (err) {
        if (err instanceof UsageError) throw err;
        const message = err instanceof Error ? err.message : String(err);
        // Only a refused refresh needs a new login; a server that did not answer may take it later.
        const hint = err instanceof ServerUnreachableError ? `the tokens are still cached; ${err.hint ?? 'try again when the server is reachable'}` : loginHint(key);
        if (err instanceof ServerUnreachableError) throw new FlowError(`refreshing the cached token for ${describeKey(key)} failed: ${message}`, hint);
        throw new LoginNeededError(`refreshing the cached token for ${describeKey(key)} failed: ${message}`, hint);
      }
      const next = cacheEntryFrom(response, entrySource(entry), cache.now(), entry.profile);
      // RFC 6749 section 6: the server may keep the refresh token (and scope); keep what it did not replace.
      if (next.refresh_token === undefined && refreshToken !== undefined) next.refresh_token = refreshToken;
      if (next.scope === undefined && entry.scope !== undefined) next.scope = entry.scope;
      if (next.id_token === undefined && entry.id_token !== undefined) next.id_token = entry.id_token;
      if (next.authorization_details === undefined && entry.authorization_details !== undefined) next.authorization_details = entry.authorization_details;
      if (entry.token_store !== undefined) next.token_store = entry.token_store;
      await writeEntry(path, next);
      return { accessToken: next.access_token, entry: next, refreshed: true, response };
    },
    lockOptions,
  );
}

/** How an expired entry gets a new access token: its refresh token, or (client credentials) a new request. */
function renewalOf(entry: CachedTokens, options: ValidTokenOptions): (() => Promise<TokenResponseFields>) | undefined {
  const { refresh_token: refreshToken } = entry;
  if (refreshToken !== undefined) return () => options.refresh({ ...entry, refresh_token: refreshToken });
  const { requestAgain } = options;
  if (entry.grant === 'client_credentials' && requestAgain !== undefined) return () => requestAgain(entry);
  return undefined;
}

function loginHint(key: TokenCacheKey): string {
  return key.profile !== undefined ? `log in again: oauthctl login --profile ${key.profile}` : 'log in again with oauthctl login';
}

function notLoggedIn(key: TokenCacheKey): FlowError {
  return new LoginNeededError(`no cached login for ${describeKey(key)}`, loginHint(key));
}
