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

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import() of a package or built-in becomes require(): a script compiled from a V8 code cache loses
  // vm.Script's dynamic import callback on Node 20, and require() loads ES modules since Node 20.19.
  supported: { 'dynamic-import': false },
  // Loaded only by the commands that need them, and large: left as packages of their own.
  external: ['open', 'prompts', 'uqr', 'undici', 'playwright-core', '@napi-rs/keyring', 'parse5', 'tough-cookie'],
  logLevel: 'warning',
};

/**
 * A bundle with some of the commands: the same entry and main.ts, with a command table (in place of
 * commands.ts) that lists every command but has only these in it, and no `completion` unless named.
 * bin/load-cli.js runs each command line in the smallest bundle that has its command; a process loads
 * one bundle only, so no module is ever loaded twice.
 */
function withCommands(names) {
  const cli = join(root, 'src', 'cli');
  const table = `import { commandTable } from ${JSON.stringify(join(cli, 'command-table.ts'))};
export { COMPLETION_SUMMARY } from ${JSON.stringify(join(cli, 'command-table.ts'))};
const MODULES = { ${names
    .filter((n) => n !== 'completion')
    .map((n) => `${JSON.stringify(n)}: () => import(${JSON.stringify(join(cli, `${n}.ts`))})`)
    .join(', ')} };
export const COMMANDS = commandTable((name) => {
  if (!MODULES[name]) throw new Error('internal error: this bundle has no ' + name + ' command');
  return MODULES[name]();
});`;
  const completion = names.includes('completion') ? undefined : "export function register() { throw new Error('internal error: this bundle has no completion command'); }";
  return {
    name: 'with-commands',
    setup(b) {
      const fromMain = (args) => /[\\/]src[\\/]cli[\\/]main\.ts$/.test(args.importer);
      b.onResolve({ filter: /^\.\/commands\.js$/ }, (args) => (fromMain(args) ? { path: 'commands', namespace: 'command-table' } : undefined));
      b.onResolve({ filter: /^\.\/completion\.js$/ }, (args) => (fromMain(args) && completion ? { path: 'completion', namespace: 'command-table' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'command-table' }, (args) => ({ contents: args.path === 'commands' ? table : completion, loader: 'js', resolveDir: cli }));
    },
  };
}

/** The bundles, by file, and the commands in each (scripts/code-cache.cjs warms each; bin/load-cli.js chooses). */
const BUNDLES = JSON.parse(await readFile(join(root, 'bin', 'bundles.json'), 'utf8'));
const entry = join(root, 'src', 'cli', 'bin.ts');
await build({ ...common, entryPoints: [entry], outfile: join(root, 'dist', 'oauthctl.cjs'), plugins: [lazyChildProcessInCommander] });
for (const [file, names] of Object.entries(BUNDLES)) {
  await build({ ...common, entryPoints: [entry], outfile: join(root, 'dist', file), plugins: [lazyChildProcessInCommander, withCommands(names)] });
}

// `token` from a valid cache (src/cli/token-fast.ts): no commander, no flows; bin/oauthctl.js tries it first.
await build({ ...common, entryPoints: [join(root, 'src', 'cli', 'token-fast.ts')], outfile: join(root, 'dist', 'oauthctl-token.cjs') });

const cache = spawnSync(process.execPath, [join(root, 'scripts', 'code-cache.cjs')], { stdio: 'inherit' });
if (cache.status !== 0) {
  // The CLI works without it, only slower to start: the build goes on, and says so.
  console.warn(`build-cli: the V8 code caches were not all made (exit ${cache.status ?? cache.signal}); oauthctl starts slower on Node 20`);
}
