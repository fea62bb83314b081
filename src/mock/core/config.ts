import { isValidScopeToken } from '../../oauth/scope.js';
import { CLIENT_CREDENTIALS_GRANT, DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT } from '../../oauth/grant-types.js';
import { validateDeviceSettings, validateTokenExchange, type TokenExchangePolicy } from './config-grants.js';
import {
  KEY_AUTH_METHODS,
  SECRET_AUTH_METHODS,
  SECURITY_CLIENT_KEYS,
  SECURITY_TOP_KEYS,
  validateSecurityClient,
  validateSecurityTop,
  type JsonWebKeySet,
  type KeyAuthMethod,
  type SecretAuthMethod,
  type SecurityClientFields,
  type SecurityConfig,
} from './config-security.js';
import { RESOURCE_TOP_KEYS, validateResourceSideTop, type ResourceSideConfig } from './config-resource.js';
import { LOGOUT_CLIENT_KEYS, LOGOUT_TOP_KEYS, validateLogoutClient, validateLogoutTop, type LogoutClientFields } from './config-logout.js';

/** RFC 6749 section 2.3 / RFC 7591 section 2: how a client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod = SecretAuthMethod | KeyAuthMethod | 'none';
export type SigningAlg = 'RS256' | 'ES256';
/** `jwt`: RFC 9068 JWT access tokens (the default); `opaque`: random reference tokens, checked by lookup (RFC 7662). */
export type AccessTokenFormat = 'jwt' | 'opaque';

/** The configuration file's shape (JSON or JSONC, snake_case as in RFC 7591 client metadata). */
export interface MockClientInput {
  client_id: string;
  client_secret?: string | null;
  client_name?: string;
  /** Required when grant_types has authorization_code (the default). */
  redirect_uris?: string[];
  scopes?: string[];
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
  /** RP-Initiated, Back-Channel and Front-Channel Logout 1.0 (config-logout.ts). */
  post_logout_redirect_uris?: string[];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  frontchannel_logout_uri?: string;
  frontchannel_logout_session_required?: boolean;
}
export interface MockUserInput {
  username: string;
  password: string;
  claims?: Record<string, unknown>;
}
export interface MockScopeInput {
  name: string;
  description?: string;
}
export interface MockLifetimesInput {
  code?: number;
  access_token?: number;
  refresh_token?: number;
  id_token?: number;
}
export interface MockConfigInput {
  clients?: MockClientInput[];
  users?: MockUserInput[];
  scopes?: (string | MockScopeInput)[];
  lifetimes?: MockLifetimesInput;
  signing_alg?: SigningAlg;
  access_token_format?: AccessTokenFormat;
  resources?: string[];
  require_pushed_authorization_requests?: boolean;
  dpop_nonce?: boolean;
  /** The one server's TLS: top level only, not in a named issuer. */
  tls_client_auth_ca?: string;
  /** RFC 8628 section 3.2: seconds a device code lives (default 600) and the polling interval (default 5). */
  device_code_lifetime?: number;
  device_interval?: number;
  /** RFC 9728, RFC 7591, Client ID Metadata Documents (config-resource.ts): top level only. */
  protected_resources?: { path: string; scopes: string[]; issuer?: string }[];
  registration?: { open?: boolean; initial_access_token?: string };
  client_id_metadata_documents?: { allow_http_loopback?: boolean };
  /** Consent outlives the session it was given in (default false: logout forgets it). */
  keep_consent_after_logout?: boolean;
  /** More issuers in the same process, each at `{root}/{name}` with its own clients, users and keys. */
  issuers?: Record<string, Omit<MockConfigInput, 'issuers'>>;
  [comment: `//${string}`]: unknown;
}

/** The validated configuration the server runs with. */
export interface MockClient extends SecurityClientFields, LogoutClientFields {
  clientId: string;
  clientSecret?: string;
  clientName: string;
  redirectUris: string[];
  scopes: ReadonlySet<string>;
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
export interface MockUser {
  username: string;
  password: string;
  /** `sub` comes from claims.sub when given, else the username. */
  sub: string;
  claims: Record<string, unknown>;
}
export interface MockScope {
  name: string;
  description: string;
}
/** Lifetimes in seconds. */
export interface MockLifetimes {
  code: number;
  accessToken: number;
  refreshToken: number;
  idToken: number;
}
export interface MockConfig extends SecurityConfig, ResourceSideConfig {
  clients: ReadonlyMap<string, MockClient>;
  users: ReadonlyMap<string, MockUser>;
  scopes: ReadonlyMap<string, MockScope>;
  lifetimes: MockLifetimes;
  signingAlg: SigningAlg;
  accessTokenFormat: AccessTokenFormat;
  /** Seconds. */
  deviceCodeLifetime: number;
  deviceInterval: number;
  /** Consent outlives the session it was given in (config keep_consent_after_logout). */
  keepConsentAfterLogout: boolean;
  /** Named issuers at `{root}/{name}` (config `issuers`), in the order given. */
  issuers: ReadonlyMap<string, MockConfig>;
}

/** Grant types a client may be registered for (RFC 7591 section 2). */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange', 'urn:ietf:params:oauth:grant-type:device_code'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
const DEFAULT_GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];
/** An issuer name: one path segment. */
const ISSUER_NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,62}$/;

export const LOOPBACK_REDIRECT_URIS = ['http://127.0.0.1/callback', 'http://localhost/callback', 'http://[::1]/callback'];

export const DEFAULT_SCOPES: readonly MockScope[] = [
  { name: 'photo', description: 'See your photos' },
  { name: 'offline_access', description: 'Keep access while you are away (a refresh token)' },
  { name: 'openid', description: 'Sign you in with your account' },
  { name: 'profile', description: 'See your name' },
  { name: 'email', description: 'See your email address' },
];

/** The default user-facing clients: the code flow, refresh, and the device flow (RFC 8628). */
const USER_GRANTS = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT] as const;

/** The mock out of the box, as CONTRACT.md fixes it. */
export const DEFAULT_CONFIG: Readonly<Required<Pick<MockConfigInput, 'clients' | 'users'>>> = {
  clients: [
    {
      client_id: 'photo-web',
      client_secret: 'photo-web-secret',
      client_name: 'Photo Web',
      redirect_uris: LOOPBACK_REDIRECT_URIS,
      post_logout_redirect_uris: LOOPBACK_REDIRECT_URIS,
      grant_types: [...USER_GRANTS],
    },
    { client_id: 'photo-cli', client_name: 'Photo CLI', redirect_uris: LOOPBACK_REDIRECT_URIS, post_logout_redirect_uris: LOOPBACK_REDIRECT_URIS, grant_types: [...USER_GRANTS] },
    {
      client_id: 'photo-service',
      client_secret: 'photo-service-secret',
      client_name: 'Photo Service',
      grant_types: [CLIENT_CREDENTIALS_GRANT, TOKEN_EXCHANGE_GRANT],
    },
  ],
  users: [
    {
      username: 'alice',
      password: 'wonderland',
      claims: { name: 'Alice Liddell', given_name: 'Alice', family_name: 'Liddell', email: 'alice@example.com', email_verified: true },
    },
  ],
};

export const DEFAULT_LIFETIMES: MockLifetimes = { code: 60, accessToken: 3600, refreshToken: 86_400, idToken: 3600 };
export const MAX_LIFETIME = 10 * 365 * 86_400;
const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [...SECRET_AUTH_METHODS, ...KEY_AUTH_METHODS, 'none'];
const SIGNING_ALGS: readonly SigningAlg[] = ['RS256', 'ES256'];
export const ACCESS_TOKEN_FORMATS: readonly AccessTokenFormat[] = ['jwt', 'opaque'];

/** A configuration that failed validation; `errors` names each field (`clients[1].redirect_uris[0]: ...`). */
export class MockConfigError extends Error {
  readonly errors: readonly string[];
  constructor(errors: readonly string[]) {
    super(errors.length === 1 ? errors[0] : `${errors[0]} (and ${errors.length - 1} more)`);
    this.name = 'MockConfigError';
    this.errors = errors;
  }
}

export type MockConfigResult = { ok: true; config: MockConfig } | { ok: false; errors: string[] };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isComment = (key: string) => key.startsWith('//') || key === '$schema';

/** Checks a configuration and fills in defaults. Every error names the field it is about. */
export function validateMockConfig(input: unknown = {}, nested = false): MockConfigResult {
  const errors: string[] = [];
  const fail = (field: string, message: string) => errors.push(`${field}: ${message}`);
  if (!isObj(input)) return { ok: false, errors: ['(top level): must be a JSON object'] };
  // A named issuer shares the one server, so its TLS (tls_client_auth_ca) is the top level's.
  const topKeys = nested ? SECURITY_TOP_KEYS.filter((k) => k !== 'tls_client_auth_ca') : [...SECURITY_TOP_KEYS, ...RESOURCE_TOP_KEYS, 'issuers'];
  unknownKeys(input, ['clients', 'users', 'scopes', 'lifetimes', 'signing_alg', 'access_token_format', 'device_code_lifetime', 'device_interval', ...LOGOUT_TOP_KEYS, ...topKeys], '', fail);
  const security = validateSecurityTop(input, fail);
  const logout = validateLogoutTop(input, fail);
  const device = validateDeviceSettings(input, fail);

  const issuers = new Map<string, MockConfig>();
  if (input.issuers !== undefined && !nested) {
    if (!isObj(input.issuers)) fail('issuers', 'must be an object: issuer name -> its configuration (clients, users, ...)');
    else
      for (const [name, sub] of Object.entries(input.issuers)) {
        if (!ISSUER_NAME.test(name)) fail(`issuers.${name}`, 'the name must be one path segment: letters, digits, . _ ~ - (at most 63)');
        const result = validateMockConfig(sub, true);
        if (!result.ok) for (const e of result.errors) errors.push(`issuers.${name}.${e.replace(/^\(top level\): /, '')}`);
        else issuers.set(name, result.config);
      }
  }

  const scopes = new Map<string, MockScope>();
  if (input.scopes === undefined) for (const s of DEFAULT_SCOPES) scopes.set(s.name, s);
  else if (!Array.isArray(input.scopes)) fail('scopes', 'must be an array of scope names or {"name","description"} objects');
  else
    input.scopes.forEach((raw, i) => {
      const field = `scopes[${i}]`;
      const s = typeof raw === 'string' ? { name: raw } : raw;
      if (!isObj(s)) return fail(field, 'must be a scope name or a {"name","description"} object');
      unknownKeys(s, ['name', 'description'], field, fail);
      if (typeof s.name !== 'string' || !isValidScopeToken(s.name)) return fail(`${field}.name`, 'must be a scope token (RFC 6749 section 3.3: printable ASCII, no spaces, quotes or backslashes)');
      if (s.description !== undefined && typeof s.description !== 'string') fail(`${field}.description`, 'must be a string');
      if (scopes.has(s.name)) return fail(`${field}.name`, `duplicate scope ${JSON.stringify(s.name)}`);
      const known = DEFAULT_SCOPES.find((d) => d.name === s.name);
      scopes.set(s.name, { name: s.name, description: typeof s.description === 'string' ? s.description : (known?.description ?? s.name) });
    });

  const clients = new Map<string, MockClient>();
  const clientInputs = input.clients === undefined ? DEFAULT_CONFIG.clients : input.clients;
  if (!Array.isArray(clientInputs) || clientInputs.length === 0) fail('clients', 'must be a non-empty array of clients');
  else clientInputs.forEach((c, i) => validateClient(c, `clients[${i}]`, scopes, clients, fail));

  const users = new Map<string, MockUser>();
  const userInputs = input.users === undefined ? DEFAULT_CONFIG.users : input.users;
  if (!Array.isArray(userInputs)) fail('users', 'must be an array of users');
  else userInputs.forEach((u, i) => validateUser(u, `users[${i}]`, users, fail));

  const lifetimes = { ...DEFAULT_LIFETIMES };
  if (input.lifetimes !== undefined) {
    if (!isObj(input.lifetimes)) fail('lifetimes', 'must be an object of lifetimes in seconds');
    else {
      const names = { code: 'code', access_token: 'accessToken', refresh_token: 'refreshToken', id_token: 'idToken' } as const;
      unknownKeys(input.lifetimes, Object.keys(names), 'lifetimes', fail);
      for (const [key, prop] of Object.entries(names)) {
        const v = input.lifetimes[key];
        if (v === undefined) continue;
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_LIFETIME) fail(`lifetimes.${key}`, `must be a whole number of seconds from 1 to ${MAX_LIFETIME}`);
        else lifetimes[prop] = v;
      }
    }
  }

  let signingAlg: SigningAlg = 'RS256';
  if (input.signing_alg !== undefined) {
    if (!SIGNING_ALGS.includes(input.signing_alg as SigningAlg)) fail('signing_alg', `must be one of ${SIGNING_ALGS.join(', ')}`);
    else signingAlg = input.signing_alg as SigningAlg;
  }

  let accessTokenFormat: AccessTokenFormat = 'jwt';
  if (input.access_token_format !== undefined) {
    if (!ACCESS_TOKEN_FORMATS.includes(input.access_token_format as AccessTokenFormat)) fail('access_token_format', `must be one of ${ACCESS_TOKEN_FORMATS.join(', ')}`);
    else accessTokenFormat = input.access_token_format as AccessTokenFormat;
  }

  // The server's resource side (protected resources, registration, client ID metadata documents): top level only.
  const resourceSide = validateResourceSideTop(nested ? {} : input, fail, [...issuers.keys()]);

  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, config: { clients, users, scopes, lifetimes, signingAlg, accessTokenFormat, ...device, ...logout, issuers, ...security, ...resourceSide } };
}

/** Like validateMockConfig, but throws MockConfigError. */
export function resolveMockConfig(input?: unknown): MockConfig {
  const result = validateMockConfig(input);
  if (!result.ok) throw new MockConfigError(result.errors);
  return result.config;
}

export function validateClient(c: unknown, field: string, scopes: Map<string, MockScope>, clients: Map<string, MockClient>, fail: (f: string, m: string) => void): void {
  if (!isObj(c)) return fail(field, 'must be an object');
  unknownKeys(
    c,
    [
      'client_id',
      'client_secret',
      'client_name',
      'redirect_uris',
      'scopes',
      'require_pkce',
      'allow_plain_pkce',
      'consent',
      'token_endpoint_auth_method',
      'grant_types',
      'token_exchange',
      ...SECURITY_CLIENT_KEYS,
      ...LOGOUT_CLIENT_KEYS,
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
  const redirectUris: string[] = [];
  // A client that never redirects (client credentials, token exchange) needs no redirect URI.
  const uris = c.redirect_uris === undefined && !grantTypes.has('authorization_code') ? [] : c.redirect_uris;
  if (!Array.isArray(uris) || (uris.length === 0 && grantTypes.has('authorization_code'))) bad('redirect_uris', 'must be a non-empty array of absolute URLs');
  else
    uris.forEach((u, j) => {
      const problem = redirectUriProblem(u);
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
    requirePkce: typeof c.require_pkce === 'boolean' ? c.require_pkce : method === 'none',
    allowPlainPkce: c.allow_plain_pkce === true,
    consent: c.consent !== false,
    tokenEndpointAuthMethod: method,
    tokenEndpointAuthMethods: methods,
    grantTypes,
    ...(tokenExchange ? { tokenExchange } : {}),
    ...security,
    ...logout,
  });
}

export function validateUser(u: unknown, field: string, users: Map<string, MockUser>, fail: (f: string, m: string) => void): void {
  if (!isObj(u)) return fail(field, 'must be an object');
  unknownKeys(u, ['username', 'password', 'claims'], field, fail);
  let ok = true;
  const bad = (f: string, m: string) => {
    ok = false;
    fail(`${field}.${f}`, m);
  };
  if (typeof u.username !== 'string' || u.username.length === 0 || u.username.length > 200) bad('username', 'must be a non-empty string');
  else if (users.has(u.username)) bad('username', `duplicate username ${JSON.stringify(u.username)}`);
  if (typeof u.password !== 'string' || u.password.length === 0) bad('password', 'must be a non-empty string');
  if (u.claims !== undefined && !isObj(u.claims)) bad('claims', 'must be an object of OpenID Connect claims');
  if (isObj(u.claims) && u.claims.sub !== undefined && (typeof u.claims.sub !== 'string' || u.claims.sub === '')) bad('claims.sub', 'must be a non-empty string');
  if (!ok) return;
  const username = u.username as string;
  const claims: Record<string, unknown> = { preferred_username: username, ...(isObj(u.claims) ? u.claims : {}) };
  const sub = typeof claims.sub === 'string' ? claims.sub : username;
  delete claims.sub;
  users.set(username, { username, password: u.password as string, sub, claims });
}

/** RFC 6749 section 3.1.2: an absolute URI without a fragment. */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be an absolute URL (a string)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash || value.includes('#')) return 'must not contain a fragment (RFC 6749 section 3.1.2)';
  if (url.protocol === 'javascript:' || url.protocol === 'data:') return `must not use the ${url.protocol} scheme`;
  // It goes out in a Location header as written: ASCII only (RFC 9110 section 5.5).
  if (/[^\x21-\x7e]/.test(value)) return 'must be printable ASCII without spaces, as it is sent in a Location header: write an IDN host in its xn-- form and percent-encode the rest';
  return undefined;
}

function unknownKeys(obj: Obj, known: readonly string[], field: string, fail: (f: string, m: string) => void): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key) && !isComment(key)) fail(field ? `${field}.${key}` : key, `unknown field (known: ${known.join(', ')})`);
  }
}

/** Strips // and /* *\/ comments and trailing commas outside strings (JSONC). */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (ch === ',' && /^\s*(\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*[}\]]/.test(text.slice(i + 1, i + 4097))) {
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
