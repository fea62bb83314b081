import type { Command } from 'commander';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from '../options/http-timeout.js';
import { FlowError } from '../../errors.js';
import { revokeToken } from '../../client/responses/token-info.js';
import type { TokenTypeHint } from '../../oauth/revocation.js';
import type { CachedLoginSelector } from '../../client/cache/cached-login.js';
import type { HttpClient } from '../../client/http/http.js';
import type { CachedTokens, TokenCache, TokenCacheKey } from '../../store/token-cache.js';
import { printJson, type Renderer } from '../../output/render.js';
import { addCachedLoginOptions } from '../options/cached-login-options.js';
import { addCommonOptions, parseHttpUrl, parseInteger, setExitCode, type CommonOptions } from '../program/command.js';
import { checkEndSessionOptions, DEFAULT_END_SESSION_TIMEOUT_SECONDS, DEFAULT_POST_LOGOUT_REDIRECT_URI, endSessionForLogin, type EndSessionOptions } from '../login/end-session.js';
import type { IO } from '../../output/io.js';

export interface LogoutOptions extends CachedLoginSelector, CommonOptions, HttpTimeoutOption, EndSessionOptions {
  /** --end-session: RP-initiated logout at the server first (end-session.ts). */
  endSession?: boolean;
  revoke?: boolean;
  revocationEndpoint?: string;
  insecure?: boolean;
  json?: boolean;
  /** Every cached login. */
  all?: boolean;
}

export interface LogoutResult {
  forgotten: boolean;
  end_session_endpoint?: string;
  revocation_endpoint?: string;
  revoked: TokenTypeHint[];
}

const REFUSED_HINT = 'the tokens are still cached; try again, or use --no-revoke to only forget them';
/** Not reached: the tokens may still be valid there, so they stay cached. */
const UNREACHABLE = { what: 'the tokens', hint: 'the tokens are still cached; try again when it is up, or use --no-revoke to only forget them' };

/**
 * Revokes the cached tokens (RFC 7009) where the server offers a revocation endpoint, then forgets
 * them. The refresh token goes first: revoking it may also revoke its access tokens (section 2.1).
 */
export async function runLogout(options: LogoutOptions, io: IO): Promise<number> {
  checkEndSessionOptions(options);
  if (options.all) return runLogoutAll(options, io);
  const [{ createRenderer }, { findCachedLogin }, { describeKey }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/cache/cached-login.js'),
    import('../../store/token-cache.js'),
  ]);
  const renderer = createRenderer(io, options);
  const found = await findCachedLogin(options, io.env);
  if (!found.entry) {
    renderer.info(`Nothing to log out: no tokens are cached${found.key.profile !== undefined || found.key.clientId !== undefined ? ` for ${describeKey(found.key)}` : ''}.`);
    if (options.json) printJson(io, { forgotten: false, revoked: [] } satisfies LogoutResult);
    return 0;
  }
  const http = await revocationClient(options, io, renderer);
  try {
    const result = await logoutOne(found.entry, found.key, found.cache, options, io, renderer, http);
    if (options.json) printJson(io, result);
  } finally {
    await http?.close();
  }
  return 0;
}

/**
 * `logout --all`: each cached login in turn, revoked where possible, then forgotten. A login whose
 * revocation fails stays cached; the others go on, and the run exits 1 naming how many stayed.
 */
async function runLogoutAll(options: LogoutOptions, io: IO): Promise<number> {
  const [{ createRenderer }, { keyOfEntry }, { listCachedTokens, openTokenCache, describeKey }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/cache/cached-login.js'),
    import('../../store/token-cache.js'),
  ]);
  const renderer = createRenderer(io, options);
  const cache = openTokenCache(io.env);
  const results: (LogoutResult & { login: string; error?: string })[] = [];
  const failed: string[] = [];
  // One HTTP client for every login: one --insecure warning for the command.
  const http = await revocationClient(options, io, renderer);
  try {
    for (const { entry } of await listCachedTokens(cache)) {
      const key = keyOfEntry(entry);
      try {
        results.push({ login: describeKey(key), ...(await logoutOne(entry, key, cache, options, io, renderer, http)) });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        renderer.warn(`${describeKey(key)} stays cached: ${message}`);
        results.push({ login: describeKey(key), forgotten: false, revoked: [], error: message });
        failed.push(describeKey(key));
      }
    }
  } finally {
    await http?.close();
  }
  if (results.length === 0) renderer.info('Nothing to log out: no tokens are cached.');
  if (options.json) printJson(io, results);
  if (failed.length > 0) {
    throw new FlowError(
      `${failed.length} of ${results.length} logins could not be revoked and stay cached (${failed.join(', ')})`,
      'try again when the server is reachable, or add --no-revoke to only forget them',
    );
  }
  return 0;
}

/**
 * The HTTP client that revokes (unless --no-revoke) and ends the session at the server (--end-session),
 * with the client certificate of a login whose client authenticates with one (RFC 8705 section 2).
 */
async function revocationClient(options: LogoutOptions, io: IO, renderer: Renderer, clientCertificate?: { cert: string; key: string }): Promise<HttpClient | undefined> {
  if (options.revoke === false && !options.endSession) return undefined;
  const { createHttpClient } = await import('../../client/http/http.js');
  return createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: httpTimeoutMs(options), clientCertificate });
}

/**
 * Revokes one cached login where its server allows, then forgets it. Throws (the login stays cached)
 * when revoking fails. A login with a client certificate revokes through an HTTP client of its own.
 */
async function logoutOne(entry: CachedTokens, key: TokenCacheKey, cache: TokenCache, options: LogoutOptions, io: IO, renderer: Renderer, shared: HttpClient | undefined): Promise<LogoutResult> {
  const { clientCertificateOf } = await import('../../client/cache/cached-client-keys.js');
  const clientCertificate = shared === undefined ? undefined : await clientCertificateOf(entry);
  const own = clientCertificate === undefined ? undefined : await revocationClient(options, io, renderer, clientCertificate);
  try {
    return await revokeAndForget(entry, key, cache, options, io, renderer, own ?? shared);
  } finally {
    await own?.close();
  }
}

async function revokeAndForget(entry: CachedTokens, key: TokenCacheKey, cache: TokenCache, options: LogoutOptions, io: IO, renderer: Renderer, http: HttpClient | undefined): Promise<LogoutResult> {
  const { forgetTokens, describeKey } = await import('../../store/token-cache.js');
  const result: LogoutResult = { forgotten: false, revoked: [] };
  if (options.endSession && http !== undefined) {
    result.end_session_endpoint = (await endSessionForLogin(entry, options, http, renderer, io)).end_session_endpoint;
  }
  if (http !== undefined && options.revoke !== false) {
    const endpoint = options.revocationEndpoint ?? (await revocationEndpointOf(entry, options, io, http, renderer));
    if (endpoint === undefined) {
      renderer.warn('the server offers no revocation endpoint (RFC 7009): the tokens are forgotten here but stay valid until they expire');
    } else {
      result.revocation_endpoint = endpoint;
      const { cachedClientCredentials } = await import('../../client/cache/cached-login.js');
      const client = await cachedClientCredentials(entry, options, io.env, 'revoking');
      renderer.step('Token revocation');
      const tokens: [TokenTypeHint, string | undefined][] = [
        ['refresh_token', entry.refresh_token],
        ['access_token', entry.access_token],
      ];
      for (const [hint, token] of tokens) {
        if (token === undefined) continue;
        await revokeToken(http, client, endpoint, token, hint, REFUSED_HINT, UNREACHABLE);
        renderer.ok(`${hint} revoked at ${endpoint}`);
        result.revoked.push(hint);
      }
    }
  }
  result.forgotten = await forgetTokens(cache, key);
  renderer.ok(`Forgot the cached tokens of ${describeKey(key)}`);
  return result;
}

/** --revocation-endpoint, the entry's (saved at login from discovery), the profile's, or discovery now. */
async function revocationEndpointOf(entry: CachedTokens, options: LogoutOptions, io: IO, http: HttpClient, renderer: Renderer): Promise<string | undefined> {
  if (entry.revocation_endpoint !== undefined) return entry.revocation_endpoint;
  if (entry.profile !== undefined) {
    const { loadSelectedProfile } = await import('../../store/config-store.js');
    const selection = await loadSelectedProfile({ profile: entry.profile, config: options.config }, io.env).catch(() => undefined);
    if (selection?.profile.revocation_endpoint !== undefined) return selection.profile.revocation_endpoint;
  }
  // Without a known issuer (a login with --auth-url), the token endpoint's base is tried as one: the
  // metadata is only used when its issuer says exactly that (RFC 8414 section 3.3).
  const issuer = entry.issuer ?? entry.token_endpoint.replace(/\/[^/]*$/, '');
  const { discoverMetadata, NoMetadataError } = await import('../../client/flows/endpoints.js');
  try {
    return (await discoverMetadata(http, issuer)).metadata.revocation_endpoint;
  } catch (err) {
    // Only a server that answered without metadata has no revocation endpoint; one that cannot be
    // reached may still hold valid tokens, so they stay cached.
    if (!(err instanceof NoMetadataError)) {
      const message = err instanceof Error ? err.message : String(err);
      throw new FlowError(`cannot reach the server to revoke ${UNREACHABLE.what}: ${message}`, UNREACHABLE.hint);
    }
    if (entry.issuer !== undefined) renderer.warn(`discovery at ${entry.issuer} failed (${err.message}); cannot find a revocation endpoint`);
    return undefined;
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('logout').description('Revoke the cached tokens at the server (RFC 7009, when it offers revocation) and forget them.');
  addHttpTimeoutOption(addCachedLoginOptions(cmd))
    .option('--client-secret <S>', 'client secret a confidential client revokes with (also OAUTHCTL_CLIENT_SECRET, or the profile)')
    .option('--revocation-endpoint <URL>', 'revoke here instead of the endpoint from discovery', parseHttpUrl('--revocation-endpoint'))
    .option('--no-revoke', 'only forget the tokens, do not revoke them')
    .option('--all', 'every cached login: revoke what can be revoked, then forget them')
    .option('--end-session', 'also end the session at the server (RP-Initiated Logout): the browser goes to its end_session_endpoint with the cached ID token, and comes back to a loopback listener')
    .option('--post-logout-redirect-uri <URL>', `where the server sends the browser back with --end-session (default ${DEFAULT_POST_LOGOUT_REDIRECT_URI} on a free port)`)
    .option('--headless', 'with --end-session: the built-in user agent instead of the browser')
    .option('--no-browser', 'with --end-session: print the logout URL instead of opening a browser')
    .option('--timeout <SECONDS>', `with --end-session: how long to wait for the browser to come back (default ${DEFAULT_END_SESSION_TIMEOUT_SECONDS})`, parseInteger('--timeout', 1, 86_400))
    .option('--insecure', 'do not verify TLS certificates (test servers only)')
    .option('--json', 'print {"forgotten","revocation_endpoint","revoked"} (and "end_session_endpoint")');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl logout --profile work
  $ oauthctl logout --profile work --no-revoke
  $ oauthctl logout --all
  $ oauthctl logout --end-session --headless`,
    )
    .action(async (options: LogoutOptions, command: Command) => {
      setExitCode(command, await runLogout(options, io));
    });
}
