#!/usr/bin/env node
// Bundles the command line into one CommonJS file, dist/oauthctl.cjs, that bin/oauthctl.js loads, then
// makes its V8 code cache by running a few commands in one process (scripts/code-cache.cjs).
//
// Why: loading ~60 small ES modules one by one, then compiling them, was most of a command's start-up
// (npm run bench). One file, loaded through the CommonJS loader, with its compiled code cached, starts
// in a fraction of that. tsc's dist/ stays as it is for the library (createMockServer) and its types.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * An esbuild plugin that rewrites the package files `filter` matches: `patch` returns the new source,
 * or undefined when the file no longer reads as expected. The file is then bundled as it is (slower to
 * start, never wrong), with `warning` said when there is one.
 */
function patchSource(name, filter, patch, warning) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, async (args) => {
        const contents = patch(await readFile(args.path, 'utf8'));
        if (contents !== undefined) return { contents, loader: 'js' };
        if (warning) console.warn(`build-cli: ${warning}`);
        return undefined;
      });
    },
  };
}

/**
 * commander loads node:child_process when it loads, for executable subcommands (`git-style`), which
 * oauthctl does not have; that costs every command about a millisecond. Here its one use, spawn(), loads
 * the module when called instead.
 */
const lazyChildProcessInCommander = patchSource('lazy-child-process-in-commander', /[\\/]commander[\\/]lib[\\/]command\.js$/, (source) => {
  const eager = "const childProcess = require('node:child_process');";
  return source.includes(eager) ? source.replace(eager, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };") : undefined;
});

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import() of a package or built-in becomes require(): a script compiled from a V8 code cache loses
  // vm.Script's dynamic import callback on Node 20, and require() loads ES modules since Node 20.19.
  supported: { 'dynamic-import': false },
  // Loaded only by the commands that need them, and large: left as packages of their own.
  external: ['open', 'prompts', 'uqr', 'undici', 'playwright-core', '@napi-rs/keyring', 'jsonc-parser'],
  logLevel: 'warning',
  // The version is package.json's (src/cli/program/version.ts).
  define: { __OAUTHCTL_VERSION__: JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version) },
};

/**
 * parse5 and tough-cookie (with tldts, the public suffix list, and entities) are what the headless agent
 * loads when it first reads a page or keeps a cookie: bundled apart, in dist/oauthctl-pages.cjs with a
 * code cache of its own, so that a login that reads pages pays neither for resolving and compiling some
 * forty files of node_modules (parse5 is an ES module, compiled afresh on every run) nor, in the other
 * commands, for carrying them. In the command bundles `parse5` and `tough-cookie` become modules that
 * ask bin/load-cli.js for that bundle (once per process).
 */
const PAGE_LIBRARIES = { parse5: 'parse5', 'tough-cookie': 'toughCookie' };
const pageLibrariesApart = {
  name: 'page-libraries-apart',
  setup(b) {
    b.onResolve({ filter: /^(parse5|tough-cookie)$/ }, (args) => ({ path: args.path, namespace: 'page-libraries' }));
    b.onResolve({ filter: /^\.\.\/bin\/load-cli\.js$/ }, (args) => (args.namespace === 'page-libraries' ? { path: args.path, external: true } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'page-libraries' }, (args) => ({
      contents: `module.exports = require('../bin/load-cli.js').loadPageLibraries().${PAGE_LIBRARIES[args.path]};`,
      loader: 'js',
    }));
  },
};

/**
 * tough-cookie tests every cookie domain against a regular expression for IPv6 addresses of some
 * 2,500 characters, which V8 compiles on its first use: several milliseconds of a login's start-up for
 * `127.0.0.1` or `localhost`. Every IPv6 address has a colon, so a domain without one is answered
 * before the expression runs; the answers stay the same.
 */
const quickIpv6TestInToughCookie = patchSource(
  'quick-ipv6-test-in-tough-cookie',
  /[\\/]tough-cookie[\\/]dist[\\/]index\.c?js$/,
  (source) => {
    const regex = 'var IP_V6_REGEX_OBJECT = new RegExp(`^${IP_V6_REGEX}$`);';
    if (!source.includes(regex)) return undefined;
    const quick = 'var IP_V6_REGEX_FULL = new RegExp(`^${IP_V6_REGEX}$`);\nvar IP_V6_REGEX_OBJECT = { test: (s) => s.includes(":") && IP_V6_REGEX_FULL.test(s) };';
    return source.replace(regex, () => quick);
  },
  'tough-cookie no longer declares IP_V6_REGEX_OBJECT as expected; its IPv6 test is left as it is',
);

/**
 * tough-cookie asks tldts (the public suffix list) for a cookie host's registrable domain, and tldts
 * builds its tables when it loads: some 3 ms of every headless login. An IP address has no registrable
 * domain (tldts answers null for one without looking at its tables), so here tough-cookie's `tldts`
 * is scripts/lazy-public-suffix.cjs, which answers IP addresses itself and loads tldts for names only.
 */
const lazyPublicSuffix = {
  name: 'lazy-public-suffix',
  setup(b) {
    b.onResolve({ filter: /^tldts$/ }, (args) => (/[\\/]tough-cookie[\\/]/.test(args.importer) ? { path: join(root, 'scripts', 'lazy-public-suffix.cjs') } : undefined));
  },
};

/**
 * entities (parse5's character references) builds its hash tables of the 2,231 named references when
 * it loads: some 4 ms of every headless login, whose pages may have none. Here they are built the first
 * time a named reference is looked up: the module-level constants the decoders read become reads of
 * one lazily made object. The decoders and their answers are otherwise unchanged.
 */
const HTML_DECODE_TABLES = {
  htmlKeys: 'keys',
  htmlBuckets: 'buckets',
  htmlSlotMidOff: 'slotMidOff',
  htmlLengthBits: 'lengthBits',
  htmlMiddles: 'middles',
  htmlSlotValue: 'slotValue',
  htmlValues: 'values',
};
const lazyEntityTables = patchSource(
  'lazy-entity-tables',
  /[\\/]entities[\\/]dist[\\/]decode\.js$/,
  (source) => {
    const eager = 'const htmlDecode = /* #__PURE__ */ initDecodeData(htmlDecodeData);';
    const declarations = Object.entries(HTML_DECODE_TABLES).map(([name, key]) => `const ${name} = /* #__PURE__ */ (() => htmlDecode.${key})();`);
    if (!source.includes(eager) || declarations.some((d) => !source.includes(d)) || /\bhtmlDecode\b(?!\.)/.test(source.replace(eager, '').replace(/\bhtmlDecode\.\w+/g, ''))) return undefined;
    let lazy = source.replace(eager, () => 'let htmlDecode;\nconst htmlTables = () => (htmlDecode ??= initDecodeData(htmlDecodeData));');
    for (const d of declarations) lazy = lazy.replace(d, '');
    return lazy.replace(new RegExp(`\\b(${Object.keys(HTML_DECODE_TABLES).join('|')})\\b`, 'g'), (name) => `htmlTables().${HTML_DECODE_TABLES[name]}`);
  },
  'entities no longer declares its HTML decode tables as expected; they are left to load eagerly',
);

/**
 * A bundle with some of the commands: the same entry and main.ts, with a command table (in place of
 * commands.ts) that lists every command but has only these in it, and no `completion` unless named.
 * bin/load-cli.js runs each command line in the smallest bundle that has its command; a process loads
 * one bundle only, so no module is ever loaded twice.
 */
function withCommands(names) {
  const cli = join(root, 'src', 'cli', 'program');
  // Each command's module, as commands.ts names it (`name: () => import('../family/name.js')`).
  const files = Object.fromEntries(
    [...readFileSync(join(cli, 'commands.ts'), 'utf8').matchAll(/^\s*'?([\w-]+)'?: \(\) => import\('([^']+)\.js'\)/gm)].map(([, name, path]) => [name, join(cli, `${path}.ts`)]),
  );
  const table = `import { commandTable } from ${JSON.stringify(join(cli, 'command-table.ts'))};
export { COMPLETION_SUMMARY } from ${JSON.stringify(join(cli, 'command-table.ts'))};
const MODULES = { ${names
    .filter((n) => n !== 'completion')
    .map((n) => `${JSON.stringify(n)}: () => import(${JSON.stringify(files[n])})`)
    .join(', ')} };
export const COMMANDS = commandTable((name) => {
  if (!MODULES[name]) throw new Error('internal error: this bundle has no ' + name + ' command');
  return MODULES[name]();
});`;
  const completion = names.includes('completion') ? undefined : "export function register() { throw new Error('internal error: this bundle has no completion command'); }";
  return {
    name: 'with-commands',
    setup(b) {
      const fromMain = (args) => /[\\/]src[\\/]cli[\\/]program[\\/]main\.ts$/.test(args.importer);
      b.onResolve({ filter: /^\.\/commands\.js$/ }, (args) => (fromMain(args) ? { path: 'commands', namespace: 'command-table' } : undefined));
      b.onResolve({ filter: /^\.\/completion\.js$/ }, (args) => (fromMain(args) && completion ? { path: 'completion', namespace: 'command-table' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'command-table' }, (args) => ({ contents: args.path === 'commands' ? table : completion, loader: 'js', resolveDir: cli }));
    },
  };
}

/** The bundles, by file, and the commands in each (scripts/code-cache.cjs warms each; bin/load-cli.js chooses). */
/**
 * esbuild writes every character outside ASCII as an escape (its default charset), except in the
 * comments it keeps: five in tldts made the page bundle's source a two-byte string, twice the size to
 * read and keep. Here those too are escaped, so every bundle is ASCII (in a comment an escape is text).
 */
async function bundle(options) {
  const { outputFiles } = await build({ ...options, write: false });
  for (const file of outputFiles) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(
      file.path,
      file.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
  }
}

const BUNDLES = JSON.parse(await readFile(join(root, 'bin', 'bundles.json'), 'utf8'));
const entry = join(root, 'src', 'cli', 'program', 'bin.ts');
await bundle({ ...common, entryPoints: [entry], outfile: join(root, 'dist', 'oauthctl.cjs'), plugins: [lazyChildProcessInCommander, pageLibrariesApart] });
for (const [file, names] of Object.entries(BUNDLES)) {
  await bundle({ ...common, entryPoints: [entry], outfile: join(root, 'dist', file), plugins: [lazyChildProcessInCommander, withCommands(names), pageLibrariesApart] });
}
await bundle({
  ...common,
  stdin: { contents: "export * as parse5 from 'parse5';\nexport * as toughCookie from 'tough-cookie';\n", resolveDir: root, loader: 'js', sourcefile: 'page-libraries.js' },
  outfile: join(root, 'dist', 'oauthctl-pages.cjs'),
  plugins: [quickIpv6TestInToughCookie, lazyPublicSuffix, lazyEntityTables],
});

// `token` from a valid cache (src/cli/token/token-fast.ts): no commander, no flows; bin/oauthctl.js tries it first.
await bundle({ ...common, entryPoints: [join(root, 'src', 'cli', 'token', 'token-fast.ts')], outfile: join(root, 'dist', 'oauthctl-token.cjs') });
// `mcp` with a valid cached login (src/cli/mcp/mcp-fast.ts): the session without commander or the flows.
await bundle({ ...common, entryPoints: [join(root, 'src', 'cli', 'mcp', 'mcp-fast.ts')], outfile: join(root, 'dist', 'oauthctl-mcp.cjs') });

const cache = spawnSync(process.execPath, [join(root, 'scripts', 'code-cache.cjs')], { stdio: 'inherit' });
if (cache.status !== 0) {
  // The CLI works without it, only slower to start: the build goes on, and says so.
  console.warn(`build-cli: the V8 code caches were not all made (exit ${cache.status ?? cache.signal}); oauthctl starts slower on Node 20`);
}
