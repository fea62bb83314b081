// Sender-constrained tokens keep their binding on every grant, and a token
// exchange neither widens scope, strips a binding, outlives its subject token nor its refresh family.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { CLIENT_CREDENTIALS_GRANT, DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT, ACCESS_TOKEN_TYPE } from '../../src/oauth/grant-types.js';
import type { MockServer } from '../../src/mock/index.js';
import { basic, Browser, formFields, postForm, startMock, pkceTokens } from '../mock/helpers.js';
import { dpopProof, modernClient, newKey, type TestKey } from '../mock/modern-helpers.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function mock(...args: Parameters<typeof startMock>): Promise<MockServer> {
  const server = await startMock(...args);
  servers.push(server);
  return server;
}

const tokenUrl = (server: MockServer) => `${server.authUrl}/token`;
const proof = (server: MockServer, key: TestKey) => dpopProof(key, { htu: tokenUrl(server) });

/** Walks the device verification page as alice: confirm, sign in, consent. */
async function approveDevice(authUrl: string, verificationUriComplete: string): Promise<void> {
  const browser = new Browser();
  const confirm = await browser.request(verificationUriComplete);
  const afterConfirm = await browser.submit(`${authUrl}/device`, { ...formFields(await confirm.text()), decision: 'allow' });
  const signedIn = await browser.submit(`${authUrl}/login`, { ...formFields(await afterConfirm.text()), username: 'alice', password: 'wonderland' });
  const location = signedIn.headers.get('location');
  if (location) {
    const consent = await browser.request(new URL(location, authUrl).href);
    const fields = formFields(await consent.text());
    if (fields.decision !== undefined || Object.keys(fields).length > 0) await browser.submit(`${authUrl}/consent`, { ...fields, decision: 'allow' });
  }
}

describe('every grant binds a DPoP-bound token the same way (RFC 9449 section 5)', () => {
  it('client_credentials with a DPoP proof: token_type DPoP, cnf.jkt, and the token is no bearer token at the API', async () => {
    const server = await mock();
    const key = await newKey();
    const r = await postForm(
      tokenUrl(server),
      { grant_type: CLIENT_CREDENTIALS_GRANT, scope: 'photo' },
      { Authorization: basic('photo-service', 'photo-service-secret'), DPoP: await proof(server, key) },
    );
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(r.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    const asBearer = await fetch(`${server.baseUrl}/photos`, { headers: { Authorization: `Bearer ${String(r.body.access_token)}` } });
    expect(asBearer.status).toBe(401);
  });

  it('device_code with a DPoP proof: the access token and a public client refresh token are bound to the key', async () => {
    const server = await mock({ device_interval: 1 });
    const key = await newKey();
    const device = (await postForm(`${server.authUrl}/device_authorization`, { client_id: 'photo-cli', scope: 'photo offline_access' })).body;
    await approveDevice(server.authUrl, String(device.verification_uri_complete));
    const r = await postForm(tokenUrl(server), { grant_type: DEVICE_CODE_GRANT, device_code: String(device.device_code), client_id: 'photo-cli' }, { DPoP: await proof(server, key) });
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(r.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    // The refresh token goes only with a proof by the same key.
    const stolen = await postForm(tokenUrl(server), { grant_type: 'refresh_token', refresh_token: String(r.body.refresh_token), client_id: 'photo-cli' });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    const otherKey = await newKey();
    const wrongKey = await postForm(tokenUrl(server), { grant_type: 'refresh_token', refresh_token: String(r.body.refresh_token), client_id: 'photo-cli' }, { DPoP: await proof(server, otherKey) });
    expect(wrongKey.body.error).toBe('invalid_grant');
    const refreshed = await postForm(tokenUrl(server), { grant_type: 'refresh_token', refresh_token: String(r.body.refresh_token), client_id: 'photo-cli' }, { DPoP: await proof(server, key) });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.token_type).toBe('DPoP');
  });

  it('token exchange with a DPoP proof gives a DPoP-bound token', async () => {
    const server = await mock(undefined, { autoLogin: 'alice' });
    const subject = await pkceTokens(server, 'photo');
    const key = await newKey();
    const r = await postForm(
      tokenUrl(server),
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: String(subject.access_token), subject_token_type: ACCESS_TOKEN_TYPE },
      { Authorization: basic('photo-service', 'photo-service-secret'), DPoP: await proof(server, key) },
    );
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(r.body.access_token)).cnf).toEqual({ jkt: key.jkt });
  });

  it('a client registered with dpop_bound_access_tokens gets no token at all without a proof, on any grant', async () => {
    const server = await mock({ clients: [modernClient('svc', { client_secret: 'svc-secret', grant_types: [CLIENT_CREDENTIALS_GRANT], dpop_bound_access_tokens: true, scopes: ['photo'] })] });
    const r = await postForm(tokenUrl(server), { grant_type: CLIENT_CREDENTIALS_GRANT }, { Authorization: basic('svc', 'svc-secret') });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_dpop_proof');
  });
});

describe('token exchange may not widen, unbind or outlive (RFC 8693, RFC 6749 section 3.3)', () => {
  const exchangingClient = modernClient('photo-only', { client_secret: 'photo-only-secret', grant_types: [TOKEN_EXCHANGE_GRANT], scopes: ['photo'] });
  const exchange = (server: MockServer, subjectToken: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    postForm(
      tokenUrl(server),
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN_TYPE, ...extra },
      { Authorization: basic('photo-only', 'photo-only-secret'), ...headers },
    );

  async function serverWithClients(config: Parameters<typeof startMock>[0] = {}, options: Parameters<typeof startMock>[1] = { autoLogin: 'alice' }) {
    const { DEFAULT_CONFIG } = await import('../../src/mock/core/config/config.js');
    return mock({ ...config, clients: [...DEFAULT_CONFIG.clients, exchangingClient] }, options);
  }

  it("a client registered for photo only gets photo, not the subject's openid profile email offline_access, and no userinfo", async () => {
    const server = await serverWithClients();
    const subject = await pkceTokens(server, 'photo openid profile email offline_access');
    const r = await exchange(server, String(subject.access_token));
    expect(r.status).toBe(200);
    expect(r.body.scope).toBe('photo');
    const userinfo = await fetch(`${server.authUrl}/userinfo`, { headers: { Authorization: `Bearer ${String(r.body.access_token)}` } });
    expect(userinfo.status).toBe(403);
    const asked = await exchange(server, String(subject.access_token), { scope: 'photo openid' });
    expect(asked.status).toBe(400);
    expect(asked.body.error).toBe('invalid_scope');
    expect(String(asked.body.error_description)).toContain('not registered for scope openid');
  });

  it('a DPoP-bound subject token is not exchanged without a proof of its key', async () => {
    const server = await serverWithClients();
    const key = await newKey();
    const dpopSubject = await postForm(
      tokenUrl(server),
      { grant_type: CLIENT_CREDENTIALS_GRANT, scope: 'photo' },
      { Authorization: basic('photo-service', 'photo-service-secret'), DPoP: await proof(server, key) },
    );
    const token = String(dpopSubject.body.access_token);
    const plain = await exchange(server, token);
    expect(plain.status).toBe(400);
    expect(String(plain.body.error_description)).toMatch(/DPoP-bound/);
    const other = await exchange(server, token, {}, { DPoP: await proof(server, await newKey()) });
    expect(other.status).toBe(400);
    const withKey = await exchange(server, token, {}, { DPoP: await proof(server, key) });
    expect(withKey.status).toBe(200);
    expect(withKey.body.token_type).toBe('DPoP');
  });

  it('the exchanged token ends no later than the subject token', async () => {
    const server = await serverWithClients({ lifetimes: { access_token: 120 } });
    const subject = await pkceTokens(server, 'photo');
    const subjectExp = Number(decodeJwt(String(subject.access_token)).exp);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const r = await exchange(server, String(subject.access_token));
    expect(r.status).toBe(200);
    expect(Number(decodeJwt(String(r.body.access_token)).exp)).toBeLessThanOrEqual(subjectExp);
    expect(Number(r.body.expires_in)).toBeLessThan(120);
  });

  it("the exchanged token is revoked with the subject's refresh family", async () => {
    const server = await serverWithClients();
    const subject = await pkceTokens(server, 'photo offline_access');
    const r = await exchange(server, String(subject.access_token));
    const exchanged = String(r.body.access_token);
    const api = () => fetch(`${server.baseUrl}/photos`, { headers: { Authorization: `Bearer ${exchanged}` } });
    expect((await api()).status).toBe(200);
    // Replaying a rotated refresh token revokes the whole family (RFC 9700 section 4.14.2).
    const form = { grant_type: 'refresh_token', refresh_token: String(subject.refresh_token), client_id: 'photo-cli' };
    expect((await postForm(tokenUrl(server), form)).status).toBe(200);
    expect((await postForm(tokenUrl(server), form)).status).toBe(400);
    expect((await api()).status).toBe(401);
  });
});
