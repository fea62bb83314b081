import { decodeJwt, decodeProtectedHeader } from 'jose';
import { verifyClientJwt } from './client-keys.js';
import { ASYMMETRIC_ALGS, HMAC_ALGS } from '../config/config-security.js';
import { fapi2AlgRefusal } from '../../../oauth/fapi2.js';
import type { MockClient } from '../config/config.js';
import { q, type Exchange } from '../http/http.js';
import { securityOf } from '../store/security-store.js';
import { StoreFullError } from '../store/expiring-map.js';

/** RFC 7523 section 2.2. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** An assertion may not live longer than this (its exp at most this far ahead). */
export const MAX_ASSERTION_SECONDS = 600;

export type AssertionOutcome = { ok: true; client: MockClient } | { ok: false; status: 400 | 401; error: string; description: string };

const refuse = (description: string): AssertionOutcome => ({ ok: false, status: 401, error: 'invalid_client', description });

/**
 * RFC 8725 sections 3.11 and 3.12 (explicit typing, no cross-JWT confusion): a client assertion is
 * untyped, typed JWT, or client-authentication+jwt (draft-ietf-oauth-rfc7523bis); a JWT typed as
 * another kind (a request object, a DPoP proof, an access token, a logout token) is never taken for one.
 */
const ASSERTION_TYPES = new Set(['jwt', 'client-authentication+jwt']);
/**
 * RFC 9101 section 10.8: a request object signed by the client has iss (or sub) = client_id and the
 * issuer as aud, so it could pass for a client assertion. Its parameters give it away: any of these refuses it.
 */
const REQUEST_OBJECT_CLAIMS = ['response_type', 'redirect_uri', 'state', 'nonce', 'code_challenge', 'response_mode', 'request', 'request_uri'];

/** Why a JWT is not a client assertion by its type and claims, or undefined when it may be one. */
export function notAnAssertion(header: { typ?: unknown }, claims: Record<string, unknown>): string | undefined {
  if (header.typ !== undefined) {
    const typ = String(header.typ)
      .toLowerCase()
      .replace(/^application\//, '');
    if (!ASSERTION_TYPES.has(typ))
      return `the client assertion is typed ${JSON.stringify(String(header.typ).slice(0, 40))}, a JWT of another kind; a client assertion is untyped, JWT or client-authentication+jwt (RFC 8725 section 3.11)`;
  }
  const carried = REQUEST_OBJECT_CLAIMS.filter((name) => name in claims);
  if (carried.length > 0) return `the client assertion carries request parameters (${carried.join(', ')}): a request object is not a client assertion (RFC 9101 section 10.8)`;
  return undefined;
}

/**
 * private_key_jwt and client_secret_jwt (RFC 7523 sections 2.2 and 3, OpenID Connect Core section 9):
 * the assertion's signature with the client's keys or secret (asymmetric algorithms for the one, HMAC
 * for the other, never none), iss = sub = client_id, aud naming this server (its issuer identifier,
 * the token endpoint, or the endpoint the assertion was sent to, as oidc-provider accepts), exp
 * required and at most 10 minutes ahead, and a jti never seen before (kept until exp).
 */
export async function authenticateByAssertion(ex: Exchange, values: Map<string, string>): Promise<AssertionOutcome> {
  const type = values.get('client_assertion_type');
  const assertion = values.get('client_assertion');
  if (type !== JWT_BEARER_ASSERTION) return refuse(`client_assertion_type must be ${JWT_BEARER_ASSERTION} (RFC 7523 section 2.2)`);
  if (assertion === undefined) return refuse('client_assertion is missing');
  if (values.has('client_secret') || ex.req.headers.authorization !== undefined) {
    return { ok: false, status: 400, error: 'invalid_request', description: 'the client used more than one authentication method (a client assertion and a secret); use one (RFC 6749 section 2.3)' };
  }
  let claims: ReturnType<typeof decodeJwt>;
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    claims = decodeJwt(assertion);
    header = decodeProtectedHeader(assertion);
  } catch {
    return refuse('client_assertion is not a JWT');
  }
  const mistyped = notAnAssertion(header, claims);
  if (mistyped !== undefined) return refuse(mistyped);
  const clientId = claims.sub;
  if (typeof clientId !== 'string' || clientId === '') return refuse('the client assertion has no sub (the client_id, RFC 7523 section 3)');
  ex.log.clientId = clientId;
  const bodyClientId = values.get('client_id');
  if (bodyClientId !== undefined && bodyClientId !== clientId) return refuse(`client_id ${q(bodyClientId)} differs from the assertion's sub ${q(clientId)}`);
  if (claims.iss !== clientId) return refuse('the client assertion must have iss = sub = the client_id (RFC 7523 section 3)');
  const client = ex.state.config.clients.get(clientId);
  if (!client) return refuse(`client_id ${q(clientId)} is not a registered client`);
  const method = client.tokenEndpointAuthMethods.find((m) => m === 'private_key_jwt' || m === 'client_secret_jwt');
  if (method === undefined) return refuse(`client ${clientId} is registered for ${client.tokenEndpointAuthMethods.join(' or ')}, but the request used a client assertion`);
  const algorithms = method === 'private_key_jwt' ? ASYMMETRIC_ALGS : HMAC_ALGS;
  if (ex.state.config.securityProfile === 'fapi2') {
    const refusal = fapi2AlgRefusal(`the client assertion of ${clientId}`, header.alg);
    if (refusal !== undefined) return refuse(refusal);
  }
  const { issuer } = ex.state;
  const now = Math.floor(ex.state.now() / 1000);
  let exp: number;
  let jti: unknown;
  try {
    const payload = await verifyClientJwt(ex.state, client, assertion, {
      algorithms,
      issuer: clientId,
      subject: clientId,
      // FAPI 2.0 Security Profile section 5.3.2.1: the issuer identifier only.
      audience: ex.state.config.securityProfile === 'fapi2' ? issuer : [issuer, `${issuer}/token`, `${issuer}${ex.path}`],
      requiredClaims: ['exp', 'jti'],
    });
    exp = payload.exp!;
    jti = payload.jti;
  } catch (err) {
    return refuse(`the client assertion of ${clientId} (${method}) is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (exp > now + MAX_ASSERTION_SECONDS) return refuse(`the client assertion expires too late: exp may be at most ${MAX_ASSERTION_SECONDS} seconds ahead`);
  if (typeof jti !== 'string' || jti === '') return refuse('the client assertion has no jti (RFC 7523 section 3)');
  const seen = securityOf(ex.state.store, ex.state.now).clientAssertions.use(`${clientId} ${jti}`, exp * 1000);
  if (seen === 'replayed') return refuse('the client assertion was already used (its jti was seen before, RFC 7523 section 3)');
  // Full of live jtis: refused (503) rather than forgetting one that could then be replayed.
  if (seen === 'busy') throw new StoreFullError('live client assertions', 1);
  return { ok: true, client };
}
