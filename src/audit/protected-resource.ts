import { decodeJwtUnverified } from '../oauth/jwt.js';
import { formatScope, parseScope } from '../oauth/scope.js';
import { discoverResource, type ResourceDiscovery } from '../client/protected-resource.js';
import type { HttpResponse } from '../client/http.js';
import { type AuditContext } from './context.js';
import { describeExchange, issuedTokens } from './exchanges.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';

/**
 * What the probes of a protected resource share (`audit --protected-resource URL`): the resource's
 * discovery (fetched once per audit), the scopes it needs, and tokens from the audited server.
 */
const discoveries = new WeakMap<AuditContext, Promise<ResourceDiscovery>>();

/** The resource being audited: the metadata's `resource` when the flow started from one. */
export function resourceUrl(ctx: AuditContext): string {
  const url = ctx.config.protectedResource;
  if (url === undefined) throw new ProbeSkip('runs only with --protected-resource URL');
  return url;
}

export function resourceDiscovery(ctx: AuditContext): Promise<ResourceDiscovery> {
  let found = discoveries.get(ctx);
  if (!found) discoveries.set(ctx, (found = discoverResource(ctx.http, resourceUrl(ctx))));
  return found;
}

/** The scopes the resource needs: its 401's challenge (RFC 6750 section 3), else its metadata's scopes_supported. */
export async function requiredScopes(ctx: AuditContext): Promise<string[]> {
  const found = await resourceDiscovery(ctx);
  if (found.probe.scope !== undefined) return parseScope(found.probe.scope);
  return found.metadata?.scopes_supported ?? [];
}

/** An access token from the audited server through the code flow; `resource` null sends none (RFC 8707). */
export async function tokenFor(ctx: AuditContext, options: { resource?: string | null; scopes?: readonly string[] } = {}): Promise<string> {
  const resource = options.resource === undefined ? resourceUrl(ctx) : options.resource;
  const issued = await ctx.obtainCode({ ...(options.scopes !== undefined && { scopes: options.scopes }), ...(resource !== null && { extraParams: { resource } }) });
  const exchange = await ctx.redeem(issued, resource !== null ? { resource } : {});
  if (!issuedTokens(exchange)) throw new ProbeFailure(`no token${resource !== null ? ` for ${resource}` : ''}: ${describeExchange(exchange)}`);
  return (exchange.json as { access_token: string }).access_token;
}

/** A call of the resource with the token in the Authorization header (RFC 6750 section 2.1), or in the query (section 2.3). */
export function present(ctx: AuditContext, token: string, how: 'header' | 'query' = 'header'): Promise<HttpResponse> {
  const url = new URL(resourceUrl(ctx));
  if (how === 'query') url.searchParams.set('access_token', token);
  return ctx.http.request(url.href, { headers: { accept: 'application/json', ...(how === 'header' && { authorization: `Bearer ${token}` }) } });
}

/** The `aud` of a JWT access token, when it is one (RFC 9068); undefined for an opaque token. */
export function audienceOf(token: string): string[] | undefined {
  const aud = decodeJwtUnverified(token)?.claims.aud;
  return aud === undefined ? undefined : [aud].flat().map(String);
}

/** A valid token for the resource with the scopes it needs, checked to work there first: the probes' baseline. */
export async function workingToken(ctx: AuditContext): Promise<string> {
  const needed = await requiredScopes(ctx);
  const scopes = [...new Set([...ctx.config.scopes, ...needed])];
  const token = await tokenFor(ctx, { scopes });
  const res = await present(ctx, token);
  if (res.status >= 400) throw new ProbeSkip(`a token for the resource with scope "${formatScope(scopes)}" is refused there too (HTTP ${res.status}): nothing to compare with`);
  return token;
}
