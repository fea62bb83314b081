import { promises as fs, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { NotAReadableFileError, readRegularFileIfExists, withFileLock, writeFileAtomic } from './atomic-file.js';
import { tokenCacheDir, type Env } from './paths.js';
import { checkPrivateEntry, checkPrivatePath } from './private-path.js';
import { deleteSecrets, isKeyringMetadata, joinSecrets, loadSecrets, saveSecrets, splitSecrets, type TokenStoreKind } from './secret-store.js';

/**
 * Tokens kept between runs, one 0600 file per login (directory 0700), written atomically and changed
 * under a lock, so that two runs at once never corrupt a file or spend one refresh token twice (a
 * server that rotates refresh tokens would revoke the whole family, RFC 9700 section 4.14.2).
 * The client secret is never stored: a refresh gets it from the profile, flags or environment.
 */
export interface CachedTokens {
  version: 1;
  profile?: string;
  issuer?: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  client_id: string;
  auth_method: string;
  access_token: string;
  token_type?: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  /** Seconds since the epoch, from `expires_in` (RFC 6749 section 5.1) or the access token's `exp`. */
  expires_at?: number;
  /** Seconds since the epoch. */
  obtained_at: number;
  /** `client_credentials`: no refresh token; an expired token is replaced by a new request (RFC 6749 section 4.4.3). */
  grant?: string;
  /** What a refresh or a call needs beyond the tokens: the DPoP key, the paths of the key files. */
  client_keys?: CachedClientKeys;
  /** Present when the secrets are kept in the OS keyring and the file holds the rest (src/store/secret-store.ts). */
  token_store?: 'keyring';
  /** The protected resource the login was made for (`--protected-resource`, RFC 9728): its key. */
  resource?: string;
  /** What the token response says was granted of a rich authorization request (RFC 9396 section 7). */
  authorization_details?: unknown[];
}

/**
 * RFC 9449: the DPoP private key the tokens are bound to (the file is 0600); RFC 7523 and RFC 8705:
 * where the signing key and the client certificate are, never their contents.
 */
export interface CachedClientKeys {
  dpop_jwk?: Record<string, unknown>;
  signing_key_file?: string;
  signing_key_id?: string;
  assertion_audience?: string;
  tls_cert_file?: string;
  tls_key_file?: string;
}

/** Which login a cache entry belongs to: a profile, a protected resource, or else the issuer (or token endpoint) and client. */
export interface TokenCacheKey {
  profile?: string | undefined;
  resource?: string | undefined;
  issuer?: string | undefined;
  tokenEndpoint?: string | undefined;
  clientId?: string | undefined;
}

export interface TokenCache {
  dir: string;
  /** Milliseconds since the epoch; injectable so tests move time without sleeping. */
  now(): number;
  /** Where a new login is saved (default `file`); a refreshed one stays where it was. */
  store?: TokenStoreKind;
}

export function openTokenCache(env: Env, options: { now?: () => number; dir?: string; store?: TokenStoreKind } = {}): TokenCache {
  const cache: TokenCache = { dir: options.dir ?? tokenCacheDir(env), now: options.now ?? Date.now };
  if (options.store !== undefined) cache.store = options.store;
  return cache;
}

/**
 * One name per server however it was given: `--issuer X` and `--auth-url X` (token endpoint `X/token`)
 * both name X. The issuer when known, else the token endpoint without its final `/token`.
 */
export function serverOf(names: { issuer?: string | undefined; tokenEndpoint?: string | undefined }): string | undefined {
  if (names.issuer !== undefined) return names.issuer.replace(/\/+$/, '');
  if (names.tokenEndpoint !== undefined) return names.tokenEndpoint.replace(/\/+$/, '').replace(/\/token$/, '');
  return undefined;
}

/**
 * The first 24 hex digits of SHA-256. node:crypto is loaded here, when a name needs it, not with the
 * module: `token --profile` and `mcp` with a cached login run in a few tens of milliseconds, and
 * loading crypto would add a tenth to them for a digest they do not need.
 */
function digest24(text: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex').slice(0, 24);
}

/** The file name of an entry: `profile-NAME.json`, or `client-<hash of the server and client id>.json`. */
export function cacheFileName(key: TokenCacheKey): string {
  if (key.profile !== undefined) return `profile-${key.profile}.json`;
  if (key.resource !== undefined) return `resource-${digest24(key.resource)}.json`;
  const server = serverOf(key);
  if (server === undefined || key.clientId === undefined) {
    throw new UsageError('cannot tell which cached login to use', 'give --profile NAME, or --issuer (or --token-endpoint) and --client-id');
  }
  return `client-${digest24(`${server}\n${key.clientId}`)}.json`;
}

export function cacheFilePath(cache: TokenCache, key: TokenCacheKey): string {
  return join(cache.dir, cacheFileName(key));
}

/** Describes a key for messages: `profile "work"` or `client photo-cli at https://...`. */
export function describeKey(key: TokenCacheKey): string {
  if (key.profile !== undefined) return `profile ${JSON.stringify(key.profile)}`;
  if (key.resource !== undefined) return `protected resource ${key.resource}`;
  return `client ${key.clientId ?? '?'} at ${key.issuer ?? key.tokenEndpoint ?? '?'}`;
}

export async function readCachedTokens(cache: TokenCache, key: TokenCacheKey): Promise<CachedTokens | undefined> {
  return readEntry(cacheFilePath(cache, key));
}

/**
 * When a cached login was last written (ms since the epoch), to the millisecond where `obtained_at`
 * has whole seconds: undefined when there is none.
 */
export function cachedTokensSavedAt(cache: TokenCache, key: TokenCacheKey): number | undefined {
  try {
    return statSync(cacheFilePath(cache, key)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** No cached login comes near this; anything larger is not one. */
const MAX_ENTRY_BYTES = 1024 * 1024;

/** Reads an entry by its file path (the keyring's secrets joined in); undefined when there is none. */
export async function readEntry(path: string): Promise<CachedTokens | undefined> {
  await checkCacheEntry(path);
  return readCheckedEntry(path);
}

/** An entry whose directory and file have been checked (readEntry, or the listing, which checks the directory once). */
async function readCheckedEntry(path: string): Promise<CachedTokens | undefined> {
  let text: string | undefined;
  try {
    text = await readRegularFileIfExists(path, MAX_ENTRY_BYTES);
  } catch (err) {
    if (err instanceof NotAReadableFileError) throw new UsageError(`the token cache entry ${err.message}`, `remove it (rm -r ${JSON.stringify(path)}) and log in again`);
    throw err;
  }
  if (text === undefined) return undefined;
  let entry = parseJson(text);
  if (isKeyringMetadata(entry)) {
    // The secrets are in the keyring; an item removed there leaves a login that is no more.
    const secrets = await loadSecrets(path);
    if (secrets === undefined) return undefined;
    entry = { ...joinSecrets(entry, secrets), token_store: 'keyring' };
  }
  if (!isCachedTokens(entry)) {
    throw new UsageError(`the token cache file ${path} is damaged`, 'delete it and log in again');
  }
  return entry;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isCachedTokens(value: unknown): value is CachedTokens {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  return (
    o.version === 1 &&
    typeof o.access_token === 'string' &&
    typeof o.token_endpoint === 'string' &&
    typeof o.client_id === 'string' &&
    typeof o.obtained_at === 'number' &&
    (o.expires_at === undefined || typeof o.expires_at === 'number')
  );
}

/** What the token endpoint answered (RFC 6749 section 5.1); extra fields are ignored. */
export interface TokenResponseFields {
  access_token: string;
  token_type?: string;
  expires_in?: number | string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  [key: string]: unknown;
}

/** Where the tokens came from: the endpoints and client, never the client secret. */
export interface TokenSource {
  issuer?: string | undefined;
  tokenEndpoint: string;
  revocationEndpoint?: string | undefined;
  clientId: string;
  authMethod: string;
  /** The grant the tokens came from, when it was not a user's login (`client_credentials`). */
  grant?: string | undefined;
  clientKeys?: CachedClientKeys | undefined;
  /** The protected resource the login was made for (RFC 9728). */
  resource?: string | undefined;
}

/** Builds the entry for a token response received at `nowMs`. */
export function cacheEntryFrom(response: TokenResponseFields, source: TokenSource, nowMs: number, profile?: string): CachedTokens {
  const now = Math.floor(nowMs / 1000);
  const entry: CachedTokens = {
    version: 1,
    token_endpoint: source.tokenEndpoint,
    client_id: source.clientId,
    auth_method: source.authMethod,
    access_token: response.access_token,
    obtained_at: now,
  };
  if (profile !== undefined) entry.profile = profile;
  if (source.clientKeys !== undefined) entry.client_keys = source.clientKeys;
  if (source.issuer !== undefined) entry.issuer = source.issuer;
  if (source.revocationEndpoint !== undefined) entry.revocation_endpoint = source.revocationEndpoint;
  if (source.grant !== undefined) entry.grant = source.grant;
  if (source.resource !== undefined) entry.resource = source.resource;
  if (typeof response.token_type === 'string') entry.token_type = response.token_type;
  if (typeof response.refresh_token === 'string') entry.refresh_token = response.refresh_token;
  if (typeof response.id_token === 'string') entry.id_token = response.id_token;
  if (typeof response.scope === 'string') entry.scope = response.scope;
  if (Array.isArray(response.authorization_details)) entry.authorization_details = response.authorization_details as unknown[];
  const expiresIn = Number(response.expires_in);
  // An expires_in of 0 is what some servers send for "no expiry": the access token's exp is used then.
  if (response.expires_in !== undefined && Number.isFinite(expiresIn) && expiresIn > 0) {
    entry.expires_at = now + Math.floor(expiresIn);
  } else {
    const exp = jwtExp(response.access_token);
    if (exp !== undefined) entry.expires_at = exp;
  }
  return entry;
}

/** The `exp` of a JWT access token (RFC 9068), when the server did not say `expires_in`. */
function jwtExp(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp : undefined;
  } catch {
    return undefined;
  }
}

/** Saves tokens after a login (replacing what was cached for the key). Returns the entry written. */
export async function saveTokens(cache: TokenCache, key: TokenCacheKey, response: TokenResponseFields, source: TokenSource): Promise<CachedTokens> {
  const path = cacheFilePath(cache, key);
  const entry = cacheEntryFrom(response, source, cache.now(), key.profile);
  if (cache.store === 'keyring') entry.token_store = 'keyring';
  // Checked before the lock file is made there too.
  await checkCacheEntry(path);
  // `--token-store none` keeps nothing, and no older login of the same key either.
  if (cache.store === 'none') await forgetTokens(cache, key);
  else await withFileLock(path, () => writeEntry(path, entry));
  return entry;
}

/** Writes an entry: all of it to the file, or (token_store keyring) its secrets to the keyring first and the rest to the file. */
export async function writeEntry(path: string, entry: CachedTokens): Promise<void> {
  await checkCacheEntry(path);
  let kept: object = entry;
  if (entry.token_store === 'keyring') {
    const { metadata, secrets } = splitSecrets(entry);
    await saveSecrets(path, secrets);
    kept = metadata;
  }
  await writeFileAtomic(path, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}

/**
 * Tokens in a directory another user owns or can write to are not ours to trust or keep: they could
 * plant an entry (a token endpoint of theirs, which a refresh would send the client's credentials to)
 * or replace its lock. Refused, with the fix (src/store/private-path.ts). A missing directory is fine.
 */
async function checkCacheEntry(path: string): Promise<void> {
  await checkPrivatePath(dirname(path), 'the tokens directory');
  await checkPrivateEntry(path, 'the token cache entry');
}

/** Forgets a login. True when there was something to forget. */
export async function forgetTokens(cache: TokenCache, key: TokenCacheKey): Promise<boolean> {
  const path = cacheFilePath(cache, key);
  await checkCacheEntry(path);
  return withFileLock(path, async () => {
    const text = await readRegularFileIfExists(path, MAX_ENTRY_BYTES).catch(() => undefined);
    if (text !== undefined && isKeyringMetadata(parseJson(text))) await deleteSecrets(path);
    try {
      await fs.rm(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  });
}

/**
 * Forgets the access token a server refused (a git credential helper's `erase` after a 401), so that
 * the next use refreshes; the refresh token stays. Only when it is still the cached one: another run
 * may have replaced it already. True when it was forgotten.
 */
export async function forgetAccessToken(cache: TokenCache, key: TokenCacheKey, accessToken: string): Promise<boolean> {
  const path = cacheFilePath(cache, key);
  return withFileLock(path, async () => {
    const entry = await readEntry(path);
    if (!entry || entry.access_token !== accessToken) return false;
    // Long expired: tokenState() takes 0 or less as "no expiry".
    await writeEntry(path, { ...entry, expires_at: 1 });
    return true;
  });
}

/** A cached login as listed: its file, what it holds, and what it is kept under (the file name's first word, cacheFileName). */
export interface ListedLogin {
  file: string;
  entry: CachedTokens;
  keptUnder: 'profile' | 'client' | 'resource';
}

/** Every cached login (damaged files are skipped). */
export async function listCachedTokens(cache: TokenCache): Promise<ListedLogin[]> {
  // A directory that cannot be trusted is said so, not taken for one without logins.
  await checkPrivatePath(cache.dir, 'the tokens directory');
  let names: string[];
  try {
    names = readdirSync(cache.dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new UsageError(`cannot read the token cache ${cache.dir} (${code ?? (err as Error).message})`, 'check its permissions');
  }
  const out: ListedLogin[] = [];
  for (const name of names.sort()) {
    const keptUnder = /^(profile|client|resource)-[^/]+\.json$/.exec(name)?.[1] as ListedLogin['keptUnder'] | undefined;
    if (keptUnder === undefined) continue;
    const file = join(cache.dir, name);
    // The directory and those above it were checked above, once for all its files.
    const entry = await checkPrivateEntry(file, 'the token cache entry')
      .then(() => readCheckedEntry(file))
      .catch(() => undefined);
    if (entry) out.push({ file, entry, keptUnder });
  }
  return out;
}

/** Seconds before `expires_at` at which a token already counts as expired: a request must still land in time. */
export const DEFAULT_EXPIRY_SKEW_SECONDS = 30;

export type TokenState = 'valid' | 'expired' | 'no-expiry';

/** Valid until `expires_at - skew`; an entry without any expiry is taken as valid until the server says otherwise. */
export function tokenState(entry: CachedTokens, nowMs: number, skewSeconds = DEFAULT_EXPIRY_SKEW_SECONDS): TokenState {
  if (entry.expires_at === undefined || entry.expires_at <= 0) return 'no-expiry';
  return nowMs / 1000 < entry.expires_at - skewSeconds ? 'valid' : 'expired';
}

/** Where an entry's tokens came from, to save the next ones from the same place. */
export function entrySource(entry: CachedTokens): TokenSource {
  return {
    issuer: entry.issuer,
    tokenEndpoint: entry.token_endpoint,
    revocationEndpoint: entry.revocation_endpoint,
    clientId: entry.client_id,
    authMethod: entry.auth_method,
    grant: entry.grant,
    clientKeys: entry.client_keys,
    resource: entry.resource,
  };
}
