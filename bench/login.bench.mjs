#!/usr/bin/env node
// A whole headless login against the mock already running on loopback, against a bare `node -e 0`,
// runs interleaved (so machine noise hits both alike). Median of each; goal: within 1.6x.
// Beside them, the least a headless login can do (bench/login-floor.cjs): with a regular expression for
// the forms, and with parse5 and tough-cookie as the headless agent uses them. They show what
// the goal leaves to the command line once the page libraries are paid for.
// (--pkce: photo-cli must use PKCE; once PKCE is on by default the flag changes nothing.)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'oauthctl.js');
if (!existsSync(join(root, 'dist', 'mock', 'index.js'))) {
  console.log('dist/ is missing: run `npm run build` first (npm run bench does)');
  process.exit(1);
}
const { createMockServer } = await import(pathToFileURL(join(root, 'dist', 'mock', 'index.js')).href);

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const GOAL = 1.6;
const home = mkdtempSync(join(tmpdir(), 'oauthctl-bench-'));
// The mock runs in this process: the CLI is spawned asynchronously so that it keeps answering.
const mock = await createMockServer(undefined, { port: 0 });
const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_STATE_HOME: join(home, 'state'), NO_COLOR: '1' };
const login = [bin, 'login', '--headless', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo', '--username', 'alice', '--password', 'wonderland', '--no-cache'];
const floor = join(root, 'bench', 'login-floor.cjs');
const cases = {
  'node -e 0': ['-e', '0'],
  'floor, bare': [floor, mock.authUrl, 'bare'],
  'floor, page libraries': [floor, mock.authUrl, 'pages'],
  'oauthctl login --headless': login,
};

const cpuUsage = join(root, 'bench', 'cpu-usage.cjs');

/** Wall time as the user waits for it, and the child's own CPU time (reported by cpu-usage.cjs). */
function timeOnce(args) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--require', cpuUsage, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve({ ms, cpu: Number(/cpu-ms ([\d.]+)/.exec(stderr)?.[1] ?? NaN) });
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

try {
  for (const args of Object.values(cases)) await timeOnce(args);
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) samples[name].push(await timeOnce(args));
  const wall = (name) => median(samples[name].map((s) => s.ms));
  const cpu = (name) => median(samples[name].map((s) => s.cpu));
  const base = wall('node -e 0');
  const m = wall('oauthctl login --headless');
  const ratio = m / base;
  const cpuRatio = cpu('oauthctl login --headless') / cpu('node -e 0');
  console.log(`headless login against a running mock, median of ${RUNS} interleaved runs (node ${process.version})`);
  console.log(`  baseline  node -e 0          ${base.toFixed(1)} ms  (CPU ${cpu('node -e 0').toFixed(1)} ms)`);
  console.log(
    `  oauthctl login --headless    ${m.toFixed(1)} ms  = ${ratio.toFixed(2)}x baseline  (goal <= ${GOAL}x); CPU ${cpu('oauthctl login --headless').toFixed(1)} ms = ${cpuRatio.toFixed(2)}x`,
  );
  // On a loaded machine wall time swells with the size of the process; the CPU ratio is the steadier figure.
  for (const name of ['floor, bare', 'floor, page libraries']) {
    console.log(`  ${name.padEnd(28)} ${wall(name).toFixed(1)} ms  = ${(wall(name) / base).toFixed(2)}x baseline; CPU ${cpu(name).toFixed(1)} ms`);
  }
  console.log(`  oauthctl over the floor with page libraries: ${(m - wall('floor, page libraries')).toFixed(1)} ms (${(m / wall('floor, page libraries')).toFixed(2)}x)`);
  console.log(ratio <= GOAL ? `login: within ${GOAL}x of node -e 0` : `login: over ${GOAL}x of node -e 0`);
} finally {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
}
