import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validateMockConfig } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { authorizeUrl, Browser, formFields, getRedirect, pkceRequest, postForm, REDIRECT_URI, startMock } from '../helpers.js';
import { browserLogin, claimsOf } from './helpers.js';

describe('sessions: sid, auth_time, amr, acr', () => {
  it('puts the session in the ID token: a sid that is not the cookie, auth_time, amr and acr; the admin API lists it', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const claims = claimsOf(tokens.id_token);
    expect(claims.sid).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(claims).toMatchObject({ amr: ['pwd'], acr: '1' });
    expect(typeof claims.auth_time).toBe('number');
    const cookie = (browser as unknown as { cookies: Map<string, string> }).cookies;
    expect([...cookie.values()]).not.toContain(claims.sid);
    expect(server.sessions()).toEqual([{ sid: claims.sid, sub: 'alice', auth_time: claims.auth_time, clients: ['photo-cli'] }]);
    const response = await fetch(`${server.authUrl}/_mock/sessions`);
    expect(await response.json()).toEqual({ sessions: server.sessions() });
  });

  it('auto-login has one session too: every ID token carries its sid', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const sids = new Set<unknown>();
    for (let i = 0; i < 2; i++) {
      const { location } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid' })));
      const { body } = await postForm(`${server.authUrl}/token`, {
        grant_type: 'authorization_code',
        code: location!.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        client_id: 'photo-cli',
        code_verifier: pkce.codeVerifier,
      });
      sids.add(claimsOf(body.id_token).sid);
    }
    expect(sids.size).toBe(1);
    expect(server.sessions().map((s) => s.sid)).toEqual([...sids]);
  });
});

describe('the device flow', () => {
  it("the device's ID token carries the sid of the session that approved it", async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const { body } = await postForm(`${server.authUrl}/device_authorization`, { client_id: 'photo-cli', scope: 'openid photo' });
    await fetch(String(body.verification_uri_complete));
    const tokens = await postForm(`${server.authUrl}/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: String(body.device_code), client_id: 'photo-cli' });
    expect(tokens.status).toBe(200);
    expect(claimsOf(tokens.body.id_token).sid).toBe(server.sessions()[0]!.sid);
  });
});

describe('prompt, max_age, id_token_hint, login_hint, select_account', () => {
  it('prompt=none: login_required by redirect without a session, a code with one, consent_required when consent is missing', async () => {
    const server = await startMock();
    const browser = new Browser();
    const pkce = createPkcePair();
    const none = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid photo', prompt: 'none' })));
    expect(none.status).toBe(302);
    const loc = new URL(none.headers.get('location')!);
    expect(loc.searchParams.get('error')).toBe('login_required');
    expect(loc.searchParams.get('state')).toBe('state-123');
    await browserLogin(server, browser);
    const silent = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid photo', prompt: 'none' })));
    expect(new URL(silent.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const more = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid photo email', prompt: 'none' })));
    expect(new URL(more.headers.get('location')!).searchParams.get('error')).toBe('consent_required');
  });

  it('prompt=login and max_age=0 sign in again: a new auth_time, the same sid; a young enough session is not asked', async () => {
    let now = Date.UTC(2026, 0, 1);
    const server = await startMock(undefined, { now: () => now });
    const browser = new Browser();
    const first = claimsOf((await browserLogin(server, browser)).tokens.id_token);
    now += 5000;
    const fresh = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', max_age: '3600' })));
    expect(fresh.status).toBe(302);
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }]) {
      now += 5000;
      const page = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', ...extra })));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('name="password"');
      const again = claimsOf((await browserLogin(server, browser, { scope: 'openid photo', ...extra })).tokens.id_token);
      expect(again.auth_time).toBeGreaterThan(first.auth_time as number);
      expect(again.sid).toBe(first.sid);
    }
    const none = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', max_age: '0', prompt: 'none' })));
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });

  it('id_token_hint of another user is not honoured silently: login_required with prompt=none, the login page without', async () => {
    const server = await startMock({
      users: [
        { username: 'alice', password: 'wonderland' },
        { username: 'bob', password: 'builder' },
      ],
    });
    const bobBrowser = new Browser();
    const bob = await browserLogin(server, bobBrowser, {}, { username: 'bob', password: 'builder' });
    const alice = new Browser();
    await browserLogin(server, alice);
    const hint = String(bob.tokens.id_token);
    const none = await alice.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', prompt: 'none', id_token_hint: hint })));
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    const page = await alice.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', id_token_hint: hint })));
    expect(page.status).toBe(200);
    const own = await bobBrowser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', prompt: 'none', id_token_hint: hint })));
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const forged = await alice.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', id_token_hint: `${hint.slice(0, -4)}AAAA` })));
    expect(new URL(forged.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('login_hint prefills the account name; select_account offers the signed-in account, which keeps its auth_time', async () => {
    const server = await startMock();
    const browser = new Browser();
    const hinted = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', login_hint: 'alice"><b>' })));
    expect(await hinted.text()).toContain('value="alice&#34;&#62;&#60;b&#62;"');
    const first = claimsOf((await browserLogin(server, browser)).tokens.id_token);
    const pkce = createPkcePair();
    const page = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid photo', prompt: 'select_account' })));
    const html = await page.text();
    expect(html).toContain('Continue as alice');
    const fields = formFields(html);
    const chosen = await browser.submit(`${server.authUrl}/login`, { interaction: fields.interaction!, csrf_token: fields.csrf_token!, continue_as: 'current' });
    expect(chosen.status).toBe(303);
    const code = new URL(chosen.headers.get('location')!).searchParams.get('code');
    expect(code).toBeTruthy();
    const { body } = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
    expect(claimsOf(body.id_token)).toMatchObject({ sid: first.sid, auth_time: first.auth_time });
  });

  it('accepts ui_locales and acr_values; refuses a bad max_age, a bad claims parameter and response_mode=fragment', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const ok = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair(), { ui_locales: 'fr-CA en', acr_values: '1 2' })));
    expect(ok.location?.searchParams.get('code')).toBeTruthy();
    for (const [extra, pattern] of [
      [{ max_age: '-1' }, /max_age/],
      [{ claims: '[1]' }, /claims must be a JSON object/],
      [{ claims: '{"id_token":{"email":1}}' }, /claims.id_token.email/],
      [{ response_mode: 'fragment' }, /response_mode/],
    ] as const) {
      const { location } = await getRedirect(authorizeUrl(server, pkceRequest(createPkcePair(), extra)));
      expect(location?.searchParams.get('error')).toBe('invalid_request');
      expect(location?.searchParams.get('error_description')).toMatch(pattern);
    }
  });
});

describe('the claims request parameter (OpenID Connect Core 5.5)', () => {
  it('adds the ID token and userinfo members asked for, beyond what the scopes release', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const pkce = createPkcePair();
    const claims = JSON.stringify({ id_token: { email: { essential: true }, nickname: null }, userinfo: { name: null } });
    const { location } = await getRedirect(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid', claims })));
    const { body } = await postForm(`${server.authUrl}/token`, {
      grant_type: 'authorization_code',
      code: location!.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      client_id: 'photo-cli',
      code_verifier: pkce.codeVerifier,
    });
    const idToken = claimsOf(body.id_token);
    expect(idToken.email).toBe('alice@example.com');
    expect(idToken).not.toHaveProperty('nickname');
    expect(idToken).not.toHaveProperty('name');
    const userinfo = await (await fetch(`${server.authUrl}/userinfo`, { headers: { authorization: `Bearer ${String(body.access_token)}` } })).json();
    expect(userinfo).toEqual({ sub: 'alice', name: 'Alice Liddell' });
  });
});

describe('response_mode=form_post', () => {
  it('answers an auto-submitting form whose one script the CSP allows by its hash', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const res = await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { response_mode: 'form_post', state: 's"<x>' })), { redirect: 'manual' });
    expect(res.status).toBe(200);
    const html = await res.text();
    const csp = res.headers.get('content-security-policy')!;
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('form-action http://127.0.0.1:53682');
    expect(html).toContain('action="http://127.0.0.1:53682/callback"');
    const fields = formFields(html);
    expect(fields.code).toBeTruthy();
    expect(fields.state).toBe('s&#34;&#60;x&#62;');
    expect(fields.iss).toBe(server.issuer);
    const error = await (await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { response_mode: 'form_post', scope: 'nope' })), { redirect: 'manual' })).text();
    expect(formFields(error).error).toBe('invalid_scope');
  });
});

describe('discovery and configuration', () => {
  it('announces the session and logout family', async () => {
    const server = await startMock();
    const metadata = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      end_session_endpoint: `${server.issuer}/logout`,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
      claims_parameter_supported: true,
      acr_values_supported: ['1'],
      prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
      response_modes_supported: ['query', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'],
    });
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['sid', 'auth_time', 'acr', 'amr']));
  });

  it('validates the new client fields, naming each', () => {
    const result = validateMockConfig({
      keep_consent_after_logout: 'yes',
      clients: [
        {
          client_id: 'rp',
          redirect_uris: ['https://rp.example/cb'],
          post_logout_redirect_uris: ['javascript:alert(1)', 'https://rp.example/bye#x'],
          backchannel_logout_uri: 'ftp://rp.example/bc',
          backchannel_logout_session_required: 'true',
          frontchannel_logout_uri: 'not a url',
          frontchannel_logout_session_required: 1,
        },
      ],
    });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    for (const field of [
      'keep_consent_after_logout',
      'clients[0].post_logout_redirect_uris[0]',
      'clients[0].post_logout_redirect_uris[1]',
      'clients[0].backchannel_logout_uri',
      'clients[0].backchannel_logout_session_required',
      'clients[0].frontchannel_logout_uri',
      'clients[0].frontchannel_logout_session_required',
    ])
      expect(errors.some((e) => e.startsWith(`${field}:`))).toBe(true);
    const good = validateMockConfig({
      clients: [{ client_id: 'rp', redirect_uris: ['https://rp.example/cb'], backchannel_logout_uri: 'https://rp.example/bc', post_logout_redirect_uris: ['https://rp.example/'] }],
    });
    expect(good.ok && good.config.clients.get('rp')).toMatchObject({ backchannelLogoutUri: 'https://rp.example/bc', postLogoutRedirectUris: ['https://rp.example/'] });
  });
});
