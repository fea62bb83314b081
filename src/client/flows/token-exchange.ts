import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT } from '../../oauth/grant-types.js';
import { formatScope } from '../../oauth/scope.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import type { HttpClient } from '../http/http.js';
import { requestToken, type TokenEndpointConfig } from './token.js';

/** RFC 8693 section 2.1: what a token exchange asks for. */
export interface TokenExchangeRequest {
  subjectToken: string;
  /** Default urn:ietf:params:oauth:token-type:access_token. */
  subjectTokenType?: string | undefined;
  actorToken?: string | undefined;
  actorTokenType?: string | undefined;
  audiences?: readonly string[] | undefined;
  resources?: readonly string[] | undefined;
  requestedTokenType?: string | undefined;
  scopes?: readonly string[] | undefined;
}

/** One token exchange request (RFC 8693 section 2.1); the response carries issued_token_type (section 2.2.1). */
export function exchangeToken(http: HttpClient, config: TokenEndpointConfig, request: TokenExchangeRequest): Promise<TokenResponse> {
  return requestToken(http, config, {
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: request.subjectToken,
    subject_token_type: request.subjectTokenType ?? ACCESS_TOKEN_TYPE,
    actor_token: request.actorToken,
    // Section 2.1: actor_token_type is required when actor_token is present, and must not be sent otherwise.
    actor_token_type: request.actorToken !== undefined ? (request.actorTokenType ?? ACCESS_TOKEN_TYPE) : undefined,
    audience: request.audiences,
    resource: request.resources,
    requested_token_type: request.requestedTokenType,
    scope: request.scopes && request.scopes.length > 0 ? formatScope([...request.scopes]) : undefined,
  });
}
