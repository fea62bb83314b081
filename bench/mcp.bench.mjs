#!/usr/bin/env node
// `oauthctl mcp URL tools/list` with a valid cached token against an MCP server made with the MCP SDK
// (a child process: bench/mcp-server-child.mjs, 2025-11-25; bench/mcp2-server-child.mjs, the SDK 2.x,
// 2026-07-28), beside the MCP SDK's own client doing the same with that token (bench/mcp-sdk-client.mjs;
// bench/mcp2-sdk-client.mjs, the SDK 2.x), and beside the floor: `node -e 0`, and Node doing the three
// POSTs of 2025-11-25 with node:http alone (bench/mcp-floor.cjs). Rounds are interleaved (each round runs
// every case once), and each ratio is the median over the rounds of that round's ratio:
// - oauthctl (2025-11-25) within 1.15x of the floor (Node's http making the same three requests from a bare script);
// - oauthctl within 0.8x of the SDK client, in each revision.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'oauthctl.js');
if (!existsSync(join(root, 'dist', 'oauthctl.cjs'))) {
  console.log('dist/ is missing: run `npm run build` first (npm run bench does)');
  process.exit(1);
}
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const TOKEN = 'bench-token-0123456789abcdef';
const home = mkdtempSync(join(tmpdir(), 'oauthctl-bench-mcp-'));
const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), NO_COLOR: '1' };

/** A server child: its process and the URL it prints. */
async function startServer(file) {
  const child = spawn(process.execPath, [join(root, 'bench', file)], { cwd: root, env: { ...env, BENCH_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] });
  const at = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /^(http:\S+)\n/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`the MCP server ${file} exited ${code}`)));
  });
  return { child, url: at };
}
// The SDK 1.x server speaks 2025-11-25; the SDK 2.x one 2026-07-28 (bench/mcp2-server-child.mjs).
const { child: server, url } = await startServer('mcp-server-child.mjs');
const { child: server2, url: url2 } = await startServer('mcp2-server-child.mjs');
const serverMs = async () => (await (await fetch(new URL('/server-ms', url))).json()).ms;

// The login `oauthctl mcp` finds: cached under the resource, as `oauthctl mcp` and `login --protected-resource` keep it.
const setup = `
const { openTokenCache, saveTokens } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'store', 'token-cache.js')).href)});
await saveTokens(openTokenCache(process.env), { resource: process.env.URL }, { access_token: process.env.TOKEN, token_type: 'Bearer', expires_in: 3600 },
  { issuer: 'http://127.0.0.1:9', tokenEndpoint: 'http://127.0.0.1:9/token', clientId: 'bench', authMethod: 'none', resource: process.env.URL });`;
for (const at of [url, url2]) {
  const saved = spawnSync(process.execPath, ['--input-type=module', '-e', setup], { env: { ...env, URL: at, TOKEN }, stdio: 'inherit' });
  if (saved.status !== 0) throw new Error('could not cache the bench login');
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const cpuUsage = join(root, 'bench', 'cpu-usage.cjs');

/** One run: wall time as the caller waits for it, the child's own CPU time (cpu-usage.cjs), and the server's own time for it. */
async function timeOnce(args, cwd) {
  await serverMs();
  const start = process.hrtime.bigint();
  const r = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', cpuUsage, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.code !== 0) throw new Error(`${args.join(' ')} exited ${r.code}: ${r.err}`);
  if (args[0] !== '-e' && !r.out.includes('echo')) throw new Error(`${args.join(' ')} printed no tool list: ${r.out}`);
  return { ms, cpu: Number(/cpu-ms ([\d.]+)/.exec(r.err)?.[1] ?? NaN), server: await serverMs() };
}

const cases = {
  'node -e 0': { args: ['-e', '0'] },
  'node:http, three POSTs (floor)': { args: [join(root, 'bench', 'mcp-floor.cjs'), url, TOKEN] },
  'MCP SDK client, tools/list': { args: [join(root, 'bench', 'mcp-sdk-client.mjs'), url, TOKEN], cwd: root },
  'oauthctl mcp URL tools/list': { args: [bin, 'mcp', url, '--mcp-version', '2025-11-25'] },
  'oauthctl, falling back (no --mcp-version)': { args: [bin, 'mcp', url] },
  'MCP SDK 2.x client, 2026-07-28': { args: [join(root, 'bench', 'mcp2-sdk-client.mjs'), url2, TOKEN], cwd: root },
  'oauthctl mcp URL tools/list, 2026-07-28': { args: [bin, 'mcp', url2] },
};
let ok;
try {
  for (const c of Object.values(cases)) await timeOnce(c.args, c.cwd);
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, c] of Object.entries(cases)) samples[name].push(await timeOnce(c.args, c.cwd));
  const wall = (name) => median(samples[name].map((s) => s.ms));
  const own = median(samples['oauthctl mcp URL tools/list'].map((s) => s.server));
  console.log(`oauthctl mcp with a cached token against the MCP SDK's server, medians of ${RUNS} interleaved rounds (node ${process.version})`);
  for (const name of Object.keys(cases)) console.log(`  ${name.padEnd(34)} ${wall(name).toFixed(1)} ms`);
  console.log(`  the server's own time for oauthctl's three requests: ${own.toFixed(1)} ms`);
  // Each round's ratio, then their median: a round slowed by the machine slows both sides of it.
  const ratio = (name, of = 'ms', ours = 'oauthctl mcp URL tools/list') => median(samples[ours].map((s, i) => s[of] / samples[name][i][of]));
  const goals = [
    ['node:http, three POSTs (floor)', 1.15, 'floor (2025-11-25)', 'oauthctl mcp URL tools/list'],
    ['MCP SDK client, tools/list', 0.8, 'SDK client (2025-11-25)', 'oauthctl mcp URL tools/list'],
    ['MCP SDK 2.x client, 2026-07-28', 0.8, 'SDK 2.x client (2026-07-28)', 'oauthctl mcp URL tools/list, 2026-07-28'],
  ];
  ok = true;
  for (const [name, goal, label, ours] of goals) {
    const r = ratio(name, 'ms', ours);
    ok &&= r <= goal;
    console.log(`  oauthctl / ${label} = ${r.toFixed(2)}x  ${r <= goal ? 'within' : 'NOT within'} ${goal}x; CPU ${ratio(name, 'cpu', ours).toFixed(2)}x`);
  }
  console.log(`  (oauthctl / node -e 0 = ${ratio('node -e 0').toFixed(2)}x, for reference)`);
  if (process.env.BENCH_SAMPLES) for (const name of Object.keys(cases)) console.log(name, samples[name].map((s) => `${s.ms.toFixed(0)}/${s.cpu.toFixed(0)}`).join(' '));
} finally {
  server.kill();
  server2.kill();
  rmSync(home, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
