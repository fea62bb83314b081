import { Option, type Command } from 'commander';
import { FlowError, UsageError } from '../../errors.js';
import type { HttpClient } from '../../client/http/http.js';
import type { McpAnswer } from '../../client/mcp/transport.js';
import type { McpTokenState } from '../../client/mcp/dpop-authorization.js';
import { MCP_VERSIONS } from '../../oauth/mcp-jsonrpc.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import { addCommonOptions, parseHttpUrl, parseInteger, setExitCode } from '../program/command.js';
import { addFlowOptions } from '../options/flow-options.js';
import { addBrowserDriverOptions, addCredentialOptions } from '../options/headless-options.js';
import { MAX_AUTHORIZATIONS, type McpAuthorizationOptions } from './mcp-authorize.js';
import { methodParams } from './mcp-params.js';

export interface McpOptions extends McpAuthorizationOptions {
  /** --arguments JSON|@FILE: the tool's or prompt's arguments. */
  arguments?: string | undefined;
  json?: boolean;
  /** false with --no-login: a 401 or 403 is reported, not answered with an authorization. */
  login?: boolean | undefined;
  /** --mcp-version: the one revision to speak. */
  mcpVersion?: string | undefined;
  /** --input JSON|@FILE: the responses to the server's input requests. */
  input?: string | undefined;
}

const SPEC = 'MCP authorization 2025-11-25';

/**
 * An MCP client over Streamable HTTP for debugging authorization: METHOD in the 2026-07-28 revision, or
 * initialize, notifications/initialized, then METHOD in an earlier one (src/cli/mcp/mcp-exchange.ts); a 401 or a 403 insufficient_scope on the way is answered with an authorization
 * (src/cli/mcp/mcp-authorize.ts), each step narrated on stderr. stdout: the method's JSON-RPC result.
 */
export async function runMcp(url: string, method: string, name: string | undefined, options: McpOptions, io: IO): Promise<number> {
  const params = await methodParams(method, name, options.arguments);
  const mcpVersion = parseMcpVersion(options.mcpVersion);
  const input = await (await import('./mcp-input.js')).parseInput(options.input);
  const { renderer, http } = await mcpRuntime(options, io);
  try {
    const [{ McpSession }, { resourceChallenge }, { exchange }, { mcpAuthorization }] = await Promise.all([
      import('../../client/mcp/transport.js'),
      import('../../oauth/resource-metadata.js'),
      import('./mcp-exchange.js'),
      import('../../client/mcp/dpop-authorization.js'),
    ]);
    const state = await cachedToken(url, options, http, io, renderer);
    const session = new McpSession(http, url, mcpAuthorization(state, url));
    let authorizations = 0;
    let refreshed = false;
    const send = async (what: string, call: () => Promise<McpAnswer>): Promise<McpAnswer> => {
      let nonceRetried = false;
      for (;;) {
        const answer = await call();
        if (answer.status !== 401 && answer.status !== 403) return answer;
        // RFC 9449 section 9: the MCP server wants its nonce in the proof; the request is sent again once with it.
        if (state.dpop !== undefined && !nonceRetried && (await import('../../client/flows/dpop.js')).asksForDpopNonce({ ...answer, body: '' })) {
          nonceRetried = true;
          renderer.info(`HTTP 401 use_dpop_nonce to ${what}: sending it again with the MCP server's DPoP nonce (RFC 9449 section 9)`);
          continue;
        }
        const challenge = resourceChallenge(answer.headers['www-authenticate']);
        if (answer.status === 403 && challenge.error !== 'insufficient_scope') return answer;
        renderer.step(
          answer.status === 401
            ? `HTTP 401 to ${what}${challenge.error ? ` (${challenge.error})` : ''}: authorization needed (${SPEC}, Authorization Flow Steps)`
            : `HTTP 403 insufficient_scope to ${what}${challenge.scope ? `: it asks for "${challenge.scope}"` : ''} (${SPEC}, Scope Challenge Handling)`,
        );
        if (options.login === false) return answer;
        // RFC 6750 section 3.1: an expired or revoked token is refreshed once before a new login.
        if (answer.status === 401 && state.token !== undefined && state.resource !== undefined && !refreshed) {
          refreshed = true;
          const again = await refreshCached(state.resource, state.token, options, http, io, renderer);
          if (again !== undefined) {
            state.token = again;
            continue;
          }
        }
        if (authorizations >= MAX_AUTHORIZATIONS) {
          throw new FlowError(
            `the MCP server still answers HTTP ${answer.status} to ${what} after ${MAX_AUTHORIZATIONS} authorizations: giving up`,
            `${SPEC}, Scope Challenge Handling: a client limits its retries; see the challenges above`,
          );
        }
        authorizations++;
        const { authorizeMcp } = await import('./mcp-authorize.js');
        const got = await authorizeMcp(url, { ...answer, method: 'POST' }, options, { http, renderer, io }, answer.status === 403 ? state.scopes : undefined);
        Object.assign(state, { token: got.accessToken, scopes: got.scopes, resource: url, dpop: got.dpop });
      }
    };
    return await exchange(method, params, { mcpVersion, input, json: options.json, verbose: options.verbose }, { session, renderer, io, send });
  } finally {
    await http.close();
  }
}

/** --mcp-version: one of the revisions oauthctl speaks. */
function parseMcpVersion(value: string | undefined): string | undefined {
  if (value === undefined || MCP_VERSIONS.includes(value)) return value;
  throw new UsageError(
    `--mcp-version ${JSON.stringify(value.slice(0, 40))} is not a revision oauthctl speaks`,
    `give one of ${MCP_VERSIONS.join(', ')}, or leave it out to speak the newest the server speaks`,
  );
}

/**
 * The renderer and HTTP client, as createFlowRuntime makes them, without loading the flow pipeline: a
 * run with a cached token needs none of it (the authorization loads it when a 401 comes).
 */
async function mcpRuntime(options: McpOptions, io: IO): Promise<{ renderer: Renderer; http: HttpClient }> {
  const [{ createRenderer }, { createHttpClient }, { httpTimeoutMs }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/http/http.js'),
    import('../options/http-timeout.js'),
  ]);
  const renderer = createRenderer(io, { verbose: options.verbose, color: options.color, showSecrets: options.showSecrets });
  const clientCertificate =
    options.tlsCert !== undefined || options.tlsKey !== undefined ? await (await import('../../client/flows/keys.js')).readClientCertificate(options.tlsCert, options.tlsKey) : undefined;
  const http = createHttpClient({ insecure: options.insecure, renderer, env: io.env, timeoutMs: httpTimeoutMs(options), clientCertificate });
  return { renderer, http };
}

interface TokenState extends McpTokenState {
  scopes?: string[] | undefined;
  /** The resource the token is cached under. */
  resource?: string | undefined;
}

/** The login cached for this MCP server (`mcp`, or `login --protected-resource`), renewed when expired; none is fine. */
async function cachedToken(url: string, options: McpOptions, http: HttpClient, io: IO, renderer: Renderer): Promise<TokenState> {
  if (options.cache === false) return {};
  const [{ openTokenCache, listCachedTokens }, { compareResource }, { accessTokenFromCache }, { CliError }] = await Promise.all([
    import('../../store/token-cache.js'),
    import('../../oauth/resource-metadata.js'),
    import('../../client/cache/cached-login.js'),
    import('../../errors.js'),
  ]);
  const all = await listCachedTokens(openTokenCache(io.env));
  const found = all.find(({ entry }) => entry.resource === url) ?? all.find(({ entry }) => entry.resource !== undefined && compareResource(url, entry.resource) === 'prefix');
  if (found === undefined) return {};
  const resource = found.entry.resource!;
  try {
    const valid = await accessTokenFromCache({ protectedResource: resource, clientSecret: options.clientSecret }, { http, env: io.env });
    // A DPoP-bound login presents the key it was bound to (RFC 9449 section 7.1).
    const dpop =
      (found.entry.token_type ?? 'Bearer').toLowerCase() === 'dpop' ? (await (await import('../login/bound-login.js')).boundLoginOf({ protectedResource: resource }, io.env)).dpop : undefined;
    if (dpop === undefined && (options.dpop === true || options.dpopKey !== undefined)) {
      renderer.info(`the login cached for ${resource} is not DPoP-bound: authorizing anew for a DPoP-bound token (--dpop)`);
      return {};
    }
    renderer.info(`Using the ${dpop ? 'DPoP-bound ' : ''}login cached for ${resource}`);
    return { token: valid.accessToken, scopes: found.entry.scope?.split(' ').filter(Boolean), resource, dpop };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    renderer.info(`the login cached for ${resource} cannot be used (${err.message}): authorizing anew`);
    return {};
  }
}

/** After a 401 to a cached token: one refresh (RFC 6749 section 6), undefined when none can be had. */
async function refreshCached(resource: string, rejected: string, options: McpOptions, http: HttpClient, io: IO, renderer: Renderer): Promise<string | undefined> {
  const [{ refreshAfterUnauthorized }, { CliError }] = await Promise.all([import('../../client/cache/cached-login.js'), import('../../errors.js')]);
  try {
    const again = await refreshAfterUnauthorized({ protectedResource: resource, clientSecret: options.clientSecret }, rejected, { http, env: io.env });
    renderer.ok('refreshed the cached login');
    return again.accessToken;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    renderer.info(`no refresh (${err.message}): authorizing anew`);
    return undefined;
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('mcp')
    .description('An MCP client over Streamable HTTP that authorizes as the MCP specification says: METHOD (tools/list by default) in the newest revision the server speaks; every step on stderr.')
    .argument('<URL>', "the MCP server's endpoint", parseHttpUrl('URL'))
    .argument('[METHOD]', 'tools/list (default), tools/call NAME, resources/list, resources/read URI, prompts/list, prompts/get NAME, server/discover', 'tools/list')
    .argument('[NAME]', 'the tool or prompt name, or the resource URI');
  addFlowOptions(cmd)
    .option('--arguments <JSON|@FILE>', "the tool's or prompt's arguments, a JSON object")
    .option('--mcp-version <REVISION>', `speak this MCP revision only (${MCP_VERSIONS.join(', ')}); by default the newest, falling back to what the server speaks`)
    .option('--input <JSON|@FILE>', "the responses to the server's requests for input, by key (elicitation/create under the earlier revisions)")
    .option('--client-metadata-url <URL>', "the client's Client ID Metadata Document, used as client_id where the server announces support", parseHttpUrl('--client-metadata-url'))
    .option('--client-credentials', 'the client credentials grant (the MCP extension for machine clients) instead of a login')
    .option('--id-token <T|@FILE>', 'cross-app access: the identity provider ID token to exchange for an ID-JAG')
    .option('--idp-token-endpoint <URL>', "the identity provider's token endpoint (token exchange, RFC 8693)", parseHttpUrl('--idp-token-endpoint'))
    .option('--idp-issuer <URL>', "the identity provider's issuer, whose metadata names its token endpoint", parseHttpUrl('--idp-issuer'))
    .option('--idp-client-id <ID>', "the client's id at the identity provider")
    .option('--idp-client-secret <S>', "the client's secret at the identity provider")
    .option('--assertion <JWT|@FILE>', 'workload identity: the JWT bearer grant (RFC 7523 section 2.1) with the JWT the workload holds')
    .option('--no-login', 'report a 401 or 403 instead of authorizing')
    .option('--no-browser', 'print the authorization URL instead of opening a browser, then wait')
    .option('--timeout <SECONDS>', 'give up waiting for the redirect after this many seconds (default 300)', parseInteger('--timeout', 1, 86_400))
    .option('--no-cache', 'neither use nor keep a cached login')
    .addOption(new Option('--token-store <STORE>', 'where the tokens are kept: file (default), keyring or none'))
    .option('--json', 'print the result as exactly one JSON document');
  // --headless asks for an account only when a login form appears: no check of --username up front.
  cmd.option('--headless', 'authorize with the built-in user agent instead of a browser (redirects, HTML forms, cookies; for CI)');
  addCredentialOptions(cmd).addOption(new Option('--consent <ANSWER>', 'answer to the consent page with --headless (default approve)').choices(['approve', 'deny']));
  addBrowserDriverOptions(cmd);
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl mcp http://127.0.0.1:9000/api/mcp --headless --username alice --password wonderland
  $ oauthctl mcp http://127.0.0.1:9000/api/mcp tools/call echo --arguments '{"text":"hi"}' --headless
  $ oauthctl mcp http://127.0.0.1:9000/api/mcp tools/call whoami --client-credentials --client-id photo-service --client-secret photo-service-secret`,
    )
    .action(async (url: string, method: string, name: string | undefined, options: McpOptions, command: Command) => {
      setExitCode(command, await runMcp(url, method, name, options, io));
    });
}
