'use strict';
// Loads the bundled command line (scripts/build-cli.mjs): dist/oauthctl.cjs, the whole of it, or the
// smallest bundle of bundles.json that has the command: the same program, every command listed, only
// some in it (`oauthctl`, `--help`, `--version` and `pkce` load a sixth of the code, `login` and the
// other client commands leave out the mock and the audit). A process loads one bundle, never two.
//
// Most of a short command's start-up is compiling JavaScript, so the compiled code is reused: Node 22.1
// and later keep their own compile cache (module.enableCompileCache, in the system's temporary
// directory); on older Node the V8 code cache made at build time beside each bundle is given to
// vm.Script. V8 checks that a cache matches the source and its own version and flags, and compiles
// afresh when it does not, so a stale or foreign cache costs time, never correctness.
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const BUNDLE = join(DIST, 'oauthctl.cjs');
/** The smaller bundles and their commands, smallest first. */
const BUNDLES = Object.entries(require('./bundles.json')).map(([file, names]) => ({ bundle: join(DIST, file), names: new Set(names) }));

/** The bundle a command line runs in: the command is the first operand (`help X` asks for X), as in src/cli/main.ts. */
function bundleFor(argv) {
  const operands = argv.filter((a) => !a.startsWith('-'));
  const name = operands[0] === 'help' ? operands[1] : operands[0];
  if (name === undefined) return BUNDLES[0]?.bundle ?? BUNDLE;
  return BUNDLES.find((b) => b.names.has(name))?.bundle ?? BUNDLE;
}

const codeCacheOf = (bundle) => `${bundle}.v8-cache`;

/**
 * A bundle's exports ({ main, warmUp }). `how`: 'auto' (Node's compile cache where there is one, else
 * the code cache), 'code-cache' (always the code cache), or 'make-code-cache' (compile afresh; the
 * returned vm.Script's createCachedData() then writes the cache once the warm-up has run).
 */
function loadCli(how = 'auto', bundle = BUNDLE) {
  if (how === 'auto' && typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache();
    return { cli: require(bundle) };
  }
  const vm = require('node:vm');
  const source = readFileSync(bundle, 'utf8');
  let cachedData;
  if (how !== 'make-code-cache') {
    try {
      cachedData = readFileSync(codeCacheOf(bundle));
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: bundle,
    cachedData,
    // import() inside the bundle (the ESM-only packages) resolves as it would in a file of its own.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, Module.createRequire(bundle), module, bundle, dirname(bundle));
  return { cli: module.exports, script };
}

module.exports = { loadCli, bundleFor, codeCacheOf, BUNDLE, BUNDLES };
