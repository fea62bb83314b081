import type { Command } from 'commander';
import { FlowError, UsageError } from '../../errors.js';
import type { RedirectReceiver } from '../../client/listeners/listener.js';
import type { UserAgent } from '../../client/flows/user-agent.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import type { HttpClient } from '../../client/http/http.js';
import type { Renderer } from '../../output/render.js';
import { addCommonOptions, parseInteger, parseHttpUrl, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { addCibaOptions, parseCibaOptions, type CibaOptionsInput } from '../options/ciba-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import type { IO } from '../../output/io.js';
import { escapeForStream } from '../../output/escape.js';
import { addHeadlessOptions, headlessUserAgentFor, wantsHeadless, type HeadlessOptionsInput } from '../options/headless-options.js';

export const DEFAULT_LOGIN_TIMEOUT_SECONDS = 300;

export interface LoginOptions extends FlowOptionsInput, CommonOptions, HeadlessOptionsInput, CibaOptionsInput {
  /** false with --no-browser */
  browser?: boolean;
  timeout?: number;
  json?: boolean;
  call?: string;
  /** --manual: print the URL and read the pasted redirect URL from stdin instead of listening. */
  manual?: boolean;
  /** false with --no-cache: do not keep the tokens for `oauthctl token`. */
  cache?: boolean;
  /** --device: the device authorization grant (RFC 8628) instead of the code flow. */
  device?: boolean;
  /** --token-store file|keyring|none (src/store/secret-store.ts). */
  tokenStore?: string | undefined;
}

/** Lets callers (tests, demo, --manual) replace the user agent or the source of the redirect. */
export interface LoginDependencies {
  userAgent?: UserAgent;
  receiveRedirect?: (config: FlowConfig) => Promise<RedirectReceiver>;
}

/** The whole flow: listener, browser, state check, code exchange; prints the token response. Returns the exit code. */
export async function runLogin(options: LoginOptions, io: IO, deps: LoginDependencies = {}): Promise<number> {
  // A bad --token-store or OAUTHCTL_TOKEN_STORE is refused before the login, not after it.
  (await import('../../store/secret-store.js')).chooseTokenStore(options.tokenStore, io.env);
  const profile =
    options.cache === false || options.call !== undefined || deps.userAgent !== undefined ? undefined : (await import('../../store/config-store.js')).selectedProfileName(options.profile, io.env);
  if (profile === undefined) return loginNow(options, io, deps);
  // One interactive login per cached login at a time (src/store/lock.ts): a run asked for while another
  // one logged in to the same profile uses its tokens instead of opening a second browser.
  const [{ withLoginLock }, { cachedTokensSavedAt, openTokenCache, readCachedTokens }] = await Promise.all([import('../../store/lock.js'), import('../../store/token-cache.js')]);
  const cache = openTokenCache(io.env);
  const key = { profile };
  const askedAt = io.startedAt ?? Date.now();
  const tell = (line: string) => io.stderr.write(`oauthctl: ${line}\n`);
  return withLoginLock(
    cache,
    key,
    async () => {
      // A login saved since this run was asked for (another run's, which held the lock or finished just
      // before this one took it: a run slow to start may never see the lock held) is used, not repeated.
      // One that cannot be read (damaged) is what this login replaces.
      const savedAt = cachedTokensSavedAt(cache, key);
      const entry = savedAt !== undefined && savedAt >= askedAt ? await readCachedTokens(cache, key).catch(() => undefined) : undefined;
      if (entry === undefined) return loginNow(options, io, deps);
      io.stderr.write(`oauthctl: another oauthctl logged in for profile ${profile} meanwhile: using its tokens\n`);
      const { printTokenResponse } = await import('../../output/tokens.js');
      const expiresIn = entry.expires_at !== undefined && entry.expires_at > 0 ? Math.max(0, entry.expires_at - Math.floor(Date.now() / 1000)) : undefined;
      const tokens = {
        access_token: entry.access_token,
        ...(entry.token_type !== undefined && { token_type: entry.token_type }),
        ...(expiresIn !== undefined && { expires_in: expiresIn }),
        ...(entry.refresh_token !== undefined && { refresh_token: entry.refresh_token }),
        ...(entry.scope !== undefined && { scope: entry.scope }),
        ...(entry.id_token !== undefined && { id_token: entry.id_token }),
      };
      printTokenResponse(io, tokens, options.json);
      return 0;
    },
    { timeoutMs: (options.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS) * 1000, tell },
  );
}

/** The login itself, without the lock: for a caller that already holds it (a helper logging in). */
export async function loginNow(options: LoginOptions, io: IO, deps: LoginDependencies = {}): Promise<number> {
  if (options.ciba) return (await import('./login-ciba.js')).runCibaLogin(options, io, (options.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS) * 1000);
  if (options.device) return (await import('./login-device.js')).runDeviceLogin(options, io, (options.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS) * 1000);
  // The CIBA flags alone (without --ciba) are a mistake said in one line.
  parseCibaOptions(options);
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    if (options.manual && wantsHeadless(options)) throw new UsageError('--manual and --headless cannot be used together', 'give one of them');
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'both' });
    const manual = options.manual ? await import('../../agent/paste-redirect.js') : undefined;
    const [{ runAuthorizationCodeFlow }, userAgent] = await Promise.all([import('../../client/flows/flow.js'), deps.userAgent ?? manual?.manualUserAgent ?? chooseUserAgent(options, io)]);
    const receiveRedirect = deps.receiveRedirect ?? manual?.pastedRedirectReceiver(io);
    const result = await runAuthorizationCodeFlow({
      config,
      userAgent,
      ...(receiveRedirect ? { receiveRedirect } : {}),
      timeoutMs: (options.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS) * 1000,
      http,
      renderer,
      io,
    });
    // The ID token is checked (OpenID Connect Core 3.1.3.7) and the tokens cached for `oauthctl token`.
    await (await import('./after-login.js')).afterLogin({ config, tokens: result.tokenResponse, http, renderer, io, profile: options.profile, cache: options.cache, tokenStore: options.tokenStore });
    const { printTokenResponse } = await import('../../output/tokens.js');
    if (options.call !== undefined) {
      return await callApi(http, renderer, io, options.call, result.tokenResponse.access_token, options.json === true, () => printTokenResponse(io, result.tokenResponse, true));
    }
    printTokenResponse(io, result.tokenResponse, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

/** The system browser, with --no-browser the URL printed on stderr, with --headless the built-in agent. */
export async function chooseUserAgent(options: LoginOptions, io: IO): Promise<UserAgent> {
  if (wantsHeadless(options)) return headlessUserAgentFor(options, io.env, async (url, given) => (await import('../options/prompt.js')).askAccount(io, url, given));
  if (options.browser === false) return (await import('../../agent/print-url.js')).printUrlUserAgent;
  return (await import('../../agent/browser.js')).systemBrowserUserAgent;
}

/**
 * --call URL: a GET with the new access token (RFC 6750 section 2.1). Its body is the result on stdout;
 * with --json the token response stays the one document on stdout and the body is shown on stderr.
 */
async function callApi(http: HttpClient, renderer: Renderer, io: IO, url: string, accessToken: string, json: boolean, printTokensJson: () => void): Promise<number> {
  renderer.step('API call');
  renderer.info(`GET ${url}`);
  const res = await http.request(url, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  renderer.info(`HTTP ${res.status}`);
  if (json) {
    printTokensJson();
    renderer.info(res.body);
  } else {
    // Escaped on a terminal, byte for byte when piped, as `call URL` prints it.
    io.stdout.write(escapeForStream(io.stdout, res.body.endsWith('\n') || res.body === '' ? res.body : `${res.body}\n`));
  }
  if (res.status >= 400) {
    const challenge = res.headers['www-authenticate'];
    throw new FlowError(`the API answered HTTP ${res.status}${challenge ? ` (WWW-Authenticate: ${challenge})` : ''}`, apiStatusHint(res.status));
  }
  return 0;
}

/** Only a refused token (401, 403) is about the scope or audience; a 404 is about the URL. */
function apiStatusHint(status: number): string {
  if (status === 401 || status === 403) return 'check the scope and the token audience';
  if (status === 404) return 'no such resource: check the --call URL';
  return 'see the response body above';
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('login').description('Run the whole authorization-code flow: loopback listener, browser, state check, code exchange.');
  addFlowOptions(cmd)
    .option('--no-browser', 'print the authorization URL instead of opening a browser, then wait')
    .option('--timeout <SECONDS>', `give up waiting for the redirect after this many seconds (default ${DEFAULT_LOGIN_TIMEOUT_SECONDS})`, parseInteger('--timeout', 1, 86_400))
    .option('--json', 'print the token response exactly as received')
    .option('--call <URL>', 'then call this protected API with the access token', parseHttpUrl('--call'))
    .option('--manual', 'no listener: print the URL, then read the URL the browser was redirected to from stdin (another machine, or a custom-scheme redirect URI)')
    .option('--no-cache', 'do not keep the tokens for `oauthctl token`, `status`, `call` and `logout`')
    .option('--device', 'the device authorization grant (RFC 8628): show a code to enter at the server, then poll; no browser needed on this machine')
    .option('--token-store <STORE>', 'where the tokens are kept: file (default), keyring (the OS keychain) or none (also OAUTHCTL_TOKEN_STORE, or the profile)');
  addCibaOptions(cmd);
  addHeadlessOptions(cmd, io.env);
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl login --auth-url http://127.0.0.1:9000 --client-id photo-cli --pkce --scope photo
  $ oauthctl login --issuer http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret --scope "openid profile"
  $ oauthctl login --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope photo --no-browser --json
  $ oauthctl login --auth-url http://127.0.0.1:9000 --client-id photo-cli --pkce --scope photo --headless --username alice --password wonderland
  $ oauthctl login --device --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope photo --headless --username alice --password wonderland
  $ oauthctl login --ciba --login-hint alice --binding-message "Order 42" --auth-url http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret
  $ BROWSER=firefox oauthctl login --issuer http://127.0.0.1:9000 --client-id photo-cli --scope photo --redirect-uri http://127.0.0.1:8765/callback
  $ oauthctl login --auth-url http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret --scope photo --no-pkce   # a server that rejects PKCE`,
    )
    .action(async (options: LoginOptions, command: Command) => {
      setExitCode(command, await runLogin(options, io));
    });
}
