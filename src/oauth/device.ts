import { OAuthError, parseOAuthErrorBody } from './errors.js';
import { JsonDepthError, parseJson } from './json.js';

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

// The polling rule (interval floor, slow_down) is shared with CIBA's poll mode: polling.ts.
export { DEFAULT_POLL_INTERVAL_SECONDS, MIN_POLL_INTERVAL_SECONDS, SLOW_DOWN_SECONDS } from './polling.js';

/** The device authorization endpoint answered something that is neither a device authorization nor an RFC 6749 error. */
export class DeviceAuthorizationResponseError extends Error {}

/** Reads a device authorization response (section 3.2), or throws OAuthError for an error object (section 3.2, RFC 6749 section 5.2). */
export function parseDeviceAuthorizationResponse(status: number, bodyText: string): DeviceAuthorizationResponse {
  let json: unknown;
  try {
    json = parseJson(bodyText, 'the device authorization response');
  } catch (err) {
    if (err instanceof JsonDepthError) throw new DeviceAuthorizationResponseError(err.message);
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
  // Section 3.2: both are the end-user verification web page, and they are opened in a browser:
  // a file:, javascript: or smb: URI is refused rather than handed to it.
  for (const name of ['verification_uri', 'verification_uri_complete'] as const) {
    const value = o[name];
    if (typeof value === 'string' && !isWebPage(value)) {
      throw new DeviceAuthorizationResponseError(
        `the ${name} of the device authorization response is not an http(s) URL (RFC 8628 section 3.2: an end-user web page): ${JSON.stringify(value.slice(0, 80))}`,
      );
    }
  }
  return o as DeviceAuthorizationResponse;
}

function isWebPage(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
