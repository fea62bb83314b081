import { FlowError } from '../../errors.js';
import { formatOAuthError } from '../../oauth/errors.js';
import type { StoredRegistration } from '../../store/registrations.js';
import type { HttpClient } from '../http/http.js';

/** RFC 7591 section 2: the metadata a client sends. */
export interface ClientRegistrationRequest {
  redirect_uris?: string[];
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
  client_name?: string;
  scope?: string;
  application_type?: string;
  jwks?: unknown;
  jwks_uri?: string;
}

/** RFC 7591 section 3.2.1 (and RFC 7592 section 3): what the server registered. */
export interface ClientRegistrationResponse {
  client_id: string;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_id_issued_at?: number;
  registration_access_token?: string;
  registration_client_uri?: string;
  redirect_uris?: string[];
  token_endpoint_auth_method?: string;
  [member: string]: unknown;
}

const LOOPBACK_PORT = /^(http:\/\/(?:127\.0\.0\.1|localhost|\[::1\])):\d{1,5}(\/|$)/;

/** Two redirect URIs are the same registration; a loopback one's port aside (RFC 8252 section 7.3). */
export const sameRedirect = (a: string, b: string) => a === b || a.replace(LOOPBACK_PORT, '$1$2') === b.replace(LOOPBACK_PORT, '$1$2');

/**
 * POST the metadata to the registration endpoint (RFC 7591 section 3.1), with the initial access token
 * when one is given. The response must hold a client_id and the redirect URIs as sent: a server that
 * registered others would send the code somewhere the client does not listen (or an attacker does).
 */
export async function registerClient(http: HttpClient, endpoint: string, request: ClientRegistrationRequest, initialAccessToken?: string): Promise<ClientRegistrationResponse> {
  const res = await http.request(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(initialAccessToken !== undefined && { authorization: `Bearer ${initialAccessToken}` }) },
    body: JSON.stringify(request),
  });
  if (res.status !== 201 && res.status !== 200) throw registrationError('registration', res.status, res.body);
  const body = res.json<ClientRegistrationResponse>();
  if (typeof body !== 'object' || body === null || typeof body.client_id !== 'string' || body.client_id === '') {
    throw new FlowError('the registration response has no client_id (RFC 7591 section 3.2.1)', 'the server did not register the client');
  }
  const asked = request.redirect_uris ?? [];
  const got = Array.isArray(body.redirect_uris) ? body.redirect_uris.filter((u): u is string => typeof u === 'string') : asked;
  const changed = got.filter((u) => !asked.some((a) => sameRedirect(a, u)));
  if (changed.length > 0 || got.length !== asked.length) {
    throw new FlowError(
      `the server registered other redirect URIs than asked (${changed.join(', ') || got.join(', ') || 'none'} instead of ${asked.join(', ')}): not used`,
      'RFC 7591 section 3.2.1: the response holds the registered values; a client must not send codes to a redirect URI it did not ask for',
    );
  }
  return body;
}

/**
 * RFC 7592 section 2.3: DELETE at the client configuration endpoint with the registration access token.
 * 'gone' when the server says it does not know the client (401, as section 2.3 says for a client that
 * does not exist, or 404): there is nothing left to delete there.
 */
export async function deleteRegistration(http: HttpClient, registration: StoredRegistration): Promise<'deleted' | 'gone'> {
  if (registration.registration_client_uri === undefined || registration.registration_access_token === undefined) {
    throw new FlowError('the stored registration has no registration_client_uri or registration_access_token', 'the server does not support RFC 7592: delete the client there by hand');
  }
  const res = await http.request(registration.registration_client_uri, { method: 'DELETE', headers: { authorization: `Bearer ${registration.registration_access_token}` } });
  if (res.status === 401 || res.status === 404) return 'gone';
  if (res.status !== 204 && res.status !== 200) throw registrationError('deletion', res.status, res.body);
  return 'deleted';
}

function registrationError(what: string, status: number, text: string): FlowError {
  let detail = '';
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'string') detail = `: ${formatOAuthError({ error: body.error, ...(typeof body.error_description === 'string' && { error_description: body.error_description }) })}`;
  } catch {
    detail = '';
  }
  return new FlowError(
    `the ${what} endpoint answered HTTP ${status}${detail}`,
    status === 401 ? 'give --initial-access-token T when the server needs one (RFC 7591 section 3)' : 'see the error above (RFC 7591 section 3.2.2)',
  );
}

/** What is kept of a registration (store/registrations.ts). */
export function storedRegistration(server: string, response: ClientRegistrationResponse, nowMs: number): StoredRegistration {
  return {
    version: 1,
    server,
    client_id: response.client_id,
    ...(typeof response.client_secret === 'string' && { client_secret: response.client_secret }),
    token_endpoint_auth_method: typeof response.token_endpoint_auth_method === 'string' ? response.token_endpoint_auth_method : 'client_secret_basic',
    redirect_uris: Array.isArray(response.redirect_uris) ? response.redirect_uris.filter((u): u is string => typeof u === 'string') : [],
    ...(typeof response.registration_client_uri === 'string' && { registration_client_uri: response.registration_client_uri }),
    ...(typeof response.registration_access_token === 'string' && { registration_access_token: response.registration_access_token }),
    registered_at: Math.floor(nowMs / 1000),
  };
}
