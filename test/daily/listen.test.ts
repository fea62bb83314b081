import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import { BROWSER_TEST_TIMEOUT, haveChromium, launchChromium, newTab } from '../helpers/chromium.js';
import { runCli, testIO, type TestIO } from './helpers/io.js';

/** Starts `oauthctl listen ARGS` in-process and returns the redirect URI it prints, and its result. */
async function listen(args: string[]): Promise<{ uri: string; io: TestIO; done: Promise<number> }> {
  const io = testIO({});
  const done = run(['listen', ...args], io);
  let m: RegExpExecArray | null = null;
  for (let i = 0; i < 3000 && !(m = /Listening on (http:\/\/\S+)/.exec(io.err())); i++) await new Promise((r) => setTimeout(r, 10));
  if (!m) throw new Error(`listen did not start: ${io.err()}`);
  return { uri: m[1]!, io, done };
}

describe('listen', () => {
  it('prints a query redirect decoded, with the RFC 6749 error explained in words, and exchanges nothing', async () => {
    const { uri, io, done } = await listen([]);
    expect(uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const res = await fetch(`${uri}?error=access_denied&error_description=The+user+said+no&state=xyz`);
    expect(res.status).toBe(200);
    expect(await done).toBe(0);
    const out = io.out();
    expect(out).toContain(`Redirect received: GET ${uri}?error=access_denied`);
    expect(out).toContain('Parameters arrived in the query string');
    expect(out).toContain('  error_description = The user said no');
    expect(out).toContain('access_denied: the resource owner or the authorization server refused the request');
    expect(out).toContain('Outcome: the authorization failed with access_denied.');
  });

  it('captures a form_post body (--json prints the capture)', async () => {
    const { uri, io, done } = await listen(['--path', '/cb', '--json']);
    expect(uri.endsWith('/cb')).toBe(true);
    await fetch(uri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj' });
    expect(await done).toBe(0);
    expect(JSON.parse(io.out())).toEqual({ via: 'form_post', params: { code: 'SplxlOBeZQQYbYS6WxSbIA', state: 'af0ifjsldkj' }, url: uri, method: 'POST' });
  });

  it.skipIf(!haveChromium)(
    'captures a fragment through the page that posts it back (Chromium)',
    async () => {
      const browser = await launchChromium();
      try {
        const { uri, io, done } = await listen(['--json']);
        const page = await newTab(browser);
        await page.goto(`${uri}#access_token=2YotnFZFEjr1zCsicMWpAA&token_type=Bearer&state=xyz`);
        expect(await done).toBe(0);
        const capture = JSON.parse(io.out());
        expect(capture).toMatchObject({ via: 'fragment', params: { access_token: '2YotnFZFEjr1zCsicMWpAA', token_type: 'Bearer', state: 'xyz' } });
      } finally {
        await browser.close();
      }
    },
    BROWSER_TEST_TIMEOUT,
  );

  it('explains a fragment with tokens as the implicit flow', async () => {
    const { explainCapture } = await import('../../src/cli/inspect/listen.js');
    const lines = explainCapture({ via: 'fragment', params: { access_token: 'abc', state: 's' }, url: 'http://127.0.0.1:1/callback#access_token=abc&state=s', method: 'GET' });
    expect(lines.join('\n')).toMatch(/URL fragment[\s\S]*implicit flow, which RFC 9700 section 2\.1\.2 says not to use/);
  });

  it('listens on the port given, only on loopback', async () => {
    const probe = await listen([]);
    const port = Number(new URL(probe.uri).port);
    await fetch(`${probe.uri}?code=x&state=y`);
    await probe.done;
    const fixed = await listen(['--port', String(port)]);
    expect(fixed.uri).toBe(`http://127.0.0.1:${port}/callback`);
    await fetch(`${fixed.uri}?code=x&state=y`);
    expect(await fixed.done).toBe(0);
    expect(fixed.io.out()).toContain('Outcome: an authorization code arrived; nothing was exchanged.');
    const wide = await runCli(['listen', '--host', '0.0.0.0'], {});
    expect(wide.code).toBe(2);
    expect(wide.stderr).toMatch(/--host must be a loopback address/);
  });

  it('gives up after --timeout with exit 1', async () => {
    const r = await runCli(['listen', '--timeout', '1'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nothing arrived at http:\/\/127\.0\.0\.1:\d+\/callback within 1 s/);
  });
});
