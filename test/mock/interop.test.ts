import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { Browser, formFields, startMock } from './helpers.js';

/**
 * A client nobody here wrote, openid-client 6 (panva), completes the flows against the mock:
 * discovery, code + PKCE, iss check (RFC 9207), ID token validation, refresh, userinfo,
 * introspection and revocation.
 */
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

describe('interop: openid-client 6 as the client', () => {
  it('public client: code flow with PKCE via --auto-login, refresh, userinfo, protected API', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const config = await oidc.discovery(new URL(server.issuer), 'photo-cli', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile photo offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const redirect = await fetch(url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(redirect.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()?.sub).toBe('alice');
    expect(tokens.refresh_token).toBeTruthy();

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, 'alice');
    expect(userinfo.name).toBe('Alice Liddell');
    const photos = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${server.baseUrl}/photos`), 'GET');
    expect(photos.status).toBe(200);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('confidential client: login and consent pages driven with fetch and cookies, client_secret_basic, introspection', async () => {
    const server = await startMock();
    const config = await oidc.discovery(new URL(server.issuer), 'photo-web', 'photo-web-secret', oidc.ClientSecretBasic('photo-web-secret'), { execute: [oidc.allowInsecureRequests] });
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'photo email openid', state });
    const browser = new Browser();
    const login = await browser.request(url.href);
    const afterLogin = await browser.submit(`${server.issuer}/login`, { ...formFields(await login.text()), username: 'alice', password: 'wonderland' });
    const consent = await browser.request(new URL(afterLogin.headers.get('location')!, server.issuer).href);
    const allowed = await browser.submit(`${server.issuer}/consent`, { ...formFields(await consent.text()), decision: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(allowed.headers.get('location')!), { expectedState: state });
    expect(tokens.scope).toBe('photo email openid');
    expect(tokens.claims()?.email).toBe('alice@example.com');
    const introspection = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({ active: true, client_id: 'photo-web', sub: 'alice' });
  });

  it('openid-client sees an access_denied redirect as an error', async () => {
    const server = await startMock();
    const config = await oidc.discovery(new URL(server.issuer), 'photo-web', 'photo-web-secret', oidc.ClientSecretBasic('photo-web-secret'), { execute: [oidc.allowInsecureRequests] });
    const state = oidc.randomState();
    const browser = new Browser();
    const login = await browser.request(oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'photo', state }).href);
    const afterLogin = await browser.submit(`${server.issuer}/login`, { ...formFields(await login.text()), username: 'alice', password: 'wonderland' });
    const consent = await browser.request(new URL(afterLogin.headers.get('location')!, server.issuer).href);
    const denied = await browser.submit(`${server.issuer}/consent`, { ...formFields(await consent.text()), decision: 'deny' });
    await expect(oidc.authorizationCodeGrant(config, new URL(denied.headers.get('location')!), { expectedState: state })).rejects.toMatchObject({ error: 'access_denied' });
  });
});
