import { parseWwwAuthenticate } from './www-authenticate.js';

/** RFC 9728 section 2: what a protected resource says about itself (the members the client uses). */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
  resource_name?: string;
  [member: string]: unknown;
}

/** RFC 9728 section 3: the well-known name. */
export const RESOURCE_METADATA_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** No protected resource metadata comes near this; a larger document is refused (memory, not the RFC). */
export const MAX_RESOURCE_METADATA_BYTES = 256 * 1024;

/**
 * Where a resource's metadata is looked for when no 401 names it: the well-known name inserted between
 * the host and the path (RFC 9728 section 3.1), then at the root, as the MCP SDK tries them.
 */
export function resourceMetadataLocations(resource: string): { url: string; how: 'path' | 'root' }[] {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/+$/, '');
  const root = `${url.origin}${RESOURCE_METADATA_WELL_KNOWN}`;
  return path === ''
    ? [{ url: root, how: 'root' }]
    : [
        { url: `${root}${path}`, how: 'path' },
        { url: root, how: 'root' },
      ];
}

/** RFC 9728 section 5.1: the parameters of a 401's Bearer (or DPoP) challenge the client uses. */
export function resourceChallenge(header: string | undefined): { resourceMetadata?: string; scope?: string; error?: string } {
  if (!header) return {};
  const challenges = parseWwwAuthenticate(header).filter((c) => /^(bearer|dpop)$/i.test(c.scheme));
  const found = challenges.find((c) => c.params.resource_metadata !== undefined) ?? challenges[0];
  if (!found) return {};
  const { resource_metadata: resourceMetadata, scope, error } = found.params;
  return { ...(resourceMetadata !== undefined && { resourceMetadata }), ...(scope !== undefined && { scope }), ...(error !== undefined && { error }) };
}

export class ResourceMetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourceMetadataError';
  }
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** RFC 9728 section 2: a JSON object with a `resource`, and arrays of strings where the members are arrays. */
export function validateResourceMetadata(json: unknown): ProtectedResourceMetadata {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new ResourceMetadataError('the protected resource metadata is not a JSON object (RFC 9728 section 2)');
  const m = json as Record<string, unknown>;
  if (typeof m.resource !== 'string' || m.resource === '') throw new ResourceMetadataError('the protected resource metadata has no resource (RFC 9728 section 2: REQUIRED)');
  for (const member of ['authorization_servers', 'scopes_supported', 'bearer_methods_supported', 'dpop_signing_alg_values_supported']) {
    if (m[member] !== undefined && !isStringArray(m[member])) throw new ResourceMetadataError(`${member} is not an array of strings (RFC 9728 section 2)`);
  }
  return m as ProtectedResourceMetadata;
}

/**
 * Why an `authorization_servers` entry cannot be an issuer identifier, or undefined when it can:
 * RFC 9728 section 2 lists issuer identifiers, and RFC 8414 section 2 makes one an https URL without
 * query or fragment (http is let through for servers on loopback and test setups). A `javascript:` or
 * `file:` entry, or one holding spaces or control characters, is never fetched.
 */
export function issuerIdentifierProblem(value: string): string | undefined {
  if (/[\x00-\x20\x7f-\x9f]/.test(value)) return 'holds spaces or control characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `is a ${url.protocol} URL, not an https one`;
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) return 'has a query or a fragment';
  return undefined;
}

/**
 * RFC 9728 section 3.3: the metadata's `resource` must be the URL the client used. `equal`; `prefix`
 * when it is the origin or a path prefix of that URL (the MCP SDK accepts this; the RFC does not);
 * `mismatch` otherwise, and then the metadata must not be used.
 */
export function compareResource(asked: string, declared: string): 'equal' | 'prefix' | 'mismatch' {
  if (declared === asked) return 'equal';
  let a: URL;
  let d: URL;
  try {
    a = new URL(asked);
    d = new URL(declared);
  } catch {
    return 'mismatch';
  }
  if (a.origin !== d.origin || d.search || d.hash) return 'mismatch';
  const dPath = d.pathname.replace(/\/+$/, '');
  const aPath = a.pathname.replace(/\/+$/, '');
  if (dPath === aPath) return 'prefix';
  return dPath === '' || aPath.startsWith(`${dPath}/`) ? 'prefix' : 'mismatch';
}
