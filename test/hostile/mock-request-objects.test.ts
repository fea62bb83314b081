// Request objects that live too long, and replayed ones (FAPI 2.0 Message Signing).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, getRedirect, pkceRequest, REDIRECT_URI, startMock } from '../mock/helpers.js';
import { modernClient, newKey, signedJwt, type TestKey } from '../mock/modern-helpers.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(): Promise<{ key: TestKey; server: MockServer }> {
  const key = await newKey();
  const server = await startMock(
    {
      clients: [
        modernClient('photo-jar', { jwks: { keys: [key.publicJwk as never] } }),
        modernClient('photo-fapi', { jwks: { keys: [key.publicJwk as never] }, require_signed_request_object: true, request_object_single_use: true }),
      ],
    },
    { autoLogin: 'alice' },
  );
  servers.push(server);
  return { key, server };
}

function claims(server: MockServer, clientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { ...pkceRequest(createPkcePair(), { client_id: clientId, state: 'jar' }), iss: clientId, aud: server.issuer, iat: now, exp: now + 300, ...overrides };
}

async function authorizeWith(server: MockServer, key: TestKey, clientId: string, object: Record<string, unknown>) {
  const request = await signedJwt(object, key.privateKey, { alg: 'ES256', typ: 'oauth-authz-req+jwt' });
  const { location } = await getRedirect(authorizeUrl(server, { client_id: clientId, request, redirect_uri: REDIRECT_URI }));
  return { request, location };
}

describe('request objects: lifetime and replay', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it.each([
    ['nbf', { nbf: now(), exp: now() + 3601 }],
    ['iat', { iat: now() - 10, exp: now() + 3600 }],
    ['arrival, with neither', { iat: undefined, exp: now() + 7200 }],
  ])('one whose exp is more than 60 minutes after its %s is refused', async (_from, times) => {
    const { key, server } = await setup();
    const { location } = await authorizeWith(server, key, 'photo-jar', claims(server, 'photo-jar', times));
    expect(location?.searchParams.get('error')).toBe('invalid_request_object');
    expect(location?.searchParams.get('error_description')).toMatch(/at most 3600 s \(FAPI 2\.0 Message Signing section 5\.3\.1\)/);
  });

  it('60 minutes exactly is fine', async () => {
    const { key, server } = await setup();
    const t = now();
    const { location } = await authorizeWith(server, key, 'photo-jar', claims(server, 'photo-jar', { nbf: t, iat: t, exp: t + 3600 }));
    expect(location?.searchParams.get('code')).toBeTruthy();
  });

  it('request_object_single_use: a replayed request object (same jti) is refused; one without jti too', async () => {
    const { key, server } = await setup();
    const object = claims(server, 'photo-fapi', { jti: randomUUID() });
    const first = await authorizeWith(server, key, 'photo-fapi', object);
    expect(first.location?.searchParams.get('code')).toBeTruthy();
    const { location } = await getRedirect(authorizeUrl(server, { client_id: 'photo-fapi', request: first.request, redirect_uri: REDIRECT_URI }));
    expect(location?.searchParams.get('error')).toBe('invalid_request_object');
    expect(location?.searchParams.get('error_description')).toMatch(/already used/);
    const noJti = await authorizeWith(server, key, 'photo-fapi', claims(server, 'photo-fapi'));
    expect(noJti.location?.searchParams.get('error_description')).toMatch(/carry a jti/);
  });

  it('without request_object_single_use the same object may be used again (RFC 9101 does not require jti)', async () => {
    const { key, server } = await setup();
    const first = await authorizeWith(server, key, 'photo-jar', claims(server, 'photo-jar', { jti: 'same' }));
    expect(first.location?.searchParams.get('code')).toBeTruthy();
    const { location } = await getRedirect(authorizeUrl(server, { client_id: 'photo-jar', request: first.request, redirect_uri: REDIRECT_URI }));
    expect(location?.searchParams.get('code')).toBeTruthy();
  });
});
