import { serverToken } from '../core/random-pool.js';
import { checkAuthorization } from '../core/authorization-params.js';
import type { MockClient } from '../core/config.js';
import { errorDescription, redirect, singleParams, type Exchange } from '../core/http.js';
import { consentPage, errorPage, loginPage, sendPage } from '../core/pages.js';
import { redirectOrigin, withParams } from '../core/redirect-uri.js';
import { approveDevice } from '../core/device.js';
import { currentSession, startSession, type Session } from '../core/session.js';
import type { AuthorizationRequest, CodeRecord } from '../core/store.js';

const INTERACTION_SECONDS = 600;

/** GET /authorize (RFC 6749 section 4.1.1; PAR's request_uri, RFC 9126 section 4; request objects, RFC 9101). */
export async function handleAuthorize(ex: Exchange): Promise<void> {
  const { values, duplicate } = singleParams(ex.query);
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
      ),
    );
    return;
  }
  ex.log.clientId = check.client.clientId;
  if (check.kind === 'redirect-error') {
    redirectError(ex, check.redirectUri, check.state, check.error, check.description);
    return;
  }
  continueAuthorization(ex, check.client, { ...check.request, flow: ex.id }, currentSession(ex), 302);
}

/** Login, then consent, then the code: each step only when it is needed. */
export function continueAuthorization(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session | undefined, status: number): void {
  const { state } = ex;
  if (state.autoLogin !== undefined) {
    issueCode(ex, request, state.autoLogin, state.now(), status);
    return;
  }
  const user = session?.record.username;
  if (!session || user === undefined || request.prompt.has('login')) {
    if (request.prompt.has('none')) return redirectError(ex, request.redirectUri, request.state, 'login_required', 'the user is not signed in and prompt=none forbids showing the login page', status);
    showLogin(ex, client, request, session);
    return;
  }
  if (needsConsent(ex, client, request, session)) {
    if (request.prompt.has('none'))
      return redirectError(ex, request.redirectUri, request.state, 'consent_required', 'the user has not consented and prompt=none forbids showing the consent page', status);
    showConsent(ex, client, request, session, newInteraction(ex, session, request));
    return;
  }
  issueCode(ex, request, user, session.record.authTime ?? state.now(), status);
}

export function needsConsent(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session): boolean {
  if (!ex.state.consent || !client.consent) return false;
  if (request.prompt.has('consent')) return true;
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
  const body = loginPage({
    interaction: id,
    csrfToken: s.record.csrfToken,
    clientName: client.clientName,
    ...(error ? { error } : {}),
    ...(username !== undefined ? { username } : {}),
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
  });
  sendPage(ex.res, 200, 'Allow access', body, redirectOrigin(request.redirectUri));
}

/** RFC 6749 section 4.1.2: the code, the state, and the issuer (RFC 9207). */
export function issueCode(ex: Exchange, request: AuthorizationRequest, username: string, authTime: number, status: number): void {
  // The device flow ends here instead: the device gets its tokens by polling (RFC 8628 section 3.5).
  if (request.device !== undefined) return approveDevice(ex, request.device, username, authTime);
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
  state.store.codes.set(code, record);
  ex.log.outcome = 'code issued';
  redirect(ex.res, withParams(request.redirectUri, { code, state: request.state, iss: state.issuer }), status);
}

/** RFC 6749 section 4.1.2.1 with RFC 9207's iss. */
export function redirectError(ex: Exchange, redirectUri: string, state: string | undefined, error: string, text: string, status = 302): void {
  const description = errorDescription(text);
  ex.log.outcome = 'error redirect';
  ex.log.error = error;
  ex.log.errorDescription = description;
  redirect(ex.res, withParams(redirectUri, { error, error_description: description, state, iss: ex.state.issuer }), status);
}
