import type { AuthorizationServerMetadata } from './discovery.js';
import type { ClientSigningKey } from './token-request.js';

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
  // The alg comes from the other side: named only when it is a plain algorithm name.
  const named = typeof alg === 'string' && /^[A-Za-z0-9+_-]{1,20}$/.test(alg) ? alg : typeof alg === 'string' ? 'with an unknown alg' : 'without an alg';
  return `${what} is signed ${named}; FAPI 2.0 Security Profile section 5.4.1 allows only ${FAPI2_SIGNING_ALGS.join(', ')}`;
}

/** FAPI 2.0 Security Profile section 5.4.1: RSA keys of 2048 bits at least. */
const FAPI2_MIN_RSA_BITS = 2048;

/**
 * The client's signing key under the profile (section 5.4.1): an RSA key whose file names no algorithm
 * signs PS256 (RFC 7518 section 3.5) rather than RS256; any other algorithm the profile does not allow,
 * or an RSA key shorter than 2048 bits, is the problem returned as a sentence.
 */
export function fapi2SigningKey(key: ClientSigningKey): ClientSigningKey | string {
  const bits = key.key.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined && bits < FAPI2_MIN_RSA_BITS) return `the RSA key has ${bits} bits; FAPI 2.0 Security Profile section 5.4.1 asks for ${FAPI2_MIN_RSA_BITS} at least`;
  if (key.alg === 'RS256' && key.algStated !== true && key.key.asymmetricKeyType === 'rsa') return { ...key, alg: 'PS256' };
  if (key.alg === 'EdDSA' && key.key.asymmetricKeyType !== 'ed25519') return 'the key is an EdDSA key other than Ed25519; FAPI 2.0 Security Profile section 5.4.1 allows EdDSA with Ed25519 only';
  return isFapi2SigningAlg(key.alg) ? key : `the key's algorithm is ${key.alg}; FAPI 2.0 Security Profile section 5.4.1 allows only ${FAPI2_SIGNING_ALGS.join(', ')}`;
}

/** What the client signs and verifies under the profile, for the metadata's algorithm lists. */
export interface Fapi2Client {
  /** Tokens bound to a client certificate (RFC 8705) rather than DPoP. */
  mtls: boolean;
  /** The algorithm of its DPoP proofs, of its client assertions (private_key_jwt), of its request objects (JAR). */
  dpopAlg?: string | undefined;
  assertionAlg?: string | undefined;
  requestObjectAlg?: string | undefined;
  /** Whether it verifies ID tokens (the openid scope) and JWT authorization responses (JARM). */
  idTokens?: boolean | undefined;
  jarm?: boolean | undefined;
}

/**
 * What a server's metadata lacks for a FAPI 2.0 client (section 5.3.3): PAR, PKCE S256, iss in the
 * authorization response (RFC 9207), a sender constraint (DPoP, or mTLS-bound tokens when the client
 * has a certificate), and private_key_jwt or mTLS client authentication; and (section 5.4.1) in each
 * announced list of algorithms the client relies on, one the profile allows, and the client's own
 * where the client signs. Empty when it has all.
 */
export function fapi2MetadataGaps(metadata: AuthorizationServerMetadata, client: Fapi2Client): string[] {
  const gaps: string[] = [];
  const list = (name: string): unknown[] => (Array.isArray(metadata[name]) ? (metadata[name] as unknown[]) : []);
  if (typeof metadata.pushed_authorization_request_endpoint !== 'string') gaps.push('pushed_authorization_request_endpoint (PAR, 5.3.2.2)');
  if (!list('code_challenge_methods_supported').includes('S256')) gaps.push('S256 in code_challenge_methods_supported (PKCE, 5.3.2.2)');
  if (metadata.authorization_response_iss_parameter_supported !== true) gaps.push('authorization_response_iss_parameter_supported (RFC 9207, 5.3.2.2)');
  if (client.mtls) {
    if (metadata.tls_client_certificate_bound_access_tokens !== true) gaps.push('tls_client_certificate_bound_access_tokens (mTLS sender constraint, 5.3.2.1)');
  } else if (list('dpop_signing_alg_values_supported').length === 0) {
    gaps.push('dpop_signing_alg_values_supported (DPoP sender constraint, 5.3.2.1)');
  } else {
    gaps.push(...algorithmGaps(metadata, 'dpop_signing_alg_values_supported', client.dpopAlg, 'its DPoP proofs'));
  }
  if (!list('token_endpoint_auth_methods_supported').some((m) => typeof m === 'string' && FAPI2_AUTH_METHODS.includes(m))) {
    gaps.push('private_key_jwt or tls_client_auth in token_endpoint_auth_methods_supported (5.3.2.1)');
  }
  if (client.assertionAlg !== undefined) gaps.push(...algorithmGaps(metadata, 'token_endpoint_auth_signing_alg_values_supported', client.assertionAlg, 'its client assertions'));
  if (client.requestObjectAlg !== undefined) gaps.push(...algorithmGaps(metadata, 'request_object_signing_alg_values_supported', client.requestObjectAlg, 'its request objects'));
  if (client.idTokens === true) gaps.push(...algorithmGaps(metadata, 'id_token_signing_alg_values_supported'));
  if (client.jarm === true) gaps.push(...algorithmGaps(metadata, 'authorization_signing_alg_values_supported'));
  return gaps;
}

/**
 * Section 5.4.1 against one announced list (a list left out says nothing): an algorithm the profile
 * allows in it, and the client's own where the client signs. The server's values are not repeated.
 */
function algorithmGaps(metadata: AuthorizationServerMetadata, name: string, clientAlg?: string, what?: string): string[] {
  const algs = metadata[name];
  if (!Array.isArray(algs)) return [];
  if (!algs.some(isFapi2SigningAlg)) return [`a FAPI 2.0 algorithm (${FAPI2_SIGNING_ALGS.join(', ')}) in ${name} (5.4.1)`];
  return clientAlg !== undefined && what !== undefined && !algs.includes(clientAlg) ? [`${clientAlg}, the algorithm of ${what}, in ${name} (5.4.1)`] : [];
}
