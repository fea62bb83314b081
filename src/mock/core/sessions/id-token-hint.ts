import { compactVerify, createLocalJWKSet } from 'jose';
import type { MockState } from '../http/http.js';

/** What an ID token the mock issued says about its session: enough to tie a request to it. */
export interface IdTokenHint {
  sub: string;
  /** The clients it was issued to (`aud`). */
  aud: string[];
  sid?: string;
}

/**
 * An `id_token_hint` (OpenID Connect Core 3.1.2.1, RP-Initiated Logout 1.0 section 2): an ID token this
 * issuer signed with a key of its JWKS. Expiry is not checked (section 2 of the logout spec: an
 * expired one is still a good hint); anything else wrong makes it no hint at all. A string is the problem.
 */
export async function verifyIdTokenHint(state: MockState, token: string): Promise<IdTokenHint | string> {
  const keys = await state.keys();
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(token, createLocalJWKSet(keys.jwks), { algorithms: [keys.alg] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    return 'id_token_hint is not an ID token signed by this server';
  }
  if (payload.iss !== state.issuer) return 'id_token_hint was issued by another issuer';
  if (typeof payload.sub !== 'string') return 'id_token_hint has no sub';
  const aud = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((a): a is string => typeof a === 'string') : [];
  return { sub: payload.sub, aud, ...(typeof payload.sid === 'string' ? { sid: payload.sid } : {}) };
}
