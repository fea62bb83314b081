import { FlowError, UsageError } from '../../errors.js';
import type { HttpClient } from '../../client/http/http.js';
import type { ClientRegistrationRequest } from '../../client/resources/registration.js';
import { chooseAuthorizationServer, discoverResource, resourceDiscoveryError, type ResourceDiscovery } from '../../client/resources/protected-resource.js';
import { compareResource } from '../../oauth/resource-metadata.js';
import { parseScope } from '../../oauth/scope.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import { escapeLogValue } from '../../output/escape.js';
import { parseHttpUrl } from '../program/command.js';
import { DEFAULT_REDIRECT_URI, type FlowOptionsInput } from './flow-options.js';

interface Context {
  http: HttpClient;
  renderer: Renderer;
}

/** Says what the resource discovery fetched and found, as `login` narrates its steps. */
export function narrateResourceDiscovery(found: ResourceDiscovery, renderer: Renderer): void {
  for (const f of found.fetched) renderer.info(`${f.method ?? 'GET'} ${f.url} -> ${f.status === 'unreachable' ? 'unreachable' : `HTTP ${f.status}`}${f.note ? ` (${f.note})` : ''}`);
  for (const finding of found.findings) {
    if (finding.level === 'warn') renderer.warn(`${finding.text} (${finding.rule})`);
  }
}

/**
 * `--protected-resource URL` (RFC 9728): the authorization server, the resource indicator (RFC 8707)
 * and the default scopes come from the resource, ahead of the rest of the pipeline. The flags the user
 * gave win: `--issuer` chooses among the resource's servers, `--scope` replaces the default.
 */
export async function applyProtectedResource<T extends FlowOptionsInput>(raw: T, ctx: Context & { tolerant?: boolean | undefined }): Promise<T & { resourceFound: ResourceDiscovery }> {
  const url = parseHttpUrl('--protected-resource')(raw.protectedResource!);
  ctx.renderer.step('Protected resource (RFC 9728)');
  const found = await discoverResource(ctx.http, url);
  narrateResourceDiscovery(found, ctx.renderer);
  const broken = resourceDiscoveryError(found);
  // The audit goes on past what it is there to report, as long as an authorization server is named (by the metadata, else --issuer).
  if (broken && ctx.tolerant && !found.metadata?.authorization_servers?.length && raw.issuer !== undefined) {
    ctx.renderer.warn(broken.message);
    const scope = raw.scope ?? (found.probe.scope !== undefined ? [found.probe.scope] : undefined);
    return { ...raw, resource: [url, ...(raw.resource ?? []).filter((r) => r !== url)], ...(scope !== undefined && { scope }), protectedResource: url, resourceFound: found };
  }
  if (broken && !(ctx.tolerant && found.metadata?.authorization_servers?.length)) throw broken;
  if (broken) ctx.renderer.warn(broken.message);
  const metadata = found.metadata!;
  const issuer = chooseAuthorizationServer(metadata, raw.issuer);
  ctx.renderer.info(`authorization server: ${issuer}`);
  // A resource the metadata does not match (tolerated by the audit only) stays the URL asked.
  const resourceId = compareResource(url, metadata.resource) === 'mismatch' ? url : metadata.resource;
  ctx.renderer.info(`resource: ${resourceId}`);
  // The scope the 401 asked for (RFC 6750 section 3), else what the resource supports (RFC 9728 section 2).
  const scope = raw.scope ?? (found.probe.scope !== undefined ? [found.probe.scope] : metadata.scopes_supported?.length ? [metadata.scopes_supported.join(' ')] : undefined);
  if (raw.scope === undefined && scope !== undefined) ctx.renderer.info(`scope: ${scope.join(' ')} (${found.probe.scope !== undefined ? "the 401's challenge" : "the metadata's scopes_supported"})`);
  const resource = [resourceId, ...(raw.resource ?? []).filter((r) => r !== resourceId)];
  return { ...raw, issuer, resource, ...(scope !== undefined && { scope }), protectedResource: resourceId, resourceFound: found };
}

/**
 * `--register`, or a protected resource's flow with no client id: the client registered at this
 * server before (kept in the store), else a new registration (RFC 7591) of a native public client
 * whose loopback redirect URI takes any port (RFC 8252 section 7.3), kept for next time.
 */
export async function applyRegistration<T extends FlowOptionsInput>(raw: T, io: IO, ctx: Context): Promise<T> {
  if (raw.clientId !== undefined && raw.clientId !== '') return raw;
  // Without --register (a protected resource's flow), only where the server offers registration.
  const auto = raw.register !== true;
  if (raw.issuer === undefined) throw new UsageError('--register needs the authorization server: --issuer URL or --protected-resource URL');
  const [{ readRegistration }, { sameRedirect }] = await Promise.all([import('../../store/registrations.js'), import('../../client/resources/registration.js')]);
  const redirectUri = raw.redirectUri ?? DEFAULT_REDIRECT_URI;
  const found = await readRegistration(io.env, raw.issuer);
  // A kept client registered for another redirect URI would be refused at the authorization endpoint: register anew.
  // One the server no longer knows (RFC 7592 section 2.1) is forgotten and replaced.
  const { usableKeptRegistration } = await import('../../client/resources/kept-registration.js');
  const kept = found && found.redirect_uris.some((u) => sameRedirect(u, redirectUri)) ? await usableKeptRegistration(ctx.http, io.env, found, ctx.renderer) : undefined;
  if (kept) {
    ctx.renderer.info(`Using the client ${escapeLogValue(kept.client_id)} registered at ${kept.server} (oauthctl register --delete removes it)`);
    return withRegisteredClient(raw, kept.client_id, kept.client_secret, kept.token_endpoint_auth_method);
  }
  const request: ClientRegistrationRequest = {
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    client_name: 'oauthctl',
    ...(raw.scope !== undefined && { scope: parseScope(raw.scope).join(' ') }),
    ...(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(redirectUri) && { application_type: 'native' }),
  };
  const registration = await registerAt(raw.issuer, request, undefined, io, ctx, auto, raw.tokenStore);
  if (!registration) return raw;
  return withRegisteredClient(raw, registration.client_id, registration.client_secret, registration.token_endpoint_auth_method);
}

/**
 * Registers at the issuer's registration_endpoint and keeps the registration where `--token-store`
 * (or OAUTHCTL_TOKEN_STORE) keeps logins: its secrets in the keyring with `keyring`. Returns what was kept.
 */
export async function registerAt(issuer: string, request: ClientRegistrationRequest, initialAccessToken: string | undefined, io: IO, ctx: Context, onlyIfOffered = false, tokenStore?: string) {
  const [{ discoverMetadata }, { registerClient, storedRegistration }, { saveRegistration }, { chooseTokenStore }] = await Promise.all([
    import('../../client/flows/endpoints.js'),
    import('../../client/resources/registration.js'),
    import('../../store/registrations.js'),
    import('../../store/secret-store.js'),
  ]);
  const store = chooseTokenStore(tokenStore, io.env);
  const { metadata } = await discoverMetadata(ctx.http, issuer);
  const endpoint = metadata.registration_endpoint;
  if (typeof endpoint !== 'string' && onlyIfOffered) return undefined;
  if (typeof endpoint !== 'string') throw new FlowError(`${issuer} announces no registration_endpoint (RFC 8414 section 2)`, 'register the client by hand and give --client-id');
  ctx.renderer.step('Client registration (RFC 7591)');
  ctx.renderer.info(`POST ${endpoint}`);
  const response = await registerClient(ctx.http, endpoint, request, initialAccessToken);
  const stored = storedRegistration(metadata.issuer, response, Date.now());
  const path = await saveRegistration(io.env, stored, store);
  ctx.renderer.ok(`registered client ${escapeLogValue(response.client_id)}; kept in ${store === 'keyring' ? `the OS keyring (the rest in ${path})` : path}`);
  return { ...stored, response };
}

function withRegisteredClient<T extends FlowOptionsInput>(raw: T, clientId: string, secret: string | undefined, method: string): T {
  return { ...raw, clientId, ...(secret !== undefined && raw.clientSecret === undefined && { clientSecret: secret }), authMethod: raw.authMethod ?? method };
}
