import { loadSelectedProfile, mergeUnderFlags, profileToFlowOptions } from '../../store/config-store.js';
import { httpTimeoutMs, type HttpTimeoutOption } from './http-timeout.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import type { HttpClient } from '../../client/http/http.js';
import { UsageError } from '../../errors.js';
import { pkceAdvice, supportedAuthMethods } from '../../oauth/discovery.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import type { CommonOptions } from '../program/command.js';
import { CLIENT_SECRET_ENV, parseFlowOptions, type FlowOptionsInput } from './flow-options.js';
import { promptForMissingOptions } from './prompt.js';

export interface ResolveContext {
  http: HttpClient;
  renderer: Renderer;
  /** The audit: a protected resource's broken metadata is reported by its probes, not a reason to stop. */
  tolerateResourceFindings?: boolean;
  /** The audit: signing algorithms a FAPI 2.0 server should not announce are reported by its probes, not a reason to stop. */
  reportsAlgorithms?: boolean;
  /** Which endpoints the command needs; default both. */
  needs?: 'authorization' | 'token' | 'both';
}

/**
 * The one pipeline every command that runs a flow calls: flags -> environment -> profile -> prompts ->
 * checked settings (parseFlowOptions) -> (only with --issuer and a missing endpoint) discovery, whose
 * advice on PKCE and auth methods goes to stderr.
 */
export async function resolveFlowConfig(given: FlowOptionsInput, io: IO, ctx: ResolveContext): Promise<FlowConfig> {
  // 1. flags (given), 2. the environment and 3. a profile fill in what the flags left out;
  // 4. on a terminal only, the user is asked for what is still missing; 5. parse; 6. discovery.
  // Starting from a protected resource (RFC 9728), or registering (RFC 7591): before the prompts, which ask only for what is still missing.
  let fromResource = await applyProfile(given, io, ctx.renderer);
  if (fromResource.protectedResource !== undefined || fromResource.register === true) {
    const { applyProtectedResource, applyRegistration } = await import('./protected-resource-options.js');
    if (fromResource.protectedResource !== undefined) fromResource = await applyProtectedResource(fromResource, { ...ctx, tolerant: ctx.tolerateResourceFindings });
    fromResource = await applyRegistration(fromResource, io, ctx);
  }
  const raw = await promptForMissingOptions(fromResource, io, { http: ctx.http, renderer: ctx.renderer, json: given.json });
  const parsed = parseFlowOptions(raw, io.env);
  const { discover, secured, fapi, ...settings } = parsed;
  const config: FlowConfig = { ...settings, authorizationEndpoint: settings.authorizationEndpoint ?? '', tokenEndpoint: settings.tokenEndpoint ?? '' };
  if (fromResource.protectedResource !== undefined) config.protectedResource = fromResource.protectedResource;
  if (fapi.fapi2 && secured.signingKeyFile !== undefined) config.signingKey = await (await import('./fapi-flow-options.js')).loadFapi2SigningKey(secured.signingKeyFile, secured.signingKeyId);
  if (discover && parsed.issuer !== undefined) {
    const { discoverMetadata } = await import('../../client/flows/endpoints.js');
    ctx.renderer.step('Discovery');
    const found = await discoverMetadata(ctx.http, parsed.issuer);
    ctx.renderer.info(`${found.url} (${found.kind === 'oauth-authorization-server' ? 'RFC 8414' : 'OpenID Connect'})`);
    const m = found.metadata;
    config.metadata = m;
    config.authorizationEndpoint = settings.authorizationEndpoint ?? m.authorization_endpoint ?? '';
    config.tokenEndpoint = settings.tokenEndpoint ?? m.token_endpoint ?? '';
    ctx.renderer.info(`authorization_endpoint: ${config.authorizationEndpoint || '(none)'}`);
    ctx.renderer.info(`token_endpoint: ${config.tokenEndpoint || '(none)'}`);
    for (const advice of pkceAdvice(m, config.pkce?.codeChallengeMethod)) {
      if (advice.level === 'warn') ctx.renderer.warn(advice.text);
      else ctx.renderer.info(advice.text);
    }
    const methods = supportedAuthMethods(m);
    if (!methods.includes(config.authMethod)) {
      ctx.renderer.warn(`the server does not list ${config.authMethod} in token_endpoint_auth_methods_supported (${methods.join(', ')}): try --auth-method`);
    }
    if (m.authorization_response_iss_parameter_supported) ctx.renderer.info('the server sends iss in the redirect (RFC 9207); it will be checked');
  }
  await (await import('./secured-flow-options.js')).resolveSecuredSettings(secured, config);
  await (await import('./fapi-flow-options.js')).resolveFapiSettings(fapi, config, { algorithms: ctx.reportsAlgorithms !== true });
  const needs = ctx.needs ?? 'both';
  if (needs !== 'token' && config.authorizationEndpoint === '') {
    throw new UsageError('no authorization endpoint known', 'give --authorization-endpoint, --auth-url or --issuer');
  }
  if (needs !== 'authorization' && config.tokenEndpoint === '') {
    throw new UsageError('no token endpoint known', 'give --token-endpoint, --auth-url or --issuer');
  }
  return config;
}

/**
 * `--profile NAME` (or OAUTHCTL_PROFILE) under the flags: the profile's values fill in every flow
 * option the command line left out. Nothing is read when no profile is asked for.
 */
export async function applyProfile<T extends FlowOptionsInput>(raw: T, io: IO, renderer: Renderer): Promise<T> {
  const selection = await loadSelectedProfile({ profile: raw.profile, config: raw.config }, io.env);
  if (!selection) return raw;
  for (const warning of selection.warnings) renderer.warn(warning);
  renderer.info(`Using profile ${selection.name} from ${selection.path}`);
  const secretGiven = raw.clientSecret !== undefined || Boolean(io.env[CLIENT_SECRET_ENV]);
  const { revocationEndpoint: _revocation, ...fromProfile } = profileToFlowOptions(selection.name, selection.profile, io.env, secretGiven);
  return { ...mergeUnderFlags(raw, fromProfile), profile: selection.name };
}

/** The renderer and HTTP client a flow command runs with, from its common options. */
export async function createFlowRuntime(
  options: CommonOptions & HttpTimeoutOption & { insecure?: boolean | undefined; tlsCert?: string | undefined; tlsKey?: string | undefined },
  io: IO,
): Promise<{ renderer: Renderer; http: HttpClient }> {
  const [{ createRenderer }, { createHttpClient }, { readClientCertificate }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/http/http.js'),
    import('../../client/flows/keys.js'),
  ]);
  const renderer = createRenderer(io, { verbose: options.verbose, color: options.color, showSecrets: options.showSecrets });
  // Mutual TLS (RFC 8705): the certificate is part of every connection the HTTP client opens.
  const clientCertificate = await readClientCertificate(options.tlsCert, options.tlsKey);
  const http = createHttpClient({ insecure: options.insecure, renderer, env: io.env, timeoutMs: httpTimeoutMs(options), clientCertificate });
  return { renderer, http };
}
