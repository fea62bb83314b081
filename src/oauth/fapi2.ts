import type { AuthorizationServerMetadata } from './discovery.js';

/**
 * The FAPI 2.0 Security Profile (final) in one place for client and mock: the client authentication
 * methods it allows (section 5.3.2.1: private_key_jwt or mTLS), and the longest authorization code
 * lifetime (section 5.3.2.1: no more than 60 seconds).
 */
export const FAPI2_AUTH_METHODS: readonly string[] = ['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'];
export const FAPI2_MAX_CODE_SECONDS = 60;

/**
 * FAPI 2.0 Security Profile section 5.4.1 (cryptography and secrets): authorization servers, clients
 * and resource servers creating or processing JWTs use PS256, ES256 or EdDSA (with Ed25519) only;
 * RS256 (RSASSA-PKCS1-v1_5), the other RSA and EC sizes, HMAC and none are not allowed.
 */
export const FAPI2_SIGNING_ALGS: readonly string[] = ['PS256', 'ES256', 'EdDSA'];

export function isFapi2SigningAlg(alg: unknown): boolean {
  return typeof alg === 'string' && FAPI2_SIGNING_ALGS.includes(alg);
}

/** Why a JWT's alg is refused under the profile (what it is, e.g. "the client assertion"), or undefined when allowed. */
export function fapi2AlgRefusal(what: string, alg: unknown): string | undefined {
  if (isFapi2SigningAlg(alg)) return undefined;
  return `${what} is signed ${typeof alg === 'string' ? alg : 'without an alg'}; FAPI 2.0 Security Profile section 5.4.1 allows only ${FAPI2_SIGNING_ALGS.join(', ')}`;
}

/**
 * What a server's metadata lacks for a FAPI 2.0 client (section 5.3.3): PAR, PKCE S256, iss in the
 * authorization response (RFC 9207), a sender constraint (DPoP, or mTLS-bound tokens when the client
 * has a certificate), and private_key_jwt or mTLS client authentication. Empty when it has all.
 */
export function fapi2MetadataGaps(metadata: AuthorizationServerMetadata, client: { mtls: boolean }): string[] {
  const gaps: string[] = [];
  const list = (name: string): unknown[] => (Array.isArray(metadata[name]) ? (metadata[name] as unknown[]) : []);
  if (typeof metadata.pushed_authorization_request_endpoint !== 'string') gaps.push('pushed_authorization_request_endpoint (PAR, 5.3.2.2)');
  if (!list('code_challenge_methods_supported').includes('S256')) gaps.push('S256 in code_challenge_methods_supported (PKCE, 5.3.2.2)');
  if (metadata.authorization_response_iss_parameter_supported !== true) gaps.push('authorization_response_iss_parameter_supported (RFC 9207, 5.3.2.2)');
  if (client.mtls) {
    if (metadata.tls_client_certificate_bound_access_tokens !== true) gaps.push('tls_client_certificate_bound_access_tokens (mTLS sender constraint, 5.3.2.1)');
  } else if (list('dpop_signing_alg_values_supported').length === 0) {
    gaps.push('dpop_signing_alg_values_supported (DPoP sender constraint, 5.3.2.1)');
  }
  if (!list('token_endpoint_auth_methods_supported').some((m) => typeof m === 'string' && FAPI2_AUTH_METHODS.includes(m))) {
    gaps.push('private_key_jwt or tls_client_auth in token_endpoint_auth_methods_supported (5.3.2.1)');
  }
  return gaps;
}
