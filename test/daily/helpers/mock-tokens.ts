// Gets tokens from B's mock the way a client would, without a browser: the mock runs with autoLogin, so
// the authorization request redirects straight back with a code, which is then exchanged.
import { calculateCodeChallenge, generateCodeVerifier } from '../../../src/oauth/pkce.js';
import type { MockServer } from '../../../src/mock/index.js';

export interface MockTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

export async function tokensFromMock(mock: MockServer, scope = 'openid photo offline_access', nonce = 'n-0S6_WzA2Mj'): Promise<MockTokens> {
  const verifier = generateCodeVerifier();
  const redirectUri = 'http://127.0.0.1:1/callback';
  const authorize = new URL(`${mock.authUrl}/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'photo-cli',
    redirect_uri: redirectUri,
    scope,
    state: 'st',
    nonce,
    code_challenge: calculateCodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(authorize, { redirect: 'manual' });
  const location = res.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code from the mock: ${res.status} ${location ?? (await res.text())}`);
  const token = await fetch(`${mock.authUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'photo-cli', code_verifier: verifier }),
  });
  if (token.status !== 200) throw new Error(`token request failed: ${token.status} ${await token.text()}`);
  return (await token.json()) as MockTokens;
}
