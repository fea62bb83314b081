import type { HttpResponse } from '../../../client/http/http.js';
import { MCP_INITIALIZE, presentsAsMcp, resourceUrl, serverError, workingToken } from '../../protected-resource.js';
import type { AuditContext } from '../../context.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** The revision whose standard headers the probe checks (MCP 2026-07-28, SEP-2243). */
const MODERN = '2026-07-28';

/** A JSON-RPC request of the 2026-07-28 revision: its revision in `_meta`, and the standard headers as `headers` says. */
function modernRequest(ctx: AuditContext, token: string, method: string, headers: Record<string, string>): Promise<HttpResponse> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'oauthctl-audit', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  return ctx.http.request(resourceUrl(ctx), {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN, ...headers },
    body,
  });
}

/** The JSON-RPC message of an answer, JSON or the first event of an SSE stream (MCP basic/transports). */
function rpcMessage(res: HttpResponse): Record<string, unknown> | undefined {
  const text = /text\/event-stream/i.test(res.headers['content-type'] ?? '') ? (/^data: ?(.*)$/m.exec(res.body)?.[1] ?? '') : res.body;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The revision the server agreed to at initialize (the audit's own 2025-11-25 handshake), for the "not tested" line. */
async function legacyRevision(ctx: AuditContext, token: string): Promise<string> {
  const res = await ctx.http.request(resourceUrl(ctx), {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: MCP_INITIALIZE,
  });
  const version = (rpcMessage(res)?.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return typeof version === 'string' ? version : 'an earlier revision';
}

/**
 * MCP 2026-07-28, basic/transports (standard headers, SEP-2243): every request carries MCP-Protocol-Version,
 * Mcp-Method and (for the methods that name something) Mcp-Name, and the server rejects a request whose
 * headers disagree with its body (400, HeaderMismatch): a proxy or gateway routes and authorizes by the
 * headers, so a body that says otherwise would slip past it. Judged only on a server that speaks the
 * revision; one that speaks an earlier one only is not tested, saying which.
 */
export const mcpStandardHeadersProbe: AuditProbe = {
  id: 'mcp-standard-headers',
  title: 'Mcp-Method that disagrees with the body is refused (2026-07-28)',
  rfc: 'MCP 2026-07-28 basic/transports (standard headers, SEP-2243)',
  category: 'mcp',
  threat: 'SEP-2243 (a gateway that authorizes by the headers while the server acts on the body; RFC 9110 §5)',
  remedy: 'validate MCP-Protocol-Version, Mcp-Method and Mcp-Name against the JSON-RPC body; answer 400 when they disagree',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    if (!presentsAsMcp(ctx)) return skip('not tested: not an MCP server (it takes its token on a GET)');
    const honest = await modernRequest(ctx, token, 'tools/list', { 'mcp-method': 'tools/list' });
    const message = rpcMessage(honest);
    if (honest.status !== 200 || message?.result === undefined) return skip(`not tested: the server speaks only ${await legacyRevision(ctx, token)}, not ${MODERN}`);
    const lying = await modernRequest(ctx, token, 'tools/list', { 'mcp-method': 'tools/call', 'mcp-name': 'oauthctl-audit' });
    const what = `a ${MODERN} tools/list whose Mcp-Method header says tools/call`;
    if (lying.status >= 500) return fail(serverError(lying, what));
    if (lying.status >= 200 && lying.status < 300 && rpcMessage(lying)?.result !== undefined) return fail(`${what} was answered (HTTP ${lying.status}): the headers are not checked against the body`);
    if (lying.status !== 400) return fail(`${what}: HTTP ${lying.status}, not 400 (SEP-2243 HeaderMismatch)`);
    return pass(`${what}: HTTP 400`);
  },
};
