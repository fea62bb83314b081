import type { ProtectedResourceConfig } from '../config/config-resource.js';
import { allowedAlgs, DPOP_ALGS } from '../config/config-security.js';
import type { MockState } from '../http/http.js';

/** RFC 9728 section 3: the well-known name of protected resource metadata. */
export const RESOURCE_METADATA_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** A protected resource of the mock and the issuer whose tokens it takes. */
export interface ResourceTarget {
  /** The resource identifier (RFC 9728 section 1.2): a token must have it in `aud` (RFC 8707). */
  resource: string;
  /** The issuer that validates its tokens. */
  state: MockState;
  scopes: string[];
  name: string;
}

/** RFC 9728 section 3.1: the well-known name inserted between the host and the path of the resource. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${RESOURCE_METADATA_WELL_KNOWN}${path}${url.search}`;
}

const rootOf = (state: MockState): MockState => state.server?.root ?? state;

/** The issuer's own API, `{base_url}` (its /photos and /me). */
export function apiTarget(state: MockState): ResourceTarget {
  return { resource: state.baseUrl, state, scopes: ['photo'], name: 'oauthctl mock photo API' };
}

/** The MCP endpoint `{base_url}/mcp` (config mcp, src/mock/mcp/): its scopes_supported are those of every tool. */
export function mcpTarget(state: MockState): ResourceTarget {
  const { scopes, tools, authorizationServer } = state.config.mcp;
  // Moved to a named issuer (SEP-2352, the admin API): that issuer issues and validates its tokens.
  const issuer = authorizationServer === undefined ? state : (state.server?.named.get(authorizationServer) ?? state);
  return { resource: `${state.baseUrl}/mcp`, state: issuer, scopes: [...new Set([...scopes, ...Object.values(tools).flat()])], name: 'oauthctl mock MCP server' };
}

/** The custom path of the MCP endpoint's metadata when only the 401's resource_metadata names it (config mcp.resource_metadata "header"). */
export const MCP_HEADER_METADATA_PATH = '/api/mcp/resource-metadata.json';

/** Where the MCP endpoint's metadata is (RFC 9728 section 3.1, or where section 5.1's header says); none in the 2025-03-26 revision. */
export function mcpMetadataUrl(state: MockState): string | undefined {
  const { enabled, revision, resourceMetadata } = state.config.mcp;
  if (!enabled || revision === '2025-03-26') return undefined;
  if (resourceMetadata === 'root') return `${new URL(state.issuer).origin}${RESOURCE_METADATA_WELL_KNOWN}`;
  if (resourceMetadata === 'header') return `${state.issuer}${MCP_HEADER_METADATA_PATH}`;
  return resourceMetadataUrl(mcpTarget(state).resource);
}

/** A configured protected resource (config protected_resources, POST /_mock/resources), at `{root}{path}`. */
function configuredTarget(root: MockState, r: ProtectedResourceConfig): ResourceTarget | undefined {
  const state = r.issuer === undefined ? root : root.server?.named.get(r.issuer);
  if (!state) return undefined;
  return { resource: `${root.issuer}${r.path}`, state, scopes: r.scopes, name: `oauthctl mock resource ${r.path}` };
}

/** The configured protected resource served at this path of the root issuer's routes. */
export function targetAtPath(state: MockState, path: string): ResourceTarget | undefined {
  if (state !== rootOf(state)) return undefined;
  const found = state.config.protectedResources.find((r) => r.path === path);
  return found && configuredTarget(state, found);
}

/** Every protected resource of the server: each issuer's API, then the configured ones. */
function allTargets(state: MockState): ResourceTarget[] {
  const root = rootOf(state);
  const apis = [root, ...(root.server?.named.values() ?? [])].map(apiTarget);
  const configured = root.config.protectedResources.map((r) => configuredTarget(root, r)).filter((t) => t !== undefined);
  return [...apis, ...configured, ...(root.config.mcp.enabled ? [mcpTarget(root)] : [])];
}

/** The resource whose metadata URL has this path after the well-known name (RFC 9728 section 3.1); the MCP endpoint's where its config puts it. */
export function targetOfMetadataPath(state: MockState, rest: string): ResourceTarget | undefined {
  const root = rootOf(state);
  const mcp = root.config.mcp.enabled ? mcpTarget(root) : undefined;
  if (mcp && mcpMetadataUrl(root) === `${new URL(root.issuer).origin}${RESOURCE_METADATA_WELL_KNOWN}${rest}`) return mcp;
  return allTargets(state).find((t) => t.resource !== mcp?.resource && new URL(t.resource).pathname === (rest === '' ? '/' : rest));
}

/** The configured protected resources whose tokens this issuer issues (its RFC 8707 resource indicators). */
export function configuredResourcesOf(state: MockState): string[] {
  return allTargets(state)
    .filter((t) => t.state === state && t.resource !== state.baseUrl)
    .map((t) => t.resource);
}

/** RFC 9728 section 2: what the mock says about one of its protected resources. */
export function resourceMetadata(target: ResourceTarget): Record<string, unknown> {
  return {
    resource: target.resource,
    authorization_servers: [target.state.issuer],
    jwks_uri: `${target.state.issuer}/jwks`,
    scopes_supported: target.scopes,
    bearer_methods_supported: ['header'],
    resource_signing_alg_values_supported: [target.state.config.signingAlg],
    resource_name: target.name,
    // RFC 9449 section 5.1: the mock takes DPoP-bound tokens too.
    dpop_signing_alg_values_supported: allowedAlgs(target.state.config, DPOP_ALGS),
    dpop_bound_access_tokens_required: false,
  };
}
