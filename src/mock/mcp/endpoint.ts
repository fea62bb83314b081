import { errorDescription, readBody, respond, sendJson, type Exchange } from '../core/http/http.js';
import { isLoopbackHost } from '../../oauth/loopback.js';
import { mcpTarget, resourceMetadata } from '../core/tokens/protected-resources.js';
import type { AccessTokenClaims } from '../core/store/store.js';
import { hasScopes, mcpBearer, refuse } from './authorization.js';
import { UNSUPPORTED_PROTOCOL_VERSION } from '../../oauth/mcp-jsonrpc.js';
import { answerElicitation, greetLegacy } from './elicitation.js';
import { failure, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, parseMessage, result, sseEvent, type JsonRpcId, type McpMessage } from './jsonrpc.js';
import { checkModernRequest, discoverResult, greetModern, isModernRequest, MODERN_VERSIONS } from './modern.js';
import { endSession, findSession, ownerOf, startSession } from './sessions.js';
import { callTool, toolScopes, TOOLS } from './tools.js';

/** The revisions with initialize the endpoint speaks, newest first (config mcp.protocol_versions; basic/lifecycle, version negotiation). */
const legacyVersions = (ex: Exchange): string[] => ex.state.config.mcp.protocolVersions.filter((v) => !MODERN_VERSIONS.includes(v));
/** Without MCP-Protocol-Version, the server assumes 2025-03-26 (basic/transports, protocol version header). */
const ASSUMED_VERSION = '2025-03-26';
const SESSION_HEADER = 'mcp-session-id';

function notFound(ex: Exchange): void {
  ex.log.error = 'not_found';
  sendJson(ex.res, 404, { error: 'not_found', error_description: 'this server has no MCP endpoint (config mcp.enabled)' });
}

/** A refusal of the transport (not of the token): HTTP status, with a JSON-RPC error body. */
function transportError(ex: Exchange, status: number, text: string, id: JsonRpcId | null = null, code = INVALID_REQUEST, data?: unknown): void {
  ex.log.error = 'invalid_request';
  ex.log.errorDescription = errorDescription(text);
  sendJson(ex.res, status, failure(id, code, text, data));
}

/**
 * The Origin check against DNS rebinding (basic/transports, security warning): a browser's request is
 * taken from the server's own origin or a loopback one; another is 403. A request without Origin is
 * not a browser's.
 */
function originRefused(ex: Exchange): boolean {
  const origin = ex.req.headers.origin;
  if (origin === undefined) return false;
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (url && (url.origin === new URL(ex.state.issuer).origin || isLoopbackHost(url.hostname))) return false;
  ex.log.error = 'forbidden';
  ex.log.errorDescription = 'Origin refused';
  sendJson(ex.res, 403, failure(null, INVALID_REQUEST, `requests from origin ${errorDescription(origin).slice(0, 200)} are refused (DNS rebinding protection)`));
  return true;
}

/** The version the request speaks: its MCP-Protocol-Version header, one the server knows; undefined when it is refused (400 sent). */
function requestVersion(ex: Exchange): string | undefined {
  const header = ex.req.headers['mcp-protocol-version'];
  if (header === undefined) return ASSUMED_VERSION;
  if (typeof header === 'string' && legacyVersions(ex).includes(header)) return header;
  transportError(ex, 400, `unsupported MCP-Protocol-Version (supported: ${ex.state.config.mcp.protocolVersions.join(', ')})`);
  return undefined;
}

/** The answer to one request: one JSON body, or an SSE stream carrying it (config mcp.response). */
function answer(ex: Exchange, message: unknown, headers: Record<string, string> = {}): void {
  ex.log.outcome ??= 'ok';
  if (ex.state.config.mcp.response === 'json') return sendJson(ex.res, 200, message, { 'Cache-Control': 'no-store', ...headers });
  const body = sseEvent(message);
  respond(ex.res, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body), ...headers }, body);
}

function negotiate(ex: Exchange, params: Record<string, unknown>): string | undefined {
  // In the 2025-03-26 revision's role the endpoint speaks that version only.
  const offered = ex.state.config.mcp.revision === '2025-03-26' ? [ASSUMED_VERSION] : legacyVersions(ex);
  return typeof params.protocolVersion === 'string' && offered.includes(params.protocolVersion) ? params.protocolVersion : offered[0];
}

function initialize(ex: Exchange, id: JsonRpcId, params: Record<string, unknown>, claims: AccessTokenClaims): void {
  const protocolVersion = negotiate(ex, params);
  // 2026-07-28 basic/versioning: a server without initialize names the revisions it speaks in its refusal.
  if (protocolVersion === undefined) {
    const supported = ex.state.config.mcp.protocolVersions;
    return transportError(ex, 400, `this server speaks ${supported.join(', ')} only, without initialize (config mcp.protocol_versions)`, id, UNSUPPORTED_PROTOCOL_VERSION, {
      supported,
      requested: String(params.protocolVersion).slice(0, 40),
    });
  }
  const headers: Record<string, string> = {};
  if (ex.state.config.mcp.sessions) headers['Mcp-Session-Id'] = startSession(ex.state, { protocolVersion, owner: ownerOf(claims) });
  answer(ex, result(id, { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'oauthctl-mock', title: 'oauthctl mock MCP server', version: '1.0.0' } }), headers);
}

function toolsCall(ex: Exchange, id: JsonRpcId, params: Record<string, unknown>, claims: AccessTokenClaims, modern: boolean): void {
  const name = typeof params.name === 'string' ? params.name : '';
  // Step-up (MCP 2025-11-25, authorization, scope challenge handling): the tool's scopes, asked for with 403 insufficient_scope.
  const needed = toolScopes(ex.state.config.mcp, name);
  if (!hasScopes(claims, needed)) return refuse(ex, 403, needed, 'insufficient_scope', `the tool ${name} needs scope ${needed.join(' ')}`);
  if (name === 'greet') {
    if (!modern) return greetLegacy(ex, id, ownerOf(claims));
    const outcome = greetModern(ex.state.config, params, ownerOf(claims));
    return answer(ex, 'error' in outcome ? failure(id, INVALID_PARAMS, outcome.error) : result(id, outcome.result));
  }
  const outcome = callTool(params.name, params.arguments, claims);
  if (!outcome.ok) return answer(ex, failure(id, INVALID_PARAMS, outcome.message));
  answer(ex, result(id, modern ? { resultType: 'complete', ...outcome.result } : outcome.result));
}

/** A 2026-07-28 request (stateless: no session; basic/transports/streamable-http): checked, then answered. */
function modernPost(ex: Exchange, message: McpMessage, claims: AccessTokenClaims): void {
  if (message.kind !== 'request') {
    ex.log.outcome = 'ok';
    return respond(ex.res, 202, { 'Content-Length': 0 });
  }
  // In the 2025-03-26 revision's role the endpoint speaks that version only.
  const supported = ex.state.config.mcp.revision === '2025-03-26' ? [ASSUMED_VERSION] : ex.state.config.mcp.protocolVersions;
  if (checkModernRequest(ex, message, supported) === undefined) return;
  const { id, method, params } = message;
  if (method === 'server/discover') return answer(ex, result(id, discoverResult(supported)));
  if (method === 'ping') return answer(ex, result(id, { resultType: 'complete' }));
  if (method === 'tools/list') return answer(ex, result(id, { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: TOOLS }));
  if (method === 'tools/call') return toolsCall(ex, id, params, claims, true);
  // basic/transports/streamable-http, Request Metadata: a method the server does not implement is 404 with -32601.
  ex.log.error = 'method_not_found';
  sendJson(ex.res, 404, failure(id, METHOD_NOT_FOUND, 'method not found (this server has: server/discover, ping, tools/list, tools/call)'));
}

/**
 * POST {base_url}/mcp: one JSON-RPC message, in the 2026-07-28 revision (a request carrying its version)
 * or an earlier one (initialize and sessions; MCP 2025-11-25, basic/transports, sending messages to the server).
 */
export async function handleMcpPost(ex: Exchange): Promise<void> {
  const { mcp } = ex.state.config;
  if (!mcp.enabled) return notFound(ex);
  if (originRefused(ex)) return;
  const claims = await mcpBearer(ex);
  if (!claims) return;
  const accept = String(ex.req.headers.accept ?? '');
  if (!/application\/json/i.test(accept) || !/text\/event-stream/i.test(accept)) return transportError(ex, 406, 'Accept must list both application/json and text/event-stream');
  if (!/^application\/json\s*(;|$)/i.test(String(ex.req.headers['content-type'] ?? ''))) return transportError(ex, 415, 'Content-Type must be application/json');
  const message = parseMessage(await readBody(ex.req));
  if (message.kind === 'invalid') return transportError(ex, 400, message.message, message.id, message.code);
  if (isModernRequest(ex, message)) return modernPost(ex, message, claims);
  const isInitialize = message.kind === 'request' && message.method === 'initialize';
  if (!isInitialize) {
    if (requestVersion(ex) === undefined) return;
    if (mcp.sessions) {
      const id = ex.req.headers[SESSION_HEADER];
      if (typeof id !== 'string') return transportError(ex, 400, 'Mcp-Session-Id is required: send the one the initialize response gave');
      if (!findSession(ex.state, id, ownerOf(claims))) return transportError(ex, 404, 'no such session (ended, or never started): initialize again');
    }
  }
  // A notification or a response (to an elicitation of the server's) is accepted with 202 and no body.
  if (message.kind === 'response') answerElicitation(ex.state, message.id, ownerOf(claims), message);
  if (message.kind !== 'request') {
    ex.log.outcome = 'ok';
    return respond(ex.res, 202, { 'Content-Length': 0 });
  }
  const { id, method, params } = message;
  if (method === 'initialize') return initialize(ex, id, params, claims);
  if (method === 'ping') return answer(ex, result(id, {}));
  if (method === 'tools/list') return answer(ex, result(id, { tools: TOOLS }));
  if (method === 'tools/call') return toolsCall(ex, id, params, claims, false);
  answer(ex, failure(id, METHOD_NOT_FOUND, `method not found (this server has tools only: initialize, ping, tools/list, tools/call)`));
}

/** GET {base_url}/mcp: the server offers no stream of its own messages (basic/transports, listening for messages). */
export function handleMcpGet(ex: Exchange): void {
  if (!ex.state.config.mcp.enabled) return notFound(ex);
  ex.log.error = 'method_not_allowed';
  sendJson(ex.res, 405, failure(null, INVALID_REQUEST, 'this MCP server opens no SSE stream at GET: POST JSON-RPC messages'), { Allow: 'POST, DELETE' });
}

/** DELETE {base_url}/mcp: the client ends its session (basic/transports, session management). */
export async function handleMcpDelete(ex: Exchange): Promise<void> {
  const { mcp } = ex.state.config;
  if (!mcp.enabled) return notFound(ex);
  if (originRefused(ex)) return;
  if (!mcp.sessions) {
    ex.log.error = 'method_not_allowed';
    return sendJson(ex.res, 405, failure(null, INVALID_REQUEST, 'this MCP server is stateless: there is no session to end'), { Allow: 'POST' });
  }
  const claims = await mcpBearer(ex);
  if (!claims || requestVersion(ex) === undefined) return;
  const id = ex.req.headers[SESSION_HEADER];
  if (typeof id !== 'string') return transportError(ex, 400, 'Mcp-Session-Id is required');
  if (!findSession(ex.state, id, ownerOf(claims))) return transportError(ex, 404, 'no such session');
  endSession(ex.state, id);
  ex.log.outcome = 'session ended';
  respond(ex.res, 204, {});
}

/** GET of the metadata at a custom path, named only by the 401's resource_metadata (config mcp.resource_metadata "header"). */
export function handleMcpHeaderMetadata(ex: Exchange): void {
  const { enabled, revision, resourceMetadata: where } = ex.state.config.mcp;
  if (!enabled || revision === '2025-03-26' || where !== 'header') {
    ex.log.error = 'not_found';
    return sendJson(ex.res, 404, { error: 'not_found', error_description: 'the MCP endpoint has no metadata here' });
  }
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, resourceMetadata(mcpTarget(ex.state)), { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' });
}
