import { compareResource, resourceChallenge, resourceMetadataLocations, validateResourceMetadata } from '../../../oauth/resource-metadata.js';
import { mcpInitialize, resourceUrl } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * MCP 2025-11-25, authorization (protected resource metadata discovery) and RFC 9728 section 3.3: the
 * metadata an MCP client finds, from the 401's resource_metadata, else path-inserted, else at the root,
 * has the MCP server's URL as its `resource`; a client must not use metadata for another resource.
 */
export const mcpMetadataResourceProbe: AuditProbe = {
  id: 'mcp-metadata-resource',
  title: "the protected resource metadata's resource is the MCP server's URL",
  rfc: 'MCP 2025-11-25 authorization (resource metadata discovery); RFC 9728 §3.3',
  category: 'mcp',
  threat: 'RFC 9728 §7.3 (metadata of another resource sending clients to another authorization server)',
  remedy: "publish metadata whose resource member is exactly the MCP server's URL, where the 401's resource_metadata says",
  async run(ctx) {
    const url = resourceUrl(ctx);
    const first = await mcpInitialize(ctx, url);
    if (first.status !== 401) return skip(`not tested: HTTP ${first.status} to a POST of MCP initialize without a token`);
    const named = resourceChallenge(first.headers['www-authenticate']).resourceMetadata;
    const candidates = named !== undefined ? [named] : resourceMetadataLocations(url).map((l) => l.url);
    for (const candidate of candidates) {
      const res = await ctx.http.request(candidate, { headers: { accept: 'application/json' } });
      if (res.status !== 200) continue;
      let resource: string;
      try {
        resource = validateResourceMetadata(res.json()).resource;
      } catch (err) {
        return fail(`${candidate}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (compareResource(url, resource) !== 'equal') return fail(`${candidate} says resource ${resource}, not ${url}`);
      return pass(`${candidate} says resource ${resource}`);
    }
    return fail(`no protected resource metadata at ${candidates.join(' or ')}`);
  },
};
