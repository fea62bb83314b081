import { sendJson, type Exchange } from '../core/http/http.js';
import { RESOURCE_METADATA_WELL_KNOWN, resourceMetadata, targetOfMetadataPath } from '../core/tokens/protected-resources.js';

/**
 * GET /.well-known/oauth-protected-resource{path} (RFC 9728 section 3): the metadata of the protected
 * resource whose path follows the well-known name (`/api` for `{base_url}`), 404 for any other.
 */
export function handleResourceMetadata(ex: Exchange): void {
  const target = targetOfMetadataPath(ex.state, ex.path.slice(RESOURCE_METADATA_WELL_KNOWN.length));
  if (!target) {
    ex.log.error = 'not_found';
    return sendJson(ex.res, 404, { error: 'not_found', error_description: 'no protected resource of this server has its metadata here' });
  }
  ex.log.outcome = 'ok';
  sendJson(ex.res, 200, resourceMetadata(target), { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': '*' });
}
