import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { AUTHORIZATION_REQUEST_PARAMS } from '../../oauth/authorization-request.js';
import { calculateCodeChallenge, codeVerifierProblem, generateCodeVerifier, type CodeChallengeMethod } from '../../oauth/pkce.js';
import { generateState, randomToken } from '../../oauth/random.js';
import { isValidScopeToken, parseScope } from '../../oauth/scope.js';
import { CLIENT_AUTH_METHODS, usesClientSecret, type ClientAuthMethod } from '../../oauth/token-request.js';
import type { FlowConfig, PkceParams } from '../../client/flows/flow-config.js';
import { collect, parseHttpUrl } from '../program/command.js';
import { addHttpTimeoutOption } from './http-timeout.js';
import { addSecuredFlowOptions, parseSecuredFlowOptions, type SecuredFlowOptionsInput, type SecuredFlowSettings } from './secured-flow-options.js';
import { addFapiFlowOptions, parseFapiFlowOptions, type FapiFlowOptionsInput, type FapiFlowSettings } from './fapi-flow-options.js';

export type { FlowConfig, PkceParams } from '../../client/flows/flow-config.js';

/** The flow options as commander gives them (no defaults, so a profile can be merged under them). */
export interface FlowOptionsInput extends SecuredFlowOptionsInput, FapiFlowOptionsInput {
  /** --token-store: where a login, and a registration made for it (--register), are kept. */
  tokenStore?: string | undefined;
  authUrl?: string | undefined;
  issuer?: string | undefined;
  authorizationEndpoint?: string | undefined;
  tokenEndpoint?: string | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  authMethod?: string | undefined;
  redirectUri?: string | undefined;
  scope?: string[] | undefined;
  state?: string | undefined;
  pkce?: boolean | undefined;
  codeVerifier?: string | undefined;
  codeChallengeMethod?: string | undefined;
  param?: string[] | undefined;
  insecure?: boolean | undefined;
  jwksUri?: string | undefined;
  /** --http-timeout SECONDS. */
  httpTimeout?: number | undefined;
  /** false with --no-verify-id-token. */
  verifyIdToken?: boolean | undefined;
  revocationEndpoint?: string | undefined;
  introspectionEndpoint?: string | undefined;
  userinfoEndpoint?: string | undefined;
  parEndpoint?: string | undefined;
  deviceAuthorizationEndpoint?: string | undefined;
  backchannelAuthenticationEndpoint?: string | undefined;
  /** A profile of the config file whose values fill in the options not given (profiles). */
  profile?: string | undefined;
  config?: string | undefined;
  /** --protected-resource URL: the flow starts from the resource (RFC 9728). */
  protectedResource?: string | undefined;
  /** --register: register a client first when no client id is given (RFC 7591). */
  register?: boolean | undefined;
  /** Set by commands with --json: never prompt then. */
  json?: boolean | undefined;
}

export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1/callback';
export const CLIENT_SECRET_ENV = 'OAUTHCTL_CLIENT_SECRET';

/** Adds the contract's flow options (url, login, exchange, refresh, and others that run a flow). */
export function addFlowOptions(cmd: Command): Command {
  addHttpTimeoutOption(cmd)
    .option('--auth-url <URL>', 'authorization server base: {auth_url}/authorize and {auth_url}/token')
    .option('--issuer <URL>', 'discover the endpoints from the issuer metadata (RFC 8414, then OpenID Connect discovery)')
    .option('--authorization-endpoint <URL>', 'override the authorization endpoint')
    .option('--token-endpoint <URL>', 'override the token endpoint')
    .option('--client-id <ID>', 'client identifier (required)')
    .option('--client-secret <S>', `client secret of a confidential client (also ${CLIENT_SECRET_ENV})`)
    .addOption(
      new Option(
        '--auth-method <M>',
        'token endpoint authentication: client_secret_basic (default with a secret), client_secret_post, none (default without), private_key_jwt, client_secret_jwt, tls_client_auth, self_signed_tls_client_auth',
      ).choices(CLIENT_AUTH_METHODS),
    )
    .option('--redirect-uri <URL>', `redirect URI (default ${DEFAULT_REDIRECT_URI} on a free port)`)
    .option('--scope <S>', 'scope, space- or plus-separated; repeatable', collect)
    .option('--state <S>', 'state value (default: 128 random bits)')
    .option('--pkce', 'use PKCE (the default): a fresh S256 code challenge, then its verifier (RFC 7636)')
    .option('--no-pkce', 'send no PKCE code challenge (only for servers that reject one)')
    .option('--code-verifier <V>', 'use this PKCE code verifier')
    .addOption(new Option('--code-challenge-method <M>', 'PKCE method (default S256)').choices(['S256', 'plain']))
    .option('--param <k=v>', 'extra authorization request parameter; repeatable', collect)
    .option('--insecure', 'do not verify TLS certificates (test servers only; prints a warning)')
    .option('--jwks-uri <URL>', 'where ID token keys come from when no metadata names them')
    .option('--no-verify-id-token', 'accept an ID token whose signature cannot be checked (said loudly; never for alg none)')
    .option('--revocation-endpoint <URL>', 'override the revocation endpoint (RFC 7009)')
    .option('--introspection-endpoint <URL>', 'override the introspection endpoint (RFC 7662)')
    .option('--userinfo-endpoint <URL>', 'override the userinfo endpoint (OpenID Connect Core section 5.3)')
    .option('--par-endpoint <URL>', 'override the pushed authorization request endpoint (RFC 9126)')
    .option('--device-authorization-endpoint <URL>', 'override the device authorization endpoint (RFC 8628)')
    .option('--backchannel-authentication-endpoint <URL>', 'override the backchannel authentication endpoint (OpenID Connect CIBA)')
    .option('--protected-resource <URL>', 'start from this protected resource: its authorization server, resource indicator and scopes (RFC 9728, RFC 8707)')
    .option('--register', 'register a client first when no --client-id is given, and reuse it next time (RFC 7591)');
  return addFapiFlowOptions(addSecuredFlowOptions(cmd))
    .option('--profile <NAME>', 'take the options not given here from this profile of the config file (also OAUTHCTL_PROFILE)')
    .option('--config <FILE>', 'the profiles file (default $XDG_CONFIG_HOME/oauthctl/config.json)');
}

/** Flow options checked and defaulted, before any network step; endpoints may still be missing. */
export interface ParsedFlowOptions extends Omit<FlowConfig, 'authorizationEndpoint' | 'tokenEndpoint' | 'metadata'> {
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  /** Set when the endpoints are to be discovered from this issuer. */
  discover: boolean;
  /** PAR, DPoP, JAR, resources, keys: checked here, loaded by the pipeline (resolveSecuredSettings). */
  secured: SecuredFlowSettings;
  /** JARM, RAR, --fapi2: checked here, applied by the pipeline after discovery (resolveFapiSettings). */
  fapi: FapiFlowSettings;
}

/**
 * The pure step: raw option values (flags over a profile) -> checked settings. Bad input throws
 * UsageError (exit 2) with one line. Fresh state, PKCE verifier and nonce are drawn here.
 */
export function parseFlowOptions(raw: FlowOptionsInput, env: NodeJS.ProcessEnv = {}): ParsedFlowOptions {
  const authUrl = raw.authUrl !== undefined ? parseHttpUrl('--auth-url')(raw.authUrl) : undefined;
  const issuer = raw.issuer !== undefined ? parseHttpUrl('--issuer')(raw.issuer) : undefined;
  let authorizationEndpoint = raw.authorizationEndpoint !== undefined ? parseHttpUrl('--authorization-endpoint')(raw.authorizationEndpoint) : undefined;
  let tokenEndpoint = raw.tokenEndpoint !== undefined ? parseHttpUrl('--token-endpoint')(raw.tokenEndpoint) : undefined;
  if (authUrl !== undefined) {
    const base = authUrl.replace(/\/+$/, '');
    authorizationEndpoint ??= `${base}/authorize`;
    tokenEndpoint ??= `${base}/token`;
  }
  if (issuer === undefined && authorizationEndpoint === undefined && tokenEndpoint === undefined) {
    throw new UsageError('no authorization server given', 'use --auth-url URL, --issuer URL, or --authorization-endpoint and --token-endpoint');
  }
  const discover = issuer !== undefined && (authorizationEndpoint === undefined || tokenEndpoint === undefined);

  if (raw.clientId === undefined || raw.clientId === '') {
    throw new UsageError('--client-id is required', 'give the client id registered at the authorization server');
  }
  const clientId = raw.clientId;

  const secretFromFlag = raw.clientSecret;
  const envSecret = env[CLIENT_SECRET_ENV];
  const clientSecret = secretFromFlag ?? (envSecret !== undefined && envSecret !== '' ? envSecret : undefined);
  // A Client ID Metadata Document URL as client id: none, or private_key_jwt with a key.
  const metadataDocumentKey = raw.authMethod === undefined && raw.signingKey !== undefined && /^https:\/\//.test(clientId);
  const authMethod = metadataDocumentKey ? 'private_key_jwt' : parseAuthMethod(raw.authMethod, clientSecret !== undefined);
  if (usesClientSecret(authMethod) && clientSecret === undefined) {
    throw new UsageError(`--auth-method ${authMethod} needs a client secret`, `give --client-secret or set ${CLIENT_SECRET_ENV}, or use --auth-method none for a public client`);
  }
  if (!usesClientSecret(authMethod) && secretFromFlag !== undefined) {
    throw new UsageError(`--auth-method ${authMethod} sends no client secret, but --client-secret was given`, 'drop one of them');
  }
  const secured = parseSecuredFlowOptions(raw, authMethod);
  const fapi = parseFapiFlowOptions({ ...raw, authMethod });

  const redirectUri = checkRedirectUri(raw.redirectUri ?? DEFAULT_REDIRECT_URI);
  const scopes = parseScope(raw.scope ?? []);
  const badScope = scopes.find((s) => !isValidScopeToken(s));
  if (badScope !== undefined) throw new UsageError(`scope ${JSON.stringify(badScope)} has a character RFC 6749 section 3.3 does not allow`);

  if (raw.state === '') throw new UsageError('--state must not be empty', 'leave it out for a fresh random state');
  const state = raw.state ?? generateState();

  const pkce = parsePkce(raw);
  const extraParams = parseParams(raw.param ?? []);
  // OpenID Connect Core section 3.1.2.1: a nonce binds the ID token to this request.
  if (scopes.includes('openid') && extraParams.nonce === undefined) extraParams.nonce = randomToken(128);

  const endpoints: ParsedFlowOptions['endpoints'] = {};
  for (const [flag, field, value] of [
    ['--jwks-uri', 'jwks_uri', raw.jwksUri],
    ['--revocation-endpoint', 'revocation_endpoint', raw.revocationEndpoint],
    ['--introspection-endpoint', 'introspection_endpoint', raw.introspectionEndpoint],
    ['--userinfo-endpoint', 'userinfo_endpoint', raw.userinfoEndpoint],
    ['--par-endpoint', 'pushed_authorization_request_endpoint', raw.parEndpoint],
    ['--device-authorization-endpoint', 'device_authorization_endpoint', raw.deviceAuthorizationEndpoint],
    ['--backchannel-authentication-endpoint', 'backchannel_authentication_endpoint', raw.backchannelAuthenticationEndpoint],
  ] as const) {
    if (value !== undefined) endpoints[field] = parseHttpUrl(flag)(value);
  }

  const out: ParsedFlowOptions = { clientId, authMethod, redirectUri, scopes, state, extraParams, discover, endpoints, secured, fapi };
  if (raw.verifyIdToken === false) out.acceptUnverifiedIdToken = true;
  if (authUrl !== undefined) out.authUrl = authUrl.replace(/\/+$/, '');
  if (authorizationEndpoint !== undefined) out.authorizationEndpoint = authorizationEndpoint;
  if (tokenEndpoint !== undefined) out.tokenEndpoint = tokenEndpoint;
  if (issuer !== undefined) out.issuer = issuer;
  if (usesClientSecret(authMethod) && clientSecret !== undefined) out.clientSecret = clientSecret;
  if (usesClientSecret(authMethod) && secretFromFlag === undefined && clientSecret !== undefined) out.clientSecretFromEnv = true;
  if (pkce) out.pkce = pkce;
  return out;
}

/** RFC 6749 section 3.1.2: an absolute URI without a fragment. Custom schemes are allowed (RFC 8252 section 7.1). */
function checkRedirectUri(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--redirect-uri is not a valid absolute URI: ${JSON.stringify(value)}`, `e.g. ${DEFAULT_REDIRECT_URI}`);
  }
  if (url.hash !== '' || value.includes('#')) throw new UsageError('--redirect-uri must not contain a fragment (RFC 6749 section 3.1.2)');
  return value;
}

function parseAuthMethod(value: string | undefined, hasSecret: boolean): ClientAuthMethod {
  if (value === undefined) return hasSecret ? 'client_secret_basic' : 'none';
  if (!(CLIENT_AUTH_METHODS as readonly string[]).includes(value)) {
    throw new UsageError(`unknown --auth-method ${JSON.stringify(value)}`, `use one of ${CLIENT_AUTH_METHODS.join(', ')}`);
  }
  return value as ClientAuthMethod;
}

function parsePkce(raw: FlowOptionsInput): PkceParams | undefined {
  const method = raw.codeChallengeMethod;
  if (method !== undefined && method !== 'S256' && method !== 'plain') {
    throw new UsageError(`--code-challenge-method must be S256 or plain, got ${JSON.stringify(method)}`);
  }
  // RFC 9700 section 2.1.1: PKCE with S256 for every authorization request, unless --no-pkce.
  if (raw.pkce === false) {
    if (raw.codeVerifier !== undefined || method !== undefined) {
      throw new UsageError('--no-pkce cannot go with --code-verifier or --code-challenge-method', 'drop --no-pkce to send PKCE');
    }
    return undefined;
  }
  const codeChallengeMethod: CodeChallengeMethod = method ?? 'S256';
  let codeVerifier: string;
  if (raw.codeVerifier !== undefined) {
    const problem = codeVerifierProblem(raw.codeVerifier);
    if (problem) throw new UsageError(`--code-verifier: ${problem}`, 'create a valid one with `oauthctl pkce`');
    codeVerifier = raw.codeVerifier;
  } else {
    codeVerifier = generateCodeVerifier();
  }
  return { codeVerifier, codeChallenge: calculateCodeChallenge(codeVerifier, codeChallengeMethod), codeChallengeMethod };
}

const PARAM_OPTION: Readonly<Record<string, string>> = {
  client_id: 'use --client-id',
  redirect_uri: 'use --redirect-uri',
  scope: 'use --scope',
  state: 'use --state',
  code_challenge: 'use --pkce or --code-verifier',
  code_challenge_method: 'use --code-challenge-method',
  response_type: 'the authorization code flow always sends response_type=code',
};

function parseParams(params: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param ${JSON.stringify(p)} is not of the form name=value`, 'e.g. --param prompt=consent');
    const name = p.slice(0, eq);
    if (AUTHORIZATION_REQUEST_PARAMS.has(name)) {
      throw new UsageError(`--param cannot set ${name}`, PARAM_OPTION[name] ?? 'oauthctl sets it itself');
    }
    out[name] = p.slice(eq + 1);
  }
  return out;
}
