import type { Command } from 'commander';
import { FlowError } from '../../errors.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import type { HttpClient } from '../../client/http/http.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import { formatScope, parseScope } from '../../oauth/scope.js';
import { selectedProfileName } from '../../store/config-store.js';
import type { Renderer } from '../../output/render.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import type { IO } from '../../output/io.js';

export interface RefreshOptions extends FlowOptionsInput, CommonOptions {
  /** Without it, the refresh token of the cached login. */
  refreshToken?: string;
  json?: boolean;
}

/**
 * One refresh_token token request (RFC 6749 section 6); --scope narrows the scope. The refresh token is
 * --refresh-token or the cached login's; whenever it is the cached one, the new tokens are written back
 * under the cache lock, so that a rotated refresh token never stays behind spent (RFC 9700 section 4.14.2).
 */
export async function runRefresh(options: RefreshOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const scope = options.scope?.length ? formatScope(parseScope(options.scope)) : undefined;
    const tokens = options.refreshToken === undefined ? await refreshCachedLogin(options, io, http, renderer, scope) : await refreshGiven(options, options.refreshToken, io, http, renderer);
    const { narrateTokenResponse, printTokenResponse, warnScopesNotGranted } = await import('../../output/tokens.js');
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
    if (scope) warnScopesNotGranted(renderer, parseScope(scope), tokens);
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

/** `refresh` with no --refresh-token: the cached login the options name (or the only one). */
async function refreshCachedLogin(options: RefreshOptions, io: IO, http: HttpClient, renderer: Renderer, scope: string | undefined): Promise<TokenResponse> {
  const [{ findCachedLogin, createRefresher }, { describeKey }, { refreshCachedNow }] = await Promise.all([
    import('../../client/cache/cached-login.js'),
    import('../../store/token-cache.js'),
    import('../../store/token-refresh.js'),
  ]);
  const found = await findCachedLogin(options, io.env);
  if (!found.entry) {
    throw new FlowError('no login is cached to refresh', 'give --refresh-token R, or log in first: oauthctl login --profile NAME (or with the flow options)');
  }
  renderer.step('Token request');
  renderer.info(`POST ${found.entry.token_endpoint} (grant_type=refresh_token of the cached login, ${describeKey(found.key)}${scope ? `, scope=${scope}` : ''})`);
  const result = await refreshCachedNow(found.cache, found.key, { refresh: createRefresher(http, options, io.env, scope) });
  renderer.info(`the new tokens are cached for ${describeKey(found.key)}`);
  return (result.response ?? { access_token: result.accessToken }) as TokenResponse;
}

/** `refresh --refresh-token R`: the flow options say where; when R is the cached login's, the cache is updated too. */
async function refreshGiven(options: RefreshOptions, refreshToken: string, io: IO, http: HttpClient, renderer: Renderer): Promise<TokenResponse> {
  const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
  const [{ requestToken }, { openTokenCache, readCachedTokens, serverOf }, { refreshCachedNow }] = await Promise.all([
    import('../../client/flows/token.js'),
    import('../../store/token-cache.js'),
    import('../../store/token-refresh.js'),
  ]);
  const scope = config.scopes.length > 0 ? formatScope(config.scopes) : undefined;
  renderer.step('Token request');
  renderer.info(`POST ${config.tokenEndpoint} (grant_type=refresh_token${scope ? `, scope=${scope}` : ''}, client authentication: ${config.authMethod})`);
  const send = () => requestToken(http, config, { grant_type: 'refresh_token', refresh_token: refreshToken, scope }, { renderer });
  const cache = openTokenCache(io.env);
  const profile = selectedProfileName(options.profile, io.env);
  const key = profile !== undefined ? { profile } : { issuer: serverOf(config), clientId: config.clientId };
  const cached = await readCachedTokens(cache, key).catch(() => undefined);
  if (cached?.refresh_token !== refreshToken || !sameClient(cached, config)) return send();
  const result = await refreshCachedNow(cache, key, { refresh: send });
  renderer.info('that refresh token was the cached login\u2019s: the new tokens are cached in its place');
  return (result.response ?? { access_token: result.accessToken }) as TokenResponse;
}

function sameClient(entry: { client_id: string; token_endpoint: string }, config: FlowConfig): boolean {
  return entry.client_id === config.clientId && entry.token_endpoint === config.tokenEndpoint;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('refresh')
    .description("Use a refresh token to get new tokens (one token request): --refresh-token R, or the cached login's, whose cache is then updated.")
    .option('--refresh-token <R>', "the refresh token (default: the cached login's; --profile or --auth-url/--issuer with --client-id say which)");
  addFlowOptions(cmd).option('--json', 'print the token response exactly as received');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl refresh --profile mock --json
  $ oauthctl refresh --profile mock --scope photo
  $ oauthctl refresh --refresh-token "$RT" --auth-url http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret --scope photo --json`,
    )
    .action(async (options: RefreshOptions, command: Command) => {
      setExitCode(command, await runRefresh(options, io));
    });
}
