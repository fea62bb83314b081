import { resourceChallenge } from '../../../oauth/resource-metadata.js';
import { mcpInitialize, resourceUrl } from '../../protected-resource.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * MCP 2025-11-25, authorization (protected resource metadata discovery; scope selection) and RFC 9728
 * section 5.1: the 401 to an MCP client's first request, a POST of initialize without a token, names
 * the metadata (`resource_metadata`) and should name the scope to ask for (`scope`).
 */
export const mcpChallengeProbe: AuditProbe = {
  id: 'mcp-401-challenge',
  title: 'a POST initialize without a token gets 401 with resource_metadata and scope',
  rfc: 'MCP 2025-11-25 authorization (resource metadata discovery); RFC 9728 §5.1',
  category: 'mcp',
  threat: 'RFC 9728 §5.1 (a client that cannot find the authorization server, or asks for every scope)',
  remedy: 'answer a POST without a token with 401 and WWW-Authenticate: Bearer resource_metadata="<metadata URL>", scope="<scopes needed>"',
  async run(ctx) {
    const url = resourceUrl(ctx);
    const res = await mcpInitialize(ctx, url);
    if (res.status >= 200 && res.status < 300) return fail(`${url} answered initialize without a token (HTTP ${res.status}): nothing of it is protected`);
    if (res.status >= 500) return fail(`HTTP ${res.status} to a POST of MCP initialize without a token: a ${res.status} is not a refusal, the MCP server must answer 401 with WWW-Authenticate`);
    if (res.status !== 401) return skip(`not tested: HTTP ${res.status} to a POST of MCP initialize without a token, which is no answer about authorization (is ${url} an MCP server?)`);
    const challenge = resourceChallenge(res.headers['www-authenticate']);
    if (challenge.resourceMetadata === undefined) return fail('the 401 has no resource_metadata in its WWW-Authenticate challenge (the 2025-03-26 revision had none; later ones require it)');
    if (challenge.scope === undefined) return warn(`401 with resource_metadata="${challenge.resourceMetadata}" but no scope: clients fall back to scopes_supported, all of them`);
    return pass(`401 with resource_metadata="${challenge.resourceMetadata}", scope="${challenge.scope}"`);
  },
};
