'use strict';
// Loads the bundled command line, dist/oauthctl.cjs (one file: scripts/build-cli.mjs).
//
// Most of a short command's start-up is compiling JavaScript, so the compiled code is reused: Node 22.1
// and later keep their own compile cache (module.enableCompileCache, in the system's temporary
// directory); on older Node the V8 code cache made at build time beside the bundle is given to
// vm.Script. V8 checks that a cache matches the source and its own version and flags, and compiles
// afresh when it does not, so a stale or foreign cache costs time, never correctness.
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');

const BUNDLE = join(__dirname, '..', 'dist', 'oauthctl.cjs');
const CODE_CACHE = `${BUNDLE}.v8-cache`;

/**
 * The bundle's exports ({ main, warmUp }). `how`: 'auto' (Node's compile cache where there is one, else
 * the code cache), 'code-cache' (always the code cache), or 'make-code-cache' (compile afresh; the
 * returned vm.Script's createCachedData() then writes the cache once the warm-up has run).
 */
function loadCli(how = 'auto') {
  if (how === 'auto' && typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache();
    return { cli: require(BUNDLE) };
  }
  const vm = require('node:vm');
  const source = readFileSync(BUNDLE, 'utf8');
  let cachedData;
  if (how !== 'make-code-cache') {
    try {
      cachedData = readFileSync(CODE_CACHE);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: BUNDLE,
    cachedData,
    // import() inside the bundle (the ESM-only packages) resolves as it would in a file of its own.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, Module.createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
  return { cli: module.exports, script };
}

module.exports = { loadCli, BUNDLE, CODE_CACHE };
