import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { startOidcProvider, type OidcProviderServer } from '../audit/helpers/oidc-provider.js';
import { oauthErrorOnPage } from '../../src/agent/headless/page-errors.js';
import { memoryIO } from './helpers/io.js';

/**
 * What the headless agent says when a login fails, against real servers' pages: panva/oidc-provider's
 * own error pages, and a small server-rendered site shaped like a Django login (a CSRF cookie and
 * field, an `errorlist` under the form, a debug-style error page with a <style> block first).
 */
let op: OidcProviderServer;
let site: Server;
let siteUrl: string;

const STYLE = '<style>body { padding-top: 40px; } .errorlist { color: red }</style><script>var t = "do not quote me"</script>';
const loginForm = (error: string) => `<!doctype html><html><head><title>Log in | Site</title>${STYLE}</head><body>
  <noscript>Please enable JavaScript</noscript><template><div class="error">template text</div></template>
  ${error}
  <form method="post" action="/accounts/login/">
    <input type="hidden" name="csrfmiddlewaretoken" value="tok">
    <label for="id_username">Username:</label><input type="text" name="username" id="id_username">
    <label for="id_password">Password:</label><input type="password" name="password" id="id_password">
    <input type="submit" value="Log in">
  </form></body></html>`;

function djangoLike(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const html = (status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  if (url.pathname === '/o/authorize/') {
    const clientId = url.searchParams.get('client_id');
    if (clientId === 'evil') return html(400, `<html><head>${STYLE}</head><body><h1>Error:\x1b[2J\x1b]52;c;AAAA\x07 access_denied</h1><p>${'x'.repeat(5000)}</p></body></html>`);
    if (clientId !== 'app') return html(400, `<html><head>${STYLE}</head><body><h2>Error: invalid_client</h2><p>Invalid client_id parameter value.</p></body></html>`);
    if (!url.searchParams.get('redirect_uri')?.endsWith('/callback')) {
      return html(400, `<html><head>${STYLE}</head><body><h2>Error: invalid_request</h2><p>Mismatching redirect URI.</p></body></html>`);
    }
    res.writeHead(302, { location: `/accounts/login/?next=${encodeURIComponent(url.pathname + url.search)}` });
    return void res.end();
  }
  if (url.pathname === '/accounts/login/' && req.method === 'GET') return html(200, loginForm(''), { 'set-cookie': 'csrftoken=tok; Path=/; SameSite=Lax' });
  if (url.pathname === '/accounts/login/' && req.method === 'POST') {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      // Django's CSRF check: the cookie must come back with the form's token.
      if (!/(^|; )csrftoken=tok(;|$)/.test(req.headers.cookie ?? '')) return html(403, '<h1>Forbidden (403)</h1><p>CSRF verification failed. Request aborted.</p>');
      html(200, loginForm('<ul class="errorlist nonfield"><li>Please enter a correct username and password. Note that both fields may be case-sensitive.</li></ul>'));
    });
    return;
  }
  html(404, '<h1>Not Found</h1>');
}

beforeAll(async () => {
  op = await startOidcProvider({ accounts: ['bob'] });
  site = createServer(djangoLike);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await op.close();
  site.closeAllConnections();
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

async function login(args: string[]): Promise<{ code: number; line: string }> {
  const io = memoryIO();
  const code = await run(['login', '--headless', '--password', 'wrong-password', '--timeout', '15', '-q', ...args], io);
  return { code, line: io.err().trim() };
}

describe('headless login failures on oidc-provider 9 pages', () => {
  const provider = (...args: string[]) => login(['--issuer', op.issuer, '--scope', 'openid', '--username', 'bob', ...args]);

  it('an unregistered redirect URI: names invalid_redirect_uri, quotes the page, says what to check', async () => {
    const { code, line } = await provider('--client-id', 'native-cli', '--redirect-uri', 'http://127.0.0.1/elsewhere');
    expect(code).toBe(1);
    expect(line).toMatch(
      /the server answered HTTP 400 with invalid_redirect_uri: "oops! something went wrong error: invalid_redirect_uri error_description: redirect_uri did not match any of the client's registered redirect_uris/,
    );
    expect(line).toMatch(/check that http:\/\/127\.0\.0\.1:\d+\/elsewhere is one of the client's registered redirect URIs, exactly \(scheme, host, port and path\)/);
    expect(line).not.toContain('padding');
    expect(line).not.toContain('code_challenge=');
  });

  it('an unknown client: names invalid_client and says to check --client-id', async () => {
    const { code, line } = await provider('--client-id', 'nobody');
    expect(code).toBe(1);
    expect(line).toMatch(/HTTP 400 with invalid_client: "oops! something went wrong error: invalid_client error_description: client is invalid/);
    expect(line).toContain('check --client-id "nobody"');
  });

  it('an account that does not exist: oidc-provider answers its server_error page, quoted with its code', async () => {
    const { code, line } = await provider('--client-id', 'native-cli', '--username', 'eve');
    expect(code).toBe(1);
    expect(line).toMatch(/HTTP 500 with server_error: "oops! something went wrong error: server_error/);
    expect(line).toContain('server_error means the authorization server hit an unexpected condition');
  });
});

describe('headless login failures on a server-rendered site (Django-like)', () => {
  const django = (...args: string[]) => login(['--authorization-endpoint', `${siteUrl}/o/authorize/`, '--token-endpoint', `${siteUrl}/o/token/`, '--username', 'alice', ...args]);

  it("a wrong password quotes the form's error list (the CSRF cookie went back, so the form was judged)", async () => {
    const { code, line } = await django('--client-id', 'app');
    expect(code).toBe(1);
    expect(line).toMatch(
      /^oauthctl: error: login failed at http:\/\/127\.0\.0\.1:\d+\/accounts\/login\/: the server said "Please enter a correct username and password\. Note that both fields may be case-sensitive\." \(check the username and password/,
    );
    expect(line).not.toMatch(/template text|enable JavaScript|do not quote/);
  });

  it('an error page is quoted by its visible words, never its <style> or <script>, and an OAuth error in it is named', async () => {
    const { line } = await django('--client-id', 'unknown');
    expect(line).toContain('HTTP 400 with invalid_client: "Error: invalid_client Invalid client_id parameter value."');
    expect(line).toContain('check --client-id "unknown"');
    const mismatch = await django('--client-id', 'app', '--redirect-uri', 'http://127.0.0.1/wrong');
    expect(mismatch.line).toContain('HTTP 400 with invalid_request: "Error: invalid_request Mismatching redirect URI."');
    expect(mismatch.line).toContain("is one of the client's registered redirect URIs");
  });

  it('a hostile error page: escape sequences shown escaped, the quote capped', async () => {
    const { line } = await django('--client-id', 'evil');
    expect(line).not.toMatch(/[\x1b\x07]/);
    expect(line).toContain('\\x1b[2J');
    expect(line).toContain('xxx...');
    expect(line.length).toBeLessThan(700);
  });
});

describe('reading an OAuth error out of an error page', () => {
  it.each([
    ["oops! something went wrong error: invalid_redirect_uri error_description: redirect_uri did not match any of the client's registered redirect_uris", 'invalid_redirect_uri', 'redirect-uri'],
    ['Error 400: redirect_uri_mismatch. The redirect URI in the request does not match the ones authorized', 'redirect_uri_mismatch', 'redirect-uri'],
    ["The authorization request is not valid: redirect_uri 'http://127.0.0.1:4242/elsewhere' is not registered for client 'photo-cli'.", undefined, 'redirect-uri'],
    ['We are sorry... Invalid parameter: redirect_uri', undefined, 'redirect-uri'],
    ['Callback URL mismatch. The provided redirect_uri is not in the list of allowed callback URLs.', undefined, 'redirect-uri'],
    ["The authorization request is not valid: client_id 'nobody' is not a registered client.", undefined, 'client'],
    ['We are sorry... Client not found.', undefined, 'client'],
    ['Error: invalid_client Invalid client_id parameter value.', 'invalid_client', 'client'],
    ['Error: invalid_scope the scope is not allowed', 'invalid_scope', undefined],
    ['Something broke, and snake_case_words are not codes', undefined, undefined],
  ])('%s', (text, error, check) => {
    expect(oauthErrorOnPage(text)).toEqual({ ...(error ? { error } : {}), ...(check ? { check } : {}) });
  });
});
