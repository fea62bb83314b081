import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { readRegularFileIfExists, withFileLock, writeFileAtomic } from './atomic-file.js';
import { tokenCacheDir, type Env } from './paths.js';
import { checkPrivateEntry, checkPrivatePath } from './private-path.js';

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
}

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
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isStoredRegistration(parsed)) throw new UsageError(`the registration file ${path} is damaged`, 'delete it and register again');
  // Kept under the server's digest: a file that names another server was not written here for this one.
  if (parsed.server.replace(/\/+$/, '') !== server.replace(/\/+$/, '')) {
    throw new UsageError(`the registration file ${path} is for ${parsed.server}, not ${server}`, `delete it (rm ${JSON.stringify(path)}) and register again`);
  }
  return parsed;
}

/** Keeps a registration (replacing the one of the same server); returns the file's path. */
export async function saveRegistration(env: Env, registration: StoredRegistration): Promise<string> {
  const path = registrationPath(env, registration.server);
  await checkRegistrationPath(path);
  await withFileLock(path, () => writeFileAtomic(path, `${JSON.stringify(registration, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 }));
  return path;
}

/** Forgets the registration of a server; true when there was one. */
export async function forgetRegistration(env: Env, server: string): Promise<boolean> {
  const path = registrationPath(env, server);
  await checkRegistrationPath(path);
  return withFileLock(path, async () => {
    try {
      await fs.rm(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  });
}
