#!/usr/bin/env node
// Startup time against a bare `node -e 0`, measured in the same run with the runs interleaved (so
// machine noise hits every case alike); median of each:
// - `oauthctl pkce` and `oauthctl --help`: within 1.5x;
// - `oauthctl token` from a valid cache, in every --format: within 1.3x (the hot path of kubectl and git);
// - the same from the OS keyring (--token-store keyring): within 1.6x. That part runs in a D-Bus
//   session of its own with gnome-keyring unlocked (`dbus-run-session`), the baseline measured there too.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'oauthctl.js');
const self = fileURLToPath(import.meta.url);
if (!existsSync(join(root, 'dist', 'oauthctl.cjs'))) {
  console.log('dist/ is missing: run `npm run build` first (npm run bench does)');
  process.exit(1);
}

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const inKeyringSession = process.env.OAUTHCTL_BENCH_KEYRING === '1';

// A home with one valid cached login (a JWT-shaped access token, an ID token, an hour left), so that
// `token` reads the cache and prints, as it does for kubectl and git between refreshes.
const home = mkdtempSync(join(tmpdir(), 'oauthctl-bench-startup-'));
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const jwt = (claims) => `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.${'s'.repeat(342)}`;
const entry = {
  version: 1,
  profile: 'bench',
  issuer: 'http://127.0.0.1:9',
  token_endpoint: 'http://127.0.0.1:9/token',
  client_id: 'photo-cli',
  auth_method: 'none',
  access_token: jwt({ sub: 'alice', exp: now + 3600, scope: 'openid photo' }),
  token_type: 'Bearer',
  refresh_token: 'r'.repeat(43),
  id_token: jwt({ sub: 'alice', aud: 'photo-cli', exp: now + 3600 }),
  scope: 'openid photo offline_access',
  expires_at: now + 3600,
  obtained_at: now,
};
const tokens = join(home, 'state', 'oauthctl', 'tokens');
mkdirSync(tokens, { recursive: true, mode: 0o700 });
writeFileSync(join(tokens, 'profile-bench.json'), JSON.stringify(entry), { mode: 0o600 });

// A plain environment for every case alike: NODE_OPTIONS or NODE_EXTRA_CA_CERTS (a CA bundle parsed at
// each start) would swell the baseline too and flatter the ratio.
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_STATE_HOME: join(home, 'state'),
  NO_COLOR: '1',
  ...(process.env.DBUS_SESSION_BUS_ADDRESS && { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS }),
};

const cpuUsage = join(root, 'bench', 'cpu-usage.cjs');

/** Wall time as the caller waits for it, and the child's own CPU time (reported by cpu-usage.cjs). */
function timeOnce(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', cpuUsage, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, cpu: Number(/cpu-ms ([\d.]+)/.exec(r.stderr)?.[1] ?? NaN) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs the cases interleaved; prints each against the baseline and its target; true when all are within. */
function measure(title, cases) {
  const all = { 'node -e 0': { args: ['-e', '0'] }, ...cases };
  // Warm the file system cache once, then alternate.
  for (const { args } of Object.values(all)) timeOnce(args);
  const samples = Object.fromEntries(Object.keys(all).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, { args }] of Object.entries(all)) samples[name].push(timeOnce(args));
  const wall = (name) => median(samples[name].map((s) => s.ms));
  const cpu = (name) => median(samples[name].map((s) => s.cpu));
  const base = wall('node -e 0');
  console.log(`${title}, median of ${RUNS} interleaved runs (node ${process.version})`);
  console.log(`  baseline  node -e 0                            ${base.toFixed(1)} ms  (CPU ${cpu('node -e 0').toFixed(1)} ms)`);
  let ok = true;
  for (const [name, { target }] of Object.entries(cases)) {
    const m = wall(name);
    const ratio = m / base;
    const within = ratio <= target;
    ok &&= within;
    const cpuRatio = cpu(name) / cpu('node -e 0');
    console.log(`  ${name.padEnd(46)} ${m.toFixed(1)} ms  = ${ratio.toFixed(2)}x baseline  ${within ? `within ${target}x` : `NOT within ${target}x`}; CPU ${cpuRatio.toFixed(2)}x`);
  }
  // On a loaded machine wall time swells with the size of the process; the CPU ratio is the steadier figure.
  return ok;
}

/** Splits the entry as `--token-store keyring` does (dist/store/secret-store.js): secrets to the keyring, the rest to the file. */
const keyringSetup = `
import { writeFileSync } from 'node:fs';
import { saveSecrets, splitSecrets } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'store', 'secret-store.js')).href)};
const { metadata, secrets } = splitSecrets(JSON.parse(process.env.ENTRY));
await saveSecrets(process.env.FILE, secrets);
writeFileSync(process.env.FILE, JSON.stringify(metadata), { mode: 0o600 });`;

const token = (...args) => ({ args: [bin, 'token', '--profile', 'bench', ...args], target: 1.3 });
try {
  if (inKeyringSession) {
    // Move the login's secrets into this session's keyring: the file keeps the metadata only.
    const login = spawnSync(process.execPath, ['--input-type=module', '-e', keyringSetup], {
      env: { ...env, ENTRY: JSON.stringify(entry), FILE: join(tokens, 'profile-bench.json') },
      stdio: 'inherit',
    });
    if (login.status !== 0) throw new Error('could not put the bench login into the keyring');
    const ok = measure('token from the OS keyring (gnome-keyring in dbus-run-session)', { 'oauthctl token (--token-store keyring)': { args: [bin, 'token', '--profile', 'bench'], target: 1.6 } });
    console.log(ok ? 'keyring: within 1.6x of node -e 0' : 'keyring: over 1.6x of node -e 0');
  } else {
    const ok = measure('startup', {
      'oauthctl pkce': { args: [bin, 'pkce'], target: 1.5 },
      'oauthctl --help': { args: [bin, '--help'], target: 1.5 },
      'oauthctl token (valid cache)': token(),
      'oauthctl token --format header': token('--format', 'header'),
      'oauthctl token --format json': token('--format', 'json'),
      'oauthctl token --format exec-credential': token('--format', 'exec-credential'),
    });
    console.log(ok ? 'startup: every case within its target' : 'startup: some case over its target');
    const canKeyring = ['dbus-run-session', 'gnome-keyring-daemon'].every((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0);
    if (canKeyring) {
      spawnSync(
        'dbus-run-session',
        ['--', 'sh', '-c', `echo -n bench | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "${process.execPath}" "${self}"`],
        // The keyring daemon keeps its files in this run's home, never the user's.
        { stdio: ['ignore', 'inherit', 'ignore'], env: { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), OAUTHCTL_BENCH_KEYRING: '1' } },
      );
    } else {
      console.log('keyring: not measured (dbus-run-session and gnome-keyring are not installed)');
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
