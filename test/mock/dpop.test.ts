import { request } from 'node:http';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import type { MockServer, MockServerOptions, MockConfigInput } from '../../src/mock/index.js';
import { basic, getCode, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';
import { dpopProof, modernClient, newKey, type TestKey } from './modern-helpers.js';

const start = (config?: MockConfigInput, options: MockServerOptions = {}) => startMock(config, { autoLogin: 'alice', ...options });

/** A code for photo-cli, and the token request's form. */
async function codeForm(server: MockServer, extra: Record<string, string> = {}, scope = 'photo offline_access') {
  const pkce = createPkcePair();
  const code = await getCode(server, pkceRequest(pkce, { scope, ...extra }));
  return { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier };
}

async function dpopTokens(server: MockServer, key: TestKey) {
  const form = await codeForm(server);
  const r = await postForm(`${server.authUrl}/token`, form, { DPoP: await dpopProof(key, { htu: `${server.authUrl}/token` }) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { access_token: string; refresh_token: string; token_type: string };
}

const api = (server: MockServer, headers: Record<string, string>) => fetch(`${server.baseUrl}/photos`, { headers });

describe('DPoP at the token endpoint (RFC 9449 section 5)', () => {
  it('binds the access token to the proof key: cnf.jkt and token_type DPoP', async () => {
    const server = await start();
    const key = await newKey();
    const tokens = await dpopTokens(server, key);
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
  });

  it.each(['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'])('accepts a proof signed with %s', async (alg) => {
    const server = await start();
    const key = await newKey(alg);
    const r = await postForm(`${server.authUrl}/token`, await codeForm(server), { DPoP: await dpopProof(key, { htu: `${server.authUrl}/token`, alg }) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(decodeJwt(String(r.body.access_token)).cnf).toEqual({ jkt: key.jkt });
  });

  it.each<[string, (key: TestKey, htu: string) => Promise<string>, RegExp]>([
    ['a replayed jti', async (key, htu) => dpopProof(key, { htu, jti: 'used-once' }), /already used/],
    ['a wrong htm', async (key, htu) => dpopProof(key, { htu, htm: 'GET' }), /htm/],
    ['a wrong htu', async (key, htu) => dpopProof(key, { htu: htu.replace('/token', '/other') }), /htu/],
    ['an iat far in the past', async (key, htu) => dpopProof(key, { htu, iat: Math.floor(Date.now() / 1000) - 300 }), /iat/],
    ['an iat far in the future', async (key, htu) => dpopProof(key, { htu, iat: Math.floor(Date.now() / 1000) + 300 }), /iat/],
    ['a private key in the jwk header', async (key, htu) => dpopProof(key, { htu, jwk: key.privateJwk }), /private/],
    ['typ JWT', async (key, htu) => dpopProof(key, { htu, typ: 'JWT' }), /typ/],
    ['no jti', async (key, htu) => dpopProof(key, { htu, omit: ['jti'] }), /jti/],
    ['a jwk that is not the signing key', async (key, htu) => dpopProof(key, { htu, jwk: (await newKey()).publicJwk }), /not valid/],
    ['alg none', async (key, htu) => unsigned({ typ: 'dpop+jwt', alg: 'none', jwk: key.publicJwk }, { jti: 'x', htm: 'POST', htu, iat: Math.floor(Date.now() / 1000) }), /alg/],
    ['not a JWT', async () => 'not-a-jwt', /not a JWT/],
  ])('refuses a proof with %s: 400 invalid_dpop_proof', async (_name, make, description) => {
    const server = await start();
    const key = await newKey();
    const htu = `${server.authUrl}/token`;
    if (description.source === 'already used') {
      await postForm(htu, await codeForm(server), { DPoP: await make(key, htu) });
    }
    const r = await postForm(htu, await codeForm(server), { DPoP: await make(key, htu) });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_dpop_proof');
    expect(String(r.body.error_description)).toMatch(description);
  });

  it('refuses two DPoP headers', async () => {
    const server = await start();
    const key = await newKey();
    const htu = `${server.authUrl}/token`;
    const headers = new Headers();
    headers.append('DPoP', await dpopProof(key, { htu }));
    headers.append('DPoP', await dpopProof(key, { htu }));
    const body = new URLSearchParams(await codeForm(server));
    // fetch joins the two into one header line, which is then not one JWT.
    const r = await fetch(htu, { method: 'POST', body, headers });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('invalid_dpop_proof');
    // Two header lines, each a valid proof on its own (node:http sends an array value as one line each).
    const form = new URLSearchParams(await codeForm(server)).toString();
    const proofs = [await dpopProof(key, { htu }), await dpopProof(key, { htu })];
    const twoLines = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(htu, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: proofs } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(form);
    });
    expect(twoLines.status).toBe(400);
    expect(JSON.parse(twoLines.body)).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(/more than one DPoP header/) });
  });

  it('takes htu without query and fragment, normalised (the case of the scheme)', async () => {
    const server = await start();
    const key = await newKey();
    const htu = `${server.authUrl.replace('http://', 'HTTP://')}/token?x=1#f`;
    const r = await postForm(`${server.authUrl}/token`, await codeForm(server), { DPoP: await dpopProof(key, { htu }) });
    expect(r.status).toBe(200);
  });

  it('dpop_jkt on the authorization request: only a proof by that key redeems the code (section 10)', async () => {
    const server = await start();
    const key = await newKey();
    const other = await newKey();
    const htu = `${server.authUrl}/token`;
    const wrong = await postForm(htu, await codeForm(server, { dpop_jkt: key.jkt }), { DPoP: await dpopProof(other, { htu }) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const none = await postForm(htu, await codeForm(server, { dpop_jkt: key.jkt }));
    expect(none.body.error).toBe('invalid_grant');
    const right = await postForm(htu, await codeForm(server, { dpop_jkt: key.jkt }), { DPoP: await dpopProof(key, { htu }) });
    expect(right.status).toBe(200);
  });

  it("a public client's refresh token is bound: a refresh needs a proof by the same key", async () => {
    const server = await start();
    const key = await newKey();
    const tokens = await dpopTokens(server, key);
    const htu = `${server.authUrl}/token`;
    const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'photo-cli' };
    const without = await postForm(htu, form);
    expect(without.body.error).toBe('invalid_grant');
    const otherKey = await postForm(htu, form, { DPoP: await dpopProof(await newKey(), { htu }) });
    expect(otherKey.body.error).toBe('invalid_grant');
    const same = await postForm(htu, form, { DPoP: await dpopProof(key, { htu }) });
    expect(same.status).toBe(200);
    expect(same.body.token_type).toBe('DPoP');
  });

  it('a client registered with dpop_bound_access_tokens must send a proof', async () => {
    const server = await start({ clients: [modernClient('photo-cli', { dpop_bound_access_tokens: true })] });
    const r = await postForm(`${server.authUrl}/token`, await codeForm(server));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_dpop_proof');
  });

  it('the server nonce (dpop_nonce): use_dpop_nonce with a DPoP-Nonce header, then the proof with it passes (section 8)', async () => {
    const server = await start({ dpop_nonce: true });
    const key = await newKey();
    const htu = `${server.authUrl}/token`;
    const form = await codeForm(server);
    const first = await postForm(htu, form, { DPoP: await dpopProof(key, { htu }) });
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const forged = await postForm(htu, form, { DPoP: await dpopProof(key, { htu, nonce: 'made-up' }) });
    expect(forged.body.error).toBe('use_dpop_nonce');
    const second = await postForm(htu, form, { DPoP: await dpopProof(key, { htu, nonce: nonce! }) });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
  });

  it('the iat window follows the mock clock (state.now)', async () => {
    let now = Date.now() + 3600_000;
    const server = await start(undefined, { now: () => now });
    const key = await newKey();
    const htu = `${server.authUrl}/token`;
    const real = await postForm(htu, await codeForm(server), { DPoP: await dpopProof(key, { htu }) });
    expect(real.body.error).toBe('invalid_dpop_proof');
    now = Date.now();
    const shifted = await postForm(htu, await codeForm(server), { DPoP: await dpopProof(key, { htu }) });
    expect(shifted.status).toBe(200);
  });
});

describe('DPoP at the protected API and userinfo (RFC 9449 section 7)', () => {
  it('accepts Authorization: DPoP with a proof for this request', async () => {
    const server = await start();
    const key = await newKey();
    const { access_token } = await dpopTokens(server, key);
    const r = await api(server, { Authorization: `DPoP ${access_token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${server.baseUrl}/photos`, accessToken: access_token }) });
    expect(r.status).toBe(200);
  });

  it.each<[string, (key: TestKey, token: string, server: MockServer) => Promise<Record<string, string>>, string]>([
    [
      'a bound token as Bearer',
      async (key, token, s) => ({ Authorization: `Bearer ${token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${s.baseUrl}/photos`, accessToken: token }) }),
      'invalid_token',
    ],
    ['no proof', async (_key, token) => ({ Authorization: `DPoP ${token}` }), 'invalid_dpop_proof'],
    [
      'a wrong ath',
      async (key, token, s) => ({ Authorization: `DPoP ${token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${s.baseUrl}/photos`, accessToken: `${token}x` }) }),
      'invalid_dpop_proof',
    ],
    ['no ath', async (key, token, s) => ({ Authorization: `DPoP ${token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${s.baseUrl}/photos` }) }), 'invalid_dpop_proof'],
    [
      'a proof by another key',
      async (_key, token, s) => ({ Authorization: `DPoP ${token}`, DPoP: await dpopProof(await newKey(), { htm: 'GET', htu: `${s.baseUrl}/photos`, accessToken: token }) }),
      'invalid_dpop_proof',
    ],
    [
      'the htu of another resource',
      async (key, token, s) => ({ Authorization: `DPoP ${token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${s.baseUrl}/me`, accessToken: token }) }),
      'invalid_dpop_proof',
    ],
    ['htm POST', async (key, token, s) => ({ Authorization: `DPoP ${token}`, DPoP: await dpopProof(key, { htm: 'POST', htu: `${s.baseUrl}/photos`, accessToken: token }) }), 'invalid_dpop_proof'],
  ])('refuses %s with a DPoP challenge', async (_name, headers, error) => {
    const server = await start();
    const key = await newKey();
    const { access_token } = await dpopTokens(server, key);
    const r = await api(server, await headers(key, access_token, server));
    expect(r.status).toBe(401);
    const challenge = r.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(new RegExp(`^DPoP .*error="${error}"`));
    expect(challenge).toMatch(/algs="[^"]*ES256/);
  });

  it('refuses a replayed proof at the API', async () => {
    const server = await start();
    const key = await newKey();
    const { access_token } = await dpopTokens(server, key);
    const headers = { Authorization: `DPoP ${access_token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${server.baseUrl}/photos`, accessToken: access_token }) };
    expect((await api(server, headers)).status).toBe(200);
    const again = await api(server, headers);
    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toMatch(/invalid_dpop_proof/);
  });

  it('when the jti store is full of live proofs, refuses a new proof with 503 rather than forgetting one', async () => {
    const server = await start(undefined, { limits: { dpopProofs: 2 } });
    const key = await newKey();
    const { access_token } = await dpopTokens(server, key);
    const proof = () => dpopProof(key, { htm: 'GET', htu: `${server.baseUrl}/photos`, accessToken: access_token });
    const first = await proof();
    expect((await api(server, { Authorization: `DPoP ${access_token}`, DPoP: first })).status).toBe(200);
    const full = await api(server, { Authorization: `DPoP ${access_token}`, DPoP: await proof() });
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');
    // The proofs seen are still remembered: a replay stays a replay.
    expect((await api(server, { Authorization: `DPoP ${access_token}`, DPoP: first })).status).toBe(401);
  });

  it('refuses a Bearer token presented as DPoP', async () => {
    const server = await start();
    const form = await codeForm(server);
    const { body } = await postForm(`${server.authUrl}/token`, form);
    const token = String(body.access_token);
    const key = await newKey();
    const r = await api(server, { Authorization: `DPoP ${token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${server.baseUrl}/photos`, accessToken: token }) });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^DPoP .*invalid_token/);
  });

  it('userinfo demands the proof too', async () => {
    const server = await start();
    const key = await newKey();
    const form = await codeForm(server, {}, 'openid photo');
    const { body } = await postForm(`${server.authUrl}/token`, form, { DPoP: await dpopProof(key, { htu: `${server.authUrl}/token` }) });
    const token = String(body.access_token);
    const bearer = await fetch(`${server.authUrl}/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(401);
    const ok = await fetch(`${server.authUrl}/userinfo`, {
      headers: { Authorization: `DPoP ${token}`, DPoP: await dpopProof(key, { htm: 'GET', htu: `${server.authUrl}/userinfo`, accessToken: token }) },
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { sub: string }).sub).toBe('alice');
  });
});

function unsigned(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part(header)}.${part(claims)}.`;
}

describe('introspection of a DPoP-bound token (RFC 9449 section 6.2)', () => {
  it('answers token_type DPoP and cnf.jkt', async () => {
    const server = await start();
    const key = await newKey();
    const { access_token } = await dpopTokens(server, key);
    const r = await postForm(`${server.authUrl}/introspect`, { token: access_token }, { Authorization: basic('photo-web', 'photo-web-secret') });
    expect(r.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });
});
