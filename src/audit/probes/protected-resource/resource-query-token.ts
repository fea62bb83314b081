import { mustRefuse, present, presentsAsMcp, tokenDecision, workingToken } from '../../protected-resource.js';
import { warn, type AuditProbe } from '../../types.js';

/**
 * RFC 6750 section 2.3 and 5.3: a token in the query string ends up in logs and Referer headers. RFC
 * 6750 lets a resource take it (clients "SHOULD NOT" send it), so one that does is warned about; MCP
 * forbids it (authorization, token requirements), so an MCP server that takes it fails.
 */
export const resourceQueryTokenProbe: AuditProbe = {
  id: 'resource-query-token',
  title: 'a token in the query string is refused',
  rfc: 'RFC 6750 §2.3',
  category: 'protected-resource',
  threat: 'RFC 6750 §5.3',
  remedy: 'take access tokens from the Authorization header only; ignore access_token in the URL',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    const mcp = presentsAsMcp(ctx);
    const what = `a valid token in ?access_token= of a ${mcp ? 'POST of MCP initialize' : 'GET'}`;
    const res = await present(ctx, token, 'query');
    if (!mcp && tokenDecision(res) === 'accepted') return warn(`${what} was accepted (HTTP ${res.status}): such tokens end up in logs and Referer headers (RFC 6750 section 5.3)`);
    return mustRefuse(res, what);
  },
};
