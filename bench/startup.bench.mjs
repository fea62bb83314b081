#!/usr/bin/env node
// Startup time: `oauthctl pkce` and `oauthctl --help` against a bare `node -e 0`, measured in the same run
// with the runs interleaved (so machine noise hits all three alike). Median of each; target: within 1.5x.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'oauthctl.js');
if (!existsSync(join(root, 'dist', 'oauthctl.cjs'))) {
  console.log('dist/ is missing: run `npm run build` first (npm run bench does)');
  process.exit(1);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const TARGET = 1.5;
const cases = {
  'node -e 0': ['-e', '0'],
  'oauthctl pkce': [bin, 'pkce'],
  'oauthctl --help': [bin, '--help'],
};

// A plain environment for every case alike: NODE_OPTIONS or NODE_EXTRA_CA_CERTS (a CA bundle parsed at
// each start) would swell the baseline too and flatter the ratio.
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' };

function timeOnce(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Warm the file system cache once, then alternate.
for (const args of Object.values(cases)) timeOnce(args);
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) samples[name].push(timeOnce(args));

const base = median(samples['node -e 0']);
console.log(`startup, median of ${RUNS} interleaved runs (node ${process.version})`);
console.log(`  baseline  node -e 0        ${base.toFixed(1)} ms`);
let ok = true;
for (const name of ['oauthctl pkce', 'oauthctl --help']) {
  const m = median(samples[name]);
  const ratio = m / base;
  const within = ratio <= TARGET;
  ok &&= within;
  console.log(`  ${name.padEnd(24)} ${m.toFixed(1)} ms  = ${ratio.toFixed(2)}x baseline  ${within ? `within ${TARGET}x` : `NOT within ${TARGET}x`}`);
}
console.log(ok ? `startup: within ${TARGET}x of node -e 0` : `startup: over ${TARGET}x of node -e 0`);
