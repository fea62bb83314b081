import { compareResource } from '../../../oauth/resource-metadata.js';
import { resourceDiscovery, resourceUrl } from '../../protected-resource.js';
import { fail, pass, warn, type AuditProbe } from '../../types.js';

/** RFC 9728 section 3.3: the metadata's resource is the URL the client used; otherwise it must not be used. */
export const resourceMetadataMatchProbe: AuditProbe = {
  id: 'resource-metadata-match',
  title: "the metadata's resource equals the resource URL",
  rfc: 'RFC 9728 §3.3',
  category: 'protected-resource',
  threat: 'RFC 9728 §7.3',
  remedy: "publish metadata whose resource member is exactly the resource's URL",
  async run(ctx) {
    const found = await resourceDiscovery(ctx);
    if (!found.metadata) return fail(found.findings.find((f) => f.level === 'error')?.text ?? 'no protected resource metadata found');
    const url = ctx.config.protectedResource ?? resourceUrl(ctx);
    const match = compareResource(url, found.metadata.resource);
    if (match === 'mismatch') return fail(`${found.metadataUrl} says resource ${found.metadata.resource}, not ${url}`);
    if (match === 'prefix') return warn(`${found.metadataUrl} says resource ${found.metadata.resource}, a prefix of ${url}, not the same URL`);
    return pass(`${found.metadataUrl} says resource ${found.metadata.resource}`);
  },
};
