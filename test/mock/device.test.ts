import { describe, expect, it } from 'vitest';
import { DEVICE_CODE_GRANT, USER_CODE_ALPHABET } from '../../src/oauth/grant-types.js';
import { WRONG_USER_CODES_PER_DEVICE_CODE, WRONG_USER_CODES_PER_MINUTE } from '../../src/mock/core/device/user-code-guesses.js';
import { basic, Browser, formFields, postForm, startMock } from './helpers.js';

/** A clock the test moves: polls and expiry without sleeping. */
function clock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => t, advance: (seconds: number) => void (t += seconds * 1000) };
}

async function authorizeDevice(authUrl: string, form: Record<string, string> = { client_id: 'photo-cli', scope: 'photo offline_access openid' }, headers: Record<string, string> = {}) {
  return postForm(`${authUrl}/device_authorization`, form, headers);
}

function poll(authUrl: string, deviceCode: string, clientId = 'photo-cli') {
  return postForm(`${authUrl}/token`, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id: clientId });
}

/** Walks the verification page as a user: confirm the code, sign in, answer the consent page. */
async function approve(authUrl: string, verificationUriComplete: string, decision: 'allow' | 'deny' = 'allow'): Promise<string> {
  const browser = new Browser();
  const confirm = await browser.request(verificationUriComplete);
  expect(confirm.status).toBe(200);
  const confirmFields = formFields(await confirm.text());
  const afterConfirm = await browser.submit(`${authUrl}/device`, { ...confirmFields, decision: 'allow' });
  const login = await afterConfirm.text();
  const loginFields = formFields(login);
  const signedIn = await browser.submit(`${authUrl}/login`, { ...loginFields, username: 'alice', password: 'wonderland' });
  expect(signedIn.status).toBe(303);
  const consent = await browser.request(new URL(signedIn.headers.get('location')!, authUrl).href);
  const done = await browser.submit(`${authUrl}/consent`, { ...formFields(await consent.text()), decision });
  return done.text();
}

describe('device authorization endpoint (RFC 8628 section 3.1)', () => {
  it('answers a device code, an 8-letter user code as XXXX-XXXX, the verification URIs, lifetime and interval', async () => {
    const server = await startMock({ device_code_lifetime: 120, device_interval: 2 });
    const { status, body, headers } = await authorizeDevice(server.authUrl);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.user_code).toMatch(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));
    expect(body.verification_uri).toBe(`${server.authUrl}/device`);
    expect(body.verification_uri_complete).toBe(`${server.authUrl}/device?user_code=${String(body.user_code)}`);
    expect(body).toMatchObject({ expires_in: 120, interval: 2 });
    expect(String(body.device_code).length).toBeGreaterThanOrEqual(43);
  });

  it('authenticates a confidential client as the token endpoint does, and refuses a client without the grant', async () => {
    const server = await startMock();
    expect((await authorizeDevice(server.authUrl, { scope: 'photo' }, { authorization: basic('photo-web', 'photo-web-secret') })).status).toBe(200);
    const wrong = await authorizeDevice(server.authUrl, { scope: 'photo' }, { authorization: basic('photo-web', 'nope') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const service = await authorizeDevice(server.authUrl, { scope: 'photo' }, { authorization: basic('photo-service', 'photo-service-secret') });
    expect(service.body.error).toBe('unauthorized_client');
    const scope = await authorizeDevice(server.authUrl, { client_id: 'photo-cli', scope: 'photo admin' });
    expect(scope.body.error).toBe('invalid_scope');
  });
});

describe('device flow: verification page and polling (RFC 8628 sections 3.3 to 3.5)', () => {
  it('pending, then slow_down for a fast poll (interval + 5 s), then tokens once; a second redemption is refused', async () => {
    const c = clock();
    const server = await startMock({ device_interval: 5 }, { now: c.now });
    const { body } = await authorizeDevice(server.authUrl);
    const deviceCode = String(body.device_code);
    expect((await poll(server.authUrl, deviceCode)).body.error).toBe('authorization_pending');
    c.advance(2);
    const fast = await poll(server.authUrl, deviceCode);
    expect(fast.status).toBe(400);
    expect(fast.body.error).toBe('slow_down');
    expect(fast.body.error_description).toMatch(/wait 10 s/);
    c.advance(6); // 6 s is enough for the old interval of 5, not for the new 10
    expect((await poll(server.authUrl, deviceCode)).body.error).toBe('slow_down');
    const page = await approve(server.authUrl, String(body.verification_uri_complete));
    expect(page).toMatch(/Device connected/);
    c.advance(16);
    const tokens = await poll(server.authUrl, deviceCode);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'photo offline_access openid' });
    expect(typeof tokens.body.refresh_token).toBe('string');
    expect(typeof tokens.body.id_token).toBe('string');
    c.advance(16);
    const again = await poll(server.authUrl, deviceCode);
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
    expect(String(again.body.error_description)).toMatch(/already used/);
  });

  it('access_denied after the user cancels or denies', async () => {
    const server = await startMock({ device_interval: 1 });
    const { body } = await authorizeDevice(server.authUrl);
    expect(await approve(server.authUrl, String(body.verification_uri_complete), 'deny')).toMatch(/Access denied/);
    expect((await poll(server.authUrl, String(body.device_code))).body.error).toBe('access_denied');

    const second = (await authorizeDevice(server.authUrl)).body;
    const browser = new Browser();
    const fields = formFields(await (await browser.request(String(second.verification_uri_complete))).text());
    const cancelled = await browser.submit(`${server.authUrl}/device`, { ...fields, decision: 'deny' });
    expect(await cancelled.text()).toMatch(/Access denied/);
    expect((await poll(server.authUrl, String(second.device_code))).body.error).toBe('access_denied');
  });

  it('expired_token once the device code has expired; the user code is refused then', async () => {
    const c = clock();
    const server = await startMock({ device_code_lifetime: 60 }, { now: c.now });
    const { body } = await authorizeDevice(server.authUrl);
    c.advance(61);
    expect((await poll(server.authUrl, String(body.device_code))).body.error).toBe('expired_token');
    const page = await fetch(String(body.verification_uri_complete));
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/This code has expired/);
  });

  it('limits wrong user codes per browser (RFC 8628 section 5.1): past the limit a minute, that browser waits (429, Retry-After), right code or not; others do not', async () => {
    const c = clock();
    const server = await startMock({ device_code_lifetime: 600 }, { now: c.now });
    const { body } = await authorizeDevice(server.authUrl);
    // The guesser types codes into the form, with its session cookie.
    const guesser = new Browser();
    expect((await guesser.request(`${server.authUrl}/device`)).status).toBe(200);
    const guess = (code: string) => guesser.request(`${server.authUrl}/device?user_code=${code}`);
    // A user who opened the confirmation page before the guesses began.
    const user = new Browser();
    const confirmFields = formFields(await (await user.request(String(body.verification_uri_complete))).text());
    for (let i = 0; i < WRONG_USER_CODES_PER_MINUTE; i++) expect((await guess(`BBBB-BBB${USER_CODE_ALPHABET[i % USER_CODE_ALPHABET.length]}`)).status).toBe(400);
    c.advance(20);
    const blocked = await guess(String(body.user_code));
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('40');
    expect(await blocked.text()).toMatch(/Too many wrong codes were typed here\. Wait 40 s/);
    // Ten wrong guesses by someone else lock nobody else out: the user's confirmation goes on.
    expect((await fetch(String(body.verification_uri_complete))).status).toBe(200);
    const posted = await user.submit(`${server.authUrl}/device`, { ...confirmFields, decision: 'allow' });
    expect(posted.status).not.toBe(429);
    c.advance(41);
    const again = await guess(String(body.user_code));
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(String(body.user_code));
  });

  it('a device code sees at most WRONG_USER_CODES_PER_DEVICE_CODE wrong guesses by anyone, cookies or not; then it ends (expired_token)', async () => {
    const server = await startMock({ device_code_lifetime: 600, device_interval: 1 });
    const { body } = await authorizeDevice(server.authUrl);
    for (let i = 0; i <= WRONG_USER_CODES_PER_DEVICE_CODE; i++) {
      const code = `BBBB${[0, 1, 2, 3].map((d) => USER_CODE_ALPHABET[Math.floor(i / USER_CODE_ALPHABET.length ** d) % USER_CODE_ALPHABET.length]).join('')}`;
      expect((await fetch(`${server.authUrl}/device?user_code=${code}`)).status).toBe(400);
    }
    const right = await fetch(String(body.verification_uri_complete));
    expect(right.status).toBe(400);
    expect(await right.text()).toMatch(/This code has expired/);
    expect((await poll(server.authUrl, String(body.device_code))).body.error).toBe('expired_token');
    // A device code issued after the guesses has its own share.
    const fresh = (await authorizeDevice(server.authUrl)).body;
    expect((await fetch(String(fresh.verification_uri_complete))).status).toBe(200);
  });

  it('matches the user code without case or dash; a wrong, used or forged code gets a clear page, never the login', async () => {
    const server = await startMock({ device_interval: 1 });
    const { body } = await authorizeDevice(server.authUrl);
    const code = String(body.user_code);
    const typed = await fetch(`${server.authUrl}/device?user_code=${encodeURIComponent(` ${code.replace('-', '').toLowerCase()} `)}`);
    expect(typed.status).toBe(200);
    expect(await typed.text()).toContain(code);
    const wrong = await fetch(`${server.authUrl}/device?user_code=BBBB-BBBB`);
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toMatch(/no sign-in waiting for this code/);
    const hostile = await fetch(`${server.authUrl}/device?user_code=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(await hostile.text()).not.toContain('<script>alert');
    await approve(server.authUrl, String(body.verification_uri_complete));
    const used = await fetch(String(body.verification_uri_complete));
    expect(used.status).toBe(400);
    expect(await used.text()).toMatch(/already been used/);
  });

  it('refuses a confirmation without the session CSRF token, and a device code of another client', async () => {
    const server = await startMock({ device_interval: 1 });
    const { body } = await authorizeDevice(server.authUrl);
    const browser = new Browser();
    const fields = formFields(await (await browser.request(String(body.verification_uri_complete))).text());
    const forged = await browser.submit(`${server.authUrl}/device`, { ...fields, csrf_token: 'forged', decision: 'allow' });
    expect(forged.status).toBe(403);
    const other = await postForm(`${server.authUrl}/token`, { grant_type: DEVICE_CODE_GRANT, device_code: String(body.device_code) }, { authorization: basic('photo-web', 'photo-web-secret') });
    expect(other.body.error).toBe('invalid_grant');
  });

  it('with --auto-login the device is approved as soon as its verification page is visited, not before', async () => {
    const server = await startMock({}, { autoLogin: 'alice' });
    const { body } = await authorizeDevice(server.authUrl, { client_id: 'photo-cli', scope: 'photo' });
    expect((await poll(server.authUrl, String(body.device_code))).body.error).toBe('authorization_pending');
    const visit = await fetch(String(body.verification_uri_complete));
    expect(visit.status).toBe(200);
    expect(await visit.text()).toMatch(/Device connected/);
    server.clock.advance(Number(body.interval));
    const tokens = await poll(server.authUrl, String(body.device_code));
    expect(tokens.status).toBe(200);
  });

  it('a full device-code store refuses a new device authorization (503) and keeps the pending ones', async () => {
    const server = await startMock({}, { autoLogin: 'alice', limits: { deviceCodes: 2 } });
    const kept = await Promise.all([1, 2].map(() => authorizeDevice(server.authUrl, { client_id: 'photo-cli', scope: 'photo' })));
    expect(kept.map((r) => r.status)).toEqual([200, 200]);
    const full = await authorizeDevice(server.authUrl, { client_id: 'photo-cli', scope: 'photo' });
    expect(full).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const { body } of kept) {
      await fetch(String(body.verification_uri_complete));
      expect((await poll(server.authUrl, String(body.device_code))).status).toBe(200);
    }
  });

  it('shows the form to type the code into without one', async () => {
    const server = await startMock();
    const page = await fetch(`${server.authUrl}/device`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<input id="user_code" name="user_code"/);
  });
});
