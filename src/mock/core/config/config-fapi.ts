import { FAPI2_AUTH_METHODS, FAPI2_MAX_CODE_SECONDS } from '../../../oauth/fapi2.js';

/**
 * Rich authorization requests (RFC 9396) and the FAPI 2.0 Security Profile, as configuration:
 * `authorization_details_types` (the types the mock accepts, announced as
 * `authorization_details_types_supported`, section 10) and `"security_profile": "fapi2"`.
 */
export interface FapiConfig {
  authorizationDetailsTypes: readonly string[];
  securityProfile?: 'fapi2';
}

export const FAPI_TOP_KEYS = ['authorization_details_types', 'security_profile'];

type Fail = (field: string, message: string) => void;

/** The fields of a client (MockClient) the profile sets. */
interface Fapi2Client {
  requirePkce: boolean;
  allowPlainPkce: boolean;
  tokenEndpointAuthMethods: readonly string[];
  dpopBoundAccessTokens: boolean;
  requirePushedAuthorizationRequests: boolean;
}

export function validateFapiTop(input: Record<string, unknown>, fail: Fail): FapiConfig {
  const config: FapiConfig = { authorizationDetailsTypes: [] };
  const types = input.authorization_details_types;
  if (types !== undefined) {
    if (!Array.isArray(types) || types.some((t) => typeof t !== 'string' || t === '')) fail('authorization_details_types', 'must be an array of type names (RFC 9396 section 2)');
    else config.authorizationDetailsTypes = types as string[];
  }
  if (input.security_profile !== undefined) {
    if (input.security_profile !== 'fapi2') fail('security_profile', 'must be "fapi2" (the FAPI 2.0 Security Profile), or left out');
    else config.securityProfile = 'fapi2';
  }
  return config;
}

/**
 * FAPI 2.0 Security Profile section 5.3.2 on every client: PKCE with S256 (5.3.2.2), tokens bound by
 * DPoP unless the client authenticates with its certificate (mTLS-bound then, 5.3.2.1), and only
 * private_key_jwt or mTLS client authentication (5.3.2.1): a client registered for another method is
 * refused at PAR and at the token endpoint (invalid_client). Returns the problem with the code
 * lifetime, which must be at most 60 seconds (5.3.2.1).
 */
export function applyFapi2(clients: ReadonlyMap<string, Fapi2Client>, codeLifetime: number): string | undefined {
  for (const c of clients.values()) {
    c.requirePkce = true;
    c.allowPlainPkce = false;
    c.tokenEndpointAuthMethods = c.tokenEndpointAuthMethods.filter((m) => FAPI2_AUTH_METHODS.includes(m));
    if (!c.tokenEndpointAuthMethods.some((m) => m === 'tls_client_auth' || m === 'self_signed_tls_client_auth')) c.dpopBoundAccessTokens = true;
    c.requirePushedAuthorizationRequests = true;
  }
  return codeLifetime > FAPI2_MAX_CODE_SECONDS ? `must be at most ${FAPI2_MAX_CODE_SECONDS} with security_profile fapi2 (FAPI 2.0 Security Profile section 5.3.2.1)` : undefined;
}
