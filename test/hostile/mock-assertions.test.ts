// JWTs of another kind taken for client assertions (RFC 8725 sections 3.11
// and 3.12, RFC 9101 section 10.8), and the jwks_uri fetch: a slow body held token requests past the
// promised 5 s, and forty assertions on a cold cache caused forty fetches.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/mock/index.js';
import { postForm, startMock } from '../mock/helpers.js';
import { assertionClaims, JWT_BEARER, modernClient, newKey, signedJwt, type TestKey } from '../mock/modern-helpers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function mockWith(clientFields: Parameters<typeof modernClient>[1], options: Parameters<typeof startMock>[1] = {}): Promise<MockServer> {
  const server = await startMock({ clients: [modernClient('photo-jwt', { token_endpoint_auth_method: 'private_key_jwt', ...clientFields })] }, options);
  closers.push(() => server.close());
  return server;
}

/** A refresh with an unknown token: 400 invalid_grant once the client is authenticated, 401 when it is not. */
const tokenCall = (server: MockServer, assertion: string) =>
  postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: 'unknown', client_assertion_type: JWT_BEARER, client_assertion: assertion });

describe('a client assertion is explicitly a client assertion', () => {
  it.each(['oauth-authz-req+jwt', 'dpop+jwt', 'at+jwt', 'logout+jwt', 'application/at+jwt', 'secevent+jwt'])('a JWT of the client key typed %s does not authenticate', async (typ) => {
    const key = await newKey();
    const server = await mockWith({ jwks: { keys: [key.publicJwk as never] } });
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey, { alg: 'ES256', typ }));
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect(String(r.body.error_description)).toMatch(/typed .* a JWT of another kind/);
  });

  it.each(['JWT', 'jwt', 'client-authentication+jwt', 'application/client-authentication+jwt', undefined])('typ %s, or none, is a client assertion', async (typ) => {
    const key = await newKey();
    const server = await mockWith({ jwks: { keys: [key.publicJwk as never] } });
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey, { alg: 'ES256', ...(typ ? { typ } : {}) }));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('a request object whose sub is the client id does not authenticate at /token (RFC 9101 section 10.8)', async () => {
    const key = await newKey();
    const server = await mockWith({ jwks: { keys: [key.publicJwk as never] } });
    const requestObject = assertionClaims('photo-jwt', server.issuer, { response_type: 'code', client_id: 'photo-jwt', redirect_uri: 'http://127.0.0.1/cb', scope: 'photo', state: 's' });
    // Untyped, so that only its parameters give it away.
    const r = await tokenCall(server, await signedJwt(requestObject, key.privateKey, { alg: 'ES256' }));
    expect(r.status).toBe(401);
    expect(String(r.body.error_description)).toMatch(/carries request parameters \(response_type, redirect_uri, state\)/);
  });
});

/** A jwks_uri server on loopback: counts fetches, answers `keys` after `delayMs`, or trickles one byte a second. */
async function jwksServer(keys: () => TestKey[], behaviour: { delayMs?: number; trickle?: boolean } = {}): Promise<{ url: string; fetches: () => number }> {
  let fetches = 0;
  const pending: ServerResponse[] = [];
  const server: Server = createServer((_req, res) => {
    fetches++;
    const body = JSON.stringify({ keys: keys().map((k) => ({ ...k.publicJwk, kid: k.jkt })) });
    if (behaviour.trickle) {
      res.writeHead(200, { 'content-type': 'application/json' });
      pending.push(res);
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || sent >= body.length) return clearInterval(timer);
        res.write(body[sent++]);
      }, 1000);
      res.on('close', () => clearInterval(timer));
      return;
    }
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), behaviour.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        for (const res of pending) res.destroy();
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`, fetches: () => fetches };
}

describe('the jwks_uri fetch', () => {
  it('a body trickling at 1 byte/s is cut at the 5 s deadline (connect to last byte), not held for ~21 s', async () => {
    const key = await newKey();
    const jwks = await jwksServer(() => [key], { trickle: true });
    const server = await mockWith({ jwks_uri: jwks.url });
    const started = Date.now();
    const results = await Promise.all([0, 1].map(async () => tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey, { alg: 'ES256', kid: key.jkt }))));
    const elapsed = Date.now() - started;
    for (const r of results) {
      expect(r.status).toBe(401);
      expect(String(r.body.error_description)).toMatch(/did not answer within 5 s/);
    }
    expect(elapsed).toBeLessThan(9000);
  }, 20_000);

  it('a jwks_uri that redirects (even to the right keys) is refused, not followed, and the reason says so', async () => {
    const key = await newKey();
    const keys = await jwksServer(() => [key]);
    const moved = createServer((_req, res) => res.writeHead(302, { location: keys.url }).end());
    await new Promise<void>((resolve) => moved.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => moved.close(resolve)));
    const server = await mockWith({ jwks_uri: `http://127.0.0.1:${(moved.address() as AddressInfo).port}/jwks` });
    const r = await tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey, { alg: 'ES256', kid: key.jkt }));
    expect(r.status).toBe(401);
    expect(String(r.body.error_description)).toMatch(/jwks_uri answered HTTP 302: redirects are not followed/);
    expect(keys.fetches()).toBe(0);
  });

  it('forty assertions on a cold cache share one fetch; forty unknown kids after the refetch window share one more', async () => {
    const key = await newKey();
    const jwks = await jwksServer(() => [key], { delayMs: 200 });
    let now = Date.now();
    const server = await mockWith({ jwks_uri: jwks.url }, { now: () => now });
    const assertions = await Promise.all(Array.from({ length: 40 }, () => signedJwt(assertionClaims('photo-jwt', server.issuer), key.privateKey, { alg: 'ES256', kid: key.jkt })));
    const first = await Promise.all(assertions.map((a) => tokenCall(server, a)));
    expect(first.every((r) => r.status === 400)).toBe(true);
    expect(jwks.fetches()).toBe(1);
    // Keys the set does not hold, signed by anyone: each asks for a refetch, at most one under way.
    now += 11_000;
    const strangers = await Promise.all(Array.from({ length: 40 }, async () => newKey()));
    const unknown = await Promise.all(strangers.map(async (k) => tokenCall(server, await signedJwt(assertionClaims('photo-jwt', server.issuer), k.privateKey, { alg: 'ES256', kid: k.jkt }))));
    expect(unknown.every((r) => r.status === 401)).toBe(true);
    expect(jwks.fetches()).toBe(2);
  });
});
