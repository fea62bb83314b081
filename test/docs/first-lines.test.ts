// The README's first lines, as a new user runs them. A fresh clone of the repository, its
// two set-up commands (`npm install`, `npm link`), then the next line (`oauthctl demo`) and the
// one-minute try, each as written, from a shell whose PATH is what the set-up leaves: npm's global bin
// directory (here a temporary prefix) and where node is, nothing of this checkout. npm installs from a
// registry on 127.0.0.1 that serves npm's own cached tarballs of this checkout's node_modules, so no
// internet is needed and the lockfile's integrity holds.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_BROWSER, ROOT } from '../helpers/cli.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/local-registry.js';

/** The shell blocks of a README section, each as its lines (comments and blank lines left out). */
function sectionBlocks(readme: string, heading: string): string[][] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`the README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const [setUp = [], firstRun = []] = sectionBlocks(readme, 'Install');
const [mockLine = [], tryLines = []] = sectionBlocks(readme, 'A one-minute try');

let dir: string;
let registry: LocalRegistry;
let clone: string;
let env: Record<string, string>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-first-lines-'));
  registry = await startLocalRegistry(join(ROOT, 'node_modules'));
  clone = join(dir, 'oauthctl');
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  mkdirSync(join(dir, 'home'));
  env = {
    // What the set-up leaves: npm's global bin directory on PATH (npm link writes there), and node.
    PATH: [join(dir, 'prefix', 'bin'), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: join(dir, 'home'),
    npm_config_prefix: join(dir, 'prefix'),
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_registry: registry.url,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
  };
}, 60_000);
afterAll(async () => {
  await registry?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(line: string, cwd: string, extra: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** The README's very first shell blocks, before any section: the set-up, then the first run. */
function topBlocks(text: string): string[][] {
  const top = text.slice(0, text.indexOf('\n## '));
  return [...top.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l !== ''),
  );
}

describe("the README's first lines, in a fresh clone", () => {
  it('open with the two set-up commands (install and build; test), then `oauthctl demo`: the same as the Install section, and the test command CI runs', () => {
    const [first = [], then = []] = topBlocks(readme);
    expect(first).toEqual([setUp.join(' && '), 'npm test']);
    expect(then).toEqual(firstRun);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/\bnpm test\n/);
  });

  it('are two set-up commands, then `oauthctl demo`, then the mock and a login', () => {
    expect(setUp).toEqual(['npm install', 'npm link']);
    expect(firstRun).toEqual(['oauthctl demo']);
    expect(mockLine).toHaveLength(1);
    expect(mockLine[0]).toMatch(/^oauthctl serve-mock --port 9000 /);
    expect(tryLines.length).toBeGreaterThan(0);
  });

  it('the set-up makes `oauthctl` a command, and the next line runs at once', async () => {
    for (const line of setUp) {
      const r = await sh(line, clone);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    expect((await sh('command -v oauthctl', dir)).stdout.trim()).toBe(join(dir, 'prefix', 'bin', 'oauthctl'));
    // No BROWSER and no display, as over SSH: the demo logs in with the built-in user agent.
    const demo = await sh(firstRun[0]!, dir);
    expect(demo.code, demo.stderr).toBe(0);
    expect(JSON.parse(demo.stdout)).toBeTruthy();
  }, 240_000);

  it('the one-minute try runs as written: the mock left running, then login and call from another shell', async () => {
    const port = String(await freePort());
    const mock = spawn('bash', ['-c', `exec ${mockLine[0]!.replace('--port 9000', `--port ${port}`)}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        const look = (d: string) => {
          seen += d;
          if (seen.includes(`127.0.0.1:${port}`)) resolve();
        };
        mock.stdout.setEncoding('utf8').on('data', look);
        mock.stderr.setEncoding('utf8').on('data', look);
        mock.on('close', () => reject(new Error(`the mock stopped: ${seen}`)));
      });
      // The person at the browser: a browser that follows the redirects (the mock logs alice in by itself).
      for (const line of tryLines) {
        const r = await sh(line.replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`), dir, { BROWSER: FAKE_BROWSER });
        expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      }
    } finally {
      mock.kill('SIGTERM');
    }
  }, 60_000);
});
