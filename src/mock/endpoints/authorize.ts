import { serverToken } from '../core/store/random-pool.js';
import { checkAuthorization } from '../core/authorization/authorization-params.js';
import type { MockClient } from '../core/config/config.js';
import { errorDescription, queryParams, type Exchange } from '../core/http/http.js';
import { consentPage, errorPage, loginPage, sendPage } from '../core/pages/pages.js';
import { redirectOrigin } from '../core/clients/redirect-uri.js';
import { approveDevice } from '../core/device/device.js';
import { currentSession, startSession, type Session } from '../core/sessions/session.js';
import { autoLoginSession, mustSignInAgain } from '../core/sessions/sessions.js';
import type { AuthorizationRequest, CodeRecord, SessionRecord } from '../core/store/store.js';
import type { JarmResponseMode } from '../../oauth/jarm.js';
import { sendAuthorizationResponse } from '../core/authorization/jarm.js';

const INTERACTION_SECONDS = 600;

/** GET /authorize (RFC 6749 section 4.1.1; PAR's request_uri, RFC 9126 section 4; request objects, RFC 9101). */
export async function handleAuthorize(ex: Exchange): Promise<void> {
  const { values, duplicate } = queryParams(ex);
  const check = await checkAuthorization(ex, values, duplicate, false);
  if (check.kind === 'page') {
    if (check.clientId) ex.log.clientId = check.clientId;
    ex.log.error = 'invalid_request';
    ex.log.errorDescription = check.message;
    ex.log.outcome = 'error page';
    sendPage(
      ex.res,
      400,
      'Invalid request',
      errorPage(
        'This request cannot go on',
        `The authorization request is not valid: ${check.message}.`,
        'Because the client or its redirect URI could not be trusted, the server does not send you back to the application. Check the client_id and redirect_uri the application sends.',
        // RFC 6749 section 4.1.2.1: no redirect, the user informed; what the client may use helps them.
        check.registeredRedirectUris && { caption: 'The redirect URIs registered for this client:', items: check.registeredRedirectUris.length > 0 ? check.registeredRedirectUris : ['(none)'] },
      ),
    );
    return;
  }
  ex.log.clientId = check.client.clientId;
  if (check.kind === 'redirect-error') {
    await redirectError(ex, check.redirectUri, check.state, check.error, check.description, 302, check.formPost, check.jarm && { mode: check.jarm, clientId: check.client.clientId });
    return;
  }
  await continueAuthorization(ex, check.client, { ...check.request, flow: ex.id }, currentSession(ex), 302);
}

/**
 * Login, then consent, then the code: each step only when it is needed. A signed-in session signs in
 * again for prompt=login, max_age or another user's id_token_hint; prompt=none shows no page but
 * answers login_required or consent_required instead (OpenID Connect Core 3.1.2.1 and 3.1.2.6).
 */
export function continueAuthorization(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session | undefined, status: number): void | Promise<void> {
  const { state } = ex;
  if (state.autoLogin !== undefined) {
    const auto = autoLoginSession(state, state.autoLogin);
    // No page to show: a sign-in asked for again happens at once, with a new auth_time.
    if (request.prompt.size > 0 || request.maxAge !== undefined || request.idTokenHintSub !== undefined) {
      if (mustSignInAgain(state, request, auto)) {
        if (request.prompt.has('none')) return noneError(ex, request, 'login_required', 'the session is not the one the request asks for and prompt=none forbids the login page', status);
        auto.authTime = state.now();
      }
    }
    return issueCode(ex, request, auto, status);
  }
  const signedIn = session?.record.username !== undefined ? session : undefined;
  if (!signedIn || mustSignInAgain(state, request, signedIn.record) || request.prompt.has('select_account')) {
    if (request.prompt.has('none')) return noneError(ex, request, 'login_required', 'the user is not signed in (or not as the request asks) and prompt=none forbids showing the login page', status);
    showLogin(ex, client, request, session, undefined, request.loginHint);
    return;
  }
  if (needsConsent(ex, client, request, signedIn)) {
    if (request.prompt.has('none')) return noneError(ex, request, 'consent_required', 'the user has not consented and prompt=none forbids showing the consent page', status);
    showConsent(ex, client, request, signedIn, newInteraction(ex, signedIn, request));
    return;
  }
  return issueCode(ex, request, signedIn.record, status);
}

function noneError(ex: Exchange, request: AuthorizationRequest, error: string, text: string, status: number): Promise<void> {
  return redirectError(ex, request.redirectUri, request.state, error, text, status, request.formPost, jarmOf(request));
}

/** JARM's mode and audience for a request that asked for a signed response. */
export function jarmOf(request: AuthorizationRequest): { mode: JarmResponseMode; clientId: string } | undefined {
  return request.responseMode !== undefined ? { mode: request.responseMode, clientId: request.clientId } : undefined;
}

export function needsConsent(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session): boolean {
  if (!ex.state.consent || !client.consent) return false;
  // Each rich authorization request (RFC 9396) is a transaction of its own: always asked.
  if (request.prompt.has('consent') || request.authorizationDetails !== undefined) return true;
  const granted = session.record.consents.get(client.clientId);
  return !granted || request.scopes.some((s) => !granted.has(s));
}

export function newInteraction(ex: Exchange, session: Session, request: AuthorizationRequest): string {
  const id = serverToken(128);
  ex.state.store.interactions.set(id, { sessionId: session.id, request, expiresAt: ex.state.now() + INTERACTION_SECONDS * 1000 });
  return id;
}

export function showLogin(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session | undefined, error?: string, username?: string, interaction?: string): void {
  const s = session ?? startSession(ex);
  const id = interaction ?? newInteraction(ex, s, request);
  ex.log.outcome = error ? 'login failed' : 'login page';
  if (error) ex.log.error = 'login_failed';
  // prompt=select_account: the signed-in account may be chosen as it is, or another one signed in.
  const current = request.prompt.has('select_account') && !request.prompt.has('login') ? s.record.username : undefined;
  const body = loginPage({
    interaction: id,
    csrfToken: s.record.csrfToken,
    clientName: client.clientName,
    ...(error ? { error } : {}),
    ...(username !== undefined ? { username } : {}),
    ...(current !== undefined ? { signedInAs: current } : {}),
  });
  sendPage(ex.res, 200, 'Sign in', body, redirectOrigin(request.redirectUri));
}

export function showConsent(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session, interaction: string): void {
  ex.log.outcome = 'consent page';
  const scopes = request.scopes.map((name) => ({ name, description: ex.state.config.scopes.get(name)?.description ?? name }));
  const body = consentPage({
    interaction,
    csrfToken: session.record.csrfToken,
    clientName: client.clientName,
    clientId: client.clientId,
    username: session.record.username ?? '',
    scopes,
    authorizationDetails: request.authorizationDetails,
  });
  sendPage(ex.res, 200, 'Allow access', body, redirectOrigin(request.redirectUri));
}

/** RFC 6749 section 4.1.2: the code, the state, and the issuer (RFC 9207), for the session's user. */
export function issueCode(ex: Exchange, request: AuthorizationRequest, session: SessionRecord, status: number): void | Promise<void> {
  // The device flow ends here instead: the device gets its tokens by polling (RFC 8628 section 3.5).
  if (request.device !== undefined) {
    session.clients?.add(request.clientId);
    return approveDevice(ex, request.device, session);
  }
  const username = session.username!;
  const authTime = session.authTime ?? ex.state.now();
  const { state } = ex;
  const code = serverToken(256);
  // Assigned field by field rather than spread from conditional literals: this runs for every code.
  const record: CodeRecord = {
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    username,
    scopes: request.scopes,
    authTime,
    expiresAt: state.now() + state.config.lifetimes.code * 1000,
  };
  if (request.codeChallenge !== undefined) {
    record.codeChallenge = request.codeChallenge;
    record.codeChallengeMethod = request.codeChallengeMethod ?? 'plain';
  }
  if (request.nonce !== undefined) record.nonce = request.nonce;
  if (request.resources !== undefined) record.resources = request.resources;
  if (request.dpopJkt !== undefined) record.dpopJkt = request.dpopJkt;
  if (request.flow !== undefined) record.flow = request.flow;
  if (request.claims !== undefined) record.claims = request.claims;
  if (request.authorizationDetails !== undefined) record.authorizationDetails = request.authorizationDetails;
  record.session = session;
  state.store.codes.set(code, record);
  session.clients?.add(request.clientId);
  ex.log.outcome = 'code issued';
  const params = { code, state: request.state, iss: state.issuer };
  return sendAuthorizationResponse(ex, { redirectUri: request.redirectUri, status, formPost: request.formPost, jarm: jarmOf(request) }, params);
}

/** RFC 6749 section 4.1.2.1 with RFC 9207's iss. */
export function redirectError(
  ex: Exchange,
  redirectUri: string,
  state: string | undefined,
  error: string,
  text: string,
  status = 302,
  formPost = false,
  jarm?: { mode: JarmResponseMode; clientId: string },
): Promise<void> {
  const description = errorDescription(text);
  ex.log.outcome = 'error redirect';
  ex.log.error = error;
  ex.log.errorDescription = description;
  const params = { error, error_description: description, state, iss: ex.state.issuer };
  return sendAuthorizationResponse(ex, { redirectUri, status, formPost, jarm }, params);
}
