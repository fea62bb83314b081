import type { KeyObject } from 'node:crypto';
import { OAuthError, parseOAuthErrorBody } from './errors.js';
import { JsonDepthError, parseJson } from './json.js';

/**
 * RFC 6749 section 2.3, OpenID Connect Core section 9 and RFC 7523 (JWT assertions), RFC 8705 section 2
 * (mutual TLS): how the client authenticates at the token endpoint.
 */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt' | 'client_secret_jwt' | 'tls_client_auth' | 'self_signed_tls_client_auth';
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'none',
  'private_key_jwt',
  'client_secret_jwt',
  'tls_client_auth',
  'self_signed_tls_client_auth',
];

/** The methods that need the client secret (client_secret_jwt uses it as the HMAC key). */
export function usesClientSecret(method: ClientAuthMethod): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post' || method === 'client_secret_jwt';
}

/** RFC 7523 section 2.2: the client authenticates with a signed JWT. */
export function usesClientAssertion(method: ClientAuthMethod): boolean {
  return method === 'private_key_jwt' || method === 'client_secret_jwt';
}

/** RFC 8705 section 2: the client authenticates with its TLS certificate. */
export function usesMutualTls(method: ClientAuthMethod): boolean {
  return method === 'tls_client_auth' || method === 'self_signed_tls_client_auth';
}

/** RFC 7521 section 4.2. */
export const CLIENT_ASSERTION_TYPE_JWT = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string | undefined;
  authMethod: ClientAuthMethod;
  /** private_key_jwt: the key the client assertion is signed with (and a request object, RFC 9101). */
  signingKey?: ClientSigningKey | undefined;
  /** The `aud` of a client assertion; default the endpoint the request goes to. */
  assertionAudience?: string | undefined;
}

/** A private key of the client, with the JWS algorithm it signs with and its key id. */
export interface ClientSigningKey {
  key: KeyObject;
  alg: string;
  kid?: string | undefined;
  /** Where it was read from (kept with cached logins, never the key itself). */
  file?: string | undefined;
  /** True when the key's file named the algorithm (a JWK's alg), rather than its type implying it. */
  algStated?: boolean | undefined;
}

/** Form parameters; a list is sent as the same name repeated (e.g. `resource`, RFC 8707 section 2). */
export type FormParams = Record<string, string | readonly string[] | undefined>;

/** Grant parameters: grant_type plus whatever it needs (code, redirect_uri, code_verifier, refresh_token, scope). */
export type GrantParams = { grant_type: string } & FormParams;

export interface TokenHttpRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

/**
 * RFC 6749 section 2.3.1: client_secret_basic sends
 * `Basic base64(form-urlencode(client_id) ":" form-urlencode(client_secret))`.
 */
export function clientSecretBasic(clientId: string, clientSecret: string): string {
  const credentials = `${formUrlEncode(clientId)}:${formUrlEncode(clientSecret)}`;
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 appendix B): space is '+'. */
export function formUrlEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/**
 * A token request (RFC 6749 sections 4.1.3 and 6): a form-encoded POST. client_secret_basic puts the
 * credentials in the Authorization header and leaves client_id out of the body; client_secret_post
 * sends client_id and client_secret in the body; none sends client_id in the body (section 3.2.1).
 */
export function buildTokenRequest(tokenEndpoint: string, client: ClientCredentials, grant: GrantParams, proof: { clientAssertion?: string | undefined } = {}): TokenHttpRequest {
  return buildAuthenticatedRequest(tokenEndpoint, client, grant, proof);
}

/**
 * A form-encoded POST to any endpoint where the client authenticates as at the token endpoint (token,
 * revocation RFC 7009 section 2.1, introspection RFC 7662 section 2.1, PAR RFC 9126 section 2, device
 * authorization RFC 8628 section 3.1): the one place client authentication is applied.
 */
export function buildAuthenticatedRequest(endpoint: string, client: ClientCredentials, params: FormParams, proof: { clientAssertion?: string | undefined } = {}): TokenHttpRequest {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string') body.set(name, value);
    else if (value !== undefined) for (const v of value) body.append(name, v);
  }
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  switch (client.authMethod) {
    case 'client_secret_basic':
      headers.authorization = clientSecretBasic(client.clientId, requireSecret(client));
      break;
    case 'client_secret_post':
      body.set('client_id', client.clientId);
      body.set('client_secret', requireSecret(client));
      break;
    case 'none':
    case 'tls_client_auth':
    case 'self_signed_tls_client_auth':
      // RFC 8705 section 2: the certificate authenticates, client_id says which client.
      body.set('client_id', client.clientId);
      break;
    case 'private_key_jwt':
    case 'client_secret_jwt':
      // RFC 7523 section 2.2; client_id is optional beside it (RFC 7521 section 4.2) and helps servers find the key.
      if (proof.clientAssertion === undefined) throw new TypeError(`${client.authMethod} needs a client assertion`);
      body.set('client_id', client.clientId);
      body.set('client_assertion_type', CLIENT_ASSERTION_TYPE_JWT);
      body.set('client_assertion', proof.clientAssertion);
      break;
  }
  return { url: endpoint, method: 'POST', headers, body: body.toString() };
}

function requireSecret(client: ClientCredentials): string {
  if (client.clientSecret === undefined) throw new TypeError(`${client.authMethod} needs a client secret`);
  return client.clientSecret;
}

/** A successful token response (RFC 6749 section 5.1), kept exactly as received. */
export interface TokenResponse {
  access_token: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
  [name: string]: unknown;
}

/** The token endpoint answered something that is neither a token response nor an RFC 6749 error. */
export class TokenResponseError extends Error {
  readonly code = 'TOKEN_RESPONSE_INVALID';
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.name = 'TokenResponseError';
    this.status = status;
  }
}

/**
 * Reads a token endpoint's answer: a JSON object with access_token on 200 (section 5.1), an RFC 6749
 * section 5.2 error object (thrown as OAuthError), or anything else (TokenResponseError, explained).
 */
export function parseTokenResponse(status: number, contentType: string | undefined, bodyText: string): TokenResponse {
  let json: unknown;
  let parsed: boolean;
  try {
    json = parseJson(bodyText, 'the token response');
    parsed = true;
  } catch (err) {
    if (err instanceof JsonDepthError) throw new TokenResponseError(err.message, status);
    parsed = false;
  }
  const error = parsed ? parseOAuthErrorBody(json) : undefined;
  if (error) throw new OAuthError(error, status);
  if (status >= 500) {
    throw new TokenResponseError(`the token endpoint failed with HTTP ${status}${snippet(bodyText)}`, status);
  }
  if (!parsed) {
    const type = contentType ? ` (${contentType.split(';')[0]})` : '';
    throw new TokenResponseError(`the token endpoint answered HTTP ${status} with a body that is not JSON${type}${snippet(bodyText)}`, status);
  }
  if (status < 200 || status >= 300) {
    throw new TokenResponseError(`the token endpoint answered HTTP ${status} without an RFC 6749 error object${snippet(bodyText)}`, status);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new TokenResponseError('the token endpoint answered JSON that is not an object', status);
  }
  const o = json as Record<string, unknown>;
  if (typeof o.access_token !== 'string' || o.access_token === '') {
    throw new TokenResponseError('the token response has no access_token (RFC 6749 section 5.1)', status);
  }
  return o as TokenResponse;
}

/** The start of a body, on one line, for an error message; never long. */
function snippet(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  if (line === '') return ': empty body';
  return `: ${JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}...` : line)}`;
}
