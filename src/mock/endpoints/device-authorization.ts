import { DEVICE_CODE_GRANT, formatUserCode } from '../../oauth/grant-types.js';
import { authenticateClient } from '../core/clients/client-auth.js';
import { EXPIRED_DEVICE_CODE_KEPT_MS, newUserCode, VERIFICATION_PATH } from '../core/device/device.js';
import { sendJson, sendOAuthError, type Exchange } from '../core/http/http.js';
import { serverToken } from '../core/store/random-pool.js';
import { checkRequestedScope } from '../core/tokens/scope-check.js';
import { formParams } from './token.js';
import { wrongUserCodesSoFar } from '../core/device/user-code-guesses.js';

/**
 * POST /device_authorization (RFC 8628 section 3.1): client authentication as at the token endpoint
 * (a public client sends its client_id), then a device code, a user code and where to enter it.
 * With --auto-login the code is approved as soon as its verification page is visited (endpoints/device.ts).
 */
export async function handleDeviceAuthorization(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  const client = await authenticateClient(ex, values);
  if (!client) return;
  const { state } = ex;
  if (!client.grantTypes.has(DEVICE_CODE_GRANT)) {
    return sendOAuthError(ex, 400, 'unauthorized_client', `client ${client.clientId} may not use the device authorization grant (its grant_types lack ${DEVICE_CODE_GRANT})`);
  }
  const scopes = checkRequestedScope(ex, client, values.get('scope'));
  if (!scopes) return;
  // Both stores must have room before either gets an entry: a full one refuses (503), nothing is evicted.
  state.store.deviceCodes.ensureRoom();
  state.store.userCodes.ensureRoom();
  const deviceCode = serverToken(256);
  const userCode = newUserCode(state);
  const now = state.now();
  const { deviceCodeLifetime, deviceInterval } = state.config;
  const codeExpiresAt = now + deviceCodeLifetime * 1000;
  const expiresAt = codeExpiresAt + EXPIRED_DEVICE_CODE_KEPT_MS;
  state.store.deviceCodes.set(deviceCode, {
    clientId: client.clientId,
    userCode,
    scopes,
    codeExpiresAt,
    expiresAt,
    interval: deviceInterval,
    wrongGuessesAtIssue: wrongUserCodesSoFar(state),
    status: 'pending',
  });
  state.store.userCodes.set(userCode, { deviceCode, expiresAt });
  const verificationUri = `${state.issuer}${VERIFICATION_PATH}`;
  ex.log.outcome = 'device code issued';
  sendJson(
    ex.res,
    200,
    {
      device_code: deviceCode,
      user_code: formatUserCode(userCode),
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${formatUserCode(userCode)}`,
      expires_in: deviceCodeLifetime,
      interval: deviceInterval,
    },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  );
}
