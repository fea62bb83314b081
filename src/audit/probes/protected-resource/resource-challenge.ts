import { resourceDiscovery, resourceUrl } from '../../protected-resource.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9728 section 5.1: a 401 of the resource names its metadata, so that a client can find the authorization server. */
export const resourceChallengeProbe: AuditProbe = {
  id: 'resource-401-metadata',
  title: 'the 401 carries WWW-Authenticate with resource_metadata',
  rfc: 'RFC 9728 §5.1',
  category: 'protected-resource',
  threat: 'RFC 9728 §5.1',
  remedy: 'answer a call without a token with 401 and WWW-Authenticate: Bearer resource_metadata="<metadata URL>"',
  async run(ctx) {
    const found = await resourceDiscovery(ctx);
    if (found.probe.status !== 401) return fail(`${resourceUrl(ctx)} answered HTTP ${found.probe.status} to a call without a token, not 401`);
    if (found.probe.resourceMetadata === undefined) return fail('the 401 has no resource_metadata in its WWW-Authenticate challenge');
    return pass(`401 with resource_metadata="${found.probe.resourceMetadata}"`);
  },
};
