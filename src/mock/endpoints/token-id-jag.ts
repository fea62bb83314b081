import { createLocalJWKSet, jwtVerify } from 'jose';
import { ID_JAG_TOKEN_TYPE, TOKEN_TYPES } from '../../oauth/grant-types.js';
import { isValidScopeToken, parseScope } from '../../oauth/scope.js';
import type { MockClient } from '../core/config/config.js';
import { q, sendJson, sendOAuthError, type Exchange } from '../core/http/http.js';
import { newJti } from '../core/tokens/jwt.js';
import { resourceProblem } from '../core/config/config-security.js';

/** The ID-JAG's lifetime: short, as the draft recommends (it is redeemed at once). */
const ID_JAG_LIFETIME = 300;

/**
 * The mock as an enterprise identity provider (Identity Assertion JWT Authorization Grant, draft
 * section 4.3): a token exchange (RFC 8693) of an ID token this server issued to the requesting
 * client for an ID-JAG, a JWT (`typ: oauth-id-jag+jwt`) for the authorization server named by
 * `audience`, carrying the user's `sub`, the `client_id`, and the `resource` and `scope` asked. The
 * audience must be one the client's `token_exchange.audiences` lists.
 */
export async function handleIdJagExchange(ex: Exchange, client: MockClient, values: Map<string, string>): Promise<void> {
  const subjectToken = values.get('subject_token');
  if (!subjectToken || values.get('subject_token_type') !== TOKEN_TYPES.id_token)
    return sendOAuthError(ex, 400, 'invalid_request', `an ID-JAG is issued for an ID token: subject_token and subject_token_type=${TOKEN_TYPES.id_token}`);
  const audience = values.get('audience');
  if (!audience) return sendOAuthError(ex, 400, 'invalid_request', 'audience is required: the issuer of the authorization server the ID-JAG is for (draft section 4.3)');
  const allowed = client.tokenExchange?.audiences ?? [];
  if (!allowed.includes(audience))
    return sendOAuthError(ex, 400, 'invalid_target', `client ${client.clientId} may not get ID-JAGs for ${q(audience)} (its token_exchange.audiences: ${allowed.join(', ') || 'none'})`);
  const resource = values.get('resource');
  const problem = resource === undefined ? undefined : resourceProblem(resource);
  if (problem) return sendOAuthError(ex, 400, 'invalid_target', `resource ${q(resource!)} ${problem}`);
  const scope = values.get('scope');
  if (scope !== undefined && !parseScope(scope).every(isValidScopeToken)) return sendOAuthError(ex, 400, 'invalid_scope', 'scope is not a list of scope tokens (RFC 6749 section 3.3)');
  const { state } = ex;
  let sub: string;
  let authTime: unknown;
  try {
    // The subject: an ID token of this server, issued to this client, unexpired (RFC 8693 section 2.1; OpenID Connect Core 3.1.3.7).
    const { payload } = await jwtVerify(subjectToken, createLocalJWKSet((await state.keys()).jwks), {
      issuer: state.issuer,
      audience: client.clientId,
      currentDate: new Date(state.now()),
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    sub = payload.sub!;
    authTime = payload.auth_time;
  } catch (err) {
    return sendOAuthError(
      ex,
      400,
      'invalid_grant',
      `the subject_token is not an ID token this server issued to ${client.clientId} that is still valid (${err instanceof Error ? err.message : 'invalid'})`,
    );
  }
  const iat = Math.floor(state.now() / 1000);
  const idJag = await (
    await state.keys()
  ).signIdJag({
    iss: state.issuer,
    sub,
    aud: audience,
    client_id: client.clientId,
    jti: newJti(),
    iat,
    exp: iat + ID_JAG_LIFETIME,
    ...(typeof authTime === 'number' ? { auth_time: authTime } : {}),
    ...(resource !== undefined ? { resource } : {}),
    ...(scope !== undefined ? { scope } : {}),
  });
  ex.log.outcome = 'ID-JAG issued';
  // RFC 8693 section 2.2.1: the issued token in access_token; token_type N_A, for it is no access token.
  sendJson(
    ex.res,
    200,
    { access_token: idJag, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', expires_in: ID_JAG_LIFETIME, ...(scope !== undefined ? { scope } : {}) },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  );
}
