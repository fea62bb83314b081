import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../helpers/chromium.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/program/main.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryIO } from './helpers/io.js';
import { startFormServer, type FormServer } from './helpers/form-server.js';

// Chromium under load (other test runs beside this one) takes seconds per step.
vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer();
});
afterAll(async () => {
  await mock.close();
});

const login = (...args: string[]) => ['login', '--auth-url', mock.authUrl, '--timeout', '120', ...args];

describe('login --headless against the built-in mock', () => {
  it('completes the PKCE flow of the public client and prints the token response', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo offline_access', '--headless', '--username', 'alice', '--password', 'wonderland', '--json'), io);
    expect(io.err()).not.toContain('error');
    expect(code).toBe(0);
    const tokens = JSON.parse(io.out()) as Record<string, unknown>;
    expect(typeof tokens.access_token).toBe('string');
    expect(typeof tokens.refresh_token).toBe('string');
  });

  it('completes the flow of the confidential client, credentials from the environment', async () => {
    const io = memoryIO({ OAUTHCTL_USERNAME: 'alice', OAUTHCTL_PASSWORD: 'wonderland', OAUTHCTL_CLIENT_SECRET: 'photo-web-secret' });
    const code = await run(login('--client-id', 'photo-web', '--scope', 'photo', '--headless', '--json', '--verbose'), io);
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toHaveProperty('access_token');
    expect(io.err()).toContain('headless: login form chosen');
    expect(io.err()).toContain('password=[redacted 10 chars] (password)');
    expect(io.err()).not.toContain('wonderland');
  });

  it('--consent deny ends with access_denied, exit 1', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--consent', 'deny'), io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/oauthctl: error: .*access_denied/);
    expect(io.out()).toBe('');
  });

  it('a wrong password fails with one clear line, exit 1', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'not-it'), io);
    expect(code).toBe(1);
    const lines = io
      .err()
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('oauthctl: error:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/login failed at http:\/\/127\.0\.0\.1:\d+\/authorize: the server said "Incorrect account name or password\." \(check the username and password/);
    expect(io.err()).not.toContain('not-it');
  });

  it('without --username or --password, not on a terminal: the login form is one line naming both options, exit 2', async () => {
    for (const args of [['--password', 'x'], ['--username', 'alice'], []]) {
      const io = memoryIO();
      const code = await run(login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--headless', ...args), io);
      expect(code).toBe(2);
      expect(io.err()).toMatch(/\noauthctl: error: the server at \S+ asks for a login \(give --username and --password \(or OAUTHCTL_USERNAME and OAUTHCTL_PASSWORD\)\)\n$/);
    }
    const io = memoryIO();
    expect(await run(login('--client-id', 'photo-cli', '--username', 'alice'), io)).toBe(2);
    expect(io.err()).toContain('add --headless');
  });
});

describe('login --headless against a page that needs JavaScript', () => {
  let server: FormServer;
  beforeAll(async () => {
    server = await startFormServer({ needsJavaScript: true });
  });
  afterAll(async () => {
    await server.close();
  });

  it('says so and suggests the browser driver', async () => {
    const io = memoryIO();
    const code = await run(['login', '--auth-url', server.url, '--client-id', 'c', '--headless', '--username', 'u', '--password', 'p', '--timeout', '20'], io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/oauthctl: error: the page at http:\/\/127\.0\.0\.1:\d+\/app\/spa needs JavaScript: .* \(use --browser-driver chromium to log in through a real browser\)/);
  });
});

describe.skipIf(!existsSync('/usr/bin/chromium'))('login --headless --browser-driver chromium against the mock', () => {
  it('logs in through Chromium', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--browser-driver', 'chromium', '--username', 'alice', '--password', 'wonderland', '--json'), io);
    expect(io.err()).not.toContain('error');
    expect(code).toBe(0);
    expect(JSON.parse(io.out())).toHaveProperty('access_token');
  });

  it('--trace holds the pages Chromium fetched, the password scrubbed; `trace --check` finds nothing wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-browser-trace-'));
    try {
      const file = join(dir, 'login.har');
      const io = memoryIO();
      const code = await run(login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--browser-driver', 'chromium', '--username', 'alice', '--password', 'wonderland', '--trace', file), io);
      expect(code, io.err()).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('wonderland');
      const har = JSON.parse(text) as { log: { entries: { request: { method: string; url: string }; response: { status: number }; _oauthctl: { actor: string } }[] } };
      const browser = har.log.entries.filter((e) => e._oauthctl.actor === 'user-agent').map((e) => `${e.request.method} ${new URL(e.request.url).pathname} ${e.response.status}`);
      expect(browser).toEqual(expect.arrayContaining(['GET /authorize 200', 'GET /assets/mock.css 200', 'POST /login 303', 'GET /consent 200', 'POST /consent 303', 'GET /callback 200']));
      const check = memoryIO();
      expect(await run(['trace', file, '--check'], check), check.out()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--trace of a login that failed (a wrong password) still holds the pages, the password scrubbed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-browser-trace-'));
    try {
      const file = join(dir, 'failed.har');
      const io = memoryIO();
      const code = await run(
        login('--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--browser-driver', 'chromium', '--username', 'alice', '--password', 'not-wonderland', '--trace', file),
        io,
      );
      expect(code).toBe(1);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('not-wonderland');
      const har = JSON.parse(text) as { log: { entries: { request: { method: string; url: string; postData?: { params: { name: string; value: string }[] } }; _oauthctl: { actor: string } }[] } };
      const post = har.log.entries.find((e) => e._oauthctl.actor === 'user-agent' && e.request.method === 'POST' && new URL(e.request.url).pathname === '/login');
      expect(post?.request.postData?.params).toContainEqual({ name: 'password', value: '[redacted 14 chars]' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing browser is one line, exit 2', async () => {
    const io = memoryIO();
    const code = await run(login('--client-id', 'photo-cli', '--pkce', '--browser-driver', 'chromium', '--browser-path', '/nonexistent/chrome', '--username', 'alice', '--password', 'wonderland'), io);
    expect(code).toBe(2);
    expect(io.err()).toBe('oauthctl: error: --browser-path "/nonexistent/chrome" is not an executable file (give the path of a Chromium or Chrome binary)\n');
  });
});
