import { CIBA_GRANT, hintProblem, MAX_CLIENT_NOTIFICATION_TOKEN_LENGTH } from '../../oauth/ciba.js';
import { parseScope } from '../../oauth/scope.js';
import { decideCibaRequest } from '../ciba/decide.js';
import { cibaRequests } from '../ciba/store.js';
import { authenticateClient } from '../core/clients/client-auth.js';
import type { MockUser } from '../core/config/config.js';
import { EXPIRED_DEVICE_CODE_KEPT_MS } from '../core/device/device.js';
import { sendJson, sendOAuthError, type Exchange, type MockState } from '../core/http/http.js';
import { verifyIdTokenHint } from '../core/sessions/id-token-hint.js';
import { serverToken } from '../core/store/random-pool.js';
import { checkRequestedScope } from '../core/tokens/scope-check.js';
import { autoLoginSession } from '../core/sessions/sessions.js';
import { formParams } from './token.js';

/** Section 7.1 asks binding messages to be short, plain text: longer, or with control characters, is invalid_binding_message. */
const MAX_BINDING_MESSAGE = 200;

/**
 * POST /backchannel (CIBA Core 1.0 section 7): the client authenticates as at the token endpoint, names
 * the user by one hint (login_hint: a configured user's name, sub or email; id_token_hint: an ID token
 * this issuer signed), and gets an auth_req_id. The request lives device_code_lifetime seconds (less if
 * requested_expiry asks), is polled every device_interval seconds, and is decided at the page
 * {auth_url}/ciba, by the admin API, or at once with --auto-login (any known user: the mock has no
 * authentication device to ask).
 */
export async function handleBackchannelAuthentication(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  const client = await authenticateClient(ex, values);
  if (!client) return;
  const { state } = ex;
  if (!client.grantTypes.has(CIBA_GRANT) || client.cibaDeliveryMode === undefined) {
    return sendOAuthError(ex, 400, 'unauthorized_client', `client ${client.clientId} may not use CIBA (its grant_types lack ${CIBA_GRANT})`);
  }
  const scope = values.get('scope');
  if (scope === undefined || !parseScope(scope).includes('openid')) return sendOAuthError(ex, 400, 'invalid_scope', 'scope must include openid (CIBA Core section 7.1)');
  const scopes = checkRequestedScope(ex, client, scope);
  if (!scopes) return;
  const hints = { login_hint: values.get('login_hint'), id_token_hint: values.get('id_token_hint'), login_hint_token: values.get('login_hint_token') };
  const problem = hintProblem(hints);
  if (problem) return sendOAuthError(ex, 400, 'invalid_request', problem);
  if (hints.login_hint_token !== undefined) return sendOAuthError(ex, 400, 'invalid_request', 'login_hint_token is not supported here; send login_hint or id_token_hint');
  const bindingMessage = values.get('binding_message');
  if (bindingMessage !== undefined && (bindingMessage.length > MAX_BINDING_MESSAGE || /[\p{Cc}\p{Cf}]/u.test(bindingMessage))) {
    return sendOAuthError(ex, 400, 'invalid_binding_message', `binding_message must be plain text of at most ${MAX_BINDING_MESSAGE} characters (CIBA Core section 7.1)`);
  }
  const { deviceCodeLifetime, deviceInterval } = state.config;
  let lifetime = deviceCodeLifetime;
  const requestedExpiry = values.get('requested_expiry');
  if (requestedExpiry !== undefined) {
    if (!/^[1-9][0-9]{0,8}$/.test(requestedExpiry)) return sendOAuthError(ex, 400, 'invalid_request', 'requested_expiry must be a positive whole number of seconds (CIBA Core section 7.1)');
    lifetime = Math.min(lifetime, Number(requestedExpiry));
  }
  const notificationToken = values.get('client_notification_token');
  if (client.cibaDeliveryMode === 'ping') {
    if (notificationToken === undefined || notificationToken === '' || notificationToken.length > MAX_CLIENT_NOTIFICATION_TOKEN_LENGTH) {
      return sendOAuthError(ex, 400, 'invalid_request', `the ping mode needs client_notification_token, of at most ${MAX_CLIENT_NOTIFICATION_TOKEN_LENGTH} characters (CIBA Core section 7.1)`);
    }
  }
  const user = await resolveUser(state, hints.login_hint, hints.id_token_hint);
  if (typeof user === 'string')
    return sendOAuthError(ex, 400, user === 'unknown' ? 'unknown_user_id' : 'invalid_request', user === 'unknown' ? 'the hint names no user of this server (CIBA Core section 13)' : user);
  const requests = cibaRequests(state.store, () => state.now());
  requests.ensureRoom();
  const authReqId = serverToken(256);
  const now = state.now();
  const acr = values.get('acr_values');
  const record = {
    clientId: client.clientId,
    username: user.username,
    scopes,
    mode: client.cibaDeliveryMode,
    requestExpiresAt: now + lifetime * 1000,
    expiresAt: now + lifetime * 1000 + EXPIRED_DEVICE_CODE_KEPT_MS,
    interval: deviceInterval,
    status: 'pending' as const,
    pageId: serverToken(128),
    ...(bindingMessage !== undefined ? { bindingMessage } : {}),
    ...(acr !== undefined ? { acrValues: parseScope(acr) } : {}),
    ...(client.cibaDeliveryMode === 'ping' ? { notificationToken } : {}),
  };
  requests.set(authReqId, record);
  ex.log.clientId = client.clientId;
  ex.log.outcome = 'backchannel authentication request accepted';
  sendJson(
    ex.res,
    200,
    { auth_req_id: authReqId, expires_in: lifetime, ...(client.cibaDeliveryMode === 'poll' ? { interval: deviceInterval } : {}) },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  );
  // --auto-login: no authentication device to ask, the request is approved as soon as it is acknowledged.
  if (state.autoLogin !== undefined) {
    const session = user.username === state.autoLogin ? autoLoginSession(state, state.autoLogin) : undefined;
    decideCibaRequest(state, authReqId, record, 'approve', session);
  }
}

/** Section 7.1: the user a hint names: login_hint a user name, sub or email; id_token_hint an ID token this issuer signed. */
async function resolveUser(state: MockState, loginHint: string | undefined, idTokenHint: string | undefined): Promise<MockUser | 'unknown' | string> {
  const users = [...state.config.users.values()];
  if (loginHint !== undefined) return state.config.users.get(loginHint) ?? users.find((u) => u.sub === loginHint || u.claims.email === loginHint) ?? 'unknown';
  const hint = await verifyIdTokenHint(state, idTokenHint ?? '');
  if (typeof hint === 'string') return hint;
  return users.find((u) => u.sub === hint.sub) ?? 'unknown';
}
