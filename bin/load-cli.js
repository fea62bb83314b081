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
const Module = require('node:module');
const { dirname, join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const BUNDLE = join(DIST, 'oauthctl.cjs');
/** The smaller bundles and their commands, smallest first. */
const BUNDLES = Object.entries(require('./bundles.json')).map(([file, names]) => ({ bundle: join(DIST, file), names: new Set(names) }));
/**
 * `token`'s hot path (src/cli/token-fast.ts): it prints a valid cached token, or answers false having
 * done nothing, and the command line then runs in its bundle as usual (the one case where a process
 * loads two bundles: nothing made by the first reaches the second).
 */
const TOKEN_BUNDLE = join(DIST, 'oauthctl-token.cjs');
/** `mcp`'s session with a valid cached login (src/cli/mcp-fast.ts), tried first in the same way. */
const MCP_BUNDLE = join(DIST, 'oauthctl-mcp.cjs');

/** The bundle a command line runs in: the command is the first operand (`help X` asks for X), as in src/cli/main.ts. */
function bundleFor(argv) {
  const operands = argv.filter((a) => !a.startsWith('-'));
  const name = operands[0] === 'help' ? operands[1] : operands[0];
  if (name === undefined) return BUNDLES[0]?.bundle ?? BUNDLE;
  return BUNDLES.find((b) => b.names.has(name))?.bundle ?? BUNDLE;
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
  if (how === 'auto' && cachedData === undefined && typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache();
    return { cli: require(bundle) };
  }
  const vm = require('node:vm');
  const script = new vm.Script(Module.wrap(readFileSync(bundle, 'utf8')), {
    filename: bundle,
    cachedData,
    // import() inside the bundle (the ESM-only packages) resolves as it would in a file of its own.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, Module.createRequire(bundle), module, bundle, dirname(bundle));
  return { cli: module.exports, script };
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

module.exports = { loadCli, bundleFor, codeCacheOf, loadPageLibraries, pageLibrariesScript, BUNDLE, BUNDLES, TOKEN_BUNDLE, MCP_BUNDLE, PAGES_BUNDLE };
