// `logout` revokes with the client authentication of the login it ends (RFC 7009 section 2.1: the
// client authenticates as at the token endpoint): a private_key_jwt login revokes with a fresh client
// assertion signed by its key, and asks for no client secret. The built CLI against the mock of
// fixtures/mock/modern.jsonc on loopback.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { cliHome, FIXTURE_KEY, HEADLESS, jwt, param, requestsAt, startModernMock, type CliHome } from '../../client/helpers/modern-mock.js';

let mock: MockServer;
let home: CliHome;
beforeEach(async () => {
  mock = await startModernMock();
  home = cliHome();
});
afterEach(async () => {
  await mock.close();
  home.remove();
});

const LOGIN = ['--client-id', 'photo-jwt', '--auth-method', 'private_key_jwt', '--signing-key', FIXTURE_KEY];

describe('logout after a private_key_jwt login', () => {
  it('revokes both tokens with client assertions of the login key, asks for no secret, and the access token is refused afterwards', async () => {
    const login = await home.run(['login', '--issuer', mock.issuer, '--scope', 'openid offline_access', ...HEADLESS, ...LOGIN]);
    expect(login.code, login.stderr).toBe(0);
    const token = await home.run(['token', '--issuer', mock.issuer, '--client-id', 'photo-jwt']);
    expect(token.code, token.stderr).toBe(0);
    const accessToken = token.stdout.trim();
    expect((await fetch(`${mock.baseUrl}/me`, { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(200);

    const logout = await home.run(['logout', '--issuer', mock.issuer, '--client-id', 'photo-jwt', '--json']);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).not.toMatch(/client secret/);
    expect(JSON.parse(logout.stdout)).toMatchObject({ forgotten: true, revoked: ['refresh_token', 'access_token'] });

    const revocations = requestsAt(mock, '/revoke');
    expect(revocations.map((r) => r.status)).toEqual([200, 200]);
    for (const r of revocations) {
      expect(param(r.form, 'client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      expect(jwt(param(r.form, 'client_assertion')).claims).toMatchObject({ iss: 'photo-jwt', sub: 'photo-jwt' });
      expect(param(r.form, 'client_secret')).toBeUndefined();
    }
    const after = await fetch(`${mock.baseUrl}/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the access token has been revoked"/);
  });
});
