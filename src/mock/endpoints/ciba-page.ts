import { constantTimeEqual } from '../../oauth/pkce.js';
import { decideCibaRequest } from '../ciba/decide.js';
import { cibaDonePage, cibaRequestsPage, cibaSignInPage, type CibaPageEntry } from '../ciba/pages.js';
import { cibaRequests, findByPageId } from '../ciba/store.js';
import { redirect, type Exchange } from '../core/http/http.js';
import { sendPage } from '../core/pages/pages.js';
import { pageFormRefusal, readPageForm } from '../core/sessions/page-form.js';
import { currentSession, startSession, type Session } from '../core/sessions/session.js';
import { LOGIN_FAILED } from './interaction.js';

/** Compared against when the account is unknown, so both failures take the same time. */
const DUMMY_PASSWORD = 'no such user: compare anyway';

/**
 * GET /ciba (CIBA Core 1.0 section 8, the mock's authentication device): the requests waiting for the
 * signed-in user, each with its binding message and Approve / Refuse; a sign-in form first when nobody
 * is signed in (the same session as the mock's login page: signed in there, signed in here).
 */
export function handleCibaPage(ex: Exchange): void {
  const session = currentSession(ex) ?? startSession(ex);
  const username = session.record.username;
  if (username === undefined) {
    ex.log.outcome = 'CIBA sign-in page';
    return sendPage(ex.res, 200, 'Sign in', cibaSignInPage(session.record.csrfToken));
  }
  ex.log.outcome = 'CIBA requests page';
  sendPage(ex.res, 200, 'Sign-in requests', cibaRequestsPage(username, session.record.csrfToken, waitingFor(ex, username)));
}

function waitingFor(ex: Exchange, username: string): CibaPageEntry[] {
  const now = ex.state.now();
  const entries: CibaPageEntry[] = [];
  for (const record of cibaRequests(ex.state.store, () => ex.state.now()).values()) {
    if (record.username !== username || record.status !== 'pending' || record.requestExpiresAt <= now) continue;
    const client = ex.state.config.clients.get(record.clientId);
    entries.push({
      pageId: record.pageId,
      clientId: record.clientId,
      clientName: client?.clientName ?? record.clientId,
      scopes: record.scopes,
      ...(record.bindingMessage !== undefined ? { bindingMessage: record.bindingMessage } : {}),
    });
  }
  return entries;
}

/** POST /ciba: the sign-in, or a decision on one request; every form carries the session's CSRF token. */
export async function handleCibaDecision(ex: Exchange): Promise<void> {
  const fail = pageFormRefusal(ex, 'This cannot go on', 'Open the requests page again.');
  const form = await readPageForm(ex, fail);
  if (!form) return;
  const { values, session } = form;
  if (values.get('action') === 'signin') return signInHere(ex, session, values);
  const username = session.record.username;
  if (username === undefined) return fail(403, 'You are not signed in.');
  const decision = values.get('decision');
  if (decision !== 'approve' && decision !== 'deny') return fail(400, 'The form must send decision=approve or decision=deny.');
  const found = findByPageId(
    cibaRequests(ex.state.store, () => ex.state.now()),
    values.get('request') ?? '',
  );
  // Another user's request is answered as an unknown one: the page names no request it does not show.
  if (!found || found[1].username !== username || found[1].requestExpiresAt <= ex.state.now()) return fail(400, 'This request has expired or is not yours.');
  const [authReqId, record] = found;
  if (record.status !== 'pending') return fail(400, 'This request has already been decided.');
  ex.log.clientId = record.clientId;
  decideCibaRequest(ex.state, authReqId, record, decision, session.record);
  ex.log.outcome = decision === 'approve' ? 'CIBA request approved' : 'CIBA request refused';
  if (decision === 'deny') ex.log.error = 'access_denied';
  sendPage(ex.res, 200, decision === 'approve' ? 'Approved' : 'Refused', cibaDonePage(decision === 'approve'));
}

/** The sign-in form of the page: the password checked in constant time, a new session id on success (session fixation). */
function signInHere(ex: Exchange, session: Session, values: Map<string, string>): void {
  const username = values.get('username') ?? '';
  const user = ex.state.config.users.get(username);
  const passwordOk = constantTimeEqual(values.get('password') ?? '', user?.password ?? DUMMY_PASSWORD);
  if (!user || !passwordOk) {
    ex.log.outcome = 'login failed';
    ex.log.error = 'login_failed';
    return sendPage(ex.res, 200, 'Sign in', cibaSignInPage(session.record.csrfToken, LOGIN_FAILED, username));
  }
  startSession(ex, session, { username: user.username, authTime: ex.state.now() });
  ex.log.outcome = 'signed in';
  redirect(ex.res, 'ciba', 303);
}
