import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { homeEnv, runCli } from '../../helpers/cli.js';

/**
 * An Entra-like sign-in page on loopback: the password field is `passwd`, the password 3 characters,
 * and the server echoes it back in a query, a header, a page's attribute and a JSON body. The --trace
 * file of a headless login holds it nowhere.
 */
const PASSWORD = 'q!7';

let server: Server;
let base: string;
let home: string;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-trace-pw-'));
  let pending: { redirect: string; state: string } | undefined;
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (url.pathname === '/authorize') {
        pending = { redirect: url.searchParams.get('redirect_uri') ?? '', state: url.searchParams.get('state') ?? '' };
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<form method="post" action="/login"><input name="loginfmt" autocomplete="username"><input type="password" name="passwd"><button type="submit">Sign in</button></form>');
      } else if (url.pathname === '/login') {
        const typed = new URLSearchParams(body).get('passwd') ?? '';
        res
          .writeHead(302, { location: `/kmsi?passwd=${encodeURIComponent(typed)}&flowToken=abc`, 'x-echo': typed, 'content-type': 'text/html' })
          .end(`<input type="hidden" name="passwd" value="${typed.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`);
      } else if (url.pathname === '/kmsi') {
        res
          .writeHead(302, { location: `${pending!.redirect}?code=the-code&state=${encodeURIComponent(pending!.state)}`, 'content-type': 'application/json' })
          .end(JSON.stringify({ user: { passwd: url.searchParams.get('passwd') } }));
      } else if (url.pathname === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'at-1', token_type: 'Bearer', expires_in: 60 }));
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

it('login --headless --trace: a 3-character password under passwd is in the file nowhere', async () => {
  const file = join(home, 'login.har');
  const r = await runCli(
    ['login', '--auth-url', base, '--client-id', 'app', '--scope', 'openid', '--headless', '--username', 'alice', '--password', PASSWORD, '--no-cache', '--timeout', '20', '--trace', file],
    {
      env: homeEnv(home),
    },
  );
  expect(r.stderr).not.toContain(PASSWORD);
  expect(r.code).toBe(0);
  const text = readFileSync(file, 'utf8');
  const har = JSON.parse(text) as { log: { entries: { request: { url: string; postData?: { text: string } } }[] } };
  // The login form was posted and its echo recorded: the file is the flow, not emptied.
  const login = har.log.entries.find((e) => e.request.url.endsWith('/login'))!;
  expect(new URLSearchParams(login.request.postData!.text).get('loginfmt')).toBe('alice');
  expect(new URLSearchParams(login.request.postData!.text).get('passwd')).toBe('[redacted 3 chars]');
  expect(text).toContain('flowToken=abc');
  for (const written of [PASSWORD, encodeURIComponent(PASSWORD), 'q%217']) expect(text).not.toContain(written);
});
