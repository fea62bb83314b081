import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { validateMockConfig } from '../../../src/mock/core/config/config.js';
import { CIBA_GRANT } from '../../../src/oauth/ciba.js';
import { adminRequest, basic, Browser, formFields, pkceTokens, postForm, startMock } from '../helpers.js';

const WEB = basic('photo-web', 'photo-web-secret');

function clock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => t, advance: (seconds: number) => void (t += seconds * 1000) };
}

function backchannel(authUrl: string, form: Record<string, string | undefined>, authorization = WEB) {
  return postForm(`${authUrl}/backchannel`, form, { authorization });
}

function poll(authUrl: string, authReqId: string, authorization = WEB) {
  return postForm(`${authUrl}/token`, { grant_type: CIBA_GRANT, auth_req_id: authReqId }, { authorization });
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('backchannel authentication endpoint (CIBA Core 1.0 section 7)', () => {
  it('is announced in the metadata with the delivery modes and no user_code', async () => {
    const server = await startMock();
    const meta = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      backchannel_authentication_endpoint: `${server.issuer}/backchannel`,
      backchannel_token_delivery_modes_supported: ['poll', 'ping'],
      backchannel_user_code_parameter_supported: false,
    });
    expect(meta.grant_types_supported).toContain(CIBA_GRANT);
  });

  it('acknowledges with an unguessable auth_req_id, expires_in and the interval; tokens after approval, once', async () => {
    const time = clock();
    const server = await startMock({ device_interval: 2 }, { now: time.now });
    const ack = await backchannel(server.authUrl, { scope: 'openid photo offline_access', login_hint: 'alice@example.com', binding_message: 'W4SCT' });
    expect(ack.status).toBe(200);
    expect(ack.headers.get('cache-control')).toBe('no-store');
    expect(ack.body).toMatchObject({ expires_in: 600, interval: 2 });
    expect(String(ack.body.auth_req_id)).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const id = String(ack.body.auth_req_id);
    expect((await poll(server.authUrl, id)).body.error).toBe('authorization_pending');
    expect((await adminRequest(server, 'ciba', { auth_req_id: id, action: 'approve' })).body).toEqual({ auth_req_id: id, status: 'approved' });
    time.advance(2);
    const tokens = await poll(server.authUrl, id);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(String(tokens.body.id_token))).toMatchObject({ sub: 'alice', aud: 'photo-web', iss: server.issuer });
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    time.advance(2);
    expect((await poll(server.authUrl, id)).body.error).toBe('invalid_grant');
  });

  it('answers slow_down to a poll sooner than the interval, and the interval grows by 5 s for good', async () => {
    const time = clock();
    const server = await startMock({ device_interval: 2 }, { now: time.now });
    const id = String((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice' })).body.auth_req_id);
    expect((await poll(server.authUrl, id)).body.error).toBe('authorization_pending');
    time.advance(1);
    expect((await poll(server.authUrl, id)).body).toMatchObject({ error: 'slow_down', error_description: expect.stringContaining('7 s') });
    time.advance(3);
    expect((await poll(server.authUrl, id)).body.error).toBe('slow_down');
    time.advance(12);
    expect((await poll(server.authUrl, id)).body.error).toBe('authorization_pending');
  });

  it('caps requested_expiry at its lifetime, then answers expired_token; refusal is access_denied', async () => {
    const time = clock();
    const server = await startMock({ device_code_lifetime: 120 }, { now: time.now });
    const long = await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', requested_expiry: '9999' });
    expect(long.body.expires_in).toBe(120);
    const short = await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', requested_expiry: '30' });
    expect(short.body.expires_in).toBe(30);
    time.advance(31);
    expect((await poll(server.authUrl, String(short.body.auth_req_id))).body.error).toBe('expired_token');
    expect((await adminRequest(server, 'ciba', { auth_req_id: String(short.body.auth_req_id), action: 'approve' })).status).toBe(400);
    server.decideCiba({ auth_req_id: String(long.body.auth_req_id), action: 'deny' });
    expect((await poll(server.authUrl, String(long.body.auth_req_id))).body.error).toBe('access_denied');
    expect(() => server.decideCiba({ auth_req_id: String(long.body.auth_req_id), action: 'approve' })).toThrow(/already been decided/);
  });

  it('binds auth_req_id to its client: another client polling it gets invalid_grant', async () => {
    const server = await startMock({
      clients: [
        { client_id: 'a', client_secret: 'sa', grant_types: [CIBA_GRANT] },
        { client_id: 'b', client_secret: 'sb', grant_types: [CIBA_GRANT] },
      ],
    });
    const id = String((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice' }, basic('a', 'sa'))).body.auth_req_id);
    server.decideCiba({ auth_req_id: id, action: 'approve' });
    expect((await poll(server.authUrl, id, basic('b', 'sb'))).body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('another client') });
    expect((await poll(server.authUrl, id, basic('a', 'sa'))).status).toBe(200);
  });

  it('refuses an unknown user, a scope without openid, no hint or two, a bad binding message, an unregistered client', async () => {
    const server = await startMock();
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'mallory' })).body.error).toBe('unknown_user_id');
    expect((await backchannel(server.authUrl, { scope: 'photo', login_hint: 'alice' })).body.error).toBe('invalid_scope');
    expect((await backchannel(server.authUrl, { scope: 'openid' })).body.error).toBe('invalid_request');
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', id_token_hint: 'x.y.z' })).body.error).toBe('invalid_request');
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', binding_message: 'a\u001b[2Jb' })).body.error).toBe('invalid_binding_message');
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', requested_expiry: '-5' })).body.error).toBe('invalid_request');
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice' }, basic('photo-service', 'photo-service-secret'))).body.error).toBe('unauthorized_client');
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice' }, basic('photo-web', 'wrong'))).status).toBe(401);
  });

  it('resolves an id_token_hint it issued to its user; a forged one is refused', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const idToken = String((await pkceTokens(server, 'openid')).id_token);
    const ack = await backchannel(server.authUrl, { scope: 'openid', id_token_hint: idToken });
    expect(ack.status).toBe(200);
    const [h, p] = idToken.split('.');
    expect((await backchannel(server.authUrl, { scope: 'openid', id_token_hint: `${h}.${p}.AAAA` })).body.error).toBe('invalid_request');
  });

  it('approves at once with --auto-login, for any user the hint names', async () => {
    const server = await startMock(
      {
        users: [
          { username: 'alice', password: 'a' },
          { username: 'bob', password: 'b' },
        ],
      },
      { autoLogin: 'alice' },
    );
    const id = String((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'bob' })).body.auth_req_id);
    const tokens = await poll(server.authUrl, id);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(String(tokens.body.id_token)).sub).toBe('bob');
  });
});

describe('bounds and the admin API', () => {
  it('a flood of requests is refused with 503 once the store is full; nothing stored is dropped', async () => {
    const server = await startMock(undefined, { limits: { deviceCodes: 3 } });
    const acks = [];
    for (let i = 0; i < 4; i++) acks.push(await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice' }));
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200, 503]);
    expect(acks[3]!.headers.get('retry-after')).toMatch(/^\d+$/);
    server.decideCiba({ auth_req_id: String(acks[0]!.body.auth_req_id), action: 'approve' });
  });

  it('POST /_mock/ciba names the field that is wrong', async () => {
    const server = await startMock();
    expect(await adminRequest(server, 'ciba', { auth_req_id: 'nope', action: 'approve' })).toMatchObject({ status: 400, body: { field: 'auth_req_id' } });
    expect(await adminRequest(server, 'ciba', { auth_req_id: 'x', action: 'maybe' })).toMatchObject({ status: 400, body: { field: 'action' } });
    expect(await adminRequest(server, 'ciba', { auth_req_id: 'x', action: 'approve', extra: 1 })).toMatchObject({ status: 400, body: { field: 'extra' } });
  });
});

describe('the approval page {auth_url}/ciba', () => {
  it('signs the user in, shows the binding message escaped, and approves by a CSRF-safe form', async () => {
    const time = clock(Date.now());
    const server = await startMock(
      {
        users: [
          { username: 'alice', password: 'wonderland' },
          { username: 'bob', password: 'builder' },
        ],
      },
      { now: time.now },
    );
    const hostile = '<script>alert(1)</script>';
    const id = String((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', binding_message: hostile })).body.auth_req_id);
    const bobs = String((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'bob', binding_message: 'for bob' })).body.auth_req_id);
    const browser = new Browser();
    const signIn = await browser.request(`${server.authUrl}/ciba`);
    const signInFields = formFields(await signIn.text());
    expect((await browser.submit(`${server.authUrl}/ciba`, { ...signInFields, username: 'alice', password: 'nope' })).status).toBe(200);
    const signedIn = await browser.submit(`${server.authUrl}/ciba`, { ...signInFields, username: 'alice', password: 'wonderland' });
    expect(signedIn.status).toBe(303);
    const page = await (await browser.request(`${server.authUrl}/ciba`)).text();
    expect(page).not.toContain(hostile);
    expect(page).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page).not.toContain('for bob');
    expect(page).not.toContain(id);
    const fields = formFields(page);
    // A forged form (no CSRF token, or another's) changes nothing.
    expect((await browser.submit(`${server.authUrl}/ciba`, { request: fields.request!, decision: 'approve' })).status).toBe(403);
    expect((await browser.submit(`${server.authUrl}/ciba`, { ...fields, csrf_token: 'forged', decision: 'approve' })).status).toBe(403);
    expect((await poll(server.authUrl, id)).body.error).toBe('authorization_pending');
    const done = await browser.submit(`${server.authUrl}/ciba`, { ...fields, decision: 'approve' });
    expect(await done.text()).toContain('Approved');
    expect((await browser.submit(`${server.authUrl}/ciba`, { ...fields, decision: 'deny' })).status).toBe(400);
    time.advance(5);
    const tokens = await postForm(`${server.authUrl}/token`, { grant_type: CIBA_GRANT, auth_req_id: id }, { authorization: WEB });
    expect(tokens.status).toBe(200);
    expect(decodeJwt(String(tokens.body.id_token))).toMatchObject({ sub: 'alice', sid: expect.any(String) });
    expect((await poll(server.authUrl, bobs)).body.error).toBe('authorization_pending');
  });
});

describe('ping mode (CIBA Core 1.0 section 10.2)', () => {
  async function listener(): Promise<{ url: string; received: Promise<{ req: IncomingMessage; body: string }> }> {
    let resolve!: (v: { req: IncomingMessage; body: string }) => void;
    const received = new Promise<{ req: IncomingMessage; body: string }>((r) => (resolve = r));
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(204).end();
        resolve({ req, body });
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`, received };
  }

  it('POSTs {"auth_req_id"} with the client notification token as a bearer token once the user decides', async () => {
    const ping = await listener();
    const server = await startMock({
      clients: [{ client_id: 'pinger', client_secret: 's', grant_types: [CIBA_GRANT], backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: ping.url }],
    });
    const auth = basic('pinger', 's');
    expect((await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice' }, auth)).body).toMatchObject({ error: 'invalid_request' });
    const ack = await backchannel(server.authUrl, { scope: 'openid', login_hint: 'alice', client_notification_token: 'tok-123' }, auth);
    expect(ack.body.interval).toBeUndefined();
    const id = String(ack.body.auth_req_id);
    server.decideCiba({ auth_req_id: id, action: 'approve' });
    const { req, body } = await ping.received;
    expect(req.method).toBe('POST');
    expect(req.headers.authorization).toBe('Bearer tok-123');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(body)).toEqual({ auth_req_id: id });
    expect((await poll(server.authUrl, id, auth)).status).toBe(200);
  });

  it('validates the client: ping needs an https or loopback endpoint, CIBA needs a client that authenticates', () => {
    const errors = (client: Record<string, unknown>) => {
      const result = validateMockConfig({ clients: [client] });
      return result.ok ? [] : result.errors;
    };
    expect(errors({ client_id: 'p', client_secret: 's', grant_types: [CIBA_GRANT], backchannel_token_delivery_mode: 'ping' })).toEqual([
      expect.stringMatching(/^clients\[0\]\.backchannel_client_notification_endpoint: /),
    ]);
    expect(errors({ client_id: 'p', client_secret: 's', grant_types: [CIBA_GRANT], backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://10.0.0.1/cb' })).toEqual([
      expect.stringMatching(/must be https, or http on a loopback address/),
    ]);
    expect(errors({ client_id: 'p', client_secret: 's', grant_types: [CIBA_GRANT], backchannel_token_delivery_mode: 'push' })).toEqual([expect.stringMatching(/must be one of poll, ping/)]);
    expect(errors({ client_id: 'p', grant_types: [CIBA_GRANT] })).toEqual([expect.stringMatching(/^clients\[0\]\.grant_types: .*needs a client that authenticates/)]);
    expect(
      errors({ client_id: 'p', client_secret: 's', grant_types: [CIBA_GRANT], backchannel_token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'https://rp.example/cb' }),
    ).toEqual([]);
  });
});
