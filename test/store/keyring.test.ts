// --token-store keyring against a real Secret Service (Debian's gnome-keyring in a private
// D-Bus session, `dbus-run-session`), and the one line when no keyring can be reached.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { joinSecrets, splitSecrets } from '../../src/store/secret-store.js';
import { BIN, homeEnv, runCli } from '../helpers/cli.js';

let mock: MockServer;
let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice', port: 0 });
  home = mkdtempSync(join(tmpdir(), 'oauthctl-keyring-'));
  env = { PATH: process.env.PATH ?? '', ...homeEnv(home), NO_COLOR: '1' };
});
afterAll(async () => {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const oauthctl = (args: string[]) => [process.execPath, BIN, ...args].map(quote).join(' ');

/** Runs shell lines in a D-Bus session of their own with an unlocked gnome-keyring: a real Secret Service. */
function inSecretService(lines: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = ['echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null', ...lines].join('\n');
  return new Promise((resolve) => {
    execFile('dbus-run-session', ['--', 'sh', '-ec', script], { env: { ...env, ...extra }, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('splitting an entry', () => {
  it('keeps tokens, the DPoP private key and a registration access token out of the metadata, and joins them back', () => {
    const entry = {
      version: 1,
      token_endpoint: 'https://as.example/token',
      client_id: 'c',
      access_token: 'at',
      refresh_token: 'rt',
      id_token: 'idt',
      registration_access_token: 'rat',
      client_keys: { dpop_jwk: { kty: 'EC', d: 'private' }, tls_cert_file: '/c.pem' },
    };
    const { metadata, secrets } = splitSecrets(entry);
    expect(JSON.stringify(metadata)).not.toMatch(/"at"|"rt"|"idt"|"rat"|private/);
    expect(metadata).toMatchObject({ token_store: 'keyring', client_keys: { tls_cert_file: '/c.pem' } });
    expect(joinSecrets(metadata, secrets)).toEqual(entry);
  });
});

describe('--token-store keyring with gnome-keyring', () => {
  it('keeps the secrets in the keyring and only metadata in the file; token, status and logout use it', async () => {
    const file = join(home, 'state', 'oauthctl', 'tokens', 'profile-k.json');
    const r = await inSecretService([
      `${oauthctl(['profile', 'add', 'k', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'openid photo offline_access', '--token-store', 'keyring'])} 2>/dev/null`,
      `${oauthctl(['login', '--profile', 'k', '--headless', '--username', 'alice', '--password', 'wonderland'])} 2>/dev/null`,
      `cp ${quote(file)} ${quote(join(home, 'metadata.json'))}`,
      `echo "token=$(${oauthctl(['token', '--profile', 'k'])})"`,
      `echo "keyring=$(secret-tool lookup service oauthctl username ${quote(file)} | head -c 20)"`,
      `${oauthctl(['status', '--profile', 'k', '--json'])}`,
      `${oauthctl(['logout', '--profile', 'k'])} 2>/dev/null`,
      `echo "after=$(secret-tool lookup service oauthctl username ${quote(file)} || true)"`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const metadata = readFileSync(join(home, 'metadata.json'), 'utf8');
    expect(metadata).not.toMatch(/access_token|refresh_token|id_token/);
    expect(JSON.parse(metadata)).toMatchObject({ token_store: 'keyring', client_id: 'photo-cli', profile: 'k' });
    const token = /^token=(.+)$/m.exec(r.stdout)?.[1] ?? '';
    expect(token.split('.')).toHaveLength(3);
    expect(r.stdout).toMatch(/^keyring=\{"access_token":"ey/m);
    expect(r.stdout).toMatch(/"kept_in": "keyring"/);
    expect(r.stdout).toMatch(/^after=$/m);
  }, 60_000);

  it('a keyring that cannot be reached is one line, exit 1, and nothing falls back to the file', async () => {
    const kept = await inSecretService([
      `${oauthctl(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--token-store', 'keyring'])} 2>/dev/null`,
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    // Outside the D-Bus session: no Secret Service.
    const r = await runCli(['token', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--no-login'], { env: { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, 'no-bus')}` } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(/^oauthctl: error: the OS keyring cannot be reached: .*use --token-store file\)$/);
  }, 60_000);

  it('login --register keeps the registration access token in the keyring; the file only the reference, and register --delete still works', async () => {
    const dir = join(home, 'state', 'oauthctl', 'registrations');
    mock.clearRequests();
    const r = await inSecretService([
      `${oauthctl(['login', '--issuer', mock.issuer, '--register', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--token-store', 'keyring'])} >/dev/null 2>&1`,
      `file=$(ls ${quote(dir)}/server-*.json)`,
      'echo "file=$file"',
      `cp "$file" ${quote(join(home, 'registration.json'))}`,
      'echo "keyring=$(secret-tool lookup service oauthctl username "$file")"',
      `${oauthctl(['register', '--delete', '--issuer', mock.issuer])} 2>&1`,
      'echo "after=$(secret-tool lookup service oauthctl username "$file" || true)"',
    ]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const kept = readFileSync(join(home, 'registration.json'), 'utf8');
    expect(kept).not.toMatch(/registration_access_token|client_secret/);
    expect(JSON.parse(kept)).toMatchObject({ token_store: 'keyring', server: mock.issuer, client_id: expect.stringMatching(/^dyn-/) });
    const secrets = JSON.parse(/^keyring=(.+)$/m.exec(r.stdout)?.[1] ?? '{}') as Record<string, string>;
    expect(secrets.registration_access_token).toMatch(/^[\w-]{40,}$/);
    // The token the keyring kept is the one the DELETE carried (RFC 7592 section 2.3), and the mock took it.
    const deleted = mock.requests().find((q) => q.method === 'DELETE' && q.path.startsWith('/register/'));
    expect(deleted?.status).toBe(204);
    expect(r.stdout).toMatch(/^after=$/m);
  }, 60_000);

  it('login --token-store keyring with no Secret Service reachable: exit 1, one line, nothing on stdout, even with -q', async () => {
    const noBus = { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, 'no-bus')}` };
    for (const quiet of [[], ['-q']]) {
      const r = await runCli(
        ['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--token-store', 'keyring', ...quiet],
        {
          env: noBus,
        },
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(quiet.length === 0 || lines.length === 1, r.stderr).toBe(true);
      expect(lines.at(-1)).toMatch(/^oauthctl: error: the OS keyring cannot be reached: .*use --token-store file\)$/);
    }
  }, 60_000);

  it('--token-store none keeps nothing; a bad store name is exit 2 before any login', async () => {
    const none = await runCli([
      'login',
      '--auth-url',
      mock.authUrl,
      '--client-id',
      'photo-cli',
      '--scope',
      'photo',
      '--headless',
      '--username',
      'alice',
      '--password',
      'wonderland',
      '--token-store',
      'none',
    ]);
    expect(none.code, none.stderr).toBe(0);
    const status = await runCli(['status', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], {});
    expect(status.code).toBe(1);
    mock.clearRequests();
    const bad = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--headless', '--username', 'alice', '--password', 'wonderland'], {
      env: { OAUTHCTL_TOKEN_STORE: 'vault' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/OAUTHCTL_TOKEN_STORE must be file, keyring or none, got "vault"/);
    expect(mock.requests()).toHaveLength(0);
  });
});
