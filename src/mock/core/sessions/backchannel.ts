import { BACKCHANNEL_LOGOUT_EVENT } from '../../../oauth/logout-token.js';
import type { MockClient } from '../config/config.js';
import type { MockState } from '../http/http.js';
import { postToClient } from '../http/post-to-client.js';
import { newJti } from '../tokens/jwt.js';
import type { SessionRecord } from '../store/store.js';

/** Why a session ended: said in the request log beside each back-channel delivery. */
export type EndCause = 'logout' | 'admin' | 'reset' | 'expiry' | 'another sign-in';

/** How long one delivery may take, connect to last byte (section 2.8 leaves it to the OP). */
export const DELIVERY_TIMEOUT_MS = 5000;
/** At most this many attempts per client, a new logout token (a new jti) each (section 2.7: a token is used once). */
export const DELIVERY_ATTEMPTS = 3;
const RETRY_DELAYS_MS = [250, 1000];
/** A logout token is good for two minutes (section 2.4 asks for a short life). */
const LOGOUT_TOKEN_SECONDS = 120;

/**
 * Tells each client of an ended session that has a backchannel_logout_uri (section 2.5): POSTs it a
 * logout token, retried only when not answered 200 (section 2.8). Runs on its own: nothing waits for
 * it, so no browser response is held up by a slow relying party. Each attempt goes in the request log.
 */
export async function notifyBackchannel(state: MockState, session: SessionRecord, cause: EndCause, flow?: number): Promise<void> {
  const clients = [...(session.clients ?? [])].map((id) => state.config.clients.get(id)).filter((c): c is MockClient => c?.backchannelLogoutUri !== undefined);
  await Promise.all(clients.map((client) => inTurn(state, () => deliver(state, client, session, cause, flow))));
}

/** At most this many deliveries of one issuer at a time: ending 10,000 sessions at once queues them, it does not open 10,000 connections. */
export const MAX_CONCURRENT_DELIVERIES = 16;
const turns = new WeakMap<MockState, { active: number; waiting: (() => void)[] }>();

async function inTurn(state: MockState, job: () => Promise<void>): Promise<void> {
  let t = turns.get(state);
  if (!t) turns.set(state, (t = { active: 0, waiting: [] }));
  const slots = t;
  if (slots.active >= MAX_CONCURRENT_DELIVERIES) await new Promise<void>((resolve) => slots.waiting.push(resolve));
  slots.active++;
  try {
    await job();
  } finally {
    slots.active--;
    slots.waiting.shift()?.();
  }
}

async function deliver(state: MockState, client: MockClient, session: SessionRecord, cause: EndCause, flow: number | undefined): Promise<void> {
  const uri = client.backchannelLogoutUri!;
  for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS; attempt++) {
    const token = await logoutToken(state, client, session);
    const form = `logout_token=${token}`;
    const { status, problem, refused, durationMs } = await postToClient(
      uri,
      { 'Content-Type': 'application/x-www-form-urlencoded', 'Cache-Control': 'no-store' },
      form,
      DELIVERY_TIMEOUT_MS,
      state.config.outbound,
    );
    const delivered = status === 200;
    // An address the policy refuses stays refused: no second attempt.
    const last = attempt === DELIVERY_ATTEMPTS || refused === true;
    const what = problem ?? `answered ${status}`;
    state.requests.add({
      id: state.requests.newId(),
      time: state.now(),
      method: 'POST',
      path: uri,
      endpoint: 'backchannel_logout',
      query: '',
      form,
      body: undefined,
      headers: {},
      status,
      clientId: client.clientId,
      outcome: `back-channel logout (${cause}) ${delivered ? 'delivered' : last ? `failed after ${attempt} attempt${attempt === 1 ? '' : 's'}` : 'not delivered, will retry'}, attempt ${attempt}`,
      error: delivered ? undefined : 'delivery_failed',
      errorDescription: delivered ? undefined : what,
      durationMs,
      flow,
      fault: undefined,
    });
    if (delivered || last) return;
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt - 1]).unref());
  }
}

/** Section 2.4: iss, aud, iat, exp, jti, events, sub and sid; never a nonce (section 2.4). */
async function logoutToken(state: MockState, client: MockClient, session: SessionRecord): Promise<string> {
  const iat = Math.floor(state.now() / 1000);
  const sub = state.config.users.get(session.username ?? '')?.sub ?? session.username;
  return (await state.keys()).signLogoutToken({
    iss: state.issuer,
    aud: client.clientId,
    iat,
    exp: iat + LOGOUT_TOKEN_SECONDS,
    jti: newJti(),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...(sub !== undefined ? { sub } : {}),
    ...(session.sid !== undefined ? { sid: session.sid } : {}),
  });
}
