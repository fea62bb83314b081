import { request } from 'node:http';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { adminRequest, authorizeUrl, basic, Browser, formFields, getCode, pkceRequest, pkceTokens, postForm, REDIRECT_URI, startMock } from '../helpers.js';

type Mock = Awaited<ReturnType<typeof startMock>>;

async function jwks(server: Mock): Promise<JSONWebKeySet> {
  return (await (await fetch(`${server.authUrl}/jwks`)).json()) as JSONWebKeySet;
}

async function photos(server: Mock, token: string): Promise<Response> {
  return fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } });
}

/** A raw request, so that the Host and Origin headers are exactly as given. */
function rawRequest(server: Mock, path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('POST /_mock/tokens', () => {
  it('issues a token response without a flow: the access token verifies against the JWKS and the API takes it', async () => {
    const server = await startMock();
    const { status, body } = await adminRequest(server, 'tokens', {
      sub: 'alice',
      client_id: 'photo-web',
      scope: 'photo openid profile offline_access',
      claims: { roles: ['admin'] },
      expires_in: 120,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 120, scope: 'photo openid profile offline_access' });
    const { payload } = await jwtVerify(String(body.access_token), createLocalJWKSet(await jwks(server)), { issuer: server.issuer, audience: server.baseUrl, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: 'alice', client_id: 'photo-web', scope: 'photo openid profile offline_access', roles: ['admin'] });
    expect(payload.exp! - payload.iat!).toBe(120);
    const id = decodeJwt(String(body.id_token));
    expect(id).toMatchObject({ sub: 'alice', aud: 'photo-web', name: 'Alice Liddell', roles: ['admin'] });
    expect(typeof body.refresh_token).toBe('string');
    expect((await photos(server, String(body.access_token))).status).toBe(200);
    // The refresh token works at the token endpoint like one from a flow.
    const refreshed = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(body.refresh_token) }, { authorization: basic('photo-web', 'photo-web-secret') });
    expect(refreshed.status).toBe(200);
  });

  it('takes any subject; the default client is the first configured and the scope all it may have', async () => {
    const server = await startMock();
    const { status, body } = await adminRequest(server, 'tokens', { sub: 'user-42' });
    expect(status).toBe(200);
    expect(decodeJwt(String(body.access_token))).toMatchObject({ sub: 'user-42', client_id: 'photo-web', scope: 'photo offline_access openid profile email' });
    // No refresh token for a subject the mock does not know: refreshing looks the user up.
    expect(body.refresh_token).toBeUndefined();
    expect(decodeJwt(String(body.id_token)).sub).toBe('user-42');
  });

  it.each([
    [{}, 'sub'],
    [{ sub: '' }, 'sub'],
    [{ sub: 7 }, 'sub'],
    [{ sub: 'alice', expires_in: 'soon' }, 'expires_in'],
    [{ sub: 'alice', expires_in: 0 }, 'expires_in'],
    [{ sub: 'alice', claims: ['x'] }, 'claims'],
    [{ sub: 'alice', client_id: 'nobody' }, 'client_id'],
    [{ sub: 'alice', client_id: 'photo-cli', scope: 'photo admin' }, 'scope'],
    [{ sub: 'alice', scope: 3 }, 'scope'],
    [{ sub: 'alice', audience: 'x' }, 'audience'],
    [[1, 2], 'body'],
    ['{not json', 'body'],
    ['', 'body'],
  ])('a bad body %j is 400 naming %s', async (input, field) => {
    const server = await startMock();
    const { status, body } = await adminRequest(server, 'tokens', input);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', field });
    expect(String(body.error_description).startsWith(`${field}: `)).toBe(true);
  });
});

describe('POST /_mock/next', () => {
  it('{"claims"} goes into the next access and ID token of a real flow, and no later one', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    expect((await adminRequest(server, 'next', { claims: { tenant: 'wonderland', email: 'queued@example.com' } })).status).toBe(200);
    const first = await pkceTokens(server, 'photo openid email');
    expect(decodeJwt(String(first.access_token))).toMatchObject({ tenant: 'wonderland', email: 'queued@example.com' });
    expect(decodeJwt(String(first.id_token))).toMatchObject({ tenant: 'wonderland', email: 'queued@example.com' });
    const second = await pkceTokens(server, 'photo openid email');
    expect(decodeJwt(String(second.access_token)).tenant).toBeUndefined();
    expect(decodeJwt(String(second.id_token)).email).toBe('alice@example.com');
  });

  it.each([
    [{}, 'body'],
    [{ claims: {}, token: 'expired' }, 'body'],
    [{ claims: 'x' }, 'claims'],
    [{ token: 'stale' }, 'token'],
    [{ token: 'expired', extra: 1 }, 'extra'],
    [{ endpoint: 'nowhere', status: 500 }, 'endpoint'],
    [{ endpoint: 'token' }, 'status'],
    [{ endpoint: 'token', status: 200 }, 'status'],
    [{ endpoint: 'token', status: 503.5 }, 'status'],
    [{ endpoint: 'token', error: 'has space' }, 'error'],
    [{ endpoint: 'token', error: 'x', error_description: 'a "quote"' }, 'error_description'],
    [{ endpoint: 'token', delay_ms: -1 }, 'delay_ms'],
    [{ endpoint: 'token', delay_ms: 600_000 }, 'delay_ms'],
    [{ endpoint: 'token', status: 500, times: 0 }, 'times'],
  ])('a bad body %j is 400 naming %s', async (input, field) => {
    const server = await startMock();
    const { status, body } = await adminRequest(server, 'next', input);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', field });
  });

  it('a queue holds at most 100 items', async () => {
    const server = await startMock();
    for (let i = 0; i < 100; i++) expect((await adminRequest(server, 'next', { claims: { i } })).status).toBe(200);
    const { status, body } = await adminRequest(server, 'next', { claims: { i: 100 } });
    expect(status).toBe(400);
    expect(body.error_description).toMatch(/at most 100/);
  });

  it('with opaque access tokens, the kinds that need a signature are refused', async () => {
    const server = await startMock({ access_token_format: 'opaque' });
    const { status, body } = await adminRequest(server, 'next', { token: 'alg-none' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ field: 'token' });
    expect(body.error_description).toMatch(/opaque/);
  });
});

describe('GET and DELETE /_mock/requests', () => {
  it('lists method, path, query and form parameters, headers, client and outcome, secrets included; DELETE clears it', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier }, { 'x-test': 'yes' });
    const { status, body } = await adminRequest(server, 'requests');
    expect(status).toBe(200);
    const log = body.requests as Record<string, unknown>[];
    // The admin API's own requests stay out of the log.
    expect(log.map((r) => `${String(r.method)} ${String(r.path)}`)).toEqual(['GET /authorize', 'POST /token']);
    const [authorize, token] = log;
    expect(authorize).toMatchObject({
      endpoint: 'authorize',
      status: 302,
      client_id: 'photo-cli',
      outcome: 'code issued',
      query: { client_id: 'photo-cli', state: 'state-123', code_challenge: pkce.codeChallenge },
    });
    expect(token).toMatchObject({ endpoint: 'token', status: 200, client_id: 'photo-cli', outcome: 'tokens issued', flow: authorize!.id, form: { code, code_verifier: pkce.codeVerifier } });
    expect((token!.headers as Record<string, string>)['x-test']).toBe('yes');
    expect(typeof token!.time).toBe('string');
    const cleared = await adminRequest(server, 'requests', undefined, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect((await adminRequest(server, 'requests')).body.requests).toEqual([]);
  });

  it('keeps a body that is not a form as text (here one a queued fault read), and the Authorization header as sent', async () => {
    const server = await startMock();
    await adminRequest(server, 'next', { endpoint: 'token', error: 'invalid_request' });
    await fetch(`${server.authUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: basic('photo-web', 'photo-web-secret') }, body: '{"grant_type":"x"}' });
    const [entry] = (await adminRequest(server, 'requests')).body.requests as Record<string, unknown>[];
    expect(entry).toMatchObject({ path: '/token', status: 400, error: 'invalid_request', body: '{"grant_type":"x"}' });
    expect(entry!.form).toBeUndefined();
    expect((entry!.headers as Record<string, string>).authorization).toBe(basic('photo-web', 'photo-web-secret'));
  });

  it('keeps the last 1,000 requests (a ring buffer)', async () => {
    const server = await startMock();
    for (let i = 0; i < 1100; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => fetch(`${server.authUrl}/jwks?n=${i + j}`).then((r) => r.arrayBuffer())));
    const log = (await adminRequest(server, 'requests')).body.requests as { query: { n: string } }[];
    expect(log).toHaveLength(1000);
    const seen = new Set(log.map((r) => Number(r.query.n)));
    expect(seen.size).toBe(1000);
    expect(Math.max(...seen)).toBe(1099);
  });
});

describe('POST /_mock/clock', () => {
  it('advance and set move the clock the mock issues and validates with; GET reads it', async () => {
    const server = await startMock();
    const before = Number((await adminRequest(server, 'clock')).body.now);
    const moved = await adminRequest(server, 'clock', { advance: 3600 });
    expect(moved.status).toBe(200);
    expect(Number(moved.body.now) - before).toBeGreaterThanOrEqual(3600);
    const set = await adminRequest(server, 'clock', { set: 2_000_000_000 });
    expect(Math.floor(Number(set.body.now))).toBe(2_000_000_000);
    const { body } = await adminRequest(server, 'tokens', { sub: 'alice' });
    expect(decodeJwt(String(body.access_token)).iat).toBe(2_000_000_000);
  });

  it.each([
    [{}, 'body'],
    [{ advance: 1, set: 1 }, 'body'],
    [{ advance: '1' }, 'advance'],
    [{ set: -5 }, 'set'],
    [{ set: 1e20 }, 'set'],
    [{ rewind: 1 }, 'rewind'],
  ])('a bad body %j is 400 naming %s', async (input, field) => {
    const server = await startMock();
    const { status, body } = await adminRequest(server, 'clock', input);
    expect(status).toBe(400);
    expect(body.field).toBe(field);
  });
});

describe('POST /_mock/users and /_mock/clients', () => {
  it('a user added at run time can sign in on the login page', async () => {
    const server = await startMock();
    const added = await adminRequest(server, 'users', { username: 'bob', password: 'builder', claims: { name: 'Bob' } });
    expect(added).toMatchObject({ status: 200, body: { username: 'bob', sub: 'bob' } });
    const browser = new Browser();
    const page = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { prompt: 'login' })));
    const fields = formFields(await page.text());
    const login = await browser.submit(`${server.issuer}/login`, { interaction: fields.interaction!, csrf_token: fields.csrf_token!, username: 'bob', password: 'builder' });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toMatch(/^consent\?/);
  });

  it('a client added at run time runs a flow', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const added = await adminRequest(server, 'clients', { client_id: 'tv-app', redirect_uris: ['http://127.0.0.1/tv'], scopes: ['photo'] });
    expect(added).toMatchObject({ status: 200, body: { client_id: 'tv-app', token_endpoint_auth_method: 'none', require_pkce: true } });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce, { client_id: 'tv-app', redirect_uri: 'http://127.0.0.1:4000/tv' }));
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:4000/tv', client_id: 'tv-app', code_verifier: pkce.codeVerifier });
    expect(res.status).toBe(200);
  });

  it.each([
    ['users', { password: 'x' }, 'username'],
    ['users', { username: 'alice', password: 'x' }, 'username'],
    ['users', { username: 'eve', password: '' }, 'password'],
    ['users', { username: 'eve', password: 'x', claims: { sub: 5 } }, 'claims.sub'],
    ['users', { username: 'eve', password: 'x', role: 'admin' }, 'role'],
    ['users', 'null', 'body'],
    ['clients', { client_id: 'photo-web', redirect_uris: ['http://127.0.0.1/cb'] }, 'client_id'],
    ['clients', { client_id: 'x', redirect_uris: [] }, 'redirect_uris'],
    ['clients', { client_id: 'x', redirect_uris: ['http://127.0.0.1/cb#frag'] }, 'redirect_uris[0]'],
    ['clients', { client_id: 'x', redirect_uris: ['http://127.0.0.1/cb'], scopes: ['nope'] }, 'scopes[0]'],
    ['clients', { client_id: 'x', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'client_secret_post' }, 'token_endpoint_auth_method'],
  ])('POST /_mock/%s with %j is 400 naming %s', async (path, input, field) => {
    const server = await startMock();
    const { status, body } = await adminRequest(server, path, input);
    expect(status).toBe(400);
    expect(body.field).toBe(field);
  });
});

describe('POST /_mock/reset', () => {
  it('forgets codes, tokens, sessions, queued items and the log, and keeps users and clients', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await adminRequest(server, 'users', { username: 'bob', password: 'builder' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    const tokens = await adminRequest(server, 'tokens', { sub: 'alice', client_id: 'photo-web', scope: 'photo offline_access' });
    await adminRequest(server, 'next', { endpoint: 'jwks', status: 500 });
    await adminRequest(server, 'next', { claims: { queued: true } });
    expect((await adminRequest(server, 'reset', {})).body).toEqual({ reset: true });
    expect((await adminRequest(server, 'requests')).body.requests).toEqual([]);
    const exchange = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    expect(exchange.body.error).toBe('invalid_grant');
    const refresh = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) },
      { authorization: basic('photo-web', 'photo-web-secret') },
    );
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await fetch(`${server.authUrl}/jwks`)).status).toBe(200);
    expect(decodeJwt(String((await pkceTokens(server)).access_token)).queued).toBeUndefined();
    expect(server.config.users.has('bob')).toBe(true);
  });
});

describe('the admin API gate', () => {
  it('is off with a non-loopback host (0.0.0.0): the same 404 as an unknown path', async () => {
    const server = await startMock(undefined, { host: '0.0.0.0' });
    const url = `http://127.0.0.1:${server.port}`;
    for (const path of ['/_mock/', '/_mock/requests']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
    const minted = await fetch(`${url}/_mock/tokens`, { method: 'POST', body: JSON.stringify({ sub: 'alice' }) });
    expect(minted.status).toBe(404);
    expect((await fetch(`${url}/.well-known/openid-configuration`)).status).toBe(200);
  });

  it('is on beyond loopback with admin: true (serve-mock --admin), whatever the Host', async () => {
    const server = await startMock(undefined, { host: '0.0.0.0', admin: true });
    expect((await rawRequest(server, '/_mock/requests', { host: 'mock.example:8080' })).status).toBe(200);
  });

  it('on loopback, answers only a loopback Host name (DNS rebinding)', async () => {
    const server = await startMock();
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) expect((await rawRequest(server, '/_mock/requests', { host })).status).toBe(200);
    const rebound = await rawRequest(server, '/_mock/requests', { host: `attacker.example:${server.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error_description).toMatch(/loopback/);
  });

  it('refuses a request a page of another origin sends (CSRF)', async () => {
    const server = await startMock();
    expect((await rawRequest(server, '/_mock/requests', { origin: 'https://attacker.example' })).status).toBe(403);
    expect((await rawRequest(server, '/_mock/requests', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await rawRequest(server, '/_mock/requests', { origin: server.issuer })).status).toBe(200);
    const forged = await fetch(`${server.authUrl}/_mock/tokens`, { method: 'POST', body: JSON.stringify({ sub: 'alice' }), headers: { origin: 'https://attacker.example' } });
    expect(forged.status).toBe(403);
  });
});
