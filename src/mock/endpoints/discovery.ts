import { CLAIMS_SUPPORTED } from '../core/claims.js';
import { GRANT_TYPES } from '../core/config.js';
import { sendJson, type Exchange, type MockState } from '../core/http.js';

/** RFC 8414 / OpenID Connect Discovery 1.0 section 3: exactly what this server implements. */
export function serverMetadata(state: MockState): Record<string, unknown> {
  const { issuer, config } = state;
  const plain = [...config.clients.values()].some((c) => c.allowPlainPkce);
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    userinfo_endpoint: `${issuer}/userinfo`,
    introspection_endpoint: `${issuer}/introspect`,
    revocation_endpoint: `${issuer}/revoke`,
    device_authorization_endpoint: `${issuer}/device_authorization`,
    scopes_supported: [...config.scopes.keys()],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: plain ? ['S256', 'plain'] : ['S256'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [config.signingAlg],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
  };
}

/** /.well-known/oauth-authorization-server and /.well-known/openid-configuration. */
export function handleMetadata(ex: Exchange): void {
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, serverMetadata(ex.state), { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' });
}

/** GET /jwks: the public signing key (RFC 7517 section 5). */
export async function handleJwks(ex: Exchange): Promise<void> {
  const keys = await ex.state.keys();
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, keys.jwks, { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' });
}
