import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { adminRequest, basic, getCode, pkceRequest, pkceTokens, postForm, REDIRECT_URI, startMock } from '../helpers.js';

type Mock = Awaited<ReturnType<typeof startMock>>;

async function jwks(server: Mock): Promise<JSONWebKeySet> {
  return (await (await fetch(`${server.authUrl}/jwks`)).json()) as JSONWebKeySet;
}

/** What a resource server does: verify against the mock's JWKS, issuer, audience and typ. */
async function verify(server: Mock, token: string): Promise<unknown> {
  return jwtVerify(token, createLocalJWKSet(await jwks(server)), { issuer: server.issuer, audience: server.baseUrl, typ: 'at+jwt', algorithms: [server.config.signingAlg] });
}

async function apiStatus(server: Mock, token: string): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

async function introspect(server: Mock, token: string): Promise<Record<string, unknown>> {
  return (await postForm(`${server.authUrl}/introspect`, { token }, { authorization: basic('photo-web', 'photo-web-secret') })).body;
}

describe('POST /_mock/next {"token"}: the next access token broken on purpose', () => {
  it.each([
    ['expired', errors.JWTExpired, { sub: 'alice' }],
    ['bad-signature', errors.JWSSignatureVerificationFailed, { sub: 'alice' }],
    ['wrong-issuer', errors.JWTClaimValidationFailed, { iss: 'https://wrong-issuer.invalid' }],
    ['wrong-audience', errors.JWTClaimValidationFailed, { aud: 'https://wrong-audience.invalid' }],
  ] as const)('%s: jose refuses it against the JWKS, and so do the API and introspection', async (kind, error, claims) => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    expect((await adminRequest(server, 'next', { token: kind })).status).toBe(200);
    const broken = String((await pkceTokens(server)).access_token);
    const decoded = decodeJwt(broken);
    expect(decoded).toMatchObject(claims);
    if (kind === 'expired') expect(decoded.exp! - decoded.iat!).toBe(3600);
    await expect(verify(server, broken)).rejects.toBeInstanceOf(error);
    expect(await apiStatus(server, broken)).toMatchObject({ status: 401, challenge: expect.stringContaining('error="invalid_token"') });
    expect(await introspect(server, broken)).toEqual({ active: false });
    // Only the next one: the token after it is sound.
    const sound = String((await pkceTokens(server)).access_token);
    await expect(verify(server, sound)).resolves.toBeTruthy();
    expect((await apiStatus(server, sound)).status).toBe(200);
  });

  it('alg-none: an unsecured JWT (RFC 7519 section 6.1) that jose, the API and introspection refuse', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await adminRequest(server, 'next', { token: 'alg-none' });
    const broken = String((await pkceTokens(server)).access_token);
    expect(decodeProtectedHeader(broken)).toEqual({ alg: 'none', typ: 'at+jwt' });
    expect(broken.endsWith('.')).toBe(true);
    expect(decodeJwt(broken)).toMatchObject({ sub: 'alice', iss: server.issuer });
    await expect(verify(server, broken)).rejects.toBeInstanceOf(errors.JOSEAlgNotAllowed);
    await expect(jwtVerify(broken, createLocalJWKSet(await jwks(server)))).rejects.toThrow();
    expect((await apiStatus(server, broken)).status).toBe(401);
    expect(await introspect(server, broken)).toEqual({ active: false });
  });

  it('with opaque access tokens: expired, wrong-issuer and wrong-audience are refused by the API and introspection', async () => {
    const server = await startMock({ access_token_format: 'opaque' }, { autoLogin: 'alice' });
    for (const kind of ['expired', 'wrong-issuer', 'wrong-audience']) {
      await adminRequest(server, 'next', { token: kind });
      const broken = String((await pkceTokens(server)).access_token);
      expect((await apiStatus(server, broken)).status).toBe(401);
      expect(await introspect(server, broken)).toEqual({ active: false });
    }
  });
});

describe('POST /_mock/clock: expiry follows the mock clock', () => {
  it('advancing past exp expires the token at the API and at introspection; going back revives it', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const token = String((await pkceTokens(server)).access_token);
    expect((await apiStatus(server, token)).status).toBe(200);
    expect(await introspect(server, token)).toMatchObject({ active: true });
    await adminRequest(server, 'clock', { advance: 3601 });
    const expired = await apiStatus(server, token);
    expect(expired.status).toBe(401);
    expect(expired.challenge).toMatch(/has expired/);
    expect(await introspect(server, token)).toEqual({ active: false });
    await adminRequest(server, 'clock', { advance: -3601 });
    expect((await apiStatus(server, token)).status).toBe(200);
  });

  it('an authorization code expires by the clock too', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const code = await getCode(server, pkceRequest(pkce));
    await adminRequest(server, 'clock', { advance: 61 });
    const res = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    expect(res.body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('POST /_mock/keys/rotate', () => {
  it('a new key signs; the old one stays in the JWKS and verifies while its tokens live, then leaves', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const old = String((await pkceTokens(server)).access_token);
    const oldKid = decodeProtectedHeader(old).kid;
    const rotated = await adminRequest(server, 'keys/rotate', {});
    expect(rotated.status).toBe(200);
    const newKid = rotated.body.kid;
    expect(newKid).not.toBe(oldKid);
    expect((await jwks(server)).keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    const fresh = String((await pkceTokens(server)).access_token);
    expect(decodeProtectedHeader(fresh).kid).toBe(newKid);
    // Both verify against the published JWKS, and the API takes both.
    await expect(verify(server, old)).resolves.toBeTruthy();
    await expect(verify(server, fresh)).resolves.toBeTruthy();
    expect((await apiStatus(server, old)).status).toBe(200);
    // Once the old key's last token has expired, the old key is gone from the JWKS.
    await adminRequest(server, 'clock', { advance: 3601 });
    expect((await jwks(server)).keys.map((k) => k.kid)).toEqual([newKid]);
  });

  it('the old key stays until the longest-lived token it signed expires', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await adminRequest(server, 'tokens', { sub: 'alice', scope: 'photo', expires_in: 60 });
    const long = await adminRequest(server, 'tokens', { sub: 'alice', scope: 'photo', expires_in: 7200 });
    const oldKid = decodeProtectedHeader(String(long.body.access_token)).kid;
    await adminRequest(server, 'keys/rotate', {});
    await adminRequest(server, 'clock', { advance: 3700 });
    expect((await jwks(server)).keys.map((k) => k.kid)).toContain(oldKid);
    await adminRequest(server, 'clock', { advance: 3600 });
    expect((await jwks(server)).keys.map((k) => k.kid)).not.toContain(oldKid);
  });
});
