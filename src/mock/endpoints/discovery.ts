import { CLAIMS_SUPPORTED } from '../core/tokens/claims.js';
import { ACR_VALUES_SUPPORTED } from '../core/authorization/oidc-params.js';
import { GRANT_TYPES } from '../core/config/config.js';
import { sendJson, type Exchange, type MockState } from '../core/http/http.js';
import { registrationOpen } from '../core/clients/client-metadata.js';
import { allowedAlgs, ASYMMETRIC_ALGS, DPOP_ALGS, HMAC_ALGS, REQUEST_OBJECT_ALGS } from '../core/config/config-security.js';
import { CIBA_DELIVERY_MODES } from '../../oauth/ciba.js';
import { FAPI2_AUTH_METHODS } from '../../oauth/fapi2.js';
import { JARM_RESPONSE_MODES } from '../../oauth/jarm.js';
import { mockServiceDocumentation } from '../../oauth/mock-admin.js';

/** RFC 8414 / OpenID Connect Discovery 1.0 section 3: exactly what this server implements. */
export function serverMetadata(state: MockState): Record<string, unknown> {
  const { issuer, config } = state;
  const plain = [...config.clients.values()].some((c) => c.allowPlainPkce);
  // RFC 7523, RFC 8705 section 2 (the tls ones only when the mock speaks TLS itself).
  const allMethods = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', ...(state.mtls ? ['tls_client_auth', 'self_signed_tls_client_auth'] : [])];
  // FAPI 2.0 Security Profile section 5.3.2.1: private_key_jwt and mTLS only, no public clients.
  const fapi2 = config.securityProfile === 'fapi2';
  const authMethods = fapi2 ? allMethods.filter((m) => FAPI2_AUTH_METHODS.includes(m)) : allMethods;
  const publicClients = fapi2 ? [] : ['none'];
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    userinfo_endpoint: `${issuer}/userinfo`,
    introspection_endpoint: `${issuer}/introspect`,
    revocation_endpoint: `${issuer}/revoke`,
    device_authorization_endpoint: `${issuer}/device_authorization`,
    // CIBA Core 1.0 section 4: poll and ping, no user_code, no signed authentication requests.
    backchannel_authentication_endpoint: `${issuer}/backchannel`,
    backchannel_token_delivery_modes_supported: [...CIBA_DELIVERY_MODES],
    backchannel_user_code_parameter_supported: false,
    scopes_supported: [...config.scopes.keys()],
    response_types_supported: ['code'],
    // JARM section 3: the signed response modes, signed as ID tokens are.
    response_modes_supported: ['query', 'form_post', ...JARM_RESPONSE_MODES],
    authorization_signing_alg_values_supported: [config.signingAlg],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: [...authMethods, ...publicClients],
    // FAPI 2.0 Security Profile section 5.4.1: in its mode, PS256, ES256 and EdDSA only (allowedAlgs).
    token_endpoint_auth_signing_alg_values_supported: allowedAlgs(config, [...ASYMMETRIC_ALGS, ...HMAC_ALGS]),
    introspection_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: [...authMethods, ...publicClients],
    code_challenge_methods_supported: plain && !fapi2 ? ['S256', 'plain'] : ['S256'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [config.signingAlg],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: true,
    acr_values_supported: ACR_VALUES_SUPPORTED,
    // RP-Initiated, Back-Channel and Front-Channel Logout 1.0: every logout token and front-channel URI can carry sid.
    end_session_endpoint: `${issuer}/logout`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    // RFC 9101: request objects by value (and by PAR); request_uri only as PAR's.
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: allowedAlgs(config, REQUEST_OBJECT_ALGS),
    request_uri_parameter_supported: false,
    pushed_authorization_request_endpoint: `${issuer}/par`,
    require_pushed_authorization_requests: config.requirePushedAuthorizationRequests,
    dpop_signing_alg_values_supported: allowedAlgs(config, DPOP_ALGS),
    tls_client_certificate_bound_access_tokens: state.mtls === true,
    authorization_response_iss_parameter_supported: true,
    // RFC 7591 section 3 (open, or with the initial access token), and Client ID Metadata Documents.
    ...(registrationOpen(state) || state.config.registration.initialAccessToken !== undefined ? { registration_endpoint: `${issuer}/register` } : {}),
    client_id_metadata_document_supported: config.mcp.clients !== 'registration',
    // RFC 8414 section 2: its flows page, while the admin API answers (how a client knows the mock: src/oauth/mock-admin.ts).
    ...(state.admin !== 'off' ? { service_documentation: mockServiceDocumentation(issuer) } : {}),
    // RFC 9396 section 10.
    ...(config.authorizationDetailsTypes.length > 0 ? { authorization_details_types_supported: config.authorizationDetailsTypes } : {}),
  };
}

/** /.well-known/oauth-authorization-server and /.well-known/openid-configuration. */
export function handleMetadata(ex: Exchange): void {
  // MCP 2025-03-26, section 2.3.3: a server without metadata, whose clients use the default endpoints.
  const { revision, authorizationServerMetadata } = ex.state.config.mcp;
  if (revision === '2025-03-26' && !authorizationServerMetadata) {
    ex.log.error = 'not_found';
    return sendJson(ex.res, 404, { error: 'not_found', error_description: 'this server publishes no metadata (config mcp.authorization_server_metadata)' });
  }
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, serverMetadata(ex.state), { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' });
}

/** GET /jwks: the public signing key (RFC 7517 section 5). */
export async function handleJwks(ex: Exchange): Promise<void> {
  const keys = await ex.state.keys();
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, keys.jwks, { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' });
}
