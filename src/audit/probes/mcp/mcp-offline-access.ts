import { mcpInitialize, resourceDiscovery, resourceUrl } from '../../protected-resource.js';
import { resourceChallenge } from '../../../oauth/resource-metadata.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * MCP 2026-07-28 authorization (SEP-2207, refresh tokens): offline_access is the authorization
 * server's business, a client asks for it when the server offers it; an MCP server should not demand
 * it in its 401's scope nor list it among the scopes its metadata says it needs.
 */
export const mcpOfflineAccessProbe: AuditProbe = {
  id: 'mcp-offline-access',
  title: 'offline_access is not demanded in the challenge or the resource metadata',
  rfc: 'MCP 2026-07-28 authorization (SEP-2207)',
  category: 'mcp',
  threat: 'SEP-2207 (clients pushed to ask for refresh tokens an authorization server may not offer; RFC 6749 §6)',
  remedy: "leave offline_access out of the WWW-Authenticate scope and the protected resource metadata's scopes_supported",
  async run(ctx) {
    const res = await mcpInitialize(ctx, resourceUrl(ctx));
    if (res.status !== 401) return skip(`not tested: HTTP ${res.status} to a POST of MCP initialize without a token, no challenge to read`);
    const scope = resourceChallenge(res.headers['www-authenticate']).scope?.split(' ') ?? [];
    const listed = (await resourceDiscovery(ctx)).metadata?.scopes_supported ?? [];
    const where = [...(scope.includes('offline_access') ? ["the 401's scope"] : []), ...(listed.includes('offline_access') ? ["the metadata's scopes_supported"] : [])];
    if (where.length > 0) return warn(`offline_access is in ${where.join(' and ')}`);
    return pass(`no offline_access in the 401's scope (${scope.join(' ') || 'none'}) or scopes_supported (${listed.join(' ') || 'none'})`);
  },
};
