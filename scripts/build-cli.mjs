#!/usr/bin/env node
// Bundles the command line into one CommonJS file, dist/oauthctl.cjs, that bin/oauthctl.js loads, then
// makes its V8 code cache by running a few commands in one process (scripts/code-cache.cjs).
//
// Why: loading ~60 small ES modules one by one, then compiling them, was most of a command's start-up
// (npm run bench). One file, loaded through the CommonJS loader, with its compiled code cached, starts
// in a fraction of that. tsc's dist/ stays as it is for the library (createMockServer) and its types.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

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
  logLevel: 'warning',
});

const cache = spawnSync(process.execPath, [join(root, 'scripts', 'code-cache.cjs')], { stdio: 'inherit' });
if (cache.status !== 0) {
  // The CLI works without it, only slower to start: the build goes on, and says so.
  console.warn(`build-cli: no V8 code cache was made (exit ${cache.status ?? cache.signal}); oauthctl starts slower on Node 20`);
}
