import { mcpInitialize, mustRefuse, presentsAsMcp, resourceUrl, workingToken } from '../../protected-resource.js';
import { skip, type AuditProbe } from '../../types.js';

/**
 * MCP 2025-11-25, authorization (token requirements: access tokens MUST NOT be in the URI query
 * string) and RFC 6750 section 2.3: a valid token in `?access_token=` of a POST initialize is not taken.
 */
export const mcpQueryTokenProbe: AuditProbe = {
  id: 'mcp-query-token',
  title: 'a token in the query string of a POST initialize is refused',
  rfc: 'MCP 2025-11-25 authorization (token requirements); RFC 6750 §2.3',
  category: 'mcp',
  threat: 'RFC 6750 §5.3 (tokens in logs and Referer headers)',
  remedy: 'take access tokens from the Authorization header only; ignore access_token in the URL',
  needsFlow: true,
  async run(ctx) {
    const token = await workingToken(ctx);
    if (!presentsAsMcp(ctx)) return skip('not an MCP server: it takes its token on a GET (resource-query-token covers it)');
    const url = new URL(resourceUrl(ctx));
    url.searchParams.set('access_token', token);
    return mustRefuse(await mcpInitialize(ctx, url.href), 'a valid token in ?access_token= of a POST of MCP initialize');
  },
};
