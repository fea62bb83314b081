import { checkAccessToken } from '../core/tokens/access-token.js';
import { authenticateClient } from '../core/clients/client-auth.js';
import { knownResources } from '../core/tokens/resources.js';
import { respond, sendJson, sendOAuthError, type Exchange } from '../core/http/http.js';
import type { AccessTokenClaims, RefreshTokenRecord } from '../core/store/store.js';
import { formParams } from './token.js';

type Found = { kind: 'access_token'; claims: AccessTokenClaims } | { kind: 'refresh_token'; record: RefreshTokenRecord };

/** A live token of this server: a valid, unrevoked access token or an unused refresh token of a live family. */
async function findToken(ex: Exchange, token: string, hint: string | undefined): Promise<Found | undefined> {
  const { store } = ex.state;
  const asRefresh = (): Found | undefined => {
    const record = store.refreshTokens.get(token);
    if (!record || record.rotated || store.families.get(record.family)?.revoked !== false) return undefined;
    return { kind: 'refresh_token', record };
  };
  const asAccess = async (): Promise<Found | undefined> => {
    // A resource server introspects the tokens of its own resource: any resource of this server (RFC 8707), aud said below.
    const check = await checkAccessToken(ex.state, token, knownResources(ex.state));
    return check.ok ? { kind: 'access_token', claims: check.claims } : undefined;
  };
  // RFC 7009 section 2.1 / RFC 7662 section 2.1: the hint orders the lookup, it does not limit it.
  if (hint === 'refresh_token') return asRefresh() ?? (await asAccess());
  return (await asAccess()) ?? asRefresh();
}

/** POST /introspect (RFC 7662): confidential clients only. */
export async function handleIntrospect(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  const client = await authenticateClient(ex, values);
  if (!client) return;
  if (client.tokenEndpointAuthMethod === 'none') {
    return sendOAuthError(ex, 401, 'invalid_client', 'introspection needs a confidential client (RFC 7662 section 2.1)', { 'WWW-Authenticate': 'Basic realm="oauthctl-mock"' });
  }
  const token = values.get('token');
  if (!token) return sendOAuthError(ex, 400, 'invalid_request', 'token is missing');
  const found = await findToken(ex, token, values.get('token_type_hint'));
  const headers = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
  ex.log.outcome = found ? 'active' : 'inactive';
  if (!found) return sendJson(ex.res, 200, { active: false }, headers);
  if (found.kind === 'access_token') {
    const c = found.claims;
    const username = [...ex.state.config.users.values()].find((u) => u.sub === c.sub)?.username;
    return sendJson(
      ex.res,
      200,
      // RFC 9449 section 6.2 and RFC 8705 section 3.2: a bound token's cnf.
      {
        active: true,
        token_type: c.cnf?.jkt !== undefined ? 'DPoP' : 'Bearer',
        scope: c.scope,
        client_id: c.client_id,
        username,
        sub: c.sub,
        aud: c.aud,
        iss: c.iss,
        exp: c.exp,
        iat: c.iat,
        jti: c.jti,
        ...(c.cnf !== undefined ? { cnf: c.cnf } : {}),
      },
      headers,
    );
  }
  const r = found.record;
  const user = ex.state.config.users.get(r.username);
  sendJson(
    ex.res,
    200,
    { active: true, token_type: 'refresh_token', scope: r.scopes.join(' '), client_id: r.clientId, username: r.username, sub: user?.sub, iss: ex.state.issuer, exp: Math.floor(r.expiresAt / 1000) },
    headers,
  );
}

/** POST /revoke (RFC 7009): a refresh token takes its family and access tokens with it (section 2.1). */
export async function handleRevoke(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  const client = await authenticateClient(ex, values);
  if (!client) return;
  const token = values.get('token');
  if (!token) return sendOAuthError(ex, 400, 'invalid_request', 'token is missing');
  const found = await findToken(ex, token, values.get('token_type_hint'));
  const owner = found?.kind === 'refresh_token' ? found.record.clientId : found?.claims.client_id;
  if (found && owner !== client.clientId) return sendOAuthError(ex, 400, 'invalid_request', 'the token was issued to another client (RFC 7009 section 2.1)');
  if (found?.kind === 'refresh_token') ex.state.store.revokeFamily(found.record.family);
  if (found?.kind === 'access_token') ex.state.store.revokeAccessToken(found.claims.jti, found.claims.exp * 1000);
  // Section 2.2: an unknown or invalid token also gets 200.
  ex.log.outcome = found ? 'revoked' : 'unknown token';
  respond(ex.res, 200, { 'Cache-Control': 'no-store', 'Content-Length': 0 });
}
