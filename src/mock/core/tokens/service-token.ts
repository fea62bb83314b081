import { formatScope } from '../../../oauth/scope.js';
import { issueAccessToken } from './access-token.js';
import type { MockClient } from '../config/config.js';
import { sendJson, type Exchange } from '../http/http.js';
import { confirmation, tokenResponseHeaders, tokenTypeOf, type TokenBinding } from './token-binding.js';
import { newJti } from './jwt.js';
import type { AccessTokenClaims } from '../store/store.js';

export interface ServiceTokenInput {
  /** The subject: the client itself for client credentials (RFC 9068 section 2.2), the subject token's for an exchange. */
  sub: string;
  scopes: readonly string[];
  aud?: string;
  authTime?: number;
  act?: Record<string, unknown>;
  /** Added to the token response (issued_token_type). */
  extra?: Record<string, unknown>;
  /** The request's DPoP key and client certificate (token-binding.ts). */
  binding: TokenBinding;
  /** The token's id, when the caller records it (a token exchange joins the subject's refresh family). */
  jti?: string;
  /** Seconds, when shorter than the configured access token lifetime (an exchanged token ends with its subject token). */
  lifetime?: number;
}

/** A token response with an access token and nothing else: no refresh token, no ID token (RFC 6749 section 4.4.3). */
export async function sendServiceToken(ex: Exchange, client: MockClient, input: ServiceTokenInput): Promise<void> {
  const { state } = ex;
  const iat = Math.floor(state.now() / 1000);
  const lifetime = Math.min(input.lifetime ?? Infinity, state.config.lifetimes.accessToken);
  const scope = formatScope([...input.scopes]);
  const claims: AccessTokenClaims = {
    iss: state.issuer,
    sub: input.sub,
    aud: input.aud ?? state.baseUrl,
    client_id: client.clientId,
    scope,
    jti: input.jti ?? newJti(),
    iat,
    exp: iat + lifetime,
    auth_time: input.authTime ?? iat,
    ...(input.act ? { act: input.act } : {}),
    ...confirmation(input.binding),
  };
  const accessToken = await issueAccessToken(state, claims);
  ex.log.outcome = 'tokens issued';
  sendJson(ex.res, 200, { access_token: accessToken, ...input.extra, token_type: tokenTypeOf(input.binding), expires_in: lifetime, scope }, tokenResponseHeaders(ex, input.binding));
}
