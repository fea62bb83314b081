import { constantTimeEqual } from '../../oauth/pkce.js';
import type { MockClient } from '../core/config/config.js';
import { matchPostLogoutRedirectUri } from '../core/config/config-logout.js';
import { frontchannelClients, sendFrontChannelPage } from '../core/sessions/frontchannel.js';
import { isFormBody, q, readBody, redirect, singleParams, type Exchange, type MockState } from '../core/http/http.js';
import { verifyIdTokenHint, type IdTokenHint } from '../core/sessions/id-token-hint.js';
import { escapeHtml } from '../../output/markup.js';
import { errorPage, sendPage } from '../core/pages/pages.js';
import { ExpiringMap } from '../core/store/expiring-map.js';
import { redirectOrigin, withParams } from '../core/clients/redirect-uri.js';
import { currentSession } from '../core/sessions/session.js';
import { autoLoginSession, endSessionRecord, findSession } from '../core/sessions/sessions.js';
import type { SessionRecord } from '../core/store/store.js';
import { serverToken } from '../core/store/random-pool.js';

/** A validated logout request (RP-Initiated Logout 1.0 section 2). */
interface LogoutRequest {
  hint?: IdTokenHint;
  client?: MockClient;
  /** post_logout_redirect_uri with state, ready to go to. */
  next?: string;
  values: Map<string, string>;
}

/**
 * GET and POST {auth_url}/logout, the end_session_endpoint (RP-Initiated Logout 1.0 section 2):
 * id_token_hint, client_id, post_logout_redirect_uri (exactly a registered one, any port on loopback),
 * state (echoed), logout_hint and ui_locales (accepted, not needed). A request tied to this browser's
 * session (its cookie, and a hint of its user and session) ends it at once; any other gets a
 * confirmation page, and a session ends only on the user's POST of that page's form. A bad
 * request gets an error page, never a redirect (section 3: no open redirector).
 */
export async function handleEndSession(ex: Exchange): Promise<void> {
  let text = ex.query;
  if (ex.req.method === 'POST') {
    if (!isFormBody(ex.req)) return stop(ex, 'The logout request must be sent as application/x-www-form-urlencoded (RP-Initiated Logout 1.0 section 2).');
    text = await readBody(ex.req);
  }
  const { values, duplicate } = singleParams(text);
  if (duplicate) return stop(ex, `The logout request sends ${duplicate} more than once.`);
  const request = await checkLogoutRequest(ex, values);
  if (typeof request === 'string') return stop(ex, request);
  if (request.client) ex.log.clientId = request.client.clientId;
  const session = browserSession(ex);
  // The confirmation page's form, sent back: the user chose.
  if (ex.req.method === 'POST' && values.has('csrf_token')) {
    const confirmed = confirmedSession(ex, values.get('csrf_token')!, session);
    if (!confirmed) return stop(ex, 'The form was not sent from this sign-out page (CSRF token mismatch), or the session has already ended.', 403);
    if (values.get('decision') !== 'logout') {
      ex.log.outcome = 'logout declined';
      return sendPage(ex.res, 200, 'Still signed in', '<h1>You are still signed in</h1>\n<p>Nothing was changed. You may close this page.</p>');
    }
    return finish(ex, request, endSessionRecord(ex.state, confirmed.key, confirmed.record, 'logout', ex.id), confirmed === session);
  }
  // Tied to this browser's session: the hint is of its user and, when it names a session, of this one.
  const hint = request.hint;
  if (session && hint && subOf(ex, session.record) === hint.sub && (hint.sid === undefined || hint.sid === session.record.sid)) {
    return finish(ex, request, endSessionRecord(ex.state, session.key, session.record, 'logout', ex.id));
  }
  if (session) return confirm(ex, request, session.record.csrfToken, session.record);
  // No session cookie: a hint alone may come from anyone who holds the ID token, so the named session
  // ends only when someone confirms on the page, never by this request.
  const named = hint?.sid !== undefined ? findSession(ex.state, hint.sid) : undefined;
  if (!named || subOf(ex, named[1]) !== hint!.sub) return finish(ex, request, undefined);
  confirm(ex, request, pendingConfirmation(ex.state, hint!.sid!));
}

/** Confirmations asked without a session cookie, by their one-time token: the sid each would end. */
interface PendingLogout {
  sid: string;
  expiresAt: number;
}
const pendingLogouts = new WeakMap<object, ExpiringMap<PendingLogout>>();
/** How long a confirmation page without a session cookie may be answered. */
const CONFIRMATION_MS = 10 * 60_000;

function pendingOf(state: MockState): ExpiringMap<PendingLogout> {
  let map = pendingLogouts.get(state.config);
  if (!map) pendingLogouts.set(state.config, (map = new ExpiringMap(state.store.limit('interactions'), state.now, 'sign-out confirmations')));
  return map;
}

/** A fresh one-time token for the page that asks whether to end the session `sid`. */
function pendingConfirmation(state: MockState, sid: string): string {
  const token = serverToken(256);
  pendingOf(state).set(token, { sid, expiresAt: state.now() + CONFIRMATION_MS });
  return token;
}

/**
 * The session a confirmation form's token stands for: this browser's, by its session's CSRF token;
 * else the one a page without a cookie asked about, by the one-time token that page held (spent now,
 * whatever the user chose).
 */
function confirmedSession(ex: Exchange, token: string, session: { key: string; record: SessionRecord } | undefined): { key: string; record: SessionRecord } | undefined {
  if (session && constantTimeEqual(token, session.record.csrfToken)) return session;
  const pending = pendingOf(ex.state);
  const asked = pending.get(token);
  if (!asked) return undefined;
  pending.delete(token);
  const found = findSession(ex.state, asked.sid);
  return found && { key: found[0], record: found[1] };
}

async function checkLogoutRequest(ex: Exchange, values: Map<string, string>): Promise<LogoutRequest | string> {
  const out: LogoutRequest = { values };
  const hint = values.get('id_token_hint');
  if (hint !== undefined) {
    const verified = await verifyIdTokenHint(ex.state, hint);
    if (typeof verified === 'string') return `The ${verified}.`;
    out.hint = verified;
  }
  const clientId = values.get('client_id');
  if (clientId !== undefined && out.hint && !out.hint.aud.includes(clientId)) return `client_id ${q(clientId)} is not an audience of the id_token_hint (RP-Initiated Logout 1.0 section 2).`;
  const id = clientId ?? (out.hint?.aud.length === 1 ? out.hint.aud[0] : undefined);
  if (id !== undefined) {
    out.client = ex.state.config.clients.get(id);
    if (!out.client) return `client_id ${q(id)} is not a registered client.`;
  }
  const uri = values.get('post_logout_redirect_uri');
  if (uri !== undefined) {
    if (!out.client) return 'A post_logout_redirect_uri needs a client_id or an id_token_hint, to know whose registered URIs it must match (RP-Initiated Logout 1.0 section 3).';
    if (!matchPostLogoutRedirectUri(out.client, uri)) return `post_logout_redirect_uri ${q(uri)} is not registered for client ${q(out.client.clientId)} (post_logout_redirect_uris).`;
    out.next = withParams(uri, { state: values.get('state') });
  }
  return out;
}

/** The signed-in session of this browser (or of --auto-login), with its key in the store. */
function browserSession(ex: Exchange): { key: string; record: SessionRecord } | undefined {
  if (ex.state.autoLogin !== undefined) {
    const record = autoLoginSession(ex.state, ex.state.autoLogin);
    const found = findSession(ex.state, record.sid!);
    return found ? { key: found[0], record: found[1] } : undefined;
  }
  const session = ex.req.headers.cookie === undefined ? undefined : currentSession(ex);
  return session?.record.sid !== undefined && ex.state.store.sessions.get(session.id) ? { key: session.id, record: session.record } : undefined;
}

function subOf(ex: Exchange, record: SessionRecord): string | undefined {
  return ex.state.config.users.get(record.username ?? '')?.sub;
}

/** Signed out (or already): the front-channel page when a client asks for one, else back to the client, else a page. */
function finish(ex: Exchange, request: LogoutRequest, ended: SessionRecord | undefined, ownCookie = true): void {
  if (ended && ownCookie && ex.state.autoLogin === undefined)
    ex.res.setHeader('Set-Cookie', `${ex.state.sessionCookie}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${ex.state.secureCookies ? '; Secure' : ''}`);
  const front = ended ? frontchannelClients(ex, ended) : [];
  if (front.length > 0) return sendFrontChannelPage(ex, ended!, front, request.next);
  ex.log.outcome = ended ? 'signed out' : 'no session to end';
  if (request.next) return redirect(ex.res, request.next, ex.req.method === 'POST' ? 303 : 302);
  sendPage(ex.res, 200, 'Signed out', '<h1>You are signed out</h1>\n<p>You may close this page.</p>');
}

/**
 * Section 2: the request is not tied to this browser's session (no hint, a hint of another user or
 * session, or no session cookie at all), so the user confirms, by a POST carrying `csrfToken`.
 */
function confirm(ex: Exchange, request: LogoutRequest, csrfToken: string, browser?: SessionRecord): void {
  ex.log.outcome = 'logout confirmation page';
  const fields: [string, string | undefined][] = [
    ['client_id', request.client?.clientId],
    ['post_logout_redirect_uri', request.values.get('post_logout_redirect_uri')],
    ['state', request.values.get('state')],
  ];
  const hidden = fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
    .join('\n');
  const who = browser?.username !== undefined ? ` as <strong>${escapeHtml(browser.username)}</strong>` : '';
  // Without the session's cookie this browser is not the one signed in: the page names nobody.
  const where = browser ? `You are signed in${who}.` : 'The session this application signed you in to is asked to end.';
  const body = `<h1>Sign out?</h1>
<p>${where}${request.client ? ` <strong>${escapeHtml(request.client.clientName)}</strong> asks to sign you out.` : ''}</p>
<form method="post" action="logout">
<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">
${hidden}
<div class="actions">
<button type="submit" name="decision" value="logout">Yes, sign out</button>
<button type="submit" name="decision" value="stay" class="secondary">No, stay signed in</button>
</div>
</form>`;
  sendPage(ex.res, 200, 'Sign out', body, request.next ? redirectOrigin(request.next) : undefined);
}

function stop(ex: Exchange, message: string, status = 400): void {
  ex.log.error = status === 403 ? 'csrf' : 'invalid_request';
  ex.log.errorDescription = message;
  ex.log.outcome = 'error page';
  sendPage(
    ex.res,
    status,
    'Cannot sign out',
    errorPage('This sign-out request cannot go on', message, 'The server does not send you back to the application, since it could not check where to. Sign out from the application again.'),
  );
}
