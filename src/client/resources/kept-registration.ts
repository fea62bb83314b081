import type { Renderer } from '../../output/render.js';
import { escapeLogValue } from '../../output/escape.js';
import type { Env } from '../../store/paths.js';
import { forgetRegistration, type StoredRegistration } from '../../store/registrations.js';
import type { HttpClient } from '../http/http.js';

/**
 * Whether the server still knows a kept registration, asked before it is used: RFC 7592 section 2.1's
 * read request with the registration access token. A client the server does not know (a mock that was
 * restarted, a registration deleted at the server) is 401 there (section 2.1: "If the client does not
 * exist on this server, the server MUST respond with HTTP 401"), or 404 at some servers. Undefined: the
 * registration cannot be read (no client configuration endpoint) or the answer says nothing either way.
 */
export async function keptRegistrationGone(http: HttpClient, kept: StoredRegistration): Promise<{ status: number } | undefined> {
  if (kept.registration_client_uri === undefined || kept.registration_access_token === undefined) return undefined;
  const res = await http.request(kept.registration_client_uri, { headers: { accept: 'application/json', authorization: `Bearer ${kept.registration_access_token}` } });
  return res.status === 401 || res.status === 404 ? { status: res.status } : undefined;
}

/**
 * The kept registration, or undefined when the server no longer knows it: then it is forgotten, and
 * the caller registers anew (once: a client it has just registered is never checked this way).
 */
export async function usableKeptRegistration(http: HttpClient, env: Env, kept: StoredRegistration, renderer: Renderer): Promise<StoredRegistration | undefined> {
  const gone = await keptRegistrationGone(http, kept);
  if (gone === undefined) return kept;
  await forgetRegistration(env, kept.server);
  renderer.warn(
    `${kept.server} no longer knows the client ${escapeLogValue(kept.client_id)} registered there before (HTTP ${gone.status} at its registration_client_uri, RFC 7592 section 2.1): forgot it, registering anew`,
  );
  return undefined;
}

/** An error that says the server does not know the client: invalid_client, or an authorization page saying so. */
export function isUnknownClientError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { error?: unknown; message?: unknown };
  if (e.error === 'invalid_client') return true;
  return typeof e.message === 'string' && /\binvalid_client\b|is not a registered client|unknown client/i.test(e.message);
}
