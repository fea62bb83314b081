import { formatUserCode } from '../../oauth/grant-types.js';
import { continueAuthorization } from './authorize.js';
import { approveDevice, denyDevice, lookUpUserCode, sendUserCodeProblem, VERIFICATION_PATH } from '../core/device/device.js';
import { deviceConfirmPage, userCodeEntryPage } from '../core/pages/device-pages.js';
import { singleParams, type Exchange } from '../core/http/http.js';
import { errorPage, sendPage } from '../core/pages/pages.js';
import { pageFormRefusal, readPageForm } from '../core/sessions/page-form.js';
import { currentSession, startSession } from '../core/sessions/session.js';
import { autoLoginSession } from '../core/sessions/sessions.js';
import type { AuthorizationRequest } from '../core/store/store.js';
import { countWrongUserCode, userCodeGuessesBlockedFor } from '../core/device/user-code-guesses.js';

/** The typed code's device authorization, with wrong guesses counted and, past the limit, refused (429). */
function checkTypedUserCode(ex: Exchange, typed: string): ReturnType<typeof lookUpUserCode> | undefined {
  // The guesser is the browser session; without one, only the per-device-code limit applies (user-code-guesses.ts).
  const guesser = currentSession(ex)?.id;
  const blockedFor = userCodeGuessesBlockedFor(ex.state, guesser);
  if (blockedFor !== undefined) {
    ex.log.error = 'slow_down';
    ex.log.errorDescription = 'too many wrong user codes';
    ex.log.outcome = 'error page';
    sendPage(
      ex.res,
      429,
      'Too many attempts',
      errorPage('Too many wrong codes', `Too many wrong codes were typed here. Wait ${blockedFor} s, then type the code shown on your device again.`),
      undefined,
      {
        'Retry-After': String(blockedFor),
      },
    );
    return undefined;
  }
  const found = lookUpUserCode(ex.state, typed);
  if (found.kind === 'unknown') countWrongUserCode(ex.state, guesser);
  return found;
}

/**
 * GET /device (RFC 8628 section 3.3): the form to type the user code into; with `?user_code=` (typed,
 * or from verification_uri_complete) the confirmation of that code, or a clear page when it is wrong,
 * used or expired.
 */
export function handleVerificationPage(ex: Exchange): void {
  const { values } = singleParams(ex.query);
  const typed = values.get('user_code');
  if (typed === undefined) {
    ex.log.outcome = 'device code form';
    // A session from the form on, so that the codes typed into it count against this browser alone.
    if (!currentSession(ex)) startSession(ex);
    return sendPage(ex.res, 200, 'Connect a device', userCodeEntryPage());
  }
  const found = checkTypedUserCode(ex, typed);
  if (!found) return;
  if (found.kind !== 'ok') return sendUserCodeProblem(ex, found.kind);
  const client = ex.state.config.clients.get(found.record.clientId);
  if (!client) return sendUserCodeProblem(ex, 'unknown');
  ex.log.clientId = client.clientId;
  // --auto-login skips login and consent, as at /authorize: the visit itself approves, for the configured user.
  const auto = ex.state.autoLogin;
  if (auto !== undefined) {
    const session = autoLoginSession(ex.state, auto);
    session.clients?.add(client.clientId);
    return approveDevice(ex, found.deviceCode, session);
  }
  ex.log.outcome = 'device code confirmation';
  const session = currentSession(ex) ?? startSession(ex);
  sendPage(
    ex.res,
    200,
    'Connect a device',
    deviceConfirmPage({ userCode: formatUserCode(found.record.userCode), csrfToken: session.record.csrfToken, clientName: client.clientName, clientId: client.clientId }),
  );
}

/** POST /device: Continue goes on to login and consent as in the code flow; Cancel denies the device. */
export async function handleVerification(ex: Exchange): Promise<void> {
  const fail = pageFormRefusal(ex, 'This sign-in cannot go on', `Enter the code again at ${VERIFICATION_PATH}.`);
  const form = await readPageForm(ex, fail);
  if (!form) return;
  const { values, session } = form;
  const found = checkTypedUserCode(ex, values.get('user_code') ?? '');
  if (!found) return;
  if (found.kind !== 'ok') return sendUserCodeProblem(ex, found.kind);
  const client = ex.state.config.clients.get(found.record.clientId);
  if (!client) return sendUserCodeProblem(ex, 'unknown');
  ex.log.clientId = client.clientId;
  const decision = values.get('decision');
  if (decision === 'deny') return denyDevice(ex, found.deviceCode);
  if (decision !== 'allow') return fail(400, 'The form must send decision=allow or decision=deny.');
  const request: AuthorizationRequest = {
    clientId: client.clientId,
    redirectUri: `${ex.state.issuer}${VERIFICATION_PATH}`,
    state: '',
    scopes: found.record.scopes,
    prompt: new Set(),
    device: found.deviceCode,
  };
  await continueAuthorization(ex, client, request, session, 303);
}
