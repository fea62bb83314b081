import { FlowError } from '../../../errors.js';
import { discoverMetadata } from '../../../client/flows/endpoints.js';
import { resourceDiscovery } from '../../protected-resource.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9728 section 2 and RFC 8414 section 3: every authorization server the resource names answers valid metadata. */
export const resourceServersProbe: AuditProbe = {
  id: 'resource-authorization-servers',
  title: "the resource's authorization servers answer valid metadata",
  rfc: 'RFC 9728 §2',
  category: 'protected-resource',
  threat: 'RFC 8414 §3.3',
  remedy: 'list in authorization_servers only issuers whose RFC 8414 metadata is served and names that issuer exactly',
  async run(ctx) {
    const found = await resourceDiscovery(ctx);
    const servers = found.metadata?.authorization_servers ?? [];
    if (servers.length === 0) return fail('the metadata names no authorization_servers');
    const broken: string[] = [];
    for (const issuer of servers) {
      try {
        await discoverMetadata(ctx.http, issuer);
      } catch (err) {
        if (!(err instanceof FlowError)) throw err;
        broken.push(err.message);
      }
    }
    if (broken.length > 0) return fail(broken.join('; '));
    return pass(`${servers.join(', ')}: valid metadata`);
  },
};
