// The command line runs from a bundled file with a V8 code cache (docs/ARCHITECTURE.md, "How the command
// line starts"): dist/oauthctl.cjs, or the smallest bundle of bin/bundles.json that has the command.
// These check that what `npm run build` made is what runs, that each cache is one this Node accepts (a
// stale cache would cost start-up time, silently), and that the bundles are the same program where they
// overlap. import() of an ES module package from the bundle (`open`) is
// covered by test/daily/browser-fallback.test.ts.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, serialize } from 'parse5';
import { getDomain } from 'tldts';
import { describe, expect, it } from 'vitest';
import { SUMMARIES } from '../../../src/cli/program/command-table.js';
import { BIN, ROOT } from '../../helpers/cli.js';

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

  it('no bundle calls import(): bin/load-cli.js runs them without a dynamic-import hook (esbuild makes require() of import())', () => {
    for (const name of [...ALL_BUNDLES, 'oauthctl-token.cjs', 'oauthctl-mcp.cjs', 'oauthctl-pages.cjs']) {
      expect(readFileSync(join(ROOT, 'dist', name), 'utf8'), name).not.toMatch(/\bimport\s*\(/);
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

  it('the hot paths of token and mcp have code caches of their own, made by running them, accepted by this Node', () => {
    const loader = JSON.stringify(LOADER);
    const r = node([
      '-e',
      `const l = require(${loader}); console.log(JSON.stringify([l.TOKEN_BUNDLE, l.MCP_BUNDLE].map((b) => { const { cli, script } = l.loadCli('code-cache', b); return { rejected: script.cachedDataRejected, exports: Object.keys(cli).sort() }; })));`,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([
      { rejected: false, exports: ['tokenFromCache'] },
      { rejected: false, exports: ['mcpFromCache'] },
    ]);
    // A fresh compile's cache holds the top level only; one made after the hot path ran holds the
    // functions it compiled. The fresh one is made in a process of its own: in the same one, V8's
    // in-memory compilation cache would hand back the warm code.
    const fresh = node([
      '-e',
      `const l = require(${loader}); const fs = require('node:fs'); const vm = require('node:vm');` +
        `console.log(JSON.stringify([l.TOKEN_BUNDLE, l.MCP_BUNDLE].map((b) => new vm.Script(fs.readFileSync(b, 'utf8'), { filename: b }).createCachedData().length)));`,
    ]);
    const freshSizes = JSON.parse(fresh.stdout) as number[];
    ['oauthctl-token.cjs', 'oauthctl-mcp.cjs'].forEach((name, i) => {
      const cache = statSync(join(ROOT, 'dist', `${name}.v8-${process.versions.v8}.cache`));
      expect(cache.mtimeMs).toBeGreaterThanOrEqual(statSync(join(ROOT, 'dist', name)).mtimeMs);
      expect(cache.size, name).toBeGreaterThan(2 * freshSizes[i]!);
    });
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
    // What a login's pages need is made when first used (scripts/build-cli.mjs warns when a package
    // changed so that a patch no longer applies): the entity tables and the public suffix list.
    const pages = readFileSync(join(ROOT, 'dist', 'oauthctl-pages.cjs'), 'utf8');
    expect(pages).toContain('htmlTables().keys');
    expect(pages).toContain('scripts/lazy-public-suffix.cjs');
    expect(pages).toMatch(/^[\x00-\x7f]*$/);
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

  it('parse5 in the page bundle (the named character references looked up lazily) reads pages as the package does', () => {
    const page =
      '<!doctype html><title>Sign in &middot; Example&trade;</title><p class=error>Wrong password&hellip; &amp; &lt;try again&gt; &copy 2026 &notin; &NotSquareSupersetEqual; &#x1F600; &unknown;</p>' +
      '<form action="/login?a=1&amp;b=2&copy=3"><input name=username value="al&quot;ice&nbsp;"><button name=go value="&rarr;">Go</button></form>';
    const loader = JSON.stringify(LOADER);
    const r = node(['-e', `const { parse5 } = require(${loader}).loadPageLibraries('code-cache'); console.log(JSON.stringify(parse5.serialize(parse5.parse(${JSON.stringify(page)}))));`]);
    expect(r.stderr).toBe('');
    const fromBundle = JSON.parse(r.stdout) as string;
    expect(fromBundle).toBe(serialize(parse(page)));
    expect(fromBundle).toContain('Sign in \u00b7 Example\u2122');
    expect(fromBundle).toContain('\u00a9 2026 \u2209 \u22e3 \u{1F600} &amp;unknown;');
    expect(fromBundle).toContain('action="/login?a=1&amp;b=2&amp;copy=3"');
  });

  it("tough-cookie's public suffix lookup in the page bundle answers as tldts does, and loads tldts for names only", () => {
    const hosts = [
      '127.0.0.1',
      '10.1.2.3',
      '::1',
      'fe80::1',
      '256.1.1.1',
      '1.2.3',
      'localhost',
      'com',
      'example.com',
      'login.example.co.uk',
      'github.io',
      'me.github.io',
      'xn--bcher-kva.example',
      'EXAMPLE.COM.',
    ];
    const lazy = join(ROOT, 'scripts', 'lazy-public-suffix.cjs');
    const options = { allowIcannDomains: true, allowPrivateDomains: true };
    const r = node([
      '-e',
      `const { getDomain } = require(${JSON.stringify(lazy)}); const loaded = () => Object.keys(require.cache).some((f) => /[\\/]tldts[\\/]/.test(f));` +
        `const ips = ['127.0.0.1', '::1'].map((h) => getDomain(h, ${JSON.stringify(options)})); const before = loaded();` +
        `const all = ${JSON.stringify(hosts)}.map((h) => getDomain(h, ${JSON.stringify(options)})); console.log(JSON.stringify({ ips, before, after: loaded(), all }));`,
    ]);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { ips: unknown[]; before: boolean; after: boolean; all: unknown[] };
    expect(out).toEqual({ ips: [null, null], before: false, after: true, all: hosts.map((h) => getDomain(h, options)) });
    expect(out.all[hosts.indexOf('login.example.co.uk')]).toBe('example.co.uk');
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
