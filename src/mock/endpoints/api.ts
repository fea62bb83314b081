import { parseScope } from '../../oauth/scope.js';
import { checkAccessToken } from '../core/access-token.js';
import { userClaims } from '../core/claims.js';
import { userinfoClaims } from '../core/sessions.js';
import { REALM } from '../core/client-auth.js';
import { errorDescription, quoted, sendJson, type Exchange } from '../core/http.js';
import type { AccessTokenClaims } from '../core/store.js';
import { challengeScheme, DPOP_CHALLENGE_ALGS, possessionProblem, type TokenScheme } from '../core/bound-token.js';

const REFUSALS = { invalid: 'the access token is not valid', expired: 'the access token has expired', revoked: 'the access token has been revoked' } as const;

/** The sample protected resource `photo`. */
const PHOTOS = [
  { id: 'p1', title: 'Tea party in the garden', taken: '1865-07-04' },
  { id: 'p2', title: 'The White Rabbit, running late', taken: '1865-07-04' },
  { id: 'p3', title: 'Looking-glass house', taken: '1871-12-27' },
];

/**
 * RFC 6750: the access token from the Authorization header only (section 2.1), checked, and the
 * scope a resource needs; a DPoP-bound or certificate-bound token with its proof of possession
 * (RFC 9449 section 7, RFC 8705 section 3, bound-token.ts). On failure the error with
 * WWW-Authenticate (section 3) is sent and undefined returned: 401 without a token (no error code),
 * 401 invalid_token (or invalid_dpop_proof), 403 insufficient_scope.
 */
export async function bearerClaims(ex: Exchange, requiredScope?: string): Promise<AccessTokenClaims | undefined> {
  const header = ex.req.headers.authorization;
  const m = header === undefined ? null : /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const scheme: TokenScheme = header !== undefined && /^DPoP(\s|$)/i.test(header) ? 'DPoP' : 'Bearer';
  if (!header || !/^(Bearer|DPoP)(\s|$)/i.test(header)) {
    ex.log.outcome = 'no token';
    sendJson(ex.res, 401, { error_description: 'an access token is required (Authorization: Bearer ...)' }, { 'WWW-Authenticate': `Bearer realm="${REALM}"` });
    return undefined;
  }
  if (!m) return void bearerError(ex, 400, 'invalid_request', `the Authorization header is not a valid ${scheme} credential (RFC 6750 section 2.1)`, undefined, scheme);
  const check = await checkAccessToken(ex.state, m[2]!);
  if (!check.ok) return void bearerError(ex, 401, 'invalid_token', REFUSALS[check.reason], undefined, scheme);
  const { claims } = check;
  const problem = await possessionProblem(ex, scheme, m[2]!, claims);
  if (problem) return void bearerError(ex, 401, problem.error, problem.description, undefined, challengeScheme(scheme, claims), problem.headers);
  if (typeof claims.client_id === 'string') ex.log.clientId = claims.client_id;
  if (requiredScope && !parseScope(typeof claims.scope === 'string' ? claims.scope : '').includes(requiredScope)) {
    return void bearerError(ex, 403, 'insufficient_scope', `this resource needs scope ${requiredScope}`, requiredScope, challengeScheme(scheme, claims));
  }
  return claims;
}

function bearerError(ex: Exchange, status: number, error: string, text: string, scope?: string, scheme: TokenScheme = 'Bearer', headers: Record<string, string> = {}): void {
  const description = errorDescription(text);
  ex.log.outcome = 'refused';
  ex.log.error = error;
  ex.log.errorDescription = description;
  const params = [`realm="${REALM}"`, `error="${error}"`, `error_description=${quoted(description)}`];
  if (scope) params.push(`scope=${quoted(scope)}`);
  if (scheme === 'DPoP') params.push(DPOP_CHALLENGE_ALGS);
  sendJson(ex.res, status, { error, error_description: description }, { 'WWW-Authenticate': `${scheme} ${params.join(', ')}`, ...headers });
}

/** GET {base_url}/photos: needs scope photo. */
export async function handlePhotos(ex: Exchange): Promise<void> {
  const claims = await bearerClaims(ex, 'photo');
  if (!claims) return;
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, { owner: claims.sub, photos: PHOTOS }, { 'Cache-Control': 'no-store' });
}

/** GET {base_url}/me: who the token speaks for. */
export async function handleMe(ex: Exchange): Promise<void> {
  const claims = await bearerClaims(ex);
  if (!claims) return;
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, { sub: claims.sub, client_id: claims.client_id, scope: claims.scope, exp: claims.exp }, { 'Cache-Control': 'no-store' });
}

/** GET or POST /userinfo (OpenID Connect Core 5.3): needs scope openid. */
export async function handleUserinfo(ex: Exchange): Promise<void> {
  const claims = await bearerClaims(ex, 'openid');
  if (!claims) return;
  const user = [...ex.state.config.users.values()].find((u) => u.sub === claims.sub);
  if (!user) return void bearerError(ex, 401, 'invalid_token', 'the user of this token no longer exists');
  ex.log.outcome = 'ok';
  // OpenID Connect Core 5.5: what the claims request parameter asked for at userinfo, besides the scopes' claims.
  sendJson(ex.res, 200, { sub: user.sub, ...userClaims(user, parseScope(String(claims.scope ?? ''))), ...userinfoClaims(ex.state, claims.jti, user) }, { 'Cache-Control': 'no-store' });
}
