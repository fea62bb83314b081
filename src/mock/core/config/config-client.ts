import { validateTokenExchange, type TokenExchangePolicy } from './config-grants.js';
import { isJsonObject } from '../../../oauth/json.js';
import { redirectUriProblem } from '../../../oauth/redirect-uri.js';
import { CIBA_GRANT } from '../../../oauth/ciba.js';
import { CIBA_CLIENT_KEYS, validateCibaClient, type CibaClientFields } from '../../ciba/config.js';
import { unknownKeys } from './config-fields.js';
import { LOGOUT_CLIENT_KEYS, validateLogoutClient, type LogoutClientFields } from './config-logout.js';
import {
  KEY_AUTH_METHODS,
  SECRET_AUTH_METHODS,
  SECURITY_CLIENT_KEYS,
  validateSecurityClient,
  type JsonWebKeySet,
  type KeyAuthMethod,
  type SecretAuthMethod,
  type SecurityClientFields,
} from './config-security.js';

/** RFC 6749 section 2.3 / RFC 7591 section 2: how a client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod = SecretAuthMethod | KeyAuthMethod | 'none';
/** A client in the configuration file (JSON or JSONC, snake_case as in RFC 7591 client metadata). */
export interface MockClientInput {
  client_id: string;
  client_secret?: string | null;
  client_name?: string;
  /** Required when grant_types has authorization_code (the default). */
  redirect_uris?: string[];
  scopes?: string[];
  /** Granted when an authorization request omits scope (RFC 6749 section 3.3); [] refuses it with invalid_scope. */
  default_scopes?: string[];
  require_pkce?: boolean;
  allow_plain_pkce?: boolean;
  consent?: boolean;
  token_endpoint_auth_method?: TokenEndpointAuthMethod;
  jwks?: JsonWebKeySet;
  jwks_uri?: string;
  tls_client_auth_subject_dn?: string;
  require_pushed_authorization_requests?: boolean;
  dpop_bound_access_tokens?: boolean;
  require_signed_request_object?: boolean;
  /** FAPI 2.0 Message Signing: request objects carry a jti, each accepted once. */
  request_object_single_use?: boolean;
  /** RFC 7591 section 2; default ["authorization_code", "refresh_token"]. */
  grant_types?: GrantType[];
  /** RFC 8693: the audiences this client may exchange tokens for. */
  token_exchange?: { audiences: string[] };
  /** CIBA Core 1.0 section 4 (ciba/config.ts): poll (default) or ping, and ping's notification endpoint. */
  backchannel_token_delivery_mode?: 'poll' | 'ping';
  backchannel_client_notification_endpoint?: string;
  /** RP-Initiated, Back-Channel and Front-Channel Logout 1.0 (config-logout.ts). */
  post_logout_redirect_uris?: string[];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  frontchannel_logout_uri?: string;
  frontchannel_logout_session_required?: boolean;
}
/** A client as the server runs with it, validated. */
export interface MockClient extends SecurityClientFields, LogoutClientFields, CibaClientFields {
  clientId: string;
  clientSecret?: string;
  clientName: string;
  redirectUris: string[];
  scopes: ReadonlySet<string>;
  /** What a request without scope gets (RFC 6749 section 3.3); empty: such a request is refused with invalid_scope. */
  defaultScopes: readonly string[];
  requirePkce: boolean;
  allowPlainPkce: boolean;
  consent: boolean;
  /** The registered method: the one named in the configuration, else client_secret_basic or none. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** What the token endpoint accepts: the named method only, else both secret methods for a client with a secret. */
  tokenEndpointAuthMethods: readonly TokenEndpointAuthMethod[];
  grantTypes: ReadonlySet<GrantType>;
  tokenExchange?: TokenExchangePolicy;
}
/** Grant types a client may be registered for (RFC 7591 section 2). */
export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:device_code',
  CIBA_GRANT,
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
const DEFAULT_GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];
const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [...SECRET_AUTH_METHODS, ...KEY_AUTH_METHODS, 'none'];

/**
 * Checks one client (a configuration file's, the admin API's, a registration's or a metadata
 * document's: one rule for all) and adds it to `clients`; each problem goes to `fail`, named by field.
 */
export function validateClient(c: unknown, field: string, scopes: ReadonlyMap<string, unknown>, clients: Map<string, MockClient>, fail: (f: string, m: string) => void): void {
  if (!isJsonObject(c)) return fail(field, 'must be an object');
  unknownKeys(
    c,
    [
      'client_id',
      'client_secret',
      'client_name',
      'redirect_uris',
      'scopes',
      'default_scopes',
      'require_pkce',
      'allow_plain_pkce',
      'consent',
      'token_endpoint_auth_method',
      'grant_types',
      'token_exchange',
      ...SECURITY_CLIENT_KEYS,
      ...LOGOUT_CLIENT_KEYS,
      ...CIBA_CLIENT_KEYS,
    ],
    field,
    fail,
  );
  const before = clients.size;
  let ok = true;
  const bad = (f: string, m: string) => {
    ok = false;
    fail(`${field}.${f}`, m);
  };
  if (typeof c.client_id !== 'string' || !/^[\x20-\x7e]{1,200}$/.test(c.client_id)) bad('client_id', 'must be a non-empty string of printable ASCII (RFC 6749 appendix A.1)');
  else if (clients.has(c.client_id)) bad('client_id', `duplicate client_id ${JSON.stringify(c.client_id)}`);
  if (c.client_secret !== undefined && c.client_secret !== null && (typeof c.client_secret !== 'string' || c.client_secret.length === 0))
    bad('client_secret', 'must be a non-empty string, or null for a public client');
  if (c.client_name !== undefined && typeof c.client_name !== 'string') bad('client_name', 'must be a string');
  const secret = typeof c.client_secret === 'string' ? c.client_secret : undefined;
  let method: TokenEndpointAuthMethod = secret ? 'client_secret_basic' : 'none';
  if (c.token_endpoint_auth_method !== undefined) {
    if (!AUTH_METHODS.includes(c.token_endpoint_auth_method as TokenEndpointAuthMethod)) bad('token_endpoint_auth_method', `must be one of ${AUTH_METHODS.join(', ')}`);
    else {
      method = c.token_endpoint_auth_method as TokenEndpointAuthMethod;
      if (method === 'none' && secret) bad('token_endpoint_auth_method', 'is "none" but the client has a client_secret; drop one of them');
    }
  }
  // What the token endpoint accepts: the named method only, else both secret methods for a client with a secret.
  const methods: TokenEndpointAuthMethod[] = c.token_endpoint_auth_method === undefined && secret ? ['client_secret_basic', 'client_secret_post'] : [method];
  const security = validateSecurityClient(c, methods, secret !== undefined, bad);
  const grantTypes = new Set<GrantType>(DEFAULT_GRANT_TYPES);
  if (c.grant_types !== undefined) {
    grantTypes.clear();
    if (!Array.isArray(c.grant_types) || c.grant_types.length === 0) bad('grant_types', `must be a non-empty array of grant types (${GRANT_TYPES.join(', ')})`);
    else
      c.grant_types.forEach((g, j) => {
        if (!GRANT_TYPES.includes(g as GrantType)) bad(`grant_types[${j}]`, `must be one of ${GRANT_TYPES.join(', ')}`);
        else grantTypes.add(g as GrantType);
      });
  }
  const tokenExchange = validateTokenExchange(c.token_exchange, bad);
  const logout = validateLogoutClient(c, bad);
  const ciba = validateCibaClient(c, grantTypes, method === 'none', bad);
  const redirectUris: string[] = [];
  // A client that never redirects (client credentials, token exchange) needs no redirect URI.
  const uris = c.redirect_uris === undefined && !grantTypes.has('authorization_code') ? [] : c.redirect_uris;
  if (!Array.isArray(uris) || (uris.length === 0 && grantTypes.has('authorization_code'))) bad('redirect_uris', 'must be a non-empty array of absolute URLs');
  else
    uris.forEach((u, j) => {
      const problem = configuredRedirectUriProblem(u);
      if (problem) bad(`redirect_uris[${j}]`, problem);
      else redirectUris.push(u as string);
    });
  const allowed = new Set<string>();
  if (c.scopes === undefined) for (const s of scopes.keys()) allowed.add(s);
  else if (!Array.isArray(c.scopes)) bad('scopes', 'must be an array of scope names');
  else
    c.scopes.forEach((s, j) => {
      if (typeof s !== 'string' || !scopes.has(s)) bad(`scopes[${j}]`, `must be one of the configured scopes (${[...scopes.keys()].join(', ')})`);
      else allowed.add(s);
    });
  const defaultScopes = validateDefaultScopes(c.default_scopes, allowed, bad);
  for (const flag of ['require_pkce', 'allow_plain_pkce', 'consent'] as const) {
    if (c[flag] !== undefined && typeof c[flag] !== 'boolean') bad(flag, 'must be true or false');
  }
  if (!ok || clients.size !== before) return;
  const clientId = c.client_id as string;
  clients.set(clientId, {
    clientId,
    ...(secret ? { clientSecret: secret } : {}),
    clientName: typeof c.client_name === 'string' ? c.client_name : clientId,
    redirectUris,
    scopes: allowed,
    defaultScopes,
    requirePkce: typeof c.require_pkce === 'boolean' ? c.require_pkce : method === 'none',
    allowPlainPkce: c.allow_plain_pkce === true,
    consent: c.consent !== false,
    tokenEndpointAuthMethod: method,
    tokenEndpointAuthMethods: methods,
    grantTypes,
    ...(tokenExchange ? { tokenExchange } : {}),
    ...security,
    ...logout,
    ...ciba,
  });
}

/** Scopes a request without scope never gets by default: an ID token and a refresh token are asked for by name. */
const NOT_BY_DEFAULT = new Set(['openid', 'offline_access']);

/**
 * RFC 6749 section 3.3: a request that omits scope gets a pre-defined default or fails with invalid_scope.
 * Unset: every scope the client may ask for but openid and offline_access; [] keeps invalid_scope.
 */
function validateDefaultScopes(value: unknown, allowed: ReadonlySet<string>, bad: (f: string, m: string) => void): string[] {
  if (value === undefined) return [...allowed].filter((s) => !NOT_BY_DEFAULT.has(s));
  if (!Array.isArray(value)) {
    bad('default_scopes', 'must be an array of scope names ([] refuses a request without scope)');
    return [];
  }
  const out: string[] = [];
  value.forEach((s, j) => {
    if (typeof s !== 'string' || !allowed.has(s)) bad(`default_scopes[${j}]`, `must be one of the client's scopes (${[...allowed].join(', ')})`);
    else if (!out.includes(s)) out.push(s);
  });
  return out;
}

/** The one rule of src/oauth/redirect-uri.ts, and: ASCII only, as it goes out in a Location header as written (RFC 9110 section 5.5). */
function configuredRedirectUriProblem(value: unknown): string | undefined {
  const problem = redirectUriProblem(value);
  if (problem !== undefined) return problem;
  if (/[^\x21-\x7e]/.test(value as string)) return 'must be printable ASCII without spaces, as it is sent in a Location header: write an IDN host in its xn-- form and percent-encode the rest';
  return undefined;
}
