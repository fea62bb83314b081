import { presentsAsMcp, serverError, workingToken } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { legacyRevision, modernRequest, MODERN, rpcMessage, speaksModern } from './rpc.js';

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
    if (!(await speaksModern(ctx, token))) return skip(`not tested: the server speaks only ${await legacyRevision(ctx, token)}, not ${MODERN}`);
    const lying = await modernRequest(ctx, token, 'tools/list', { 'mcp-method': 'tools/call', 'mcp-name': 'oauthctl-audit' });
    const what = `a ${MODERN} tools/list whose Mcp-Method header says tools/call`;
    if (lying.status >= 500) return fail(serverError(lying, what));
    if (lying.status >= 200 && lying.status < 300 && rpcMessage(lying)?.result !== undefined) return fail(`${what} was answered (HTTP ${lying.status}): the headers are not checked against the body`);
    if (lying.status !== 400) return fail(`${what}: HTTP ${lying.status}, not 400 (SEP-2243 HeaderMismatch)`);
    return pass(`${what}: HTTP 400`);
  },
};
