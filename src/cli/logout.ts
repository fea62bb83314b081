import type { Command } from 'commander';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from './http-timeout.js';
import { FlowError, UsageError } from '../errors.js';
import { explainOAuthError, parseOAuthErrorBody } from '../oauth/errors.js';
import { postAuthenticated } from '../client/endpoint-request.js';
import { revocationParams, type TokenTypeHint } from '../oauth/revocation.js';
import type { ClientAuthMethod } from '../oauth/token-request.js';
import type { CachedLoginSelector } from '../client/cached-login.js';
import type { HttpClient } from '../client/http.js';
import type { CachedTokens } from '../store/token-cache.js';
import { printJson, type Renderer } from '../output/render.js';
import { addCachedLoginOptions } from './cached-login-options.js';
import { addCommonOptions, parseHttpUrl, setExitCode, type CommonOptions } from './command.js';
import type { IO } from '../output/io.js';

export interface LogoutOptions extends CachedLoginSelector, CommonOptions, HttpTimeoutOption {
  revoke?: boolean;
  revocationEndpoint?: string;
  insecure?: boolean;
  json?: boolean;
}

export interface LogoutResult {
  forgotten: boolean;
  revocation_endpoint?: string;
  revoked: TokenTypeHint[];
}

/**
 * Revokes the cached tokens (RFC 7009) where the server offers a revocation endpoint, then forgets
 * them. The refresh token goes first: revoking it may also revoke its access tokens (section 2.1).
 */
export async function runLogout(options: LogoutOptions, io: IO): Promise<number> {
  const [{ createRenderer }, { createHttpClient }, { findCachedLogin }, { forgetTokens, describeKey }] = await Promise.all([
    import('../output/render.js'),
    import('../client/http.js'),
    import('../client/cached-login.js'),
    import('../store/token-cache.js'),
  ]);
  const renderer = createRenderer(io, options);
  const found = await findCachedLogin(options, io.env);
  const result: LogoutResult = { forgotten: false, revoked: [] };
  if (!found.entry) {
    renderer.info(`Nothing to log out: no tokens are cached${found.key.profile !== undefined || found.key.clientId !== undefined ? ` for ${describeKey(found.key)}` : ''}.`);
    if (options.json) printJson(io, result);
    return 0;
  }
  const entry = found.entry;
  if (options.revoke !== false) {
    const http = createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: httpTimeoutMs(options) });
    try {
      const endpoint = options.revocationEndpoint ?? (await revocationEndpointOf(entry, options, io, http, renderer));
      if (endpoint === undefined) {
        renderer.warn('the server offers no revocation endpoint (RFC 7009): the tokens are forgotten here but stay valid until they expire');
      } else {
        result.revocation_endpoint = endpoint;
        const client = { clientId: entry.client_id, authMethod: entry.auth_method as ClientAuthMethod, clientSecret: await clientSecretFor(entry, options, io) };
        renderer.step('Token revocation');
        const tokens: [TokenTypeHint, string | undefined][] = [
          ['refresh_token', entry.refresh_token],
          ['access_token', entry.access_token],
        ];
        for (const [hint, token] of tokens) {
          if (token === undefined) continue;
          await revoke(http, endpoint, client, token, hint);
          renderer.ok(`${hint} revoked at ${endpoint}`);
          result.revoked.push(hint);
        }
      }
    } finally {
      await http.close();
    }
  }
  result.forgotten = await forgetTokens(found.cache, found.key);
  renderer.ok(`Forgot the cached tokens of ${describeKey(found.key)}`);
  if (options.json) printJson(io, result);
  return 0;
}

/** --revocation-endpoint, the entry's (saved at login from discovery), the profile's, or discovery now. */
async function revocationEndpointOf(entry: CachedTokens, options: LogoutOptions, io: IO, http: HttpClient, renderer: Renderer): Promise<string | undefined> {
  if (entry.revocation_endpoint !== undefined) return entry.revocation_endpoint;
  if (entry.profile !== undefined) {
    const { loadSelectedProfile } = await import('../store/config-store.js');
    const selection = await loadSelectedProfile({ profile: entry.profile, config: options.config }, io.env).catch(() => undefined);
    if (selection?.profile.revocation_endpoint !== undefined) return selection.profile.revocation_endpoint;
  }
  // Without a known issuer (a login with --auth-url), the token endpoint's base is tried as one: the
  // metadata is only used when its issuer says exactly that (RFC 8414 section 3.3).
  const issuer = entry.issuer ?? entry.token_endpoint.replace(/\/[^/]*$/, '');
  const { discoverMetadata } = await import('../client/endpoints.js');
  try {
    return (await discoverMetadata(http, issuer)).metadata.revocation_endpoint;
  } catch (err) {
    if (entry.issuer !== undefined) renderer.warn(`discovery at ${entry.issuer} failed (${(err as Error).message}); cannot find a revocation endpoint`);
    return undefined;
  }
}

async function clientSecretFor(entry: CachedTokens, options: LogoutOptions, io: IO): Promise<string | undefined> {
  if (entry.auth_method === 'none') return undefined;
  const fromFlags = options.clientSecret ?? (io.env.OAUTHCTL_CLIENT_SECRET || undefined);
  if (fromFlags !== undefined) return fromFlags;
  if (entry.profile !== undefined) {
    const { loadSelectedProfile, profileClientSecret } = await import('../store/config-store.js');
    const selection = await loadSelectedProfile({ profile: entry.profile, config: options.config }, io.env).catch(() => undefined);
    const secret = selection ? profileClientSecret(selection.name, selection.profile, io.env) : undefined;
    if (secret !== undefined) return secret;
  }
  throw new UsageError(`revoking needs the client secret of ${entry.client_id} (${entry.auth_method})`, 'give --client-secret or set OAUTHCTL_CLIENT_SECRET, or --no-revoke to only forget the tokens');
}

async function revoke(
  http: HttpClient,
  endpoint: string,
  client: { clientId: string; authMethod: ClientAuthMethod; clientSecret: string | undefined },
  token: string,
  hint: TokenTypeHint,
): Promise<void> {
  const res = await postAuthenticated(http, client, endpoint, revocationParams(token, hint));
  // RFC 7009 section 2.2: 200 whether or not the token was valid.
  if (res.status === 200) return;
  let error: ReturnType<typeof parseOAuthErrorBody>;
  try {
    error = parseOAuthErrorBody(JSON.parse(res.body));
  } catch {
    error = undefined;
  }
  const what = error ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''}` : `HTTP ${res.status}`;
  const meaning = error ? explainOAuthError(error.error) : undefined;
  throw new FlowError(`revoking the ${hint} failed: ${what}${meaning ? ` (${meaning})` : ''}`, 'the tokens are still cached; try again, or use --no-revoke to only forget them');
}

export function register(program: Command, io: IO): void {
  const cmd = program.command('logout').description('Revoke the cached tokens at the server (RFC 7009, when it offers revocation) and forget them.');
  addHttpTimeoutOption(addCachedLoginOptions(cmd))
    .option('--client-secret <S>', 'client secret a confidential client revokes with (also OAUTHCTL_CLIENT_SECRET, or the profile)')
    .option('--revocation-endpoint <URL>', 'revoke here instead of the endpoint from discovery', parseHttpUrl('--revocation-endpoint'))
    .option('--no-revoke', 'only forget the tokens, do not revoke them')
    .option('--insecure', 'do not verify TLS certificates (test servers only)')
    .option('--json', 'print {"forgotten","revocation_endpoint","revoked"}');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl logout --profile work
  $ oauthctl logout --profile work --no-revoke`,
    )
    .action(async (options: LogoutOptions, command: Command) => {
      setExitCode(command, await runLogout(options, io));
    });
}
