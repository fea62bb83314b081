import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pollForCibaTokens, requestBackchannelAuthentication, requestCibaTokens } from '../../../src/client/flows/ciba.js';
import { startPingListener, type PingListener } from '../../../src/client/listeners/ciba-ping.js';
import type { FlowConfig } from '../../../src/client/flows/flow-config.js';
import { createHttpClient } from '../../../src/client/http/http.js';
import { FlowError } from '../../../src/errors.js';
import { CIBA_GRANT, type BackchannelAuthenticationResponse } from '../../../src/oauth/ciba.js';

/** An endpoint that answers the scripted bodies in turn (400 for errors) and records each form and Authorization header. */
async function scriptedServer(answers: Record<string, unknown>[]): Promise<{ url: string; forms: URLSearchParams[]; auth: (string | undefined)[] }> {
  const forms: URLSearchParams[] = [];
  const auth: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      forms.push(new URLSearchParams(body));
      auth.push(req.headers.authorization);
      const answer = answers[Math.min(forms.length - 1, answers.length - 1)]!;
      res.writeHead('error' in answer ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, forms, auth };
}

const running: Server[] = [];
const listeners: PingListener[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

const config = (url: string): FlowConfig => ({
  authorizationEndpoint: '',
  tokenEndpoint: `${url}/token`,
  endpoints: {},
  clientId: 'till',
  clientSecret: 'till-secret',
  authMethod: 'client_secret_basic',
  redirectUri: 'http://127.0.0.1/callback',
  scopes: ['openid'],
  state: 's',
  extraParams: {},
});
const ack: BackchannelAuthenticationResponse = { auth_req_id: 'ar-1', expires_in: 120, interval: 0 };

function fakeTime() {
  let t = 0;
  const waits: number[] = [];
  return { waits, now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)) };
}

describe('the backchannel authentication request (CIBA Core 1.0 section 7)', () => {
  it("sends the hint, binding message, expiry and the client's authentication; reads the acknowledgement", async () => {
    const s = await scriptedServer([{ auth_req_id: 'ar-1', expires_in: 120, interval: 2 }]);
    const http = createHttpClient();
    const got = await requestBackchannelAuthentication(http, config(s.url), `${s.url}/bc`, { scope: 'openid', login_hint: 'alice', binding_message: 'Order 42', requested_expiry: 60 });
    await http.close();
    expect(got).toMatchObject({ auth_req_id: 'ar-1', expires_in: 120, interval: 2 });
    expect(Object.fromEntries(s.forms[0]!)).toEqual({ scope: 'openid', login_hint: 'alice', binding_message: 'Order 42', requested_expiry: '60' });
    expect(s.auth[0]).toBe(`Basic ${Buffer.from('till:till-secret').toString('base64')}`);
  });

  it('an answer without auth_req_id or expires_in is said in one line', async () => {
    for (const body of [{ expires_in: 60 }, { auth_req_id: 'x' }, { auth_req_id: 'x', expires_in: 60, interval: 'soon' }]) {
      const s = await scriptedServer([body]);
      const http = createHttpClient();
      await expect(requestBackchannelAuthentication(http, config(s.url), `${s.url}/bc`, { scope: 'openid', login_hint: 'a' })).rejects.toThrow(FlowError);
      await http.close();
    }
  });
});

describe('polling with the auth_req_id (CIBA Core 1.0 sections 10.1 and 11)', () => {
  it("keeps the device grant's rule: an interval of 0 is floored to 1 s, slow_down adds 5 s for good", async () => {
    const s = await scriptedServer([{ error: 'authorization_pending' }, { error: 'slow_down' }, { error: 'authorization_pending' }, { access_token: 'at', token_type: 'Bearer' }]);
    const time = fakeTime();
    const pending: string[] = [];
    const http = createHttpClient();
    const tokens = await pollForCibaTokens(http, config(s.url), ack, { timeoutMs: 60_000, sleep: time.sleep, now: time.now, onPending: (e, i) => pending.push(`${e} ${i}`) });
    await http.close();
    expect(tokens.access_token).toBe('at');
    expect(time.waits).toEqual([1000, 1000, 6000, 6000]);
    expect(pending).toEqual(['authorization_pending 1', 'slow_down 6', 'authorization_pending 6']);
    expect(s.forms.map((f) => Object.fromEntries(f))).toEqual(Array(4).fill({ grant_type: CIBA_GRANT, auth_req_id: 'ar-1' }));
  });

  it('access_denied and expired_token end it in one line each, with what to do; the request expiring first too', async () => {
    for (const [error, hint] of [
      ['access_denied', 'the user refused the request on the authentication device'],
      ['expired_token', 'the request expired before the user decided'],
    ] as const) {
      const s = await scriptedServer([{ error, error_description: 'no' }]);
      const http = createHttpClient();
      const time = fakeTime();
      const err = await pollForCibaTokens(http, config(s.url), ack, { timeoutMs: 60_000, sleep: time.sleep, now: time.now }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FlowError);
      expect((err as FlowError).message).toBe(`the authorization server answered ${error}: no`);
      expect((err as FlowError).hint).toContain(hint);
      await expect(requestCibaTokens(http, config(s.url), ack)).rejects.toThrow(`answered ${error}`);
      await http.close();
    }
    const s = await scriptedServer([{ error: 'authorization_pending' }]);
    const http = createHttpClient();
    const time = fakeTime();
    await expect(pollForCibaTokens(http, config(s.url), { auth_req_id: 'a', expires_in: 3, interval: 1 }, { timeoutMs: 60_000, sleep: time.sleep, now: time.now })).rejects.toThrow(
      'the request expired after 3 s before the user decided',
    );
    await http.close();
  });
});

describe('the ping listener (CIBA Core 1.0 section 10.2), with hostile senders', () => {
  async function listener(): Promise<PingListener> {
    const l = await startPingListener({ host: '127.0.0.1', port: 0, path: '/cb', notificationToken: 'secret-token' });
    listeners.push(l);
    return l;
  }
  const ping = (l: PingListener, init: { path?: string; method?: string; token?: string; body?: string }) =>
    fetch(`${l.url.replace(/\/cb$/, '')}${init.path ?? '/cb'}`, {
      method: init.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...(init.token !== undefined ? { authorization: `Bearer ${init.token}` } : {}) },
      ...(init.method === 'GET' ? {} : { body: init.body ?? '{"auth_req_id":"ar-1"}' }),
    });

  it('takes only a POST to its path with the token and {"auth_req_id"}; anything else is refused and changes nothing', async () => {
    const l = await listener();
    const refused: string[] = [];
    l.onRefused = (why) => refused.push(why);
    let resolved = false;
    const waiting = l.waitForPing('ar-1').then(() => (resolved = true));
    expect((await ping(l, { path: '/other', token: 'secret-token' })).status).toBe(404);
    expect((await ping(l, { method: 'GET', token: 'secret-token' })).status).toBe(405);
    expect((await ping(l, {})).status).toBe(401);
    expect((await ping(l, { token: 'secret-tokem' })).status).toBe(401);
    expect((await ping(l, { token: 'secret-token', body: 'not json' })).status).toBe(400);
    expect((await ping(l, { token: 'secret-token', body: JSON.stringify({ auth_req_id: 'x'.repeat(10_000) }) })).status).toBe(400);
    expect((await ping(l, { token: 'secret-token', body: '{"auth_req_id":"another"}' })).status).toBe(204);
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    expect(refused).toHaveLength(6);
    expect((await ping(l, { token: 'secret-token' })).status).toBe(204);
    await waiting;
    expect(resolved).toBe(true);
  });

  it('a ping that came before the wait counts; the wait ends when its signal aborts', async () => {
    const l = await listener();
    expect((await ping(l, { token: 'secret-token' })).status).toBe(204);
    await l.waitForPing('ar-1');
    const controller = new AbortController();
    const waiting = l.waitForPing('never', controller.signal);
    controller.abort(new FlowError('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});
