import { describe, expect, it } from 'vitest';
import { validateMockConfig } from '../../src/mock/core/config/config.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, getCode, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';

/** RFC 6749 section 3.3: a request that omits scope gets the client's default_scopes, or invalid_scope. */
async function tokenWithoutScope(server: Awaited<ReturnType<typeof startMock>>, clientId = 'photo-cli'): Promise<Record<string, unknown>> {
  const pkce = createPkcePair();
  const code = await getCode(server, pkceRequest(pkce, { scope: undefined, client_id: clientId }));
  const { status, body } = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: pkce.codeVerifier });
  expect(status).toBe(200);
  return body;
}

describe('an authorization request without scope (RFC 6749 section 3.3; MCP clients omit it when the resource names none)', () => {
  it('out of the box: every scope the client may ask for but openid and offline_access', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const body = await tokenWithoutScope(server);
    expect(String(body.scope).split(' ').sort()).toEqual(['email', 'photo', 'profile']);
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
  });

  it("the client's default_scopes when configured", async () => {
    const server = await startMock({ clients: [{ client_id: 'app', redirect_uris: ['http://127.0.0.1/callback'], default_scopes: ['photo'] }] }, { autoLogin: 'alice' });
    expect((await tokenWithoutScope(server, 'app')).scope).toBe('photo');
  });

  it('default_scopes [] keeps invalid_scope, naming the field and the rule', async () => {
    const server = await startMock({ clients: [{ client_id: 'app', redirect_uris: ['http://127.0.0.1/callback'], default_scopes: [] }] }, { autoLogin: 'alice' });
    const { status, location } = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: undefined, client_id: 'app' })));
    expect(status).toBe(302);
    expect(location!.searchParams.get('error')).toBe('invalid_scope');
    expect(location!.searchParams.get('error_description')).toMatch(/scope is missing and client app has no default_scopes.*RFC 6749 section 3\.3/);
  });

  it('a default scope the client may not ask for is a configuration error naming the field', () => {
    const result = validateMockConfig({ clients: [{ client_id: 'app', redirect_uris: ['http://127.0.0.1/callback'], scopes: ['photo'], default_scopes: ['email'] }] });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toMatch(/clients\[0\]\.default_scopes\[0\].*must be one of the client's scopes \(photo\)/);
  });
});

describe('errors at /authorize say what to add to --config', () => {
  it('an unknown resource: invalid_target naming "resources" and RFC 8707', async () => {
    const server = await startMock();
    const { location } = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair(), { resource: 'http://127.0.0.1:9/mcp' })));
    expect(location!.searchParams.get('error')).toBe('invalid_target');
    expect(location!.searchParams.get('error_description')).toMatch(/list it under ["']resources["'] in the mock's --config \(RFC 8707 section 2\)/);
  });

  it('an unknown scope: invalid_scope naming "scopes"', async () => {
    const server = await startMock();
    const { location } = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'mcp:tools' })));
    expect(location!.searchParams.get('error')).toBe('invalid_scope');
    expect(location!.searchParams.get('error_description')).toMatch(/unknown scope 'mcp:tools': list it under ["']scopes["'] in the mock's --config/);
  });
});
