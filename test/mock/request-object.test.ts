import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import type { MockServer } from '../../src/mock/index.js';
import { authorizeUrl, basic, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';
import { modernClient, newKey, signedJwt, type TestKey } from './modern-helpers.js';

const SECRET = 'photo-jar-secret-0123456789abcdef0123456789abcdef';

async function setup() {
  const key = await newKey();
  const server = await startMock(
    {
      clients: [modernClient('photo-jar', { jwks: { keys: [key.publicJwk as never] }, require_signed_request_object: true }), modernClient('photo-web', { client_secret: SECRET })],
    },
    { autoLogin: 'alice' },
  );
  return { key, server };
}

function objectClaims(server: MockServer, clientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const params = pkceRequest(createPkcePair(), { client_id: clientId, state: 'jar-state' });
  return { ...params, iss: clientId, aud: server.issuer, iat: now, exp: now + 300, ...overrides };
}

const authorize = (server: MockServer, clientId: string, request: string, extra: Record<string, string> = {}) => getRedirect(authorizeUrl(server, { client_id: clientId, request, ...extra }));

describe('signed request objects (RFC 9101)', () => {
  it("uses the request object's parameters, not the query's", async () => {
    const { key, server } = await setup();
    const jwt = await signedJwt(objectClaims(server, 'photo-jar'), key.privateKey, { alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    const { status, location } = await authorize(server, 'photo-jar', jwt, { state: 'query-state', scope: 'openid' });
    expect(status).toBe(302);
    expect(location?.searchParams.get('code')).toBeTruthy();
    expect(location?.searchParams.get('state')).toBe('jar-state');
  });

  it('accepts HS256 signed with the client secret', async () => {
    const { server } = await setup();
    const jwt = await signedJwt(objectClaims(server, 'photo-web'), new TextEncoder().encode(SECRET), { alg: 'HS256' });
    expect((await authorize(server, 'photo-web', jwt)).location?.searchParams.get('code')).toBeTruthy();
  });

  it.each<[string, (k: TestKey, s: MockServer) => Promise<string>, RegExp]>([
    ['alg none', (k, s) => signedJwt(objectClaims(s, 'photo-jar'), k.privateKey, { alg: 'none' }), /unsigned/],
    ['a wrong aud', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { aud: 'https://other.example' }), k.privateKey), /aud/],
    ['an expired exp', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { exp: Math.floor(Date.now() / 1000) - 60 }), k.privateKey), /exp/],
    ['no exp', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { exp: undefined }), k.privateKey), /exp/],
    ['another iss', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { iss: 'photo-web' }), k.privateKey), /iss/],
    ['another key', async (_k, s) => signedJwt(objectClaims(s, 'photo-jar'), (await newKey()).privateKey), /not valid/],
    ['a client_id claim of another client', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { client_id: 'photo-web' }), k.privateKey), /client_id/],
    ['a nested request_uri', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { request_uri: 'https://x.example/r' }), k.privateKey), /request_uri/],
    ['a state claim that is a list (one parameter, two values)', (k, s) => signedJwt(objectClaims(s, 'photo-jar', { state: ['a', 'b'] }), k.privateKey), /state must be a single value, not a list/],
    [
      'a redirect_uri claim that is an object',
      (k, s) => signedJwt(objectClaims(s, 'photo-jar', { redirect_uri: { uri: REDIRECT_URI } }), k.privateKey),
      /redirect_uri must be a single value, not an object/,
    ],
    ['HS256 for a client without a secret', (_k, s) => signedJwt(objectClaims(s, 'photo-jar'), new TextEncoder().encode('guess'), { alg: 'HS256' }), /alg/],
  ])('refuses %s with invalid_request_object', async (_name, make, description) => {
    const { key, server } = await setup();
    const { status, location, response } = await authorize(server, 'photo-jar', await make(key, server), { redirect_uri: REDIRECT_URI, state: 's' });
    expect(status).toBe(302);
    expect(location?.searchParams.get('error'), await response.text()).toBe('invalid_request_object');
    expect(location?.searchParams.get('error_description')).toMatch(description);
  });

  it('an invalid request object without a registered redirect_uri in the query: the error page, no redirect', async () => {
    const { key, server } = await setup();
    const { status, location } = await authorize(server, 'photo-jar', await signedJwt(objectClaims(server, 'photo-jar', { aud: 'x' }), key.privateKey));
    expect(status).toBe(400);
    expect(location).toBeUndefined();
  });

  it('require_signed_request_object: plain parameters are refused', async () => {
    const { server } = await setup();
    const { location } = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair(), { client_id: 'photo-jar' })));
    expect(location?.searchParams.get('error')).toBe('invalid_request');
    expect(location?.searchParams.get('error_description')).toMatch(/signed request object/);
  });

  it('a request object pushed by PAR, with resource indicators in it', async () => {
    const { key, server } = await setup();
    const jwt = await signedJwt(objectClaims(server, 'photo-web', { resource: [server.baseUrl] }), new TextEncoder().encode(SECRET), { alg: 'HS256' });
    const pushed = await postForm(`${server.authUrl}/par`, { request: jwt }, { Authorization: basic('photo-web', SECRET) });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
    const bad = await postForm(`${server.authUrl}/par`, { request: await signedJwt(objectClaims(server, 'photo-jar'), key.privateKey, { alg: 'none' }), client_id: 'photo-jar' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request_object');
    const { location } = await getRedirect(authorizeUrl(server, { client_id: 'photo-web', request_uri: String(pushed.body.request_uri) }));
    expect(location?.searchParams.get('code')).toBeTruthy();
  });

  it('the metadata lists the algorithms, none excluded', async () => {
    const { server } = await setup();
    const meta = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(meta.request_parameter_supported).toBe(true);
    expect(meta.request_object_signing_alg_values_supported).toContain('ES256');
    expect(meta.request_object_signing_alg_values_supported).not.toContain('none');
  });
});
