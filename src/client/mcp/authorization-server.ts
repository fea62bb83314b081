import { FlowError } from '../../errors.js';
import type { AuthorizationServerMetadata } from '../../oauth/discovery.js';
import { parseJson } from '../../oauth/json.js';
import { compareResource, resourceChallenge } from '../../oauth/resource-metadata.js';
import type { Renderer } from '../../output/render.js';
import { discoverMetadata } from '../flows/endpoints.js';
import type { HttpClient } from '../http/http.js';
import { chooseAuthorizationServer, discoverResource, resourceDiscoveryError, type FirstAnswer, type ResourceDiscovery } from '../resources/protected-resource.js';

const SPEC = 'MCP authorization 2025-11-25';
const LEGACY = 'MCP authorization 2025-03-26';

/** Where an MCP server's authorization happens, as its 401 and the metadata it leads to say. */
export interface McpAuthorizationServer {
  /** The resource indicator (RFC 8707): the metadata's `resource`, or the server's URL without it. */
  resource: string;
  /** The scope the 401 (or 403) asked for, and what the resource says it supports. */
  challengeScope?: string | undefined;
  scopesSupported?: string[] | undefined;
  /** The issuer registrations are kept under: the metadata's issuer, else the server's origin. */
  issuer: string;
  /** Checked against the redirect's `iss` (RFC 9207) only when it came from RFC 8414 discovery. */
  verifiedIssuer: boolean;
  metadata?: AuthorizationServerMetadata | undefined;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint?: string | undefined;
  resourceDiscovery?: ResourceDiscovery | undefined;
}

/**
 * From the MCP server's 401 to its authorization server (MCP authorization 2025-11-25, "Authorization
 * Server Discovery"): the protected resource metadata (RFC 9728) from the challenge's
 * `resource_metadata`, else the path-inserted, else the root well-known URL; its `resource` must be the
 * server's URL (RFC 9728 section 3.3); then the server's metadata at the well-known URLs in the
 * specification's order (RFC 8414 path-inserted, OpenID Connect path-inserted, path-appended). A
 * server without resource metadata is one of the 2025-03-26 revision: its origin is the
 * authorization server.
 */
export async function findAuthorizationServer(http: HttpClient, url: string, first: FirstAnswer, renderer: Renderer, issuerFlag?: string): Promise<McpAuthorizationServer> {
  const challenge = resourceChallenge(first.headers['www-authenticate']);
  renderer.step(`Protected resource metadata (RFC 9728; ${SPEC}, Protected Resource Metadata Discovery)`);
  if (challenge.resourceMetadata !== undefined) renderer.info(`the 401 names resource_metadata ${challenge.resourceMetadata}`);
  else renderer.info('the 401 names no resource_metadata: trying the well-known URLs (RFC 9728 section 3.1)');
  if (challenge.scope !== undefined) renderer.info(`the 401 asks for scope "${challenge.scope}" (RFC 6750 section 3)`);
  const found = await discoverResource(http, url, first);
  for (const f of found.fetched) renderer.info(`${f.method ?? 'GET'} ${f.url} -> ${f.status === 'unreachable' ? 'unreachable' : `HTTP ${f.status}`}${f.note ? ` (${f.note})` : ''}`);
  for (const finding of found.findings) if (finding.level === 'warn') renderer.warn(`${finding.text} (${finding.rule})`);
  if (found.metadata === undefined && found.fetched.every((f) => f.status !== 200)) return legacyServer(http, url, challenge.scope, renderer);
  const broken = resourceDiscoveryError(found);
  if (broken) throw broken;
  const prm = found.metadata!;
  const resource = compareResource(url, prm.resource) === 'mismatch' ? url : prm.resource;
  renderer.ok(`resource ${resource} (checked against ${url}, RFC 9728 section 3.3)`);
  const issuer = chooseAuthorizationServer(prm, issuerFlag);
  renderer.step(`Authorization server metadata (RFC 8414; ${SPEC}, Authorization Server Metadata Discovery)`);
  renderer.info(`authorization server: ${issuer}`);
  const discovered = await discoverMetadata(http, issuer);
  renderer.info(`${discovered.url} (${discovered.kind === 'oauth-authorization-server' ? 'RFC 8414' : 'OpenID Connect Discovery'})`);
  const m = discovered.metadata;
  requireS256(m);
  if (m.authorization_endpoint === undefined || m.token_endpoint === undefined) throw new FlowError(`${issuer}'s metadata names no authorization_endpoint or token_endpoint`, 'RFC 8414 section 2');
  return {
    resource,
    challengeScope: challenge.scope,
    scopesSupported: prm.scopes_supported,
    issuer: m.issuer,
    verifiedIssuer: true,
    metadata: m,
    authorizationEndpoint: m.authorization_endpoint,
    tokenEndpoint: m.token_endpoint,
    registrationEndpoint: typeof m.registration_endpoint === 'string' ? m.registration_endpoint : undefined,
    resourceDiscovery: found,
  };
}

/** MCP authorization 2025-11-25, Authorization Code Protection: no S256 in the metadata, no authorization. */
function requireS256(m: AuthorizationServerMetadata): void {
  const methods = Array.isArray(m.code_challenge_methods_supported) ? m.code_challenge_methods_supported : undefined;
  if (methods?.includes('S256')) return;
  throw new FlowError(
    `${m.issuer} does not list S256 in code_challenge_methods_supported (${methods === undefined ? 'absent' : methods.join(', ') || 'empty'}): an MCP client must not proceed`,
    `${SPEC}, Authorization Code Protection; RFC 8414 section 2`,
  );
}

/**
 * The 2025-03-26 revision (Server Metadata Discovery, Fallbacks): the authorization base URL is the MCP
 * server's URL without its path; its RFC 8414 metadata, else `/authorize`, `/token` and `/register` there.
 */
async function legacyServer(http: HttpClient, url: string, challengeScope: string | undefined, renderer: Renderer): Promise<McpAuthorizationServer> {
  const base = new URL(url).origin;
  renderer.warn(`no protected resource metadata: treating ${url} as a server of the 2025-03-26 revision, whose authorization server is at ${base} (${LEGACY}, Server Metadata Discovery)`);
  renderer.step(`Authorization server metadata (RFC 8414; ${LEGACY}, Server Metadata Discovery)`);
  const where = `${base}/.well-known/oauth-authorization-server`;
  const res = await http.request(where, { headers: { accept: 'application/json', 'mcp-protocol-version': '2025-03-26' } });
  renderer.info(`GET ${where} -> HTTP ${res.status}`);
  const common = { resource: url, challengeScope, issuer: base, verifiedIssuer: false };
  if (res.status === 200) {
    const json = parseJson(res.body, `the metadata at ${where}`);
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new FlowError(`the metadata at ${where} is not a JSON object`, 'RFC 8414 section 3.2');
    const m = json as AuthorizationServerMetadata;
    for (const field of ['authorization_endpoint', 'token_endpoint'] as const) {
      if (typeof m[field] !== 'string' || !/^https?:\/\//.test(m[field])) throw new FlowError(`the metadata at ${where} has no http(s) ${field}`, 'RFC 8414 section 2');
    }
    // The 2025-03-26 revision takes the document for the base URL's own: its issuer is said, not required to match.
    if (m.issuer !== base) renderer.info(`the metadata's issuer ${JSON.stringify(m.issuer)} is not ${base}: taken as the 2025-03-26 revision does (RFC 9207's iss is not checked)`);
    requireS256({ ...m, issuer: typeof m.issuer === 'string' ? m.issuer : base });
    return {
      ...common,
      metadata: m,
      authorizationEndpoint: m.authorization_endpoint!,
      tokenEndpoint: m.token_endpoint!,
      registrationEndpoint: typeof m.registration_endpoint === 'string' ? m.registration_endpoint : undefined,
    };
  }
  renderer.info(`no metadata: the default endpoints ${base}/authorize, ${base}/token and ${base}/register (${LEGACY}, Fallbacks for Servers without Metadata Discovery)`);
  return { ...common, authorizationEndpoint: `${base}/authorize`, tokenEndpoint: `${base}/token`, registrationEndpoint: `${base}/register` };
}
