// The token where other programs need it, over real processes: kubectl (an exec block in a
// kubeconfig) against a local HTTPS API stand-in, git cloning over HTTP from a server that requires the
// token, curl -H @-, and many helpers at once sharing one refresh and one login.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { makeSelfSigned } from '../../helpers/certificates.js';
import { BIN, type CliResult, FAKE_BROWSER, homeEnv, runCli } from '../../helpers/cli.js';

let mock: MockServer;
const homes: string[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice', port: 0 });
});
afterAll(async () => {
  await mock.close();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A home of the test's own: profiles and the token cache start empty. */
function newHome(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'oauthctl-helpers-'));
  homes.push(home);
  return homeEnv(home);
}

const HEADLESS = { OAUTHCTL_USERNAME: 'alice', OAUTHCTL_PASSWORD: 'wonderland' };

/** A profile `p` for photo-cli at the mock, bound to `host`; logged in headlessly unless `login` is false. */
async function profileIn(env: Record<string, string>, host = '127.0.0.1:1', login = true): Promise<void> {
  const added = await runCli(['profile', 'add', 'p', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'openid photo offline_access', '--host', host], { env });
  expect(added.code, added.stderr).toBe(0);
  if (!login) return;
  const r = await runCli(['login', '--profile', 'p', '--headless'], { env: { ...env, ...HEADLESS } });
  expect(r.code, r.stderr).toBe(0);
}

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

const run = (file: string, args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(file, args, { env, cwd, encoding: 'utf8' }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });

describe('token --format for other programs', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = newHome();
    await profileIn(env);
  });

  it('curl -H @- sends the header of --format header, and the API answers', async () => {
    const r = await run('sh', ['-c', `"${process.execPath}" "${BIN}" token --profile p --format header | curl -sS -f -H @- ${mock.authUrl}/api/me`], {
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      ...env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sub: 'alice' });
  });

  it('json gives the token, its type, an RFC 3339 expiry and the scopes', async () => {
    const r = await runCli(['token', '--profile', 'p', '--format', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ token_type: 'Bearer', scopes: ['openid', 'photo', 'offline_access'] });
    expect(json.expiry).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const bare = await runCli(['token', '--profile', 'p'], { env });
    expect(json.access_token).toBe(bare.stdout.trim());
  });

  it('exec-credential takes the API version from KUBERNETES_EXEC_INFO, else --exec-api-version; bad ones are one line, exit 2', async () => {
    const info = JSON.stringify({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: false } });
    const fromKubectl = await runCli(['token', '--profile', 'p', '--format', 'exec-credential', '--exec-api-version', 'client.authentication.k8s.io/v1beta1'], {
      env: { ...env, KUBERNETES_EXEC_INFO: info },
    });
    expect(JSON.parse(fromKubectl.stdout)).toMatchObject({ kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1' });
    const fromFlag = await runCli(['token', '--profile', 'p', '--format', 'exec-credential', '--exec-token', 'access_token', '--exec-api-version', 'client.authentication.k8s.io/v1'], { env });
    const access = (await runCli(['token', '--profile', 'p'], { env })).stdout.trim();
    expect(JSON.parse(fromFlag.stdout)).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', status: { token: access } });
    const bad = await runCli(['token', '--profile', 'p', '--format', 'exec-credential'], { env: { ...env, KUBERNETES_EXEC_INFO: '{"apiVersion":"client.authentication.k8s.io/v9"}' } });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('kubectl runs the exec block of a kubeconfig and sends the ID token to an HTTPS API', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauthctl-kube-'));
    homes.push(dir);
    const tls = makeSelfSigned(dir, 'api');
    const seen: string[] = [];
    const api = createHttpsServer({ key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) }, (req, res) => {
      seen.push(String(req.headers.authorization));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    const port = await listen(api);
    const kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:${port}
    certificate-authority: ${tls.certFile}
users:
- name: oauthctl
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ${process.execPath}
      args: [${JSON.stringify(BIN)}, token, --profile, p, --format, exec-credential]
      interactiveMode: IfAvailable
contexts:
- name: local
  context: {cluster: local, user: oauthctl}
current-context: local
`,
    );
    const r = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/api/v1/namespaces'], { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env });
    expect(r.code, r.stderr).toBe(0);
    const credential = JSON.parse((await runCli(['token', '--profile', 'p', '--format', 'exec-credential'], { env })).stdout) as { status: { token: string } };
    expect(seen).toContain(`Bearer ${credential.status.token}`);
  });
});

describe('credential git', () => {
  let env: Record<string, string>;
  let port: number;
  const authorizations: string[] = [];
  beforeAll(async () => {
    env = newHome();
    // A dumb-HTTP repository served only to a request that carries the access token (as Basic's password, as git sends it).
    const repoDir = join(env.HOME!, 'served');
    mkdirSync(repoDir);
    const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, env: { PATH: process.env.PATH ?? '', ...env, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'ignore' });
    git(['init', '-q', '-b', 'main', 'work'], repoDir);
    writeFileSync(join(repoDir, 'work', 'README'), 'hello through oauthctl\n');
    git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', 'README'], join(repoDir, 'work'));
    git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'first'], join(repoDir, 'work'));
    git(['clone', '-q', '--bare', 'work', 'repo.git'], repoDir);
    git(['update-server-info'], join(repoDir, 'repo.git'));
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const auth = String(req.headers.authorization ?? '');
      authorizations.push(auth);
      const password = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':').slice(1).join(':') : '';
      const current = readTokenFile();
      if (password === '' || password !== current) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="repo"' }).end();
        return;
      }
      const path = join(repoDir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      if (!path.startsWith(repoDir) || !existsSync(path)) {
        res.writeHead(404).end();
        return;
      }
      res.end(readFileSync(path));
    });
    port = await listen(server);
    await profileIn(env, `127.0.0.1:${port}`);
  });

  const tokenFile = () => join(env.XDG_STATE_HOME!, 'oauthctl', 'tokens', 'profile-p.json');
  const readTokenFile = () => (JSON.parse(readFileSync(tokenFile(), 'utf8')) as { access_token: string }).access_token;

  it('git clones over HTTP with the token the helper gives', async () => {
    const dest = join(env.HOME!, 'clone');
    const helper = `!"${process.execPath}" "${BIN}" credential git`;
    const r = await run('git', ['-c', 'credential.helper=', '-c', `credential.helper=${helper}`, 'clone', '-q', `http://127.0.0.1:${port}/repo.git`, dest], {
      PATH: process.env.PATH ?? '',
      ...env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dest, 'README'), 'utf8')).toBe('hello through oauthctl\n');
    expect(authorizations.some((a) => a === `Basic ${Buffer.from(`oauth2:${readTokenFile()}`).toString('base64')}`)).toBe(true);
  });

  it('get answers with authtype=Bearer when git announces the capability, and nothing for a host no profile names', async () => {
    const bearer = await runCli(['credential', 'git', 'get'], { env, input: `capability[]=authtype\nprotocol=http\nhost=127.0.0.1:${port}\n\n` });
    expect(bearer.stdout).toMatch(new RegExp(`^capability\\[\\]=authtype\\nauthtype=Bearer\\ncredential=${readTokenFile().replace(/[.]/g, '\\.')}\\npassword_expiry_utc=\\d+\\n$`));
    const other = await runCli(['credential', 'git', 'get'], { env, input: 'protocol=https\nhost=github.com\n\n' });
    expect(other).toMatchObject({ code: 0, stdout: '' });
    const ssh = await runCli(['credential', 'git', 'get'], { env, input: `protocol=ssh\nhost=127.0.0.1:${port}\n\n` });
    expect(ssh.stdout).toBe('');
  });

  it('erase after a 401 forgets the access token, and the next get refreshes it', async () => {
    const before = readTokenFile();
    mock.clearRequests();
    const erased = await runCli(['credential', 'git', 'erase'], { env, input: `protocol=http\nhost=127.0.0.1:${port}\nusername=oauth2\npassword=${before}\n\n` });
    expect(erased).toMatchObject({ code: 0, stdout: '' });
    const got = await runCli(['credential', 'git', 'get'], { env, input: `protocol=http\nhost=127.0.0.1:${port}\n\n` });
    const password = /^password=(.*)$/m.exec(got.stdout)?.[1];
    expect(password).toBeDefined();
    expect(password).not.toBe(before);
    expect(mock.requests().filter((q) => q.form?.grant_type === 'refresh_token')).toHaveLength(1);
  });

  it('an erase naming another token changes nothing; a flood on stdin and a forged line are refused', async () => {
    const before = readTokenFile();
    await runCli(['credential', 'git', 'erase'], { env, input: `protocol=http\nhost=127.0.0.1:${port}\npassword=not-the-token\n\n` });
    expect(readTokenFile()).toBe(before);
    const flood = await runCli(['credential', 'git', 'get'], { env, input: `protocol=http\nhost=${'a'.repeat(100_000)}\n\n` });
    expect(flood.code).toBe(2);
    expect(flood.stdout).toBe('');
    const garbage = await runCli(['credential', 'git', 'get'], { env, input: 'no equals sign here\n\n' });
    expect(garbage.code).toBe(2);
    expect(garbage.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/** n `token` runs at once, each its own process. */
function inParallel(n: number, args: string[], env: Record<string, string>): Promise<CliResult[]> {
  return Promise.all(Array.from({ length: n }, () => runCli(args, { env })));
}

describe('one login for many callers', () => {
  it('20 parallel token runs on an expired cache do one refresh (the mock request log), and all print its token', async () => {
    const env = newHome();
    await profileIn(env);
    const file = join(env.XDG_STATE_HOME!, 'oauthctl', 'tokens', 'profile-p.json');
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...entry, expires_at: 1000 }), { mode: 0o600 });
    mock.clearRequests();
    const results = await inParallel(20, ['token', '--profile', 'p'], env);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(mock.requests().filter((q) => q.form?.grant_type === 'refresh_token')).toHaveLength(1);
    expect(new Set(results.map((r) => r.stdout)).size).toBe(1);
    expect(results[0]!.stdout.trim()).not.toBe(entry.access_token);
  }, 60_000);

  it('20 parallel token runs on an empty cache open one browser; the others say what they wait for', async () => {
    const env = newHome();
    await profileIn(env, '127.0.0.1:1', false);
    const log = join(env.HOME!, 'browser.log');
    mock.clearRequests();
    const results = await inParallel(20, ['token', '--profile', 'p'], { ...env, BROWSER: FAKE_BROWSER, FAKE_BROWSER_LOG: log });
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const opened = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('GET ') && l.includes('/authorize?'));
    expect(opened).toHaveLength(1);
    expect(mock.requests().filter((q) => q.form?.grant_type === 'authorization_code')).toHaveLength(1);
    expect(new Set(results.map((r) => r.stdout)).size).toBe(1);
    expect(results.filter((r) => /waiting for another oauthctl \(pid \d+\) that is logging in for profile "p"/.test(r.stderr)).length).toBeGreaterThan(0);
  }, 90_000);

  it('a login lock whose holder has died blocks nobody', async () => {
    const env = newHome();
    await profileIn(env, '127.0.0.1:1', false);
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('close', resolve));
    const dir = join(env.XDG_STATE_HOME!, 'oauthctl', 'tokens');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'profile-p.json.login.lock'), `${dead.pid} 0123456789abcdef\n`, { mode: 0o600 });
    const r = await runCli(['token', '--profile', 'p', '--timeout', '20'], { env: { ...env, ...HEADLESS } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(20);
  });

  it('a waiter gives up after its own --timeout while a live holder keeps the lock, in one line', async () => {
    const env = newHome();
    await profileIn(env, '127.0.0.1:1', false);
    const dir = join(env.XDG_STATE_HOME!, 'oauthctl', 'tokens');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'profile-p.json.login.lock'), `${process.pid} 0123456789abcdef\n`, { mode: 0o600 });
    const r = await runCli(['token', '--profile', 'p', '--timeout', '1'], { env: { ...env, ...HEADLESS } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`waiting for another oauthctl \\(pid ${process.pid}\\)`));
    expect(r.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: gave up after 1 s waiting for another oauthctl logging in for profile "p"/);
  });

  it('without a way to log in here (no browser, no terminal, no account in the environment) token fails as before, exit 1', async () => {
    const env = newHome();
    await profileIn(env, '127.0.0.1:1', false);
    const r = await runCli(['token', '--profile', 'p'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no cached login for profile "p"/);
  });
});

describe('concurrent logins', () => {
  it('3 parallel `login --profile p` open one browser; the ones that waited use its tokens', async () => {
    const env = newHome();
    await profileIn(env, '127.0.0.1:1', false);
    const log = join(env.HOME!, 'browser.log');
    const results = await Promise.all(Array.from({ length: 3 }, () => runCli(['login', '--profile', 'p', '--json'], { env: { ...env, BROWSER: FAKE_BROWSER, FAKE_BROWSER_LOG: log } })));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const opened = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('GET ') && l.includes('/authorize?'));
    expect(opened).toHaveLength(1);
    expect(new Set(results.map((r) => (JSON.parse(r.stdout) as { access_token: string }).access_token)).size).toBe(1);
    expect(results.filter((r) => /another oauthctl logged in for profile p meanwhile/.test(r.stderr))).toHaveLength(2);
  }, 60_000);
});
