import { parseAuthorizationDetailsParam, unknownAuthorizationDetailTypes, type AuthorizationDetail } from '../../oauth/authorization-details.js';
import { codeVerifierProblem, verifyCodeChallenge } from '../../oauth/pkce.js';
import { serverToken } from '../core/store/random-pool.js';
import { formatScope, parseScope } from '../../oauth/scope.js';
import { issueAccessToken } from '../core/tokens/access-token.js';
import { userClaims } from '../core/tokens/claims.js';
import { authenticateClient } from '../core/clients/client-auth.js';
import type { GrantType, MockClient, MockUser } from '../core/config/config.js';
import { isFormBody, q, readBody, sendJson, sendOAuthError, singleParams, type Exchange, type MockState } from '../core/http/http.js';
import { newJti } from '../core/tokens/jwt.js';
import { oidcTokenHash } from '../../oauth/token-hash.js';
import type { NextToken } from '../core/tokens/queue.js';
import { CLIENT_CREDENTIALS_GRANT, DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT, JWT_BEARER_GRANT } from '../../oauth/grant-types.js';
import { handleClientCredentialsGrant } from './token-client-credentials.js';
import { handleDeviceCodeGrant } from './token-device.js';
import { CIBA_GRANT } from '../../oauth/ciba.js';
import { handleCibaGrant } from '../ciba/grant.js';
import { handleTokenExchangeGrant } from './token-exchange.js';
import { audienceOf, tokenResources } from '../core/tokens/resources.js';
import { confirmation, tokenRequestBinding, tokenResponseHeaders, tokenTypeOf, type TokenBinding } from '../core/tokens/token-binding.js';
import { addSessionClaims, rememberUserinfoClaims } from '../core/sessions/sessions.js';
import type { ClaimsRequest, SessionRecord } from '../core/store/store.js';
import { handleJwtBearerGrant } from './token-jwt-bearer.js';
import type { JWTPayload } from 'jose';

/**
 * The parameters of a form POST to the token, introspection or revocation endpoint, or undefined after
 * an error response: form bodies only (RFC 6749 section 4.1.3), one value per parameter (section 3.1).
 */
export async function formParams(ex: Exchange): Promise<Map<string, string> | undefined> {
  if (!isFormBody(ex.req)) {
    sendOAuthError(ex, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded (RFC 6749 section 4.1.3)');
    return undefined;
  }
  if (ex.query !== '') {
    sendOAuthError(ex, 400, 'invalid_request', 'parameters belong in the form body, not the query string');
    return undefined;
  }
  const { values, duplicate } = singleParams(await readBody(ex.req));
  if (duplicate) {
    sendOAuthError(ex, 400, 'invalid_request', `the ${duplicate} parameter is sent more than once (RFC 6749 section 3.1)`);
    return undefined;
  }
  return values;
}

/** POST /token (RFC 6749 sections 4.1.3 and 6). */
export async function handleToken(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  const grantType = values.get('grant_type');
  if (!grantType) return sendOAuthError(ex, 400, 'invalid_request', 'grant_type is missing');
  const client = await authenticateClient(ex, values);
  if (!client) return;
  const grant = GRANTS[grantType];
  if (!grant) return sendOAuthError(ex, 400, 'unsupported_grant_type', `grant_type ${q(grantType)} is not supported; use ${Object.keys(GRANTS).join(', ')}`);
  // RFC 6749 section 5.2: a grant type the client is not registered for (RFC 7591 grant_types).
  if (!client.grantTypes.has(grantType as GrantType)) return sendOAuthError(ex, 400, 'unauthorized_client', `client ${client.clientId} is not registered for grant_type ${grantType}`);
  const binding = await tokenRequestBinding(ex, client);
  if (!binding) return;
  return grant(ex, client, values, binding);
}

async function exchangeCode(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding): Promise<void> {
  const { store } = ex.state;
  const code = values.get('code');
  if (!code) return sendOAuthError(ex, 400, 'invalid_request', 'code is missing');
  const record = store.codes.get(code);
  if (!record) return sendOAuthError(ex, 400, 'invalid_grant', 'the authorization code is unknown or expired');
  if (record.flow !== undefined) ex.log.flow = record.flow;
  if (record.redeemed) {
    // RFC 6749 section 4.1.2: deny, and revoke what the first use issued.
    store.revokeAfterReuse(record.redeemed.accessTokenJti, record.redeemed.accessTokenExpiresAt);
    if (record.redeemed.refreshFamily) store.revokeFamily(record.redeemed.refreshFamily);
    store.codes.delete(code);
    return sendOAuthError(ex, 400, 'invalid_grant', 'the authorization code was already used; the tokens issued for it are now revoked (RFC 6749 section 4.1.2)');
  }
  if (record.clientId !== client.clientId) return sendOAuthError(ex, 400, 'invalid_grant', 'the authorization code was issued to another client');
  const redirectUri = values.get('redirect_uri');
  if (redirectUri === undefined) return sendOAuthError(ex, 400, 'invalid_request', 'redirect_uri is missing; send the one the authorization request had (RFC 6749 section 4.1.3)');
  if (redirectUri !== record.redirectUri) return sendOAuthError(ex, 400, 'invalid_grant', 'redirect_uri differs from the one in the authorization request');
  const verifier = values.get('code_verifier');
  if (record.codeChallenge !== undefined) {
    if (verifier === undefined)
      return sendOAuthError(ex, 400, 'invalid_grant', 'code_verifier is missing, but the authorization request had a code_challenge (PKCE downgrade refused, RFC 9700 section 4.8.2)');
    const problem = codeVerifierProblem(verifier);
    if (problem) return sendOAuthError(ex, 400, 'invalid_grant', problem);
    if (!verifyCodeChallenge(verifier, record.codeChallenge, record.codeChallengeMethod ?? 'plain')) {
      return sendOAuthError(ex, 400, 'invalid_grant', 'code_verifier does not match the code_challenge (RFC 7636 section 4.6)');
    }
  } else if (verifier !== undefined) {
    return sendOAuthError(ex, 400, 'invalid_grant', 'code_verifier is sent, but the authorization request had no code_challenge (RFC 9700 section 4.8.2)');
  }
  // RFC 9449 section 10: the code of a request with dpop_jkt goes only with a proof by that key.
  if (record.dpopJkt !== undefined && binding.jkt !== record.dpopJkt) {
    return sendOAuthError(ex, 400, 'invalid_grant', 'the authorization request had dpop_jkt; the token request needs a DPoP proof by that key (RFC 9449 section 10)');
  }
  const resources = tokenResources(values, record.resources, ex.state);
  if (!resources.ok) return sendOAuthError(ex, 400, 'invalid_target', resources.description);
  const details = grantedDetails(values.get('authorization_details'), record.authorizationDetails);
  if (typeof details === 'string') return sendOAuthError(ex, 400, 'invalid_authorization_details', details);

  // Room first (a full store refuses with 503 and the code stays unused), then redeemed before the
  // first await, so that a concurrent second use already sees it.
  const offline = record.scopes.includes('offline_access');
  store.ensureRoomForTokens(ex.state.config.accessTokenFormat === 'opaque', offline);
  const now = ex.state.now();
  const jti = newJti();
  const accessExp = now + ex.state.config.lifetimes.accessToken * 1000;
  const family = offline ? serverToken(128) : undefined;
  record.redeemed = { accessTokenJti: jti, accessTokenExpiresAt: accessExp, ...(family ? { refreshFamily: family } : {}) };
  if (family) {
    const familyRecord = { revoked: false, expiresAt: now + ex.state.config.lifetimes.refreshToken * 1000 };
    store.families.set(family, familyRecord);
    store.addToFamily(family, familyRecord, jti, accessExp);
  }
  const grant: Grant = {
    username: record.username,
    scopes: record.scopes,
    refreshScopes: record.scopes,
    authTime: record.authTime,
    jti,
    resources: resources.resources,
    grantedResources: record.resources ?? [],
    binding,
    ...(family ? { family } : {}),
    ...(record.nonce !== undefined ? { nonce: record.nonce } : {}),
  };
  // Assigned, not spread from conditional literals: every code has a session.
  if (record.session !== undefined) grant.session = record.session;
  if (record.claims !== undefined) grant.claims = record.claims;
  if (details !== undefined) grant.authorizationDetails = details;
  await sendTokens(ex, client, grant);
}

async function refresh(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding): Promise<void> {
  const { store } = ex.state;
  const token = values.get('refresh_token');
  if (!token) return sendOAuthError(ex, 400, 'invalid_request', 'refresh_token is missing');
  const record = store.refreshTokens.get(token);
  if (!record) return sendOAuthError(ex, 400, 'invalid_grant', 'the refresh token is unknown, expired or revoked');
  if (record.clientId !== client.clientId) return sendOAuthError(ex, 400, 'invalid_grant', 'the refresh token was issued to another client');
  const family = store.families.get(record.family);
  if (!family || family.revoked) return sendOAuthError(ex, 400, 'invalid_grant', 'the refresh token has been revoked');
  if (record.rotated) {
    store.revokeFamily(record.family);
    return sendOAuthError(ex, 400, 'invalid_grant', 'the refresh token was already used; every token of its family is now revoked (RFC 9700 section 4.14.2)');
  }
  let scopes = record.scopes;
  const requested = values.get('scope');
  if (requested !== undefined) {
    const asked = parseScope(requested);
    const extra = asked.filter((s) => !record.scopes.includes(s));
    if (extra.length > 0) return sendOAuthError(ex, 400, 'invalid_scope', `scope ${extra.join(' ')} was not granted to this refresh token (RFC 6749 section 6)`);
    scopes = asked;
  }
  // RFC 9449 section 5: a public client's refresh token is bound to its DPoP key.
  if (record.jkt !== undefined && binding.jkt !== record.jkt) {
    return sendOAuthError(ex, 400, 'invalid_grant', 'the refresh token is bound to a DPoP key; send a DPoP proof by that key (RFC 9449 section 5)');
  }
  const resources = tokenResources(values, record.resources, ex.state);
  if (!resources.ok) return sendOAuthError(ex, 400, 'invalid_target', resources.description);
  store.ensureRoomForTokens(ex.state.config.accessTokenFormat === 'opaque', true);
  record.rotated = true;
  const now = ex.state.now();
  const jti = newJti();
  const accessExp = now + ex.state.config.lifetimes.accessToken * 1000;
  family.expiresAt = Math.max(family.expiresAt, now + ex.state.config.lifetimes.refreshToken * 1000);
  store.addToFamily(record.family, family, jti, accessExp);
  await sendTokens(ex, client, {
    username: record.username,
    scopes,
    refreshScopes: record.scopes,
    authTime: record.authTime,
    jti,
    family: record.family,
    resources: resources.resources,
    grantedResources: record.resources ?? [],
    binding,
    ...(record.session !== undefined ? { session: record.session } : {}),
    ...(record.authorizationDetails !== undefined ? { authorizationDetails: record.authorizationDetails } : {}),
  });
}

export interface Grant {
  username: string;
  /** Scopes of the access token. */
  scopes: string[];
  /** Scopes of a new refresh token: always those originally granted (RFC 6749 section 6). */
  refreshScopes: string[];
  authTime: number;
  jti: string;
  family?: string;
  nonce?: string;
  /** The access token's resources (RFC 8707), and those a new refresh token keeps. */
  resources?: string[];
  grantedResources?: string[];
  binding?: TokenBinding;
  /** The user, when it is not a configured one (tokens from the admin API for any subject). */
  user?: MockUser;
  /** The access token's lifetime in seconds, when not the configured one (tokens from the admin API). */
  lifetime?: number;
  /** The browser session of the grant (sid, amr, acr) and the claims request parameter (sessions.ts). */
  session?: SessionRecord;
  claims?: ClaimsRequest;
  /** RFC 9396 section 7: the authorization details granted, in the access token and the token response. */
  authorizationDetails?: AuthorizationDetail[];
}

/**
 * RFC 9396 section 6.1: the token request may repeat the details, or ask for fewer; never a type the
 * code was not granted (invalid_authorization_details). Without the parameter the code's are granted.
 */
function grantedDetails(param: string | undefined, granted: AuthorizationDetail[] | undefined): AuthorizationDetail[] | string | undefined {
  if (param === undefined) return granted;
  const asked = parseAuthorizationDetailsParam(param);
  if (typeof asked === 'string') return asked;
  const notGranted = unknownAuthorizationDetailTypes(
    asked,
    (granted ?? []).map((d) => d.type),
  );
  if (notGranted.length > 0) return `authorization_details type ${notGranted.map((t) => JSON.stringify(t)).join(', ')} was not granted with this code (RFC 9396 section 6.1)`;
  return asked;
}

/** RFC 6749 section 5.1, with a JWT access token (RFC 9068) and an ID token when openid was granted. */
async function sendTokens(ex: Exchange, client: MockClient, grant: Grant): Promise<void> {
  const body = await tokenResponse(ex.state, client, grant);
  if (!body) return sendOAuthError(ex, 400, 'invalid_grant', 'the user of this grant no longer exists');
  ex.log.outcome = 'tokens issued';
  sendJson(ex.res, 200, body, tokenResponseHeaders(ex, grant.binding));
}

/**
 * The token response's body for a grant, or undefined when its user no longer exists. What the admin
 * API queued for the next tokens (`next`) goes into both the access token and the ID token.
 */
export async function tokenResponse(state: MockState, client: MockClient, grant: Grant, next: NextToken = state.queue.takeNextToken()): Promise<Record<string, unknown> | undefined> {
  const user = grant.user ?? state.config.users.get(grant.username);
  if (!user) return undefined;
  const now = state.now();
  const iat = Math.floor(now / 1000);
  const { lifetimes } = state.config;
  const lifetime = grant.lifetime ?? lifetimes.accessToken;
  const scope = formatScope(grant.scopes);
  const accessToken = await issueAccessToken(
    state,
    {
      iss: state.issuer,
      sub: user.sub,
      aud: audienceOf(grant.resources ?? [], state),
      client_id: client.clientId,
      scope,
      jti: grant.jti,
      iat,
      exp: iat + lifetime,
      auth_time: Math.floor(grant.authTime / 1000),
      ...confirmation(grant.binding),
      ...(grant.authorizationDetails !== undefined ? { authorization_details: grant.authorizationDetails } : {}),
    },
    next,
  );
  const dpop = grant.binding?.jkt !== undefined;
  const body: Record<string, unknown> = { access_token: accessToken, token_type: tokenTypeOf(grant.binding), expires_in: lifetime, scope };
  if (grant.authorizationDetails !== undefined) body.authorization_details = grant.authorizationDetails;
  if (grant.family) {
    const refreshToken = serverToken(256);
    state.store.refreshTokens.set(refreshToken, {
      clientId: client.clientId,
      username: grant.username,
      scopes: grant.refreshScopes,
      family: grant.family,
      authTime: grant.authTime,
      expiresAt: now + lifetimes.refreshToken * 1000,
      rotated: false,
      ...(grant.grantedResources && grant.grantedResources.length > 0 ? { resources: grant.grantedResources } : {}),
      ...(dpop && client.tokenEndpointAuthMethods.includes('none') ? { jkt: grant.binding!.jkt! } : {}),
      ...(grant.session !== undefined ? { session: grant.session } : {}),
      ...(grant.authorizationDetails !== undefined ? { authorizationDetails: grant.authorizationDetails } : {}),
    });
    body.refresh_token = refreshToken;
  }
  if (grant.scopes.includes('openid')) {
    const keys = await state.keys();
    const claims: JWTPayload = {
      iss: state.issuer,
      sub: user.sub,
      aud: client.clientId,
      azp: client.clientId,
      iat,
      exp: iat + lifetimes.idToken,
      auth_time: Math.floor(grant.authTime / 1000),
      at_hash: oidcTokenHash(accessToken, keys.alg),
      ...(grant.nonce !== undefined ? { nonce: grant.nonce } : {}),
      ...userClaims(user, grant.scopes),
    };
    if (grant.session !== undefined || grant.claims !== undefined) addSessionClaims(claims, grant.session, user, grant.claims);
    if (grant.claims !== undefined) rememberUserinfoClaims(state, grant.jti, grant.claims.userinfo, (iat + lifetime) * 1000);
    body.id_token = await keys.signIdToken(next.claims ? Object.assign(claims, next.claims) : claims);
  }
  return body;
}

/** `binding`: the DPoP key and client certificate of the request (token-binding.ts). */
type GrantHandler = (ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding) => Promise<void>;

/** The grant types the token endpoint serves, by grant_type. */
const GRANTS: Partial<Record<string, GrantHandler>> = {
  authorization_code: exchangeCode,
  refresh_token: refresh,
  [CLIENT_CREDENTIALS_GRANT]: handleClientCredentialsGrant,
  [DEVICE_CODE_GRANT]: (ex, client, values, binding) => handleDeviceCodeGrant(ex, client, values, binding, sendTokens),
  [TOKEN_EXCHANGE_GRANT]: handleTokenExchangeGrant,
  [CIBA_GRANT]: (ex, client, values, binding) => handleCibaGrant(ex, client, values, binding, sendTokens),
  [JWT_BEARER_GRANT]: handleJwtBearerGrant,
};
