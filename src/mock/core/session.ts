import { serverToken } from './random-pool.js';
import { parseCookies, type Exchange } from './http.js';
import type { SessionRecord } from './store.js';

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
  const record = ex.state.store.sessions.get(id);
  return record ? { id, record } : undefined;
}

/**
 * A new session with a fresh id and CSRF token; replaces `previous` (a new id at login prevents
 * session fixation). The cookie is HttpOnly and SameSite=Lax, Secure under an https issuer.
 */
export function startSession(ex: Exchange, previous?: Session): Session {
  if (previous) ex.state.store.sessions.delete(previous.id);
  const id = serverToken(256);
  const record: SessionRecord = {
    csrfToken: serverToken(256),
    consents: previous?.record.consents ?? new Map(),
    expiresAt: ex.state.now() + SESSION_SECONDS * 1000,
  };
  ex.state.store.sessions.set(id, record);
  const secure = ex.state.secureCookies ? '; Secure' : '';
  ex.res.setHeader('Set-Cookie', `${ex.state.sessionCookie}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${secure}`);
  return { id, record };
}
