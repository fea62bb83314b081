import { FlowError } from '../../errors.js';
import { DEVICE_CODE_GRANT } from '../../oauth/grant-types.js';
import { DeviceAuthorizationResponseError, parseDeviceAuthorizationResponse, type DeviceAuthorizationResponse } from '../../oauth/device.js';
import { explainOAuthError, OAuthError } from '../../oauth/errors.js';
import { formatScope } from '../../oauth/scope.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import { postAuthenticated } from './endpoint-request.js';
import type { FlowConfig } from './flow-config.js';
import type { HttpClient } from '../http/http.js';
import { pollForTokens, type PollOptions } from './polling.js';

/** RFC 8628 section 3.1: the device authorization request, with the client's authentication, scope and resources. */
export async function requestDeviceAuthorization(http: HttpClient, config: FlowConfig, endpoint: string): Promise<DeviceAuthorizationResponse> {
  const res = await postAuthenticated(http, config, endpoint, {
    scope: config.scopes.length > 0 ? formatScope(config.scopes) : undefined,
    resource: config.resources,
  });
  try {
    return parseDeviceAuthorizationResponse(res.status, res.body);
  } catch (err) {
    if (err instanceof OAuthError) throw new FlowError(`the device authorization request was refused: ${err.message}`, explainOAuthError(err.error) ?? `HTTP ${res.status}`);
    if (err instanceof DeviceAuthorizationResponseError) throw new FlowError(err.message, 'check --device-authorization-endpoint; run with --verbose to see the exchange');
    throw err;
  }
}

export type { PollOptions } from './polling.js';

/** RFC 8628 section 3.4 and 3.5: polls the token endpoint with the device code (the shared polling rule, polling.ts). */
export function pollForDeviceTokens(http: HttpClient, config: FlowConfig, device: DeviceAuthorizationResponse, options: PollOptions): Promise<TokenResponse> {
  return pollForTokens(
    http,
    config,
    {
      grant: { grant_type: DEVICE_CODE_GRANT, device_code: device.device_code },
      interval: device.interval,
      expiresIn: device.expires_in,
      expired: { message: `the device code expired after ${device.expires_in} s before the user finished`, hint: 'start again and finish at the verification page sooner' },
      timedOutHint: 'finish at the verification page sooner, or raise --timeout',
      deniedHint: 'the user denied access at the verification page: start again and approve the request',
      expiredTokenHint: 'the device code expired before the user finished: start again and finish at the verification page sooner',
    },
    options,
  );
}
