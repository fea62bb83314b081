import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { adminRequest, authorizeUrl, Browser, formFields, pkceRequest, postForm, REDIRECT_URI, startMock } from '../helpers.js';

type Mock = Awaited<ReturnType<typeof startMock>>;

async function page(server: Mock, query = ''): Promise<{ res: Response; html: string }> {
  const res = await fetch(`${server.authUrl}/_mock/${query}`);
  return { res, html: await res.text() };
}

/** The text of each step row of a flow's table: "# time request status outcome details" without the time. */
function steps(html: string, flow: number): string[] {
  const table = new RegExp(`<table id="flow-${flow}-steps">([\\s\\S]*?)</table>`).exec(html)?.[1] ?? '';
  return [...table.matchAll(/<tr[^>]*><td>\d+<\/td><td><time[^>]*>[^<]*<\/time><\/td><td>([^<]*)<\/td><td>(\d+)<\/td><td>([^<]*)<\/td>/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
}

/** Login and consent through the pages, then the code exchange: the whole flow a person goes through. */
async function browserFlow(server: Mock, overrides: Record<string, string> = {}): Promise<void> {
  const pkce = createPkcePair();
  const browser = new Browser();
  const login = await browser.request(authorizeUrl(server, pkceRequest(pkce, overrides)));
  const loginFields = formFields(await login.text());
  const signedIn = await browser.submit(`${server.issuer}/login`, { interaction: loginFields.interaction!, csrf_token: loginFields.csrf_token!, username: 'alice', password: 'wonderland' });
  const consent = await browser.request(new URL(signedIn.headers.get('location')!, server.issuer).href);
  const consentFields = formFields(await consent.text());
  const allowed = await browser.submit(`${server.issuer}/consent`, { interaction: consentFields.interaction!, csrf_token: consentFields.csrf_token!, decision: 'allow' });
  const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
  const tokens = await postForm(`${server.authUrl}/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: 'photo-cli', code_verifier: pkce.codeVerifier });
  expect(tokens.status).toBe(200);
}

describe('GET /_mock/: the recent flows page', () => {
  it('shows each authorization request with its login, consent, code and token request, in order', async () => {
    const server = await startMock();
    await browserFlow(server);
    const { res, html } = await page(server);
    expect(res.status).toBe(200);
    const flow = Number(/id="flow-(\d+)"/.exec(html)![1]);
    expect(steps(html, flow)).toEqual([
      'GET /authorize 200 login page',
      'POST /login 303 signed in',
      'GET /consent 200 consent page',
      'POST /consent 303 code issued',
      'POST /token 200 tokens issued',
    ]);
    expect(html).toContain(`<h2 id="flow-${flow}">Flow ${flow}: photo-cli, tokens issued</h2>`);
    expect(html).toMatch(/<dt>code_challenge_method<\/dt><dd>S256<\/dd>/);
    expect(html).toMatch(/<dt>state<\/dt><dd>state-123<\/dd>/);
    // The same sequence diagram as `oauthctl trace --html` draws (src/output/sequence-svg.ts), each arrow a link to its row.
    const names = [...html.matchAll(/<a href="#step-\d+" aria-label="([^"]*)"/g)].map((m) => m[1]);
    // client_id and redirect_uri first: what a person debugging a redirect compares.
    expect(names.find((n) => n?.startsWith('1. '))).toMatch(
      /^1\. user agent to authorization server: GET \/authorize \(response_type=code, client_id=photo-cli, redirect_uri=http:\/\/127\.0\.0\.1:\d+\/callback, scope=photo, state=state-123, code_challenge_method=S256\)$/,
    );
    expect(names).toContain('10. authorization server to client: response 200 tokens issued');
    expect(html).toContain(`aria-label="Sequence diagram of flow ${flow}"`);
  });

  it('lists flows newest first, and requests outside a flow apart', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { state: 'first' })), { redirect: 'manual' });
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { state: 'second' })), { redirect: 'manual' });
    await fetch(`${server.authUrl}/jwks`);
    const { html } = await page(server);
    expect(html.indexOf('<dd>second</dd>')).toBeLessThan(html.indexOf('<dd>first</dd>'));
    const others = /<table id="others-steps">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect(others).toContain('GET /jwks');
    expect(others).not.toContain('/authorize');
  });

  it('escapes everything a client sent: parameters, client ids, form values', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    const hostile = '<script>alert(1)</script>"\'&';
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { state: hostile, [`x<img src=x onerror=alert(2)>`]: hostile })), { redirect: 'manual' });
    await fetch(authorizeUrl(server, { client_id: '"><svg onload=alert(3)>', redirect_uri: REDIRECT_URI }), { redirect: 'manual' });
    await postForm(`${server.authUrl}/token`, { grant_type: '<b>bold</b>', client_id: 'photo-cli' });
    const { res, html } = await page(server);
    // The one <svg> is the flow's diagram and the one <script> the page's own (allowed by its hash); nothing a client sent became a tag.
    expect(html.match(/<script/gi)).toHaveLength(1);
    expect(html).not.toMatch(/<script>alert|<img|<svg[^>]*onload|<b>/i);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;');
    expect(html).toContain('&#34;&#62;&#60;svg onload=alert(3)&#62;');
    expect(html).toContain('grant_type=&#60;b&#62;bold&#60;/b&#62;');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    // Scripts: only the page's own, by its hash; no inline script of anyone else's, no other source.
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('updates itself by its events (a meta refresh without JavaScript), which ?refresh=off pauses', async () => {
    const server = await startMock();
    expect((await page(server)).html).toMatch(
      /<noscript><meta http-equiv="refresh" content="5"><\/noscript>[\s\S]*<a href="\/_mock\/\?refresh=off">Pause updates<\/a>[\s\S]*new EventSource\('\/_mock\/events'\)/,
    );
    const paused = (await page(server, '?refresh=off')).html;
    expect(paused).not.toMatch(/http-equiv="refresh"/);
    expect(paused).not.toMatch(/<script/);
    expect(paused).toMatch(/<a href="\/_mock\/">Resume updates<\/a>/);
    expect(paused).toMatch(/No authorization request yet/);
  });

  it('is cleared with the log, and absent when the admin API is off', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair())), { redirect: 'manual' });
    expect((await page(server)).html).toMatch(/id="flow-\d+"/);
    await adminRequest(server, 'requests', undefined, { method: 'DELETE' });
    expect((await page(server)).html).not.toMatch(/id="flow-\d+"/);
    const closed = await startMock(undefined, { admin: false });
    expect((await fetch(`${closed.authUrl}/_mock/`)).status).toBe(404);
  });
});

describe('GET /_mock', () => {
  it('goes to the flows page', async () => {
    const server = await startMock();
    const res = await fetch(`${server.authUrl}/_mock`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/_mock/');
  });
});

describe('GET /_mock/: numbering', () => {
  it('flows are numbered 1, 2, ... in the order they started, and every table numbers its rows in the order they came', async () => {
    const server = await startMock(undefined, { autoLogin: 'alice' });
    await fetch(`${server.authUrl}/jwks`);
    await fetch(`${server.authUrl}/.well-known/oauth-authorization-server`);
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { state: 'first' })), { redirect: 'manual' });
    await fetch(`${server.authUrl}/jwks`);
    await fetch(authorizeUrl(server, pkceRequest(createPkcePair(), { state: 'second' })), { redirect: 'manual' });
    const { html } = await page(server);
    expect([...html.matchAll(/<h2 id="flow-(\d+)">Flow (\d+):/g)].map((m) => [m[1], m[2]])).toEqual([
      ['2', '2'],
      ['1', '1'],
    ]);
    expect(html).toContain('<caption>Steps of flow 2</caption>');
    const others = /<table id="others-steps">([\s\S]*?)<\/table>/.exec(html)![1]!;
    // Newest first, numbered in the order they came: 3 (the second /jwks), then 2, then 1.
    expect([...others.matchAll(/<tr[^>]*><td>(\d+)<\/td>/g)].map((m) => m[1])).toEqual(['3', '2', '1']);
  });
});
