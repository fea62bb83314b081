import { promises as fs } from 'node:fs';
import { escapeLogValue } from '../output/escape.js';
import { listen } from '../http/server.js';
import { MockConfigError, resolveMockConfig, type MockConfig, type MockConfigInput, type SigningAlg } from './core/config/config.js';
import { MockClock } from './core/store/clock.js';
import type { MockClient, MockUser } from './core/config/config.js';
import type { MockState } from './core/http/http.js';
import { dispatchByIssuer, issuerUrlProblem, normalizeIssuerUrl } from './core/http/issuers.js';
import type { KeyRing } from './core/keys/key-ring.js';
import { adminMode } from './core/http/loopback.js';
import { MockQueue } from './core/tokens/queue.js';
import { RequestLog, type MockRequest } from './core/http/request-log.js';
import { createRequestListener, routeEndpoints, type MockLogEntry } from './core/http/router.js';
import { SESSION_COOKIE_PREFIX } from './core/sessions/session.js';
import { MockStore, type StoreLimits } from './core/store/store.js';
import { httpsServerOptions, readClientCa, type MockTlsOption } from './core/http/tls.js';
import { parseConfigText } from './core/config/config-text.js';
import * as control from './endpoints/admin/control.js';
import type { EnqueueInput, IssueTokenInput, MockTokenResponse } from './endpoints/admin/input.js';
import type { MockSession } from './core/sessions/sessions.js';

export type {
  MockConfig,
  MockConfigInput,
  MockClient,
  MockUser,
  MockScope,
  MockLifetimes,
  MockClientInput,
  MockUserInput,
  SigningAlg,
  AccessTokenFormat,
  TokenEndpointAuthMethod,
  GrantType,
} from './core/config/config.js';
export type { StoreLimits } from './core/store/store.js';
export { DEFAULT_STORE_LIMITS } from './core/store/store.js';
export { issuerUrlProblem } from './core/http/issuers.js';
export { ACCESS_TOKEN_FORMATS, DEFAULT_CONFIG, LOOPBACK_REDIRECT_URIS, MockConfigError, validateMockConfig, resolveMockConfig } from './core/config/config.js';
export { parseConfigText } from './core/config/config-text.js';
export type { MockLogEntry } from './core/http/router.js';
export { OpensslMissingError, type MockTlsOption } from './core/http/tls.js';
export type { MockRequest } from './core/http/request-log.js';
export type { MockSession } from './core/sessions/sessions.js';
export type { EnqueueInput, IssueTokenInput, MockTokenResponse } from './endpoints/admin/input.js';
export { MockAdminError } from './endpoints/admin/input.js';
export { BROKEN_TOKEN_KINDS, type BrokenTokenKind } from './core/tokens/queue.js';
export { adminMode } from './core/http/loopback.js';
export { isLoopbackHost } from '../oauth/loopback.js';
export { serverMetadata } from './endpoints/discovery.js';
export { matchRedirectUri } from './core/clients/redirect-uri.js';

export interface MockServerOptions {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default true; false (--no-consent) skips the consent page for every client. */
  consent?: boolean;
  /** An account name: skip login and consent and issue the code for this user at once. */
  autoLogin?: string;
  /** Called once per request. */
  log?: (entry: MockLogEntry) => void;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
  /** HTTPS: `true` makes a CA and a certificate for the host at start (needs openssl); or your own PEM key and certificate. */
  tls?: MockTlsOption;
  /**
   * The issuer announced in the metadata, in `iss` and in tokens, when the mock sits behind a proxy or
   * in a container (default `http://{host}:{port}`, https with `tls`). Named issuers are at `{issuerUrl}/{name}`.
   */
  issuerUrl?: string;
  /**
   * The signing algorithm when the configuration names none. Default ES256 here: a P-256 key pair is
   * made in about a millisecond, where an RSA one takes a hundred or more, which a test pays per
   * fixture. serve-mock passes RS256, its documented default.
   */
  defaultSigningAlg?: SigningAlg;
  /** The bounds of each issuer's stores (at a bound new work gets 503, nothing stored is dropped). */
  limits?: Partial<StoreLimits>;
  /**
   * The admin API under `{auth_url}/_mock/`: on by default when `host` is loopback (then only for
   * requests to a loopback name), off otherwise; true turns it on for every request, false off.
   */
  admin?: boolean;
}

/** One issuer of the server: the root one, or a named one at `{root}/{name}` (config `issuers`). */
export interface MockIssuer {
  issuer: string;
  authUrl: string;
  baseUrl: string;
  config: MockConfig;
}

export interface MockServer {
  issuer: string;
  /** Same as the issuer: `{auth_url}/authorize`, `{auth_url}/token`. */
  authUrl: string;
  /** The protected API: `{base_url}/photos`, `{base_url}/me`. */
  baseUrl: string;
  port: number;
  config: MockConfig;
  /** With `tls: true`: the PEM of the CA made at start, which signed the server's certificate. */
  ca?: string;
  /** The named issuers (config `issuers`), each with its own clients, users, keys and stores. */
  issuers: ReadonlyMap<string, MockIssuer>;
  /** Tokens without a flow, as POST /_mock/tokens: resolves to a token response. */
  issueToken(input: IssueTokenInput): Promise<MockTokenResponse>;
  /** Claims for the next tokens, a fault for an endpoint, or a broken next access token, as POST /_mock/next. */
  enqueue(item: EnqueueInput): void;
  /** The request log, oldest first (the last 1,000 requests), as GET /_mock/requests. */
  requests(): MockRequest[];
  /** Clears the request log, as DELETE /_mock/requests. */
  clearRequests(): void;
  /** The mock's clock, used for issuing, expiry and validation alike. */
  clock: { advance(seconds: number): void; set(epochSeconds: number): void; now(): number };
  /** A new signing key; the old one stays in the JWKS until its tokens expire. Resolves to the new kid. */
  rotateKeys(): Promise<string>;
  /** Adds a user or a client, validated as the configuration file's (MockAdminError names the field). */
  addUser(input: unknown): MockUser;
  addClient(input: unknown): MockClient;
  /** Adds a protected resource `{"path", "scopes", "issuer"?}` at `{root}{path}`, as POST /_mock/resources (RFC 9728). */
  addResource(input: unknown): { resource: string; resource_metadata: string };
  /** Moves the MCP endpoint to a named issuer (null: back to the root one), as POST /_mock/mcp/authorization-server (SEP-2352). */
  moveMcpResource(issuer: string | null): { resource: string; authorization_servers: string[] };
  /** Forgets codes, tokens, sessions (their clients told by back-channel), pushed requests, seen DPoP and assertion jtis, queued items and the request log. */
  reset(): void;
  /** The signed-in sessions, as GET /_mock/sessions. */
  sessions(): MockSession[];
  /** Approves or refuses a backchannel authentication request (CIBA), as POST /_mock/ciba {"auth_req_id", "action"}; in ping mode the client is told. */
  decideCiba(input: { auth_req_id: string; action: 'approve' | 'deny' }): { auth_req_id: string; status: 'approved' | 'denied' };
  /** Ends the session with this sid (MockAdminError when none has it), or every session; its clients are told by back-channel. Resolves to how many ended. */
  endSession(sid?: string): number;
  /**
   * Stops accepting connections and closes idle ones; requests in flight get `graceMs` (default 0:
   * none) to finish, then every connection is cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * How often expired codes, tokens and sessions are dropped. Each store keeps its entries in expiry
 * order, so a sweep stops at the first live ones: every second costs next to nothing, and under load
 * memory then holds a lifetime's worth of state plus a second, not plus ten.
 */
const SWEEP_INTERVAL_MS = 1000;

/**
 * Starts the mock authorization server (library mode: tests run it in-process). Throws
 * MockConfigError when the configuration is invalid (each error names its field).
 */
export async function createMockServer(input?: MockConfigInput, options: MockServerOptions = {}): Promise<MockServer> {
  const config = resolveMockConfig(withDefaultSigningAlg(input ?? {}, options.defaultSigningAlg ?? 'ES256'));
  // --auto-login signs in at each issuer that has the user; one of them must.
  const everyConfig = [config, ...config.issuers.values()];
  if (options.autoLogin !== undefined && !everyConfig.some((c) => c.users.has(options.autoLogin!))) {
    throw new MockConfigError([`auto-login: no user ${JSON.stringify(options.autoLogin)} in the configuration (users: ${[...config.users.keys()].join(', ')})`]);
  }
  if (options.issuerUrl !== undefined) {
    const problem = issuerUrlProblem(options.issuerUrl);
    if (problem) throw new MockConfigError([`issuer URL ${JSON.stringify(options.issuerUrl)}: ${problem}`]);
  }
  const host = options.host ?? '127.0.0.1';
  // TLS belongs to the one server: the root configuration's tls_client_auth_ca serves every issuer.
  let tls: Awaited<ReturnType<typeof httpsServerOptions>> | undefined;
  if (options.tls !== undefined) {
    let clientCa: string | undefined;
    try {
      clientCa = config.tlsClientAuthCa === undefined ? undefined : await readClientCa(config.tlsClientAuthCa);
    } catch (err) {
      throw new MockConfigError([`tls_client_auth_ca: cannot read ${JSON.stringify(config.tlsClientAuthCa)} (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
    }
    tls = await httpsServerOptions(options.tls, host, clientCa);
  }
  const root = issuerState(config, options, host);
  const named = new Map([...config.issuers].map(([name, c]) => [name, issuerState(c, options, host, name)]));
  const listener = dispatchByIssuer(root.listener, new Map([...named].map(([name, s]) => [name, s.listener])));
  // node:https (and tls) only for a server that speaks TLS (src/http/server.ts loads them then).
  const listening = await listen(listener, { host, port: options.port ?? 0, tls: tls?.options, keepAliveTimeoutMs: 5000 });
  const port = listening.port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  // The issuer is https when the mock itself serves TLS, or when --issuer-url says so (a TLS proxy in front).
  const rootUrl = options.issuerUrl !== undefined ? normalizeIssuerUrl(options.issuerUrl) : `${tls ? 'https' : 'http'}://${hostInUrl}:${port}`;
  root.place(rootUrl, `${SESSION_COOKIE_PREFIX}${port}`, tls !== undefined);
  for (const [name, s] of named) s.place(`${rootUrl}/${name}`, `${SESSION_COOKIE_PREFIX}${port}_${name}`, tls !== undefined);
  const all = [root, ...named.values()];
  const issuerStates = { root: root.state, named: new Map([...named].map(([name, s]) => [name, s.state])) };
  for (const s of all) s.state.server = issuerStates;
  // Listening first: the endpoint modules, jose and the key pair load right after, while the caller
  // announces the server (a request that comes sooner waits for what it needs).
  let closing: Promise<void> | undefined;
  setImmediate(() => {
    // A server closed at once (the library snippet) loads nothing more: no key pair, no signer left behind.
    if (closing) return;
    for (const s of all) s.warmUp(() => closing !== undefined);
  });
  const sweep = setInterval(() => {
    for (const s of all) s.state.store.sweep();
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  const describe = (s: IssuerSetup): MockIssuer => ({ issuer: s.state.issuer, authUrl: s.state.issuer, baseUrl: s.state.baseUrl, config: s.state.config });
  return {
    issuer: root.state.issuer,
    authUrl: root.state.issuer,
    baseUrl: root.state.baseUrl,
    port,
    config,
    ...(tls?.madeCa !== undefined ? { ca: tls.madeCa } : {}),
    issuers: new Map([...named].map(([name, s]) => [name, describe(s)])),
    // The library methods act on the root issuer; a named one is steered over HTTP at {root}/{name}/_mock/.
    issueToken: (input) => control.issueToken(root.state, input),
    enqueue: (item) => control.enqueue(root.state, item),
    requests: () => control.requests(root.state),
    clearRequests: () => control.clearRequests(root.state),
    clock: { advance: (seconds) => control.advanceClock(root.state, seconds), set: (epochSeconds) => control.setClock(root.state, epochSeconds), now: () => root.state.now() / 1000 },
    rotateKeys: () => control.rotateKeys(root.state),
    addUser: (input) => control.addUser(root.state, input),
    addClient: (input) => control.addClient(root.state, input),
    addResource: (input) => control.addResource(root.state, input),
    moveMcpResource: (issuer) => control.moveMcpResource(root.state, { issuer }),
    reset: () => control.reset(root.state),
    sessions: () => control.sessions(root.state),
    decideCiba: (input) => control.decideCiba(root.state, input),
    endSession: (sid) => control.endSession(root.state, sid),
    close: (closeOptions = {}) =>
      (closing ??= (async () => {
        clearInterval(sweep);
        await listening.close({ graceMs: closeOptions.graceMs ?? 0 });
        await Promise.all(all.map((s) => s.stopSigning()));
      })()),
  };
}

interface IssuerSetup {
  state: MockState;
  listener: ReturnType<typeof createRequestListener>['listener'];
  /** Sets the issuer URL and the session cookie's name once the port is known; `mtls` when the server speaks TLS itself. */
  place(issuer: string, sessionCookie: string, mtls: boolean): void;
  /** Loads the endpoint modules and the key pair, unless the server was closed meanwhile. */
  warmUp(closed: () => boolean): void;
  stopSigning(): Promise<void>;
}

/** key-ring.js and jose, imported once per process: the first server waits for them, the next ones do not. */
let keyRingModule: Promise<typeof import('./core/keys/key-ring.js')> | undefined;
const keyRing = () => (keyRingModule ??= import('./core/keys/key-ring.js'));

/** One issuer's state (configuration, stores, keys) and request listener. */
function issuerState(config: MockConfig, options: MockServerOptions, host: string, name?: string): IssuerSetup {
  const clock = new MockClock(options.now);
  const now = () => clock.now();
  let keys: Promise<KeyRing> | undefined;
  const state: MockState = {
    config,
    issuer: '',
    baseUrl: '',
    secureCookies: false,
    sessionCookie: '',
    consent: options.consent !== false,
    ...(options.autoLogin !== undefined && config.users.has(options.autoLogin) ? { autoLogin: options.autoLogin } : {}),
    now,
    clock,
    store: new MockStore(now, options.limits),
    // jose and the key generation stay off the start-up path; the first token waits for them.
    keys: () => (keys ??= keyRing().then((m) => m.KeyRing.create(config.signingAlg, now))),
    queue: new MockQueue(),
    requests: new RequestLog(),
    endpoints: routeEndpoints(),
    admin: adminMode(host, options.admin),
  };
  const log = options.log;
  const prefixed = name === undefined || !log ? log : (entry: MockLogEntry) => log({ ...entry, path: `/${name}${entry.path}` });
  const { listener, preload } = createRequestListener(state, prefixed);
  return {
    state,
    listener,
    place(issuer, sessionCookie, mtls) {
      state.issuer = issuer;
      state.mtls = mtls;
      state.baseUrl = `${issuer}/api`;
      state.secureCookies = issuer.startsWith('https:');
      state.sessionCookie = sessionCookie;
    },
    warmUp: (closed) =>
      void preload()
        .then(() => (closed() ? undefined : state.keys()))
        .catch(() => undefined),
    stopSigning: () => (keys ? keys.then((k) => k.close()).catch(() => undefined) : Promise.resolve()),
  };
}

/** The configuration with `signing_alg` filled in where it names none (each named issuer inherits the top level's). */
function withDefaultSigningAlg(input: MockConfigInput, alg: SigningAlg): MockConfigInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  // FAPI 2.0 Security Profile section 5.4.1: PS256 where RS256 would be the default (the same RSA key).
  const fapiDefault = (config: { security_profile?: unknown }, fallback: SigningAlg): SigningAlg => (config.security_profile === 'fapi2' && fallback === 'RS256' ? 'PS256' : fallback);
  const top = input.signing_alg ?? fapiDefault(input, alg);
  const issuers = input.issuers;
  const filled: MockConfigInput = { ...input, signing_alg: top };
  if (typeof issuers === 'object' && issuers !== null && !Array.isArray(issuers)) {
    filled.issuers = Object.fromEntries(
      Object.entries(issuers).map(([name, sub]) => [name, typeof sub === 'object' && sub !== null && !Array.isArray(sub) ? { signing_alg: input.signing_alg ?? fapiDefault(sub, top), ...sub } : sub]),
    );
  }
  return filled;
}

/** Reads a configuration file: JSON, or JSONC (comments and trailing commas allowed); errors name the line and column. */
export async function loadMockConfig(file: string): Promise<MockConfigInput> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new MockConfigError([`${file}: cannot read the file${code ? ` (${code})` : ''}`]);
  }
  const result = await parseConfigText(text, file);
  if (!result.ok) throw new MockConfigError(result.errors);
  const parsed = result.value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MockConfigError([`${file}: must hold a JSON object ({"clients": [...], ...}), not ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed}`]);
  }
  return parsed as MockConfigInput;
}

/** One readable log line: `GET /authorize 302 client=photo-cli code issued`. */
export function formatLogEntry(entry: MockLogEntry): string {
  const e = escapeLogValue;
  let line = `${entry.time} ${e(entry.method)} ${e(entry.path)} ${entry.status}`;
  if (entry.client_id !== undefined) line += ` client=${e(entry.client_id)}`;
  line += ` ${e(entry.outcome)}`;
  if (entry.error !== undefined) line += ` error=${e(entry.error)}`;
  if (entry.error_description !== undefined) line += ` (${e(entry.error_description)})`;
  return `${line} ${entry.duration_ms}ms`;
}
