import { FlowError } from '../../errors.js';
import { explainOAuthError, OAuthError } from '../../oauth/errors.js';
import { parseTokenResponse, TokenResponseError, type ClientCredentials, type GrantParams, type TokenResponse } from '../../oauth/token-request.js';
import type { Renderer } from '../../output/render.js';
import type { DpopSession } from './dpop.js';
import { assertionRefusalHint } from './assertion-refusal.js';
import { postAuthenticated } from './endpoint-request.js';
import type { HttpClient } from '../http/http.js';

/** What a token request needs of the flow config. */
export interface TokenEndpointConfig extends ClientCredentials {
  tokenEndpoint: string;
  /** The secret came from OAUTHCTL_CLIENT_SECRET: a failed client authentication says so. */
  clientSecretFromEnv?: boolean | undefined;
  /** RFC 8707 section 2.2: resource indicators sent with every grant that does not name its own. */
  resources?: readonly string[] | undefined;
  /** RFC 9449 section 5: a proof on every token request, and the answer's token_type checked. */
  dpop?: DpopSession | undefined;
  /** Named in the hint of a refused client assertion (the other audience it might want). */
  issuer?: string | undefined;
  authUrl?: string | undefined;
}

/** A token request that failed: the server's RFC 6749 section 5.2 error (when it sent one) is kept in `oauthError`. */
export class TokenRequestError extends FlowError {
  readonly oauthError?: OAuthError;
  readonly status?: number;

  constructor(message: string, hint: string | undefined, oauthError?: OAuthError, status?: number) {
    super(message, hint);
    if (oauthError) this.oauthError = oauthError;
    if (status !== undefined) this.status = status;
  }
}

/**
 * One token request (RFC 6749 sections 4.1.3 and 6): POSTs the grant with the client's authentication and
 * returns the token response exactly as received. Failures are TokenRequestError (exit 1) with one line.
 */
export async function requestToken(http: HttpClient, config: TokenEndpointConfig, grant: GrantParams, options: { renderer?: Renderer | undefined } = {}): Promise<TokenResponse> {
  const resources = config.resources !== undefined && config.resources.length > 0 && grant.resource === undefined ? { resource: config.resources } : {};
  const res = await postAuthenticated(http, config, config.tokenEndpoint, { ...grant, ...resources }, { dpop: config.dpop, renderer: options.renderer });
  try {
    const tokens = parseTokenResponse(res.status, res.headers['content-type'], res.body);
    if (config.dpop && tokens.token_type?.toLowerCase() !== 'dpop') {
      // RFC 9449 section 5: a DPoP-bound token says token_type DPoP; anything else is a plain bearer token.
      options.renderer?.warn(`DPoP was asked for, but the token response says token_type ${JSON.stringify(tokens.token_type ?? '(none)')}: the access token is not bound to the key`);
    }
    return tokens;
  } catch (err) {
    // A refused client authentication (invalid_client, or a bare 401/403) with an assertion: say what else the server may want.
    const assertion = (err instanceof OAuthError ? err.error === 'invalid_client' : res.status === 401 || res.status === 403) ? assertionRefusalHint(config) : undefined;
    if (err instanceof OAuthError) {
      const meaning = explainOAuthError(err.error);
      const fromEnv = err.error === 'invalid_client' && config.clientSecretFromEnv ? '; the client secret came from OAUTHCTL_CLIENT_SECRET: check it, or unset it' : '';
      throw new TokenRequestError(err.message, `${meaning ? `${meaning}; ` : ''}HTTP ${res.status}${fromEnv}${assertion ? `; ${assertion}` : ''}`, err, res.status);
    }
    if (err instanceof TokenResponseError) {
      throw new TokenRequestError(err.message, assertion ?? 'run with --verbose to see the exchange; check --token-endpoint', undefined, res.status);
    }
    throw err;
  }
}
