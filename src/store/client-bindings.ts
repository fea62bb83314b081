import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { readRegularFileIfExists, withFileLock, writeFileAtomic } from './atomic-file.js';
import { tokenCacheDir, type Env } from './paths.js';
import { checkPrivateEntry, checkPrivatePath } from './private-path.js';

/**
 * The authorization server a pre-registered client's credentials (a secret, a signing key, a workload
 * assertion) were first sent to, when no --issuer said where they belong: later runs send them there
 * only, whatever an MCP server's metadata names. No secret is kept here, only the client id and issuer.
 */
export interface ClientBinding {
  version: 1;
  client_id: string;
  issuer: string;
  /** Seconds since the epoch. */
  bound_at: number;
}

const MAX_BYTES = 16 * 1024;

/** One 0600 file per client id, beside the registrations. */
export function bindingPath(env: Env, clientId: string): string {
  const digest = createHash('sha256').update(clientId).digest('hex').slice(0, 24);
  return join(tokenCacheDir(env), '..', 'client-bindings', `client-${digest}.json`);
}

function isBinding(v: unknown, clientId: string): v is ClientBinding {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return o.version === 1 && o.client_id === clientId && typeof o.issuer === 'string';
}

/** The issuer this client's credentials are bound to, or undefined when they were never sent without --issuer. */
export async function readClientBinding(env: Env, clientId: string): Promise<{ binding?: ClientBinding; path: string }> {
  const path = bindingPath(env, clientId);
  // A binding another user planted would steer the credentials: the same ownership rule as the token cache.
  await checkPrivatePath(dirname(path), 'the client bindings directory');
  await checkPrivateEntry(path, 'the client binding file');
  const text = await readRegularFileIfExists(path, MAX_BYTES);
  if (text === undefined) return { path };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isBinding(parsed, clientId)) throw new UsageError(`the client binding file ${path} is damaged`, `delete it (rm ${JSON.stringify(path)}) and give --issuer once`);
  return { binding: parsed, path };
}

/** Keeps the binding; returns the file's path. */
export async function saveClientBinding(env: Env, binding: ClientBinding): Promise<string> {
  const path = bindingPath(env, binding.client_id);
  await checkPrivatePath(dirname(path), 'the client bindings directory');
  await withFileLock(path, () => writeFileAtomic(path, `${JSON.stringify(binding, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 }));
  return path;
}
