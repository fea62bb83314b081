import type { MockClient } from '../core/config/config.js';
import type { MockState } from '../core/http/http.js';
import { postToClient } from '../core/http/post-to-client.js';

/** How long the ping may take, connect to last byte; the body of the answer is never read. */
export const PING_TIMEOUT_MS = 5000;

/**
 * CIBA Core 1.0 section 10.2: the ping callback, once the user has decided: a POST of `{"auth_req_id"}`
 * to the client's registered notification endpoint with the client's own notification token as a
 * bearer token. A redirect is not followed (the token goes only where it was registered); the answer
 * (204 or 200, section 10.2) is logged, nothing waits for it. Never rejects.
 */
export async function sendPing(state: MockState, client: MockClient, authReqId: string, notificationToken: string): Promise<void> {
  const uri = client.cibaNotificationEndpoint;
  if (uri === undefined) return;
  const body = JSON.stringify({ auth_req_id: authReqId });
  const { status, problem, durationMs } = await postToClient(uri, { 'Content-Type': 'application/json', Authorization: `Bearer ${notificationToken}` }, body, PING_TIMEOUT_MS, state.config.outbound);
  const delivered = status === 200 || status === 204;
  state.requests.add({
    id: state.requests.newId(),
    time: state.now(),
    method: 'POST',
    path: uri,
    endpoint: 'ciba_ping',
    query: '',
    form: undefined,
    body,
    headers: {},
    status,
    clientId: client.clientId,
    outcome: delivered ? 'CIBA ping delivered' : 'CIBA ping not delivered',
    error: delivered ? undefined : 'delivery_failed',
    errorDescription: delivered ? undefined : (problem ?? `answered ${status}`),
    durationMs,
    flow: undefined,
    fault: undefined,
  });
}
