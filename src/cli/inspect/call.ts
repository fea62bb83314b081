import type { Command } from 'commander';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from '../options/http-timeout.js';
import { escapeForStream, escapeTerminal } from '../../output/escape.js';
import { FlowError, UsageError } from '../../errors.js';
import { addCachedLoginOptions } from '../options/cached-login-options.js';
import { addCommonOptions, collect, parseHttpUrl, setExitCode, type CommonOptions } from '../program/command.js';
import type { IO } from '../../output/io.js';
import type { BoundLogin } from '../login/bound-login.js';

export interface CallOptions extends CommonOptions, HttpTimeoutOption {
  token?: string;
  request?: string;
  header?: string[];
  data?: string;
  insecure?: boolean;
  timeout?: number;
  profile?: string;
  config?: string;
  issuer?: string;
  authUrl?: string;
  tokenEndpoint?: string;
  clientId?: string;
  clientSecret?: string;
  protectedResource?: string;
  /** --dpop-key FILE: the key the token is bound to (RFC 9449): sent as `Authorization: DPoP` with a proof. */
  dpopKey?: string;
  /** false with --no-login: a 401 or 403 is reported, not answered with a login. */
  login?: boolean;
  headless?: boolean;
  username?: string;
  password?: string;
  /** false with --no-browser. */
  browser?: boolean;
  clientMetadataUrl?: string;
}

/**
 * Calls a protected resource with `Authorization: Bearer` (RFC 6750 section 2.1), or `Authorization:
 * DPoP` with a proof for a DPoP-bound token (RFC 9449 section 7.1: --dpop-key, or the cached login's key).
 * The token is --token, OAUTHCTL_ACCESS_TOKEN, or the cached login's (refreshed first when expired, and
 * once more on a 401).
 */
export async function runCall(url: string, options: CallOptions, io: IO): Promise<number> {
  const headers = parseHeaders(options.header ?? []);
  const body = options.data !== undefined ? await readData(options.data, io) : undefined;
  const method = (options.request ?? (body !== undefined ? 'POST' : 'GET')).toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`-X takes an HTTP method such as GET or POST, got ${JSON.stringify(options.request)}`);
  if (body !== undefined && !hasHeader(headers, 'content-type')) {
    headers['content-type'] = looksLikeJson(body) ? 'application/json' : 'application/x-www-form-urlencoded';
  }
  if (hasHeader(headers, 'authorization')) {
    throw new UsageError('give the token with --token, not as an Authorization header', 'oauthctl call URL --token T');
  }

  const [{ createRenderer }, { createHttpClient }, { bearerError }, { formatOAuthError, explainOAuthError }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/http/http.js'),
    import('../../oauth/www-authenticate.js'),
    import('../../oauth/errors.js'),
  ]);
  const renderer = createRenderer(io, options);
  const explicit = options.token ?? (io.env.OAUTHCTL_ACCESS_TOKEN || undefined);
  // A cached login's DPoP key (RFC 9449) and client certificate (RFC 8705): its tokens may be bound to them.
  // Without a selector, the login made for the protected resource that holds URL (RFC 9728) is found first, then the login of URL's server.
  const selector = { ...options, url, callUrl: url };
  const bound: BoundLogin = explicit === undefined ? await (await import('../login/bound-login.js')).boundLoginOf(selector, io.env) : {};
  if (options.dpopKey !== undefined) {
    const [{ loadDpopKey }, { DpopSession }] = await Promise.all([import('../../client/flows/keys.js'), import('../../client/flows/dpop.js')]);
    bound.dpop = new DpopSession(await loadDpopKey(options.dpopKey));
  }
  const http = createHttpClient({
    renderer,
    env: io.env,
    insecure: options.insecure,
    timeoutMs: options.timeout ? options.timeout * 1000 : httpTimeoutMs(options),
    clientCertificate: bound.clientCertificate,
  });
  // The resource's login runs where it can finish: a terminal, --headless, or --no-browser's printed URL.
  const canLogIn =
    explicit === undefined && options.login !== false && bound.dpop === undefined && (options.headless === true || options.browser === false || (io.stderr as { isTTY?: boolean }).isTTY === true);
  try {
    let accessToken: string | undefined;
    if (explicit !== undefined) {
      accessToken = explicit;
    } else {
      const [{ accessTokenFromCache }, { cachedTokenDestinationProblem }, { selectedProfileName }] = await Promise.all([
        import('../../client/cache/cached-login.js'),
        import('../../client/cache/cached-token-destination.js'),
        import('../../store/config-store.js'),
      ]);
      try {
        const cached = await accessTokenFromCache(selector, { http, env: io.env });
        // A cached token goes only where it was obtained for, unless a profile named says so.
        const problem = selectedProfileName(options.profile, io.env) === undefined ? cachedTokenDestinationProblem(cached.entry, url) : undefined;
        if (problem) throw new NoTokenForThisUrl(problem);
        accessToken = cached.accessToken;
      } catch (err) {
        // No usable login for this URL: the resource's 401 says where to log in (RFC 9728 section 5.1).
        const reason = err instanceof NoTokenForThisUrl ? err.refusal : err;
        if (!canLogIn || !(reason instanceof FlowError || err instanceof NoTokenForThisUrl)) throw reason;
        renderer.info(`no usable cached login (${(reason as Error).message}): calling without a token`);
      }
    }
    const { sendWithAccessToken } = await import('../../client/resources/resource-request.js');
    const send = (token: string | undefined) =>
      token === undefined
        ? http.request(url, { method, headers, ...(body !== undefined && { body }) })
        : sendWithAccessToken(http, url, { method, headers, ...(body !== undefined && { body }) }, token, bound.dpop, renderer);

    let response = await send(accessToken);
    if (response.status === 401 && explicit === undefined && accessToken !== undefined) {
      // The cached token was refused before it expired (revoked, or the clock is off): refresh once and retry.
      const { refreshAfterUnauthorized } = await import('../../client/cache/cached-login.js');
      renderer.info('the API answered 401; refreshing the cached token once and trying again');
      try {
        accessToken = (await refreshAfterUnauthorized(selector, accessToken, { http, env: io.env })).accessToken;
        response = await send(accessToken);
      } catch (err) {
        if (!canLogIn || !(err instanceof FlowError)) throw err;
        renderer.info(`no refresh (${err.message})`);
      }
    }
    if (canLogIn) response = await (await import('./call-authorize.js')).authorizeOnChallenge(url, response, send, options, { http, renderer, io });

    renderer.info(`${method} ${url} -> HTTP ${response.status}`);
    io.stdout.write(escapeForStream(io.stdout, formatBody(response.body, response.headers['content-type'] ?? '', io.stdout.isTTY === true)));
    if (response.status < 400) return 0;

    const wwwAuthenticate = response.headers['www-authenticate'];
    // Sent as Bearer, answered with a DPoP challenge only: the token is DPoP-bound (RFC 9449 section 7.1).
    const wantsDpop = !bound.dpop && bearerError(wwwAuthenticate, 'Bearer') === undefined && bearerError(wwwAuthenticate, 'DPoP') !== undefined;
    const challenge = bearerError(wwwAuthenticate, bound.dpop || wantsDpop ? 'DPoP' : 'Bearer');
    if (challenge?.error) {
      const meaning = wantsDpop ? 'the API wants DPoP: give --dpop-key FILE, the key the token is bound to' : explainOAuthError(challenge.error);
      const detail = formatOAuthError({ error: challenge.error, ...(challenge.error_description !== undefined && { error_description: challenge.error_description }) });
      const scope = challenge.scope ? `; the resource needs scope "${challenge.scope}"` : '';
      io.stderr.write(`oauthctl: error: ${escapeTerminal(`the API answered HTTP ${response.status}: ${detail}${scope}`)}${meaning ? ` (${meaning})` : ''}\n`);
    } else if (response.status === 401) {
      io.stderr.write(`oauthctl: error: the API answered HTTP 401 without an error code (no valid token was recognised; log in again or check --token)\n`);
    } else {
      io.stderr.write(`oauthctl: error: the API answered HTTP ${response.status}\n`);
    }
    return 1;
  } finally {
    await http.close();
  }
}

/** `Name: value` lines, as curl's -H takes them: a name given twice sends both values. */
function parseHeaders(lines: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
      throw new UsageError(`-H takes 'Name: value', got ${JSON.stringify(line)}`, "for example -H 'Accept: application/json'");
    }
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    const previous = out[key];
    out[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return out;
}

function hasHeader(headers: Record<string, string | string[]>, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(headers, name);
}

/** -d BODY, -d @FILE or -d @- (standard input), as curl reads them. */
async function readData(data: string, io: IO): Promise<string> {
  if (!data.startsWith('@')) return data;
  const source = data.slice(1);
  if (source === '-') {
    let text = '';
    for await (const chunk of io.stdin) text += String(chunk);
    return text;
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(source, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${source} for -d: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

function looksLikeJson(text: string): boolean {
  if (!/^\s*[{[]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The body as received; JSON is pretty-printed on a terminal. */
function formatBody(body: string, contentType: string, tty: boolean): string {
  if (tty && /json/i.test(contentType)) {
    try {
      return `${JSON.stringify(JSON.parse(body), null, 2)}\n`;
    } catch {
      // not JSON after all: printed as received
    }
  }
  return body === '' || body.endsWith('\n') ? body : `${body}\n`;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 3600) throw new UsageError(`--timeout must be a whole number of seconds from 1 to 3600, got ${JSON.stringify(value)}`);
  return n;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('call')
    .description('Call a protected API with Authorization: Bearer (or DPoP) and print the response body. Exit 1 on a status >= 400.')
    .argument('<URL>', 'the protected resource', parseHttpUrl('URL'))
    .option('--token <T>', 'the access token (also OAUTHCTL_ACCESS_TOKEN); default: the cached login, refreshed when needed')
    .option('-X, --request <METHOD>', 'HTTP method (default GET, or POST with -d)')
    .option('-H, --header <LINE>', "extra request header 'Name: value', may be repeated", collect)
    .option('-d, --data <BODY>', 'request body; @FILE reads a file, @- standard input')
    .option('--timeout <SECONDS>', 'give up on the request after this long (default 30; the same as --http-timeout)', parseSeconds)
    .option('--insecure', 'do not verify TLS certificates (test servers only)')
    .option('--dpop-key <FILE>', 'the DPoP key (P-256, PEM or JWK) the token is bound to: sends Authorization: DPoP with a proof (RFC 9449)')
    .option('--no-login', "on a 401 or a 403 insufficient_scope, report it instead of logging in from the resource's challenge")
    .option('--no-browser', 'for that login: print the authorization URL instead of opening a browser')
    .option('--headless', 'for that login: the built-in user agent (asks for --username and --password only when a login form appears)')
    .option('--username <U>', 'account name for a --headless login')
    .option('--password <P>', 'password for a --headless login (prefer OAUTHCTL_PASSWORD)')
    .option('--client-metadata-url <URL>', "for that login: the client's Client ID Metadata Document, where the server supports them", parseHttpUrl('--client-metadata-url'));
  addHttpTimeoutOption(addCachedLoginOptions(cmd)).option('--client-secret <S>', 'client secret for refreshing a cached confidential login (also OAUTHCTL_CLIENT_SECRET)');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl call http://127.0.0.1:9000/api/me --token "$ACCESS_TOKEN"
  $ oauthctl call http://127.0.0.1:9000/api/me --profile work
  $ oauthctl call http://127.0.0.1:9000/userinfo --profile work -X POST -H 'Accept: application/json' -H 'X-Request-Id: 7'`,
    )
    .action(async (url: string, options: CallOptions, command: Command) => {
      setExitCode(command, await runCall(url, options, io));
    });
}

/** The cached login is for another origin: its token is not sent here (a login for this URL may follow). */
class NoTokenForThisUrl extends Error {
  constructor(readonly refusal: UsageError) {
    super(refusal.message);
  }
}
