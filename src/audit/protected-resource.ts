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

/**
 * How the resource is called: a GET, or (an MCP server, which answers POST only) a POST of JSON-RPC
 * `initialize` as MCP clients begin (MCP 2025-11-25, basic/transports). workingToken finds which.
 */
type Presentation = 'get' | 'mcp';
const presentations = new WeakMap<AuditContext, Presentation>();

/** Whether the resource took its working token on a POST of MCP initialize only (after workingToken). */
export const presentsAsMcp = (ctx: AuditContext): boolean => presentations.get(ctx) === 'mcp';

/** The first message of an MCP client (basic/lifecycle): the request the audit calls an MCP server with. */
export const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'oauthctl-audit', version: '1' } },
});

/** A POST of MCP initialize to `url`, with a token in the Authorization header when one is given (Streamable HTTP's Accept). */
export function mcpInitialize(ctx: AuditContext, url: string, token?: string): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return ctx.http.request(url, { method: 'POST', headers, body: MCP_INITIALIZE });
}

/** A call of the resource with the token in the Authorization header (RFC 6750 section 2.1), or in the query (section 2.3). */
export function present(ctx: AuditContext, token: string, how: 'header' | 'query' = 'header'): Promise<HttpResponse> {
  const url = new URL(resourceUrl(ctx));
  if (how === 'query') url.searchParams.set('access_token', token);
  if (presentations.get(ctx) === 'mcp') return mcpInitialize(ctx, url.href, how === 'header' ? token : undefined);
  return ctx.http.request(url.href, { headers: { accept: 'application/json', ...(how === 'header' && { authorization: `Bearer ${token}` }) } });
}

/**
 * What an answer says about the token it was given: taken (2xx), refused (401, 403, or a 400 with a
 * Bearer error, RFC 6750 section 3.1), or nothing (a 405, 404, 5xx ...: the request never reached a
 * decision about the token, so the probe has not tested it).
 */
export function tokenDecision(res: HttpResponse): 'accepted' | 'refused' | undefined {
  if (res.status >= 200 && res.status < 300) return 'accepted';
  if (res.status === 401 || res.status === 403) return 'refused';
  if (res.status === 400 && /error="?invalid_(request|token)/i.test(res.headers['www-authenticate'] ?? '')) return 'refused';
  return undefined;
}

/** The detail of a probe whose request got no decision about its token. */
export function notTested(res: HttpResponse): string {
  return `not tested: HTTP ${res.status} is no decision about the token (the resource answered the request itself, not the token), so this says nothing either way`;
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
  let res = await present(ctx, token);
  // An MCP server takes its token on a POST of initialize only: a GET gets 405 (or 400) whatever the token.
  if (tokenDecision(res) !== 'accepted' && !presentations.has(ctx)) {
    const mcp = await mcpInitialize(ctx, resourceUrl(ctx), token);
    presentations.set(ctx, tokenDecision(mcp) === 'accepted' ? 'mcp' : 'get');
    if (tokenDecision(mcp) === 'accepted') res = mcp;
  }
  if (tokenDecision(res) === undefined) throw new ProbeSkip(`${notTested(res)} (a GET, and a POST of MCP initialize, with a token for the resource)`);
  if (res.status >= 400) throw new ProbeSkip(`a token for the resource with scope "${formatScope(scopes)}" is refused there too (HTTP ${res.status}): nothing to compare with`);
  return token;
}
