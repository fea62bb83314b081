import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { MockConfigInput } from '../../src/mock/index.js';
import { startMock } from './helpers.js';
import { modernClient, newKey } from './modern-helpers.js';

/**
 * A client nobody here wrote, openid-client 6 (panva), uses the mock's PAR, DPoP (with and without
 * server nonces), private_key_jwt, client_secret_jwt, signed request objects and resource indicators.
 */
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const HMAC_SECRET = 'photo-hmac-secret-0123456789abcdef0123456789abcdef';

async function setup(extra: Partial<MockConfigInput> = {}) {
  const key = await newKey();
  const server = await startMock(
    {
      resources: ['https://prints.example/api'],
      clients: [
        modernClient('photo-jwt', {
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [key.publicJwk as never] },
          require_pushed_authorization_requests: true,
          dpop_bound_access_tokens: true,
        }),
        modernClient('photo-hmac', { token_endpoint_auth_method: 'client_secret_jwt', client_secret: HMAC_SECRET, jwks: { keys: [key.publicJwk as never] }, require_signed_request_object: true }),
      ],
      ...extra,
    },
    { autoLogin: 'alice' },
  );
  return { key, server };
}

async function codeFlow(config: oidc.Configuration, url: URL, verifier: string, state: string, dpop?: oidc.DPoPHandle) {
  const redirect = await fetch(url, { redirect: 'manual' });
  expect(redirect.status, await redirect.clone().text()).toBe(302);
  return oidc.authorizationCodeGrant(config, new URL(redirect.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state }, undefined, dpop ? { DPoP: dpop } : {});
}

describe('interop: openid-client 6 with PAR, DPoP, JWT client authentication, JAR', () => {
  it.each([false, true])('private_key_jwt + PAR + DPoP (dpop_nonce %s), then the API and a refresh', async (nonce) => {
    const { key, server } = await setup({ dpop_nonce: nonce });
    const config = await oidc.discovery(new URL(server.issuer), 'photo-jwt', undefined, oidc.PrivateKeyJwt(key.privateKey), { execute: [oidc.allowInsecureRequests] });
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const params = { redirect_uri: REDIRECT_URI, scope: 'photo offline_access', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state };
    const retry = async <T>(call: () => Promise<T>): Promise<T> => {
      try {
        return await call();
      } catch (err) {
        // RFC 9449 section 8: the first request learns the nonce; openid-client keeps it for the retry.
        if (nonce && err instanceof oidc.ResponseBodyError && err.error === 'use_dpop_nonce') return call();
        if (nonce && err instanceof oidc.WWWAuthenticateChallengeError) return call();
        throw err;
      }
    };
    const url = await retry(() => oidc.buildAuthorizationUrlWithPAR(config, params, { DPoP: dpop }));
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const tokens = await retry(() => codeFlow(config, url, verifier, state, dpop));
    expect(tokens.token_type).toBe('dpop');
    const photos = await retry(() => oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${server.baseUrl}/photos`), 'GET', undefined, undefined, { DPoP: dpop }));
    expect(photos.status).toBe(200);
    const refreshed = await retry(() => oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop }));
    expect(refreshed.token_type).toBe('dpop');
  });

  it('client_secret_jwt + a signed request object (ES256) + a resource indicator', async () => {
    const { key, server } = await setup();
    const config = await oidc.discovery(new URL(server.issuer), 'photo-hmac', HMAC_SECRET, oidc.ClientSecretJwt(HMAC_SECRET), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: REDIRECT_URI, scope: 'photo', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, resource: 'https://prints.example/api' },
      { key: key.privateKey },
    );
    const tokens = await codeFlow(config, url, verifier, state);
    const payload = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as { aud: string };
    expect(payload.aud).toBe('https://prints.example/api');
  });
});
