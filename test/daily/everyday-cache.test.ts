// The cache, day to day, and its hints: refresh writes back, one entry per server, status
// --all, logout --all, and a server that cannot be reached keeps the cache. All against the mock.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockLogEntry, type MockServer } from '../../src/mock/index.js';
import { runToken } from '../../src/cli/token/token.js';
import { FAKE_BROWSER, homeEnv } from '../helpers/cli.js';
import { runCli, testIO } from './helpers/io.js';

let mock: MockServer;
const log: MockLogEntry[] = [];
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice', log: (e) => log.push(e) });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-everyday-'));
  env = { ...homeEnv(home), BROWSER: FAKE_BROWSER };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const tokensDir = () => join(home, 'state', 'oauthctl', 'tokens');
const cacheFiles = () => readdirSync(tokensDir()).filter((n) => n.endsWith('.json'));
const readCache = (name: string) => JSON.parse(readFileSync(join(tokensDir(), name), 'utf8')) as Record<string, unknown>;
const SCOPE = 'openid photo offline_access';

async function loginWithProfile(name: string, server: MockServer = mock): Promise<{ access_token: string; refresh_token: string }> {
  expect((await runCli(['profile', 'add', name, '--auth-url', server.authUrl, '--client-id', 'photo-cli', '--scope', SCOPE], env)).code).toBe(0);
  const r = await runCli(['login', '--profile', name, '--timeout', '20', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { access_token: string; refresh_token: string };
}

describe('refresh of the cached login (C2)', () => {
  it('without --refresh-token refreshes the cached login and writes the rotated tokens back; the next token refresh still works', async () => {
    const first = await loginWithProfile('mock');
    const r = await runCli(['refresh', '--profile', 'mock', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const refreshed = JSON.parse(r.stdout) as { access_token: string; refresh_token: string };
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(readCache('profile-mock.json')).toMatchObject({ access_token: refreshed.access_token, refresh_token: refreshed.refresh_token });
    // With the spent refresh token left in the cache, this refresh would be a reuse and revoke the family.
    const io = testIO(env);
    expect(await runToken({ profile: 'mock', json: true }, io, () => Date.now() + 7_200_000)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ refreshed: true });
  });

  it('--refresh-token R with R the cached one updates the cache too', async () => {
    const first = await loginWithProfile('mock');
    const r = await runCli(['refresh', '--refresh-token', first.refresh_token, '--profile', 'mock', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const refreshed = JSON.parse(r.stdout) as { refresh_token: string };
    expect(readCache('profile-mock.json').refresh_token).toBe(refreshed.refresh_token);
  });

  it('with nothing cached and no --refresh-token: exit 1, saying what to give', async () => {
    const r = await runCli(['refresh', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^oauthctl: error: no login is cached to refresh \(give --refresh-token R, or log in first/);
  });
});

describe('one cache entry per server and client (C5)', () => {
  it('--issuer X and --auth-url X name the same entry', async () => {
    const a = await runCli(['login', '--issuer', mock.issuer, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '20'], env);
    expect(a.code, a.stderr).toBe(0);
    const b = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '20'], env);
    expect(b.code, b.stderr).toBe(0);
    expect(cacheFiles()).toHaveLength(1);
    expect((await runCli(['status', '--issuer', mock.issuer, '--client-id', 'photo-cli'], env)).code).toBe(0);
    expect((await runCli(['status', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], env)).code).toBe(0);
  });

  it('a profile caches only tokens from its own server: --auth-url of another server caches them apart', async () => {
    const other = await createMockServer(undefined, { autoLogin: 'alice' });
    try {
      expect((await runCli(['profile', 'add', 'mock', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo'], env)).code).toBe(0);
      const r = await runCli(['login', '--profile', 'mock', '--auth-url', other.authUrl, '--timeout', '20'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/the flags name another server or client than profile mock/);
      expect(cacheFiles()).not.toContain('profile-mock.json');
      expect((await runCli(['status', '--auth-url', other.authUrl, '--client-id', 'photo-cli'], env)).code).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('status --all and logout --all (C4)', () => {
  it('status --all lists every cached login, one line each, exit 0; --json an array', async () => {
    await loginWithProfile('mock');
    const other = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret', '--scope', 'photo', '--timeout', '20'], env);
    expect(other.code, other.stderr).toBe(0);
    const r = await runCli(['status', '--all'], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.startsWith('profile mock'))).toMatch(/client photo-cli {2}subject alice {2}access token valid, expires in \d+ (min|h) {2}scope openid photo offline_access/);
    expect(lines.find((l) => l.includes('photo-web'))).toMatch(/^http:\/\/127\.0\.0\.1:\d+ {2}client photo-web {2}subject alice/);
    const json = await runCli(['status', '--all', '--json'], env);
    const all = JSON.parse(json.stdout) as { status: string; subject: string }[];
    expect(all).toHaveLength(2);
    expect(all.every((s) => s.status === 'valid' && s.subject === 'alice')).toBe(true);
  });

  it('an entry with no expiry or a zero expiry reads sensibly; an expired one says so once', async () => {
    await loginWithProfile('mock');
    const file = join(tokensDir(), 'profile-mock.json');
    const entry = readCache('profile-mock.json');
    writeFileSync(file, JSON.stringify({ ...entry, expires_at: 0 }), { mode: 0o600 });
    const zero = await runCli(['status', '--profile', 'mock'], env);
    expect(zero.code).toBe(0);
    expect(zero.stderr).toContain('access token: valid (the server gave no expiry)');
    writeFileSync(file, JSON.stringify({ ...entry, expires_at: Math.floor(Date.now() / 1000) - 7200 }), { mode: 0o600 });
    const expired = await runCli(['status', '--profile', 'mock'], env);
    expect(expired.code).toBe(1);
    expect(expired.stderr).toContain('access token: expired 2 h ago');
    expect(expired.stderr).not.toMatch(/expired, expired/);
  });

  it('logout --all revokes and forgets every login; one whose server is down stays cached, exit 1', async () => {
    const down = await createMockServer(undefined, { autoLogin: 'alice' });
    const first = await loginWithProfile('mock');
    await loginWithProfile('down', down);
    await down.close();
    const r = await runCli(['logout', '--all', '--json'], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: 1 of 2 logins could not be revoked and stay cached \(profile "down"\)/);
    expect(cacheFiles()).toEqual(['profile-down.json']);
    expect((await fetch(`${mock.baseUrl}/photos`, { headers: { authorization: `Bearer ${first.access_token}` } })).status).toBe(401);
    const clean = await runCli(['logout', '--all', '--no-revoke'], env);
    expect(clean.code).toBe(0);
    expect(cacheFiles()).toEqual([]);
  });
});

describe('a server that cannot be reached (B4, B9)', () => {
  it('logout exits 1 and keeps the cache', async () => {
    const down = await createMockServer(undefined, { autoLogin: 'alice' });
    await loginWithProfile('down', down);
    await down.close();
    const r = await runCli(['logout', '--profile', 'down'], env);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^oauthctl: error: cannot reach the server to revoke the tokens: .*connection refused.*\(the tokens are still cached; try again when it is up, or use --no-revoke/,
    );
    expect(cacheFiles()).toEqual(['profile-down.json']);
  });

  it('token with an expired login and the server down says the tokens are still cached, not to log in again', async () => {
    const down = await createMockServer(undefined, { autoLogin: 'alice' });
    await loginWithProfile('down', down);
    await down.close();
    const io = testIO(env);
    await expect(runToken({ profile: 'down' }, io, () => Date.now() + 7_200_000)).rejects.toThrow(/connection refused/);
    await runToken({ profile: 'down' }, io, () => Date.now() + 7_200_000).catch((err: { hint?: string }) => {
      expect(err.hint).toMatch(/^the tokens are still cached/);
      expect(err.hint).not.toMatch(/log in again/);
    });
  });

  it('-q: nothing on stderr on success, and only the one line of a failure', async () => {
    const ok = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '20', '-q'], env);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toMatch(/^access_token=/m);
    const fail = await runCli(['login', '--issuer', 'http://127.0.0.1:9', '--client-id', 'photo-cli', '--timeout', '20', '--quiet'], env);
    expect(fail.code).toBe(1);
    expect(fail.stderr.trim().split('\n')).toHaveLength(1);
    expect(fail.stderr).toMatch(/^oauthctl: error: /);
  });

  it('-q before the command name works as after it', async () => {
    const ok = await runCli(['-q', 'login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '20'], env);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toMatch(/^access_token=/m);
    const fail = await runCli(['--quiet', 'login', '--issuer', 'http://127.0.0.1:9', '--client-id', 'photo-cli', '--timeout', '20'], env);
    expect(fail.code).toBe(1);
    expect(fail.stderr.trim().split('\n')).toHaveLength(1);
  });
});
