// When the system browser cannot start, login fails at once with the two ways on (--headless,
// --no-browser) instead of waiting the whole timeout; a browser failing later is named by the timeout.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { BIN, cliEnv, ROOT, runCli } from '../helpers/cli.js';

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
});

/** login waiting up to `timeout` s; the environment has no DISPLAY nor WAYLAND_DISPLAY (cliEnv passes neither). */
const login = (env: Record<string, string>, timeout = '300', extra: string[] = []) =>
  runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', timeout, ...extra], { env });

function expectWaysOn(stderr: string): void {
  expect(stderr).toContain('--headless');
  expect(stderr).toContain('--no-browser');
  expect(stderr).not.toMatch(/\n\s+at /);
}

// Each case waits 300 s if it waits at all: ending within the test's own timeout is the proof.
describe('login when no browser can be started', () => {
  it('no display and no BROWSER: said before any wait, exit 1', async () => {
    const r = await login({});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no browser can be shown here: no BROWSER, DISPLAY or WAYLAND_DISPLAY');
    expectWaysOn(r.stderr);
  });

  it('a BROWSER command that exits 1 at once: exit 1 at once', async () => {
    const r = await login({ BROWSER: 'false' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('BROWSER "false" exited with status 1');
    expect(r.stderr).not.toContain('timed out');
    expectWaysOn(r.stderr);
  });

  it('a BROWSER command that does not exist: exit 1 at once', async () => {
    const r = await login({ BROWSER: 'oauthctl-no-such-browser --new-window' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot run BROWSER "oauthctl-no-such-browser"');
    expectWaysOn(r.stderr);
  });

  it('a browser failing after the launch: the wait goes on, and the timeout names the failure', async () => {
    // Exits 3 six seconds after it started: past the launch, as a browser the user closed would.
    const late = `${JSON.stringify(process.execPath)} -e "setTimeout(() => process.exit(3), 6000)"`;
    const r = await login({ BROWSER: late }, '9');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/warning: BROWSER ".*" exited with status 3/);
    expect(r.stderr).toMatch(/timed out after 9 s waiting for the redirect to \S+: the browser failed \(BROWSER ".*" exited with status 3\)/);
    expectWaysOn(r.stderr);
  }, 30_000);

  it('--no-browser, one of the ways on: the URL is printed and the login completes once it is opened', async () => {
    const child = spawn(process.execPath, [BIN, 'login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '30', '--no-browser'], {
      cwd: ROOT,
      env: cliEnv({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let opened: Promise<unknown> | undefined;
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(stderr)?.[1];
      if (url && !opened) opened = fetch(url, { redirect: 'manual' }).then((res) => fetch(res.headers.get('location') ?? ''));
    });
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on('close', resolve));
    await opened;
    expect(code).toBe(0);
  });
});
