import { authenticateClient } from '../core/clients/client-auth.js';
import { findLiveToken } from '../core/tokens/live-token.js';
import { sendJson, sendOAuthError, type Exchange } from '../core/http/http.js';
import { formParams } from './token.js';

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
  const found = await findLiveToken(ex, token, values.get('token_type_hint'));
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
        // RFC 9396 section 9.2.
        ...(c.authorization_details !== undefined ? { authorization_details: c.authorization_details } : {}),
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
