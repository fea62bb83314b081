import type { MockClient } from '../core/config/config.js';
import { sendOAuthError, type Exchange } from '../core/http/http.js';
import { checkRequestedScope } from '../core/tokens/scope-check.js';
import { sendServiceToken } from '../core/tokens/service-token.js';
import type { TokenBinding } from '../core/tokens/token-binding.js';
import { requestedResources } from '../core/tokens/resources.js';

/** Scopes that speak for a user or ask for a refresh token: meaningless without one (RFC 6749 section 4.4.3). */
const USER_SCOPES = new Set(['openid', 'offline_access', 'profile', 'email', 'address', 'phone']);

/**
 * grant_type=client_credentials (RFC 6749 section 4.4.2), for clients whose grant_types allow it
 * (handleToken checks); a public client gets unauthorized_client (section 4.4: the grant MUST only be
 * used by confidential clients). The token's subject is the client itself; no refresh token.
 */
export async function handleClientCredentialsGrant(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding): Promise<void> {
  if (client.tokenEndpointAuthMethod === 'none') {
    return sendOAuthError(ex, 400, 'unauthorized_client', `client ${client.clientId} is public: the client credentials grant needs a confidential client (RFC 6749 section 4.4)`);
  }
  const fallback = [...client.scopes].filter((s) => !USER_SCOPES.has(s));
  const scopes = checkRequestedScope(ex, client, values.get('scope'), fallback);
  if (!scopes) return;
  const userScopes = scopes.filter((s) => USER_SCOPES.has(s));
  if (userScopes.length > 0) return sendOAuthError(ex, 400, 'invalid_scope', `scope ${userScopes.join(' ')} needs a user; the client credentials grant has none`);
  // RFC 8707 section 2: a token for the resource asked (an MCP server, for machine clients of MCP).
  const resources = requestedResources(values, ex.state);
  if (!resources.ok) return sendOAuthError(ex, 400, 'invalid_target', resources.description);
  if (resources.resources.length > 1) return sendOAuthError(ex, 400, 'invalid_target', 'ask for one resource at a time with the client credentials grant');
  const [aud] = resources.resources;
  await sendServiceToken(ex, client, { sub: client.clientId, scopes, binding, ...(aud !== undefined ? { aud } : {}) });
}
