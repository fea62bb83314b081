import { serverToken } from '../store/random-pool.js';
import { parseCookies, type Exchange } from '../http/http.js';
import { endSessionRecord, signIn } from './sessions.js';
import type { SessionRecord } from '../store/store.js';

/** The session cookie is `oauthctl_mock_session_<port>` (MockState.sessionCookie). */
export const SESSION_COOKIE_PREFIX = 'oauthctl_mock_session_';
const SESSION_SECONDS = 3600;

export interface Session {
  id: string;
  record: SessionRecord;
}

/** The browser session named by the request's cookie, if the server knows it. */
export function currentSession(ex: Exchange): Session | undefined {
  const id = parseCookies(ex.req.headers.cookie).get(ex.state.sessionCookie);
  if (!id) return undefined;
  const { store } = ex.state;
  const record = store.sessions.get(id) ?? store.pendingSessions.get(id);
  return record ? { id, record } : undefined;
}

/**
 * A new session with a fresh id and CSRF token; replaces `previous` (a new id at login prevents
 * session fixation). The cookie is HttpOnly and SameSite=Lax, Secure under an https issuer.
 * Anonymous sessions and signed-in ones are kept in separate bounded stores, so that a flood of
 * anonymous requests cannot push out anyone's sign-in (it gets 503 once its store is full).
 */
export function startSession(ex: Exchange, previous?: Session, user?: { username: string; authTime: number }): Session {
  const { store } = ex.state;
  const id = serverToken(256);
  // Another user signing in at this browser ends the previous user's session: its consents stay with it.
  const otherUser = user !== undefined && previous?.record.username !== undefined && previous.record.username !== user.username;
  const record: SessionRecord = {
    csrfToken: serverToken(256),
    consents: previous && !otherUser ? previous.record.consents : new Map(),
    expiresAt: ex.state.now() + SESSION_SECONDS * 1000,
  };
  if (user) signIn(ex.state, record, user.username, user.authTime, previous?.record);
  (user ? store.sessions : store.pendingSessions).set(id, record);
  if (previous) {
    // Its clients are told by back-channel, as for any other end of a session (Back-Channel Logout 1.0 section 2.5).
    if (otherUser) endSessionRecord(ex.state, previous.id, previous.record, 'another sign-in');
    else store.sessions.delete(previous.id);
    store.pendingSessions.delete(previous.id);
  }
  const secure = ex.state.secureCookies ? '; Secure' : '';
  ex.res.setHeader('Set-Cookie', `${ex.state.sessionCookie}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${secure}`);
  return { id, record };
}
