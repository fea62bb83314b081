// The client's files as another user on the machine attacks them: a tokens or registrations directory
// created first by another uid (a shared /tmp as XDG_STATE_HOME), an entry naming a token endpoint of
// the attacker's, a lock held by a live run, and git asking for an https login's token over plain http.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { BIN, cliEnv, runCli } from '../helpers/cli.js';
import { createMockServer } from '../../src/mock/index.js';

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let as: RecordingServer;
let evil: RecordingServer;
beforeAll(async () => {
  [as, evil] = await Promise.all([startRecordingServer(), startRecordingServer()]);
});
afterAll(async () => {
  await Promise.all([as.close(), evil.close()]);
});

let shared: string;
let env: Record<string, string>;
beforeEach(() => {
  as.reset();
  evil.reset();
  // A directory every user can write to, as /tmp is: root-owned and sticky.
  shared = mkdtempSync(join(tmpdir(), 'oauthctl-shared-'));
  chmodSync(shared, 0o1777);
  const config = join(shared, 'mine');
  mkdirSync(config, { mode: 0o700 });
  env = { XDG_CONFIG_HOME: config, XDG_STATE_HOME: join(shared, 'state') };
});
afterEach(() => rmSync(shared, { recursive: true, force: true }));

/** Runs a shell script as uid/gid 65534 (nobody), with no supplementary groups: another user on the machine. */
function asNobody(script: string, input = ''): void {
  execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'sh', '-ec', `umask 077; ${script}`], { input, cwd: shared });
}

/** An expired login with a refresh token whose token endpoint is `tokenEndpoint`. */
function entry(tokenEndpoint: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: 1,
    profile: 'work',
    token_endpoint: tokenEndpoint,
    client_id: 'photo-web',
    auth_method: 'client_secret_basic',
    access_token: 'old-access',
    refresh_token: 'planted-refresh',
    expires_at: 1,
    obtained_at: 1,
    ...extra,
  });
}

async function addWorkProfile(): Promise<void> {
  const r = await runCli(['profile', 'add', 'work', '--auth-url', as.url, '--client-id', 'photo-web', '--client-secret', 'web-secret', '--auth-method', 'client_secret_basic'], { env });
  expect(r.code, r.stderr).toBe(0);
}

const tokensDir = () => join(shared, 'state', 'oauthctl', 'tokens');
const sentBasic = (server: RecordingServer) => server.requests.filter((r) => typeof r.headers.authorization === 'string' && r.headers.authorization.startsWith('Basic '));

describe.skipIf(process.platform === 'win32')('files another uid made', () => {
  it.skipIf(!isRoot)('a tokens directory another uid created, with an entry of theirs: refused in one line naming it, no secret sent', async () => {
    await addWorkProfile();
    asNobody(`mkdir -p state/oauthctl/tokens && cat > state/oauthctl/tokens/profile-work.json`, entry(`${evil.url}/token`));
    const r = await runCli(['token', '--profile', 'work', '--no-login'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`the tokens directory ${tokensDir()} is owned by uid ${NOBODY}, not by you (uid 0)`);
    expect(lines[0]).toContain(`rm -r "${tokensDir()}"`);
    expect(evil.requests).toHaveLength(0);
    expect(as.requests).toHaveLength(0);
  });

  it.skipIf(!isRoot)('a state directory above tokens that another uid owns is refused too (they could swap tokens/ for theirs)', async () => {
    await addWorkProfile();
    asNobody('mkdir -p state/oauthctl');
    const r = await runCli(['token', '--profile', 'work', '--no-login'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`the directory ${join(shared, 'state', 'oauthctl')} is owned by uid ${NOBODY}`);
    // Listing the logins says so too, rather than finding none.
    const status = await runCli(['status', '--all'], { env });
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(`is owned by uid ${NOBODY}`);
  });

  it.skipIf(!isRoot)('a registration planted by another uid is refused: register --delete sends no DELETE to its registration_client_uri', async () => {
    const issuer = as.url;
    const name = `server-${createHash('sha256').update(issuer).digest('hex').slice(0, 24)}.json`;
    const registration = {
      version: 1,
      server: issuer,
      client_id: 'planted',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
      registration_client_uri: `${evil.url}/register/planted`,
      registration_access_token: 'rat',
      registered_at: 1,
    };
    asNobody(`mkdir -p state/oauthctl/registrations && cat > state/oauthctl/registrations/${name}`, JSON.stringify(registration));
    const r = await runCli(['register', '--delete', '--auth-url', issuer], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`the registrations directory ${join(shared, 'state', 'oauthctl', 'registrations')} is owned by uid ${NOBODY}, not by you`);
    expect(evil.requests).toHaveLength(0);
    // The same files made ours: the registrations directory is checked as well as the tokens one.
    execFileSync('chown', ['-R', '0:0', join(shared, 'state')]);
    chmodSync(join(shared, 'state', 'oauthctl', 'registrations'), 0o777);
    const writable = await runCli(['register', '--delete', '--auth-url', issuer], { env });
    expect(writable.code).toBe(2);
    expect(writable.stderr).toContain(`the registrations directory ${join(shared, 'state', 'oauthctl', 'registrations')} is writable by others (mode 777)`);
    expect(evil.requests).toHaveLength(0);
  });
});

describe.skipIf(process.platform === 'win32')('the token endpoint a refresh sends the client secret to', () => {
  function plant(tokenEndpoint: string): void {
    mkdirSync(tokensDir(), { recursive: true, mode: 0o700 });
    writeFileSync(join(tokensDir(), 'profile-work.json'), entry(tokenEndpoint), { mode: 0o600 });
  }

  it("an entry in our own directory that names another server's token endpoint: refused, no Authorization: Basic there", async () => {
    await addWorkProfile();
    plant(`${evil.url}/token`);
    const r = await runCli(['token', '--profile', 'work', '--no-login'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`names the token endpoint ${evil.url}/token, not ${as.url}/token of profile "work"; nothing was sent to it`);
    expect(evil.requests).toHaveLength(0);
    expect(sentBasic(as)).toHaveLength(0);
  });

  it("the profile's own token endpoint gets the refresh with the client secret", async () => {
    await addWorkProfile();
    plant(`${as.url}/token`);
    as.token = { body: { access_token: 'fresh-access', token_type: 'Bearer', expires_in: 3600 } };
    const r = await runCli(['token', '--profile', 'work', '--no-login'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('fresh-access\n');
    expect(sentBasic(as)).toHaveLength(1);
    expect(Buffer.from(String(sentBasic(as)[0]!.headers.authorization).slice(6), 'base64').toString()).toBe('photo-web:web-secret');
    expect(as.to('/token')[0]!.form).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'planted-refresh' });
    expect(evil.requests).toHaveLength(0);
  });

  it("an issuer profile: the token endpoint is the one its metadata names (RFC 8414), and the entry's is refused", async () => {
    const mock = await createMockServer(undefined, { port: 0 });
    try {
      const add = await runCli(['profile', 'add', 'work', '--issuer', mock.issuer, '--client-id', 'photo-web', '--client-secret', 'web-secret'], { env });
      expect(add.code, add.stderr).toBe(0);
      plant(`${evil.url}/token`);
      const r = await runCli(['token', '--profile', 'work', '--no-login'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`names the token endpoint ${evil.url}/token, not ${mock.authUrl}/token of profile "work"`);
      expect(evil.requests).toHaveLength(0);
      expect(mock.requests().filter((q) => q.path === '/token')).toHaveLength(0);
    } finally {
      await mock.close();
    }
  });

  it('a server named by flags binds the same way: --token-endpoint of ours, an entry of theirs', async () => {
    mkdirSync(tokensDir(), { recursive: true, mode: 0o700 });
    const key = createHash('sha256').update(`${as.url}\nphoto-web`).digest('hex').slice(0, 24);
    writeFileSync(join(tokensDir(), `client-${key}.json`), entry(`${evil.url}/token`, { profile: undefined }), { mode: 0o600 });
    const r = await runCli(['token', '--token-endpoint', `${as.url}/token`, '--client-id', 'photo-web', '--client-secret', 'web-secret', '--no-login'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`not ${as.url}/token of the flags given`);
    expect(evil.requests).toHaveLength(0);
  });
});

describe.skipIf(process.platform === 'win32')('waiting for a live refresh lock', () => {
  function plantLockedEntry(): string {
    mkdirSync(tokensDir(), { recursive: true, mode: 0o700 });
    const path = join(tokensDir(), 'profile-work.json');
    writeFileSync(path, entry(`${as.url}/token`), { mode: 0o600 });
    // This test process is alive: its lock is a live holder's, never taken over.
    writeFileSync(`${path}.lock`, `${process.pid} feedfacefeedface\n`, { mode: 0o600 });
    return path;
  }

  it('--timeout 1 gives up after 1 s, in one line naming the lock', async () => {
    await addWorkProfile();
    const path = plantLockedEntry();
    const started = Date.now();
    const r = await runCli(['token', '--profile', 'work', '--no-login', '--timeout', '1'], { env });
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(r.stderr).toContain('waiting for another oauthctl');
    expect(r.stderr).toMatch(new RegExp(`oauthctl: error: gave up after 1 s waiting for another oauthctl refreshing profile "work".*remove ${path}\\.lock`));
    expect(as.requests).toHaveLength(0);
  });

  it('--timeout 20 still waits past 10 s, and takes the token the holder left', async () => {
    await addWorkProfile();
    const path = plantLockedEntry();
    const child = spawn(process.execPath, [BIN, 'token', '--profile', 'work', '--no-login', '--timeout', '20'], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await until(() => stderr.includes('waiting for another oauthctl'));
      const waitingSince = Date.now();
      // The old fixed wait gave up 10 s after the lock was found held: be past it.
      await until(() => Date.now() - waitingSince > 11_000 || child.exitCode !== null, 15_000);
      expect(child.exitCode, stderr).toBeNull();
      writeFileSync(path, entry(`${as.url}/token`, { access_token: 'left-by-the-holder', expires_at: Math.floor(Date.now() / 1000) + 3600 }), { mode: 0o600 });
      rmSync(`${path}.lock`);
      expect(await exited, stderr).toBe(0);
      expect(stdout).toBe('left-by-the-holder\n');
      expect(as.requests).toHaveLength(0);
    } finally {
      child.kill();
    }
  }, 40_000);
});

/** Polls a condition (the machine may be loaded: the wait is for the condition, bounded). */
async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('git asks for an https login over plain http (RFC 6750 section 5.3)', () => {
  it('real git: the https profile answers https and nothing for http of the same host', async () => {
    const server = 'https://127.0.0.1:8443';
    const add = await runCli(['profile', 'add', 'git', '--auth-url', server, '--client-id', 'photo-cli', '--host', '127.0.0.1:8443'], { env });
    expect(add.code, add.stderr).toBe(0);
    mkdirSync(tokensDir(), { recursive: true, mode: 0o700 });
    const valid = entry(`${server}/token`, { profile: 'git', access_token: 'https-only-token', expires_at: Math.floor(Date.now() / 1000) + 3600 });
    writeFileSync(join(tokensDir(), 'profile-git.json'), valid, { mode: 0o600 });
    const helper = `!${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} credential git`;
    const fill = (protocol: string) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const git = spawn('git', ['-c', 'credential.helper=', '-c', `credential.helper=${helper}`, 'credential', 'fill'], {
          env: { ...cliEnv(env), GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ASKPASS: '' },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        git.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        git.on('close', (code) => resolve({ code, stdout }));
        git.stdin.end(`protocol=${protocol}\nhost=127.0.0.1:8443\npath=repo.git\n\n`);
      });
    const https = await fill('https');
    expect(https.code).toBe(0);
    expect(https.stdout).toContain('password=https-only-token');
    const http = await fill('http');
    expect(http.code).not.toBe(0);
    expect(http.stdout).not.toContain('https-only-token');
  });
});
