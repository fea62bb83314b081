import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { authorizeUrl, Browser, formFields, pkceRequest, postForm, startMock } from '../helpers.js';
import { browserLogin, claimsOf, eventually, headerOf, startRelyingParty, verifiedLogoutToken, type RelyingParty } from './helpers.js';

const PLR = 'http://127.0.0.1:41234/callback';

async function stillSignedIn(server: MockServer, browser: Browser): Promise<boolean> {
  const res = await browser.request(authorizeUrl(server, pkceRequest(createPkcePair(), { scope: 'openid photo', prompt: 'none' })));
  return new URL(res.headers.get('location')!).searchParams.has('code');
}

/** A mock whose photo-cli also has logout URIs at the relying party `rp`. */
function rpConfig(rp: RelyingParty, extra: Record<string, unknown> = {}) {
  return {
    clients: [
      {
        client_id: 'photo-cli',
        redirect_uris: ['http://127.0.0.1/callback'],
        post_logout_redirect_uris: ['http://127.0.0.1/callback', `${rp.url}/bye`],
        backchannel_logout_uri: `${rp.url}/backchannel`,
        ...extra,
      },
    ],
  };
}

describe('RP-initiated logout at {auth_url}/logout', () => {
  it('ends the session and goes back to the registered URI on any loopback port, with the state', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const url = new URL(`${server.authUrl}/logout`);
    url.search = new URLSearchParams({
      id_token_hint: String(tokens.id_token),
      client_id: 'photo-cli',
      post_logout_redirect_uri: PLR,
      state: 'bye & co',
      ui_locales: 'de',
      logout_hint: 'alice',
    }).toString();
    const res = await browser.request(url.href);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${PLR}?state=bye+%26+co`);
    expect(server.sessions()).toEqual([]);
    expect(await stillSignedIn(server, browser)).toBe(false);
  });

  it("accepts POST from the session's browser with its hint", async () => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const res = await browser.submit(`${server.authUrl}/logout`, { id_token_hint: String(tokens.id_token), post_logout_redirect_uri: PLR });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(PLR);
    expect(server.sessions()).toEqual([]);
  });

  it.each([
    ['another host', 'http://evil.example/callback', /not registered/],
    ['another path', 'http://127.0.0.1:41234/callback/../evil', /not registered/],
    ['a prefix', 'http://127.0.0.1:41234/callbackx', /not registered/],
    ['https on loopback', 'https://127.0.0.1:41234/callback', /not registered/],
  ])('refuses %s with an error page, never a redirect, and the session stays', async (_name, uri, message) => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const url = `${server.authUrl}/logout?${new URLSearchParams({ id_token_hint: String(tokens.id_token), post_logout_redirect_uri: uri })}`;
    const res = await browser.request(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toMatch(message);
    expect(await stillSignedIn(server, browser)).toBe(true);
  });

  it('refuses a post_logout_redirect_uri without a client, a client_id the hint was not issued to, and a forged hint', async () => {
    const server = await startMock();
    const { tokens } = await browserLogin(server, new Browser());
    const hint = String(tokens.id_token);
    for (const [params, message] of [
      [{ post_logout_redirect_uri: PLR }, /needs a client_id or an id_token_hint/],
      [{ id_token_hint: hint, client_id: 'photo-web', post_logout_redirect_uri: PLR }, /not an audience/],
      [{ id_token_hint: `${hint.slice(0, -6)}AAAAAA`, post_logout_redirect_uri: PLR }, /not an ID token signed by this server/],
    ] as const) {
      const res = await fetch(`${server.authUrl}/logout?${new URLSearchParams(params)}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toMatch(message);
    }
    expect(server.sessions()).toHaveLength(1);
  });

  it('escapes what an attacker sends, and refuses a repeated parameter, on the error page', async () => {
    const server = await startMock();
    const hostile = await fetch(`${server.authUrl}/logout?client_id=${encodeURIComponent('<script>alert(1)</script>\u001b[31m')}&post_logout_redirect_uri=${encodeURIComponent(PLR)}`);
    expect(hostile.status).toBe(400);
    const html = await hostile.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;');
    const repeated = await fetch(`${server.authUrl}/logout?state=a&state=b`, { redirect: 'manual' });
    expect(repeated.status).toBe(400);
    expect(await repeated.text()).toMatch(/sends state more than once/);
    const notForm = await fetch(`${server.authUrl}/logout`, { method: 'POST', body: '{"client_id":"photo-cli"}', headers: { 'content-type': 'application/json' } });
    expect(notForm.status).toBe(400);
  });

  it('asks for confirmation when the request is not tied to the session (no hint); a forged form is refused', async () => {
    const server = await startMock();
    const browser = new Browser();
    await browserLogin(server, browser);
    const page = await browser.request(`${server.authUrl}/logout?client_id=photo-cli&post_logout_redirect_uri=${encodeURIComponent(PLR)}&state=s1`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Sign out?');
    const fields = formFields(html);
    const forged = await browser.submit(`${server.authUrl}/logout`, { ...fields, csrf_token: 'x'.repeat(43), decision: 'logout' });
    expect(forged.status).toBe(403);
    expect(await stillSignedIn(server, browser)).toBe(true);
    const stay = await browser.submit(`${server.authUrl}/logout`, { ...fields, decision: 'stay' });
    expect(stay.status).toBe(200);
    expect(await stillSignedIn(server, browser)).toBe(true);
    const done = await browser.submit(`${server.authUrl}/logout`, { ...fields, decision: 'logout' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${PLR}?state=s1`);
    expect(await stillSignedIn(server, browser)).toBe(false);
  });

  it('forgets consent with the session unless keep_consent_after_logout', async () => {
    for (const keep of [false, true]) {
      const server = await startMock({ keep_consent_after_logout: keep });
      const browser = new Browser();
      const { tokens } = await browserLogin(server, browser);
      await browser.request(`${server.authUrl}/logout?id_token_hint=${String(tokens.id_token)}`);
      const pkce = createPkcePair();
      let res = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid photo' })));
      const fields = formFields(await res.text());
      res = await browser.submit(`${server.authUrl}/login`, { interaction: fields.interaction!, csrf_token: fields.csrf_token!, username: 'alice', password: 'wonderland' });
      expect(res.headers.get('location')!.startsWith('consent')).toBe(!keep);
    }
  });

  it('openid-client builds the logout URL from the metadata, and the mock follows it', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const config = await oidc.discovery(new URL(server.issuer), 'photo-cli', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const url = oidc.buildEndSessionUrl(config, { id_token_hint: String(tokens.id_token), post_logout_redirect_uri: PLR, state: 'rp-state' });
    const res = await browser.request(url.href);
    expect(res.headers.get('location')).toBe(`${PLR}?state=rp-state`);
    expect(server.sessions()).toEqual([]);
  });

  it('a refresh token with offline_access outlives the session (OpenID Connect Core 11)', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser, { scope: 'openid photo offline_access' });
    server.endSession();
    const { status, body } = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: 'photo-cli' });
    expect(status).toBe(200);
    expect(claimsOf(body.id_token).sid).toBe(claimsOf(tokens.id_token).sid);
  });
});

describe('back-channel logout', () => {
  it('POSTs a logout token the relying party can verify: typ logout+jwt, the claims of section 2.4, the sid of the ID token, no nonce', async () => {
    const rp = await startRelyingParty();
    const server = await startMock(rpConfig(rp));
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser, { nonce: 'n-1' });
    const idToken = claimsOf(tokens.id_token);
    const res = await browser.request(`${server.authUrl}/logout?id_token_hint=${String(tokens.id_token)}`);
    expect(res.status).toBe(200);
    await eventually(() => rp.hits.length === 1);
    const hit = rp.hits[0]!;
    expect(hit).toMatchObject({ method: 'POST', url: '/backchannel' });
    expect(headerOf(new URLSearchParams(hit.body).get('logout_token')).typ).toBe('logout+jwt');
    const payload = await verifiedLogoutToken(server, rp);
    expect(payload).toMatchObject({ sub: 'alice', sid: idToken.sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
    expect(payload).not.toHaveProperty('nonce');
    expect(typeof payload.jti).toBe('string');
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(120);
    await eventually(() => server.requests().some((r) => r.endpoint === 'backchannel_logout'));
    const logged = server.requests().find((r) => r.endpoint === 'backchannel_logout')!;
    expect(logged).toMatchObject({ status: 200, client_id: 'photo-cli', path: `${rp.url}/backchannel` });
    expect(logged.outcome).toMatch(/delivered/);
  });

  it('retries a bounded number of times when not answered 200, each time a new jti; the log says so', async () => {
    const rp = await startRelyingParty();
    rp.answers = [500, 500, 500, 500];
    const server = await startMock(rpConfig(rp));
    await browserLogin(server, new Browser());
    server.endSession();
    await eventually(() => server.requests().filter((r) => r.endpoint === 'backchannel_logout').length === 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(rp.hits).toHaveLength(3);
    const jtis = rp.hits.map((h) => claimsOf(new URLSearchParams(h.body).get('logout_token')).jti);
    expect(new Set(jtis).size).toBe(3);
    const outcomes = server.requests().filter((r) => r.endpoint === 'backchannel_logout');
    expect(outcomes.at(-1)!.outcome).toMatch(/failed after 3 attempts/);
    expect(outcomes[0]!.error).toBe('delivery_failed');
    const page = await (await fetch(`${server.authUrl}/_mock/?refresh=off`)).text();
    expect(page).toContain('back-channel logout (admin) failed after 3 attempts');
  });

  it('never holds up the browser: a slow relying party does not delay the logout response', async () => {
    const rp = await startRelyingParty();
    rp.delayMs = 1500;
    const server = await startMock(rpConfig(rp));
    const browser = new Browser();
    const { tokens } = await browserLogin(server, browser);
    const started = Date.now();
    const res = await browser.request(`${server.authUrl}/logout?id_token_hint=${String(tokens.id_token)}`);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    await eventually(() => server.requests().some((r) => r.endpoint === 'backchannel_logout'), 4000);
  });

  it('ending many sessions at once delivers to a bounded number of connections at a time', async () => {
    let open = 0;
    let most = 0;
    let delivered = 0;
    const counting = createServer((_req, res) => {
      most = Math.max(most, ++open);
      setTimeout(() => {
        open--;
        delivered++;
        res.end();
      }, 50);
    });
    await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
    const port = (counting.address() as AddressInfo).port;
    const server = await startMock({ clients: [{ client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'], backchannel_logout_uri: `http://127.0.0.1:${port}/bc` }] });
    for (let i = 0; i < 40; i++) await browserLogin(server, new Browser());
    expect(server.endSession()).toBe(40);
    await eventually(() => delivered === 40, 10_000);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(16);
    await new Promise((resolve) => counting.close(resolve));
  }, 30_000);

  it('the admin API lists sessions and ends one or all, notifying each by back-channel; reset does too', async () => {
    const rp = await startRelyingParty();
    const server = await startMock(rpConfig(rp));
    const a = claimsOf((await browserLogin(server, new Browser())).tokens.id_token);
    const b = claimsOf((await browserLogin(server, new Browser())).tokens.id_token);
    const list = (await (await fetch(`${server.authUrl}/_mock/sessions`)).json()) as { sessions: { sid: string }[] };
    expect(list.sessions.map((s) => s.sid).sort()).toEqual([a.sid, b.sid].sort());
    expect((await fetch(`${server.authUrl}/_mock/sessions/nope`, { method: 'DELETE' })).status).toBe(404);
    const one = await fetch(`${server.authUrl}/_mock/sessions/${String(a.sid)}`, { method: 'DELETE' });
    expect(await one.json()).toEqual({ ended: 1 });
    await eventually(() => rp.hits.length === 1);
    expect(claimsOf(new URLSearchParams(rp.hits[0]!.body).get('logout_token')).sid).toBe(a.sid);
    const all = await fetch(`${server.authUrl}/_mock/sessions`, { method: 'DELETE' });
    expect(await all.json()).toEqual({ ended: 1 });
    await eventually(() => rp.hits.length === 2);
    await browserLogin(server, new Browser());
    server.reset();
    await eventually(() => rp.hits.length === 3);
    expect(server.sessions()).toEqual([]);
  });
});
