import { authenticateClient } from '../core/clients/client-auth.js';
import { findLiveToken } from '../core/tokens/live-token.js';
import { respond, sendOAuthError, type Exchange } from '../core/http/http.js';
import { formParams } from './token.js';

/** POST /revoke (RFC 7009): a refresh token takes its family and access tokens with it (section 2.1). */
export async function handleRevoke(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  const client = await authenticateClient(ex, values);
  if (!client) return;
  const token = values.get('token');
  if (!token) return sendOAuthError(ex, 400, 'invalid_request', 'token is missing');
  const found = await findLiveToken(ex, token, values.get('token_type_hint'));
  const owner = found?.kind === 'refresh_token' ? found.record.clientId : found?.claims.client_id;
  if (found && owner !== client.clientId) return sendOAuthError(ex, 400, 'invalid_request', 'the token was issued to another client (RFC 7009 section 2.1)');
  if (found?.kind === 'refresh_token') ex.state.store.revokeFamily(found.record.family);
  if (found?.kind === 'access_token') ex.state.store.revokeAccessToken(found.claims.jti, found.claims.exp * 1000);
  // Section 2.2: an unknown or invalid token also gets 200.
  ex.log.outcome = found ? 'revoked' : 'unknown token';
  respond(ex.res, 200, { 'Cache-Control': 'no-store', 'Content-Length': 0 });
}
