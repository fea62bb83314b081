import { clientSecretBasic, type ClientCredentials, type TokenHttpRequest } from './token-request.js';

export type TokenTypeHint = 'access_token' | 'refresh_token';

/**
 * A token revocation request (RFC 7009 section 2.1): a form-encoded POST of `token` and
 * `token_type_hint`, with the client authenticating as it does at the token endpoint.
 */
export function buildRevocationRequest(revocationEndpoint: string, client: ClientCredentials, token: string, hint: TokenTypeHint): TokenHttpRequest {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (client.authMethod === 'client_secret_basic' && client.clientSecret !== undefined) {
    headers.authorization = clientSecretBasic(client.clientId, client.clientSecret);
  } else {
    body.set('client_id', client.clientId);
    if (client.authMethod === 'client_secret_post' && client.clientSecret !== undefined) body.set('client_secret', client.clientSecret);
  }
  return { url: revocationEndpoint, method: 'POST', headers, body: body.toString() };
}
