import { FlowError } from '../../errors.js';
import { ID_JAG_TOKEN_TYPE, JWT_BEARER_GRANT, TOKEN_TYPES } from '../../oauth/grant-types.js';
import { formatScope } from '../../oauth/scope.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import type { Renderer } from '../../output/render.js';
import type { HttpClient } from '../http/http.js';
import { requestToken, type TokenEndpointConfig } from './token.js';
import { exchangeToken } from './token-exchange.js';

export interface CrossAppAccess {
  /** The identity provider's ID token for the user (the subject token). */
  idToken: string;
  /** The identity provider's token endpoint and this client's credentials there. */
  idp: TokenEndpointConfig;
  /** The resource's authorization server (the ID-JAG's audience) and the resource. */
  audience: string;
  resource: string;
  scopes: readonly string[];
}

/**
 * Cross-app access (draft-ietf-oauth-identity-assertion-authz-grant, the MCP extension "Enterprise-Managed
 * Authorization"): the ID token exchanged at the identity provider for an Identity Assertion JWT
 * Authorization Grant (RFC 8693 section 2.1, requested_token_type id-jag, audience the authorization
 * server, resource the resource), then that grant presented at the authorization server (RFC 7523
 * section 2.1) with the client's own authentication there.
 */
export async function requestWithIdJag(http: HttpClient, at: TokenEndpointConfig, access: CrossAppAccess, renderer: Renderer): Promise<TokenResponse> {
  renderer.step('Token exchange at the identity provider (RFC 8693 section 2.1; ID-JAG draft section 4.3)');
  renderer.info(`POST ${access.idp.tokenEndpoint} (subject_token_type id_token, requested_token_type id-jag, audience ${access.audience}, resource ${access.resource})`);
  const exchanged = await exchangeToken(http, access.idp, {
    subjectToken: access.idToken,
    subjectTokenType: TOKEN_TYPES.id_token,
    requestedTokenType: ID_JAG_TOKEN_TYPE,
    audiences: [access.audience],
    resources: [access.resource],
    scopes: access.scopes,
  });
  const issued = exchanged.issued_token_type;
  if (issued !== ID_JAG_TOKEN_TYPE) {
    throw new FlowError(`the identity provider issued ${JSON.stringify(issued ?? '(no issued_token_type)')}, not an ID-JAG`, 'RFC 8693 section 2.2.1; the ID-JAG draft section 4.3.2');
  }
  renderer.ok('the identity provider issued an ID-JAG');
  renderer.step('JWT bearer grant at the authorization server (RFC 7523 section 2.1; ID-JAG draft section 4.4)');
  renderer.info(`POST ${at.tokenEndpoint} (grant_type ${JWT_BEARER_GRANT}, client authentication ${at.authMethod})`);
  return requestToken(http, at, { grant_type: JWT_BEARER_GRANT, assertion: exchanged.access_token, scope: access.scopes.length > 0 ? formatScope([...access.scopes]) : undefined }, { renderer });
}
