import { isValidScopeToken } from '../../../oauth/scope.js';
import { CLIENT_CREDENTIALS_GRANT, DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT } from '../../../oauth/grant-types.js';
import { validateClient, type MockClient, type MockClientInput } from './config-client.js';
import { isJsonObject } from '../../../oauth/json.js';
import { CIBA_GRANT } from '../../../oauth/ciba.js';
import { OUTBOUND_TOP_KEYS, validateOutboundTop, type OutboundConfig } from './config-outbound.js';
import { unknownKeys } from './config-fields.js';
import { validateDeviceSettings } from './config-grants.js';
import { SECURITY_TOP_KEYS, validateSecurityTop, type SecurityConfig } from './config-security.js';
import { RESOURCE_TOP_KEYS, validateResourceSideTop, type ResourceSideConfig } from './config-resource.js';
import { LOGOUT_TOP_KEYS, validateLogoutTop } from './config-logout.js';
import { validateMcpConfig, type McpConfig } from '../../mcp/config.js';
import { applyFapi2, FAPI_TOP_KEYS, validateFapiTop, type FapiConfig } from './config-fapi.js';
import { isFapi2SigningAlg } from '../../../oauth/fapi2.js';
import { validateWorkloadIssuers, type WorkloadIssuer } from './config-workload.js';

// The clients' part lives in config-client.ts; what other modules import from here stays here.
export { GRANT_TYPES, validateClient, type GrantType, type MockClient, type MockClientInput, type TokenEndpointAuthMethod } from './config-client.js';

export type SigningAlg = 'RS256' | 'PS256' | 'ES256';
/** `jwt`: RFC 9068 JWT access tokens (the default); `opaque`: random reference tokens, checked by lookup (RFC 7662). */
export type AccessTokenFormat = 'jwt' | 'opaque';

/** The configuration file's shape (JSON or JSONC, snake_case as in RFC 7591 client metadata). */
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
  /** RFC 9396: the authorization_details types the mock accepts. */
  authorization_details_types?: string[];
  /** The FAPI 2.0 Security Profile's server rules (serve-mock --fapi2). */
  security_profile?: 'fapi2';
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
  /** Where the mock's calls for a client may go (config-outbound.ts): top level only. */
  outbound?: { private_networks?: boolean };
  /** Consent outlives the session it was given in (default false: logout forgets it). */
  keep_consent_after_logout?: boolean;
  /** The MCP endpoint `{base_url}/mcp` (src/mock/mcp/config.ts): top level only. */
  mcp?: Record<string, unknown>;
  /** Workload identity issuers trusted for the JWT bearer grant: [{"issuer", "jwks" | "jwks_uri"}]. */
  workload_issuers?: { issuer: string; jwks?: { keys: Record<string, unknown>[] }; jwks_uri?: string }[];
  /** More issuers in the same process, each at `{root}/{name}` with its own clients, users and keys. */
  issuers?: Record<string, Omit<MockConfigInput, 'issuers'>>;
  [comment: `//${string}`]: unknown;
}

/** The validated configuration the server runs with. */
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
export interface MockConfig extends SecurityConfig, ResourceSideConfig, FapiConfig, OutboundConfig {
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
  /** The MCP endpoint's behaviour (config mcp). */
  mcp: McpConfig;
  /** The workload identity issuers the JWT bearer grant trusts (config workload_issuers, config-workload.ts). */
  workloadIssuers: WorkloadIssuer[];
}

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
      // A confidential client may also ask for a user's sign-in by CIBA (CIBA Core 1.0 section 7.1).
      grant_types: [...USER_GRANTS, CIBA_GRANT],
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
const SIGNING_ALGS: readonly SigningAlg[] = ['RS256', 'PS256', 'ES256'];
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

/** Checks a configuration and fills in defaults. Every error names the field it is about. */
export function validateMockConfig(input: unknown = {}, nested = false): MockConfigResult {
  const errors: string[] = [];
  const fail = (field: string, message: string) => errors.push(`${field}: ${message}`);
  if (!isJsonObject(input)) return { ok: false, errors: ['(top level): must be a JSON object'] };
  // A named issuer shares the one server, so its TLS (tls_client_auth_ca) is the top level's.
  const topKeys = nested ? SECURITY_TOP_KEYS.filter((k) => k !== 'tls_client_auth_ca') : [...SECURITY_TOP_KEYS, ...RESOURCE_TOP_KEYS, ...OUTBOUND_TOP_KEYS, 'issuers', 'mcp'];
  unknownKeys(
    input,
    ['clients', 'users', 'scopes', 'lifetimes', 'signing_alg', 'access_token_format', 'device_code_lifetime', 'device_interval', 'workload_issuers', ...LOGOUT_TOP_KEYS, ...FAPI_TOP_KEYS, ...topKeys],
    '',
    fail,
  );
  const security = validateSecurityTop(input, fail);
  const fapi = validateFapiTop(input, fail);
  const logout = validateLogoutTop(input, fail);
  const device = validateDeviceSettings(input, fail);
  const outbound = validateOutboundTop(nested ? {} : input, fail);

  const issuers = new Map<string, MockConfig>();
  if (input.issuers !== undefined && !nested) {
    if (!isJsonObject(input.issuers)) fail('issuers', 'must be an object: issuer name -> its configuration (clients, users, ...)');
    else
      for (const [name, sub] of Object.entries(input.issuers)) {
        if (!ISSUER_NAME.test(name)) fail(`issuers.${name}`, 'the name must be one path segment: letters, digits, . _ ~ - (at most 63)');
        const result = validateMockConfig(sub, true);
        if (!result.ok) for (const e of result.errors) errors.push(`issuers.${name}.${e.replace(/^\(top level\): /, '')}`);
        else issuers.set(name, result.config);
      }
  }

  const workloadIssuers = validateWorkloadIssuers(input.workload_issuers, fail, [...issuers.keys()]);
  const scopes = new Map<string, MockScope>();
  if (input.scopes === undefined) for (const s of DEFAULT_SCOPES) scopes.set(s.name, s);
  else if (!Array.isArray(input.scopes)) fail('scopes', 'must be an array of scope names or {"name","description"} objects');
  else
    input.scopes.forEach((raw, i) => {
      const field = `scopes[${i}]`;
      const s = typeof raw === 'string' ? { name: raw } : raw;
      if (!isJsonObject(s)) return fail(field, 'must be a scope name or a {"name","description"} object');
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
    if (!isJsonObject(input.lifetimes)) fail('lifetimes', 'must be an object of lifetimes in seconds');
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
  const mcp = validateMcpConfig(nested ? { enabled: false } : input.mcp, new Set(scopes.keys()), fail, [...issuers.keys()]);
  if (mcp.clients === 'cimd') resourceSide.registration.open = false;

  if (fapi.securityProfile === 'fapi2') {
    const codeProblem = applyFapi2(clients, lifetimes.code);
    if (codeProblem) fail('lifetimes.code', codeProblem);
    // FAPI 2.0 Security Profile section 5.4.1: PS256 by default, RS256 refused.
    if (input.signing_alg === undefined) signingAlg = 'PS256';
    else if (!isFapi2SigningAlg(signingAlg)) fail('signing_alg', `must be PS256 or ES256 with security_profile fapi2 (FAPI 2.0 Security Profile section 5.4.1), not ${signingAlg}`);
    security.requirePushedAuthorizationRequests = true;
  }
  // A named issuer's calls go out from the same server: the top level's policy.
  for (const sub of issuers.values()) sub.outbound = outbound.outbound;
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    config: { clients, users, scopes, lifetimes, signingAlg, accessTokenFormat, ...device, ...logout, issuers, ...security, ...resourceSide, mcp, workloadIssuers, ...fapi, ...outbound },
  };
}

/** Like validateMockConfig, but throws MockConfigError. */
export function resolveMockConfig(input?: unknown): MockConfig {
  const result = validateMockConfig(input);
  if (!result.ok) throw new MockConfigError(result.errors);
  return result.config;
}

export function validateUser(u: unknown, field: string, users: Map<string, MockUser>, fail: (f: string, m: string) => void): void {
  if (!isJsonObject(u)) return fail(field, 'must be an object');
  unknownKeys(u, ['username', 'password', 'claims'], field, fail);
  let ok = true;
  const bad = (f: string, m: string) => {
    ok = false;
    fail(`${field}.${f}`, m);
  };
  if (typeof u.username !== 'string' || u.username.length === 0 || u.username.length > 200) bad('username', 'must be a non-empty string');
  else if (users.has(u.username)) bad('username', `duplicate username ${JSON.stringify(u.username)}`);
  if (typeof u.password !== 'string' || u.password.length === 0) bad('password', 'must be a non-empty string');
  if (u.claims !== undefined && !isJsonObject(u.claims)) bad('claims', 'must be an object of OpenID Connect claims');
  if (isJsonObject(u.claims) && u.claims.sub !== undefined && (typeof u.claims.sub !== 'string' || u.claims.sub === '')) bad('claims.sub', 'must be a non-empty string');
  if (!ok) return;
  const username = u.username as string;
  const claims: Record<string, unknown> = { preferred_username: username, ...(isJsonObject(u.claims) ? u.claims : {}) };
  const sub = typeof claims.sub === 'string' ? claims.sub : username;
  delete claims.sub;
  users.set(username, { username, password: u.password as string, sub, claims });
}
