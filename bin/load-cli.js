'use strict';
// Loads the bundled command line (scripts/build-cli.mjs): dist/oauthctl.cjs, the whole of it, or the
// smallest bundle of bundles.json that has the command: the same program, every command listed, only
// some in it (`oauthctl`, `--help`, `--version` and `pkce` load a sixth of the code, `login` and the
// other client commands leave out the mock and the audit). A process loads one bundle, never two.
//
// Most of a short command's start-up is compiling JavaScript, so the compiled code is reused: the V8
// code cache made at build time beside each bundle, named for the V8 that made it, when this Node's V8
// is that one (scripts/code-cache.cjs runs the everyday commands first, so the cache holds what they
// compile); else, on Node 22.1 and later, Node's own compile cache (module.enableCompileCache, in the
// system's temporary directory). V8 checks that a cache matches the source, its version and its flags,
// and compiles afresh when it does not, so a stale cache costs time, never correctness.
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const BUNDLE = join(DIST, 'oauthctl.cjs');
/**
 * The smaller bundles and their commands, smallest first: read when a command line is run, not by the
 * hot paths of `token` and `mcp`, which never need them.
 */
let bundles;
const listBundles = () => (bundles ??= Object.entries(require('./bundles.json')).map(([file, names]) => ({ bundle: join(DIST, file), names: new Set(names) })));
/**
 * `token`'s hot path (src/cli/token/token-fast.ts): it prints a valid cached token, or answers false having
 * done nothing, and the command line then runs in its bundle as usual (the one case where a process
 * loads two bundles: nothing made by the first reaches the second).
 */
const TOKEN_BUNDLE = join(DIST, 'oauthctl-token.cjs');
/** `mcp`'s session with a valid cached login (src/cli/mcp/mcp-fast.ts), tried first in the same way. */
const MCP_BUNDLE = join(DIST, 'oauthctl-mcp.cjs');

/** The bundle a command line runs in: the command is the first operand (`help X` asks for X), as in src/cli/program/main.ts. */
function bundleFor(argv) {
  const operands = argv.filter((a) => !a.startsWith('-'));
  const name = operands[0] === 'help' ? operands[1] : operands[0];
  if (name === undefined) return listBundles()[0]?.bundle ?? BUNDLE;
  return listBundles().find((b) => b.names.has(name))?.bundle ?? BUNDLE;
}

/** The code cache of a bundle for this process's V8 (another V8 would reject it). */
const codeCacheOf = (bundle) => `${bundle}.v8-${process.versions.v8}.cache`;

/**
 * A bundle's exports ({ main, warmUp }). `how`: 'auto' (the build's code cache for this V8 if there is
 * one, else Node's compile cache where there is one), 'code-cache' (the build's code cache, or none),
 * or 'make-code-cache' (compile afresh; the returned vm.Script's createCachedData() then writes the
 * cache once the warm-up has run).
 */
function loadCli(how = 'auto', bundle = BUNDLE) {
  let cachedData;
  if (how !== 'make-code-cache') {
    try {
      cachedData = readFileSync(codeCacheOf(bundle));
    } catch {
      cachedData = undefined;
    }
  }
  if (how === 'auto' && cachedData === undefined) {
    const Module = require('node:module');
    if (typeof Module.enableCompileCache === 'function') {
      Module.enableCompileCache();
      return { cli: require(bundle) };
    }
  }
  const vm = require('node:vm');
  // Module.wrap's wrapper, written out: node:module is not loaded for it (the hot paths of `token` and
  // `mcp` are a few tens of milliseconds). The bundles have no import() (esbuild makes require() of
  // it, and Node requires ES modules), so no dynamic-import hook is needed: bundle.test.ts holds it.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${readFileSync(bundle, 'utf8')}\n});`, { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, requireFrom(bundle), module, bundle, dirname(bundle));
  return { cli: module.exports, script };
}

/**
 * The require of a bundle: Node's own modules as anywhere, anything else (a package) resolved from
 * the bundle's folder as a file there would be, with node:module loaded on the first such require.
 */
function requireFrom(bundle) {
  let fromBundle;
  return (id) => (id.startsWith('node:') ? require(id) : (fromBundle ??= require('node:module').createRequire(bundle))(id));
}

/**
 * parse5 and tough-cookie, bundled apart (scripts/build-cli.mjs): the headless agent's page reading and
 * cookie jar, loaded the first time it reads a page or keeps a cookie, once per process, with the code
 * cache of their own bundle. scripts/code-cache.cjs loads them first with 'make-code-cache'.
 */
const PAGES_BUNDLE = join(DIST, 'oauthctl-pages.cjs');
let pageLibraries;

function loadPageLibraries(how = 'auto') {
  pageLibraries ??= loadCli(how, PAGES_BUNDLE);
  return pageLibraries.cli;
}

/** The page libraries' vm.Script when they were loaded from a code cache or made for one (scripts/code-cache.cjs). */
const pageLibrariesScript = () => pageLibraries?.script;

module.exports = {
  loadCli,
  bundleFor,
  codeCacheOf,
  loadPageLibraries,
  pageLibrariesScript,
  BUNDLE,
  get BUNDLES() {
    return listBundles();
  },
  TOKEN_BUNDLE,
  MCP_BUNDLE,
  PAGES_BUNDLE,
};
