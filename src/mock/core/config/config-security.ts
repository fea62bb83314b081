import { isLoopbackHost } from '../../../oauth/loopback.js';
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { isJsonObject } from '../../../oauth/json.js';
import { isFapi2SigningAlg } from '../../../oauth/fapi2.js';

/**
 * The configuration of the mock's modern features, validated at start like the rest of config.ts:
 * client keys (RFC 7591 `jwks`, `jwks_uri`), the JWT and mutual-TLS authentication methods
 * (RFC 7523, RFC 8705), PAR (RFC 9126), DPoP (RFC 9449), signed request objects (RFC 9101) and
 * resource indicators (RFC 8707).
 */
export type SecretAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt';
export type KeyAuthMethod = 'private_key_jwt' | 'tls_client_auth' | 'self_signed_tls_client_auth';

export interface JsonWebKeySet {
  keys: JsonWebKey[];
}

/** The client fields these features add (the registered metadata names, RFC 7591 and the RFCs above). */
export interface SecurityClientFields {
  jwks?: JsonWebKeySet;
  jwksUri?: string;
  tlsClientAuthSubjectDn?: string;
  requirePushedAuthorizationRequests: boolean;
  dpopBoundAccessTokens: boolean;
  requireSignedRequestObject: boolean;
  /** Request objects must carry a jti, each accepted once (FAPI 2.0 Message Signing, replay protection). */
  requestObjectSingleUse: boolean;
}

export interface SecurityConfig {
  /** Resource indicators the mock knows besides `{base_url}` (RFC 8707). */
  resources: readonly string[];
  /** Every client must use PAR (RFC 9126 section 5). */
  requirePushedAuthorizationRequests: boolean;
  /** DPoP proofs must carry a server nonce (RFC 9449 section 8). */
  dpopNonce: boolean;
  /** A CA (PEM text, or a PEM file's path) whose certificates tls_client_auth accepts, besides the mock's own CA. */
  tlsClientAuthCa?: string;
}

export const SECURITY_CLIENT_KEYS = [
  'jwks',
  'jwks_uri',
  'tls_client_auth_subject_dn',
  'require_pushed_authorization_requests',
  'dpop_bound_access_tokens',
  'require_signed_request_object',
  'request_object_single_use',
];
export const SECURITY_TOP_KEYS = ['resources', 'require_pushed_authorization_requests', 'dpop_nonce', 'tls_client_auth_ca'];
export const SECRET_AUTH_METHODS: readonly SecretAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];
export const KEY_AUTH_METHODS: readonly KeyAuthMethod[] = ['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'];

/** Asymmetric JWS algorithms the mock verifies (client assertions, request objects, DPoP proofs); HMAC ones for client_secret_jwt and request objects. */
export const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
export const HMAC_ALGS = ['HS256', 'HS384', 'HS512'];
/** DPoP proofs: asymmetric only (RFC 9449 section 4.2). */
export const DPOP_ALGS = ASYMMETRIC_ALGS;
/** Request objects: never none (RFC 9101 section 10.1). */
export const REQUEST_OBJECT_ALGS = [...ASYMMETRIC_ALGS, ...HMAC_ALGS];

/**
 * The algorithms of `algs` the mock announces and accepts: in FAPI 2.0 mode only PS256, ES256 and
 * EdDSA (FAPI 2.0 Security Profile section 5.4.1), all of them otherwise.
 */
export function allowedAlgs(config: { securityProfile?: 'fapi2' | undefined }, algs: readonly string[]): string[] {
  return config.securityProfile === 'fapi2' ? algs.filter(isFapi2SigningAlg) : [...algs];
}

type Obj = Record<string, unknown>;
type Fail = (field: string, message: string) => void;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The client's key fields and flags; `methods` are the authentication methods it may use, `secret` whether it has a client_secret. */
export function validateSecurityClient(c: Obj, methods: readonly string[], secret: boolean, bad: Fail): SecurityClientFields {
  const fields: SecurityClientFields = { requirePushedAuthorizationRequests: false, dpopBoundAccessTokens: false, requireSignedRequestObject: false, requestObjectSingleUse: false };
  if (c.jwks !== undefined) {
    const jwks = jwksProblem(c.jwks);
    if (typeof jwks === 'string') bad('jwks', jwks);
    else fields.jwks = jwks;
  }
  if (c.jwks_uri !== undefined) {
    const problem = jwksUriProblem(c.jwks_uri);
    if (problem) bad('jwks_uri', problem);
    else fields.jwksUri = c.jwks_uri as string;
  }
  // RFC 7591 section 2: jwks and jwks_uri MUST NOT both be present.
  if (c.jwks !== undefined && c.jwks_uri !== undefined) bad('jwks_uri', 'a client has jwks or jwks_uri, not both (RFC 7591 section 2)');
  if (c.tls_client_auth_subject_dn !== undefined) {
    if (typeof c.tls_client_auth_subject_dn !== 'string' || !/=/.test(c.tls_client_auth_subject_dn))
      bad('tls_client_auth_subject_dn', 'must be a distinguished name such as "CN=photo-mtls,O=Example"');
    else fields.tlsClientAuthSubjectDn = c.tls_client_auth_subject_dn;
  }
  const flags = [
    ['require_pushed_authorization_requests', 'requirePushedAuthorizationRequests'],
    ['dpop_bound_access_tokens', 'dpopBoundAccessTokens'],
    ['require_signed_request_object', 'requireSignedRequestObject'],
    ['request_object_single_use', 'requestObjectSingleUse'],
  ] as const;
  for (const [key, prop] of flags) {
    if (c[key] === undefined) continue;
    if (typeof c[key] !== 'boolean') bad(key, 'must be true or false');
    else fields[prop] = c[key];
  }
  const hasKeys = fields.jwks !== undefined || fields.jwksUri !== undefined;
  const uses = (method: string) => methods.includes(method);
  if (uses('private_key_jwt') && !hasKeys) bad('token_endpoint_auth_method', 'is "private_key_jwt" but the client has neither jwks nor jwks_uri (RFC 7523 section 2.2)');
  if (uses('self_signed_tls_client_auth') && !hasKeys) bad('token_endpoint_auth_method', 'is "self_signed_tls_client_auth" but the client has neither jwks nor jwks_uri (RFC 8705 section 2.2)');
  if (uses('tls_client_auth') && fields.tlsClientAuthSubjectDn === undefined)
    bad('token_endpoint_auth_method', 'is "tls_client_auth" but the client has no tls_client_auth_subject_dn (RFC 8705 section 2.1.2)');
  for (const method of methods) {
    if ((KEY_AUTH_METHODS as readonly string[]).includes(method) && secret) bad('client_secret', `a ${method} client authenticates with a key, not a secret; drop client_secret`);
    if ((SECRET_AUTH_METHODS as readonly string[]).includes(method) && !secret) bad('token_endpoint_auth_method', `is ${JSON.stringify(method)} but the client has no client_secret`);
  }
  if (fields.requireSignedRequestObject && !hasKeys && !secret) bad('require_signed_request_object', 'the client has no jwks, jwks_uri or client_secret to verify its request objects with');
  return fields;
}

/** The top-level fields. */
export function validateSecurityTop(input: Obj, fail: Fail): SecurityConfig {
  const config: SecurityConfig = { resources: [], requirePushedAuthorizationRequests: false, dpopNonce: false };
  if (input.resources !== undefined) {
    if (!Array.isArray(input.resources)) fail('resources', 'must be an array of absolute URIs (RFC 8707 resource indicators)');
    else {
      const resources: string[] = [];
      input.resources.forEach((r, i) => {
        const problem = resourceProblem(r);
        if (problem) fail(`resources[${i}]`, problem);
        else resources.push(r as string);
      });
      config.resources = resources;
    }
  }
  for (const [key, prop] of [
    ['require_pushed_authorization_requests', 'requirePushedAuthorizationRequests'],
    ['dpop_nonce', 'dpopNonce'],
  ] as const) {
    if (input[key] === undefined) continue;
    if (typeof input[key] !== 'boolean') fail(key, 'must be true or false');
    else config[prop] = input[key];
  }
  if (input.tls_client_auth_ca !== undefined) {
    if (typeof input.tls_client_auth_ca !== 'string' || input.tls_client_auth_ca === '') fail('tls_client_auth_ca', 'must be a PEM certificate or the path of a PEM file');
    else config.tlsClientAuthCa = input.tls_client_auth_ca;
  }
  return config;
}

/** RFC 8707 section 2: an absolute URI without a fragment. */
export function resourceProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be an absolute URI (a string)';
  try {
    new URL(value);
  } catch {
    return 'must be an absolute URI (RFC 8707 section 2)';
  }
  if (value.includes('#')) return 'must not contain a fragment (RFC 8707 section 2)';
  return undefined;
}

/** A JWK Set of public keys that node:crypto can import (RFC 7517 section 5). */
function jwksProblem(value: unknown): string | JsonWebKeySet {
  if (!isJsonObject(value) || !Array.isArray(value.keys) || value.keys.length === 0) return 'must be a JWK Set: {"keys": [ ...public keys ]} (RFC 7517 section 5)';
  for (const [i, key] of value.keys.entries()) {
    if (!isJsonObject(key)) return `keys[${i}] must be a JWK object`;
    const secret = PRIVATE_MEMBERS.find((m) => key[m] !== undefined);
    if (secret) return `keys[${i}] holds private or symmetric key material (${secret}); publish only public keys`;
    try {
      createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    } catch {
      return `keys[${i}] is not a valid public JWK (kty RSA, EC or OKP)`;
    }
  }
  return { keys: value.keys as JsonWebKey[] };
}

/** Fetched by the mock: https, or http on loopback only. */
function jwksUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must be https, or http on a loopback host (127.0.0.1, [::1], localhost)';
}
