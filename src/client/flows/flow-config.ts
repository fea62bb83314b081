import { buildAuthorizationUrl } from '../../oauth/authorization-request.js';
import type { AuthorizationServerMetadata, ExtraEndpoint } from '../../oauth/discovery.js';
import type { AuthorizationDetail } from '../../oauth/authorization-details.js';
import type { JarmResponseMode } from '../../oauth/jarm.js';
import type { CodeChallengeMethod } from '../../oauth/pkce.js';
import type { ClientAuthMethod, ClientSigningKey, GrantParams } from '../../oauth/token-request.js';
import type { DpopSession } from './dpop.js';

export interface PkceParams {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: CodeChallengeMethod;
}

/** Everything a flow needs, resolved from the flow options (and discovery). */
export interface FlowConfig {
  /** '' only for commands that need no authorization endpoint (exchange, refresh) when none is known. */
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** From --issuer or discovery; enables the RFC 9207 iss check. */
  issuer?: string;
  metadata?: AuthorizationServerMetadata;
  /** --auth-url as given: with no --issuer, the issuer whose metadata names the endpoints no flag gives. */
  authUrl?: string;
  /** Endpoints given by flags (`--revocation-endpoint`, `--jwks-uri`, ...); the others come from the metadata (endpointOf). */
  endpoints: Partial<Record<ExtraEndpoint, string>>;
  clientId: string;
  clientSecret?: string;
  /** Set when the secret came from OAUTHCTL_CLIENT_SECRET rather than a flag or profile: said when authentication fails. */
  clientSecretFromEnv?: boolean;
  authMethod: ClientAuthMethod;
  /** As configured; a loopback URI without a port gets the listener's free port in `login`. */
  redirectUri: string;
  scopes: string[];
  state: string;
  pkce?: PkceParams;
  /** --no-verify-id-token: an ID token whose signature cannot be checked is accepted (loudly); alg none never is. */
  acceptUnverifiedIdToken?: boolean;
  /** `--param k=v`, plus a nonce when openid is in scope (OpenID Connect Core section 3.1.2.1). */
  extraParams: Record<string, string>;
  /** --par: push the authorization request first (RFC 9126); also on when the metadata requires it. */
  par?: boolean | undefined;
  /** --jar: the authorization request as a signed request object (RFC 9101). */
  jar?: boolean | undefined;
  /** --protected-resource: the resource (its metadata's `resource`, RFC 9728) the login is cached under. */
  protectedResource?: string | undefined;
  /** --resource, repeatable (RFC 8707), on the authorization and token requests (also client credentials, device, token exchange). */
  resources?: string[] | undefined;
  /** --dpop: the key proofs are signed with, and the servers' nonces (RFC 9449). */
  dpop?: DpopSession | undefined;
  /** --signing-key: for private_key_jwt (RFC 7523) and --jar. */
  signingKey?: ClientSigningKey | undefined;
  /** The `aud` of client assertions: the token endpoint URL unless --client-assertion-audience says otherwise. */
  assertionAudience?: string | undefined;
  /** --tls-cert and --tls-key (RFC 8705): the files, kept with cached logins so that `call` presents them again. */
  tlsClientCertificate?: { certFile: string; keyFile: string } | undefined;
  /** --response-mode: the authorization response as a signed JWT (JARM), verified before use. */
  responseMode?: JarmResponseMode | undefined;
  /** --authorization-details (RFC 9396): in the authorization request (or PAR) and the token request. */
  authorizationDetails?: AuthorizationDetail[] | undefined;
  /** --fapi2: the FAPI 2.0 Security Profile's client rules, checked against the metadata before any request. */
  fapi2?: boolean | undefined;
}

/** The authorization request URL (RFC 6749 section 4.1.1) of a flow; `redirectUri` as the listener really serves it. */
export function authorizationUrlOf(config: FlowConfig, redirectUri: string = config.redirectUri): string {
  return buildAuthorizationUrl({
    authorizationEndpoint: config.authorizationEndpoint,
    clientId: config.clientId,
    redirectUri,
    scopes: config.scopes,
    state: config.state,
    codeChallenge: config.pkce?.codeChallenge,
    codeChallengeMethod: config.pkce?.codeChallengeMethod,
    extraParams: {
      ...config.extraParams,
      ...(config.dpop && { dpop_jkt: config.dpop.key.jkt }),
      ...(config.responseMode !== undefined && { response_mode: config.responseMode }),
      ...(config.authorizationDetails !== undefined && { authorization_details: JSON.stringify(config.authorizationDetails) }),
    },
    resources: config.resources,
  }).href;
}

/**
 * The token request that redeems the flow's code (RFC 6749 section 4.1.3): the redirect URI the
 * authorization request used, its code verifier (RFC 7636 section 4.5), and its authorization
 * details asked for again (RFC 9396 section 6.1).
 */
export function authorizationCodeGrant(config: FlowConfig, code: string, redirectUri: string = config.redirectUri): GrantParams {
  return {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: config.pkce?.codeVerifier,
    authorization_details: config.authorizationDetails !== undefined ? JSON.stringify(config.authorizationDetails) : undefined,
  };
}
