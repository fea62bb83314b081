import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { readRegularFileIfExists, withFileLock, writeFileAtomic } from './atomic-file.js';
import { tokenCacheDir, type Env } from './paths.js';
import { checkPrivateEntry, checkPrivatePath } from './private-path.js';
import { deleteSecrets, isKeyringMetadata, loadSecrets, saveSecrets, type TokenStoreKind } from './secret-store.js';

/**
 * A client registered by `oauthctl register` or `--register` (RFC 7591), kept per authorization server
 * so that the next login reuses it and `register --delete` can remove it (RFC 7592). It holds secrets
 * (client_secret, registration_access_token): one 0600 file per server, beside the cached tokens.
 */
export interface StoredRegistration {
  version: 1;
  /** The issuer the client is registered at. */
  server: string;
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: string;
  redirect_uris: string[];
  /** RFC 7592 section 3: the client configuration endpoint and its bearer token. */
  registration_client_uri?: string;
  registration_access_token?: string;
  /** Seconds since the epoch. */
  registered_at: number;
  /** Present when the secrets (client_secret, registration_access_token) are in the OS keyring, the file holding the rest. */
  token_store?: 'keyring';
}

/** What of a registration is secret: kept in the keyring with `--token-store keyring`, never in its file then. */
const SECRET_FIELDS = ['client_secret', 'registration_access_token'] as const;

/** No registration comes near this. */
const MAX_BYTES = 256 * 1024;

function registrationPath(env: Env, server: string): string {
  const digest = createHash('sha256').update(server.replace(/\/+$/, '')).digest('hex').slice(0, 24);
  return join(tokenCacheDir(env), '..', 'registrations', `server-${digest}.json`);
}

/** A registration another user could have planted or swapped (a client of theirs, their registration_client_uri) is refused. */
async function checkRegistrationPath(path: string): Promise<void> {
  await checkPrivatePath(dirname(path), 'the registrations directory');
  await checkPrivateEntry(path, 'the registration file');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isStoredRegistration(v: unknown): v is StoredRegistration {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return o.version === 1 && typeof o.server === 'string' && typeof o.client_id === 'string' && typeof o.token_endpoint_auth_method === 'string' && Array.isArray(o.redirect_uris);
}

/** The registration kept for this server, or undefined. */
export async function readRegistration(env: Env, server: string): Promise<StoredRegistration | undefined> {
  const path = registrationPath(env, server);
  await checkRegistrationPath(path);
  const text = await readRegularFileIfExists(path, MAX_BYTES);
  if (text === undefined) return undefined;
  const parsed = parseJson(text);
  if (!isStoredRegistration(parsed)) throw new UsageError(`the registration file ${path} is damaged`, 'delete it and register again');
  // Kept under the server's digest: a file that names another server was not written here for this one.
  if (parsed.server.replace(/\/+$/, '') !== server.replace(/\/+$/, '')) {
    throw new UsageError(`the registration file ${path} is for ${parsed.server}, not ${server}`, `delete it (rm ${JSON.stringify(path)}) and register again`);
  }
  if (parsed.token_store !== 'keyring') return parsed;
  // The file keeps the reference; the secrets are the keyring's item for this path (none left: the metadata alone).
  const secrets = await loadSecrets(path);
  const joined: StoredRegistration = { ...parsed };
  for (const field of SECRET_FIELDS) if (typeof secrets?.[field] === 'string') joined[field] = secrets[field];
  return joined;
}

/**
 * Keeps a registration (replacing the one of the same server); returns the file's path. With the
 * keyring as store its secrets go there first, and the file keeps the rest and `token_store: "keyring"`.
 */
export async function saveRegistration(env: Env, registration: StoredRegistration, store: TokenStoreKind = 'file'): Promise<string> {
  const path = registrationPath(env, registration.server);
  await checkRegistrationPath(path);
  let kept: StoredRegistration = registration;
  if (store === 'keyring') {
    kept = { ...registration, token_store: 'keyring' };
    const secrets: Record<string, unknown> = {};
    for (const field of SECRET_FIELDS) {
      if (kept[field] !== undefined) secrets[field] = kept[field];
      delete kept[field];
    }
    await saveSecrets(path, secrets);
  }
  await withFileLock(path, () => writeFileAtomic(path, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 }));
  return path;
}

/** Forgets the registration of a server; true when there was one. */
export async function forgetRegistration(env: Env, server: string): Promise<boolean> {
  const path = registrationPath(env, server);
  await checkRegistrationPath(path);
  return withFileLock(path, async () => {
    const text = await readRegularFileIfExists(path, MAX_BYTES).catch(() => undefined);
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
