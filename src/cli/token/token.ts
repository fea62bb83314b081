import { Option, type Command } from 'commander';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from '../options/http-timeout.js';
import { escapeForStream } from '../../output/escape.js';
import type { CachedLoginSelector } from '../../client/cache/cached-login.js';
import { UsageError } from '../../errors.js';
import { addCachedLoginOptions } from '../options/cached-login-options.js';
import { addCommonOptions, parseInteger, setExitCode, type CommonOptions } from '../program/command.js';
import { EXEC_API_VERSIONS, EXEC_TOKENS, formatToken, idTokenExpiry, TOKEN_FORMATS, type ExecToken, type TokenFormat } from './token-formats.js';
import { DEFAULT_EXPIRY_SKEW_SECONDS, type CachedTokens } from '../../store/token-cache.js';
import type { ValidToken } from '../../store/token-refresh.js';
import type { IO } from '../../output/io.js';

export interface TokenOptions extends CachedLoginSelector, CommonOptions, HttpTimeoutOption {
  json?: boolean;
  insecure?: boolean;
  format?: TokenFormat;
  execApiVersion?: string;
  execToken?: ExecToken;
  tokenStore?: string;
  /** false with --no-login: fail (exit 1) rather than log in. */
  login?: boolean;
  /** Seconds for a login, or for waiting on another run's. */
  timeout?: number;
}

/**
 * Prints a valid access token from the cache, refreshing it first when it has expired (RFC 6749
 * section 6), and logging in when that is impossible; in the form another program asks for.
 */
export async function runToken(options: TokenOptions, io: IO, now?: () => number): Promise<number> {
  const format = options.format ?? 'bare';
  if (options.json && format !== 'bare' && format !== 'json') throw new UsageError('--json and --format cannot be used together', '--json is --format json');
  const [{ findCachedLogin }, { openTokenCache, tokenState }] = await Promise.all([import('../../client/cache/cached-login.js'), import('../../store/token-cache.js')]);
  const cache = openTokenCache(io.env, now ? { now } : {});
  // The hot path of kubectl and git: a valid cached token is printed without an HTTP client, keys or renderer.
  const found = await findCachedLogin(options, io.env, cache).catch(() => undefined);
  if (found?.entry !== undefined && tokenState(found.entry, cache.now()) !== 'expired' && !idTokenExpiring(found.entry, format, options, cache.now())) {
    await printToken(options, io, { accessToken: found.entry.access_token, entry: found.entry, refreshed: false }, cache.now());
    return 0;
  }
  const [{ createRenderer }, { createHttpClient }, { accessTokenFromCache, refreshAfterUnauthorized }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/http/http.js'),
    import('../../client/cache/cached-login.js'),
  ]);
  const renderer = createRenderer(io, options);
  // A refresh of a mutual-TLS login presents the client certificate again (RFC 8705).
  const { clientCertificate } = await (await import('../login/bound-login.js')).boundLoginOf(options, io.env);
  const http = createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: httpTimeoutMs(options), clientCertificate });
  try {
    const logIn = options.login === false ? undefined : (await import('./helper-login.js')).helperLogin(options, io);
    const tell = (line: string) => io.stderr.write(`oauthctl: ${line}\n`);
    const ctx = { http, env: io.env, cache, ...(logIn && { logIn }), tell, ...(options.timeout !== undefined && { waitMs: options.timeout * 1000 }) };
    let result = await accessTokenFromCache(options, ctx);
    if (result.refreshed) renderer.trace(`refreshed the cached access token at ${result.entry.token_endpoint}`);
    // kubectl sends the ID token: an expired one is renewed by a refresh, as kubelogin does.
    if (idTokenExpiring(result.entry, format, options, cache.now())) result = await refreshAfterUnauthorized(options, result.accessToken, ctx);
    await printToken(options, io, result, cache.now());
    return 0;
  } finally {
    await http.close();
  }
}

/** For `--format exec-credential` with the ID token: whether that token expires within the skew, so a refresh is due. */
function idTokenExpiring(entry: CachedTokens, format: TokenFormat, options: TokenOptions, nowMs: number): boolean {
  if (format !== 'exec-credential' || (options.execToken ?? 'id_token') !== 'id_token' || entry.id_token === undefined) return false;
  const exp = idTokenExpiry(entry.id_token);
  return exp !== undefined && exp - DEFAULT_EXPIRY_SKEW_SECONDS <= nowMs / 1000;
}

async function printToken(options: TokenOptions, io: IO, result: Pick<ValidToken, 'accessToken' | 'entry' | 'refreshed'>, nowMs: number): Promise<void> {
  // --json is the older spelling of --format json: one shape (tokenJson).
  const format = options.json ? 'json' : (options.format ?? 'bare');
  const e = { ...result.entry, access_token: result.accessToken };
  if (format === 'bare') {
    io.stdout.write(`${escapeForStream(io.stdout, result.accessToken)}\n`);
    return;
  }
  const dpopJkt = format === 'json' && e.client_keys?.dpop_jwk !== undefined ? await (await import('../../client/flows/keys.js')).importDpopKey(e.client_keys.dpop_jwk).then((k) => k.jkt) : undefined;
  const exec = { execInfo: io.env.KUBERNETES_EXEC_INFO, apiVersion: options.execApiVersion, token: options.execToken ?? 'id_token' } as const;
  io.stdout.write(escapeForStream(io.stdout, formatToken(format, e, exec, { refreshed: result.refreshed, nowMs, ...(dpopJkt !== undefined && { dpopJkt }) })));
}

/** The options `token` and `credential git` share: how to log in when needed, and where tokens are kept. */
export function addHelperOptions(cmd: Command): Command {
  return addHttpTimeoutOption(addCachedLoginOptions(cmd))
    .option('--client-secret <S>', 'client secret for the refresh of a confidential client (also OAUTHCTL_CLIENT_SECRET, or the profile)')
    .option('--insecure', 'do not verify TLS certificates (test servers only)')
    .option('--token-store <STORE>', 'where a new login is kept: file (default), keyring or none (also OAUTHCTL_TOKEN_STORE, or the profile)')
    .option('--no-login', 'fail (exit 1) rather than log in when no token can be refreshed')
    .option('--timeout <SECONDS>', 'give up a login, or the wait for another run logging in, after this long (default 300)', parseInteger('--timeout', 1, 86_400));
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('token').description('Print a valid access token from the cache, refreshing it first when it has expired, logging in when it cannot.');
  addHelperOptions(cmd)
    .addOption(new Option('--format <F>', 'bare (the token), header (Authorization: Bearer ...), json, or exec-credential (a Kubernetes ExecCredential)').choices(TOKEN_FORMATS))
    .addOption(new Option('--exec-api-version <V>', 'the ExecCredential apiVersion when kubectl does not say it in KUBERNETES_EXEC_INFO (default v1beta1)').choices(EXEC_API_VERSIONS))
    .addOption(new Option('--exec-token <T>', 'the token kubectl gets: the ID token (default) or the access token').choices(EXEC_TOKENS))
    .option('--json', 'the same as --format json (its older spelling)');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
With no valid token cached it refreshes; when that cannot be done it logs in to the server of the
profile (or of --issuer or --auth-url with --client-id): headless with OAUTHCTL_USERNAME and
OAUTHCTL_PASSWORD set, else the browser, else the device flow on a terminal, its narration on
stderr. Without any of these it takes the only cached login, and logs in nowhere. Concurrent runs
for the same login refresh once and log in once. Exit 1 when no token can be had.

Examples:
  $ oauthctl token --profile work
  $ curl -H "Authorization: Bearer $(oauthctl token --profile work)" http://127.0.0.1:9000/api/me
  $ oauthctl token --profile work --format header | curl -H @- http://127.0.0.1:9000/api/me
  $ oauthctl token --profile work --format exec-credential --exec-token access_token
  $ OAUTHCTL_PROFILE=mock oauthctl token | oauthctl decode -`,
    )
    .action(async (options: TokenOptions, command: Command) => {
      setExitCode(command, await runToken(options, io));
    });
}
