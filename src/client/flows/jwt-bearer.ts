import { UsageError } from '../../errors.js';
import { JWT_BEARER_GRANT } from '../../oauth/grant-types.js';
import { formatScope } from '../../oauth/scope.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import type { HttpClient } from '../http/http.js';
import { requestToken, type TokenEndpointConfig } from './token.js';

export interface JwtBearerRequest {
  /** The JWT the workload holds (its platform's identity token): sent as it is. */
  assertion: string;
  scopes?: readonly string[] | undefined;
  resources?: readonly string[] | undefined;
}

/** RFC 7515 section 7.1: a compact JWS, three base64url parts. */
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The assertion, refused before it is sent when it is no JWT at all. */
export function checkAssertion(assertion: string, flag = '--assertion'): string {
  const value = assertion.trim();
  if (!COMPACT_JWT.test(value)) throw new UsageError(`${flag} is not a JWT (three base64url parts separated by dots)`, `give the workload's JWT, or @FILE to read it from a file`);
  return value;
}

/**
 * RFC 7523 section 2.1: a JWT as the authorization grant (workload identity federation): grant_type
 * urn:ietf:params:oauth:grant-type:jwt-bearer and the JWT in `assertion`, client authentication as
 * configured (section 3.1 says it is optional), scope and resource (RFC 8707) when asked for.
 */
export function requestJwtBearer(http: HttpClient, config: TokenEndpointConfig, request: JwtBearerRequest): Promise<TokenResponse> {
  return requestToken(http, config, {
    grant_type: JWT_BEARER_GRANT,
    assertion: request.assertion,
    scope: request.scopes && request.scopes.length > 0 ? formatScope([...request.scopes]) : undefined,
    resource: request.resources,
  });
}
