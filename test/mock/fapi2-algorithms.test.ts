// The mock in FAPI 2.0 mode signs with PS256 (or ES256), announces only the algorithms of the FAPI 2.0
// Security Profile section 5.4.1, and refuses client assertions, request objects and DPoP proofs signed
// with others; in its ordinary mode nothing changed.
import { randomUUID, type KeyObject } from 'node:crypto';
import { exportJWK, SignJWT, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, MockConfigError, type MockServer } from '../../src/mock/index.js';
import { keyPairSync } from '../helpers/keys.js';

const REDIRECT = 'http://127.0.0.1/callback';
const rsa = keyPairSync('rsa', { modulusLength: 2048 });
const dpopRsa = keyPairSync('rsa', { modulusLength: 2048 });

async function startMock(extra: Record<string, unknown>): Promise<MockServer> {
  const jwk = { ...(await exportJWK(rsa.publicKey)), kid: 'bank-rsa' };
  return createMockServer(
    {
      users: [{ username: 'alice', password: 'wonderland' }],
      clients: [{ client_id: 'bank-rsa', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] }, redirect_uris: [REDIRECT] }],
      ...extra,
    },
    // serve-mock's default: RS256 where the configuration names no algorithm.
    { defaultSigningAlg: 'RS256', consent: false, autoLogin: 'alice' },
  );
}

function sign(claims: Record<string, unknown>, alg: string, key: KeyObject = rsa.privateKey, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, kid: 'bank-rsa', ...header }).sign(key);
}

function assertion(mock: MockServer, alg: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return sign({ iss: 'bank-rsa', sub: 'bank-rsa', aud: mock.issuer, jti: randomUUID(), iat: now, exp: now + 60 }, alg);
}

async function post(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const clientAuth = async (mock: MockServer, alg = 'PS256') => ({
  client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
  client_assertion: await assertion(mock, alg),
});
// RFC 7636 appendix B's pair, and a state (the mock requires one).
const PKCE = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 'state-1' };
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

// Spawned CLIs and RSA keys on a loaded 2-core machine: a bound well above their usual few seconds.
describe('serve-mock --fapi2: FAPI 2.0 Security Profile section 5.4.1', { timeout: 60_000 }, () => {
  let fapi: MockServer;
  let plain: MockServer;
  beforeAll(async () => {
    [fapi, plain] = await Promise.all([startMock({ security_profile: 'fapi2' }), startMock({})]);
  });
  afterAll(async () => {
    await Promise.all([fapi.close(), plain.close()]);
  });

  it('announces only PS256, ES256 and EdDSA in every *_signing_alg_values_supported', async () => {
    const m = (await (await fetch(`${fapi.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const lists = Object.entries(m).filter(([k]) => k.endsWith('_signing_alg_values_supported'));
    expect(lists.map(([k]) => k).sort()).toEqual([
      'authorization_signing_alg_values_supported',
      'dpop_signing_alg_values_supported',
      'id_token_signing_alg_values_supported',
      'request_object_signing_alg_values_supported',
      'token_endpoint_auth_signing_alg_values_supported',
    ]);
    for (const [, algs] of lists) for (const alg of algs as string[]) expect(['PS256', 'ES256', 'EdDSA']).toContain(alg);
    expect(m.id_token_signing_alg_values_supported).toEqual(['PS256']);
    expect(m.authorization_signing_alg_values_supported).toEqual(['PS256']);
    const jwks = (await (await fetch(`${fapi.issuer}/jwks`)).json()) as { keys: { alg: string; kty: string }[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'PS256' })]);
  });

  it('outside FAPI mode the metadata and the signing algorithm are as before', async () => {
    const m = (await (await fetch(`${plain.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    expect(m.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(m.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'HS256']));
    expect(m.dpop_signing_alg_values_supported).toContain('RS256');
    // An RS256 client assertion is accepted there.
    const par = await post(`${plain.issuer}/par`, { client_id: 'bank-rsa', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', ...PKCE, ...(await clientAuth(plain, 'RS256')) });
    expect(par.status).toBe(201);
  });

  it('signs the ID token, the JWT access token and the JARM response PS256; accepts PS256 assertions and DPoP proofs', async () => {
    const par = await post(`${fapi.issuer}/par`, {
      client_id: 'bank-rsa',
      response_type: 'code',
      response_mode: 'jwt',
      redirect_uri: REDIRECT,
      scope: 'openid',
      nonce: 'n-1',
      ...PKCE,
      ...(await clientAuth(fapi)),
    });
    expect(par.status, JSON.stringify(par.body)).toBe(201);
    const front = await fetch(`${fapi.issuer}/authorize?client_id=bank-rsa&request_uri=${encodeURIComponent(par.body.request_uri!)}`, { redirect: 'manual' });
    const response = new URL(front.headers.get('location')!).searchParams.get('response')!;
    expect(decodeProtectedHeader(response).alg).toBe('PS256');
    const { jwtVerify, createRemoteJWKSet, decodeJwt } = await import('jose');
    const { payload } = await jwtVerify(response, createRemoteJWKSet(new URL(`${fapi.issuer}/jwks`)), { algorithms: ['PS256'] });
    const jwk = await exportJWK(dpopRsa.publicKey);
    const proof = await new SignJWT({ jti: randomUUID(), htm: 'POST', htu: `${fapi.issuer}/token`, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'PS256', typ: 'dpop+jwt', jwk })
      .sign(dpopRsa.privateKey);
    const token = await post(
      `${fapi.issuer}/token`,
      { grant_type: 'authorization_code', code: String(payload.code), redirect_uri: REDIRECT, code_verifier: VERIFIER, ...(await clientAuth(fapi)) },
      { dpop: proof },
    );
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.token_type).toBe('DPoP');
    expect(decodeProtectedHeader(token.body.id_token!).alg).toBe('PS256');
    expect(decodeProtectedHeader(token.body.access_token!).alg).toBe('PS256');
    expect(decodeJwt(token.body.id_token!).nonce).toBe('n-1');
  });

  it('refuses an RS256 (or HS256) client assertion: invalid_client naming section 5.4.1', async () => {
    for (const alg of ['RS256', 'PS384']) {
      const par = await post(`${fapi.issuer}/par`, { client_id: 'bank-rsa', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', ...PKCE, ...(await clientAuth(fapi, alg)) });
      expect(par.status).toBe(401);
      expect(par.body.error).toBe('invalid_client');
      expect(par.body.error_description).toMatch(new RegExp(`is signed ${alg}; FAPI 2\\.0 Security Profile section 5\\.4\\.1 allows only PS256, ES256, EdDSA`));
    }
    const now = Math.floor(Date.now() / 1000);
    const hs = await new SignJWT({ iss: 'bank-rsa', sub: 'bank-rsa', aud: fapi.issuer, jti: randomUUID(), exp: now + 60 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('x'.repeat(32)));
    const par = await post(`${fapi.issuer}/par`, {
      client_id: 'bank-rsa',
      response_type: 'code',
      redirect_uri: REDIRECT,
      ...PKCE,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: hs,
    });
    expect(par.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringMatching(/signed HS256; FAPI 2\.0 Security Profile section 5\.4\.1/) });
  });

  it('refuses an RS256 request object: invalid_request_object naming section 5.4.1', async () => {
    const now = Math.floor(Date.now() / 1000);
    const params = { client_id: 'bank-rsa', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', ...PKCE };
    const object = (alg: string) => sign({ ...params, iss: 'bank-rsa', aud: fapi.issuer, exp: now + 60, nbf: now, jti: randomUUID() }, alg, rsa.privateKey, { typ: 'oauth-authz-req+jwt' });
    const refused = await post(`${fapi.issuer}/par`, { client_id: 'bank-rsa', request: await object('RS256'), ...(await clientAuth(fapi)) });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_request_object', error_description: expect.stringMatching(/request object is signed RS256; FAPI 2\.0 Security Profile section 5\.4\.1/) });
    const accepted = await post(`${fapi.issuer}/par`, { client_id: 'bank-rsa', request: await object('PS256'), ...(await clientAuth(fapi)) });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  });

  it('refuses an RS256 DPoP proof: invalid_dpop_proof naming section 5.4.1', async () => {
    const jwk = await exportJWK(dpopRsa.publicKey);
    const proof = await new SignJWT({ jti: randomUUID(), htm: 'POST', htu: `${fapi.issuer}/token`, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'RS256', typ: 'dpop+jwt', jwk })
      .sign(dpopRsa.privateKey);
    const token = await post(
      `${fapi.issuer}/token`,
      { grant_type: 'authorization_code', code: 'unknown', redirect_uri: REDIRECT, code_verifier: VERIFIER, ...(await clientAuth(fapi)) },
      { dpop: proof },
    );
    expect(token.status).toBe(400);
    expect(token.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(/DPoP proof is signed RS256; FAPI 2\.0 Security Profile section 5\.4\.1/) });
  });

  it('a FAPI 2.0 configuration that names RS256 is refused at start', async () => {
    await expect(createMockServer({ security_profile: 'fapi2', signing_alg: 'RS256' })).rejects.toThrow(MockConfigError);
    await expect(createMockServer({ security_profile: 'fapi2', signing_alg: 'RS256' })).rejects.toThrow(/signing_alg.*PS256 or ES256.*5\.4\.1/);
  });
});
