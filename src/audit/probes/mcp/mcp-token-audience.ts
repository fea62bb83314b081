import { audienceOf, mcpInitialize, notTested, presentsAsMcp, resourceUrl, serverError, tokenDecision, tokenFor, workingToken } from '../../protected-resource.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * MCP 2025-11-25, authorization (token handling; access token privilege restriction) and RFC 8707
 * section 2: an MCP server takes only tokens issued for it. One that takes a token issued for another
 * resource is a confused deputy, and the way tokens get passed through (security best practices).
 */
export const mcpTokenAudienceProbe: AuditProbe = {
  id: 'mcp-token-audience',
  title: 'a token issued for another resource is refused at initialize',
  rfc: 'MCP 2025-11-25 authorization (token audience binding); RFC 8707 §2',
  category: 'mcp',
  threat: 'MCP security best practices (confused deputy, token passthrough); RFC 9700 §4.10',
  remedy: "check that the token's aud (or its introspected aud) is this MCP server's URL; refuse every other token",
  needsFlow: true,
  async run(ctx) {
    await workingToken(ctx);
    if (!presentsAsMcp(ctx)) return skip('not an MCP server: it takes its token on a GET (the protected-resource probes cover it)');
    const url = resourceUrl(ctx);
    const other = await tokenFor(ctx, { resource: null });
    const aud = audienceOf(other);
    if (aud?.includes(url)) return skip(`the server's tokens asked for without a resource are for ${url} too (aud ${aud.join(' ')}): no token for another resource to present`);
    const res = await mcpInitialize(ctx, url, other);
    const decision = tokenDecision(res);
    if (decision === 'server-error') return fail(serverError(res, `a token ${aud ? `for ${aud.join(' ')}` : 'asked for without a resource'}`));
    if (decision === undefined) return skip(notTested(res));
    if (decision === 'refused') return pass(`a token ${aud ? `for ${aud.join(' ')}` : 'asked for without a resource'}: HTTP ${res.status}`);
    if (aud === undefined) return warn(`an opaque token asked for without a resource was taken (HTTP ${res.status}): the server may default its audience to this MCP server`);
    return fail(`a token for ${aud.join(' ')} was taken (HTTP ${res.status}): the MCP server does not check the audience, so any token of the authorization server works here`);
  },
};
