import { describe, expect, it } from 'vitest';
import type { MockConfigInput, MockServerOptions } from '../../src/mock/index.js';
import { createPkcePair } from '../../src/oauth/pkce.js';
import { authorizeUrl, Browser, formFields, pkceRequest, startMock } from './helpers.js';

const pkce = createPkcePair();

async function openLogin(server: Awaited<ReturnType<typeof startMock>>, browser: Browser, overrides: Record<string, string | undefined> = {}) {
  const res = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'photo offline_access', ...overrides })));
  expect(res.status).toBe(200);
  const html = await res.text();
  return { res, html, fields: formFields(html) };
}

describe('login page', () => {
  it('is plain accessible HTML with strict security headers and an HttpOnly SameSite=Lax session cookie', async () => {
    const server = await startMock();
    const { res, html, fields } = await openLogin(server, new Browser());
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/form-action 'self' http:\/\/127\.0\.0\.1:53682/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const cookie = res.headers.getSetCookie()[0] ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(html).not.toMatch(/<script/i);
    expect(html).toMatch(/<label for="username">Account name<\/label>/);
    expect(html).toMatch(/autocomplete="username"/);
    expect(html).toMatch(/<label for="password">Password<\/label>/);
    expect(html).toMatch(/autocomplete="current-password"/);
    expect(html).toMatch(/Photo CLI/);
    expect(fields.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fields.interaction).toBeTruthy();
    const css = await fetch(`${server.issuer}/assets/mock.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toMatch(/focus-visible/);
  });

  it('one message for a wrong password and an unknown account (no enumeration)', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { fields } = await openLogin(server, browser);
    const wrong = await browser.submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'nope' });
    const unknown = await browser.submit(`${server.issuer}/login`, { ...fields, username: 'mallory', password: 'nope' });
    const [a, b] = [await wrong.text(), await unknown.text()];
    expect(wrong.status).toBe(unknown.status);
    expect(a).toMatch(/Incorrect account name or password\./);
    expect(b).toMatch(/Incorrect account name or password\./);
    expect(a).toMatch(/role="alert"/);
  });

  it('refuses a form without the session CSRF token', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { fields } = await openLogin(server, browser);
    const res = await browser.submit(`${server.issuer}/login`, { ...fields, csrf_token: 'forged', username: 'alice', password: 'wonderland' });
    expect(res.status).toBe(403);
    const stranger = await new Browser().submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'wonderland' });
    expect(stranger.status).toBe(403);
  });
});

describe('consent page and the whole interactive flow', () => {
  it('login -> consent (client and scopes named) -> Allow -> code, state and iss; the session id changes at login', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { res: first, fields } = await openLogin(server, browser);
    const anonymousCookie = first.headers.getSetCookie()[0];
    const login = await browser.submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'wonderland' });
    expect(login.status).toBe(303);
    expect(login.headers.getSetCookie()[0]).not.toBe(anonymousCookie);
    const consent = await browser.request(new URL(login.headers.get('location')!, server.issuer).href);
    const html = await consent.text();
    expect(html).toMatch(/Photo CLI/);
    expect(html).toMatch(/photo-cli/);
    expect(html).toMatch(/offline_access/);
    expect(html).toMatch(/value="allow">Allow/);
    expect(html).toMatch(/value="deny"[^>]*>Deny/);
    const allow = await browser.submit(`${server.issuer}/consent`, { ...formFields(html), decision: 'allow' });
    expect(allow.status).toBe(303);
    const redirect = new URL(allow.headers.get('location')!);
    expect(redirect.origin + redirect.pathname).toBe('http://127.0.0.1:53682/callback');
    expect(redirect.searchParams.get('code')).toBeTruthy();
    expect(redirect.searchParams.get('state')).toBe('state-123');
    expect(redirect.searchParams.get('iss')).toBe(server.issuer);

    // Signed in and consented: the next request goes straight to the code.
    const again = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'photo', state: 'two' })));
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('state')).toBe('two');
    // prompt=consent asks again; prompt=login shows the login page again.
    expect((await browser.request(authorizeUrl(server, pkceRequest(pkce, { prompt: 'consent' })))).status).toBe(200);
    expect(await (await browser.request(authorizeUrl(server, pkceRequest(pkce, { prompt: 'login' })))).text()).toMatch(/Sign in/);
  });

  it('two mocks on one host keep their own sessions (a browser keeps cookies by host, not port)', async () => {
    const [one, two] = [await startMock(), await startMock()];
    // Browser keeps cookies by name only, as a browser does for two ports of one host.
    const browser = new Browser();
    for (const server of [one, two]) {
      const { res, fields } = await openLogin(server, browser);
      expect(res.headers.getSetCookie()[0]).toMatch(new RegExp(`^oauthctl_mock_session_${server.port}=`));
      const login = await browser.submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'wonderland' });
      expect(login.status).toBe(303);
    }
    // Signed in at both: each goes on to its consent page, neither asks for the password again.
    for (const server of [one, two]) {
      const again = await browser.request(authorizeUrl(server, pkceRequest(pkce, { scope: 'photo' })));
      expect(await again.text()).toMatch(/Allow access/);
    }
  });

  it('Deny redirects with access_denied and the state', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { fields } = await openLogin(server, browser);
    const login = await browser.submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'wonderland' });
    const html = await (await browser.request(new URL(login.headers.get('location')!, server.issuer).href)).text();
    const deny = await browser.submit(`${server.issuer}/consent`, { ...formFields(html), decision: 'deny' });
    const q = new URL(deny.headers.get('location')!).searchParams;
    expect(q.get('error')).toBe('access_denied');
    expect(q.get('state')).toBe('state-123');
    expect(q.get('iss')).toBe(server.issuer);
    expect(q.has('code')).toBe(false);
  });

  it('--no-consent and per-client consent: false go from login straight to the code', async () => {
    const cases: [MockConfigInput | undefined, MockServerOptions][] = [
      [undefined, { consent: false }],
      [{ clients: [{ client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'], consent: false }] }, {}],
    ];
    for (const [config, options] of cases) {
      const server = await startMock(config, options);
      const browser = new Browser();
      const { fields } = await openLogin(server, browser);
      const login = await browser.submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'wonderland' });
      expect(login.status).toBe(303);
      expect(new URL(login.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    }
  });

  it('prompt=none with a session but no consent is consent_required', async () => {
    const server = await startMock();
    const browser = new Browser();
    const { fields } = await openLogin(server, browser);
    await browser.submit(`${server.issuer}/login`, { ...fields, username: 'alice', password: 'wonderland' });
    const res = await browser.request(authorizeUrl(server, pkceRequest(pkce, { prompt: 'none' })));
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('consent_required');
  });

  it('an interaction cannot be used from another session', async () => {
    const server = await startMock();
    const victim = new Browser();
    const { fields } = await openLogin(server, victim);
    const attacker = new Browser();
    const own = await openLogin(server, attacker);
    const res = await attacker.submit(`${server.issuer}/login`, { ...own.fields, interaction: fields.interaction!, username: 'alice', password: 'wonderland' });
    expect(res.status).toBe(400);
  });
});
