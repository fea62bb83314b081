import { readFile } from 'node:fs/promises';
import { escapeLogValue } from '../output/escape.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockConfigError, resolveMockConfig, stripJsonComments, type MockConfig, type MockConfigInput, type SigningAlg } from './core/config.js';
import type { MockState } from './core/http.js';
import { dispatchByIssuer, issuerUrlProblem, normalizeIssuerUrl } from './core/issuers.js';
import type { SigningKeys } from './core/keys.js';
import { createRequestListener, type MockLogEntry } from './core/router.js';
import { SESSION_COOKIE_PREFIX } from './core/session.js';
import { MockStore, type StoreLimits } from './core/store.js';

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
} from './core/config.js';
export type { StoreLimits } from './core/store.js';
export { DEFAULT_STORE_LIMITS } from './core/store.js';
export { issuerUrlProblem } from './core/issuers.js';
export { ACCESS_TOKEN_FORMATS, DEFAULT_CONFIG, LOOPBACK_REDIRECT_URIS, MockConfigError, validateMockConfig, resolveMockConfig, stripJsonComments } from './core/config.js';
export type { MockLogEntry } from './core/router.js';
export { serverMetadata } from './endpoints/discovery.js';
export { matchRedirectUri } from './core/redirect-uri.js';

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
  /**
   * The issuer announced in the metadata, in `iss` and in tokens, when the mock sits behind a proxy or
   * in a container (default `http://{host}:{port}`). Named issuers are at `{issuerUrl}/{name}`.
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
  /** The named issuers (config `issuers`), each with its own clients, users, keys and stores. */
  issuers: ReadonlyMap<string, MockIssuer>;
  /**
   * Stops accepting connections and closes idle ones; requests in flight get `graceMs` (default 0:
   * none) to finish, then every connection is cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

const SWEEP_INTERVAL_MS = 10_000;

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
  const root = issuerState(config, options);
  const named = new Map([...config.issuers].map(([name, c]) => [name, issuerState(c, options, name)]));
  const server = createServer({ keepAliveTimeout: 5000 }, dispatchByIssuer(root.listener, new Map([...named].map(([name, s]) => [name, s.listener]))));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const rootUrl = options.issuerUrl !== undefined ? normalizeIssuerUrl(options.issuerUrl) : `http://${hostInUrl}:${port}`;
  root.place(rootUrl, `${SESSION_COOKIE_PREFIX}${port}`);
  for (const [name, s] of named) s.place(`${rootUrl}/${name}`, `${SESSION_COOKIE_PREFIX}${port}_${name}`);
  const all = [root, ...named.values()];
  // Listening first: the endpoint modules, jose and the key pair load right after, while the caller
  // announces the server (a request that comes sooner waits for what it needs).
  setImmediate(() => {
    for (const s of all) s.warmUp();
  });
  const sweep = setInterval(() => {
    for (const s of all) s.state.store.sweep();
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  let closing: Promise<void> | undefined;
  const describe = (s: IssuerSetup): MockIssuer => ({ issuer: s.state.issuer, authUrl: s.state.issuer, baseUrl: s.state.baseUrl, config: s.state.config });
  return {
    issuer: root.state.issuer,
    authUrl: root.state.issuer,
    baseUrl: root.state.baseUrl,
    port,
    config,
    issuers: new Map([...named].map(([name, s]) => [name, describe(s)])),
    close: (closeOptions = {}) =>
      (closing ??= new Promise<void>((resolve) => {
        clearInterval(sweep);
        const graceMs = closeOptions.graceMs ?? 0;
        // A keep-alive connection whose last request is answered is idle: closed as soon as it is.
        const idle = graceMs > 0 ? setInterval(() => server.closeIdleConnections(), 20) : undefined;
        const cut = graceMs > 0 ? setTimeout(() => server.closeAllConnections(), graceMs) : undefined;
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          void Promise.all(all.map((s) => s.stopSigning())).then(() => resolve());
        });
        if (graceMs > 0) server.closeIdleConnections();
        else server.closeAllConnections();
      })),
  };
}

interface IssuerSetup {
  state: MockState;
  listener: ReturnType<typeof createRequestListener>['listener'];
  /** Sets the issuer URL and the session cookie's name once the port is known. */
  place(issuer: string, sessionCookie: string): void;
  warmUp(): void;
  stopSigning(): Promise<void>;
}

/** One issuer's state (configuration, stores, keys) and request listener. */
function issuerState(config: MockConfig, options: MockServerOptions, name?: string): IssuerSetup {
  let keys: Promise<SigningKeys> | undefined;
  const state: MockState = {
    config,
    issuer: '',
    baseUrl: '',
    secureCookies: false,
    sessionCookie: '',
    consent: options.consent !== false,
    ...(options.autoLogin !== undefined && config.users.has(options.autoLogin) ? { autoLogin: options.autoLogin } : {}),
    now: options.now ?? Date.now,
    store: new MockStore(() => state.now(), options.limits),
    // jose and the key generation stay off the start-up path; the first token waits for them.
    keys: () => (keys ??= import('./core/keys.js').then((m) => m.createSigningKeys(config.signingAlg))),
  };
  const log = options.log;
  const prefixed = name === undefined || !log ? log : (entry: MockLogEntry) => log({ ...entry, path: `/${name}${entry.path}` });
  const { listener, preload } = createRequestListener(state, prefixed);
  return {
    state,
    listener,
    place(issuer, sessionCookie) {
      state.issuer = issuer;
      state.baseUrl = `${issuer}/api`;
      state.secureCookies = issuer.startsWith('https:');
      state.sessionCookie = sessionCookie;
    },
    warmUp: () =>
      void preload()
        .then(() => state.keys())
        .catch(() => undefined),
    stopSigning: () => (keys ? keys.then((k) => k.close()).catch(() => undefined) : Promise.resolve()),
  };
}

/** The configuration with `signing_alg` filled in where it names none (each named issuer inherits the top level's). */
function withDefaultSigningAlg(input: MockConfigInput, alg: SigningAlg): MockConfigInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const top = input.signing_alg ?? alg;
  const issuers = input.issuers;
  const filled: MockConfigInput = { ...input, signing_alg: top };
  if (typeof issuers === 'object' && issuers !== null && !Array.isArray(issuers)) {
    filled.issuers = Object.fromEntries(Object.entries(issuers).map(([name, sub]) => [name, typeof sub === 'object' && sub !== null && !Array.isArray(sub) ? { signing_alg: top, ...sub } : sub]));
  }
  return filled;
}

/** Reads a configuration file: JSON, or JSONC (comments and trailing commas allowed). */
export async function loadMockConfig(file: string): Promise<MockConfigInput> {
  let text: string;
  let parsed: unknown;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new MockConfigError([`${file}: cannot read the file${code ? ` (${code})` : ''}`]);
  }
  try {
    parsed = JSON.parse(stripJsonComments(text.replace(/^\uFEFF/, ''))) as unknown;
  } catch (err) {
    throw new MockConfigError([`${file}: not valid JSON: ${err instanceof Error ? err.message : String(err)}`]);
  }
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
