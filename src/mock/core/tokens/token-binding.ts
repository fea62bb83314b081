import type { MockClient } from '../config/config.js';
import { checkDpopProof, nonceHeader } from './dpop.js';
import { sendOAuthError, type Exchange } from '../http/http.js';
import { certificateThumbprint, peerCertificate } from '../clients/mtls.js';

/** What a token is bound to: a DPoP key (RFC 9449 section 6) and/or a client certificate (RFC 8705 section 3). */
export interface TokenBinding {
  jkt?: string;
  x5t?: string;
}

const MTLS_METHODS = new Set(['tls_client_auth', 'self_signed_tls_client_auth']);

/**
 * Every grant binds the same way, here: what this returns goes into every access token the token
 * endpoint issues (authorization code, refresh, client credentials, device code, token exchange), as
 * cnf and token_type, and a public client's refresh token keeps the DPoP key (RFC 9449 section 5).
 *
 * At the token endpoint, after client authentication: the DPoP proof when one is sent (required for a
 * client registered with dpop_bound_access_tokens), and the certificate of a client that authenticated
 * by mutual TLS. Sends the error response and resolves to undefined when the proof is refused.
 */
export async function tokenRequestBinding(ex: Exchange, client: MockClient): Promise<TokenBinding | undefined> {
  const { issuer } = ex.state;
  const proof = await checkDpopProof(ex, { htm: 'POST', htu: `${issuer}${ex.path}` });
  if (proof && !proof.ok) {
    sendOAuthError(ex, 400, proof.error, proof.description, nonceHeader(ex));
    return undefined;
  }
  if (!proof && client.dpopBoundAccessTokens) {
    sendOAuthError(ex, 400, 'invalid_dpop_proof', `client ${client.clientId} is registered with dpop_bound_access_tokens: send a DPoP proof (RFC 9449 section 5.2)`, nonceHeader(ex));
    return undefined;
  }
  const binding: TokenBinding = {};
  if (proof) binding.jkt = proof.jkt;
  const peer = client.tokenEndpointAuthMethods.some((m) => MTLS_METHODS.has(m)) ? peerCertificate(ex) : undefined;
  if (peer) binding.x5t = certificateThumbprint(peer.certificate);
  return binding;
}

/** RFC 9449 section 5: token_type DPoP for a DPoP-bound access token; Bearer otherwise (a certificate-bound one too, RFC 8705 section 3). */
export function tokenTypeOf(binding: TokenBinding | undefined): 'DPoP' | 'Bearer' {
  return binding?.jkt !== undefined ? 'DPoP' : 'Bearer';
}

/** The headers of a token response: no caching (RFC 6749 section 5.1), and a fresh DPoP nonce for a DPoP-bound one. */
export function tokenResponseHeaders(ex: Exchange, binding: TokenBinding | undefined): Record<string, string> {
  return { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...(binding?.jkt !== undefined ? nonceHeader(ex) : {}) };
}

/** The cnf claim of a bound token (RFC 9449 section 6.1, RFC 8705 section 3.1). */
export function confirmation(binding: TokenBinding | undefined): { cnf: { jkt?: string; 'x5t#S256'?: string } } | Record<string, never> {
  if (!binding || (binding.jkt === undefined && binding.x5t === undefined)) return {};
  return { cnf: { ...(binding.jkt !== undefined ? { jkt: binding.jkt } : {}), ...(binding.x5t !== undefined ? { 'x5t#S256': binding.x5t } : {}) } };
}
