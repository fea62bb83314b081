import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { authorizeUrl, Browser, formFields, pkceRequest, postForm, startMock } from '../helpers.js';
import { browserLogin, claimsOf, eventually, startRelyingParty, verifiedLogoutToken, type RelyingParty } from './helpers.js';

/** A mock whose photo-cli has a back-channel logout URI at the relying party `rp`. */
function rpConfig(rp: RelyingParty) {
  return { clients: [{ client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'], backchannel_logout_uri: `${rp.url}/backchannel` }] };
}

const deliveries = (server: MockServer) => server.requests().filter((r) => r.endpoint === 'backchannel_logout');

describe('a session that expires ends like the others', () => {
  it('the login page session (an hour): its client gets a logout token with the sid of its ID token, in the log and on the flows page', async () => {
    const rp = await startRelyingParty();
    const server = await startMock(rpConfig(rp));
    const { tokens } = await browserLogin(server, new Browser(), { nonce: 'n-1' });
    const idToken = claimsOf(tokens.id_token);
    server.clock.advance(3590);
    await new Promise((r) => setTimeout(r, 1100));
    expect(rp.hits).toHaveLength(0);
    expect(server.sessions()).toHaveLength(1);
    server.clock.advance(10);
    await eventually(() => rp.hits.length === 1);
    expect(rp.hits[0]).toMatchObject({ method: 'POST', url: '/backchannel' });
    const payload = await verifiedLogoutToken(server, rp);
    expect(payload).toMatchObject({ sub: 'alice', sid: idToken.sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
    expect(payload).not.toHaveProperty('nonce');
    expect(server.sessions()).toEqual([]);
    await eventually(() => deliveries(server).length === 1);
    expect(deliveries(server)[0]).toMatchObject({ status: 200, client_id: 'photo-cli', path: `${rp.url}/backchannel`, outcome: 'back-channel logout (expiry) delivered, attempt 1' });
    const page = await (await fetch(`${server.authUrl}/_mock/?refresh=off`)).text();
    expect(page).toContain('back-channel logout (expiry) delivered');
    await new Promise((r) => setTimeout(r, 1100));
    expect(rp.hits).toHaveLength(1);
  });

  it('the auto-login session (a day): told once, retried when not answered 200; the next request signs in a new session', async () => {
    const rp = await startRelyingParty();
    rp.answers = [503];
    const server = await startMock(rpConfig(rp), { autoLogin: 'alice' });
    const first = claimsOf((await browserLogin(server, new Browser())).tokens.id_token);
    server.clock.advance(24 * 3600 + 1);
    await eventually(() => rp.hits.length === 2);
    const payload = await verifiedLogoutToken(server, rp, 1);
    expect(payload.sid).toBe(first.sid);
    expect(deliveries(server).map((r) => r.outcome)).toEqual(['back-channel logout (expiry) not delivered, will retry, attempt 1', 'back-channel logout (expiry) delivered, attempt 2']);
    const second = claimsOf((await browserLogin(server, new Browser())).tokens.id_token);
    expect(second.sid).not.toBe(first.sid);
    expect(server.sessions().map((s) => s.sid)).toEqual([second.sid]);
  });

  it('ending every session just after one expired (before the sweep found it) tells its client it expired, not that the admin ended it', async () => {
    const rp = await startRelyingParty();
    const server = await startMock(rpConfig(rp));
    await browserLogin(server, new Browser());
    await new Promise((r) => setTimeout(r, 1100));
    server.clock.advance(3600);
    expect(server.endSession()).toBe(0);
    await eventually(() => deliveries(server).length === 1);
    expect(deliveries(server).map((r) => r.outcome)).toEqual(['back-channel logout (expiry) delivered, attempt 1']);
    expect(rp.hits).toHaveLength(1);
  });

  it('a refresh token with offline_access outlives the expired session; without offline_access none is issued (OpenID Connect Core 11)', async () => {
    const rp = await startRelyingParty();
    const server = await startMock(rpConfig(rp));
    const offline = (await browserLogin(server, new Browser(), { scope: 'openid photo offline_access' })).tokens;
    const online = (await browserLogin(server, new Browser())).tokens;
    expect(online).not.toHaveProperty('refresh_token');
    server.clock.advance(3601);
    await eventually(() => rp.hits.length === 2);
    const { status } = await postForm(`${server.authUrl}/token`, { grant_type: 'refresh_token', refresh_token: String(offline.refresh_token), client_id: 'photo-cli' });
    expect(status).toBe(200);
  });
});

describe('another user signing in at the same browser ends the previous session', () => {
  it("the first user's clients get a logout token for its sid; the new user keeps none of its consents", async () => {
    const rp = await startRelyingParty();
    const server = await startMock({
      ...rpConfig(rp),
      users: [
        { username: 'alice', password: 'wonderland' },
        { username: 'bob', password: 'builder' },
      ],
    });
    const browser = new Browser();
    const alice = claimsOf((await browserLogin(server, browser)).tokens.id_token);
    // prompt=login at the same browser, and bob signs in: alice's session ends, bob's starts.
    const pkce = createPkcePair();
    const page = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'openid photo', prompt: 'login' })));
    const fields = formFields(await page.text());
    const afterLogin = await browser.submit(`${server.authUrl}/login`, { interaction: fields.interaction!, csrf_token: fields.csrf_token!, username: 'bob', password: 'builder' });
    // Bob has not consented: alice's consent for photo-cli is not his.
    expect(afterLogin.status).toBe(303);
    expect(afterLogin.headers.get('location')).toMatch(/^consent/);
    await eventually(() => rp.hits.length === 1);
    const payload = await verifiedLogoutToken(server, rp);
    expect(payload).toMatchObject({ sub: 'alice', sid: alice.sid });
    await eventually(() => deliveries(server).length === 1);
    expect(deliveries(server)[0]!.outcome).toBe('back-channel logout (another sign-in) delivered, attempt 1');
    expect(server.sessions().map((s) => s.sub)).toEqual(['bob']);
  });

  it('the same user signing in again (prompt=login) keeps the session: no logout token', async () => {
    const rp = await startRelyingParty();
    const server = await startMock(rpConfig(rp));
    const browser = new Browser();
    const first = claimsOf((await browserLogin(server, browser)).tokens.id_token);
    const again = claimsOf((await browserLogin(server, browser, { prompt: 'login' })).tokens.id_token);
    expect(again.sid).toBe(first.sid);
    await new Promise((r) => setTimeout(r, 300));
    expect(rp.hits).toHaveLength(0);
  });
});
