import { decodeProtectedHeader } from 'jose';
import { verifyClientJwt } from '../clients/client-keys.js';
import { ASYMMETRIC_ALGS, HMAC_ALGS } from '../config/config-security.js';
import { fapi2AlgRefusal } from '../../../oauth/fapi2.js';
import type { MockClient } from '../config/config.js';
import { addParam, q, type MockState } from '../http/http.js';
import { securityOf } from '../store/security-store.js';
import { StoreFullError } from '../store/expiring-map.js';

const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti']);
const TYPES = new Set(['oauth-authz-req+jwt', 'JWT', 'jwt']);
/** Parameters whose value is JSON (OpenID Connect Core 5.5, RFC 9396): an object in a request object. */
const JSON_PARAMS = new Set(['claims', 'authorization_details']);
/** FAPI 2.0 Message Signing section 5.3.1: a request object lives at most 60 minutes from its nbf (or iat). */
export const MAX_REQUEST_OBJECT_SECONDS = 3600;

export type RequestObjectCheck = { ok: true; values: Map<string, string> } | { ok: false; description: string };

/**
 * A signed request object (RFC 9101): signed by the client (its jwks or jwks_uri; HS256/384/512 with
 * its secret), iss = client_id, aud = this issuer, exp required, a client_id claim (when present) the
 * same as the request's; its claims are the authorization request's parameters, and only they count
 * (section 6.3). Unsigned (alg none) request objects are refused.
 */
export async function requestObjectParams(state: MockState, client: MockClient, jwt: string): Promise<RequestObjectCheck> {
  const refuse = (description: string): RequestObjectCheck => ({ ok: false, description });
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return refuse('the request parameter is not a JWT (RFC 9101 section 4)');
  }
  if (header.alg === 'none') return refuse('the request object is unsigned (alg none); sign it with a key of the client (RFC 9101 section 4)');
  if (header.typ !== undefined && !TYPES.has(header.typ)) return refuse(`the request object's typ ${q(header.typ)} is not oauth-authz-req+jwt (RFC 9101 section 10.8)`);
  if (state.config.securityProfile === 'fapi2') {
    const refusal = fapi2AlgRefusal('the request object', header.alg);
    if (refusal !== undefined) return refuse(refusal);
  }
  const algorithms = [...(client.jwks || client.jwksUri ? ASYMMETRIC_ALGS : []), ...(client.clientSecret !== undefined ? HMAC_ALGS : [])];
  let claims: Record<string, unknown>;
  try {
    claims = await verifyClientJwt(state, client, jwt, { algorithms, issuer: client.clientId, audience: state.issuer, requiredClaims: ['exp', 'iss', 'aud'] });
  } catch (err) {
    return refuse(`the request object is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (claims.client_id !== undefined && claims.client_id !== client.clientId) return refuse("the request object's client_id differs from the request's (RFC 9101 section 5)");
  if (claims.request !== undefined || claims.request_uri !== undefined) return refuse('a request object must not hold request or request_uri (RFC 9101 section 4)');
  const exp = Number(claims.exp);
  const start = typeof claims.nbf === 'number' ? claims.nbf : typeof claims.iat === 'number' ? claims.iat : Math.floor(state.now() / 1000);
  if (exp - start > MAX_REQUEST_OBJECT_SECONDS) {
    return refuse(
      `the request object lives ${exp - start} s from its ${typeof claims.nbf === 'number' ? 'nbf' : typeof claims.iat === 'number' ? 'iat' : 'arrival'} to its exp; at most ${MAX_REQUEST_OBJECT_SECONDS} s (FAPI 2.0 Message Signing section 5.3.1)`,
    );
  }
  if (client.requestObjectSingleUse) {
    if (typeof claims.jti !== 'string' || claims.jti === '') return refuse(`client ${client.clientId} is registered with request_object_single_use: its request objects carry a jti`);
    const seen = securityOf(state.store, state.now).requestObjects.use(`${client.clientId} ${claims.jti}`, exp * 1000);
    if (seen === 'replayed') return refuse('the request object was already used (its jti was seen before): make a new one for each request');
    if (seen === 'busy') throw new StoreFullError('live request objects', 1);
  }
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(claims)) {
    if (JWT_CLAIMS.has(name) || value === null || value === undefined) continue;
    if (Array.isArray(value) && name === 'resource') for (const v of value) addParam(values, name, String(v));
    else if (name === 'resource') addParam(values, name, String(value));
    else if (JSON_PARAMS.has(name)) values.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
    // Every other parameter has one value (RFC 6749 section 3.1): a list or an object is a malformed request, not a value to flatten.
    else if (typeof value === 'object')
      return refuse(`the request object's ${name} must be a single value, not ${Array.isArray(value) ? 'a list' : 'an object'} (RFC 9101 section 4; RFC 6749 section 3.1)`);
    else values.set(name, String(value));
  }
  values.set('client_id', client.clientId);
  return { ok: true, values };
}
