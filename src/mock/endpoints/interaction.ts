import { constantTimeEqual } from '../../oauth/pkce.js';
import { continueAuthorization, issueCode, needsConsent, newInteraction, redirectError, showConsent, showLogin, jarmOf } from './authorize.js';
import { isFormBody, readBody, redirect, singleParams, type Exchange } from '../core/http/http.js';
import { denyDevice } from '../core/device/device.js';
import { errorPage, sendPage } from '../core/pages/pages.js';
import { currentSession, startSession, type Session } from '../core/sessions/session.js';
import { afterSignIn } from '../core/sessions/sessions.js';
import type { AuthorizationRequest, InteractionRecord } from '../core/store/store.js';
import type { MockClient } from '../core/config/config.js';

/** One message for an unknown account and a wrong password: no user enumeration. */
export const LOGIN_FAILED = 'Incorrect account name or password.';
/** Compared against when the account is unknown, so both failures take the same time. */
const DUMMY_PASSWORD = 'no such user: compare anyway';

interface Resumed {
  session: Session;
  interaction: InteractionRecord;
  interactionId: string;
  client: MockClient;
}

function stop(ex: Exchange, status: number, message: string): undefined {
  ex.log.error = status === 403 ? 'csrf' : 'invalid_request';
  ex.log.errorDescription = message;
  ex.log.outcome = 'error page';
  sendPage(ex.res, status, 'Cannot continue', errorPage('This sign-in cannot go on', message, 'Start again from the application.'));
  return undefined;
}

/** The session and interaction a form or link refers to; with `csrf`, the form's token must match the session's. */
function resume(ex: Exchange, values: Map<string, string>, csrf: boolean): Resumed | undefined {
  const session = currentSession(ex);
  if (!session) return stop(ex, 403, 'Your session has expired or cookies are off.');
  if (csrf) {
    const token = values.get('csrf_token');
    if (!token || !constantTimeEqual(token, session.record.csrfToken)) return stop(ex, 403, 'The form was not sent from this sign-in page (CSRF token mismatch).');
  }
  const interactionId = values.get('interaction') ?? '';
  const interaction = ex.state.store.interactions.get(interactionId);
  if (!interaction || interaction.sessionId !== session.id) return stop(ex, 400, 'This sign-in request has expired or belongs to another session.');
  if (interaction.request.flow !== undefined) ex.log.flow = interaction.request.flow;
  const client = ex.state.config.clients.get(interaction.request.clientId);
  if (!client) return stop(ex, 400, 'The client of this request no longer exists.');
  ex.log.clientId = client.clientId;
  return { session, interaction, interactionId, client };
}

async function formValues(ex: Exchange): Promise<Map<string, string> | undefined> {
  if (!isFormBody(ex.req)) return stop(ex, 400, 'The form must be sent as application/x-www-form-urlencoded.');
  const { values, duplicate } = singleParams(await readBody(ex.req));
  if (duplicate) return stop(ex, 400, `The form sends ${duplicate} more than once.`);
  return values;
}

/** POST /login: account name and password, then consent or the code. */
export async function handleLogin(ex: Exchange): Promise<void> {
  const values = await formValues(ex);
  if (!values) return;
  const r = resume(ex, values, true);
  if (!r) return;
  const request = afterSignIn(r.interaction.request);
  // prompt=select_account: the signed-in account, chosen as it is (its sign-in and auth_time stay).
  if (values.get('continue_as') === 'current' && r.session.record.username !== undefined && r.interaction.request.prompt.has('select_account')) {
    ex.state.store.interactions.delete(r.interactionId);
    return afterLogin(ex, r.client, request, r.session);
  }
  const username = values.get('username') ?? '';
  const password = values.get('password') ?? '';
  const user = ex.state.config.users.get(username);
  const passwordOk = constantTimeEqual(password, user?.password ?? DUMMY_PASSWORD);
  if (!user || !passwordOk) {
    showLogin(ex, r.client, r.interaction.request, r.session, LOGIN_FAILED, username, r.interactionId);
    return;
  }
  // A new session id at login (session fixation); the pending request moves with it.
  const session = startSession(ex, r.session, { username: user.username, authTime: ex.state.now() });
  ex.state.store.interactions.delete(r.interactionId);
  await afterLogin(ex, r.client, request, session);
}

async function afterLogin(ex: Exchange, client: MockClient, request: AuthorizationRequest, session: Session): Promise<void> {
  if (needsConsent(ex, client, request, session)) {
    const id = newInteraction(ex, session, request);
    ex.log.outcome = 'signed in';
    redirect(ex.res, `consent?interaction=${encodeURIComponent(id)}`, 303);
    return;
  }
  await continueAuthorization(ex, client, request, session, 303);
}

/** GET /consent?interaction=...: the consent page after a login (post/redirect/get). */
export function handleConsentPage(ex: Exchange): void {
  const { values } = singleParams(ex.query);
  const r = resume(ex, values, false);
  if (!r) return;
  if (r.session.record.username === undefined) return void stop(ex, 403, 'You are not signed in.');
  showConsent(ex, r.client, r.interaction.request, r.session, r.interactionId);
}

/** POST /consent: Allow issues the code, Deny redirects with access_denied (RFC 6749 section 4.1.2.1). */
export async function handleConsent(ex: Exchange): Promise<void> {
  const values = await formValues(ex);
  if (!values) return;
  const r = resume(ex, values, true);
  if (!r) return;
  const username = r.session.record.username;
  if (username === undefined) return void stop(ex, 403, 'You are not signed in.');
  const { request } = r.interaction;
  const decision = values.get('decision');
  if (decision !== 'allow' && decision !== 'deny') return void stop(ex, 400, 'The form must send decision=allow or decision=deny.');
  ex.state.store.interactions.delete(r.interactionId);
  if (decision === 'deny') {
    if (request.device !== undefined) return denyDevice(ex, request.device);
    return redirectError(ex, request.redirectUri, request.state, 'access_denied', 'the user refused access', 303, request.formPost, jarmOf(request));
  }
  const granted = r.session.record.consents.get(r.client.clientId) ?? new Set<string>();
  for (const s of request.scopes) granted.add(s);
  r.session.record.consents.set(r.client.clientId, granted);
  await issueCode(ex, request, r.session.record, 303);
}
