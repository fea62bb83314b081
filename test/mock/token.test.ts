import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { basic, getCode, pkceRequest, pkceTokens, postForm, REDIRECT_URI, startMock } from './helpers.js';

async function webCode(server: Awaited<ReturnType<typeof startMock>>, scope = 'photo'): Promise<string> {
  return getCode(server, { response_type: 'code', client_id: 'photo-web', redirect_uri: REDIRECT_URI, state: 's', scope });
}

describe('POST /token: authorization_code with PKCE (public client)', () => {
  it('issues a JWT access token (RFC 9068) with no-store headers', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'photo' });
    expect(res.body.refresh_token).toBeUndefined();
    expect(res.body.id_token).toBeUndefined();
    const token = String(res.body.access_token);
    // Library mode signs with ES256 unless the configuration names signing_alg.
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ iss: server.issuer, sub: 'alice', aud: server.baseUrl, client_id: 'photo-cli', scope: 'photo' });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe('string');
  });

  it.each([
    ['a missing verifier (downgrade)', undefined, /code_verifier is missing/],
    ['a wrong verifier', createPkcePair().codeVerifier, /does not match/],
    ['a malformed verifier', 'too-short', /43 to 128 characters/],
  ])('refuses %s with invalid_grant', async (_n, verifier, description) => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toMatch(description);
  });

  it('refuses a verifier when the authorization request had no challenge', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const code = await webCode(server);
    const res = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: createPkcePair().codeVerifier },
      { authorization: basic('photo-web', 'photo-web-secret') },
    );
    expect(res.body).toMatchObject({ error: 'invalid_grant' });
    expect(res.body.error_description).toMatch(/no code_challenge/);
  });

  it('binds the code to the redirect URI: missing is invalid_request, different is invalid_grant', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    const form = { grant_type: 'authorization_code', code, client_id: 'photo-cli', code_verifier: pkce.codeVerifier };
    expect((await postForm(`${server.authUrl}/token`, form)).body.error).toBe('invalid_request');
    expect((await postForm(`${server.authUrl}/token`, { ...form, redirect_uri: 'http://127.0.0.1:1/callback' })).body.error).toBe('invalid_grant');
    expect((await postForm(`${server.authUrl}/token`, { ...form, redirect_uri: REDIRECT_URI })).status).toBe(200);
  });

  it('binds the code to the client', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const code = await webCode(server);
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli' });
    expect(res.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/another client/) });
  });

  it.each(['jwt', 'opaque'] as const)('a code works once; the second use fails and revokes the tokens of the first (%s access token)', async (format) => {
    const server = await startMock({ access_token_format: format }, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce, { scope: 'photo offline_access' }));
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier };
    const first = await postForm(`${server.authUrl}/token`, form);
    expect(first.status).toBe(200);
    const api = () => fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(first.body.access_token)}` } });
    expect((await api()).status).toBe(200);
    const second = await postForm(`${server.authUrl}/token`, form);
    expect(second.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
    expect((await api()).status).toBe(401);
    const refresh = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: 'photo-cli' });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a code expires after its lifetime (60 s by default)', async () => {
    let now = Date.now();
    const server = await startMock(undefined, { autoLogin: 'alice', now: () => now });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    now += 61_000;
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    expect(res.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/unknown or expired/) });
  });
});

describe('POST /token: client authentication (RFC 6749 section 2.3)', () => {
  it('client_secret_basic with form-urlencoded credentials works for photo-web', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const res = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'authorization_code', code: await webCode(server), redirect_uri: REDIRECT_URI },
      { authorization: basic('photo-web', 'photo-web-secret') },
    );
    expect(res.status).toBe(200);
  });

  it('decodes a secret with reserved characters from Basic (RFC 6749 section 2.3.1)', async () => {
    const secret = 'p@ss:w rd+%/é';
    const server = await startMock({ clients: [{ client_id: 'odd id', client_secret: secret, redirect_uris: ['http://127.0.0.1/callback'] }] }, { autoLogin: 'alice' });
    const code = await getCode(server, { response_type: 'code', client_id: 'odd id', redirect_uri: REDIRECT_URI, state: 's', scope: 'photo' });
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, { authorization: basic('odd id', secret) });
    expect(res.status).toBe(200);
  });

  it('client_secret_post works for a client registered with it', async () => {
    const server = await startMock(
      { clients: [{ client_id: 'poster', client_secret: 'sec', token_endpoint_auth_method: 'client_secret_post', redirect_uris: ['http://127.0.0.1/callback'] }] },
      { autoLogin: 'alice' },
    );
    const code = await getCode(server, { response_type: 'code', client_id: 'poster', redirect_uri: REDIRECT_URI, state: 's', scope: 'photo' });
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'poster', client_secret: 'sec' });
    expect(res.status).toBe(200);
  });

  it.each([
    ['a wrong secret (Basic)', {}, { authorization: basic('photo-web', 'wrong') }, /wrong client secret/],
    ['an unknown client (Basic)', {}, { authorization: basic('nobody', 'x') }, /not a registered client/],
    ['a wrong secret (post)', { client_id: 'photo-web', client_secret: 'wrong' }, {}, /wrong client secret/],
    ['no secret at all for a confidential client', { client_id: 'photo-web' }, {}, /registered for client_secret_basic or client_secret_post, but the request used none/],
    ['no client at all', {}, {}, /no client authentication/],
    ['a malformed Basic header', {}, { authorization: 'Basic !!!' }, /not a valid Basic/],
    ['a Bearer header', {}, { authorization: 'Bearer abc' }, /not a valid Basic/],
  ])('%s is 401 invalid_client with WWW-Authenticate', async (_n, form, headers, description) => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI, ...form }, headers);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toMatch(description);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('a public client sending a secret uses the wrong method', async () => {
    const server = await startMock();
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code: 'x', client_id: 'photo-cli', client_secret: 'guess' });
    expect(res.status).toBe(401);
    expect(res.body.error_description).toMatch(/registered for none/);
  });

  it('two methods at once is invalid_request', async () => {
    const server = await startMock();
    const res = await postForm(
      `${server.authUrl}/token`,
      { grant_type: 'authorization_code', code: 'x', client_secret: 'photo-web-secret' },
      { authorization: basic('photo-web', 'photo-web-secret') },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});

describe('POST /token: request format', () => {
  it('refuses a JSON body, a query string, duplicates, a missing or unknown grant_type', async () => {
    const server = await startMock();
    const url = `${server.authUrl}/token`;
    const json = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"authorization_code"}' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/x-www-form-urlencoded/) });
    const query = await fetch(`${url}?grant_type=authorization_code`, { method: 'POST', body: new URLSearchParams({ client_id: 'photo-cli' }) });
    expect(((await query.json()) as { error: string }).error).toBe('invalid_request');
    const dup = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=a&code=b&client_id=photo-cli' });
    expect(await dup.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/code parameter is sent more than once/) });
    expect((await postForm(url, { client_id: 'photo-cli' })).body.error).toBe('invalid_request');
    const unsupported = await postForm(url, { grant_type: 'password', client_id: 'photo-cli', username: 'alice', password: 'wonderland' });
    expect(unsupported).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    // photo-web's grant_types do not include client_credentials (photo-service's do).
    const client = await postForm(url, { grant_type: 'client_credentials' }, { authorization: basic('photo-web', 'photo-web-secret') });
    expect(client.body.error).toBe('unauthorized_client');
  });

  it('answers 413 past the body size limit', async () => {
    const server = await startMock();
    const res = await fetch(`${server.authUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=${'a'.repeat(100_000)}`,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('answers 405 to GET', async () => {
    const server = await startMock();
    const res = await fetch(`${server.authUrl}/token?grant_type=authorization_code`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('POST /token: refresh tokens', () => {
  it('offline_access adds a refresh token; refresh rotates it; reuse revokes the family', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const first = await pkceTokens(server, 'photo offline_access');
    expect(typeof first.refresh_token).toBe('string');
    const url = `${server.authUrl}/token`;
    const second = await postForm(url, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: 'photo-cli' });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe('photo offline_access');
    // A narrower scope is allowed, a wider one is not (RFC 6749 section 6).
    const narrower = await postForm(url, { grant_type: 'refresh_token', refresh_token: String(second.body.refresh_token), client_id: 'photo-cli', scope: 'photo' });
    expect(narrower.body.scope).toBe('photo');
    const wider = await postForm(url, { grant_type: 'refresh_token', refresh_token: String(narrower.body.refresh_token), client_id: 'photo-cli', scope: 'photo openid' });
    expect(wider.body.error).toBe('invalid_scope');
    // Replaying a rotated token revokes the family: the newest refresh and access tokens stop working.
    const replay = await postForm(url, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: 'photo-cli' });
    expect(replay.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
    const newest = await postForm(url, { grant_type: 'refresh_token', refresh_token: String(narrower.body.refresh_token), client_id: 'photo-cli' });
    expect(newest.body.error).toBe('invalid_grant');
    const api = await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(narrower.body.access_token)}` } });
    expect(api.status).toBe(401);
  });

  it('a refresh token is bound to its client and refused when unknown', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const tokens = await pkceTokens(server, 'photo offline_access');
    const other = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }, { authorization: basic('photo-web', 'photo-web-secret') });
    expect(other.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/another client/) });
    const unknown = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'photo-cli' });
    expect(unknown.body.error).toBe('invalid_grant');
  });
});

describe('POST /token: ID tokens', () => {
  it('openid adds an ID token with nonce, at_hash and the claims the scopes release', async () => {
    const server = await startMock({ signing_alg: 'RS256' }, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce, { scope: 'openid email', nonce: 'n-0S6_WzA2Mj' }));
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    const idToken = String(res.body.id_token);
    expect(decodeProtectedHeader(idToken)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const claims = decodeJwt(idToken);
    expect(claims).toMatchObject({ iss: server.issuer, sub: 'alice', aud: 'photo-cli', nonce: 'n-0S6_WzA2Mj', email: 'alice@example.com', email_verified: true });
    expect(claims.name).toBeUndefined();
    expect(typeof claims.at_hash).toBe('string');
  });

  it('signs with ES256 when configured', async () => {
    const server = await startMock({ signing_alg: 'ES256' }, { autoLogin: 'alice' });
    const tokens = await pkceTokens(server, 'openid photo');
    expect(decodeProtectedHeader(String(tokens.access_token)).alg).toBe('ES256');
    expect(decodeProtectedHeader(String(tokens.id_token)).alg).toBe('ES256');
  });
});
