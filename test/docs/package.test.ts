import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/local-registry.js';

const run = promisify(execFile);
let dir: string;
let registry: LocalRegistry;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-pack-'));
  registry = await startLocalRegistry(join(ROOT, 'node_modules'));
});
afterAll(async () => {
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

// The README's CI recipe: the package is not on the registry, so it is packed and installed from the tarball.
describe('npm pack, then npm install -g ./oauthctl-0.1.0.tgz', () => {
  it('installs into a fresh prefix (dependencies from a registry on 127.0.0.1) and its bin runs', async () => {
    const env = { ...process.env, npm_config_cache: join(dir, 'cache'), npm_config_registry: registry.url, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: ROOT, env });
    const tarball = join(dir, packed.stdout.trim().split('\n').pop() ?? '');
    expect(tarball).toMatch(/oauthctl-\d+\.\d+\.\d+\.tgz$/);
    const prefix = join(dir, 'prefix');
    await run('npm', ['install', '--global', '--prefix', prefix, tarball], { cwd: dir, env });
    const version = await run(join(prefix, 'bin', 'oauthctl'), ['--version'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const pair = await run(join(prefix, 'bin', 'oauthctl'), ['pkce', '--json'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    expect(JSON.parse(pair.stdout)).toMatchObject({ code_challenge_method: 'S256' });
  }, 120_000);
});
