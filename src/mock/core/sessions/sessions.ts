import type { JWTPayload } from 'jose';
import type { EndCause } from './backchannel.js';
import type { MockUser } from '../config/config.js';
import type { MockState } from '../http/http.js';
import { ACR_PASSWORD, AMR_PASSWORD } from '../authorization/oidc-params.js';
import { serverToken } from '../store/random-pool.js';
import { ExpiringMap } from '../store/expiring-map.js';
import { type AuthorizationRequest, type ClaimsRequest, type MockStore, type SessionRecord } from '../store/store.js';

/**
 * Signed-in sessions as OpenID Connect sees them: each has a `sid` (in every ID token it issues,
 * never the cookie's value: Front-Channel Logout 1.0 section 3), the time and method of its sign-in
 * (`auth_time`, `amr`, `acr`), and the clients it issued codes to, which are told when it ends
 * (Back-Channel and Front-Channel Logout 1.0). The browser session itself (cookie, CSRF token) is
 * session.ts's.
 */

/** A session as the admin API lists it. */
export interface MockSession {
  sid: string;
  sub: string;
  auth_time: number;
  clients: string[];
}

/** What sessions keep beside the store: the auto-login session, consents kept past logout, claims asked for at userinfo. */
class SessionSide {
  autoLoginSession?: string;
  readonly keptConsents = new Map<string, Map<string, Set<string>>>();
  readonly userinfoClaims: ExpiringMap<{ names: string[]; expiresAt: number }>;
  constructor(store: MockStore, now: () => number) {
    this.userinfoClaims = new ExpiringMap(store.limit('accessTokens'), now, 'claims requests');
  }
}

const sides = new WeakMap<MockStore, SessionSide>();
function sideOf(state: MockState): SessionSide {
  let side = sides.get(state.store);
  if (!side) sides.set(state.store, (side = new SessionSide(state.store, state.now)));
  return side;
}

/**
 * Marks a record signed in at `authTime` with a password. Signing in again as the same user (prompt=login,
 * max_age) keeps the session's sid and clients; another user gets a new session. Consents kept for the
 * user (keep_consent_after_logout) come back.
 */
export function signIn(state: MockState, record: SessionRecord, username: string, authTime: number, previous?: SessionRecord): void {
  const same = previous?.username === username && previous.sid !== undefined;
  record.username = username;
  record.authTime = authTime;
  record.sid = same ? previous.sid : serverToken(128);
  record.amr = AMR_PASSWORD;
  record.acr = ACR_PASSWORD;
  record.clients = same && previous.clients ? previous.clients : new Set();
  const kept = state.config.keepConsentAfterLogout ? sideOf(state).keptConsents.get(username) : undefined;
  if (kept) for (const [client, scopes] of kept) if (!record.consents.has(client)) record.consents.set(client, scopes);
  endOnExpiry(state);
}

/**
 * A session that expires ends like one ended by logout, the admin API or reset: its clients are told
 * by back-channel, its consents kept when the configuration says so. Watched from the first sign-in into the store (reset makes a new store), so a
 * server that signs nobody in never pays for it.
 */
function endOnExpiry(state: MockState): void {
  const sessions = state.store.sessions;
  if (sessions.onExpire === undefined) sessions.onExpire = (key, record) => endSessionRecord(state, key, record, 'expiry');
}

/**
 * With --auto-login there is no browser: one session of that user, made on first use and kept in
 * the store under a key no cookie ever carries, stands for it (so its ID tokens have a sid that
 * logout can end). Looked up, not made, on each authorization request.
 */
export function autoLoginSession(state: MockState, username: string): SessionRecord {
  const side = sideOf(state);
  const id = side.autoLoginSession;
  const found = id === undefined ? undefined : state.store.sessions.get(id);
  if (found) return found;
  const key = serverToken(256);
  const record: SessionRecord = { csrfToken: serverToken(256), consents: new Map(), expiresAt: state.now() + AUTO_LOGIN_SECONDS * 1000 };
  signIn(state, record, username, state.now());
  state.store.sessions.set(key, record);
  side.autoLoginSession = key;
  return record;
}
const AUTO_LOGIN_SECONDS = 24 * 3600;

/**
 * OpenID Connect Core 3.1.2.1: whether the request makes the user sign in again although signed in:
 * prompt=login, an authentication older than max_age (max_age=0: always), or an id_token_hint of
 * another user (the session must be the hint's user).
 */
export function mustSignInAgain(state: MockState, request: AuthorizationRequest, record: SessionRecord): boolean {
  if (request.prompt.has('login')) return true;
  if (request.maxAge !== undefined && state.now() - (record.authTime ?? 0) >= request.maxAge * 1000) return true;
  return request.idTokenHintSub !== undefined && state.config.users.get(record.username ?? '')?.sub !== request.idTokenHintSub;
}

/** The request once the user has signed in (or chosen an account): what asked for a sign-in is satisfied. */
export function afterSignIn(request: AuthorizationRequest): AuthorizationRequest {
  const prompt = new Set([...request.prompt].filter((p) => p !== 'login' && p !== 'select_account'));
  const out: AuthorizationRequest = { ...request, prompt };
  delete out.maxAge;
  delete out.idTokenHintSub;
  return out;
}

/** sid, amr and acr of the session (OpenID Connect Core 2), and the claims the claims parameter asked for (5.5). */
export function addSessionClaims(claims: JWTPayload, session: SessionRecord | undefined, user: MockUser, requested: ClaimsRequest | undefined): void {
  if (session?.sid !== undefined) {
    claims.sid = session.sid;
    claims.amr = session.amr;
    claims.acr = session.acr;
  }
  if (requested) for (const name of requested.idToken) if (user.claims[name] !== undefined && claims[name] === undefined) claims[name] = user.claims[name];
}

/** The claims the claims parameter asked for at userinfo, remembered by the access token's jti. */
export function rememberUserinfoClaims(state: MockState, jti: string, names: string[], expiresAt: number): void {
  if (names.length > 0) sideOf(state).userinfoClaims.set(jti, { names, expiresAt });
}

export function userinfoClaims(state: MockState, jti: string, user: MockUser): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of sideOf(state).userinfoClaims.get(jti)?.names ?? []) if (user.claims[name] !== undefined) out[name] = user.claims[name];
  return out;
}

/** The signed-in session with this sid, and its key in the store. */
export function findSession(state: MockState, sid: string): [string, SessionRecord] | undefined {
  for (const entry of state.store.sessions.entries()) if (entry[1].sid === sid && entry[1].expiresAt > state.now()) return entry;
  return undefined;
}

export function listSessions(state: MockState): MockSession[] {
  const out: MockSession[] = [];
  const now = state.now();
  for (const record of state.store.sessions.values()) {
    if (record.sid === undefined || record.expiresAt <= now) continue;
    const sub = state.config.users.get(record.username ?? '')?.sub ?? record.username ?? '';
    out.push({ sid: record.sid, sub, auth_time: Math.floor((record.authTime ?? 0) / 1000), clients: [...(record.clients ?? [])] });
  }
  return out;
}

/**
 * Ends a session (its cookie no longer signs anyone in), keeps its consents when the configuration
 * says so, and tells its clients by back-channel (never waited for: backchannel.ts). Returns the
 * ended record, for the front channel.
 */
export function endSessionRecord(state: MockState, key: string, record: SessionRecord, cause: EndCause, flow?: number): SessionRecord {
  state.store.sessions.delete(key);
  const side = sideOf(state);
  if (side.autoLoginSession === key) delete side.autoLoginSession;
  if (state.config.keepConsentAfterLogout && record.username !== undefined) side.keptConsents.set(record.username, record.consents);
  // Each attempt logs its own outcome; what fails past that (the server closed meanwhile) has nobody left to tell.
  if (record.clients && record.clients.size > 0) void import('./backchannel.js').then((m) => m.notifyBackchannel(state, record, cause, flow)).catch(() => undefined);
  return record;
}

/** Ends the session with this sid, or every session; resolves to how many ended. */
export function endSessions(state: MockState, sid: string | undefined, cause: EndCause): number {
  if (sid !== undefined) {
    const found = findSession(state, sid);
    if (!found) return 0;
    endSessionRecord(state, found[0], found[1], cause);
    return 1;
  }
  // Those that expired and were not yet swept end now as what they are: expired (logged so), not
  // ended by this cause.
  state.store.sessions.sweep();
  const all = [...state.store.sessions.entries()].filter(([, r]) => r.sid !== undefined);
  for (const [key, record] of all) endSessionRecord(state, key, record, cause);
  return all.length;
}
