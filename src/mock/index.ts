import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { MockConfigError, resolveMockConfig, stripJsonComments, type MockConfig, type MockConfigInput } from './core/config.js';
import type { MockState } from './core/http.js';
import type { SigningKeys } from './core/keys.js';
import { createRequestListener, type MockLogEntry } from './core/router.js';
import { SESSION_COOKIE_PREFIX } from './core/session.js';
import { MockStore } from './core/store.js';
import { httpsServerOptions, readClientCa, type MockTlsOption } from './core/tls.js';

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
} from './core/config.js';
export { ACCESS_TOKEN_FORMATS, DEFAULT_CONFIG, LOOPBACK_REDIRECT_URIS, MockConfigError, validateMockConfig, resolveMockConfig, stripJsonComments } from './core/config.js';
export type { MockLogEntry } from './core/router.js';
export { OpensslMissingError, type MockTlsOption } from './core/tls.js';
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
  /** HTTPS: `true` makes a CA and a certificate for the host at start (needs openssl); or your own PEM key and certificate. */
  tls?: MockTlsOption;
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
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 10_000;

/**
 * Starts the mock authorization server (library mode: tests run it in-process). Throws
 * MockConfigError when the configuration is invalid (each error names its field).
 */
export async function createMockServer(input?: MockConfigInput, options: MockServerOptions = {}): Promise<MockServer> {
  const config = resolveMockConfig(input ?? {});
  if (options.autoLogin !== undefined && !config.users.has(options.autoLogin)) {
    throw new MockConfigError([`auto-login: no user ${JSON.stringify(options.autoLogin)} in the configuration (users: ${[...config.users.keys()].join(', ')})`]);
  }
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  let keys: Promise<SigningKeys> | undefined;
  const state: MockState = {
    config,
    issuer: '',
    baseUrl: '',
    secureCookies: false,
    sessionCookie: '',
    consent: options.consent !== false,
    ...(options.autoLogin !== undefined ? { autoLogin: options.autoLogin } : {}),
    now,
    store: new MockStore(now),
    // jose and the key generation stay off the start-up path; the first token waits for them.
    keys: () => (keys ??= import('./core/keys.js').then((m) => m.createSigningKeys(config.signingAlg))),
  };
  const { listener, preload } = createRequestListener(state, options.log);
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
  const server = tls ? createHttpsServer({ keepAliveTimeout: 5000, ...tls.options }, listener) : createServer({ keepAliveTimeout: 5000 }, listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  state.issuer = `${tls ? 'https' : 'http'}://${hostInUrl}:${port}`;
  state.secureCookies = tls !== undefined;
  state.mtls = tls !== undefined;
  state.baseUrl = `${state.issuer}/api`;
  state.sessionCookie = `${SESSION_COOKIE_PREFIX}${port}`;
  // Listening first: the endpoint modules, jose and the key pair load right after, while the caller
  // announces the server (a request that comes sooner waits for what it needs).
  setImmediate(() => {
    preload()
      .then(() => state.keys())
      .catch(() => undefined);
  });
  const sweep = setInterval(() => state.store.sweep(), SWEEP_INTERVAL_MS);
  sweep.unref();

  let closing: Promise<void> | undefined;
  return {
    issuer: state.issuer,
    authUrl: state.issuer,
    baseUrl: state.baseUrl,
    port,
    config,
    ...(tls?.madeCa !== undefined ? { ca: tls.madeCa } : {}),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        clearInterval(sweep);
        const stopSigning = keys ? keys.then((k) => k.close()).catch(() => undefined) : Promise.resolve();
        server.close(() => void stopSigning.then(() => resolve()));
        server.closeAllConnections();
      })),
  };
}

/** Reads a configuration file: JSON, or JSONC (comments and trailing commas allowed). */
export async function loadMockConfig(file: string): Promise<MockConfigInput> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new MockConfigError([`${file}: cannot read the file${code ? ` (${code})` : ''}`]);
  }
  try {
    return JSON.parse(stripJsonComments(text)) as MockConfigInput;
  } catch (err) {
    throw new MockConfigError([`${file}: not valid JSON: ${err instanceof Error ? err.message : String(err)}`]);
  }
}

/** One readable log line: `GET /authorize 302 client=photo-cli code issued`. */
export function formatLogEntry(entry: MockLogEntry): string {
  let line = `${entry.time} ${entry.method} ${entry.path} ${entry.status}`;
  if (entry.client_id !== undefined) line += ` client=${entry.client_id}`;
  line += ` ${entry.outcome}`;
  if (entry.error !== undefined) line += ` error=${entry.error}`;
  if (entry.error_description !== undefined) line += ` (${entry.error_description})`;
  return `${line} ${entry.duration_ms}ms`;
}
