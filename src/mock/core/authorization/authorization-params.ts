import { checkAuthorizationRequest, type AuthorizeCheck } from './authorize-request.js';
import type { MockClient } from '../config/config.js';
import type { Exchange } from '../http/http.js';
import { matchRedirectUri } from '../clients/redirect-uri.js';
import { verifyIdTokenHint } from '../sessions/id-token-hint.js';
import { requestObjectParams } from './request-object.js';
import { requestedResources } from '../tokens/resources.js';
import { securityOf } from '../store/security-store.js';

/** RFC 9126 section 2.2. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
const JKT = /^[A-Za-z0-9_-]{43}$/;

/**
 * An authorization request at /authorize or pushed to /par, before and after the checks of
 * authorize-request.ts: a pushed request's request_uri (RFC 9126 section 4: single use, unexpired,
 * of the same client; the pushed parameters only), PAR when it is required (section 5), a signed
 * request object (RFC 9101) in place of the parameters, or its absence when the client requires one,
 * then the resource indicators (RFC 8707) and dpop_jkt (RFC 9449 section 10).
 */
export async function checkAuthorization(ex: Exchange, values: Map<string, string>, duplicate: string | undefined, pushed: boolean): Promise<AuthorizeCheck> {
  const { state } = ex;
  const clientId = values.get('client_id');
  if (values.has('request') && values.has('request_uri')) return { kind: 'page', message: 'send request or request_uri, not both (RFC 9101 section 5)', ...(clientId ? { clientId } : {}) };
  if (!pushed && values.has('request_uri')) return pushedRequest(ex, clientId, values.get('request_uri')!);
  const client = clientId === undefined ? undefined : state.config.clients.get(clientId);
  let params = values;
  if (client) {
    if (!pushed && (client.requirePushedAuthorizationRequests || state.config.requirePushedAuthorizationRequests)) {
      return early(
        client,
        values,
        pushed,
        'invalid_request',
        `client ${client.clientId} must push its authorization requests to the PAR endpoint and send only client_id and request_uri here (RFC 9126 section 5)`,
      );
    }
    const jwt = values.get('request');
    if (jwt !== undefined) {
      const object = await requestObjectParams(state, client, jwt);
      if (!object.ok) return early(client, values, pushed, 'invalid_request_object', object.description);
      params = object.values;
      duplicate = undefined;
    } else if (client.requireSignedRequestObject) {
      return early(
        client,
        values,
        pushed,
        'invalid_request',
        `client ${client.clientId} must send its authorization request as a signed request object (require_signed_request_object, RFC 9101 section 10.5)`,
      );
    }
  }
  const check = checkAuthorizationRequest(params, duplicate, state.config);
  if (check.kind !== 'ok') return check;
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect-error',
    client: check.client,
    redirectUri: check.request.redirectUri,
    state: check.request.state,
    error,
    description,
    ...(check.request.formPost ? { formPost: true } : {}),
    ...(check.request.responseMode !== undefined ? { jarm: check.request.responseMode } : {}),
  });
  const hint = params.get('id_token_hint');
  if (hint !== undefined) {
    const verified = await verifyIdTokenHint(state, hint);
    if (typeof verified === 'string') return fail('invalid_request', verified);
    check.request.idTokenHintSub = verified.sub;
  }
  const resources = requestedResources(params, state);
  if (!resources.ok) return fail('invalid_target', resources.description);
  const dpopJkt = params.get('dpop_jkt');
  if (dpopJkt !== undefined && !JKT.test(dpopJkt)) return fail('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint (RFC 9449 section 10)');
  const { request } = check;
  if (resources.resources.length > 0) request.resources = resources.resources;
  if (dpopJkt !== undefined) request.dpopJkt = dpopJkt;
  return { kind: 'ok', client: check.client, request };
}

/** RFC 9126 section 4: the pushed request behind a request_uri, used once, by its own client only. */
function pushedRequest(ex: Exchange, clientId: string | undefined, requestUri: string): AuthorizeCheck {
  const page = (message: string): AuthorizeCheck => ({ kind: 'page', message, ...(clientId ? { clientId } : {}) });
  if (clientId === undefined) return page('the request has a request_uri but no client_id (RFC 9126 section 4)');
  const pushed = securityOf(ex.state.store, ex.state.now).pushedRequests;
  const record = requestUri.startsWith(REQUEST_URI_PREFIX) ? pushed.get(requestUri) : undefined;
  if (!record) return page('the request_uri is unknown, already used or expired: push the request again (RFC 9126 section 4)');
  if (record.client.clientId !== clientId) return page('the request_uri was pushed by another client (RFC 9126 section 4)');
  pushed.delete(requestUri);
  return { kind: 'ok', client: record.client, request: record.request };
}

/**
 * A refusal before the parameters are checked: at /authorize a redirect when the query's redirect_uri
 * is the client's, else the error page; at /par the error (answered as JSON, never redirected).
 */
function early(client: MockClient, values: Map<string, string>, pushed: boolean, error: string, description: string): AuthorizeCheck {
  if (pushed) return { kind: 'redirect-error', client, redirectUri: '', error, description };
  const redirectUri = values.get('redirect_uri');
  if (redirectUri === undefined || !matchRedirectUri(client.redirectUris, redirectUri)) return { kind: 'page', message: description, clientId: client.clientId };
  const state = values.get('state');
  return { kind: 'redirect-error', client, redirectUri, ...(state !== undefined ? { state } : {}), error, description };
}
