import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { MockAdminError } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { getCode, pkceRequest, pkceTokens, postForm, REDIRECT_URI, startMock } from '../helpers.js';

type Mock = Awaited<ReturnType<typeof startMock>>;

async function apiStatus(server: Mock, token: string): Promise<number> {
  return (await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } })).status;
}

function adminError(fn: () => unknown): MockAdminError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MockAdminError) return err;
    throw err;
  }
  throw new Error('no MockAdminError');
}

describe('library mode: the admin API as methods of the object createMockServer returns', () => {
  it('issueToken: a token response the API takes; bad input rejects with MockAdminError naming the field', async () => {
    const mock = await startMock();
    const tokens = await mock.issueToken({ sub: 'alice', scope: 'photo', claims: { team: 'red' } });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'photo' });
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({ sub: 'alice', team: 'red' });
    expect(await apiStatus(mock, String(tokens.access_token))).toBe(200);
    await expect(mock.issueToken({ sub: 'alice', expires_in: -1 })).rejects.toMatchObject({ name: 'MockAdminError', field: 'expires_in' });
  });

  it('enqueue: claims, a fault with times, a broken token; a bad item throws naming the field', async () => {
    const mock = await startMock(undefined, { autoLogin: 'alice' });
    mock.enqueue({ claims: { plan: 'gold' } });
    mock.enqueue({ token: 'expired' });
    const first = String((await pkceTokens(mock)).access_token);
    expect(decodeJwt(first).plan).toBe('gold');
    expect(await apiStatus(mock, first)).toBe(401);
    mock.enqueue({ endpoint: 'token', status: 500, times: 2 });
    await expect(pkceTokens(mock)).rejects.toThrow(/token 500/);
    await expect(pkceTokens(mock)).rejects.toThrow(/token 500/);
    expect(await apiStatus(mock, String((await pkceTokens(mock)).access_token))).toBe(200);
    expect(adminError(() => mock.enqueue({ endpoint: 'tokn', status: 500 })).field).toBe('endpoint');
    expect(adminError(() => mock.enqueue({ token: 'forged' as 'expired' })).message).toMatch(/^token: must be one of expired, bad-signature/);
  });

  it('requests and clearRequests: the log as objects, then empty', async () => {
    const mock = await startMock();
    await fetch(`${mock.authUrl}/jwks?probe=1`);
    const [entry] = mock.requests();
    expect(entry).toMatchObject({ method: 'GET', path: '/jwks', endpoint: 'jwks', query: { probe: '1' }, status: 200, outcome: 'ok' });
    expect(entry!.headers.host).toBe(`127.0.0.1:${mock.port}`);
    mock.clearRequests();
    expect(mock.requests()).toEqual([]);
  });

  it('clock.advance and clock.set: expiry and issuing follow them; nonsense throws', async () => {
    const mock = await startMock(undefined, { autoLogin: 'alice' });
    const token = String((await pkceTokens(mock)).access_token);
    mock.clock.advance(3600);
    expect(await apiStatus(mock, token)).toBe(401);
    mock.clock.set(1_900_000_000);
    expect(Math.floor(mock.clock.now())).toBe(1_900_000_000);
    expect(decodeJwt(String((await mock.issueToken({ sub: 'alice' })).access_token)).iat).toBe(1_900_000_000);
    expect(adminError(() => mock.clock.advance(Number.NaN)).field).toBe('advance');
    expect(adminError(() => mock.clock.set(-1)).field).toBe('set');
  });

  it('rotateKeys: resolves to the new kid; the JWKS publishes both while the old tokens live', async () => {
    const mock = await startMock();
    const before = String((await mock.issueToken({ sub: 'alice' })).access_token);
    const kid = await mock.rotateKeys();
    const after = String((await mock.issueToken({ sub: 'alice' })).access_token);
    expect(decodeProtectedHeader(after).kid).toBe(kid);
    const set = createLocalJWKSet((await (await fetch(`${mock.authUrl}/jwks`)).json()) as JSONWebKeySet);
    for (const token of [before, after]) await expect(jwtVerify(token, set, { issuer: mock.issuer, audience: mock.baseUrl })).resolves.toBeTruthy();
  });

  it('addUser and addClient: validated as the configuration file, usable at once', async () => {
    const mock = await startMock();
    expect(mock.addUser({ username: 'dinah', password: 'cat', claims: { sub: 'cat-1' } })).toMatchObject({ username: 'dinah', sub: 'cat-1' });
    expect(decodeJwt(String((await mock.issueToken({ sub: 'cat-1', scope: 'photo' })).access_token)).sub).toBe('cat-1');
    expect(mock.addClient({ client_id: 'kiosk', client_secret: 'k-secret', redirect_uris: ['http://127.0.0.1/k'] })).toMatchObject({
      clientId: 'kiosk',
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(adminError(() => mock.addUser({ username: 'dinah', password: 'again' })).field).toBe('username');
    expect(adminError(() => mock.addClient({ client_id: 'bad', redirect_uris: ['javascript:alert(1)'] })).message).toMatch(/^redirect_uris\[0\]: uses the javascript: scheme/);
  });

  it('reset: codes, tokens, queued items and the log are forgotten', async () => {
    const mock = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(mock, pkceRequest(pkce));
    mock.enqueue({ endpoint: 'token', status: 500 });
    mock.reset();
    expect(mock.requests()).toEqual([]);
    const res = await postForm(`${mock.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
