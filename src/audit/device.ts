import { DEVICE_CODE_GRANT } from '../oauth/grant-types.js';
import { parseOAuthErrorBody } from '../oauth/errors.js';
import { formatScope } from '../oauth/scope.js';
import type { AuditContext } from './context.js';
import type { TokenExchange } from './exchanges.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';
import { jsonObject } from './json-body.js';

/** A device authorization as the probes use it (RFC 8628 section 3.2). */
export interface DeviceGrant {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  /** Seconds. */
  interval: number;
}

/** The server's device authorization endpoint, or a skip naming why the device probes do not apply. */
export function deviceEndpointOf(ctx: AuditContext): string {
  const endpoint = ctx.metadata?.device_authorization_endpoint;
  if (typeof endpoint !== 'string') throw new ProbeSkip('the server does not advertise a device_authorization_endpoint (RFC 8628 section 4)');
  return endpoint;
}

/** RFC 8628 section 3.1 with the audit's client: a device code to probe with. */
export async function authorizeDevice(ctx: AuditContext): Promise<DeviceGrant> {
  const endpoint = deviceEndpointOf(ctx);
  const req = await ctx.authenticatedRequest(endpoint, { scope: ctx.config.scopes.length > 0 ? formatScope(ctx.config.scopes) : undefined });
  const res = await ctx.http.request(req.url, { method: req.method, headers: req.headers, body: req.body });
  // Not a JSON object: described below.
  const json = jsonObject(res.body, `the answer of ${req.url}`) ?? {};
  const error = parseOAuthErrorBody(json);
  // A refusal (unauthorized_client, or invalid_request as some servers say it) means this client may not use the flow.
  if (error && res.status >= 400 && res.status < 500) {
    throw new ProbeSkip(`the server issues no device code to ${ctx.config.clientId}: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`);
  }
  if (res.status !== 200 || typeof json.device_code !== 'string' || typeof json.user_code !== 'string' || typeof json.verification_uri !== 'string') {
    throw new ProbeFailure(`no device code: the device authorization endpoint answered HTTP ${res.status}${error ? ` ${error.error}` : ''}`);
  }
  const grant: DeviceGrant = {
    deviceCode: json.device_code,
    userCode: json.user_code,
    verificationUri: json.verification_uri,
    interval: typeof json.interval === 'number' && json.interval >= 0 ? json.interval : 5,
  };
  if (typeof json.verification_uri_complete === 'string') grant.verificationUriComplete = json.verification_uri_complete;
  return grant;
}

/** One poll of the token endpoint with the device code (section 3.4), recorded like every audit token request. */
export function pollDevice(ctx: AuditContext, grant: DeviceGrant): Promise<TokenExchange> {
  return ctx.token({ grant_type: DEVICE_CODE_GRANT, device_code: grant.deviceCode });
}

/** Waits the interval the server asked for: the probes that are not about polling speed honour it. */
export function waitInterval(grant: DeviceGrant): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, grant.interval * 1000));
}

/** The page with the code filled in; the probes need it to reach the page without typing. */
export function completeUriOf(grant: DeviceGrant): string {
  if (grant.verificationUriComplete === undefined)
    throw new ProbeSkip('the server sends no verification_uri_complete, so the audit cannot open the verification page with a code (RFC 8628 section 3.3.1)');
  return grant.verificationUriComplete;
}
