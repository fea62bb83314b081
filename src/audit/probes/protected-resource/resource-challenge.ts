import { resourceChallenge } from '../../../oauth/resource-metadata.js';
import { mcpInitialize, resourceDiscovery, resourceUrl } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/**
 * RFC 9728 section 5.1: a 401 of the resource names its metadata, so that a client can find the
 * authorization server. A resource that answers a GET with something that is no decision about
 * authorization (an MCP server's 405) is asked as MCP clients ask it: a POST of initialize.
 */
export const resourceChallengeProbe: AuditProbe = {
  id: 'resource-401-metadata',
  title: 'the 401 carries WWW-Authenticate with resource_metadata',
  rfc: 'RFC 9728 §5.1',
  category: 'protected-resource',
  threat: 'RFC 9728 §5.1',
  remedy: 'answer a call without a token with 401 and WWW-Authenticate: Bearer resource_metadata="<metadata URL>"',
  async run(ctx) {
    const found = await resourceDiscovery(ctx);
    let status = found.probe.status;
    let metadata = found.probe.resourceMetadata;
    let asked = 'a GET';
    if (status >= 500) return fail(`HTTP ${status} to a GET without a token: a ${status} is not a refusal, the resource must answer 401 with WWW-Authenticate (RFC 6750 section 3)`);
    if (status !== 401 && (status < 200 || status >= 300)) {
      const mcp = await mcpInitialize(ctx, resourceUrl(ctx));
      if (mcp.status >= 500)
        return fail(`HTTP ${mcp.status} to a POST of MCP initialize without a token: a ${mcp.status} is not a refusal, the resource must answer 401 with WWW-Authenticate (RFC 6750 section 3)`);
      if (mcp.status !== 401) return skip(`not tested: HTTP ${status} to a GET and HTTP ${mcp.status} to a POST of MCP initialize without a token, neither a decision about authorization`);
      ({ status } = mcp);
      metadata = resourceChallenge(mcp.headers['www-authenticate']).resourceMetadata;
      asked = 'a POST of MCP initialize';
    }
    if (status !== 401) return fail(`${resourceUrl(ctx)} answered HTTP ${status} to ${asked} without a token, not 401`);
    if (metadata === undefined) return fail(`the 401 to ${asked} has no resource_metadata in its WWW-Authenticate challenge`);
    return pass(`401 to ${asked} with resource_metadata="${metadata}"`);
  },
};
