import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { FAKE_BROWSER, runCli } from '../../helpers/cli.js';

let as: RecordingServer;
beforeAll(async () => {
  as = await startRecordingServer();
});
afterAll(() => as.close());
beforeEach(() => as.reset());

function metadata(issuer: string, extra: Record<string, unknown> = {}) {
  return { issuer, authorization_endpoint: `${as.url}/authorize`, token_endpoint: `${as.url}/token`, ...extra };
}
const login = (issuer: string, args: string[] = []) => runCli(['login', '--issuer', issuer, '--client-id', 'photo-cli', '--timeout', '20', ...args], { env: { BROWSER: FAKE_BROWSER } });

describe('discovery', () => {
  it('RFC 8414: inserts the well-known path before the issuer path', async () => {
    const issuer = `${as.url}/tenant/a`;
    as.documents.set('/.well-known/oauth-authorization-server/tenant/a', { body: metadata(issuer) });
    const r = await login(issuer, ['--pkce']);
    expect(r.code).toBe(0);
    expect(as.requests[0]?.path).toBe('/.well-known/oauth-authorization-server/tenant/a');
    expect(r.stderr).toContain('(RFC 8414)');
  });

  it('falls back to OpenID Connect discovery', async () => {
    const issuer = `${as.url}/realms/x`;
    as.documents.set('/realms/x/.well-known/openid-configuration', { body: metadata(issuer) });
    const r = await login(issuer, ['--pkce']);
    expect(r.code).toBe(0);
    // The MCP authorization order: RFC 8414 inserted, OpenID Connect inserted, then appended.
    expect(as.requests.map((q) => q.path).slice(0, 3)).toEqual([
      '/.well-known/oauth-authorization-server/realms/x',
      '/.well-known/openid-configuration/realms/x',
      '/realms/x/.well-known/openid-configuration',
    ]);
    expect(r.stderr).toContain('(OpenID Connect)');
  });

  it('refuses metadata for another issuer: exit 1, no authorization request', async () => {
    const issuer = `${as.url}/t`;
    as.documents.set('/.well-known/oauth-authorization-server/t', { body: metadata('https://evil.example') });
    const r = await login(issuer);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/oauthctl: error: discovery at .* failed: the metadata's issuer "https:\/\/evil.example" is not/);
    expect(as.to('/authorize')).toHaveLength(0);
  });

  it('says when nothing is found at either location', async () => {
    const r = await login(`${as.url}/none`);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no authorization server metadata for .*HTTP 404.*HTTP 404/);
  });

  it('warns when plain is asked but only S256 is supported, and when PKCE is required', async () => {
    const issuer = `${as.url}/p`;
    as.documents.set('/.well-known/oauth-authorization-server/p', { body: metadata(issuer, { code_challenge_methods_supported: ['S256'] }) });
    const plain = await login(issuer, ['--code-challenge-method', 'plain']);
    expect(plain.stderr).toMatch(/warning: the server supports only S256/);

    as.reset();
    as.documents.set('/.well-known/oauth-authorization-server/p', { body: metadata(issuer, { require_pkce: true }) });
    const none = await login(issuer, ['--no-pkce']);
    expect(none.stderr).toMatch(/warning: the server requires PKCE/);
  });

  it('RFC 9207: a matching iss passes, a different iss fails without a token request', async () => {
    const issuer = `${as.url}/i`;
    as.documents.set('/.well-known/oauth-authorization-server/i', { body: metadata(issuer, { authorization_response_iss_parameter_supported: true }) });
    as.authorize = { iss: issuer };
    expect((await login(issuer)).code).toBe(0);

    as.authorize = { iss: 'https://mix-up.example' };
    const before = as.to('/token').length;
    const r = await login(issuer);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/iss "https:\/\/mix-up.example" is not the issuer/);
    expect(as.to('/token')).toHaveLength(before);
  });

  it('RFC 9207: a missing iss fails when the metadata says the server sends it', async () => {
    const issuer = `${as.url}/j`;
    as.documents.set('/.well-known/oauth-authorization-server/j', { body: metadata(issuer, { authorization_response_iss_parameter_supported: true }) });
    const r = await login(issuer);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/carries no iss/);
    expect(as.to('/token')).toHaveLength(0);
  });

  it('explicit endpoints override the discovered ones', async () => {
    const issuer = `${as.url}/o`;
    as.documents.set('/.well-known/oauth-authorization-server/o', { body: { issuer, authorization_endpoint: 'http://127.0.0.1:1/nowhere', token_endpoint: `${as.url}/token` } });
    const r = await login(issuer, ['--authorization-endpoint', `${as.url}/authorize`]);
    expect(r.code).toBe(0);
  });
});
