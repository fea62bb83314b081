// `token`'s hot path (src/cli/token/token-fast.ts, dist/oauthctl-token.cjs): it prints exactly what the whole
// command line prints for a valid cached token, in every format, and hands everything else over.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { homeEnv, ROOT } from '../../helpers/cli.js';

const LOADER = JSON.stringify(join(ROOT, 'bin', 'load-cli.js'));
const home = mkdtempSync(join(tmpdir(), 'oauthctl-token-fast-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '', ...homeEnv(home), NO_COLOR: '1' };

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
function cache(name: string, extra: object = {}): void {
  const dir = join(home, 'state', 'oauthctl', 'tokens');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry = {
    version: 1,
    profile: name,
    token_endpoint: 'http://127.0.0.1:9/token',
    client_id: 'photo-cli',
    auth_method: 'none',
    access_token: `at-${name}`,
    token_type: 'Bearer',
    id_token: `${b64({ alg: 'none' })}.${b64({ sub: 'alice', exp: now + 3600 })}.`,
    scope: 'openid photo',
    expires_at: now + 3600,
    obtained_at: now,
    ...extra,
  };
  writeFileSync(join(dir, `profile-${name}.json`), JSON.stringify(entry), { mode: 0o600 });
}

/** What the hot path does with argv: { handled, stdout }. */
function fast(argv: string[], extraEnv: Record<string, string> = {}): { handled: boolean; stdout: string } {
  const script = `const l = require(${LOADER}); l.loadCli('auto', l.TOKEN_BUNDLE).cli.tokenFromCache(${JSON.stringify(argv)}, process.env, process.stdout).then((d) => process.stderr.write(String(d)));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...env, ...extraEnv } });
  return { handled: r.stderr === 'true', stdout: r.stdout };
}

/** The whole command line, in the full bundle. */
function full(argv: string[], extraEnv: Record<string, string> = {}) {
  const script = `require(${LOADER}).loadCli('auto', require(${LOADER}).BUNDLE).cli.main(${JSON.stringify(argv)});`;
  return spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...env, ...extraEnv } });
}

/**
 * `expires_in` counts down with the clock, and the two runs are two processes: a second may pass
 * between them. The count is checked to be the cached expiry's, then left out of the comparison.
 */
function withoutSeconds(stdout: string): string {
  return stdout.replace(/"expires_in": (\d+)/g, (_m, n: string) => {
    expect(Number(n)).toBeGreaterThan(3500);
    expect(Number(n)).toBeLessThanOrEqual(3600);
    return '"expires_in": "(counted)"';
  });
}

describe("token's hot path", () => {
  it('prints what the command line prints, in every format', () => {
    cache('ok');
    const info = { KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1' }) };
    for (const [argv, extra] of [
      [['token', '--profile', 'ok'], {}],
      [['token', '--profile=ok', '--format', 'header'], {}],
      [['token', '--format', 'json'], { OAUTHCTL_PROFILE: 'ok' }],
      [['token', '--profile', 'ok', '--format', 'exec-credential'], info],
      [['token', '--profile', 'ok', '--format', 'exec-credential', '--exec-token', 'access_token', '--exec-api-version', 'client.authentication.k8s.io/v1'], {}],
    ] as [string[], Record<string, string>][]) {
      const f = fast(argv, extra);
      expect(f.handled, argv.join(' ')).toBe(true);
      expect(withoutSeconds(f.stdout)).toBe(withoutSeconds(full(argv, extra).stdout));
    }
  });

  it('--json and --format json print one shape: the expiry and the scope in both spellings', () => {
    cache('shape');
    const withoutClock = (text: string) => {
      const { expires_in, ...rest } = JSON.parse(text) as Record<string, unknown>;
      expect(expires_in).toBeGreaterThan(3500);
      return rest;
    };
    const json = withoutClock(full(['token', '--profile', 'shape', '--json']).stdout);
    expect(json).toEqual(withoutClock(full(['token', '--profile', 'shape', '--format', 'json']).stdout));
    expect(json).toEqual({
      access_token: 'at-shape',
      token_type: 'Bearer',
      expires_at: now + 3600,
      expiry: new Date((now + 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      scope: 'openid photo',
      scopes: ['openid', 'photo'],
      refreshed: false,
    });
  });

  it('hands over, having printed nothing: an expired token, an expiring ID token, a DPoP-bound header, --json, --help, unknown options, no profile', () => {
    cache('old', { expires_at: now - 10 });
    cache('idold', { id_token: `${b64({ alg: 'none' })}.${b64({ sub: 'alice', exp: now - 10 })}.` });
    cache('dpop', { token_type: 'DPoP' });
    for (const argv of [
      ['token', '--profile', 'old'],
      ['token', '--profile', 'idold', '--format', 'exec-credential'],
      ['token', '--profile', 'dpop', '--format', 'header'],
      ['token', '--profile', 'ok', '--json'],
      ['token', '--profile', 'ok', '--help'],
      ['token', '--profile', 'ok', '--format', 'yaml'],
      ['token', '--profile', 'ok', '--profile', 'other'],
      ['token', '--profile', '../escape'],
      ['token'],
      ['status', '--profile', 'ok'],
    ]) {
      expect(fast(argv), argv.join(' ')).toEqual({ handled: false, stdout: '' });
    }
  });
});
