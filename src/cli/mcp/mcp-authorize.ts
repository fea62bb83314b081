import { FlowError, UsageError } from '../../errors.js';
import type { McpAuthorizationServer } from '../../client/mcp/authorization-server.js';
import type { McpClientIdentity } from '../../client/mcp/client-identity.js';
import type { HttpClient } from '../../client/http/http.js';
import type { FirstAnswer } from '../../client/resources/protected-resource.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import type { DpopSession } from '../../client/flows/dpop.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import type { CommonOptions } from '../program/command.js';
import type { FlowOptionsInput } from '../options/flow-options.js';
import type { HeadlessOptionsInput } from '../options/headless-options.js';

/** The options of `oauthctl mcp` that decide how it authorizes. */
export interface McpAuthorizationOptions extends FlowOptionsInput, HeadlessOptionsInput, CommonOptions {
  /** --client-metadata-url: the client's Client ID Metadata Document, used where the server supports it. */
  clientMetadataUrl?: string | undefined;
  /** --client-credentials: the client credentials grant instead of a user's login. */
  clientCredentials?: boolean | undefined;
  /** Cross-app access: the identity provider's ID token (or @FILE), its token endpoint (or issuer) and client. */
  idToken?: string | undefined;
  idpTokenEndpoint?: string | undefined;
  idpIssuer?: string | undefined;
  idpClientId?: string | undefined;
  idpClientSecret?: string | undefined;
  /** --assertion JWT|@FILE: the JWT bearer grant (RFC 7523 section 2.1) with the workload's JWT. */
  assertion?: string | undefined;
  /** false with --no-browser. */
  browser?: boolean | undefined;
  timeout?: number | undefined;
  /** false with --no-cache. */
  cache?: boolean | undefined;
  tokenStore?: string | undefined;
}

/** The authorizations one command makes at most: a refusal that a new login does not cure stops there (MCP authorization 2025-11-25, Scope Challenge Handling). */
export const MAX_AUTHORIZATIONS = 3;

export interface Authorized {
  accessToken: string;
  /** What the token was granted (its response's scope), else what was asked. */
  scopes: string[];
  /** The key a DPoP-bound token is bound to (RFC 9449): every MCP request carries a proof made with it. */
  dpop?: DpopSession | undefined;
}

interface Context {
  http: HttpClient;
  renderer: Renderer;
  io: IO;
}

/**
 * One authorization for an MCP server, from its 401 or 403 (MCP authorization 2025-11-25): the
 * authorization server found from the challenge, the client's identity, the scope, then the grant the
 * options ask for (authorization code with PKCE S256 and the resource indicator, client credentials, or
 * cross-app access); the tokens cached under the resource, as `login --protected-resource` caches them.
 * `stepUp` is the scope the token had when a 403 asked for more: the new request asks for both.
 */
export async function authorizeMcp(url: string, answer: FirstAnswer, options: McpAuthorizationOptions, ctx: Context, stepUp?: readonly string[], replaced = false): Promise<Authorized> {
  const { http, renderer, io } = ctx;
  if (options.pkce === false) throw new UsageError('--no-pkce cannot be used with mcp', 'MCP authorization 2025-11-25 requires PKCE with S256 (Authorization Code Protection)');
  const [{ findAuthorizationServer }, { chooseClientIdentity, chooseScope }, { DEFAULT_REDIRECT_URI }] = await Promise.all([
    import('../../client/mcp/authorization-server.js'),
    import('../../client/mcp/client-identity.js'),
    import('../options/flow-options.js'),
  ]);
  const server = await findAuthorizationServer(http, url, answer, renderer, options.issuer);
  const machine = options.clientCredentials === true || options.idToken !== undefined || options.assertion !== undefined;

  renderer.step('Scope (MCP authorization 2025-11-25, Scope Selection Strategy)');
  let scopes: string[];
  if (options.scope !== undefined) {
    scopes = options.scope.flatMap((s) => s.split(/[\s+]+/)).filter(Boolean);
    renderer.info(`scope: ${scopes.join(' ')} (--scope)`);
  } else {
    const chosen = chooseScope(server.challengeScope, server.scopesSupported, machine ? undefined : server.metadata?.scopes_supported);
    scopes = stepUp === undefined ? chosen.scopes : [...new Set([...stepUp, ...chosen.scopes])];
    const why = stepUp === undefined ? chosen.from : `the token's scope and the 403's (Scope Challenge Handling)`;
    renderer.info(scopes.length > 0 ? `scope: ${scopes.join(' ')} (${why})` : `no scope sent (${chosen.from})`);
  }

  const redirectUri = options.redirectUri ?? DEFAULT_REDIRECT_URI;
  if (machine && (options.clientId === undefined || options.clientId === '')) {
    throw new UsageError(
      `${options.clientCredentials ? '--client-credentials' : options.assertion !== undefined ? '--assertion' : '--id-token'} needs the pre-registered client: --client-id`,
      'give --client-id and --client-secret (or --signing-key)',
    );
  }
  await bindGivenCredentials(options, server.issuer, io, renderer);
  const identity = await chooseClientIdentity({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    clientMetadataUrl: options.clientMetadataUrl,
    issuer: server.issuer,
    metadata: server.metadata,
    registrationEndpoint: server.registrationEndpoint,
    redirectUri,
    http,
    env: io.env,
    renderer,
  });
  try {
    const dpop = (await import('./mcp-dpop.js')).wantsDpop(options, server, answer, renderer);
    return await authorizeAs(identity, server, scopes, redirectUri, machine, { ...options, dpop }, ctx);
  } catch (err) {
    const { isUnknownClientError } = await import('../../client/resources/kept-registration.js');
    if (!isUnknownClientError(err) || (identity.how !== 'kept-registration' && identity.how !== 'registered')) throw err;
    if (identity.how === 'registered' || replaced) {
      throw new FlowError(
        `${server.issuer} refused the client ${identity.clientId} it registered a moment ago (${err instanceof Error ? err.message : String(err)})`,
        `the server forgets its registrations at once: check its configuration, or give a pre-registered --client-id`,
      );
    }
    // A kept registration the server no longer knows (a restarted server): forgotten and replaced, once.
    const { forgetRegistration } = await import('../../store/registrations.js');
    await forgetRegistration(io.env, server.issuer);
    renderer.warn(`${server.issuer} no longer knows the client ${identity.clientId} registered there before (${err instanceof Error ? err.message : String(err)}): forgot it, registering anew`);
    return authorizeMcp(url, answer, options, ctx, stepUp, true);
  }
}

/** The grant the options ask for, as the chosen client: the tokens cached under the resource. */
async function authorizeAs(
  identity: McpClientIdentity,
  server: McpAuthorizationServer,
  scopes: string[],
  redirectUri: string,
  machine: boolean,
  options: McpAuthorizationOptions,
  ctx: Context,
): Promise<Authorized> {
  const { http, renderer, io } = ctx;
  const { resolveFlowConfig } = await import('../options/flow-pipeline.js');
  const secretMethod = identity.authMethod === 'client_secret_basic' || identity.authMethod === 'client_secret_post';
  const authMethod = identity.how === 'pre-registered' ? options.authMethod : secretMethod && identity.clientSecret === undefined ? 'none' : identity.authMethod;
  const raw: FlowOptionsInput = {
    ...options,
    protectedResource: undefined,
    register: undefined,
    profile: undefined,
    authUrl: undefined,
    issuer: server.verifiedIssuer ? server.issuer : undefined,
    authorizationEndpoint: server.authorizationEndpoint,
    tokenEndpoint: server.tokenEndpoint,
    clientId: identity.clientId,
    clientSecret: identity.clientSecret,
    authMethod,
    redirectUri,
    scope: scopes.length > 0 ? [scopes.join(' ')] : undefined,
    resource: [server.resource, ...(options.resource ?? []).filter((r) => r !== server.resource)],
    // SEP-1046 and RFC 7523bis: a client assertion for an MCP server's authorization server names its issuer.
    clientAssertionAudience: options.clientAssertionAudience ?? (server.verifiedIssuer && (authMethod === 'private_key_jwt' || authMethod === 'client_secret_jwt') ? 'issuer' : undefined),
    json: true,
  };
  const config = await resolveFlowConfig(raw, io, { http, renderer, needs: machine ? 'token' : 'both' });
  if (server.verifiedIssuer && server.metadata) config.metadata = server.metadata;
  config.protectedResource = server.resource;
  if (config.metadata?.authorization_response_iss_parameter_supported === true) renderer.info('the server sends iss in the redirect (RFC 9207): it will be checked');

  let tokens: TokenResponse;
  let grant: string | undefined;
  if (options.idToken !== undefined) {
    tokens = await crossAppAccess(options, config, server.issuer, ctx);
  } else if (options.assertion !== undefined) {
    const [{ readValueOrFile }, { checkAssertion, requestJwtBearer }, { JWT_BEARER_GRANT }] = await Promise.all([
      import('./mcp-params.js'),
      import('../../client/flows/jwt-bearer.js'),
      import('../../oauth/grant-types.js'),
    ]);
    const assertion = checkAssertion(await readValueOrFile(options.assertion, '--assertion'));
    renderer.step('Token request (RFC 7523 section 2.1; workload identity federation)');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=${JWT_BEARER_GRANT}, client authentication: ${config.authMethod})`);
    tokens = await requestJwtBearer(http, config, { assertion, scopes: config.scopes, resources: config.resources });
    grant = JWT_BEARER_GRANT;
  } else if (options.clientCredentials) {
    const { requestClientCredentials } = await import('../../client/flows/client-credentials.js');
    renderer.step('Token request (RFC 6749 section 4.4; MCP extension OAuth Client Credentials)');
    renderer.info(`POST ${config.tokenEndpoint} (grant_type=client_credentials, client authentication: ${config.authMethod})`);
    tokens = await requestClientCredentials(http, config, { scopes: config.scopes, resources: config.resources });
    grant = 'client_credentials';
  } else {
    const [{ runAuthorizationCodeFlow }, userAgent] = await Promise.all([import('../../client/flows/flow.js'), mcpUserAgent(options, io)]);
    tokens = (await runAuthorizationCodeFlow({ config, userAgent, timeoutMs: (options.timeout ?? 300) * 1000, http, renderer, io })).tokenResponse;
  }
  if (machine) {
    const { narrateTokenResponse } = await import('../../output/tokens.js');
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokens);
  }
  const { afterLogin } = await import('../login/after-login.js');
  await afterLogin({ config, tokens, http, renderer, io, cache: options.cache, tokenStore: options.tokenStore, grant });
  const granted = typeof tokens.scope === 'string' ? tokens.scope.split(' ').filter(Boolean) : config.scopes;
  const bound = config.dpop !== undefined && tokens.token_type?.toLowerCase() === 'dpop';
  return { accessToken: tokens.access_token, scopes: granted, ...(bound && { dpop: config.dpop }) };
}

/**
 * Issue 40, point 4: a pre-registered client's secret or key goes only to the authorization server it
 * is bound to (--issuer, else the first one it went to), never to whichever one the MCP server names.
 */
async function bindGivenCredentials(options: McpAuthorizationOptions, issuer: string, io: IO, renderer: Renderer): Promise<void> {
  if (options.clientId === undefined || options.clientId === '') return;
  const { CLIENT_SECRET_ENV } = await import('../options/flow-options.js');
  const credentials = [
    ...(options.clientSecret !== undefined || io.env[CLIENT_SECRET_ENV] ? ['client secret'] : []),
    ...(options.signingKey !== undefined ? ['signing key'] : []),
    ...(options.assertion !== undefined ? ['workload assertion'] : []),
  ];
  if (credentials.length === 0) return;
  const { checkCredentialBinding } = await import('../../client/mcp/credential-binding.js');
  await checkCredentialBinding({ clientId: options.clientId, credentials, issuer, issuerFlag: options.issuer, env: io.env, renderer });
}

/** The browser, --no-browser's printed URL, or --headless's agent, which needs an account only when a login form appears. */
async function mcpUserAgent(options: McpAuthorizationOptions, io: IO) {
  const { wantsHeadless, headlessUserAgentFor } = await import('../options/headless-options.js');
  if (wantsHeadless(options) && options.username === undefined && !io.env.OAUTHCTL_USERNAME && options.browserDriver === undefined) {
    const [{ createHeadlessUserAgent }, { httpTimeoutMs }] = await Promise.all([import('../../agent/headless/agent.js'), import('../options/http-timeout.js')]);
    return createHeadlessUserAgent({ consent: options.consent === 'deny' ? 'deny' : 'approve', httpOptions: { insecure: options.insecure, timeoutMs: httpTimeoutMs(options) } });
  }
  if (wantsHeadless(options)) return headlessUserAgentFor(options, io.env);
  const { chooseUserAgent } = await import('../login/login.js');
  return chooseUserAgent(options, io);
}

/** Cross-app access: the ID-JAG from the identity provider, then the JWT bearer grant at the MCP server's authorization server. */
async function crossAppAccess(options: McpAuthorizationOptions, config: import('../../client/flows/flow-config.js').FlowConfig, audience: string, ctx: Context): Promise<TokenResponse> {
  const { http, renderer } = ctx;
  if (options.idpClientId === undefined) throw new UsageError('--id-token needs --idp-client-id', "the client's id at the identity provider");
  let idpTokenEndpoint = options.idpTokenEndpoint;
  if (idpTokenEndpoint === undefined) {
    if (options.idpIssuer === undefined) throw new UsageError('--id-token needs --idp-token-endpoint URL or --idp-issuer URL', "where the identity provider's token exchange is");
    const { discoverMetadata } = await import('../../client/flows/endpoints.js');
    renderer.step('Identity provider metadata (RFC 8414, OpenID Connect Discovery)');
    const found = await discoverMetadata(http, options.idpIssuer);
    renderer.info(found.url);
    idpTokenEndpoint = found.metadata.token_endpoint;
    if (idpTokenEndpoint === undefined) throw new UsageError(`${options.idpIssuer} names no token_endpoint`, 'give --idp-token-endpoint URL');
  }
  const { readValueOrFile } = await import('./mcp-params.js');
  const idToken = await readValueOrFile(options.idToken!, '--id-token');
  const { requestWithIdJag } = await import('../../client/flows/id-jag.js');
  const secret = options.idpClientSecret;
  return requestWithIdJag(
    http,
    config,
    {
      idToken,
      idp: { tokenEndpoint: idpTokenEndpoint, clientId: options.idpClientId, clientSecret: secret, authMethod: secret !== undefined ? 'client_secret_basic' : 'none' },
      audience,
      resource: config.protectedResource!,
      scopes: config.scopes,
    },
    renderer,
  );
}
