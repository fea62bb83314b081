#!/usr/bin/env node
// Bundles the command line into one CommonJS file, dist/oauthctl.cjs, that bin/oauthctl.js loads, then
// makes its V8 code cache by running a few commands in one process (scripts/code-cache.cjs).
//
// Why: loading ~60 small ES modules one by one, then compiling them, was most of a command's start-up
// (npm run bench). One file, loaded through the CommonJS loader, with its compiled code cached, starts
// in a fraction of that. tsc's dist/ stays as it is for the library (createMockServer) and its types.
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * commander loads node:child_process when it loads, for executable subcommands (`git-style`), which
 * oauthctl does not have; that costs every command about a millisecond. Here its one use, spawn(), loads
 * the module when called instead.
 */
const lazyChildProcessInCommander = {
  name: 'lazy-child-process-in-commander',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) return undefined;
      return { contents: source.replace(eager, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"), loader: 'js' };
    });
  },
};

await build({
  entryPoints: [join(root, 'src', 'cli', 'bin.ts')],
  outfile: join(root, 'dist', 'oauthctl.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import() of a package or built-in becomes require(): a script compiled from a V8 code cache loses
  // vm.Script's dynamic import callback on Node 20, and require() loads ES modules since Node 20.19.
  supported: { 'dynamic-import': false },
  // Loaded only by the commands that need them, and large: left as packages of their own.
  external: ['open', 'prompts', 'qrcode', 'undici', 'playwright-core'],
  plugins: [lazyChildProcessInCommander],
  logLevel: 'warning',
});

const cache = spawnSync(process.execPath, [join(root, 'scripts', 'code-cache.cjs')], { stdio: 'inherit' });
if (cache.status !== 0) {
  // The CLI works without it, only slower to start: the build goes on, and says so.
  console.warn(`build-cli: no V8 code cache was made (exit ${cache.status ?? cache.signal}); oauthctl starts slower on Node 20`);
}
