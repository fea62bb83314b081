import { decodeJwtUnverified } from '../oauth/jwt.js';
import { formatScope, parseScope } from '../oauth/scope.js';
import { discoverResource, type ResourceDiscovery } from '../client/resources/protected-resource.js';
import type { HttpResponse } from '../client/http/http.js';
import { type AuditContext } from './context.js';
import { describeExchange, issuedTokens } from './exchanges.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';
import { fail, pass, skip, warn, type ProbeOutcome } from './types.js';

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

/** The scopes of the probes' baseline token: those the audit was given (--scope) and those the resource needs. */
export async function baselineScopes(ctx: AuditContext): Promise<string[]> {
  return [...new Set([...ctx.config.scopes, ...(await requiredScopes(ctx))])];
}

/**
 * An access token from the audited server: a login through the code flow, else (a confidential client)
 * the client credentials grant; `resource` null sends none (RFC 8707). A token the audit cannot get is
 * no finding about the resource: the probe is not tested, saying why (the same words for every probe,
 * so the report says it once).
 */
export async function tokenFor(ctx: AuditContext, options: { resource?: string | null; scopes?: readonly string[] } = {}): Promise<string> {
  return (await scopedToken(ctx, options)).token;
}

/**
 * tokenFor's token with the scopes it was granted: the token response's `scope`, else those asked for
 * (RFC 6749 section 5.1: the server names the scope when it differs from the request), else unknown.
 */
export async function scopedToken(ctx: AuditContext, options: { resource?: string | null; scopes?: readonly string[] } = {}): Promise<{ token: string; granted: string[] | undefined }> {
  const resource = options.resource === undefined ? resourceUrl(ctx) : options.resource;
  const scope = options.scopes !== undefined ? formatScope(options.scopes) : undefined;
  const issued = (json: unknown) => {
    const { access_token, scope: granted } = json as { access_token: string; scope?: unknown };
    return { token: access_token, granted: typeof granted === 'string' ? parseScope(granted) : options.scopes?.slice() };
  };
  let reason: string;
  try {
    const code = await ctx.obtainCode({ ...(options.scopes !== undefined && { scopes: options.scopes }), ...(resource !== null && { extraParams: { resource } }) });
    const exchange = await ctx.redeem(code, resource !== null ? { resource } : {});
    if (issuedTokens(exchange)) return issued(exchange.json);
    reason = `no token${resource !== null ? ` for ${resource}` : ''}: ${describeExchange(exchange)}`;
  } catch (err) {
    if (!(err instanceof ProbeFailure)) throw err;
    reason = err.message;
  }
  if (!ctx.isPublicClient) {
    const exchange = await ctx.token({ grant_type: 'client_credentials', ...(scope ? { scope } : {}), ...(resource !== null && { resource }) });
    if (issuedTokens(exchange)) return issued(exchange.json);
  }
  throw new ProbeSkip(
    `not tested: the audit could not get a token${resource === null ? ' for another resource' : ''} from the authorization server (${reason}); give --token, or the account (--username, --password)`,
  );
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

/** The headers of every JSON-RPC POST to an MCP server (Streamable HTTP: JSON or an SSE stream accepted). */
export const MCP_POST_HEADERS: Readonly<Record<string, string>> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** A POST of MCP initialize to `url`, with a token in the Authorization header when one is given. */
export function mcpInitialize(ctx: AuditContext, url: string, token?: string, extra: Record<string, string> = {}): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...MCP_POST_HEADERS, ...extra };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return ctx.http.request(url, { method: 'POST', headers, body: MCP_INITIALIZE });
}

/**
 * A call of the resource as a client makes it: the token in the Authorization header (RFC 6750 section
 * 2.1), in the query (section 2.3) or in a form body (section 2.2, a POST); an MCP server gets a POST of
 * initialize. `headers` are added (a foreign Origin).
 */
export function present(ctx: AuditContext, token: string, how: 'header' | 'query' | 'form' = 'header', headers: Record<string, string> = {}): Promise<HttpResponse> {
  const url = new URL(resourceUrl(ctx));
  if (how === 'query') url.searchParams.set('access_token', token);
  if (how === 'form') {
    return ctx.http.request(url.href, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ access_token: token }).toString(),
    });
  }
  if (presentations.get(ctx) === 'mcp') return mcpInitialize(ctx, url.href, how === 'header' ? token : undefined, headers);
  return ctx.http.request(url.href, { headers: { accept: 'application/json', ...(how === 'header' && { authorization: `Bearer ${token}` }), ...headers } });
}

/**
 * What an answer says about the token it was given: taken (2xx), refused (401, 403, or a 400 with a
 * Bearer error, RFC 6750 section 3.1), a server error (5xx: the check of the token broke, which is no
 * refusal), or nothing (a 405, 404 ...: the request never reached a decision about the token, so the
 * probe has not tested it).
 */
export function tokenDecision(res: HttpResponse): 'accepted' | 'refused' | 'server-error' | undefined {
  if (res.status >= 200 && res.status < 300) return 'accepted';
  if (res.status === 401 || res.status === 403) return 'refused';
  if (res.status === 400 && /error="?invalid_(request|token|dpop_proof)/i.test(res.headers['www-authenticate'] ?? '')) return 'refused';
  if (res.status >= 500) return 'server-error';
  return undefined;
}

/** The detail of a probe whose bad token got a server error (RFC 6750 section 3: a bad token is answered 401 with a challenge). */
export function serverError(res: HttpResponse, what: string): string {
  return `${what} got HTTP ${res.status}: a ${res.status} is not a refusal, the resource must answer 401 with WWW-Authenticate (RFC 6750 section 3.1, invalid_token)`;
}

/**
 * The verdict on a token the resource must refuse (`what` says which): refused passes (a 401 without
 * its WWW-Authenticate challenge warns, RFC 6750 section 3), taken fails, a server error fails, an
 * answer that is no decision about the token is not tested.
 */
export function mustRefuse(res: HttpResponse, what: string): ProbeOutcome {
  const decision = tokenDecision(res);
  if (decision === 'server-error') return fail(serverError(res, what));
  if (decision === undefined) return skip(notTested(res));
  if (decision === 'accepted') return fail(`${what} was accepted (HTTP ${res.status})`);
  const challenge = res.headers['www-authenticate'];
  if (res.status === 401 && challenge === undefined) return warn(`${what}: HTTP 401, but without WWW-Authenticate (RFC 6750 section 3: a refusal names the scheme and the error)`);
  const error = challenge === undefined ? undefined : /\berror="?([\w-]+)/.exec(challenge)?.[1];
  return pass(`${what}: HTTP ${res.status}${error ? ` ${error}` : ''}`);
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

const baselines = new WeakMap<AuditContext, Promise<string>>();

/**
 * A valid token for the resource with the scopes it needs, checked to work there first: the probes'
 * baseline, found once per audit (--token when given). `fresh` gets one of its own from the server
 * (a probe that revokes it), never the --token given.
 */
export function workingToken(ctx: AuditContext, options: { fresh?: boolean } = {}): Promise<string> {
  if (options.fresh) return checkedToken(ctx, false);
  let found = baselines.get(ctx);
  if (!found) baselines.set(ctx, (found = checkedToken(ctx, true)));
  return found;
}

async function checkedToken(ctx: AuditContext, mayUseGiven: boolean): Promise<string> {
  const scopes = await baselineScopes(ctx);
  const token = mayUseGiven && ctx.givenToken !== undefined ? ctx.givenToken : await tokenFor(ctx, { scopes });
  let res = await present(ctx, token);
  // An MCP server takes its token on a POST of initialize only: a GET gets 405 (or 400) whatever the token.
  if (tokenDecision(res) !== 'accepted' && !presentations.has(ctx)) {
    const mcp = await mcpInitialize(ctx, resourceUrl(ctx), token);
    presentations.set(ctx, tokenDecision(mcp) === 'accepted' ? 'mcp' : 'get');
    if (tokenDecision(mcp) === 'accepted') res = mcp;
  }
  const decision = tokenDecision(res);
  if (decision === undefined || decision === 'server-error') throw new ProbeSkip(`${notTested(res)} (a GET, and a POST of MCP initialize, with a token for the resource)`);
  const given = token === ctx.givenToken ? 'the --token given' : `a token for the resource with scope "${formatScope(scopes)}"`;
  if (res.status >= 400) throw new ProbeSkip(`not tested: ${given} is refused there too (HTTP ${res.status}): nothing to compare with`);
  return token;
}
