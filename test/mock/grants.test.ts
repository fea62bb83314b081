import { describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { ACCESS_TOKEN_TYPE, CLIENT_CREDENTIALS_GRANT, DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT, JWT_BEARER_GRANT } from '../../src/oauth/grant-types.js';
import { validateMockConfig, type MockConfigInput } from '../../src/mock/index.js';
import { basic, pkceTokens, postForm, startMock } from './helpers.js';

const SERVICE = basic('photo-service', 'photo-service-secret');

describe('client credentials grant (RFC 6749 section 4.4)', () => {
  it('issues an access token for the client itself, without refresh or ID token, that the API accepts', async () => {
    const server = await startMock();
    const { status, body } = await postForm(`${server.authUrl}/token`, { grant_type: CLIENT_CREDENTIALS_GRANT, scope: 'photo' }, { authorization: SERVICE });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'photo' });
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
    expect(decodeJwt(String(body.access_token))).toMatchObject({ sub: 'photo-service', client_id: 'photo-service' });
    const api = await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(body.access_token)}` } });
    expect(api.status).toBe(200);
  });

  it('defaults the scope to the client scopes that need no user; refuses openid and offline_access', async () => {
    const server = await startMock();
    expect((await postForm(`${server.authUrl}/token`, { grant_type: CLIENT_CREDENTIALS_GRANT }, { authorization: SERVICE })).body.scope).toBe('photo');
    const user = await postForm(`${server.authUrl}/token`, { grant_type: CLIENT_CREDENTIALS_GRANT, scope: 'photo offline_access' }, { authorization: SERVICE });
    expect(user.body.error).toBe('invalid_scope');
  });

  it('a public client gets unauthorized_client; so does a confidential client whose grant_types lack it; a wrong secret invalid_client', async () => {
    const server = await startMock();
    const pub = await postForm(`${server.authUrl}/token`, { grant_type: CLIENT_CREDENTIALS_GRANT, client_id: 'photo-cli' });
    expect(pub).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    const web = await postForm(`${server.authUrl}/token`, { grant_type: CLIENT_CREDENTIALS_GRANT }, { authorization: basic('photo-web', 'photo-web-secret') });
    expect(web.body.error).toBe('unauthorized_client');
    const wrong = await postForm(`${server.authUrl}/token`, { grant_type: CLIENT_CREDENTIALS_GRANT }, { authorization: basic('photo-service', 'guess') });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});

describe('token exchange (RFC 8693)', () => {
  const config: MockConfigInput = {
    clients: [
      { client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'] },
      { client_id: 'gateway', client_secret: 'gateway-secret', grant_types: [TOKEN_EXCHANGE_GRANT], token_exchange: { audiences: ['https://backend.example'] } },
      { client_id: 'plain', client_secret: 'plain-secret', grant_types: [CLIENT_CREDENTIALS_GRANT] },
    ],
  };
  const GATEWAY = basic('gateway', 'gateway-secret');

  it('keeps the subject, names the actor in act, sets the audience and issued_token_type', async () => {
    const server = await startMock(config, { autoLogin: 'alice' });
    const subject = String((await pkceTokens(server, 'photo')).access_token);
    const actor = String((await pkceTokens(server, 'photo')).access_token);
    const { status, body } = await postForm(
      `${server.authUrl}/token`,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, actor_token: actor, actor_token_type: ACCESS_TOKEN_TYPE, audience: 'https://backend.example' },
      { authorization: GATEWAY },
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', scope: 'photo' });
    expect(body.refresh_token).toBeUndefined();
    expect(decodeJwt(String(body.access_token))).toMatchObject({ sub: 'alice', client_id: 'gateway', aud: 'https://backend.example', act: { sub: 'alice' } });
  });

  it('invalid_target for an audience outside the policy; invalid_request for a forged or missing subject token; invalid_scope beyond it', async () => {
    const server = await startMock(config, { autoLogin: 'alice' });
    const subject = String((await pkceTokens(server, 'photo')).access_token);
    const exchange = (form: Record<string, string>) => postForm(`${server.authUrl}/token`, { grant_type: TOKEN_EXCHANGE_GRANT, ...form }, { authorization: GATEWAY });
    expect((await exchange({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, audience: 'https://evil.example' })).body.error).toBe('invalid_target');
    const forged = `${subject.slice(0, -4)}AAAA`;
    expect((await exchange({ subject_token: forged, subject_token_type: ACCESS_TOKEN_TYPE })).body.error).toBe('invalid_request');
    expect((await exchange({ subject_token_type: ACCESS_TOKEN_TYPE })).body.error).toBe('invalid_request');
    expect((await exchange({ subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:saml2' })).body.error).toBe('invalid_request');
    expect((await exchange({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, actor_token: subject })).body.error).toBe('invalid_request');
    expect((await exchange({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, scope: 'photo openid' })).body.error).toBe('invalid_scope');
    const own = await exchange({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE });
    expect(decodeJwt(String(own.body.access_token)).aud).toBe(server.baseUrl);
  });

  it('unauthorized_client for a client whose grant_types lack token exchange', async () => {
    const server = await startMock(config, { autoLogin: 'alice' });
    const subject = String((await pkceTokens(server, 'photo')).access_token);
    const res = await postForm(
      `${server.authUrl}/token`,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE },
      { authorization: basic('plain', 'plain-secret') },
    );
    expect(res.body.error).toBe('unauthorized_client');
  });
});

describe('discovery and configuration of the grants', () => {
  it('lists the device authorization endpoint and every grant type it supports', async () => {
    const server = await startMock();
    const metadata = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.device_authorization_endpoint).toBe(`${server.issuer}/device_authorization`);
    expect(metadata.grant_types_supported).toEqual([
      'authorization_code',
      'refresh_token',
      CLIENT_CREDENTIALS_GRANT,
      TOKEN_EXCHANGE_GRANT,
      DEVICE_CODE_GRANT,
      'urn:openid:params:grant-type:ciba',
      JWT_BEARER_GRANT,
    ]);
  });

  it('validates grant_types, token_exchange, device_code_lifetime and device_interval, naming the field', () => {
    const result = validateMockConfig({
      device_interval: 0,
      device_code_lifetime: 'long',
      clients: [
        { client_id: 'a', client_secret: 's', grant_types: ['password'] },
        { client_id: 'b', client_secret: 's', grant_types: [TOKEN_EXCHANGE_GRANT], token_exchange: { audiences: [''] } },
        { client_id: 'c', redirect_uris: [] },
      ],
    });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^device_interval: must be a whole number/),
        expect.stringMatching(/^device_code_lifetime: /),
        expect.stringMatching(/^clients\[0\]\.grant_types\[0\]: must be one of/),
        expect.stringMatching(/^clients\[1\]\.token_exchange\.audiences\[0\]: /),
        expect.stringMatching(/^clients\[2\]\.redirect_uris: /),
      ]),
    );
    expect(validateMockConfig({ clients: [{ client_id: 'svc', client_secret: 's', grant_types: [CLIENT_CREDENTIALS_GRANT] }] }).ok).toBe(true);
  });
});
