import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { importPKCS8 } from 'jose';
import { loadMockConfig, type MockServer } from '../../src/mock/index.js';
import { postForm, startMock } from './helpers.js';
import { assertionClaims, JWT_BEARER, modernClient, newKey, signedJwt, type TestKey } from './modern-helpers.js';

const SECRET = 'photo-hmac-secret-that-is-long-enough-for-hs512-0123456789abcdef';
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

async function setup(extraKey?: TestKey) {
  const key = extraKey ?? (await newKey());
  const server = await startMock({
    clients: [
      modernClient('photo-jwt', { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk as never] } }),
      modernClient('photo-hmac', { token_endpoint_auth_method: 'client_secret_jwt', client_secret: SECRET }),
      modernClient('photo-web', { client_secret: 'photo-web-secret' }),
    ],
  });
  return { key, server };
}

/** client_credentials is not a grant here: a refresh with an unknown token shows the client passed authentication (400 invalid_grant) or not (401). */
const tokenCall = (server: MockServer, assertion: string, extra: Record<string, string> = {}) =>
  postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: 'unknown', client_assertion_type: JWT_BEARER, client_assertion: assertion, ...extra });

describe('private_key_jwt (RFC 7523 section 2.2)', () => {
  it.each([
    ['the issuer identifier', (s: MockServer) => s.issuer],
    ['the token endpoint', (s: MockServer) => `${s.authUrl}/token`],
    ['an array holding the issuer', (s: MockServer) => ['https://other.example', s.issuer]],
  ])('accepts a signed assertion with aud %s', async (_name, aud) => {
    const { key, server } = await setup();
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-jwt', aud(server) as string), key.privateKey));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it.each<[string, (k: TestKey, s: MockServer) => Promise<string>, RegExp]>([
    ['alg none', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer), k.privateKey, { alg: 'none' }), /alg/],
    ['HS256 with the public key as secret', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer), new TextEncoder().encode(JSON.stringify(k.publicJwk)), { alg: 'HS256' }), /alg/],
    ['a wrong aud', async (k) => signedJwt(assertionClaims('photo-jwt', 'https://elsewhere.example/token'), k.privateKey), /aud/],
    ['an expired exp', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer, { exp: Math.floor(Date.now() / 1000) - 120 }), k.privateKey), /exp/],
    ['no exp', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer, { exp: undefined }), k.privateKey), /exp/],
    ['an exp a day ahead', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer, { exp: Math.floor(Date.now() / 1000) + 86_400 }), k.privateKey), /too late/],
    ['no jti', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer, { jti: undefined }), k.privateKey), /jti/],
    ['iss differing from sub', async (k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer, { iss: 'photo-web' }), k.privateKey), /iss = sub/],
    ['another key', async (_k, s) => signedJwt(assertionClaims('photo-jwt', s.issuer), (await newKey()).privateKey), /not valid/],
    ['not a JWT', async () => 'garbage', /not a JWT/],
    ['an unknown client', async (k, s) => signedJwt(assertionClaims('nobody', s.issuer), k.privateKey), /not a registered client/],
    ['a client registered for client_secret_basic', async (k, s) => signedJwt(assertionClaims('photo-web', s.issuer), k.privateKey), /registered for client_secret_basic/],
  ])('refuses %s: 401 invalid_client', async (_name, make, description) => {
    const { key, server } = await setup();
    const r = await tokenCall(server, await make(key, server));
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect(String(r.body.error_description)).toMatch(description);
  });

  it('refuses a replayed assertion (jti seen before)', async () => {
    const { key, server } = await setup();
    const assertion = await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey);
    expect((await tokenCall(server, assertion)).status).toBe(400);
    const again = await tokenCall(server, assertion);
    expect(again.status).toBe(401);
    expect(String(again.body.error_description)).toMatch(/already used/);
  });

  it('when the jti store is full of live assertions, refuses a new one with 503 rather than forgetting one', async () => {
    const key = await newKey();
    const server = await startMock(
      { clients: [modernClient('photo-jwt', { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk as never] } })] },
      { limits: { clientAssertions: 1 } },
    );
    const first = await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey);
    expect((await tokenCall(server, first)).body.error).toBe('invalid_grant');
    const full = await tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey));
    expect(full.status).toBe(503);
    expect(full.body.error).toBe('temporarily_unavailable');
    expect(String((await tokenCall(server, first)).body.error_description)).toMatch(/already used/);
  });

  it('refuses a wrong client_assertion_type, a client_id other than sub, and a second method', async () => {
    const { key, server } = await setup();
    const make = () => signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey);
    expect((await tokenCall(server, await make(), { client_assertion_type: 'urn:example:other' })).status).toBe(401);
    expect((await tokenCall(server, await make(), { client_id: 'photo-web' })).status).toBe(401);
    const both = await tokenCall(server, await make(), { client_secret: 'photo-web-secret' });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
  });

  it('accepts aud = the endpoint the assertion was sent to (introspection)', async () => {
    const { key, server } = await setup();
    const r = await postForm(`${server.authUrl}/introspect`, {
      token: 'unknown',
      client_assertion_type: JWT_BEARER,
      client_assertion: await signedJwt(assertionClaims('photo-jwt', `${server.authUrl}/introspect`), key.privateKey),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ active: false });
  });

  it('fetches jwks_uri from loopback once, and again (after 10 s) when a key is not found: rotation', async () => {
    const withKid = async () => {
      const k = await newKey();
      return { ...k, publicJwk: { ...k.publicJwk, kid: k.jkt } };
    };
    let key = await withKid();
    let fetches = 0;
    const jwks = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
    });
    servers.push(jwks);
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
    let now = Date.now();
    const server = await startMock(
      { clients: [modernClient('photo-remote', { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks` })] },
      { now: () => now },
    );
    const call = async () => tokenCall(server, await signedJwt(assertionClaims('photo-remote', server.issuer), key.privateKey, { alg: 'ES256', kid: key.jkt }));
    expect((await call()).body.error).toBe('invalid_grant');
    expect((await call()).body.error).toBe('invalid_grant');
    expect(fetches).toBe(1);
    key = await withKid();
    expect((await call()).status).toBe(401);
    expect(fetches).toBe(1);
    now += 11_000;
    expect((await call()).body.error).toBe('invalid_grant');
    expect(fetches).toBe(2);
  });

  it('refuses a jwks_uri answer larger than 64 KiB', async () => {
    const big = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [], pad: 'x'.repeat(100_000) }));
    });
    servers.push(big);
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', r));
    const key = await newKey();
    const server = await startMock({
      clients: [modernClient('photo-remote', { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `http://127.0.0.1:${(big.address() as AddressInfo).port}/jwks` })],
    });
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-remote', server.issuer), key.privateKey));
    expect(r.status).toBe(401);
    expect(String(r.body.error_description)).toMatch(/larger than 65536 bytes/);
  });
});

describe('client_secret_jwt (RFC 7523, OpenID Connect Core section 9)', () => {
  it.each(['HS256', 'HS384', 'HS512'])('accepts %s with the client secret', async (alg) => {
    const { server } = await setup();
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-hmac', server.issuer), new TextEncoder().encode(SECRET), { alg }));
    expect(r.body.error).toBe('invalid_grant');
  });

  it('refuses an asymmetric alg, a wrong secret and alg none', async () => {
    const { key, server } = await setup();
    for (const assertion of [
      await signedJwt(assertionClaims('photo-hmac', server.issuer), key.privateKey),
      await signedJwt(assertionClaims('photo-hmac', server.issuer), new TextEncoder().encode(`${SECRET}-wrong`), { alg: 'HS256' }),
      await signedJwt(assertionClaims('photo-hmac', server.issuer), key.privateKey, { alg: 'none' }),
    ]) {
      const r = await tokenCall(server, assertion);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_client');
    }
  });
});

describe('fixtures/mock/modern.jsonc', () => {
  it('photo-jwt authenticates with fixtures/mock/photo-jwt.key.pem', async () => {
    const server = await startMock(await loadMockConfig('fixtures/mock/modern.jsonc'));
    const key = await importPKCS8(readFileSync('fixtures/mock/photo-jwt.key.pem', 'utf8'), 'ES256');
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), key));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });
});
