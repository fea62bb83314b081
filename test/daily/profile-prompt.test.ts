import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { run } from '../../src/cli/program/main.js';
import { runCli, testIO } from './helpers/io.js';

let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'oauthctl-profile-'));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('oauthctl profile', () => {
  const path = () => join(home, 'config', 'oauthctl', 'config.json');

  it('adds, lists, shows (secret redacted unless --show-secrets) and removes profiles', async () => {
    const add = await runCli(
      [
        'profile',
        'add',
        'work',
        '--issuer',
        'https://id.example.com',
        '--client-id',
        'web',
        '--client-secret',
        's3cret-value',
        '--scope',
        'openid',
        '--scope',
        'email+profile',
        '--param',
        'prompt=consent',
      ],
      env,
    );
    expect(add.code).toBe(0);
    expect(add.stderr).toMatch(/Added profile work in .*config\.json/);
    expect(add.stderr).toMatch(/client secret is stored in the file/);
    expect(statSync(path()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path(), 'utf8')).profiles.work).toEqual({
      issuer: 'https://id.example.com',
      client_id: 'web',
      client_secret: 's3cret-value',
      scope: 'openid email profile',
      params: { prompt: 'consent' },
    });
    await runCli(['profile', 'add', 'mock', '--auth-url', 'http://127.0.0.1:9000', '--client-id', 'photo-cli', '--pkce'], env);

    const list = await runCli(['profile', 'list'], env);
    expect(list.stdout).toBe('work  https://id.example.com  web\nmock  http://127.0.0.1:9000  photo-cli\n');
    expect((await runCli(['profile', 'list', '--names'], env)).stdout).toBe('work\nmock\n');

    const show = await runCli(['profile', 'show', 'work'], env);
    expect(show.stdout).toContain('client_secret: [redacted 12 chars]');
    expect(show.stdout).not.toContain('s3cret-value');
    expect((await runCli(['profile', 'show', 'work', '--show-secrets'], env)).stdout).toContain('client_secret: s3cret-value');
    const json = JSON.parse((await runCli(['profile', 'list', '--json'], env)).stdout);
    expect(json.profiles[0]).toMatchObject({ name: 'work', client_secret: '[redacted 12 chars]' });

    expect((await runCli(['profile', 'remove', 'work'], env)).code).toBe(0);
    expect((await runCli(['profile', 'list', '--names'], env)).stdout).toBe('mock\n');
  });

  it('refuses to replace a profile without --force, and bad input with exit 2', async () => {
    await runCli(['profile', 'add', 'p', '--client-id', 'a'], env);
    const again = await runCli(['profile', 'add', 'p', '--client-id', 'b'], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/profile "p" already exists .*\(add --force to replace it/);
    expect((await runCli(['profile', 'add', 'p', '--client-id', 'b', '--force'], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(path(), 'utf8')).profiles.p.client_id).toBe('b');
    for (const [argv, message] of [
      [['profile', 'add', '../evil', '--client-id', 'x'], /profile name "..\/evil" must be/],
      [['profile', 'add', 'q'], /a profile needs at least one setting/],
      [['profile', 'add', 'q', '--issuer', 'ftp://x'], /--issuer must be an http or https URL/],
      [['profile', 'add', 'q', '--client-secret', 'a', '--client-secret-env', 'B'], /cannot be used together/],
      [['profile', 'add', 'q', '--client-secret-env', '1BAD'], /client_secret_env: must be the name of an environment variable/],
      [['profile', 'show', 'nope'], /no profile named "nope"/],
      [['profile', 'remove', 'nope'], /no profile named "nope"/],
    ] as const) {
      const r = await runCli([...argv], env);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('shows whether the variable client_secret_env names is set', async () => {
    await runCli(['profile', 'add', 'e', '--client-id', 'web', '--client-secret-env', 'WEB_SECRET'], env);
    expect((await runCli(['profile', 'show', 'e'], env)).stdout).toContain('client_secret_env: WEB_SECRET (not set in this environment)');
    expect((await runCli(['profile', 'show', 'e'], { ...env, WEB_SECRET: 'x' })).stdout).toContain('client_secret_env: WEB_SECRET (set)');
  });
});

describe('prompts for missing options', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await createMockServer();
  });
  afterAll(async () => {
    await mock?.close();
  });

  /** A terminal on stdin: prompts reads keypresses from it. */
  function tty(): PassThrough & { isTTY: boolean; setRawMode: (mode: boolean) => void } {
    return Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  }
  async function waitFor(read: () => string, text: string): Promise<void> {
    for (let i = 0; i < 500 && !read().includes(text); i++) await new Promise((r) => setTimeout(r, 10));
    expect(read()).toContain(text);
  }

  it('asks for the client id and offers the scopes discovery lists, on a terminal', async () => {
    const stdin = tty();
    const io = testIO(env, stdin);
    const done = run(['url', '--issuer', mock.issuer], io);
    await waitFor(io.err, 'Client ID');
    stdin.write('photo-cli\r');
    await waitFor(io.err, 'Scope');
    for (const name of ['photo', 'offline_access', 'openid', 'profile', 'email']) expect(io.err()).toContain(name);
    // Choose the first offered scope (photo), move down twice and choose openid, then confirm.
    stdin.write(' ');
    stdin.write('\x1b[B');
    stdin.write('\x1b[B');
    stdin.write(' ');
    stdin.write('\r');
    expect(await done).toBe(0);
    const url = new URL(io.out().trim());
    expect(url.searchParams.get('client_id')).toBe('photo-cli');
    expect(url.searchParams.get('scope')).toBe('photo openid');
    expect(url.searchParams.get('nonce')).toBeTruthy();
  });

  it('never prompts when stdin is not a terminal, or with --json: the missing-option error, exit 2', async () => {
    const piped = await runCli(['url', '--issuer', mock.issuer], env);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/--client-id is required/);
    const io = testIO(env, tty());
    expect(await run(['url', '--issuer', mock.issuer, '--json'], io)).toBe(2);
    expect(io.err()).toMatch(/--client-id is required/);
    expect(io.err()).not.toContain('Client ID');
  });
});
