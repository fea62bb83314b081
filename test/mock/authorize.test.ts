import { describe, expect, it } from 'vitest';
import { calculateCodeChallenge, createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, getRedirect, pkceRequest, REDIRECT_URI, startMock } from './helpers.js';

const pkce = createPkcePair();

async function errorRedirect(url: string): Promise<URLSearchParams> {
  const { status, location } = await getRedirect(url);
  expect(status).toBe(302);
  expect(location).toBeDefined();
  expect(`${location!.origin}${location!.pathname}`).toBe('http://127.0.0.1:53682/callback');
  return location!.searchParams;
}

describe('GET /authorize: client and redirect URI first, with an error page and never a redirect', () => {
  it.each([
    ['missing client_id', { client_id: undefined }, /no client_id/],
    ['unknown client', { client_id: 'nobody' }, /not a registered client/],
    ['missing redirect_uri', { redirect_uri: undefined }, /no redirect_uri/],
    ['unregistered redirect_uri', { redirect_uri: 'https://evil.example/callback' }, /not registered/],
    ['other path on loopback', { redirect_uri: 'http://127.0.0.1:5000/callback/extra' }, /not registered/],
    ['query added', { redirect_uri: 'http://127.0.0.1:5000/callback?x=1' }, /not registered/],
    ['https instead of http', { redirect_uri: 'https://127.0.0.1:5000/callback' }, /not registered/],
    ['host case changed', { redirect_uri: 'http://LOCALHOST:5000/callback' }, /not registered/],
    ['dot segments', { redirect_uri: 'http://127.0.0.1:5000/x/../callback' }, /not registered/],
    ['credentials', { redirect_uri: 'http://user@127.0.0.1:5000/callback' }, /not registered/],
  ])('%s', async (_name, overrides, message) => {
    const server = await startMock();
    const { status, location, response } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { ...overrides, response_type: 'token' })));
    expect(status).toBe(400);
    expect(location).toBeUndefined();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(message);
  });

  it('a duplicated client_id or redirect_uri is an error page', async () => {
    const server = await startMock();
    const url = `${authorizeUrl(server, pkceRequest(pkce))}&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/callback')}`;
    const { status, location } = await getRedirect(url);
    expect(status).toBe(400);
    expect(location).toBeUndefined();
  });
});

describe('GET /authorize: loopback redirect URIs match on any port (RFC 8252 section 7.3)', () => {
  it.each(['http://127.0.0.1:1234/callback', 'http://localhost:8080/callback', 'http://[::1]:65000/callback', 'http://127.0.0.1/callback'])('%s', async (redirectUri) => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const { status, location } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { redirect_uri: redirectUri })));
    expect(status).toBe(302);
    expect(location!.href.startsWith(`${redirectUri}?`)).toBe(true);
    expect(location!.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location!.searchParams.get('state')).toBe('state-123');
    expect(location!.searchParams.get('iss')).toBe(server.issuer);
  });

  it('a non-loopback registration matches exactly, port included', async () => {
    const server = await startMock({ clients: [{ client_id: 'web', client_secret: 's', redirect_uris: ['https://app.example/cb'] }] }, { autoLogin: 'alice' });
    const params = { response_type: 'code', client_id: 'web', state: 's', scope: 'photo' };
    expect((await getRedirect(authorizeUrl(server, { ...params, redirect_uri: 'https://app.example/cb' }))).status).toBe(302);
    expect((await getRedirect(authorizeUrl(server, { ...params, redirect_uri: 'https://app.example:8443/cb' }))).status).toBe(400);
  });
});

describe('GET /authorize: errors redirect with error, error_description, state and iss (RFC 6749 section 4.1.2.1, RFC 9207)', () => {
  it('the implicit flow is refused, pointing to the code flow with PKCE', async () => {
    const server = await startMock();
    const q = await errorRedirect(authorizeUrl(server, pkceRequest(pkce, { response_type: 'token' })));
    expect(q.get('error')).toBe('unsupported_response_type');
    expect(q.get('error_description')).toMatch(/response_type=code.*PKCE/);
    expect(q.get('state')).toBe('state-123');
    expect(q.get('iss')).toBe(server.issuer);
  });

  it.each([
    ['missing response_type', { response_type: undefined }, 'invalid_request', /response_type/],
    ['response_mode fragment', { response_mode: 'fragment' }, 'invalid_request', /response_mode/],
    ['missing state', { state: undefined }, 'invalid_request', /state/],
    ['unknown scope', { scope: 'photo admin' }, 'invalid_scope', /'admin'/],
    ['public client without code_challenge', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request', /must use PKCE/],
    ['method without challenge', { code_challenge: undefined }, 'invalid_request', /without a code_challenge/],
    ['unknown method', { code_challenge_method: 'S512' }, 'invalid_request', /not supported/],
    ['plain not allowed', { code_challenge_method: 'plain', code_challenge: pkce.codeVerifier }, 'invalid_request', /plain is not allowed/],
    ['absent method means plain', { code_challenge_method: undefined }, 'invalid_request', /means plain/],
    ['short S256 challenge', { code_challenge: 'abc' }, 'invalid_request', /43 base64url/],
    ['padded S256 challenge', { code_challenge: `${pkce.codeChallenge.slice(0, 42)}=` }, 'invalid_request', /43 base64url/],
    ['unknown prompt', { prompt: 'bogus' }, 'invalid_request', /prompt/],
    ['prompt none with login', { prompt: 'none login' }, 'invalid_request', /prompt=none/],
    ['request object that is not a JWT', { request: 'eyJ' }, 'invalid_request_object', /not a JWT/],
  ])('%s', async (_name, overrides, error, description) => {
    const server = await startMock();
    const q = await errorRedirect(authorizeUrl(server, pkceRequest(pkce, overrides)));
    expect(q.get('error')).toBe(error);
    expect(q.get('error_description')).toMatch(description);
    expect(q.get('iss')).toBe(server.issuer);
    if ('state' in overrides && (overrides as Record<string, unknown>).state === undefined) expect(q.has('state')).toBe(false);
    else expect(q.get('state')).toBe('state-123');
  });

  it('a scope the client may not request is invalid_scope', async () => {
    const server = await startMock({ clients: [{ client_id: 'narrow', redirect_uris: ['http://127.0.0.1/callback'], scopes: ['openid'] }] });
    const q = await errorRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: 'narrow' })));
    expect(q.get('error')).toBe('invalid_scope');
    expect(q.get('error_description')).toMatch(/may not request scope 'photo'/);
  });

  it('any other duplicated parameter is invalid_request', async () => {
    const server = await startMock();
    const q = await errorRedirect(`${authorizeUrl(server, pkceRequest(pkce))}&scope=openid`);
    expect(q.get('error')).toBe('invalid_request');
    expect(q.get('error_description')).toMatch(/scope parameter is sent more than once/);
  });

  it('empty parameters count as missing (RFC 6749 section 3.1)', async () => {
    const server = await startMock();
    const q = await errorRedirect(authorizeUrl(server, pkceRequest(pkce, { state: '' })));
    expect(q.get('error')).toBe('invalid_request');
  });

  it('the redirect keeps a query the registered redirect URI has', async () => {
    const server = await startMock({ clients: [{ client_id: 'q', redirect_uris: ['http://127.0.0.1/cb?tenant=7'] }] }, { autoLogin: 'alice' });
    const { location } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: 'q', redirect_uri: 'http://127.0.0.1:4000/cb?tenant=7' })));
    expect(location!.searchParams.get('tenant')).toBe('7');
    expect(location!.searchParams.get('code')).toBeTruthy();
  });
});

describe('GET /authorize: PKCE options per client', () => {
  it('plain is accepted when the client allows it, and a plain challenge must be a valid verifier', async () => {
    const server = await startMock({ clients: [{ client_id: 'old', redirect_uris: ['http://127.0.0.1/callback'], allow_plain_pkce: true }] }, { autoLogin: 'alice' });
    const ok = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: 'old', code_challenge_method: 'plain', code_challenge: pkce.codeVerifier })));
    expect(ok.location!.searchParams.get('code')).toBeTruthy();
    const bad = await errorRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: 'old', code_challenge_method: 'plain', code_challenge: 'short!' })));
    expect(bad.get('error')).toBe('invalid_request');
    expect(bad.get('error_description')).toMatch(/43 to 128 characters/);
  });

  it('a confidential client may skip PKCE unless require_pkce is set', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const ok = await getRedirect(authorizeUrl(server, { response_type: 'code', client_id: 'photo-web', redirect_uri: REDIRECT_URI, state: 's', scope: 'photo' }));
    expect(ok.location!.searchParams.get('code')).toBeTruthy();
    const strict = await startMock({ clients: [{ client_id: 'web', client_secret: 'x', redirect_uris: ['http://127.0.0.1/callback'], require_pkce: true }] }, { autoLogin: 'alice' });
    const q = await errorRedirect(authorizeUrl(strict, { response_type: 'code', client_id: 'web', redirect_uri: REDIRECT_URI, state: 's', scope: 'photo' }));
    expect(q.get('error')).toBe('invalid_request');
    expect(calculateCodeChallenge(pkce.codeVerifier)).toBe(pkce.codeChallenge);
  });
});

describe('GET /authorize: prompt=none', () => {
  it('without a session is login_required', async () => {
    const server = await startMock();
    const q = await errorRedirect(authorizeUrl(server, pkceRequest(pkce, { prompt: 'none' })));
    expect(q.get('error')).toBe('login_required');
    expect(q.get('state')).toBe('state-123');
  });
});
