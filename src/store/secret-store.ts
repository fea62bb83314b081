import { FlowError, UsageError } from '../errors.js';
import type { Env } from './paths.js';

/**
 * Where a login's secrets are kept (`--token-store`, OAUTHCTL_TOKEN_STORE, a profile's `token_store`):
 * `file`, the 0600 cache file; `keyring`, the OS keychain (Secret Service, Keychain, Credential
 * Manager) through @napi-rs/keyring, the file keeping only what is not secret; `none`, nowhere.
 */
export const TOKEN_STORES = ['file', 'keyring', 'none'] as const;
export type TokenStoreKind = (typeof TOKEN_STORES)[number];

export function isTokenStore(value: unknown): value is TokenStoreKind {
  return typeof value === 'string' && (TOKEN_STORES as readonly string[]).includes(value);
}

/** The store asked for: the flag, else OAUTHCTL_TOKEN_STORE, else the profile's, else `file`. Bad values are exit 2. */
export function chooseTokenStore(flag: string | undefined, env: Env, profileValue?: string): TokenStoreKind {
  const [value, where] =
    flag !== undefined ? [flag, '--token-store'] : env.OAUTHCTL_TOKEN_STORE ? [env.OAUTHCTL_TOKEN_STORE, 'OAUTHCTL_TOKEN_STORE'] : [profileValue ?? 'file', 'the profile field token_store'];
  if (!isTokenStore(value)) throw new UsageError(`${where} must be file, keyring or none, got ${JSON.stringify(value)}`);
  return value;
}

/** The secret fields of a cache entry; the rest (endpoints, client id, expiry, scope) stays in the file. */
const SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'registration_access_token'] as const;
/** Secrets inside `client_keys`: the DPoP private key (RFC 9449). Paths of key files are not secrets. */
const SECRET_CLIENT_KEYS = ['dpop_jwk'] as const;

export interface SplitEntry {
  metadata: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/** Splits an entry into what the file keeps (marked `token_store: "keyring"`) and what the keyring keeps. */
export function splitSecrets(entry: object): SplitEntry {
  const metadata: Record<string, unknown> = { ...entry, token_store: 'keyring' };
  const secrets: Record<string, unknown> = {};
  for (const field of SECRET_FIELDS) {
    if (metadata[field] !== undefined) secrets[field] = metadata[field];
    delete metadata[field];
  }
  const keys = metadata.client_keys as Record<string, unknown> | undefined;
  if (keys !== undefined) {
    const rest = { ...keys };
    for (const field of SECRET_CLIENT_KEYS) {
      if (rest[field] !== undefined) secrets[`client_keys.${field}`] = rest[field];
      delete rest[field];
    }
    metadata.client_keys = rest;
  }
  return { metadata, secrets };
}

/** The entry again, from the file's metadata and the keyring's secrets. */
export function joinSecrets(metadata: Record<string, unknown>, secrets: Record<string, unknown>): Record<string, unknown> {
  const entry: Record<string, unknown> = { ...metadata };
  delete entry.token_store;
  for (const [field, value] of Object.entries(secrets)) {
    if (field.startsWith('client_keys.')) entry.client_keys = { ...(entry.client_keys as object | undefined), [field.slice('client_keys.'.length)]: value };
    else entry[field] = value;
  }
  return entry;
}

export function isKeyringMetadata(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>).token_store === 'keyring';
}

/** The keyring's service name; the account is the cache file's path, so two homes never share an item. */
const SERVICE = 'oauthctl';

type KeyringEntry = { setPassword(p: string): void; getPassword(): string | null; deletePassword(): boolean };

/** Loaded only when a login is kept in the keyring: `token` from the file never loads the native module. */
async function keyringEntry(account: string): Promise<KeyringEntry> {
  let Entry: new (service: string, account: string, options?: object) => KeyringEntry;
  try {
    ({ Entry } = await import('@napi-rs/keyring'));
  } catch (err) {
    throw isMissingModule(err) ? keyringNotInstalled() : unreachable(err);
  }
  try {
    // Pinned to the Secret Service on Linux: never a silent fall-back to the kernel keyring, which a reboot empties.
    return new Entry(SERVICE, account, { linux: { store: 'secret-service' } });
  } catch (err) {
    throw unreachable(err);
  }
}

/** The keyring binding is an optional dependency: an install with --omit=optional, or on a platform it has no build for, lacks it. */
function isMissingModule(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String((err as Error).message).includes('@napi-rs/keyring');
}

function keyringNotInstalled(): FlowError {
  return new FlowError(
    'the OS keyring support (@napi-rs/keyring, an optional dependency) is not installed',
    'install it beside oauthctl (npm install --global @napi-rs/keyring for a global install, or reinstall oauthctl without --omit=optional), or use --token-store file',
  );
}

function unreachable(err: unknown): FlowError {
  const detail = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  return new FlowError(`the OS keyring cannot be reached: ${detail}`, 'start or unlock it (on Linux a Secret Service such as gnome-keyring), or use --token-store file');
}

async function onKeyring<T>(account: string, use: (entry: KeyringEntry) => T): Promise<T> {
  const entry = await keyringEntry(account);
  try {
    return use(entry);
  } catch (err) {
    throw unreachable(err);
  }
}

export async function saveSecrets(account: string, secrets: Record<string, unknown>): Promise<void> {
  await onKeyring(account, (entry) => entry.setPassword(JSON.stringify(secrets)));
}

/** The secrets kept for the account; undefined when the keyring holds none (removed by hand, another machine). */
export async function loadSecrets(account: string): Promise<Record<string, unknown> | undefined> {
  const text = await onKeyring(account, (entry) => entry.getPassword());
  if (text === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function deleteSecrets(account: string): Promise<void> {
  await onKeyring(account, (entry) => entry.deletePassword());
}
