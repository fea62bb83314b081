import { parseScope } from '../../oauth/scope.js';
import { checkAccessToken } from '../core/tokens/access-token.js';
import { REALM } from '../core/clients/client-auth.js';
import { quotedString } from '../../oauth/www-authenticate.js';
import { errorDescription, sendJson, type Exchange } from '../core/http/http.js';
import type { AccessTokenClaims } from '../core/store/store.js';
import { challengeScheme, dpopChallengeAlgs, possessionProblem, type TokenScheme } from '../core/tokens/bound-token.js';
import { apiTarget, resourceMetadataUrl, type ResourceTarget } from '../core/tokens/protected-resources.js';

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
 * 401 invalid_token (or invalid_dpop_proof), 403 insufficient_scope. `target`: the protected resource
 * asked (the token must be for it, RFC 8707), whose metadata every challenge names (RFC 9728 section 5.1);
 * none for userinfo, which is the authorization server's own.
 */
export async function bearerClaims(ex: Exchange, requiredScopes: string[] = [], target: ResourceTarget | undefined = apiTarget(ex.state)): Promise<AccessTokenClaims | undefined> {
  const metadata = target && resourceMetadataUrl(target.resource);
  const header = ex.req.headers.authorization;
  const m = header === undefined ? null : /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const scheme: TokenScheme = header !== undefined && /^DPoP(\s|$)/i.test(header) ? 'DPoP' : 'Bearer';
  if (!header || !/^(Bearer|DPoP)(\s|$)/i.test(header)) {
    ex.log.outcome = 'no token';
    sendJson(
      ex.res,
      401,
      { error_description: 'an access token is required (Authorization: Bearer ...)' },
      { 'WWW-Authenticate': `Bearer realm="${REALM}"${metadata ? `, resource_metadata=${quotedString(metadata)}` : ''}` },
    );
    return undefined;
  }
  const refuse = (status: number, error: string, text: string, scope?: string, s: TokenScheme = scheme, headers?: Record<string, string>) =>
    bearerError(ex, status, error, text, { scope, scheme: s, headers, metadata });
  if (!m) return void refuse(400, 'invalid_request', `the Authorization header is not a valid ${scheme} credential (RFC 6750 section 2.1)`);
  const state = target?.state ?? ex.state;
  const check = await checkAccessToken(state, m[2]!, target?.resource ?? state.baseUrl);
  if (!check.ok) return void refuse(401, 'invalid_token', check.reason === 'invalid' && target ? `${REFUSALS.invalid} for this resource (${target.resource})` : REFUSALS[check.reason]);
  const { claims } = check;
  const problem = await possessionProblem(ex, scheme, m[2]!, claims);
  if (problem) return void refuse(401, problem.error, problem.description, undefined, challengeScheme(scheme, claims), problem.headers);
  if (typeof claims.client_id === 'string') ex.log.clientId = claims.client_id;
  const granted = parseScope(typeof claims.scope === 'string' ? claims.scope : '');
  const missing = requiredScopes.filter((s) => !granted.includes(s));
  // RFC 6750 section 3.1: insufficient_scope names the scope needed.
  if (missing.length > 0) return void refuse(403, 'insufficient_scope', `this resource needs scope ${requiredScopes.join(' ')}`, requiredScopes.join(' '), challengeScheme(scheme, claims));
  return claims;
}

interface ChallengeExtras {
  scope?: string | undefined;
  scheme?: TokenScheme | undefined;
  headers?: Record<string, string> | undefined;
  /** RFC 9728 section 5.1: the resource's metadata URL, in every challenge. */
  metadata?: string | undefined;
}

export function bearerError(ex: Exchange, status: number, error: string, text: string, { scope, scheme = 'Bearer', headers = {}, metadata }: ChallengeExtras = {}): void {
  const description = errorDescription(text);
  ex.log.outcome = 'refused';
  ex.log.error = error;
  ex.log.errorDescription = description;
  const params = [`realm="${REALM}"`, `error="${error}"`, `error_description=${quotedString(description)}`];
  if (scope) params.push(`scope=${quotedString(scope)}`);
  if (metadata) params.push(`resource_metadata=${quotedString(metadata)}`);
  if (scheme === 'DPoP') params.push(dpopChallengeAlgs(ex.state.config));
  sendJson(ex.res, status, { error, error_description: description }, { 'WWW-Authenticate': `${scheme} ${params.join(', ')}`, ...headers });
}

/** GET {base_url}/photos: needs scope photo. */
export async function handlePhotos(ex: Exchange): Promise<void> {
  const claims = await bearerClaims(ex, ['photo']);
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

/** Any method at a configured protected resource (config protected_resources): who the token speaks for, once it holds the resource's scopes. */
export async function handleProtectedResource(ex: Exchange, target: ResourceTarget): Promise<void> {
  const claims = await bearerClaims(ex, target.scopes, target);
  if (!claims) return;
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, { resource: target.resource, sub: claims.sub, client_id: claims.client_id, scope: claims.scope, aud: claims.aud }, { 'Cache-Control': 'no-store' });
}
