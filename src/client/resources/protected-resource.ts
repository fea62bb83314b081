import { FlowError, UsageError } from '../../errors.js';
import {
  compareResource,
  issuerIdentifierProblem,
  MAX_RESOURCE_METADATA_BYTES,
  resourceChallenge,
  resourceMetadataLocations,
  ResourceMetadataError,
  validateResourceMetadata,
  type ProtectedResourceMetadata,
} from '../../oauth/resource-metadata.js';
import type { HttpClient } from '../http/http.js';

/** Something found wrong on the way: `error` breaks the chain, `warn` does not. `rule` is the section it breaks. */
export interface Finding {
  level: 'error' | 'warn';
  text: string;
  rule: string;
}

/** What was fetched, in order, and what it answered: the narration of `discover` and `--protected-resource`. */
export interface Fetched {
  url: string;
  /** GET unless said: an MCP server's first call is a POST of initialize. */
  method?: 'POST';
  status: number | 'unreachable';
  note?: string;
}

export interface ResourceDiscovery {
  /** The URL as asked. */
  resource: string;
  /** The unauthenticated call's status, and what its challenge says (RFC 9728 section 5.1). */
  probe: { status: number; resourceMetadata?: string; scope?: string };
  fetched: Fetched[];
  /** How the metadata was found: the 401's resource_metadata, the path-inserted or the root well-known URL. */
  how?: 'challenge' | 'path' | 'root';
  metadataUrl?: string;
  metadata?: ProtectedResourceMetadata;
  findings: Finding[];
}

/** The resource's answer to a call without a token, when the caller made that call itself (an MCP POST). */
export interface FirstAnswer {
  status: number;
  headers: Record<string, string>;
  /** How the call was made, when not a GET. */
  method?: 'POST';
}

/**
 * RFC 9728 from the resource: call it without a token (a GET, unless `given` is the answer to the
 * caller's own call); the metadata URL from the 401's `resource_metadata`, else the well-known
 * locations (section 3.1); the document's `resource` checked against the URL (section 3.3). Never
 * throws for what the servers say (that is in `findings`), only when a server cannot be reached at all.
 */
export async function discoverResource(http: HttpClient, resource: string, given?: FirstAnswer): Promise<ResourceDiscovery> {
  const found: ResourceDiscovery = { resource, probe: { status: 0 }, fetched: [], findings: [] };
  const first = given ?? (await http.request(resource, { headers: { accept: 'application/json' } }));
  const challenge = resourceChallenge(first.headers['www-authenticate']);
  found.probe = { status: first.status, ...challenge };
  found.fetched.push({
    url: resource,
    ...(given?.method && { method: given.method }),
    status: first.status,
    note: challenge.resourceMetadata ? `WWW-Authenticate names resource_metadata ${challenge.resourceMetadata}` : undefined,
  });
  if (first.status === 401 && challenge.resourceMetadata === undefined) {
    found.findings.push({ level: 'warn', text: 'the 401 has no resource_metadata in its WWW-Authenticate challenge', rule: 'RFC 9728 section 5.1' });
  } else if (first.status === 405 && given === undefined) {
    // An MCP server answers POST only (MCP basic/transports): a GET's 405 is its normal answer, no finding.
    found.fetched[found.fetched.length - 1]!.note = 'a GET is not allowed (an MCP server takes POST)';
  } else if (first.status !== 401) {
    found.findings.push({ level: 'warn', text: `the resource answered HTTP ${first.status} to a call without a token, not 401`, rule: 'RFC 6750 section 3.1' });
  }
  const candidates: { url: string; how: 'challenge' | 'path' | 'root' }[] = [];
  if (challenge.resourceMetadata !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(challenge.resourceMetadata);
    } catch {
      found.findings.push({ level: 'warn', text: `resource_metadata is not an absolute URL: ${challenge.resourceMetadata}`, rule: 'RFC 9728 section 5.1' });
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
      found.findings.push({ level: 'warn', text: `resource_metadata is not an http(s) URL: ${challenge.resourceMetadata}`, rule: 'RFC 9728 section 5.1' });
    else if (url) {
      if (url.origin !== new URL(resource).origin) {
        found.findings.push({
          level: 'warn',
          text: `the metadata URL is on another host (${url.origin}) than the resource: only its resource member decides whether it may be used`,
          rule: 'RFC 9728 section 7.3',
        });
      }
      candidates.push({ url: url.href, how: 'challenge' });
    }
  }
  for (const location of resourceMetadataLocations(resource)) if (!candidates.some((c) => c.url === location.url)) candidates.push(location);
  for (const candidate of candidates) {
    const res = await http.request(candidate.url, { headers: { accept: 'application/json' } });
    if (res.status !== 200) {
      found.fetched.push({ url: candidate.url, status: res.status, note: res.status >= 300 && res.status < 400 ? 'a redirect, not followed' : undefined });
      continue;
    }
    if (Buffer.byteLength(res.body) > MAX_RESOURCE_METADATA_BYTES) {
      found.fetched.push({ url: candidate.url, status: res.status, note: `larger than ${MAX_RESOURCE_METADATA_BYTES / 1024} KiB: not read` });
      found.findings.push({ level: 'error', text: `the metadata at ${candidate.url} is larger than ${MAX_RESOURCE_METADATA_BYTES / 1024} KiB`, rule: 'RFC 9728 section 3.2' });
      return found;
    }
    let metadata: ProtectedResourceMetadata;
    try {
      metadata = validateResourceMetadata(JSON.parse(res.body));
    } catch (err) {
      found.fetched.push({ url: candidate.url, status: res.status, note: 'not valid metadata' });
      found.findings.push({
        level: 'error',
        text: err instanceof ResourceMetadataError ? `${candidate.url}: ${err.message}` : `${candidate.url} answered a body that is not JSON`,
        rule: 'RFC 9728 section 3.2',
      });
      return found;
    }
    found.fetched.push({ url: candidate.url, status: res.status });
    Object.assign(found, { how: candidate.how, metadataUrl: candidate.url, metadata });
    const match = compareResource(resource, metadata.resource);
    if (match === 'prefix') {
      found.findings.push({
        level: 'warn',
        text: `the metadata's resource ${metadata.resource} is a prefix of ${resource}, not the same URL (accepted, as the MCP SDK does)`,
        rule: 'RFC 9728 section 3.3',
      });
    } else if (match === 'mismatch') {
      found.findings.push({ level: 'error', text: `the metadata's resource ${metadata.resource} is not ${resource}: the metadata must not be used`, rule: 'RFC 9728 section 3.3' });
    }
    if (!metadata.authorization_servers?.length) found.findings.push({ level: 'error', text: 'the metadata names no authorization_servers', rule: 'RFC 9728 section 2' });
    for (const server of metadata.authorization_servers ?? []) {
      const problem = issuerIdentifierProblem(server);
      if (problem !== undefined)
        found.findings.push({ level: 'error', text: `authorization_servers entry ${JSON.stringify(server)} ${problem}: not an issuer identifier, not followed`, rule: 'RFC 8414 section 2' });
    }
    return found;
  }
  found.findings.push({ level: 'error', text: `no protected resource metadata found for ${resource}`, rule: 'RFC 9728 section 3' });
  return found;
}

/** The chain's first breaking finding as the error a flow stops with. */
export function resourceDiscoveryError(found: ResourceDiscovery): FlowError | undefined {
  const broken = found.findings.find((f) => f.level === 'error');
  if (!broken) return undefined;
  return new FlowError(`${broken.text} (${broken.rule})`, 'check the URL; `oauthctl discover URL` shows the whole chain');
}

/** RFC 9728 section 2: the only authorization server, or the one `--issuer` names among them. */
export function chooseAuthorizationServer(metadata: ProtectedResourceMetadata, issuer: string | undefined): string {
  const servers = metadata.authorization_servers ?? [];
  const norm = (s: string) => s.replace(/\/+$/, '');
  if (issuer !== undefined) {
    const named = servers.find((s) => norm(s) === norm(issuer));
    if (named === undefined) throw new UsageError(`--issuer ${issuer} is not one of the resource's authorization servers: ${servers.join(', ')}`, 'give one of them with --issuer');
    return named;
  }
  if (servers.length === 1) return servers[0]!;
  throw new UsageError(`the resource names ${servers.length} authorization servers: ${servers.join(', ')}`, 'choose one with --issuer URL');
}
