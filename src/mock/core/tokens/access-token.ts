import { brokenClaims, brokenSignature } from './broken-token.js';
import type { MockState } from '../http/http.js';
import type { NextToken } from './queue.js';
import { serverToken } from '../store/random-pool.js';
import type { AccessTokenClaims } from '../store/store.js';

/**
 * An expired opaque token is kept this much longer (and at most as long again as it lived, so that
 * short-lived tokens do not crowd the bounded store), so that its late use is told "expired", not "unknown".
 */
const EXPIRED_KEPT_MS = 10 * 60 * 1000;

/**
 * A new access token, in the configuration's access_token_format: a JWT signed with the mock's key
 * (RFC 9068), or an opaque reference token (256 random bits) that only this server can look up, as
 * Google's, GitHub's, or Auth0's without an audience are. The client must not read either
 * (RFC 6749 section 1.4); the opaque format is there to catch a client that does.
 * What the admin API queued for the next token (`next`, taken from the queue unless the caller took it
 * for a whole token response) is applied: extra claims, or a token broken on purpose.
 */
export async function issueAccessToken(state: MockState, claims: AccessTokenClaims, next: NextToken = state.queue.takeNextToken()): Promise<string> {
  let issued = next.claims ? ({ ...claims, ...next.claims } as AccessTokenClaims) : claims;
  if (next.broken) issued = brokenClaims(issued, next.broken, state.now());
  if (state.config.accessTokenFormat === 'jwt') {
    const jwt = await (await state.keys()).signAccessToken(issued);
    return next.broken ? brokenSignature(jwt, issued, next.broken) : jwt;
  }
  const token = serverToken(256);
  state.store.accessTokens.set(token, { claims: issued, expiresAt: issued.exp * 1000 + Math.min(EXPIRED_KEPT_MS, (issued.exp - issued.iat) * 1000) });
  return token;
}

export type AccessTokenCheck = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: 'invalid' | 'expired' | 'revoked' };

/**
 * Whether a presented access token is one of this server's, live and not revoked, in either format:
 * a JWT (it has dots) is verified against the key (signature, typ at+jwt, issuer, audience, expiry);
 * an opaque one is looked up. `audience`: the resource (or any of the resources) the token must be
 * for (RFC 8707: a token for another resource is refused, which stops token passthrough); default the API.
 */
export async function checkAccessToken(state: MockState, token: string, audience: string | string[] = state.baseUrl): Promise<AccessTokenCheck> {
  const audiences = [audience].flat();
  let claims: AccessTokenClaims;
  if (!token.includes('.')) {
    const record = state.store.accessTokens.get(token);
    if (!record) return { ok: false, reason: 'invalid' };
    if (record.claims.exp * 1000 <= state.now()) return { ok: false, reason: 'expired' };
    // As for a JWT: a token of another issuer, or for another resource (RFC 8707), is not valid here.
    if (record.claims.iss !== state.issuer || ![record.claims.aud].flat().some((a) => audiences.includes(a))) return { ok: false, reason: 'invalid' };
    claims = record.claims;
  } else {
    try {
      const payload = await (await state.keys()).verifyAccessToken(token, state.issuer, audiences, state.now());
      if (typeof payload.jti !== 'string') return { ok: false, reason: 'invalid' };
      claims = payload as unknown as AccessTokenClaims;
    } catch (err) {
      return { ok: false, reason: err instanceof Error && 'code' in err && err.code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' };
    }
  }
  if (state.store.isAccessTokenRevoked(claims.jti, claims.client_id)) return { ok: false, reason: 'revoked' };
  return { ok: true, claims };
}
