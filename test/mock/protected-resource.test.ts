import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { parseWwwAuthenticate } from '../../src/oauth/www-authenticate.js';
import type { MockServer } from '../../src/mock/index.js';
import { authorizeUrl, basic, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from './helpers.js';

const challengeOf = (res: Response) => parseWwwAuthenticate(res.headers.get('www-authenticate') ?? '')[0]!.params;

/** The tokens of a PKCE flow for photo-cli, asking for these resources. */
async function tokensFor(server: MockServer, scope: string, resources: string[]): Promise<Record<string, string>> {
  const pkce = createPkcePair();
  const url = new URL(authorizeUrl(server, pkceRequest(pkce, { scope })));
  for (const r of resources) url.searchParams.append('resource', r);
  const { location } = await getRedirect(url.href);
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: location!.searchParams.get('code')!,
    redirect_uri: REDIRECT_URI,
    client_id: 'photo-cli',
    code_verifier: pkce.codeVerifier,
  });
  for (const r of resources) body.append('resource', r);
  const res = await fetch(`${server.authUrl}/token`, { method: 'POST', body });
  const json = (await res.json()) as Record<string, string>;
  if (res.status !== 200) throw new Error(JSON.stringify(json));
  return json;
}

describe('protected resource metadata (RFC 9728)', () => {
  it('{base_url} publishes its metadata, and every 401 of the API names it', async () => {
    const server = await startMock({}, { autoLogin: 'alice' });
    const url = `${server.authUrl}/.well-known/oauth-protected-resource/api`;
    const meta = (await (await fetch(url)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ resource: server.baseUrl, authorization_servers: [server.issuer], scopes_supported: ['photo'], bearer_methods_supported: ['header'] });
    expect(meta.dpop_signing_alg_values_supported).toContain('ES256');
    const none = await fetch(`${server.baseUrl}/photos`);
    expect(none.status).toBe(401);
    expect(challengeOf(none).resource_metadata).toBe(url);
    const bad = await fetch(`${server.baseUrl}/me`, { headers: { authorization: 'Bearer nope' } });
    expect(challengeOf(bad)).toMatchObject({ error: 'invalid_token', resource_metadata: url });
    expect((await fetch(`${server.authUrl}/.well-known/oauth-protected-resource/nothing`)).status).toBe(404);
  });

  it('a configured protected resource takes only tokens for itself with its scopes; the API refuses them (no passthrough)', async () => {
    const server = await startMock({ protected_resources: [{ path: '/mcp', scopes: ['photo', 'profile'] }] }, { autoLogin: 'alice' });
    const mcp = `${server.authUrl}/mcp`;
    const meta = (await (await fetch(`${server.authUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ resource: mcp, scopes_supported: ['photo', 'profile'] });
    const first = await fetch(mcp, { method: 'POST' });
    expect(challengeOf(first).resource_metadata).toBe(`${server.authUrl}/.well-known/oauth-protected-resource/mcp`);

    const forMcp = await tokensFor(server, 'photo profile', [mcp]);
    expect(decodeJwt(forMcp.access_token!).aud).toBe(mcp);
    const ok = await fetch(mcp, { method: 'POST', headers: { authorization: `Bearer ${forMcp.access_token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ resource: mcp, sub: 'alice' });
    // RFC 8707: the same token at the API is for another resource.
    expect((await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${forMcp.access_token}` } })).status).toBe(401);
    // A token for the API (no resource) is refused at /mcp.
    const forApi = await tokensFor(server, 'photo profile', []);
    const refused = await fetch(mcp, { headers: { authorization: `Bearer ${forApi.access_token}` } });
    expect(refused.status).toBe(401);
    expect(challengeOf(refused).error).toBe('invalid_token');
    // Without the scope it needs: 403 insufficient_scope naming it.
    const narrow = await tokensFor(server, 'photo', [mcp]);
    const forbidden = await fetch(mcp, { headers: { authorization: `Bearer ${narrow.access_token}` } });
    expect(forbidden.status).toBe(403);
    expect(challengeOf(forbidden)).toMatchObject({ error: 'insufficient_scope', scope: 'photo profile' });
  });

  it('introspection tells the resource server the token is active, with its aud', async () => {
    const server = await startMock({ protected_resources: [{ path: '/mcp', scopes: [] }] }, { autoLogin: 'alice' });
    const mcp = `${server.authUrl}/mcp`;
    const tokens = await tokensFor(server, 'photo', [mcp]);
    const { body } = await postForm(`${server.authUrl}/introspect`, { token: tokens.access_token }, { authorization: basic('photo-web', 'photo-web-secret') });
    expect(body).toMatchObject({ active: true, aud: mcp });
  });

  it('the admin API and the library add protected resources at run time, validated', async () => {
    const server = await startMock({ issuers: { team: {} } }, { autoLogin: 'alice' });
    const res = await fetch(`${server.authUrl}/_mock/resources`, { method: 'POST', body: JSON.stringify({ path: '/team-api', scopes: ['photo'], issuer: 'team' }) });
    expect(await res.json()).toEqual({ resource: `${server.authUrl}/team-api`, resource_metadata: `${server.authUrl}/.well-known/oauth-protected-resource/team-api` });
    const meta = (await (await fetch(`${server.authUrl}/.well-known/oauth-protected-resource/team-api`)).json()) as Record<string, unknown>;
    expect(meta.authorization_servers).toEqual([`${server.authUrl}/team`]);
    // The named issuer knows the resource (RFC 8707) and its tokens work there; the root's do not.
    const team = { authUrl: `${server.authUrl}/team` } as MockServer;
    const teamTokens = await tokensFor(team, 'photo', [`${server.authUrl}/team-api`]);
    expect((await fetch(`${server.authUrl}/team-api`, { headers: { authorization: `Bearer ${teamTokens.access_token}` } })).status).toBe(200);
    const rootTokens = await tokensFor(server, 'photo', []);
    expect((await fetch(`${server.authUrl}/team-api`, { headers: { authorization: `Bearer ${rootTokens.access_token}` } })).status).toBe(401);
    expect(server.addResource({ path: '/mcp', scopes: [] })).toMatchObject({ resource: `${server.authUrl}/mcp` });
    expect(() => server.addResource({ path: '/mcp', scopes: [] })).toThrow(/exists already/);
    expect(() => server.addResource({ path: '/token', scopes: [] })).toThrow(/mock's own/);
    const bad = await fetch(`${server.authUrl}/_mock/resources`, { method: 'POST', body: JSON.stringify({ path: 'x', scopes: [] }) });
    expect(bad.status).toBe(400);
  });

  it('config protected_resources is validated like the rest', async () => {
    await expect(startMock({ protected_resources: [{ path: '/a', scopes: ['no such'] }] } as never)).rejects.toThrow(/protected_resources\[0\]\.scopes/);
    await expect(startMock({ protected_resources: [{ path: '/a', scopes: [], issuer: 'x' }] })).rejects.toThrow(/no named issuers/);
  });
});

const register = (server: MockServer, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.authUrl}/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

describe('dynamic client registration (RFC 7591, RFC 7592)', () => {
  it('registers a native public client whose loopback redirect takes any port, then reads, updates and deletes it', async () => {
    const server = await startMock({}, { autoLogin: 'alice' });
    const meta = (await (await fetch(`${server.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.registration_endpoint).toBe(`${server.authUrl}/register`);
    const { status, body } = await register(server, {
      redirect_uris: ['http://127.0.0.1:4000/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'Registered CLI',
      scope: 'photo offline_access',
      unknown_thing: { ignored: true },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ redirect_uris: ['http://127.0.0.1:4000/callback'], token_endpoint_auth_method: 'none', client_name: 'Registered CLI' });
    expect(body.unknown_thing).toBeUndefined();
    expect(body.client_secret).toBeUndefined();
    const clientId = body.client_id as string;
    // The code flow works on another port (RFC 8252 section 7.3).
    const pkce = createPkcePair();
    const { location } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: clientId, redirect_uri: REDIRECT_URI })));
    expect(location!.searchParams.get('code')).toBeTruthy();
    const rat = { authorization: `Bearer ${body.registration_access_token as string}` };
    const uri = body.registration_client_uri as string;
    expect((await fetch(uri, { headers: rat })).status).toBe(200);
    expect((await fetch(uri, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const put = await fetch(uri, {
      method: 'PUT',
      headers: { ...rat, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: clientId, redirect_uris: ['http://127.0.0.1/other'], token_endpoint_auth_method: 'none' }),
    });
    expect(((await put.json()) as Record<string, unknown>).redirect_uris).toEqual(['http://127.0.0.1/other']);
    expect((await fetch(uri, { method: 'DELETE', headers: rat })).status).toBe(204);
    expect((await fetch(uri, { headers: rat })).status).toBe(401);
    expect((await getRedirect(authorizeUrl(server, pkceRequest(pkce, { client_id: clientId })))).location).toBeUndefined();
    expect(server.requests().some((r) => r.path === '/register' && r.client_id === clientId)).toBe(true);
    // The flows page lists the registration among the other requests.
    const page = await (await fetch(`${server.authUrl}/_mock/`)).text();
    expect(page).toContain('client registered');
    expect(page).toContain(clientId);
  });

  it('a confidential client gets a secret (client_secret_basic by default, RFC 7591 section 2)', async () => {
    const server = await startMock();
    const { body } = await register(server, { redirect_uris: ['https://app.example/cb'] });
    expect(body).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code'] });
    expect(typeof body.client_secret).toBe('string');
  });

  it('answers RFC 7591 errors for unsafe redirect URIs and bad metadata', async () => {
    const server = await startMock();
    for (const uri of ['http://evil.example/cb', 'https://a.example/*', 'javascript:alert(1)', 'https://a.example/cb#frag', 'https://user:pw@a.example/cb']) {
      const { status, body } = await register(server, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect([status, body.error]).toEqual([400, 'invalid_redirect_uri']);
    }
    for (const bad of [
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'magic' },
      { redirect_uris: ['https://a.example/cb'], scope: 'root' },
      { redirect_uris: ['https://a.example/cb'], response_types: ['token'] },
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
      [],
    ]) {
      const { status, body } = await register(server, bad);
      expect([status, body.error]).toEqual([400, 'invalid_client_metadata']);
    }
  });

  it('with an initial access token, only its bearer registers; closed registration is not announced', async () => {
    const server = await startMock({ registration: { initial_access_token: 'let-me-in-please' } });
    const client = { redirect_uris: ['https://a.example/cb'] };
    expect((await register(server, client)).status).toBe(401);
    expect((await register(server, client, { authorization: 'Bearer let-me-in-pleasX' })).status).toBe(401);
    expect((await register(server, client, { authorization: 'Bearer let-me-in-please' })).status).toBe(201);
    const closed = await startMock({ registration: { open: false } });
    expect((await register(closed, client)).status).toBe(403);
    const meta = (await (await fetch(`${closed.authUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.registration_endpoint).toBeUndefined();
  });

  it('registered clients are bounded in number', async () => {
    const server = await startMock();
    const { MAX_REGISTERED_CLIENTS } = await import('../../src/mock/endpoints/register.js');
    const client = { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' };
    let last = 0;
    for (let i = 0; i <= MAX_REGISTERED_CLIENTS; i++) last = (await register(server, client)).status;
    expect(last).toBe(503);
  }, 30_000);
});

describe('protected resource metadata of named issuers', () => {
  it("a named issuer's API has its metadata at the root's well-known URL with the issuer's path inserted", async () => {
    const server = await startMock({ issuers: { team: {} } });
    const teamApi = `${server.authUrl}/team/api`;
    const res = await fetch(`${teamApi}/photos`);
    expect(challengeOf(res).resource_metadata).toBe(`${server.authUrl}/.well-known/oauth-protected-resource/team/api`);
    const meta = (await (await fetch(challengeOf(res).resource_metadata!)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ resource: teamApi, authorization_servers: [`${server.authUrl}/team`] });
  });
});
