// @napi-rs/keyring is an optional dependency: an install without it (--omit=optional, or a platform it
// has no build for) still runs, and --token-store keyring says in one line how to get it.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { homeEnv, ROOT, runCli } from '../helpers/cli.js';

let mock: MockServer;
let install: string;
beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice', port: 0 });
  // oauthctl as installed without the optional dependency: its bin and dist, and every package but @napi-rs/*.
  install = mkdtempSync(join(tmpdir(), 'oauthctl-no-keyring-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(install, part), { recursive: true });
  mkdirSync(join(install, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== '@napi-rs') symlinkSync(join(ROOT, 'node_modules', name), join(install, 'node_modules', name));
  }
});
afterAll(async () => {
  await mock.close();
  rmSync(install, { recursive: true, force: true });
});

describe('--token-store keyring without @napi-rs/keyring installed', () => {
  it('fails the login in one line naming the missing package and how to install it, and keeps nothing in the file', async () => {
    const home = join(install, 'home');
    const env = { PATH: process.env.PATH ?? '', ...homeEnv(home), NO_COLOR: '1' };
    const login = ['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--token-store', 'keyring'];
    const r = await runCli(['-q', ...login], { env, bin: join(install, 'bin', 'oauthctl.js') });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/the OS keyring support \(@napi-rs\/keyring, an optional dependency\) is not installed .*npm install --global @napi-rs\/keyring.*--token-store file/);
    const status = await runCli(['status', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], { env, bin: join(install, 'bin', 'oauthctl.js') });
    expect(status.code).toBe(1);
  }, 30_000);
});
