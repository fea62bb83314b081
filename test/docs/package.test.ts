import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
}, 60_000);

const npmEnv = () => ({ ...process.env, npm_config_cache: join(dir, 'cache'), npm_config_registry: registry.url, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });
const runs = (bin: string, args: string[]) => run(bin, args, { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });

/** The lines of the README's "Elsewhere" block: how to install it without a clone to work in. */
function elsewhere(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('\nElsewhere');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, ''))
    .filter(Boolean);
}

// Production installs stay small (uqr instead of qrcode, which pulled in yargs and its tree).
describe('the production dependency tree', () => {
  it('is at most 30 packages', async () => {
    const { stdout } = await run('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT });
    const packages = stdout.trim().split('\n').length - 1; // the first line is the project itself
    expect(packages).toBeGreaterThan(0);
    expect(packages).toBeLessThanOrEqual(30);
  });
});

describe("the README's first screen: installing elsewhere", () => {
  it('names the three ways, each tested below', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.indexOf('\nElsewhere')).toBeLessThan(readme.indexOf('\n## A one-minute try'));
    expect(elsewhere()).toEqual(['npm pack', 'npm install --global ./oauthctl-0.1.0.tgz', 'npm pack "git+file://$PWD"']);
  });
});

// From a git URL: npm clones it, installs its dependencies (the lockfile's, dev ones included, from
// npm's cached tarballs), runs `prepare` (the build) and packs it; the tarball is installed as above.
describe('npm pack "git+file://$PWD" in a clone, then npm install --global ./oauthctl-0.1.0.tgz', () => {
  it('installs into a fresh prefix and its bin runs', async () => {
    const clone = join(dir, 'clone');
    await run('git', ['clone', '--quiet', ROOT, clone]);
    const prefix = join(dir, 'git-prefix');
    const [, install, fromGit] = elsewhere();
    await run('bash', ['-c', fromGit!], { cwd: clone, env: npmEnv() });
    await run('bash', ['-c', install!], { cwd: clone, env: { ...npmEnv(), npm_config_prefix: prefix } });
    expect((await runs(join(prefix, 'bin', 'oauthctl'), ['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(JSON.parse((await runs(join(prefix, 'bin', 'oauthctl'), ['pkce', '--json'])).stdout)).toMatchObject({ code_challenge_method: 'S256' });
  }, 300_000);
});

// The README's CI recipe and first screen: the package is not on the registry, so it is packed and installed from the tarball.
describe('npm pack, then npm install --global ./oauthctl-0.1.0.tgz', () => {
  it('installs into a fresh prefix (dependencies from a registry on 127.0.0.1) and its bin runs', async () => {
    const env = npmEnv();
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: ROOT, env });
    const tarball = join(dir, packed.stdout.trim().split('\n').pop() ?? '');
    expect(tarball).toMatch(/oauthctl-\d+\.\d+\.\d+\.tgz$/);
    const prefix = join(dir, 'prefix');
    // The README's line as written, run where the tarball is.
    expect(elsewhere()[1]).toBe(`npm install --global ./${tarball.split('/').pop()}`);
    await run('bash', ['-c', elsewhere()[1]!], { cwd: dir, env: { ...env, npm_config_prefix: prefix } });
    const version = await run(join(prefix, 'bin', 'oauthctl'), ['--version'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const pair = await run(join(prefix, 'bin', 'oauthctl'), ['pkce', '--json'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    expect(JSON.parse(pair.stdout)).toMatchObject({ code_challenge_method: 'S256' });
  }, 120_000);
});
