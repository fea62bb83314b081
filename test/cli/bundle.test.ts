// The command line runs from a bundled file with a V8 code cache (docs/ARCHITECTURE.md, "How the command
// line starts"): dist/oauthctl.cjs, or the smallest bundle of bin/bundles.json that has the command.
// These check that what `npm run build` made is what runs, that each cache is one this Node accepts (a
// stale cache would cost start-up time, silently), and that the bundles are the same program where they
// overlap. import() of an ES module package from the bundle (`open`) is
// covered by test/daily/browser-fallback.test.ts.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARIES } from '../../src/cli/command-table.js';
import { BIN, ROOT } from '../helpers/cli.js';

const LOADER = join(ROOT, 'bin', 'load-cli.js');
const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1', COLUMNS: '100' };

function node(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const BUNDLES = JSON.parse(readFileSync(join(ROOT, 'bin', 'bundles.json'), 'utf8')) as Record<string, string[]>;
const ALL_BUNDLES = ['oauthctl.cjs', ...Object.keys(BUNDLES)];

/** Runs a command line in the named bundle (a file in dist/), whatever bin/load-cli.js would choose. */
function inBundle(file: string, argv: string[]) {
  const loader = JSON.stringify(LOADER);
  return node(['-e', `require(${loader}).loadCli('code-cache', ${JSON.stringify(join(ROOT, 'dist', file))}).cli.main(${JSON.stringify(argv)});`]);
}

describe('the bundled command line', () => {
  it('bin/oauthctl.js is CommonJS; each bundle has a code cache for this V8, newer than itself', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'bin', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    for (const name of ALL_BUNDLES) {
      const cache = join(ROOT, 'dist', `${name}.v8-${process.versions.v8}.cache`);
      expect(statSync(cache).mtimeMs).toBeGreaterThanOrEqual(statSync(join(ROOT, 'dist', name)).mtimeMs);
    }
  });

  it('the code caches made at build time are accepted by this Node, and the CLI runs from them', () => {
    const loader = JSON.stringify(LOADER);
    const r = node([
      '-e',
      `const l = require(${loader}); console.log(JSON.stringify([l.BUNDLE, ...l.BUNDLES.map((b) => b.bundle)].map((b) => { const { cli, script } = l.loadCli('code-cache', b); return { rejected: script.cachedDataRejected, exports: Object.keys(cli).sort() }; })));`,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(ALL_BUNDLES.map(() => ({ rejected: false, exports: ['main', 'warmUp'] })));
  });

  it('a cache that does not match the bundle is rejected by V8 and the CLI still runs (compiled afresh)', () => {
    const cache = JSON.stringify(join(ROOT, 'dist', `oauthctl.cjs.v8-${process.versions.v8}.cache`));
    const r = node([
      '-e',
      `const fs = require('node:fs'); const real = fs.readFileSync; fs.readFileSync = (f, ...a) => f === ${cache} ? Buffer.from('not a V8 code cache') : real(f, ...a);` +
        `const { cli, script } = require(${JSON.stringify(LOADER)}).loadCli('code-cache');` +
        `cli.warmUp([['pkce', '--json']], {}).then((codes) => console.log(JSON.stringify({ rejected: script.cachedDataRejected, codes })));`,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rejected: true, codes: [0] });
  });

  it('every bundle is the same program as the full one for what it has: help, version, no command, and its commands', () => {
    for (const [file, names] of Object.entries(BUNDLES)) {
      for (const argv of [
        ['--help'],
        ['--version'],
        [],
        ['help'],
        ['-q', '--bogus'],
        ...names.flatMap((n) => [
          [n, '--help'],
          ['help', n],
          [n, '--bogus'],
        ]),
      ]) {
        expect(inBundle(file, argv), `${file}: oauthctl ${argv.join(' ')}`).toEqual(inBundle('oauthctl.cjs', argv));
      }
    }
    expect(JSON.parse(inBundle('oauthctl-fast.cjs', ['pkce', '--json']).stdout)).toMatchObject({ code_challenge_method: 'S256' });
  }, 120_000);

  it('parse5 and tough-cookie come from their own bundle, with its code cache, loaded once per process', () => {
    // The command bundles ask bin/load-cli.js for them instead of requiring the packages.
    for (const name of ALL_BUNDLES) {
      const source = readFileSync(join(ROOT, 'dist', name), 'utf8');
      expect(source, name).not.toMatch(/require\("(parse5|tough-cookie)"\)/);
    }
    const loader = JSON.stringify(LOADER);
    const r = node([
      '-e',
      `const l = require(${loader}); const libs = l.loadPageLibraries('code-cache');` +
        `const doc = libs.parse5.parse('<form action="/login"><input name=username></form>');` +
        `console.log(JSON.stringify({ rejected: l.pageLibrariesScript().cachedDataRejected, once: l.loadPageLibraries() === libs, parsed: doc.nodeName, jar: typeof libs.toughCookie.CookieJar }));`,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rejected: false, once: true, parsed: '#document', jar: 'function' });
  });

  it('tough-cookie in the page bundle (its IPv6 test answered early for names without a colon) keeps cookies as the package does', () => {
    const loader = JSON.stringify(LOADER);
    const r = node([
      '-e',
      `const { CookieJar } = require(${loader}).loadPageLibraries('code-cache').toughCookie; const jar = new CookieJar();` +
        `const set = (c, u) => { try { jar.setCookieSync(c, u); return 'kept'; } catch (e) { return 'refused'; } };` +
        `const out = { v6: set('a=1; Path=/', 'http://[::1]:8080/login'), v4: set('b=2; Path=/', 'http://127.0.0.1:8080/login'), host: set('c=3; Domain=example.com', 'https://login.example.com/'), suffix: set('d=4; Domain=com', 'https://login.example.com/') };` +
        `out.sentV6 = jar.getCookieStringSync('http://[::1]:8080/consent'); out.sentV4 = jar.getCookieStringSync('http://127.0.0.1:8080/consent'); out.sentSub = jar.getCookieStringSync('https://www.example.com/');` +
        `console.log(JSON.stringify(out));`,
    ]);
    expect(r.stderr).toBe('');
    // Domain=com is a public suffix (tldts): refused, as RFC 6265 section 5.3 step 5 says.
    expect(JSON.parse(r.stdout)).toEqual({ v6: 'kept', v4: 'kept', host: 'kept', suffix: 'refused', sentV6: 'a=1', sentV4: 'b=2', sentSub: 'c=3' });
  });

  it('bin/oauthctl.js sends every command to the bundle that has it: each one shows its help', () => {
    for (const name of [...Object.keys(SUMMARIES), 'completion']) {
      const r = node([BIN, name, '--help']);
      expect(r.status, `oauthctl ${name} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: oauthctl ${name} `));
    }
    expect(node([BIN, 'help', 'login']).stdout).toMatch(/^Usage: oauthctl login /);
  });
});
