import { FlowError } from '../errors.js';
import { DEVICE_CODE_GRANT } from '../oauth/grant-types.js';
import {
  DEFAULT_POLL_INTERVAL_SECONDS,
  DeviceAuthorizationResponseError,
  MIN_POLL_INTERVAL_SECONDS,
  parseDeviceAuthorizationResponse,
  SLOW_DOWN_SECONDS,
  type DeviceAuthorizationResponse,
} from '../oauth/device.js';
import { explainOAuthError, formatOAuthError, OAuthError } from '../oauth/errors.js';
import { formatScope } from '../oauth/scope.js';
import type { TokenResponse } from '../oauth/token-request.js';
import { postAuthenticated } from './endpoint-request.js';
import type { FlowConfig } from './flow-config.js';
import type { HttpClient } from './http.js';
import { requestToken, TokenRequestError } from './token.js';

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

export interface PollOptions {
  /** Give up after this long (and in any case when the device code expires). */
  timeoutMs: number;
  /** Waits `ms`, or rejects when `signal` aborts; injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Told of every poll that is not yet the tokens: `authorization_pending`, or `slow_down` with the new interval. */
  onPending?: (error: 'authorization_pending' | 'slow_down', intervalSeconds: number) => void;
  now?: () => number;
}

/**
 * RFC 8628 section 3.4 and 3.5: polls the token endpoint with the device code, waiting `interval`
 * seconds before each poll; authorization_pending goes on, slow_down goes on 5 seconds slower (for good),
 * expired_token, access_denied and any other error end the flow (FlowError, exit 1).
 */
export async function pollForDeviceTokens(http: HttpClient, config: FlowConfig, device: DeviceAuthorizationResponse, options: PollOptions): Promise<TokenResponse> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? delay;
  // Section 3.2: 5 s when the server names none; never faster than once a second (an interval of 0 is a tight loop).
  let interval = Math.max(MIN_POLL_INTERVAL_SECONDS, device.interval ?? DEFAULT_POLL_INTERVAL_SECONDS);
  const started = now();
  const deadline = started + Math.min(options.timeoutMs, device.expires_in * 1000);
  for (;;) {
    if (now() + interval * 1000 > deadline) {
      const expired = options.timeoutMs >= device.expires_in * 1000;
      throw new FlowError(
        expired ? `the device code expired after ${device.expires_in} s before the user finished` : `timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for the user to finish`,
        expired ? 'start again and finish at the verification page sooner' : 'finish at the verification page sooner, or raise --timeout',
      );
    }
    await sleep(interval * 1000, options.signal);
    try {
      return await requestToken(http, config, { grant_type: DEVICE_CODE_GRANT, device_code: device.device_code });
    } catch (err) {
      const error = err instanceof TokenRequestError ? err.oauthError?.error : undefined;
      if (error === 'authorization_pending') {
        options.onPending?.(error, interval);
        continue;
      }
      if (error === 'slow_down') {
        interval += SLOW_DOWN_SECONDS;
        options.onPending?.(error, interval);
        continue;
      }
      // Named by its code as the code flow names it, with the server's words (RFC 8628 section 3.5).
      const answered = err instanceof TokenRequestError && err.oauthError ? `the authorization server answered ${formatOAuthError(err.oauthError)}` : '';
      if (error === 'access_denied') throw new FlowError(answered, 'the user denied access at the verification page: start again and approve the request');
      if (error === 'expired_token') throw new FlowError(answered, 'the device code expired before the user finished: start again and finish at the verification page sooner');
      throw err;
    }
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
