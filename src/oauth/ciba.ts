import { OAuthError, parseOAuthErrorBody } from './errors.js';
import { JsonDepthError, parseJson } from './json.js';

/**
 * OpenID Connect Client-Initiated Backchannel Authentication Flow - Core 1.0 (CIBA Core): the shapes the
 * client and the mock share.
 */

/** Section 10.1: the grant type of the token request. */
export const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';

/** Section 5: how the client learns that the user has decided (push is not implemented here). */
export const CIBA_DELIVERY_MODES = ['poll', 'ping'] as const;
export type CibaDeliveryMode = (typeof CIBA_DELIVERY_MODES)[number];

/** Section 7.1: client_notification_token is at most 1024 characters. */
export const MAX_CLIENT_NOTIFICATION_TOKEN_LENGTH = 1024;

/** Section 7.1: the authentication request's parameters (besides the client's authentication). */
export interface BackchannelAuthenticationRequest {
  /** Must include openid. */
  scope: string;
  /** Exactly one hint identifies the user. */
  login_hint?: string;
  id_token_hint?: string;
  login_hint_token?: string;
  binding_message?: string;
  acr_values?: string;
  /** Seconds the client asks the request to live. */
  requested_expiry?: number;
  /** Ping and push modes: the bearer token the server sends back with its notification. */
  client_notification_token?: string;
}

/** Section 7.3: the acknowledgement. */
export interface BackchannelAuthenticationResponse {
  auth_req_id: string;
  expires_in: number;
  /** Poll mode: seconds between polls, 5 when absent. */
  interval?: number;
  [name: string]: unknown;
}

/** Section 7.1: the request's form parameters. */
export function backchannelAuthenticationParams(request: BackchannelAuthenticationRequest): Record<string, string> {
  const params: Record<string, string> = { scope: request.scope };
  for (const name of ['login_hint', 'id_token_hint', 'login_hint_token', 'binding_message', 'acr_values', 'client_notification_token'] as const) {
    const value = request[name];
    if (value !== undefined) params[name] = value;
  }
  if (request.requested_expiry !== undefined) params.requested_expiry = String(request.requested_expiry);
  return params;
}

/** Section 7.1: what is wrong with a request's hints (none, or more than one, of the three), or undefined. */
export function hintProblem(hints: { login_hint?: string | undefined; id_token_hint?: string | undefined; login_hint_token?: string | undefined }): string | undefined {
  const given = (['login_hint', 'id_token_hint', 'login_hint_token'] as const).filter((name) => hints[name] !== undefined);
  if (given.length === 1) return undefined;
  return given.length === 0
    ? 'one of login_hint, id_token_hint and login_hint_token identifies the user (CIBA Core section 7.1)'
    : `only one hint may identify the user, but the request has ${given.join(' and ')} (CIBA Core section 7.1)`;
}

/** The backchannel authentication endpoint answered something that is neither an acknowledgement nor an error. */
export class BackchannelAuthenticationResponseError extends Error {}

/** Reads an acknowledgement (section 7.3), or throws OAuthError for an error object (section 13). */
export function parseBackchannelAuthenticationResponse(status: number, bodyText: string): BackchannelAuthenticationResponse {
  let json: unknown;
  try {
    json = parseJson(bodyText, 'the backchannel authentication response');
  } catch (err) {
    if (err instanceof JsonDepthError) throw new BackchannelAuthenticationResponseError(err.message);
    throw new BackchannelAuthenticationResponseError(`the backchannel authentication endpoint answered HTTP ${status} with a body that is not JSON`);
  }
  const error = parseOAuthErrorBody(json);
  if (error) throw new OAuthError(error, status);
  if (status !== 200 || !json || typeof json !== 'object' || Array.isArray(json)) {
    throw new BackchannelAuthenticationResponseError(`the backchannel authentication endpoint answered HTTP ${status} without an acknowledgement (CIBA Core section 7.3)`);
  }
  const o = json as Record<string, unknown>;
  if (typeof o.auth_req_id !== 'string' || o.auth_req_id === '') throw new BackchannelAuthenticationResponseError('the backchannel authentication response has no auth_req_id (CIBA Core section 7.3)');
  if (typeof o.expires_in !== 'number' || !(o.expires_in > 0))
    throw new BackchannelAuthenticationResponseError('the backchannel authentication response has no positive expires_in (CIBA Core section 7.3)');
  if (o.interval !== undefined && (typeof o.interval !== 'number' || !(o.interval >= 0)))
    throw new BackchannelAuthenticationResponseError('the interval of the backchannel authentication response is not a number of seconds');
  return o as BackchannelAuthenticationResponse;
}

/** Section 10.2: the ping callback's body, `{"auth_req_id"}`; undefined when it is not one. */
export function parsePingCallback(bodyText: string): string | undefined {
  try {
    const json = parseJson(bodyText, 'the ping callback') as unknown;
    if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
    const id = (json as Record<string, unknown>).auth_req_id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}
