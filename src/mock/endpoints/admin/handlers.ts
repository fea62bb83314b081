import { errorDescription, readBody, redirect, sendJson, type Exchange } from '../../core/http/http.js';
import { hostOfHeader, isLoopbackHost } from '../../../oauth/loopback.js';
import { addClient, addResource, addUser, moveMcpResource, clearRequests, endSession, enqueue, issueToken, moveClock, requests, reset, rotateKeys, sessions, decideCiba } from './control.js';
import { sendFlowsEvents } from './flows-events.js';
import { sendFlowsPage } from './flows-page.js';
import { findSession } from '../../core/sessions/sessions.js';
import { MockAdminError, type EnqueueInput, type IssueTokenInput } from './input.js';

type Handler = (ex: Exchange) => void | Promise<void>;

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * The admin API's gate, for every /_mock/ request: off -> the same 404 as an unknown path; on loopback
 * the Host must be a loopback name (a page on another site whose name resolves to 127.0.0.1, DNS
 * rebinding, gets 403); a request a browser sends from another origin (Origin, Sec-Fetch-Site) gets
 * 403 (cross-site request forgery). Bad input is 400 naming the field.
 */
function admin(handler: Handler): Handler {
  return async (ex) => {
    const { state, req } = ex;
    if (state.admin === 'off') {
      ex.log.error = 'not_found';
      return sendJson(ex.res, 404, { error: 'not_found', error_description: errorDescription(`no endpoint at ${ex.path}`) });
    }
    if (state.admin === 'loopback' && !isLoopbackHost(hostOfHeader(req.headers.host ?? ''))) {
      return refuse(ex, 'the admin API answers only requests to a loopback name (127.0.0.1, localhost, [::1]); start serve-mock with --admin to open it to others');
    }
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    if ((origin !== undefined && origin !== state.issuer) || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
      return refuse(ex, 'the admin API refuses requests sent by a page of another origin');
    }
    try {
      await handler(ex);
    } catch (err) {
      if (!(err instanceof MockAdminError)) throw err;
      ex.log.error = 'invalid_request';
      ex.log.errorDescription = err.message;
      sendJson(ex.res, 400, { error: 'invalid_request', error_description: errorDescription(err.message), field: err.field }, NO_STORE);
    }
  };
}

function refuse(ex: Exchange, text: string): void {
  ex.log.error = 'access_denied';
  ex.log.errorDescription = text;
  sendJson(ex.res, 403, { error: 'access_denied', error_description: text }, NO_STORE);
}

/** The request's JSON body (any content type: the Origin check above stops forged cross-site posts). */
async function jsonBody(ex: Exchange): Promise<unknown> {
  const text = await readBody(ex.req);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MockAdminError('body', text.trim() === '' ? 'is empty; send a JSON object' : 'is not valid JSON');
  }
}

function ok(ex: Exchange, outcome: string, body: unknown): void {
  ex.log.outcome = outcome;
  sendJson(ex.res, 200, body, NO_STORE);
}

/** POST /_mock/tokens: tokens without a flow. */
export const handleIssueToken = admin(async (ex) => ok(ex, 'tokens issued', await issueToken(ex.state, (await jsonBody(ex)) as IssueTokenInput)));

/** POST /_mock/next: claims for the next tokens, a fault for an endpoint, or a broken next access token. */
export const handleEnqueue = admin(async (ex) => {
  enqueue(ex.state, (await jsonBody(ex)) as EnqueueInput);
  ok(ex, 'queued', { queued: true });
});

/** GET /_mock/requests: the request log, oldest first. */
export const handleRequests = admin((ex) => ok(ex, 'ok', { requests: requests(ex.state) }));

/** DELETE /_mock/requests: clears the request log. */
export const handleClearRequests = admin((ex) => {
  clearRequests(ex.state);
  ok(ex, 'cleared', { cleared: true });
});

/** GET /_mock/clock: the mock's time; POST {"advance": seconds} or {"set": epoch_seconds} moves it. */
export const handleClock = admin((ex) => ok(ex, 'ok', { now: ex.state.now() / 1000 }));
export const handleMoveClock = admin(async (ex) => ok(ex, 'clock moved', { now: moveClock(ex.state, await jsonBody(ex)) }));

/** POST /_mock/keys/rotate. */
export const handleRotateKeys = admin(async (ex) => ok(ex, 'key rotated', { kid: await rotateKeys(ex.state) }));

/** POST /_mock/users, POST /_mock/clients: validated as the configuration file's. */
export const handleAddUser = admin(async (ex) => {
  const user = addUser(ex.state, await jsonBody(ex));
  ok(ex, 'user added', { username: user.username, sub: user.sub });
});
export const handleAddClient = admin(async (ex) => {
  const client = addClient(ex.state, await jsonBody(ex));
  ok(ex, 'client added', { client_id: client.clientId, token_endpoint_auth_method: client.tokenEndpointAuthMethod, require_pkce: client.requirePkce });
});

/** POST /_mock/resources: a protected resource {"path", "scopes", "issuer"?} (RFC 9728). */
export const handleAddResource = admin(async (ex) => ok(ex, 'resource added', addResource(ex.state, await jsonBody(ex))));

/** POST /_mock/mcp/authorization-server: {"issuer": NAME | null}, the MCP endpoint moved to that issuer (SEP-2352). */
export const handleMoveMcpResource = admin(async (ex) => ok(ex, 'MCP endpoint moved', moveMcpResource(ex.state, await jsonBody(ex))));

/** POST /_mock/reset. */
export const handleReset = admin((ex) => {
  reset(ex.state);
  ok(ex, 'reset', { reset: true });
});

/** POST /_mock/ciba: {"auth_req_id", "action": "approve"|"deny"}, as the user at {auth_url}/ciba. */
export const handleCibaDecision = admin(async (ex) => {
  const decided = decideCiba(ex.state, await jsonBody(ex));
  ok(ex, `CIBA request ${decided.status}`, decided);
});

/** GET /_mock/sessions: the signed-in sessions. */
export const handleSessions = admin((ex) => ok(ex, 'ok', { sessions: sessions(ex.state) }));

/** DELETE /_mock/sessions: ends every session; DELETE /_mock/sessions/{sid}: that one (404 when there is none). */
export const handleEndSessions = admin((ex) => ok(ex, 'sessions ended', { ended: endSession(ex.state) }));
export const handleEndSession = admin((ex) => {
  let sid: string;
  try {
    sid = decodeURIComponent(ex.path.slice('/_mock/sessions/'.length));
  } catch {
    sid = '';
  }
  if (!findSession(ex.state, sid)) {
    ex.log.error = 'not_found';
    return sendJson(ex.res, 404, { error: 'not_found', error_description: 'no signed-in session has this sid' }, NO_STORE);
  }
  ok(ex, 'session ended', { ended: endSession(ex.state, sid) });
});

/** GET /_mock/: the flows page (GET /_mock goes there). */
export const handleFlowsPage = admin(sendFlowsPage);
/** GET /_mock/events: the flows page's server-sent events, one each time a request is logged. */
export const handleFlowsEvents = admin(sendFlowsEvents);
export const handleFlowsRedirect = admin((ex) => {
  ex.log.outcome = 'ok';
  redirect(ex.res, '/_mock/', 301);
});
