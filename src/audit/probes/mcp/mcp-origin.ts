import { present, presentsAsMcp, resourceUrl, serverError, tokenDecision, workingToken } from '../../protected-resource.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/** An origin no MCP server of the audit's can be, as a web page that rebinds DNS would send. */
export const FOREIGN_ORIGIN = 'https://dns-rebinding.oauthctl.invalid';

/**
 * MCP 2025-11-25 basic/transports (Streamable HTTP, security warning): servers MUST validate the
 * Origin header of every request, and answer 403 to an invalid one, against DNS rebinding (a page of
 * another site reaching a server on the user's machine or network). The request carries a valid token,
 * so nothing but the Origin can be the reason for a refusal.
 */
export const mcpOriginProbe: AuditProbe = {
  id: 'mcp-origin',
  title: 'a request from a foreign Origin is refused with 403',
  rfc: 'MCP 2025-11-25 basic/transports (security warning)',
  category: 'mcp',
  threat: 'MCP basic/transports: DNS rebinding (a web page talking to an MCP server it should not reach; RFC 6454 origins)',
  remedy: 'check the Origin header of every request against the origins you serve; answer 403 to any other',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    if (!presentsAsMcp(ctx)) return skip('not tested: not an MCP server (it takes its token on a GET)');
    const res = await present(ctx, token, 'header', { origin: FOREIGN_ORIGIN });
    const decision = tokenDecision(res);
    const what = `a POST of MCP initialize with a valid token from Origin ${FOREIGN_ORIGIN}`;
    if (decision === 'server-error') return fail(serverError(res, what));
    if (decision === 'accepted') return fail(`${what} was answered (HTTP ${res.status}): ${resourceUrl(ctx)} does not check Origin (DNS rebinding)`);
    if (res.status === 403) return pass(`${what}: HTTP 403`);
    return warn(`${what}: HTTP ${res.status}, refused, but the transport specification says 403`);
  },
};
