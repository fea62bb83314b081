import { OAuthError, parseOAuthErrorBody } from './errors.js';

/** RFC 8628 section 3.2: the device authorization response. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  /** Seconds between polls; 5 when the server says nothing (section 3.2). */
  interval?: number;
  [name: string]: unknown;
}

export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 section 3.5: slow_down adds 5 seconds to the interval, for this and every later poll. */
export const SLOW_DOWN_SECONDS = 5;

/** The device authorization endpoint answered something that is neither a device authorization nor an RFC 6749 error. */
export class DeviceAuthorizationResponseError extends Error {}

/** Reads a device authorization response (section 3.2), or throws OAuthError for an error object (section 3.2, RFC 6749 section 5.2). */
export function parseDeviceAuthorizationResponse(status: number, bodyText: string): DeviceAuthorizationResponse {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    throw new DeviceAuthorizationResponseError(`the device authorization endpoint answered HTTP ${status} with a body that is not JSON`);
  }
  const error = parseOAuthErrorBody(json);
  if (error) throw new OAuthError(error, status);
  if (status !== 200 || !json || typeof json !== 'object' || Array.isArray(json)) {
    throw new DeviceAuthorizationResponseError(`the device authorization endpoint answered HTTP ${status} without a device authorization (RFC 8628 section 3.2)`);
  }
  const o = json as Record<string, unknown>;
  for (const name of ['device_code', 'user_code', 'verification_uri'] as const) {
    if (typeof o[name] !== 'string' || o[name] === '') throw new DeviceAuthorizationResponseError(`the device authorization response has no ${name} (RFC 8628 section 3.2)`);
  }
  if (typeof o.expires_in !== 'number' || !(o.expires_in > 0)) throw new DeviceAuthorizationResponseError('the device authorization response has no positive expires_in (RFC 8628 section 3.2)');
  if (o.interval !== undefined && (typeof o.interval !== 'number' || !(o.interval >= 0)))
    throw new DeviceAuthorizationResponseError('the interval of the device authorization response is not a number of seconds');
  if (o.verification_uri_complete !== undefined && typeof o.verification_uri_complete !== 'string') delete o.verification_uri_complete;
  return o as DeviceAuthorizationResponse;
}
