import { FlowError } from '../errors.js';
import { metadataLocations, MetadataError, validateMetadata, type AuthorizationServerMetadata, type MetadataKind } from '../oauth/discovery.js';
import type { HttpClient } from './http.js';

export interface DiscoveredMetadata {
  metadata: AuthorizationServerMetadata;
  kind: MetadataKind;
  url: string;
}

/**
 * Fetches the issuer's metadata: RFC 8414 first, then OpenID Connect Discovery. A document whose issuer
 * is not the one asked for is an error, never a reason to try the next location (RFC 8414 section 3.3).
 */
export async function discoverMetadata(http: HttpClient, issuer: string): Promise<DiscoveredMetadata> {
  const tried: string[] = [];
  for (const location of metadataLocations(issuer)) {
    const res = await http.request(location.url, { headers: { accept: 'application/json' } });
    if (res.status !== 200) {
      tried.push(`${location.url} answered HTTP ${res.status}`);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      tried.push(`${location.url} answered a body that is not JSON`);
      continue;
    }
    try {
      return { metadata: validateMetadata(json, issuer), kind: location.kind, url: location.url };
    } catch (err) {
      if (err instanceof MetadataError) {
        throw new FlowError(`discovery at ${location.url} failed: ${err.message}`, 'the issuer must match exactly, including any trailing slash; or give --auth-url / the endpoints instead');
      }
      throw err;
    }
  }
  throw new FlowError(`no authorization server metadata for ${issuer}: ${tried.join('; ')}`, 'check --issuer, or give --auth-url or --authorization-endpoint and --token-endpoint');
}
