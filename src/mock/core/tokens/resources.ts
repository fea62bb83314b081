import { resourceProblem } from '../config/config-security.js';
import { allParams, q, type MockState } from '../http/http.js';
import { configuredResourcesOf } from './protected-resources.js';

export type ResourcesCheck = { ok: true; resources: string[] } | { ok: false; description: string };

/** The resource indicators the mock knows (RFC 8707): its API `{base_url}`, the configuration's `resources` and the protected resources that take this issuer's tokens. */
export function knownResources(state: MockState): string[] {
  return [state.baseUrl, ...state.config.resources, ...configuredResourcesOf(state)];
}

/** The `resource` parameters of a request (RFC 8707 section 2): absolute URIs without a fragment, each one the mock knows. */
export function requestedResources(values: Map<string, string>, state: MockState): ResourcesCheck {
  const resources = allParams(values, 'resource');
  const known = knownResources(state);
  for (const resource of resources) {
    const problem = resourceProblem(resource);
    if (problem) return { ok: false, description: `resource ${q(resource)} ${problem}` };
    if (!known.includes(resource)) {
      return {
        ok: false,
        description: `resource ${q(resource)} is not a resource this server knows (known: ${known.join(' ')}); list it under "resources" in the mock's --config (RFC 8707 section 2)`,
      };
    }
  }
  return { ok: true, resources: [...new Set(resources)] };
}

/**
 * The resources of an access token from a token request (RFC 8707 section 2.2): those it names, each
 * among those the grant holds when the authorization request named some; none named: the grant's.
 */
export function tokenResources(values: Map<string, string>, granted: string[] | undefined, state: MockState): ResourcesCheck {
  const requested = requestedResources(values, state);
  if (!requested.ok || requested.resources.length === 0) return requested.ok ? { ok: true, resources: granted ?? [] } : requested;
  const outside = granted === undefined || granted.length === 0 ? [] : requested.resources.filter((r) => !granted.includes(r));
  if (outside.length > 0) return { ok: false, description: `resource ${q(outside[0]!)} was not part of the authorization grant (RFC 8707 section 2.2)` };
  return requested;
}

/** The access token's aud: its resources, or the mock's API when none was asked for. */
export function audienceOf(resources: string[], state: MockState): string | string[] {
  if (resources.length === 0) return state.baseUrl;
  return resources.length === 1 ? resources[0]! : resources;
}
