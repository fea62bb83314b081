import type { CodeChallengeMethod } from './pkce.js';

/** The fields of RFC 8414 section 2 (and OpenID Connect Discovery) the client uses; the rest is kept. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  jwks_uri?: string;
  revocation_endpoint?: string;
  introspection_endpoint?: string;
  userinfo_endpoint?: string;
  pushed_authorization_request_endpoint?: string;
  device_authorization_endpoint?: string;
  backchannel_authentication_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
  /** Not standard, but sent by several servers (e.g. Keycloak, oidc-provider extensions). */
  require_pkce?: boolean;
  [name: string]: unknown;
}

/** The metadata's endpoints beyond authorize and token, each also given by a flag of the same name (`--jwks-uri`, `--par-endpoint`, ...). */
export const EXTRA_ENDPOINTS = [
  'jwks_uri',
  'revocation_endpoint',
  'introspection_endpoint',
  'userinfo_endpoint',
  'pushed_authorization_request_endpoint',
  'device_authorization_endpoint',
  'backchannel_authentication_endpoint',
] as const;
export type ExtraEndpoint = (typeof EXTRA_ENDPOINTS)[number];

export type MetadataKind = 'oauth-authorization-server' | 'openid-configuration';

export interface MetadataLocation {
  kind: MetadataKind;
  url: string;
}

/**
 * Where to look for an issuer's metadata, in order:
 * RFC 8414 section 3.1 inserts the well-known suffix between host and path
 * (https://h/p -> https://h/.well-known/oauth-authorization-server/p);
 * OpenID Connect Discovery 1.0 section 4 appends it (https://h/p/.well-known/openid-configuration).
 */
export function metadataLocations(issuer: string): MetadataLocation[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const origin = url.origin;
  // The MCP authorization spec's order for an issuer with a path: OpenID Connect's inserted form too, before the appended one.
  return [
    { kind: 'oauth-authorization-server', url: `${origin}/.well-known/oauth-authorization-server${path}` },
    ...(path === '' ? [] : [{ kind: 'openid-configuration' as const, url: `${origin}/.well-known/openid-configuration${path}` }]),
    { kind: 'openid-configuration', url: `${origin}${path}/.well-known/openid-configuration` },
  ];
}

export class MetadataError extends Error {
  readonly code = 'METADATA_INVALID';

  constructor(message: string) {
    super(message);
    this.name = 'MetadataError';
  }
}

/**
 * Checks a metadata document: a JSON object whose issuer is exactly the one asked for
 * (RFC 8414 section 3.3, OpenID Connect Discovery section 4.3), with http(s) endpoints.
 */
export function validateMetadata(json: unknown, expectedIssuer: string): AuthorizationServerMetadata {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new MetadataError('the metadata is not a JSON object');
  const m = json as Record<string, unknown>;
  if (typeof m.issuer !== 'string') throw new MetadataError('the metadata has no issuer');
  if (m.issuer !== expectedIssuer) {
    throw new MetadataError(`the metadata's issuer ${JSON.stringify(m.issuer)} is not ${JSON.stringify(expectedIssuer)} (RFC 8414 section 3.3)`);
  }
  for (const field of ['authorization_endpoint', 'token_endpoint', ...EXTRA_ENDPOINTS]) {
    const value = m[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) {
      throw new MetadataError(`the metadata's ${field} is not an http(s) URL: ${JSON.stringify(value)}`);
    }
  }
  return m as AuthorizationServerMetadata;
}

export interface Advice {
  level: 'warn' | 'info';
  text: string;
}

/**
 * What the metadata says about PKCE, in sentences for the user: S256 only while plain was asked
 * (warn), PKCE required but not asked (warn), PKCE supported but not asked (info).
 */
export function pkceAdvice(metadata: AuthorizationServerMetadata, requested: CodeChallengeMethod | undefined): Advice[] {
  const out: Advice[] = [];
  const methods = Array.isArray(metadata.code_challenge_methods_supported) ? metadata.code_challenge_methods_supported : undefined;
  if (methods !== undefined && requested === 'plain' && !methods.includes('plain')) {
    out.push({ level: 'warn', text: `the server supports only ${methods.join(', ') || 'no'} code challenge method(s), not plain: use --code-challenge-method S256` });
  }
  if (metadata.require_pkce === true && requested === undefined) {
    out.push({ level: 'warn', text: 'the server requires PKCE: add --pkce' });
  } else if (methods !== undefined && methods.length > 0 && requested === undefined) {
    out.push({ level: 'info', text: `the server supports PKCE (${methods.join(', ')}); --pkce is recommended (RFC 9700 section 2.1.1)` });
  }
  return out;
}

/** RFC 8414: the methods the token endpoint accepts; client_secret_basic when absent. */
export function supportedAuthMethods(metadata: AuthorizationServerMetadata): string[] {
  return metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
}

/** The metadata's endpoints that receive the client's credentials (a secret, an assertion, a certificate). */
const CREDENTIAL_ENDPOINTS = [
  'token_endpoint',
  'pushed_authorization_request_endpoint',
  'device_authorization_endpoint',
  'introspection_endpoint',
  'revocation_endpoint',
  'backchannel_authentication_endpoint',
] as const;

/**
 * RFC 9700 section 4.4 (mix-up): a metadata document that sends the client's credentials to another host
 * than the issuer's deserves a look before any secret goes there. One warning per such endpoint (the
 * RFC 8705 mtls_endpoint_aliases too), naming both hosts; none when every endpoint is on the issuer's host.
 */
export function credentialEndpointsOffIssuer(metadata: AuthorizationServerMetadata): string[] {
  let issuerHost: string;
  try {
    issuerHost = new URL(metadata.issuer).host;
  } catch {
    return [];
  }
  const aliases = metadata.mtls_endpoint_aliases && typeof metadata.mtls_endpoint_aliases === 'object' ? (metadata.mtls_endpoint_aliases as Record<string, unknown>) : {};
  const named: [string, unknown][] = [
    ...CREDENTIAL_ENDPOINTS.map((name): [string, unknown] => [name, metadata[name]]),
    ...CREDENTIAL_ENDPOINTS.map((name): [string, unknown] => [`mtls_endpoint_aliases.${name}`, aliases[name]]),
  ];
  const warnings: string[] = [];
  for (const [name, value] of named) {
    if (typeof value !== 'string') continue;
    let host: string;
    try {
      host = new URL(value).host;
    } catch {
      continue;
    }
    if (host !== issuerHost) {
      warnings.push(`the metadata puts ${name} on ${host}, another host than the issuer's ${issuerHost}: the client's credentials go there (check that this is your server's; RFC 9700 section 4.4)`);
    }
  }
  return warnings;
}
