import { isValidScopeToken } from '../../../oauth/scope.js';
import { isJsonObject } from '../../../oauth/json.js';

/**
 * The configuration of the mock as the resource side sees it, validated at start like the rest of
 * config.ts: more protected resources (RFC 9728), dynamic client registration (RFC 7591) and Client ID
 * Metadata Documents.
 */
export interface ProtectedResourceConfig {
  /** The resource is `{root}{path}`; its metadata at `{root}/.well-known/oauth-protected-resource{path}` (RFC 9728 section 3.1). */
  path: string;
  /** The scopes a token needs at this resource; also its metadata's `scopes_supported`. */
  scopes: string[];
  /** The named issuer (config `issuers`) whose tokens it accepts; the root issuer when absent. */
  issuer?: string;
}

export interface RegistrationConfig {
  /** Anyone may register (RFC 7591 section 3); default: when the mock listens on loopback. */
  open?: boolean;
  /** RFC 7591 section 3.1: a registration must carry this bearer token (then `open` is false by default). */
  initialAccessToken?: string;
}

export interface ResourceSideConfig {
  /** Mutable at run time: POST /_mock/resources adds to it. */
  protectedResources: ProtectedResourceConfig[];
  registration: RegistrationConfig;
  clientIdMetadataDocuments: { allowHttpLoopback: boolean };
}

export const RESOURCE_TOP_KEYS = ['protected_resources', 'registration', 'client_id_metadata_documents'];

type Obj = Record<string, unknown>;
type Fail = (field: string, message: string) => void;

/** A path the mock's own routes and well-known documents do not use (RFC 9728 section 3.1 inserts it after the well-known name). */
const PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]{1,200}$/;
const RESERVED = [
  '/authorize',
  '/token',
  '/login',
  '/consent',
  '/device',
  '/device_authorization',
  '/userinfo',
  '/introspect',
  '/revoke',
  '/par',
  '/jwks',
  '/register',
  '/api',
  '/_mock',
  '/.well-known',
  '/assets',
];

export function validateResourceSideTop(input: Obj, fail: Fail, issuerNames: readonly string[]): ResourceSideConfig {
  const config: ResourceSideConfig = { protectedResources: [], registration: {}, clientIdMetadataDocuments: { allowHttpLoopback: false } };
  if (input.protected_resources !== undefined) {
    if (!Array.isArray(input.protected_resources)) fail('protected_resources', 'must be an array of {"path", "scopes", "issuer"?} objects');
    else
      input.protected_resources.forEach((r, i) => {
        const checked = checkProtectedResource(r, issuerNames, config.protectedResources);
        if (typeof checked === 'object' && 'problem' in checked) fail(`protected_resources[${i}]${checked.field ? `.${checked.field}` : ''}`, checked.problem);
        else config.protectedResources.push(checked);
      });
  }
  if (input.registration !== undefined) {
    const r = input.registration;
    if (!isJsonObject(r)) fail('registration', 'must be an object: {"open": true|false, "initial_access_token": "..."}');
    else {
      for (const key of Object.keys(r)) if (key !== 'open' && key !== 'initial_access_token' && !key.startsWith('//')) fail(`registration.${key}`, 'unknown field (known: open, initial_access_token)');
      if (r.open !== undefined && typeof r.open !== 'boolean') fail('registration.open', 'must be true or false');
      else if (r.open !== undefined) config.registration.open = r.open;
      if (r.initial_access_token !== undefined && (typeof r.initial_access_token !== 'string' || !/^[\x21-\x7e]{8,500}$/.test(r.initial_access_token)))
        fail('registration.initial_access_token', 'must be a printable ASCII string of 8 to 500 characters without spaces');
      else if (typeof r.initial_access_token === 'string') config.registration.initialAccessToken = r.initial_access_token;
    }
  }
  if (input.client_id_metadata_documents !== undefined) {
    const c = input.client_id_metadata_documents;
    if (!isJsonObject(c) || (c.allow_http_loopback !== undefined && typeof c.allow_http_loopback !== 'boolean') || Object.keys(c).some((k) => k !== 'allow_http_loopback' && !k.startsWith('//')))
      fail('client_id_metadata_documents', 'must be an object: {"allow_http_loopback": true|false}');
    else config.clientIdMetadataDocuments.allowHttpLoopback = c.allow_http_loopback === true;
  }
  return config;
}

/** One protected resource, from the configuration or POST /_mock/resources: the resource or the field at fault. */
export function checkProtectedResource(r: unknown, issuerNames: readonly string[], existing: readonly ProtectedResourceConfig[]): ProtectedResourceConfig | { field: string; problem: string } {
  if (!isJsonObject(r)) return { field: '', problem: 'must be an object: {"path", "scopes", "issuer"?}' };
  for (const key of Object.keys(r)) if (!['path', 'scopes', 'issuer'].includes(key) && !key.startsWith('//')) return { field: key, problem: 'unknown field (known: path, scopes, issuer)' };
  const path = r.path;
  if (typeof path !== 'string' || !PATH.test(path) || path.endsWith('/') || path.includes('//') || /\/\.\.?(\/|$)/.test(path))
    return { field: 'path', problem: 'must be a path such as "/mcp": it starts with /, has no trailing slash, query or fragment' };
  const reserved = RESERVED.find((p) => path === p || path.startsWith(`${p}/`));
  if (reserved) return { field: 'path', problem: `${reserved} is the mock's own; choose another path` };
  if (issuerNames.some((n) => path === `/${n}` || path.startsWith(`/${n}/`))) return { field: 'path', problem: 'starts with the name of a named issuer, whose requests go to that issuer' };
  if (existing.some((e) => e.path === path)) return { field: 'path', problem: `a protected resource at ${path} exists already` };
  if (!Array.isArray(r.scopes) || r.scopes.some((s) => typeof s !== 'string' || !isValidScopeToken(s)))
    return { field: 'scopes', problem: 'must be an array of scope tokens (RFC 6749 section 3.3), [] for none' };
  if (r.issuer !== undefined && (typeof r.issuer !== 'string' || !issuerNames.includes(r.issuer)))
    return { field: 'issuer', problem: issuerNames.length === 0 ? 'there are no named issuers (config issuers); leave issuer out' : `must be one of the named issuers: ${issuerNames.join(', ')}` };
  return { path, scopes: [...new Set(r.scopes as string[])], ...(typeof r.issuer === 'string' ? { issuer: r.issuer } : {}) };
}
