import { parseScope } from '../../oauth/scope.js';
import { checkAccessToken } from '../core/tokens/access-token.js';
import { challengeScheme, dpopChallengeAlgs, possessionProblem, type TokenScheme } from '../core/tokens/bound-token.js';
import { REALM } from '../core/clients/client-auth.js';
import { errorDescription, sendJson, type Exchange } from '../core/http/http.js';
import { quotedString } from '../../oauth/www-authenticate.js';
import { mcpMetadataUrl, mcpTarget } from '../core/tokens/protected-resources.js';
import type { AccessTokenClaims } from '../core/store/store.js';

const REFUSALS = { invalid: 'the access token is not valid for this MCP server', expired: 'the access token has expired', revoked: 'the access token has been revoked' } as const;

/**
 * The challenge of MCP 2025-11-25 (authorization, protected resource metadata discovery and scope
 * selection): `resource_metadata` (RFC 9728 section 5.1) and the `scope` to ask for; with `error` and
 * `error_description` for a token that was refused (RFC 6750 section 3). The 2025-03-26 revision
 * has no resource metadata.
 */
function challenge(ex: Exchange, scope: string[], error?: string, description?: string, scheme: TokenScheme = 'Bearer'): string {
  const metadata = mcpMetadataUrl(ex.state);
  const params = [`realm="${REALM}"`];
  if (error) params.push(`error="${error}"`, `error_description=${quotedString(errorDescription(description ?? ''))}`);
  if (metadata) params.push(`resource_metadata=${quotedString(metadata)}`);
  if (scope.length > 0) params.push(`scope=${quotedString(scope.join(' '))}`);
  // RFC 9449 section 7.1: a DPoP challenge names the algorithms the proofs may use.
  if (scheme === 'DPoP') params.push(dpopChallengeAlgs(ex.state.config));
  return `${scheme} ${params.join(', ')}`;
}

/** Refuses the request with a challenge: 401 (no or bad token), 403 insufficient_scope (RFC 6750 section 3.1). */
export function refuse(ex: Exchange, status: 401 | 403, scope: string[], error?: string, description?: string, scheme: TokenScheme = 'Bearer', headers: Record<string, string> = {}): void {
  ex.log.outcome = error ? 'refused' : 'no token';
  if (error) ex.log.error = error;
  if (description) ex.log.errorDescription = errorDescription(description);
  const body = error ? { error, error_description: errorDescription(description ?? '') } : { error_description: 'an access token is required (Authorization: Bearer ...)' };
  sendJson(ex.res, status, body, { ...headers, 'WWW-Authenticate': challenge(ex, scope, error, description, scheme), 'Cache-Control': 'no-store' });
}

/**
 * The access token of a request to the MCP endpoint (MCP 2025-11-25, authorization, token handling):
 * from the Authorization header only (never the query, RFC 6750 section 2.3 is not offered), issued for
 * this endpoint (`aud`, RFC 8707; the 2025-03-26 revision knew no resource indicators, so there a token
 * for the mock's API is taken too), unexpired, unrevoked, with the endpoint's scopes. Undefined when
 * refused (the answer is sent).
 */
export async function mcpBearer(ex: Exchange): Promise<AccessTokenClaims | undefined> {
  const { config } = ex.state;
  const scopes = config.mcp.scopes;
  const header = ex.req.headers.authorization;
  // A DPoP-bound token comes as `Authorization: DPoP` (RFC 9449 section 7.1, SEP-1932), any other as Bearer.
  if (header === undefined || !/^(Bearer|DPoP)(\s|$)/i.test(header)) return void refuse(ex, 401, scopes);
  const scheme: TokenScheme = /^DPoP/i.test(header) ? 'DPoP' : 'Bearer';
  const m = /^(?:Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!m)
    return void refuse(
      ex,
      401,
      scopes,
      'invalid_request',
      `the Authorization header is not a valid ${scheme} credential (${scheme === 'DPoP' ? 'RFC 9449 section 7.1' : 'RFC 6750 section 2.1'})`,
      scheme,
    );
  const target = mcpTarget(ex.state);
  const audiences = [target.resource, ...(config.mcp.revision === '2025-03-26' ? [ex.state.baseUrl] : [])];
  // The issuer the endpoint's metadata names: after a move (SEP-2352), the old issuer's tokens are refused.
  const check = await checkAccessToken(target.state, m[1]!, audiences);
  if (!check.ok) return void refuse(ex, 401, scopes, 'invalid_token', REFUSALS[check.reason], scheme);
  // A DPoP-bound token as Bearer, a missing or bad proof, a nonce to use (the mock's `dpop_nonce`, RFC 9449 section 9).
  const problem = await possessionProblem(ex, scheme, m[1]!, check.claims);
  if (problem) return void refuse(ex, 401, scopes, problem.error, problem.description, challengeScheme(scheme, check.claims), problem.headers);
  ex.log.clientId = check.claims.client_id;
  if (!hasScopes(check.claims, scopes)) return void refuse(ex, 403, scopes, 'insufficient_scope', `this MCP server needs scope ${scopes.join(' ')}`, challengeScheme(scheme, check.claims));
  return check.claims;
}

export function hasScopes(claims: AccessTokenClaims, needed: readonly string[]): boolean {
  const granted = parseScope(typeof claims.scope === 'string' ? claims.scope : '');
  return needed.every((s) => granted.includes(s));
}
