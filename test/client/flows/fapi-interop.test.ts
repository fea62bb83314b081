// Real peers: the BUILT CLI logs in to panva/oidc-provider 9 configured for the FAPI 2.0 Security
// Profile, JARM and rich authorization requests; openid-client 6 uses the mock's JARM response modes
// and authorization_details.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { runCli } from '../../helpers/cli.js';
import { modernClient, newKey } from '../../mock/modern-helpers.js';
import { startFapiOidcProvider, type FapiOidcProvider } from '../helpers/fapi-oidc-provider.js';

const DETAILS = [{ type: 'payment_initiation', instructedAmount: { currency: 'EUR', amount: '12.00' } }];

describe('interop: login to oidc-provider 9 with its FAPI 2.0, JARM and RAR features', () => {
  let op: FapiOidcProvider;
  beforeAll(async () => {
    op = await startFapiOidcProvider();
  });
  afterAll(() => op.close());
  const login = (...args: string[]) =>
    runCli([
      'login',
      '--issuer',
      op.issuer,
      '--client-id',
      'fapi-cli',
      '--auth-method',
      'private_key_jwt',
      '--signing-key',
      op.signingKeyPem,
      '--scope',
      'openid',
      '--headless',
      '--username',
      'bob',
      '--password',
      'anything',
      '--json',
      '--no-cache',
      '--timeout',
      '15',
      '--fapi2',
      ...args,
    ]);

  it('--fapi2: PAR, PKCE, DPoP and private_key_jwt with the issuer as audience; a DPoP-bound token', async () => {
    const r = await login();
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).token_type).toBe('DPoP');
    expect(r.stderr).toMatch(/Pushed authorization request/);
  });

  it.each(['jwt', 'query.jwt', 'form_post.jwt'])('--response-mode %s: its signed response is verified', async (mode) => {
    const r = await login('--response-mode', mode);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/response JWT verified: ES256 signature valid/);
  });

  it('--authorization-details: granted, and in the token response', async () => {
    const r = await login('--authorization-details', JSON.stringify(DETAILS));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).authorization_details).toEqual(DETAILS);
  });

  it('an authorization_details type it does not know: refused at PAR with invalid_authorization_details', async () => {
    const r = await login('--authorization-details', '[{"type":"account_information"}]');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the PAR endpoint answered HTTP 400 invalid_authorization_details/);
  });
});

describe('interop: openid-client 6 against the mock: JARM and authorization_details', () => {
  const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
  let mock: MockServer;
  let key: Awaited<ReturnType<typeof newKey>>;
  beforeAll(async () => {
    key = await newKey();
    mock = await createMockServer(
      { authorization_details_types: ['payment_initiation'], clients: [modernClient('photo-jwt', { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk as never] } })] },
      { autoLogin: 'alice' },
    );
  });
  afterAll(() => mock.close());

  it('useJwtResponseMode: the response JWT validated by openid-client, then the code with its authorization_details', async () => {
    const config = await oidc.discovery(new URL(mock.issuer), 'photo-jwt', undefined, oidc.PrivateKeyJwt(key.privateKey), { execute: [oidc.allowInsecureRequests, oidc.useJwtResponseMode] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'photo',
      response_mode: 'jwt',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      authorization_details: JSON.stringify(DETAILS),
    });
    const redirect = await fetch(url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get('location')!);
    expect([...location.searchParams.keys()]).toEqual(['response']);
    const tokens = await oidc.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.authorization_details).toEqual(DETAILS);
  });

  it('a response JWT replayed to another client is refused by openid-client (aud)', async () => {
    const other = await createMockServer(
      { clients: [modernClient('photo-jwt', { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk as never] } }), modernClient('other-app')] },
      { autoLogin: 'alice' },
    );
    try {
      const config = await oidc.discovery(new URL(other.issuer), 'photo-jwt', undefined, oidc.PrivateKeyJwt(key.privateKey), { execute: [oidc.allowInsecureRequests, oidc.useJwtResponseMode] });
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const foreign = new URL(`${other.issuer}/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: 'other-app',
        redirect_uri: REDIRECT_URI,
        scope: 'photo',
        response_mode: 'jwt',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      })) {
        foreign.searchParams.set(k, v);
      }
      const redirect = await fetch(foreign, { redirect: 'manual' });
      const refused = await oidc.authorizationCodeGrant(config, new URL(redirect.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state }).then(
        () => undefined,
        (err: unknown) => err as Error & { cause?: unknown },
      );
      // openid-client's own words: the JWT's aud claim is not this client.
      expect(refused).toMatchObject({ code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: { cause: { claim: 'aud', expected: 'photo-jwt' } } });
    } finally {
      await other.close();
    }
  });
});
