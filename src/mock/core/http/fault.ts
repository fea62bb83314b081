import { checkAuthorization } from '../authorization/authorization-params.js';
import { REALM } from '../clients/client-auth.js';
import { quotedString } from '../../../oauth/www-authenticate.js';
import { errorDescription, readBody, redirect, sendJson, singleParams, type Exchange } from './http.js';
import { errorPage, sendPage } from '../pages/pages.js';
import type { Fault } from '../tokens/queue.js';
import { withParams } from '../clients/redirect-uri.js';

const QUEUED = 'queued by the admin API (POST /_mock/next)';

/** A short text for the request log: `503 temporarily_unavailable after 200 ms`. */
export function describeFault(f: Fault): string {
  const parts = [f.status, f.error].filter((p) => p !== undefined);
  if (f.delayMs !== undefined) parts.push(`after ${f.delayMs} ms`);
  return parts.join(' ');
}

/**
 * Applies a fault the admin API queued for this endpoint: waits `delayMs` first, then answers with the
 * queued status and error, or, with only a delay, lets the endpoint answer as usual (`run`).
 */
export async function applyFault(ex: Exchange, fault: Fault, endpoint: string, run: () => void | Promise<void>): Promise<void> {
  ex.log.fault = describeFault(fault);
  if (fault.delayMs) await delay(ex, fault.delayMs);
  if (ex.req.socket.destroyed) {
    ex.log.outcome = 'client went away';
    return;
  }
  if (fault.status === undefined && fault.error === undefined) return run();
  // The body is read (for the request log) though the endpoint does not run.
  if (ex.req.method !== 'GET' && ex.req.method !== 'HEAD') await readBody(ex.req).catch(() => undefined);
  if (endpoint === 'authorize') return authorizeFault(ex, fault, run);
  const error = fault.error ?? defaultError(fault.status!);
  const resource = endpoint === 'api' || endpoint === 'userinfo';
  const status = fault.status ?? (error === 'invalid_client' || error === 'invalid_token' ? 401 : error === 'insufficient_scope' ? 403 : 400);
  const description = errorDescription(fault.errorDescription ?? QUEUED);
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  // RFC 6750 section 3 for the resource endpoints, RFC 6749 section 5.2 (401 invalid_client) for the others.
  if (resource && (status === 401 || status === 403)) headers['WWW-Authenticate'] = `Bearer realm="${REALM}", error=${quotedString(error)}, error_description=${quotedString(description)}`;
  else if (status === 401) headers['WWW-Authenticate'] = `Basic realm="${REALM}"`;
  ex.log.outcome = 'queued fault';
  ex.log.error = error;
  ex.log.errorDescription = description;
  sendJson(ex.res, status, { error, error_description: description }, headers);
}

function defaultError(status: number): string {
  if (status === 503) return 'temporarily_unavailable';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

/**
 * At the authorization endpoint an error without a status goes back to the client as an error redirect
 * (RFC 6749 section 4.1.2.1), when the client and redirect URI are good (those of a pushed request or a
 * request object too, which the error uses up); with a status, an error page.
 */
async function authorizeFault(ex: Exchange, fault: Fault, run: () => void | Promise<void>): Promise<void> {
  const description = errorDescription(fault.errorDescription ?? QUEUED);
  const error = fault.error ?? defaultError(fault.status!);
  ex.log.error = error;
  ex.log.errorDescription = description;
  if (fault.status === undefined) {
    const { values, duplicate } = singleParams(ex.query);
    const check = await checkAuthorization(ex, values, duplicate, false);
    // A request that cannot be redirected to gets the endpoint's own error page.
    if (check.kind === 'page') return run();
    ex.log.clientId = check.client.clientId;
    ex.log.outcome = 'queued fault';
    const redirectUri = check.kind === 'ok' ? check.request.redirectUri : check.redirectUri;
    const state = check.kind === 'ok' ? check.request.state : check.state;
    return redirect(ex.res, withParams(redirectUri, { error, error_description: description, state, iss: ex.state.issuer }));
  }
  ex.log.outcome = 'queued fault';
  sendPage(ex.res, fault.status, 'Error', errorPage('The server could not answer', `${error}: ${description}`, 'This failure was queued by the admin API of the mock.'));
}

/** Waits, or stops waiting when the client goes away. */
function delay(ex: Exchange, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ex.res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    ex.res.once('close', done);
  });
}
