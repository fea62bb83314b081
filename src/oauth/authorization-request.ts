import { formatScope } from './scope.js';
import type { CodeChallengeMethod } from './pkce.js';

/** What an authorization request (RFC 6749 section 4.1.1) carries. */
export interface AuthorizationRequest {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  /** RFC 7636 section 4.3. */
  codeChallenge?: string | undefined;
  codeChallengeMethod?: CodeChallengeMethod | undefined;
  /** Extra parameters (`--param k=v`, nonce, ...), added last; they never replace the ones above. */
  extraParams?: Readonly<Record<string, string>> | undefined;
  /** RFC 8707 section 2: resource indicators, each a `resource` parameter. */
  resources?: readonly string[] | undefined;
}

/** Parameter names the request sets itself; `--param` may not override them. */
export const AUTHORIZATION_REQUEST_PARAMS: ReadonlySet<string> = new Set(['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method']);

/**
 * The authorization URL: response_type=code, client_id, redirect_uri, scope (space-separated,
 * RFC 6749 section 3.3), state and, with PKCE, code_challenge and code_challenge_method. Query
 * parameters already in the endpoint URL are kept (RFC 6749 section 3.1).
 */
export function buildAuthorizationUrl(request: AuthorizationRequest): URL {
  const url = new URL(request.authorizationEndpoint);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', request.clientId);
  q.set('redirect_uri', request.redirectUri);
  if (request.scopes.length > 0) q.set('scope', formatScope(request.scopes));
  q.set('state', request.state);
  if (request.codeChallenge !== undefined) {
    q.set('code_challenge', request.codeChallenge);
    q.set('code_challenge_method', request.codeChallengeMethod ?? 'S256');
  }
  for (const [name, value] of Object.entries(request.extraParams ?? {})) {
    if (!AUTHORIZATION_REQUEST_PARAMS.has(name)) q.set(name, value);
  }
  for (const resource of request.resources ?? []) q.append('resource', resource);
  return url;
}
