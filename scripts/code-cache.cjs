'use strict';
// Runs commands in this process, so that their code is compiled, then writes the V8 code cache of each
// bundle for bin/load-cli.js (used on Node 20; Node 22.1+ keeps a compile cache of its own).
// The commands are the everyday ones: help, pkce, and a whole headless login (listener, headless agent,
// token request, ID token checks, token cache; parse5 and tough-cookie in a bundle of their own) against the mock run from tsc's dist/ in this process, so
// that the mock's own code, which serve-mock compiles once for a long run, stays out of the cache. Each
// smaller bundle runs those of them it has. The hot paths of `token` and `mcp` (bundles of their own)
// then run from a cached login, as kubectl, git and MCP hosts run them.
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { loadCli, codeCacheOf, loadPageLibraries, pageLibrariesScript, BUNDLE, BUNDLES, MCP_BUNDLE, PAGES_BUNDLE, TOKEN_BUNDLE } = require('../bin/load-cli.js');

function commandsFor(authUrl) {
  const login = ['--auth-url', authUrl, '--client-id', 'photo-cli'];
  return [
    ['--help'],
    ['--version'],
    ['pkce'],
    ['pkce', '--json'],
    ['login', '--help'],
    ['login', '--headless', ...login, '--scope', 'openid photo', '--username', 'alice', '--password', 'wonderland'],
    ['token', ...login],
    // The hot path of kubectl, git and curl: every --format from a valid cache.
    ['token', ...login, '--format', 'header'],
    ['token', ...login, '--format', 'json'],
    ['token', ...login, '--format', 'exec-credential'],
    ['status', '--all'],
  ];
}

const hasCommand = (names) => (argv) => argv[0] === undefined || argv[0].startsWith('-') || names.has(argv[0]);

async function warmUpAndSave(bundle, commands, env) {
  const { cli, script } = loadCli('make-code-cache', bundle);
  const codes = await cli.warmUp(commands, env);
  const failed = commands.filter((_, i) => ![0, 1].includes(codes[i]));
  if (failed.length > 0) throw new Error(`the warm-up commands failed: ${failed.map((c) => c.join(' ')).join(', ')}`);
  writeFileSync(codeCacheOf(bundle), script.createCachedData());
}

/**
 * The hot paths of `token` and `mcp` with a valid cached login (dist/oauthctl-token.cjs,
 * dist/oauthctl-mcp.cjs): the logins are made by the command line (whose cache is already written),
 * then each hot path runs from them, and must answer from the cache, or the build fails.
 */
async function warmUpHotPaths(mock, env) {
  const { discardingStream } = await import('../dist/output/io.js');
  const mcpUrl = `${mock.baseUrl}/mcp`;
  const user = ['--headless', '--username', 'alice', '--password', 'wonderland'];
  const logins = [
    ['profile', 'add', 'warm-up', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--scope', 'openid photo'],
    ['login', '--profile', 'warm-up', ...user],
    ['mcp', mcpUrl, ...user],
  ];
  const codes = await loadCli('code-cache', BUNDLE).cli.warmUp(logins, env);
  if (codes.some((c) => c !== 0)) throw new Error(`the hot paths' logins failed: ${codes.join(', ')}`);

  const token = loadCli('make-code-cache', TOKEN_BUNDLE);
  for (const format of ['bare', 'header', 'json', 'exec-credential']) {
    if (!(await token.cli.tokenFromCache(['token', '--profile', 'warm-up', '--format', format], env, discardingStream()))) throw new Error(`token --format ${format} did not answer from the cache`);
  }
  writeFileSync(codeCacheOf(TOKEN_BUNDLE), token.script.createCachedData());

  const mcp = loadCli('make-code-cache', MCP_BUNDLE);
  // Both revisions (the mock speaks 2026-07-28; a server of 2025-11-25 is initialized first), so that the
  // cache holds the code of either exchange.
  for (const version of [[], ['--mcp-version', '2025-11-25']]) {
    const code = await mcp.cli.mcpFromCache(['mcp', mcpUrl, ...version], { stdout: discardingStream(), stderr: discardingStream(), env });
    if (code !== 0) throw new Error(`mcp ${version.join(' ')} did not answer from the cache (${code})`);
  }
  writeFileSync(codeCacheOf(MCP_BUNDLE), mcp.script.createCachedData());
}

async function makeCodeCaches() {
  const { createMockServer } = await import('../dist/mock/index.js');
  const mock = await createMockServer(undefined, { port: 0 });
  const home = mkdtempSync(join(tmpdir(), 'oauthctl-code-cache-'));
  try {
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), NO_COLOR: '1' };
    const commands = commandsFor(mock.authUrl);
    // The page libraries (parse5, tough-cookie) are loaded once for every bundle's warm-up: the headless
    // logins read the mock's login and consent pages, so their cache holds the page reading's code.
    loadPageLibraries('make-code-cache');
    for (const { bundle, names } of BUNDLES) await warmUpAndSave(bundle, commands.filter(hasCommand(names)), env);
    await warmUpAndSave(BUNDLE, commands, env);
    writeFileSync(codeCacheOf(PAGES_BUNDLE), pageLibrariesScript().createCachedData());
    await warmUpHotPaths(mock, env);
  } finally {
    await mock.close();
    rmSync(home, { recursive: true, force: true });
  }
}

makeCodeCaches().then(
  () => process.exit(0),
  (err) => {
    console.error(`code-cache: ${err.message}`);
    process.exit(1);
  },
);
