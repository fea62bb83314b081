// Remote machines: `login --manual` with the redirect URL piped in, and the split flow
// `url --save` / `exchange --from --redirect-uri` (or its older name --redirect-url), against B's mock.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockLogEntry, type MockServer } from '../../src/mock/index.js';
import { run } from '../../src/cli/program/main.js';
import { captureFromPastedUrl } from '../../src/agent/paste-redirect.js';
import { BIN, homeEnv } from '../helpers/cli.js';
import { runCli, testIO } from './helpers/io.js';

const APP_REDIRECT = 'com.example.app:/callback';
let mock: MockServer;
const log: MockLogEntry[] = [];
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  mock = await createMockServer(
    {
      clients: [
        { client_id: 'native-app', redirect_uris: [APP_REDIRECT, 'http://127.0.0.1/callback'] },
        { client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'] },
      ],
      users: [{ username: 'alice', password: 'wonderland' }],
    },
    { autoLogin: 'alice', log: (e) => log.push(e) },
  );
});
afterAll(async () => {
  await mock?.close();
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-remote-'));
  env = homeEnv(home);
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Plays the browser on "another machine": follows the authorization URL to the redirect it ends in. */
async function browse(authorizationUrl: string): Promise<string> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (!location) throw new Error(`no redirect from ${authorizationUrl}: ${res.status}`);
  return location;
}

function authorizationUrlIn(stderr: string): string | undefined {
  return /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(stderr)?.[1];
}

/**
 * Runs `login --manual` on a terminal (a pty from script(1)) and types `answer(authorizationUrl)` into
 * it once the URL is shown; resolves to the exit status and everything the terminal showed.
 */
async function manualLoginOnTerminal(answer: (authorizationUrl: string) => Promise<string>): Promise<{ code: number | null; shown: string }> {
  const cmd = `${process.execPath} ${BIN} login --manual --auth-url ${mock.authUrl} --client-id photo-cli --pkce --scope photo --timeout 20`;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', TERM: 'xterm', NO_COLOR: '1', ...env } });
  let shown = '';
  let answered = false;
  child.stdout.on('data', (c: Buffer) => {
    shown += c.toString();
    const url = authorizationUrlIn(shown);
    if (!url || answered) return;
    answered = true;
    void answer(url).then((text) => {
      // A terminal delivers a long paste in pieces.
      for (let i = 0; i < text.length; i += 1000) child.stdin.write(text.slice(i, i + 1000));
    });
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, shown };
}

describe.skipIf(!existsSync('/usr/bin/script'))('login --manual on a terminal', () => {
  it('reads a pasted redirect URL longer than the terminal line limit (4095 characters)', async () => {
    // The code and state come after 5,000 characters: cut at the limit, they would be lost.
    const { code, shown } = await manualLoginOnTerminal(async (url) => `${(await browse(url)).replace('?', `?padding=${'x'.repeat(5000)}&`)}\r`);
    expect(shown).toMatch(/token_type=Bearer/);
    expect(code).toBe(0);
  });

  it('Ctrl-C still interrupts the wait for the pasted URL', async () => {
    const { code } = await manualLoginOnTerminal(async () => '\x03');
    expect(code).toBe(130);
  });
});

describe('login --manual', () => {
  it('reads the pasted redirect URL from a pipe, with a custom-scheme redirect URI (built CLI)', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'login', '--manual', '--auth-url', mock.authUrl, '--client-id', 'native-app', '--pkce', '--scope', 'openid photo', '--redirect-uri', APP_REDIRECT, '--json', '--timeout', '20'],
      {
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    let browsing = false;
    const pasted = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', async (c: Buffer) => {
        stderr += c;
        const url = authorizationUrlIn(stderr);
        if (!url || browsing) return;
        browsing = true;
        try {
          const location = await browse(url);
          expect(location.startsWith(`${APP_REDIRECT}?`)).toBe(true);
          child.stdin.end(`${location}\n`);
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    await pasted;
    expect(stderr).toContain('Copy the whole address');
    expect(code).toBe(0);
    const tokens = JSON.parse(stdout);
    expect(tokens.access_token).toBeDefined();
    expect(stderr).toMatch(/✓ nonce: /);
  });

  it('refuses a pasted redirect whose state is not ours: exit 1, no token request', async () => {
    const stdin = new PassThrough();
    const io = testIO(env, stdin);
    const done = run(['login', '--manual', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--timeout', '20'], io);
    let url: string | undefined;
    while (!(url = authorizationUrlIn(io.err()))) await new Promise((resolve) => setTimeout(resolve, 10));
    const location = new URL(await browse(url));
    location.searchParams.set('state', 'forged');
    const before = log.length;
    stdin.end(`${location.href}\n`);
    expect(await done).toBe(1);
    expect(io.err()).toMatch(/state mismatch/);
    expect(log.slice(before).filter((e) => e.path === '/token')).toHaveLength(0);
  });

  it('says so when stdin ends without a URL (exit 2)', async () => {
    const r = await runCli(['login', '--manual', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--timeout', '20'], env, '');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/stdin ended before a redirect URL was pasted/);
  });

  it('reads query and fragment redirects, and refuses a URL for another redirect URI', () => {
    expect(captureFromPastedUrl(' "com.example.app:/callback?code=c&state=s" ', APP_REDIRECT)).toEqual({
      via: 'query',
      params: { code: 'c', state: 's' },
      url: 'com.example.app:/callback?code=c&state=s',
      method: 'GET',
    });
    expect(captureFromPastedUrl('http://127.0.0.1:9/callback#code=c&state=s', 'http://127.0.0.1/callback').via).toBe('fragment');
    expect(() => captureFromPastedUrl(`${mock.authUrl}/authorize?client_id=x`, APP_REDIRECT)).toThrow(/does not go to the redirect URI/);
    expect(() => captureFromPastedUrl('not a url', APP_REDIRECT)).toThrow(/not a URL/);
    expect(() => captureFromPastedUrl('com.example.app:/callback', APP_REDIRECT)).toThrow(/no parameters/);
  });
});

describe('split flow: url --save, then exchange --from on another machine', () => {
  it('saves state and verifier 0600 (never a secret) and completes the flow with another HOME', async () => {
    const file = join(home, 'flow.json');
    const saved = await runCli(
      ['url', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo offline_access', '--redirect-uri', 'http://127.0.0.1:8765/callback', '--save', file, '--json'],
      env,
    );
    expect(saved.code).toBe(0);
    const { url, state, code_verifier } = JSON.parse(saved.stdout);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = JSON.parse(readFileSync(file, 'utf8'));
    expect(content).toMatchObject({ state, code_verifier, redirect_uri: 'http://127.0.0.1:8765/callback', client_id: 'photo-cli', token_endpoint: `${mock.authUrl}/token`, authorization_url: url });
    expect(content.nonce).toEqual(expect.any(String));

    const location = await browse(url);
    const elsewhere = mkdtempSync(join(tmpdir(), 'oauthctl-elsewhere-'));
    try {
      const otherEnv = { HOME: elsewhere };
      const r = await runCli(['exchange', '--from', file, '--redirect-uri', location, '--json'], otherEnv);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).refresh_token).toBeDefined();
      expect(r.stderr).toMatch(/✓ nonce: /);
      // The finished login is cached on that machine.
      expect((await runCli(['status', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], otherEnv)).code).toBe(0);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('checks the state first: a redirect for another request exits 1 and sends no token request', async () => {
    const file = join(home, 'flow.json');
    await runCli(['url', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--save', file], env);
    const other = JSON.parse((await runCli(['url', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--json'], env)).stdout);
    const location = await browse(other.url);
    const before = log.length;
    const r = await runCli(['exchange', '--from', file, '--redirect-url', location], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state mismatch.*\(no token request was sent/);
    expect(log.slice(before).filter((e) => e.path === '/token')).toHaveLength(0);
  });

  it('explains an error redirect and usage mistakes', async () => {
    const file = join(home, 'flow.json');
    const saved = JSON.parse((await runCli(['url', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--save', file, '--json'], env)).stdout);
    const denied = `http://127.0.0.1/callback?error=access_denied&state=${encodeURIComponent(saved.state)}`;
    const r = await runCli(['exchange', '--from', file, '--redirect-url', denied], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/access_denied.*refused the request/);
    expect((await runCli(['exchange', '--from', file], env)).stderr).toMatch(/--from and --redirect-uri \(the URL the browser was sent to\) go together/);
    // --redirect-url is the older name of --redirect-uri with --from: both work, one at a time.
    const both = await runCli(['exchange', '--from', file, '--redirect-uri', denied, '--redirect-url', denied], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--redirect-url is the older name of --redirect-uri with --from: give one of them/);
    const newer = await runCli(['exchange', '--from', file, '--redirect-uri', denied], env);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toMatch(/access_denied.*refused the request/);
    expect((await runCli(['exchange', '--from', join(home, 'none.json'), '--redirect-url', denied], env)).stderr).toMatch(/does not exist/);
    expect((await runCli(['exchange', '--from', file, '--redirect-url', denied, '--code', 'x'], env)).code).toBe(2);
  });
});
