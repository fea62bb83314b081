import { FlowError } from '../../errors.js';
import { credentialEndpointsOffIssuer, metadataLocations, MetadataError, validateMetadata, type AuthorizationServerMetadata, type ExtraEndpoint, type MetadataKind } from '../../oauth/discovery.js';
import type { FlowConfig } from './flow-config.js';
import type { HttpClient } from '../http/http.js';
import { JsonDepthError, parseJson } from '../../oauth/json.js';

export interface DiscoveredMetadata {
  metadata: AuthorizationServerMetadata;
  kind: MetadataKind;
  url: string;
  /** Endpoints that receive client credentials on another host than the issuer's (said before any secret is sent). */
  warnings: string[];
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
      const moved = res.status >= 300 && res.status < 400 && res.headers.location ? ` (Location: ${res.headers.location})` : '';
      tried.push(`${location.url} answered HTTP ${res.status}${moved}`);
      continue;
    }
    let json: unknown;
    try {
      json = parseJson(res.body, `the metadata at ${location.url}`);
    } catch (err) {
      if (err instanceof JsonDepthError) throw new FlowError(`discovery failed: ${err.message}`, 'give --auth-url / the endpoints instead');
      tried.push(`${location.url} answered a body that is not JSON`);
      continue;
    }
    try {
      const metadata = validateMetadata(json, issuer);
      const warnings = credentialEndpointsOffIssuer(metadata);
      // Said at discovery, before any request carries a secret to such an endpoint.
      for (const warning of warnings) http.warn?.(warning);
      return { metadata, kind: location.kind, url: location.url, warnings };
    } catch (err) {
      if (err instanceof MetadataError) {
        throw new FlowError(`discovery at ${location.url} failed: ${err.message}`, 'the issuer must match exactly, including any trailing slash; or give --auth-url / the endpoints instead');
      }
      throw err;
    }
  }
  throw new NoMetadataError(`no authorization server metadata for ${issuer}: ${tried.join('; ')}`, 'check --issuer, or give --auth-url or --authorization-endpoint and --token-endpoint');
}

/** The server answered, but at none of the metadata locations (as opposed to not answering at all). */
export class NoMetadataError extends FlowError {}

/**
 * An endpoint beyond authorize and token: its flag, else the metadata (RFC 8414 section 2) of --issuer,
 * else of --auth-url taken as the issuer, fetched once and kept on the config. undefined when the server
 * publishes no metadata or the metadata names no such endpoint; a server that cannot be reached is an error.
 */
export async function endpointOf(http: HttpClient, config: FlowConfig, name: ExtraEndpoint): Promise<string | undefined> {
  const given = config.endpoints[name];
  if (given !== undefined) return given;
  if (config.metadata === undefined) {
    const issuer = config.issuer ?? config.authUrl;
    if (issuer === undefined) return undefined;
    try {
      config.metadata = (await discoverMetadata(http, issuer)).metadata;
    } catch (err) {
      if (err instanceof NoMetadataError) return undefined;
      throw err;
    }
  }
  const value = config.metadata[name];
  return typeof value === 'string' ? value : undefined;
}
