import type { HttpResponse } from '../../../client/http/http.js';
import { resourceChallenge } from '../../../oauth/resource-metadata.js';
import { parseScope } from '../../../oauth/scope.js';
import { MCP_POST_HEADERS, mcpInitialize, requiredScopes, resourceUrl } from '../../protected-resource.js';
import type { AuditContext } from '../../context.js';

/**
 * JSON-RPC to the audited MCP server as a client of its revision sends it: 2026-07-28 stateless, each
 * request naming its revision in `_meta` and the standard headers (SEP-2243); or the initialize
 * handshake of the earlier revisions first (basic/lifecycle), its session id and revision then sent
 * with each request (basic/transports).
 */

/** The newest revision the audit speaks: stateless, no initialize (MCP 2026-07-28). */
export const MODERN = '2026-07-28';

/** A JSON-RPC request of the 2026-07-28 revision: its revision in `_meta`, and the standard headers as `headers` says. */
export function modernRequest(ctx: AuditContext, token: string, method: string, headers: Record<string, string>, params: Record<string, unknown> = {}): Promise<HttpResponse> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'oauthctl-audit', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  return ctx.http.request(resourceUrl(ctx), {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN, ...headers },
    body,
  });
}

/** The JSON-RPC message of an answer, JSON or the first event of an SSE stream (MCP basic/transports). */
export function rpcMessage(res: HttpResponse): Record<string, unknown> | undefined {
  const text = /text\/event-stream/i.test(res.headers['content-type'] ?? '') ? (/^data: ?(.*)$/m.exec(res.body)?.[1] ?? '') : res.body;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The revision the server agreed to at initialize (the audit's own 2025-11-25 handshake), for a "not tested" line. */
export async function legacyRevision(ctx: AuditContext, token: string): Promise<string> {
  return agreedRevision(await mcpInitialize(ctx, resourceUrl(ctx), token)) ?? 'an earlier revision';
}

/** The protocolVersion of an answer to initialize, when it names one. */
function agreedRevision(init: HttpResponse): string | undefined {
  const version = (rpcMessage(init)?.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return typeof version === 'string' ? version : undefined;
}

const modernLists = new WeakMap<AuditContext, Promise<HttpResponse>>();

/** The answer to a 2026-07-28 tools/list with the audit's working token, sent once per audit. */
function modernToolsList(ctx: AuditContext, working: string): Promise<HttpResponse> {
  let found = modernLists.get(ctx);
  if (!found) modernLists.set(ctx, (found = modernRequest(ctx, working, 'tools/list', { 'mcp-method': 'tools/list' })));
  return found;
}

/** Whether the server speaks 2026-07-28: it answers that revision's tools/list with a result. */
export async function speaksModern(ctx: AuditContext, working: string): Promise<boolean> {
  const res = await modernToolsList(ctx, working);
  return res.status === 200 && rpcMessage(res)?.result !== undefined;
}

/** The tools the server lists to the audit's working token, in its revision; undefined when its answer holds no list. */
export async function listedTools(ctx: AuditContext, working: string, modern: boolean): Promise<unknown[] | undefined> {
  const res = modern ? await modernToolsList(ctx, working) : (await mcpCall(ctx, working, 'tools/list', {}, false)).res;
  const tools = (rpcMessage(res)?.result as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? tools : undefined;
}

/** The answer to a request, or to the step of the handshake before it that was not taken (`step` says which). */
export interface McpCall {
  res: HttpResponse;
  step: string;
}

/**
 * One JSON-RPC request with `token`, as a client of the server's revision sends it: in 2026-07-28 alone
 * (Mcp-Method, and Mcp-Name for the methods that name something); before it, after an initialize and
 * notifications/initialized with the same token, each of which must be taken (2xx) for the request to go.
 */
export async function mcpCall(ctx: AuditContext, token: string, method: string, params: Record<string, unknown>, modern: boolean): Promise<McpCall> {
  const name = typeof params.name === 'string' ? params.name : undefined;
  if (modern) return { step: method, res: await modernRequest(ctx, token, method, { 'mcp-method': method, ...(name !== undefined && { 'mcp-name': name }) }, params) };
  const init = await mcpInitialize(ctx, resourceUrl(ctx), token);
  if (init.status < 200 || init.status >= 300) return { step: 'initialize', res: init };
  const version = agreedRevision(init);
  const session = init.headers['mcp-session-id'];
  const headers = {
    ...MCP_POST_HEADERS,
    authorization: `Bearer ${token}`,
    ...(version !== undefined && { 'mcp-protocol-version': version }),
    ...(session !== undefined && { 'mcp-session-id': session }),
  };
  const notified = await ctx.http.request(resourceUrl(ctx), { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  if (notified.status < 200 || notified.status >= 300) return { step: 'notifications/initialized', res: notified };
  return { step: method, res: await ctx.http.request(resourceUrl(ctx), { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }) }) };
}

/**
 * The scopes an MCP client asks for first (MCP authorization, scope selection): those the 401 to a POST
 * of initialize without a token names, else the resource's (its metadata's scopes_supported).
 */
export async function challengeScopes(ctx: AuditContext): Promise<string[]> {
  const res = await mcpInitialize(ctx, resourceUrl(ctx));
  const scope = res.status === 401 ? resourceChallenge(res.headers['www-authenticate']).scope : undefined;
  return scope !== undefined ? parseScope(scope) : requiredScopes(ctx);
}
