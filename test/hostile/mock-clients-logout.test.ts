// The mock as a hostile client or a stranger holding an ID token finds it: redirect URIs of schemes a
// browser runs or another app claims, a deleted client whose tokens still worked, and an
// id_token_hint that ended someone's session from any browser without asking.
import { describe, expect, it } from 'vitest';
import { validateMockConfig, type MockServer } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { redirectUriProblem } from '../../src/oauth/redirect-uri.js';
import { authorizeUrl, basic, Browser, formFields, pkceRequest, postForm, startMock } from '../mock/helpers.js';
import { browserLogin } from '../mock/sessions/helpers.js';

const register = async (server: MockServer, metadata: Record<string, unknown>) => {
  const res = await fetch(`${server.authUrl}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const REFUSED = [
  'vbscript:msgbox(1)',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'file:///etc/passwd',
  'view-source:https://app.example/cb',
  'ws://127.0.0.1/cb',
  'wss://app.example/cb',
  'ftp://app.example/cb',
  'blob:https://app.example/0b7d9f',
  'about:blank',
  'urn:ietf:wg:oauth:2.0:oob',
  'myapp:/callback',
  'http://app.example/cb',
];
const ACCEPTED = ['https://app.example/cb', 'http://127.0.0.1/callback', 'http://[::1]:8080/cb', 'http://localhost/cb', 'com.example.app:/oauth2redirect'];

describe('redirect URIs: https, loopback http, or a reverse-domain private-use scheme (RFC 8252 sections 7.1, 7.3)', () => {
  it.each(REFUSED)('dynamic registration refuses %s with invalid_redirect_uri, and registers nothing', async (uri) => {
    const server = await startMock();
    const before = server.config.clients.size;
    const r = await register(server, { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_redirect_uri');
    expect(String(r.body.error_description)).toMatch(/scheme|not loopback/);
    expect(server.config.clients.size).toBe(before);
  });

  it.each(REFUSED)('a configured client with %s is refused at start, naming the field', (uri) => {
    const result = validateMockConfig({ clients: [{ client_id: 'app', redirect_uris: ['https://app.example/ok', uri] }] });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.join('\n')).toMatch(/clients\[0\]\.redirect_uris\[1\]: (uses the [a-z.-]+: scheme|is http on a host that is not loopback)/);
  });

  it('the same rule accepts https, http on loopback and com.example.app:, in both places', async () => {
    for (const uri of ACCEPTED) expect(redirectUriProblem(uri), uri).toBeUndefined();
    expect(validateMockConfig({ clients: [{ client_id: 'app', redirect_uris: ACCEPTED }] }).ok).toBe(true);
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const r = await register(server, { redirect_uris: ACCEPTED, token_endpoint_auth_method: 'none' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    // And /authorize sends the code to the private-use scheme as registered.
    const authorize = await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { client_id: String(r.body.client_id), redirect_uri: 'com.example.app:/oauth2redirect' })), {
      redirect: 'manual',
    });
    expect(authorize.status).toBe(302);
    expect(authorize.headers.get('location')).toMatch(/^com\.example\.app:\/oauth2redirect\?code=/);
  });
});

describe("RFC 7592 DELETE invalidates the client's tokens and grants (section 2.3)", () => {
  it.each(['jwt', 'opaque'] as const)('%s access tokens: introspection active false, the API 401, the refresh token and an unused code dead', async (format) => {
    const server = await startMock({ access_token_format: format }, { autoLogin: 'alice' });
    const reg = await register(server, {
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'photo offline_access',
    });
    expect(reg.status).toBe(201);
    const clientId = String(reg.body.client_id);
    const codeOf = async () => {
      const pkce = createPkcePair();
      const res = await fetch(authorizeUrl(server, pkceRequest(pkce, { client_id: clientId, scope: 'photo offline_access' })), { redirect: 'manual' });
      return { code: new URL(res.headers.get('location')!).searchParams.get('code')!, pkce };
    };
    const first = await codeOf();
    const tokens = (
      await postForm(`${server.authUrl}/token`, {
        grant_type: 'authorization_code',
        code: first.code,
        redirect_uri: 'http://127.0.0.1:53682/callback',
        client_id: clientId,
        code_verifier: first.pkce.codeVerifier,
      })
    ).body;
    expect(tokens.access_token).toBeTruthy();
    const unused = await codeOf();
    const web = { authorization: basic('photo-web', 'photo-web-secret') };
    const introspect = (token: unknown) => postForm(`${server.authUrl}/introspect`, { token: String(token) }, web).then((r) => r.body.active);
    const api = () => fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(tokens.access_token)}` } }).then((r) => r.status);
    expect(await introspect(tokens.access_token)).toBe(true);
    expect(await introspect(tokens.refresh_token)).toBe(true);
    expect(await api()).toBe(200);

    const deleted = await fetch(String(reg.body.registration_client_uri), { method: 'DELETE', headers: { authorization: `Bearer ${String(reg.body.registration_access_token)}` } });
    expect(deleted.status).toBe(204);

    expect(await introspect(tokens.access_token)).toBe(false);
    expect(await introspect(tokens.refresh_token)).toBe(false);
    expect(await api()).toBe(401);
    const refreshed = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId });
    expect(refreshed.status).toBeGreaterThanOrEqual(400);
    expect(refreshed.body.access_token).toBeUndefined();
    const redeemed = await postForm(`${server.authUrl}/token`, {
      grant_type: 'authorization_code',
      code: unused.code,
      redirect_uri: 'http://127.0.0.1:53682/callback',
      client_id: clientId,
      code_verifier: unused.pkce.codeVerifier,
    });
    expect(redeemed.status).toBeGreaterThanOrEqual(400);
    expect(redeemed.body.access_token).toBeUndefined();
  });

  it("another client's tokens stay valid", async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const reg = await register(server, { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    const other = (await browserLogin(server, new Browser())).tokens;
    await fetch(String(reg.body.registration_client_uri), { method: 'DELETE', headers: { authorization: `Bearer ${String(reg.body.registration_access_token)}` } });
    const res = await fetch(`${server.baseUrl}/photos`, { headers: { authorization: `Bearer ${String(other.access_token)}` } });
    expect(res.status).toBe(200);
  });
});

describe('an id_token_hint without the session (RP-Initiated Logout 1.0 section 2)', () => {
  const PLR = 'http://127.0.0.1:41234/callback';
  const logoutUrl = (server: MockServer, hint: unknown) => `${server.authUrl}/logout?${new URLSearchParams({ id_token_hint: String(hint), post_logout_redirect_uri: PLR, state: 's1' })}`;

  it('from another browser (no session cookie): a confirmation page naming nobody; the session ends only on its POST', async () => {
    const server = await startMock();
    const { tokens } = await browserLogin(server, new Browser());
    const stranger = new Browser();
    for (const method of ['GET', 'POST'] as const) {
      const res =
        method === 'GET'
          ? await stranger.request(logoutUrl(server, tokens.id_token))
          : await stranger.submit(`${server.authUrl}/logout`, { id_token_hint: String(tokens.id_token), post_logout_redirect_uri: PLR });
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      const html = await res.text();
      expect(html).toContain('Sign out?');
      expect(html).not.toContain('alice');
      expect(server.sessions()).toHaveLength(1);
    }
    const fields = formFields(await (await stranger.request(logoutUrl(server, tokens.id_token))).text());
    // A forged token and a replayed one are refused; declining spends the token and ends nothing.
    expect((await stranger.submit(`${server.authUrl}/logout`, { ...fields, csrf_token: 'x'.repeat(43), decision: 'logout' })).status).toBe(403);
    expect(server.sessions()).toHaveLength(1);
    const done = await stranger.submit(`${server.authUrl}/logout`, { ...fields, decision: 'logout' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${PLR}?state=s1`);
    expect(server.sessions()).toEqual([]);
    expect((await stranger.submit(`${server.authUrl}/logout`, { ...fields, decision: 'logout' })).status).toBe(403);
  });

  it('declining on the page keeps the session, and its token cannot be used again', async () => {
    const server = await startMock();
    const { tokens } = await browserLogin(server, new Browser());
    const stranger = new Browser();
    const fields = formFields(await (await stranger.request(logoutUrl(server, tokens.id_token))).text());
    expect((await stranger.submit(`${server.authUrl}/logout`, { ...fields, decision: 'stay' })).status).toBe(200);
    expect(server.sessions()).toHaveLength(1);
    expect((await stranger.submit(`${server.authUrl}/logout`, { ...fields, decision: 'logout' })).status).toBe(403);
    expect(server.sessions()).toHaveLength(1);
  });

  it("a hint of another user's session in a signed-in browser asks this browser's user, and never ends the other session", async () => {
    const server = await startMock({
      users: [
        { username: 'alice', password: 'wonderland' },
        { username: 'bob', password: 'builder' },
      ],
    });
    const { tokens: alices } = await browserLogin(server, new Browser());
    const bobBrowser = new Browser();
    await browserLogin(server, bobBrowser, {}, { username: 'bob', password: 'builder' });
    expect(server.sessions()).toHaveLength(2);
    const page = await bobBrowser.request(logoutUrl(server, alices.id_token));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Sign out?');
    expect(html).toContain('bob');
    const done = await bobBrowser.submit(`${server.authUrl}/logout`, { ...formFields(html), decision: 'logout' });
    expect(done.status).toBe(303);
    const left = server.sessions();
    expect(left).toHaveLength(1);
    expect(left[0]!.sub).not.toBe('bob');
  });

  it("the session's own browser with its hint signs out at once", async () => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const res = await browser.request(logoutUrl(server, tokens.id_token));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${PLR}?state=s1`);
    expect(server.sessions()).toEqual([]);
  });
});
