import { compareResource, resourceChallenge, resourceMetadataLocations, validateResourceMetadata } from '../../../oauth/resource-metadata.js';
import { type AuditContext } from '../../context.js';
import { mcpInitialize, resourceDiscovery, resourceUrl } from '../../protected-resource.js';
import { fail, pass, type AuditProbe } from '../../types.js';

const WHERE = { path: 'path-inserted', root: 'root' } as const;

/** Whether `url` serves valid metadata (RFC 9728 section 3.2) whose resource is `resource`; else why not. */
async function servesMetadata(ctx: AuditContext, url: string, resource: string): Promise<true | string> {
  const res = await ctx.http.request(url, { headers: { accept: 'application/json' } });
  if (res.status !== 200) return `HTTP ${res.status}`;
  try {
    const declared = validateResourceMetadata(res.json()).resource;
    return compareResource(resource, declared) === 'equal' ? true : `metadata for ${declared}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * RFC 9728 sections 3.1 and 5.1, MCP 2025-11-25 and 2026-07-28 authorization (protected resource
 * metadata discovery): a client takes the metadata URL from the 401's resource_metadata, else tries
 * the well-known URL with the resource's path inserted, then the one at the root. The resource's
 * metadata must be at one of them; where it is, is said.
 */
export const resourceMetadataLocationProbe: AuditProbe = {
  id: 'resource-metadata-location',
  title: 'the protected resource metadata is where clients look for it',
  rfc: 'RFC 9728 §3.1',
  category: 'protected-resource',
  threat: 'RFC 9728 §3.1 (a client that cannot find the metadata cannot find the authorization server)',
  remedy: 'serve the metadata at /.well-known/oauth-protected-resource with the resource path inserted (or at the root), or name its URL in the 401 challenge as resource_metadata',
  async run(ctx) {
    const url = resourceUrl(ctx);
    const found = await resourceDiscovery(ctx);
    // An MCP server answers its 401 to a POST only: its challenge is asked for there.
    const named = found.probe.resourceMetadata ?? resourceChallenge((await mcpInitialize(ctx, url)).headers['www-authenticate']).resourceMetadata;
    const served: string[] = [];
    const missing: string[] = [];
    for (const location of resourceMetadataLocations(url)) {
      const answer = await servesMetadata(ctx, location.url, url);
      if (answer === true) served.push(`${location.url} (${WHERE[location.how]})`);
      else missing.push(`${location.url} (${WHERE[location.how]}): ${answer}`);
    }
    const namedAnswer = named === undefined ? undefined : await servesMetadata(ctx, named, url);
    const viaChallenge = named !== undefined ? (namedAnswer === true ? `; the 401 names ${named}` : `; the 401 names ${named}, which answers ${namedAnswer}`) : '; the 401 names none';
    if (served.length > 0) return pass(`served at ${served.join(' and ')}${missing.length > 0 ? `; not at ${missing.join(', ')}` : ''}${viaChallenge}`);
    if (namedAnswer === true) return pass(`at neither well-known location (${missing.join('; ')}), but the 401's resource_metadata names ${named}, which clients try first (RFC 9728 section 5.1)`);
    return fail(`no metadata for ${url} where a client looks: ${missing.join('; ')}${viaChallenge}`);
  },
};
