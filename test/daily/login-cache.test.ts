// Profiles, the token cache, token/status/logout, ID token checks and `call` with the cached token,
// all against B's mock (autoLogin, so the fake browser only follows redirects).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockLogEntry, type MockServer } from '../../src/mock/index.js';
import { runStatus } from '../../src/cli/token/status.js';
import { runToken } from '../../src/cli/token/token.js';
import { FAKE_BROWSER, homeEnv } from '../helpers/cli.js';
import { runCli, testIO } from './helpers/io.js';
import { run } from '../../src/cli/program/main.js';
import { withIO } from '../../src/output/io.js';

let mock: MockServer;
const log: MockLogEntry[] = [];
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice', log: (e) => log.push(e) });
});
afterAll(async () => {
  await mock?.close();
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-daily-'));
  env = { ...homeEnv(home), BROWSER: FAKE_BROWSER };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const cacheFile = (name: string) => join(home, 'state', 'oauthctl', 'tokens', name);
const addMockProfile = (name = 'mock', extra: string[] = []) =>
  runCli(['profile', 'add', name, '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo offline_access', ...extra], env);

describe('login with a profile', () => {
  it('takes the flow options from the profile, validates the ID token and caches the tokens (0600)', async () => {
    expect((await addMockProfile()).code).toBe(0);
    const r = await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env);
    expect(r.code).toBe(0);
    const tokens = JSON.parse(r.stdout);
    expect(tokens.id_token).toBeDefined();
    expect(r.stderr).toContain('Using profile mock from');
    expect(r.stderr).toContain('==> ID token validation');
    for (const check of ['signature', 'iss', 'sub', 'aud', 'exp', 'iat', 'nonce']) expect(r.stderr).toMatch(new RegExp(`✓ ${check}: `));
    const file = cacheFile('profile-mock.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'state', 'oauthctl', 'tokens')).mode & 0o777).toBe(0o700);
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    expect(cached).toMatchObject({
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      id_token: tokens.id_token,
      client_id: 'photo-cli',
      auth_method: 'none',
      token_endpoint: `${mock.authUrl}/token`,
      scope: 'openid photo offline_access',
    });
    expect(readFileSync(file, 'utf8')).not.toMatch(/secret/);

    const status = await runCli(['status', '--profile', 'mock'], env);
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(/Logged in: profile "mock" .*\n {2}access token: valid, expires in (59 min|1 h)/);
    const token = await runCli(['token'], { ...env, OAUTHCTL_PROFILE: 'mock' });
    expect(token).toMatchObject({ code: 0, stdout: `${tokens.access_token}\n` });
  });

  it('a run slow to start uses the login another run saved since it was asked for; a run asked for after it logs in again', async () => {
    await addMockProfile();
    const askedBefore = Date.now() - 1;
    const first = await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const authorizations = () => log.filter((e) => e.path === '/authorize').length;
    const before = authorizations();
    // As the command line says when the process started (src/cli/program/bin.ts): before the first run saved its login.
    const io = testIO(env);
    expect(await run(['login', '--profile', 'mock', '--timeout', '20', '--json'], withIO(io, { startedAt: askedBefore }))).toBe(0);
    expect(io.err()).toContain('another oauthctl logged in for profile mock meanwhile: using its tokens');
    expect(JSON.parse(io.out()).access_token).toBe(JSON.parse(first.stdout).access_token);
    expect(authorizations()).toBe(before);

    const again = await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('meanwhile');
    expect(JSON.parse(again.stdout).access_token).not.toBe(JSON.parse(first.stdout).access_token);
    expect(authorizations()).toBe(before + 1);
  });

  it('lets flags override the profile', async () => {
    await runCli(['profile', 'add', 'other', '--auth-url', mock.authUrl, '--client-id', 'no-such-client', '--scope', 'photo'], env);
    const r = await runCli(['login', '--profile', 'other', '--client-id', 'photo-cli', '--pkce', '--timeout', '20', '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).scope).toBe('photo');
  });

  it("takes a confidential client's secret from the variable the profile names, for login and refresh", async () => {
    await runCli(['profile', 'add', 'web', '--auth-url', mock.authUrl, '--client-id', 'photo-web', '--client-secret-env', 'PHOTO_WEB_SECRET', '--scope', 'photo offline_access'], env);
    const missing = await runCli(['login', '--profile', 'web', '--timeout', '20'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/takes its client secret from \$PHOTO_WEB_SECRET, which is not set/);
    const withSecret = { ...env, PHOTO_WEB_SECRET: 'photo-web-secret' };
    expect((await runCli(['login', '--profile', 'web', '--timeout', '20'], withSecret)).code).toBe(0);
    expect(readFileSync(cacheFile('profile-web.json'), 'utf8')).not.toContain('photo-web-secret');
    const later = () => Date.now() + 2 * 3_600_000;
    const io = testIO(withSecret);
    expect(await runToken({ profile: 'web' }, io, later)).toBe(0);
    expect(io.out()).not.toBe('');
  });

  it('caches a login without a profile under its issuer and client, found again by --auth-url and --client-id', async () => {
    const r = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--timeout', '20', '--json'], env);
    expect(r.code).toBe(0);
    const token = await runCli(['token', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], env);
    expect(token.stdout.trim()).toBe(JSON.parse(r.stdout).access_token);
    // The only cached login is also found without naming it.
    expect((await runCli(['status'], env)).code).toBe(0);
  });

  it('--no-cache keeps nothing', async () => {
    const r = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--timeout', '20', '--no-cache'], env);
    expect(r.code).toBe(0);
    expect((await runCli(['status', '--json'], env)).stdout).toContain('"status": "absent"');
  });
});

describe('an ID token that fails validation', () => {
  it('fails the login with exit 1, reporting each check, and caches nothing', async () => {
    // A mock whose clock is three hours behind issues tokens that expired two hours ago.
    const stale = await createMockServer(undefined, { autoLogin: 'alice', now: () => Date.now() - 3 * 3_600_000 });
    try {
      const r = await runCli(['login', '--auth-url', stale.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'openid photo', '--timeout', '20'], env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/✗ exp: expired 2 h ago/);
      expect(r.stderr).toMatch(/✓ nonce: /);
      expect(r.stderr).toMatch(/oauthctl: error: the ID token failed validation \(exp\)/);
      expect((await runCli(['status', '--json'], env)).stdout).toContain('"status": "absent"');
    } finally {
      await stale.close();
    }
  });
});

describe('token and status with time injected', () => {
  it('status says expired (exit 1) once the clock passes the expiry; token refreshes through the mock', async () => {
    await addMockProfile();
    const login = JSON.parse((await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env)).stdout);
    const now = () => Date.now() + 3_600_000;

    const statusIo = testIO(env);
    expect(await runStatus({ profile: 'mock', json: true }, statusIo, now)).toBe(1);
    expect(JSON.parse(statusIo.out())).toMatchObject({ status: 'expired', refresh_token: true, profile: 'mock' });

    const before = log.length;
    const tokenIo = testIO(env);
    expect(await runToken({ profile: 'mock', json: true }, tokenIo, now)).toBe(0);
    const fresh = JSON.parse(tokenIo.out());
    expect(fresh.refreshed).toBe(true);
    expect(fresh.access_token).not.toBe(login.access_token);
    expect(log.slice(before).filter((e) => e.path === '/token')).toHaveLength(1);
    const cached = JSON.parse(readFileSync(cacheFile('profile-mock.json'), 'utf8'));
    expect(cached.access_token).toBe(fresh.access_token);
    // The mock rotates refresh tokens; the new one is kept.
    expect(cached.refresh_token).not.toBe(login.refresh_token);
  });

  it('token exits 1 and says to log in when nothing is cached', async () => {
    const r = await runCli(['token', '--profile', 'nobody'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no cached login for profile "nobody" \(log in again: oauthctl login --profile nobody\)/);
    const s = await runCli(['status', '--profile', 'nobody'], env);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/Not logged in/);
  });
});

describe('call with the cached token', () => {
  it('uses the cached token, and refreshes once when the API answers 401', async () => {
    await addMockProfile();
    const login = JSON.parse((await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env)).stdout);
    const ok = await runCli(['call', `${mock.baseUrl}/photos`, '--profile', 'mock'], env);
    expect(ok.code).toBe(0);
    // Revoke the access token behind the cache's back: the API now answers 401, and call refreshes once.
    await fetch(`${mock.authUrl}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: login.access_token, client_id: 'photo-cli' }),
    });
    const before = log.length;
    const again = await runCli(['call', `${mock.baseUrl}/photos`, '--profile', 'mock'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('refreshing the cached token once');
    expect(log.slice(before).filter((e) => e.path === '/token')).toHaveLength(1);
    expect(JSON.parse(readFileSync(cacheFile('profile-mock.json'), 'utf8')).access_token).not.toBe(login.access_token);
  });
});

describe('logout', () => {
  it('revokes at the revocation endpoint from discovery and forgets the tokens', async () => {
    await addMockProfile();
    const login = JSON.parse((await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env)).stdout);
    const r = await runCli(['logout', '--profile', 'mock', '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ forgotten: true, revocation_endpoint: `${mock.authUrl}/revoke`, revoked: ['refresh_token', 'access_token'] });
    const api = await fetch(`${mock.baseUrl}/photos`, { headers: { authorization: `Bearer ${login.access_token}` } });
    expect(api.status).toBe(401);
    const refresh = await fetch(`${mock.authUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: login.refresh_token, client_id: 'photo-cli' }),
    });
    expect(refresh.status).toBe(400);
    expect((await runCli(['status', '--profile', 'mock'], env)).code).toBe(1);
    // Logging out twice is fine.
    expect((await runCli(['logout', '--profile', 'mock'], env)).code).toBe(0);
  });

  it('--no-revoke only forgets', async () => {
    await addMockProfile();
    const login = JSON.parse((await runCli(['login', '--profile', 'mock', '--timeout', '20', '--json'], env)).stdout);
    expect((await runCli(['logout', '--profile', 'mock', '--no-revoke'], env)).code).toBe(0);
    expect((await fetch(`${mock.baseUrl}/photos`, { headers: { authorization: `Bearer ${login.access_token}` } })).status).toBe(200);
    expect((await runCli(['status', '--profile', 'mock'], env)).code).toBe(1);
  });
});

describe('a corrupt config file', () => {
  it('gives one clear error (exit 2) to every command that reads it, and is never overwritten', async () => {
    const path = join(home, 'config', 'oauthctl', 'config.json');
    await addMockProfile();
    const broken = readFileSync(path, 'utf8').slice(0, -5);
    writeFileSync(path, broken);
    for (const argv of [
      ['login', '--profile', 'mock'],
      ['profile', 'list'],
      ['profile', 'add', 'x', '--client-id', 'y'],
      ['profile', 'remove', 'mock'],
    ]) {
      const r = await runCli(argv, env);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^oauthctl: error: config file .*config\.json is not valid JSON: .*\(fix or move the file; oauthctl never writes over a file it cannot read\)/);
    }
    expect(readFileSync(path, 'utf8')).toBe(broken);
  });
});
