import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { PassThrough } from 'node:stream';
import { run } from '../../../src/cli/program/main.js';
import { runCli } from '../../helpers/cli.js';
import { memoryIO } from '../../helpers/io.js';
import { startCli, stopAllClis } from '../../helpers/live-cli.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await stopAllClis();
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function mock(): Promise<MockServer> {
  const server = await createMockServer({});
  closers.push(() => server.close());
  return server;
}

/** A token endpoint that answers every request with markup and terminal escape sequences in its error. */
async function hostileTokenEndpoint(): Promise<string> {
  const server: Server = createServer((_req, res) => {
    const body = JSON.stringify({ error: 'invalid_client<img src=x>', error_description: '<script>document.title="pwned"</script>\u001b]0;owned\u0007\u001b[2J<b>bold</b>' });
    res.writeHead(400, { 'content-type': 'application/json', 'x-note': '<script>alert(2)</script>' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
}

const UI_URL = /^ui: (http:\/\/127\.0\.0\.1:\d+\/ui\/[\w-]+\/)$/m;
const LOGIN = ['login', '--client-id', 'photo-cli', '--scope', 'openid photo', '--headless', '--username', 'alice', '--password', 'wonderland'];

describe('--ui and --step on the command line', () => {
  it('refuses --step without a terminal (stdin not a TTY) in one line, exit 2, before any request', async () => {
    const server = await mock();
    const r = await runCli([...LOGIN, '--issuer', server.issuer, '--step']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('oauthctl: error: --step needs a terminal to ask at, and stdin is not one (run it on a terminal, or add --ui to step on the page)\n');
    expect(server.requests()).toEqual([]);
  });

  it('refuses --step with -q without --ui, even on a terminal: it would ask where nothing is shown', async () => {
    const server = await mock();
    // In-process, with a stdin that says it is a terminal.
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const io = memoryIO({ NO_COLOR: '1' }, stdin);
    const code = await run([...LOGIN, '--issuer', server.issuer, '--step', '-q'], io);
    expect(code).toBe(2);
    expect(io.err()).toBe('oauthctl: error: --step asks on stderr, which -q silences (leave -q out, or add --ui to step on the page)\n');
    expect(server.requests()).toEqual([]);
  });

  it('refuses --ui-keep without --ui', async () => {
    const r = await runCli(['discover', 'http://127.0.0.1:9', '--ui-keep', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^oauthctl: error: --ui-keep needs --ui/);
  });

  it('prints the page address as `ui: URL` (127.0.0.1, 192 random bits in the path) and closes the page with the command', async () => {
    const server = await mock();
    const cli = startCli([...LOGIN, '--issuer', server.issuer, '--ui']);
    const [, url] = await cli.waitForStderr(/^ui: (http:\/\/127\.0\.0\.1:\d+\/ui\/[A-Za-z0-9_-]{32}\/)$/m);
    expect(await cli.exited).toBe(0);
    // --headless: no browser was opened for the page (BROWSER is unset; nothing says "opening").
    expect(cli.stderr()).not.toMatch(/opening the (system )?browser/);
    await expect(fetch(url!)).rejects.toThrow();
  });

  it('with --ui-keep, the page stays after the command and shows how it ended; remote text is escaped there and on the terminal', async () => {
    const token = await hostileTokenEndpoint();
    const cli = startCli(['client-credentials', '--token-endpoint', token, '--client-id', 'svc', '--client-secret', 's3cret-value', '--ui', '--ui-keep', '120'], { BROWSER: 'true' });
    const [, url] = await cli.waitForStderr(/^ui: (\S+)$/m);
    await cli.waitForStderr(/ui: the page stays for 120 s/);
    const html = await (await fetch(url!)).text();
    expect(html).toContain('The command failed');
    expect(html).toContain('&#60;script&#62;document.title=&#34;pwned&#34;&#60;/script&#62;');
    expect(html).not.toMatch(/<script>document|<b>bold|<img src=x/);
    expect(html).not.toContain('\u001b');
    expect(html).not.toContain('s3cret-value');
    // The page's one script is its own.
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(cli.stderr()).not.toMatch(/[\u001b\u0007]/);
    await cli.stop();
  });

  it('audit --ui: the page lists the probes by category, each with its verdict and the exchanges it made', async () => {
    const server = await mock();
    const cli = startCli(
      [
        'audit',
        '--issuer',
        server.issuer,
        '--client-id',
        'photo-cli',
        '--scope',
        'photo',
        '--username',
        'alice',
        '--password',
        'wonderland',
        '--only',
        'flow,state,pkce-required',
        '--ui',
        '--ui-keep',
        '120',
      ],
      { BROWSER: 'true' },
    );
    const [, url] = await cli.waitForStderr(/^ui: (\S+)$/m);
    await cli.waitForStderr(/ui: the page stays/);
    const html = await (await fetch(url!)).text();
    expect(html).toContain('<h2>Probes</h2>');
    expect(html).toContain('<h3>authorization-endpoint</h3>');
    for (const id of ['flow', 'state', 'pkce-required']) {
      const probe = new RegExp(`<details class="probe" id="p-${id}"><summary>pass ${id}: [^<]+ <span class="muted">\\((\\d+) exchanges\\)</span></summary>[\\s\\S]*?</details>`).exec(html);
      expect(probe, id).not.toBeNull();
      expect(Number(probe![1])).toBeGreaterThan(0);
      expect(probe![0]).toMatch(/<a href="#x\d+">/);
    }
    await cli.stop();
  }, 60_000);

  /** Answers the request the page holds now, as its form would (its CSRF token and the request's id). */
  async function answer(url: string, title: RegExp, action: 'send' | 'skip' | 'abort', edit: (form: URLSearchParams) => void = () => undefined): Promise<void> {
    // The page shows the request once the command holds it: look again until it does.
    let page = await (await fetch(url)).text();
    while (!title.test(page)) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      page = await (await fetch(url)).text();
    }
    const form = new URLSearchParams();
    for (const m of page.matchAll(/<input (?:type="hidden" )?name="([^"]+)" value="([^"]*)"/g))
      form.set(
        m[1]!,
        m[2]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))),
      );
    form.set('action', action);
    edit(form);
    const res = await fetch(`${url}step`, { method: 'POST', body: form, redirect: 'manual', headers: { origin: new URL(url).origin } });
    expect(res.status).toBe(303);
  }

  it('--step on the page: Skip sends nothing and the flow stops in one line; Abort ends the command', async () => {
    const server = await mock();
    const skipped = startCli([...LOGIN, '--issuer', server.issuer, '--ui', '--step']);
    const [, url] = await skipped.waitForStderr(UI_URL);
    await answer(url!, /Waiting for you: discovery request/, 'send');
    await answer(url!, /Waiting for you: authorization request/, 'send');
    await answer(url!, /Waiting for you: redirect back to the client/, 'send');
    await answer(url!, /Waiting for you: token request/, 'skip');
    expect(await skipped.exited).toBe(1);
    expect(skipped.stderr()).toMatch(/^oauthctl: error: the token request \(RFC 6749 section 4\.1\.3\) was skipped \(--step\): not sent \(the flow cannot go on without its answer\)$/m);
    // The code was never redeemed: the mock saw no token request.
    expect(server.requests().some((r) => r.path === '/token')).toBe(false);

    const aborted = startCli([...LOGIN, '--issuer', server.issuer, '--ui', '--step']);
    const [, url2] = await aborted.waitForStderr(UI_URL);
    await answer(url2!, /Waiting for you: discovery request/, 'abort');
    expect(await aborted.exited).toBe(1);
    expect(aborted.stderr()).toMatch(/^oauthctl: error: aborted before the discovery request .* \(nothing more was sent\)$/m);
  }, 60_000);

  it('--step on the page: PKCE dropped from the authorization request is sent without it, and the server refuses it', async () => {
    const server = await mock();
    const cli = startCli([...LOGIN, '--issuer', server.issuer, '--ui', '--step']);
    const [, url] = await cli.waitForStderr(UI_URL);
    await answer(url!, /Waiting for you: discovery request/, 'send');
    await answer(url!, /Waiting for you: authorization request/, 'send', (form) => {
      // Tick "remove" on code_challenge and code_challenge_method.
      for (const [k, v] of [...form]) if (/^n\d+$/.test(k) && /^code_challenge/.test(v)) form.set(`d${k.slice(1)}`, '1');
    });
    // The mock requires PKCE of a public client: the redirect brings its error back.
    await answer(url!, /Waiting for you: redirect back to the client/, 'send');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('warning: you changed the authorization request before it was sent: query code_challenge removed; query code_challenge_method removed');
    expect(cli.stderr()).toMatch(/^oauthctl: error: the authorization server answered invalid_request/m);
    const authorize = server.requests().find((r) => r.path === '/authorize')!;
    expect(authorize.query.code_challenge).toBeUndefined();
    expect(authorize.query.client_id).toBe('photo-cli');
  }, 60_000);
});
