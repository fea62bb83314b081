import { CLIENT_CREDENTIALS_GRANT } from '../../oauth/grant-types.js';
import { formatScope } from '../../oauth/scope.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import type { HttpClient } from '../http/http.js';
import { requestToken, type TokenEndpointConfig } from './token.js';

export interface ClientCredentialsRequest {
  scopes?: readonly string[] | undefined;
  resources?: readonly string[] | undefined;
}

/** RFC 6749 section 4.4.2: the client asks for a token for itself, authenticating as configured. */
export function requestClientCredentials(http: HttpClient, config: TokenEndpointConfig, request: ClientCredentialsRequest = {}): Promise<TokenResponse> {
  return requestToken(http, config, {
    grant_type: CLIENT_CREDENTIALS_GRANT,
    scope: request.scopes && request.scopes.length > 0 ? formatScope([...request.scopes]) : undefined,
    resource: request.resources,
  });
}
