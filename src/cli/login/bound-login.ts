import type { CachedLoginSelector } from '../../client/cache/cached-login.js';
import type { DpopSession } from '../../client/flows/dpop.js';
import type { Env } from '../../store/paths.js';

/** What the tokens of a cached login are bound to: its DPoP key (RFC 9449), its client certificate (RFC 8705). */
export interface BoundLogin {
  dpop?: DpopSession | undefined;
  clientCertificate?: { cert: string; key: string } | undefined;
}

/**
 * Reads the cached login the selector means (without any request) for the keys its tokens need;
 * nothing when no login is cached (the command then says so itself).
 */
export async function boundLoginOf(selector: CachedLoginSelector, env: Env): Promise<BoundLogin> {
  const [{ findCachedLogin }, { dpopSessionOf, clientCertificateOf }] = await Promise.all([import('../../client/cache/cached-login.js'), import('../../client/cache/cached-client-keys.js')]);
  const { entry } = await findCachedLogin(selector, env).catch(() => ({ entry: undefined }));
  if (!entry?.client_keys) return {};
  const dpop = entry.token_type?.toLowerCase() === 'dpop' ? await dpopSessionOf(entry) : undefined;
  return { dpop, clientCertificate: await clientCertificateOf(entry) };
}
